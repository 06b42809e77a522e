//! The error type of every operation in this crate: what failed, as facts ([`Failure`], with
//! the values: paths, counts, limits, the session, the io error), the data a reader needs
//! (recovery hints, the diff of a conflict, the session that stays open) and what to do next as
//! data ([`NextStep`]). No tool is named and no sentence for the model is written here: the
//! binary words the failure and the next step; `Display` is a terse line for logs.

use std::fmt;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;

use fs_mcp_sandbox::{AccessError, EntryKind};
use fs_mcp_text::NotText;

use crate::diff::VersionDiff;
use crate::hints::Hints;

/// What kind of failure an [`EditError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The arguments are unusable (blank or too long `match_text`, bad sentinel use, …).
    InvalidRequest,
    /// The sandbox refused a path.
    AccessDenied,
    /// The edit could not be prepared (`match_text` not found or not unique, no changes).
    Validation,
    /// The file to edit does not exist.
    FileNotFound,
    /// The file changed on disk after the proposal was made; nothing was written.
    Conflict,
    /// `session_path` does not name a usable review session.
    Session,
    /// Reading or writing failed.
    Io,
}

impl ErrorKind {
    /// A stable name of the kind (for logs and tests).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::InvalidRequest => "invalid_request",
            ErrorKind::AccessDenied => "access_denied",
            ErrorKind::Validation => "validation_error",
            ErrorKind::FileNotFound => "file_not_found",
            ErrorKind::Conflict => "conflict",
            ErrorKind::Session => "session_error",
            ErrorKind::Io => "io_error",
        }
    }
}

/// What the caller can do after a failure, as data (the binary words it with the tools it
/// lists).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NextStep {
    /// Re-read the file (`path`; `None`: the files of a multi-file change) and propose the edit
    /// again as a new proposal.
    ReadAndProposeAgain {
        /// The file, as the client named it.
        path: Option<String>,
    },
    /// Re-read `path` and propose again, or ask the user to merge the reviewed version (kept in
    /// the session) by hand.
    ReadAndProposeAgainOrMerge {
        /// The file, as the client named it.
        path: String,
    },
    /// The same call again (the file kept changing while it was written).
    TryAgain,
    /// A multi-file change was left half done: the next proposal completes it.
    NextProposalCompletes,
    /// Write the whole new content instead of appending (the file has other names).
    WriteWholeFile,
    /// Once the user has saved the proposal file: commit the session, or collect the verdict.
    CommitAfterSave {
        /// The session.
        session_path: String,
        /// Its file, as the client named it.
        path: String,
    },
    /// Collect the verdict on the open proposal (the session, no edit).
    CollectVerdict {
        /// The session.
        session_path: String,
        /// Its file, as the client named it.
        path: String,
    },
    /// The user has not saved the proposal: ask them to (unchanged to approve), then commit the
    /// session again, or wait for the review with the session.
    AwaitReview {
        /// The session.
        session_path: String,
    },
    /// Accept the user's version of the session as it is.
    AcceptUserVersion {
        /// The session.
        session_path: String,
        /// Its file, as the client named it.
        path: String,
    },
    /// Propose without the session (or collect the verdict on the open proposal).
    ProposeWithoutSession,
    /// Pass the session's own file, or start a new review of `path`.
    SameFileOrNewSession {
        /// The file asked for, as the client named it.
        path: String,
    },
    /// Use a session_path a reply returned.
    UseReturnedSessionPath,
    /// Read the current content first and replace exact text; `OVERWRITE_FILE` replaces all.
    ReadBeforeReplacing,
    /// Split the change into several edits under the limit, or lift the limit.
    ShortenMatchText,
    /// Ask the user to save the reviewed file as UTF-8 text.
    SaveAsUtf8,
    /// Wait for the call that uses the session, or cancel it.
    WaitForOtherCall,
    /// Another review channel is needed (a diff command, or auto-approve).
    ConfigureReview,
    /// Too many reviews are open: collect their verdicts, or wait until they close unused.
    FinishOpenReviews {
        /// Minutes unused after which an open review closes.
        idle_minutes: u64,
    },
}

/// What failed, as facts: the values a reader needs (paths as the client named them, counts,
/// the io error, the session). The binary words each one; `Display` is a terse line for logs.
#[derive(Debug, Clone)]
pub enum Failure {
    /// The sandbox refused a path.
    Access {
        /// The refusal.
        error: Arc<AccessError>,
        /// What it means for the call.
        then: AccessThen,
    },
    /// A request with neither `match_text`/`new_string` nor edits reached the proposal.
    NoEdit,
    /// Both `edits` (this many) and `match_text`/`new_string` were given.
    EditsAndMatchText {
        /// How many edits.
        edits: usize,
    },
    /// `edits` is empty and there is no `match_text` or `new_string`.
    EmptyEdits,
    /// A blank `match_text` for a file with content.
    BlankMatchText {
        /// The edit of a batch (its place in the request's `edits`, 0-based); `None`: the single
        /// `match_text`.
        edit: Option<usize>,
    },
    /// `APPEND_TO_FILE` for a file that does not exist.
    AppendToMissingFile {
        /// The edit of a batch (its place in the request's `edits`, 0-based); `None`: the single
        /// `match_text`.
        edit: Option<usize>,
    },
    /// A `match_text` longer than [`crate::MATCH_TEXT_MAX_LENGTH`] characters, without the
    /// bypass.
    MatchTextTooLong {
        /// The edit of a batch (its place in the request's `edits`, 0-based); `None`: the single
        /// `match_text`.
        edit: Option<usize>,
    },
    /// A whole-file overwrite combined with other edits of a new proposal.
    OverwriteInBatch,
    /// A `match_text` occurs `found` times where `expected` were required (the hints say more).
    MatchCount {
        /// The edit of a batch (its place in the request's `edits`, 0-based); `None`: the single
        /// `match_text`.
        edit: Option<usize>,
        /// It was searched in the session's current version (not the file).
        in_session: bool,
        /// Occurrences found.
        found: usize,
        /// Occurrences required.
        expected: usize,
    },
    /// The edit changes nothing.
    NoChanges,
    /// The file to edit does not exist (and the edit does not create it).
    FileNotFound {
        /// As the client named it.
        path: String,
    },
    /// The path to edit is a directory.
    IsDirectory {
        /// As the client named it.
        path: String,
    },
    /// The path to edit is not a regular file.
    NotRegularFile {
        /// As the client named it.
        path: String,
        /// What it is.
        kind: EntryKind,
    },
    /// The file is larger than [`crate::MAX_FILE_BYTES`].
    FileTooLarge {
        /// As the client named it.
        path: String,
        /// Its size.
        bytes: u64,
    },
    /// The file is not text.
    FileNotText {
        /// As the client named it.
        path: String,
        /// Why.
        error: NotText,
    },
    /// Reading the file to edit failed.
    ReadFile {
        /// As the client named it.
        path: String,
        /// The error.
        error: Arc<io::Error>,
    },
    /// The proposal, as it would be written, is larger than [`crate::MAX_FILE_BYTES`].
    ProposalTooLarge {
        /// As the client named it.
        path: String,
        /// Its size.
        bytes: usize,
    },
    /// The proposal would grow past [`crate::MAX_FILE_BYTES`] (refused before it is built).
    ProposalWouldGrow {
        /// As the client named it.
        path: String,
    },
    /// Two paths of a multi-file proposal name the same file.
    SameFileTwice {
        /// The later path.
        path: String,
        /// The earlier one.
        other: String,
    },
    /// A multi-file proposal with a `session_path`.
    MultiFileContinued,
    /// New edits for a session that reviews a multi-file proposal.
    MultiFileSessionEdited {
        /// The session.
        session_path: String,
    },
    /// A session of another file.
    OtherFileSession {
        /// The session.
        session_path: String,
        /// Its file, as the client named it.
        reviews: String,
        /// The file asked for.
        path: String,
    },
    /// Too many reviews, or too many bytes, are open.
    Limit(Limit),
    /// A review session file (`current_…`, `future_…`) could not be read.
    ReadSessionFile {
        /// The file.
        file: PathBuf,
        /// The error.
        error: Arc<io::Error>,
    },
    /// A review session file could not be written.
    WriteSessionFile {
        /// The file.
        file: PathBuf,
        /// The error.
        error: Arc<io::Error>,
    },
    /// The session's version of the file is not text.
    SessionFileNotText {
        /// The file.
        file: PathBuf,
        /// Why.
        error: NotText,
    },
    /// The user's version could not be recorded in the session.
    RecordUserVersion {
        /// The file.
        file: PathBuf,
        /// The error.
        error: Arc<io::Error>,
    },
    /// The reviewed file (the user's version) is not text.
    ReviewedNotText {
        /// The file.
        file: PathBuf,
        /// Why.
        error: NotText,
        /// The session stays open (a save while waiting; not a commit).
        stays_open: bool,
    },
    /// A review session directory could not be made.
    CreateSession {
        /// The error.
        error: Arc<io::Error>,
    },
    /// The review files could not be written.
    WriteReviewFiles {
        /// The error.
        error: Arc<io::Error>,
    },
    /// No random bytes for a token.
    Random {
        /// What the token is for.
        purpose: TokenPurpose,
        /// The error.
        error: Arc<io::Error>,
    },
    /// The proposal file could not be watched for the review.
    Watch {
        /// The file.
        file: PathBuf,
        /// The error.
        error: String,
    },
    /// Watching the proposal file failed during the review.
    WatchFailed {
        /// The file.
        file: PathBuf,
        /// The file under review, as the client named it.
        path: String,
        /// The error.
        error: String,
    },
    /// A blocking file operation did not finish (its task panicked or was cancelled).
    Internal {
        /// The task's error.
        error: String,
    },
    /// The review session ended before this call used it.
    SessionEnded,
    /// The review session ended while this call was using it.
    SessionEndedUnexpectedly,
    /// `session_path` names a review that ended without its client's call.
    SessionClosed {
        /// The session.
        session_path: String,
        /// Why it ended.
        why: EndedWhy,
    },
    /// `session_path` names no usable open review of this client.
    BadSessionPath {
        /// The session path, as given.
        session_path: String,
        /// Why.
        why: BadSessionPath,
    },
    /// The session has ended (it was in the registry a moment ago).
    SessionGone {
        /// The session.
        session_path: String,
    },
    /// Another call is using the session.
    SessionBusy {
        /// The session.
        session_path: String,
    },
    /// The review form's answer names no open review of this client.
    UnknownFormState,
    /// An app verdict names no open review of this client.
    UnknownVerdictToken,
    /// An edited version was sent for a multi-file proposal from the review view.
    MultiFileEditedInView,
    /// An edited version was sent for a multi-file proposal.
    MultiFileEdited,
    /// `commit_review` of one file of a multi-file proposal.
    MultiFileCommitted {
        /// The session.
        session_path: String,
    },
    /// `original_path` is not the session's file.
    NotSessionFile {
        /// As given.
        original_path: String,
        /// The session.
        session_path: String,
        /// The session's file, as the client named it.
        file: String,
    },
    /// The reviewed file is missing from the session.
    ApprovedFileMissing {
        /// The file.
        file: PathBuf,
    },
    /// `commit_review` before the user saved the proposal.
    NotReviewed {
        /// The session.
        session_path: String,
        /// The proposal file the user has not saved.
        file: PathBuf,
        /// As given.
        original_path: String,
    },
    /// The file changed on disk after the proposal was made (a reviewed proposal).
    Conflict {
        /// As the client named it.
        path: String,
        /// Where the reviewed version is kept.
        kept: PathBuf,
    },
    /// The file changed while an auto-approved edit was committed, and the edit does not apply
    /// to the new content.
    AutoConflict {
        /// As the client named it.
        path: String,
    },
    /// A file of a multi-file proposal changed on disk after the proposal was made.
    MultiFileConflict {
        /// As the client named it.
        path: String,
    },
    /// A commit found the file unusable; nothing was written.
    CommitRefused {
        /// As the client named it.
        path: String,
        /// Why.
        why: CommitRefusal,
        /// Where the reviewed version is kept (the session stays open), if it is.
        kept: Option<PathBuf>,
    },
    /// The files of a multi-file change kept changing while it was committed.
    FilesKeptChanging,
    /// A multi-file change could not be committed; nothing was written.
    CommitChange {
        /// The error.
        error: Arc<io::Error>,
    },
    /// A multi-file change was written only in part (every file holds its old or its new
    /// content; the journal completes it).
    PartlyCommitted {
        /// The files written, as the client named them.
        written: Vec<String>,
        /// The file whose rename failed.
        failed: String,
        /// The error.
        error: Arc<io::Error>,
    },
    /// A direct write (`write_file`, `append_text`) did not happen.
    WriteRefused {
        /// What was done.
        action: WriteAction,
        /// As the client named it.
        path: String,
        /// Why.
        why: WriteRefusal,
    },
    /// `append_text` to a file with other names.
    HardLinked {
        /// As the client named it.
        path: String,
        /// Its number of links.
        links: u64,
    },
    /// `append_text` to a file that is not UTF-8 text.
    AppendToNonText {
        /// As the client named it.
        path: String,
    },
    /// `move_file` of an allowed directory itself.
    MoveRoot {
        /// As the client named it.
        source: String,
    },
    /// `move_file` of a path that does not exist.
    SourceMissing {
        /// As the client named it.
        source: String,
    },
    /// `move_file` onto an existing path.
    DestinationExists {
        /// As the client named it.
        destination: String,
    },
    /// `move_file` of a directory into itself.
    MoveIntoItself {
        /// As the client named it.
        source: String,
        /// As the client named it.
        destination: String,
    },
    /// The destination's directories could not be made.
    CreateDestination {
        /// The error.
        error: Arc<io::Error>,
    },
    /// `move_file` across filesystems.
    CrossDevice {
        /// As the client named it.
        source: String,
        /// As the client named it.
        destination: String,
    },
    /// The source was moved or removed during `move_file`.
    SourceVanished {
        /// As the client named it.
        source: String,
        /// As the client named it.
        destination: String,
    },
    /// The rename of `move_file` failed.
    MoveFailed {
        /// As the client named it.
        source: String,
        /// As the client named it.
        destination: String,
        /// The error.
        error: Arc<io::Error>,
    },
    /// `create_directory` where something else than a directory is.
    NotADirectory {
        /// The path as the sandbox shows it.
        shown: String,
    },
    /// `create_directory` failed.
    CreateDirectory {
        /// The path as the sandbox shows it.
        shown: String,
        /// The error.
        error: Arc<io::Error>,
    },
    /// No channel could show the review (the caller's own, e.g. the review page, failed).
    NoReviewChannel {
        /// Why the last one failed.
        error: String,
    },
}

/// How a sandbox refusal ends the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessThen {
    /// The refusal says it all.
    AsIs,
    /// A commit: nothing was written.
    NothingWritten,
    /// `commit_review`: nothing was written and the session stays open.
    SessionStaysOpen,
}

/// Which bound on open reviews a proposal would pass (nothing was proposed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// [`crate::MAX_REVIEWS_PER_CLIENT`] sessions of this client.
    ClientReviews,
    /// [`crate::MAX_OPEN_REVIEWS`] sessions of the server.
    ServerReviews,
    /// [`crate::MAX_REVIEW_BYTES_PER_CLIENT`] held by this client's reviews.
    ClientBytes {
        /// What the proposal needs.
        needed: usize,
        /// What is held.
        held: usize,
    },
    /// [`crate::MAX_OPEN_REVIEW_BYTES`] held by all reviews.
    ServerBytes {
        /// What the proposal needs.
        needed: usize,
        /// What is held.
        held: usize,
    },
}

/// What a random token is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenPurpose {
    /// The state sent with the client's review form.
    FormState,
    /// The token of the review view inside the client.
    ViewToken,
}

/// Why a review ended without its client's call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EndedWhy {
    /// The client session that proposed it ended (closed, expired, replaced).
    ClientGone,
    /// The client's allowed directories changed and `file` is no longer inside them.
    OutsideRoots {
        /// The file, as the client named it.
        file: String,
    },
}

/// Why a `session_path` names no usable session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BadSessionPath {
    /// It is relative.
    NotAbsolute,
    /// It contains `..`.
    ParentDir,
    /// It is not an open review session of this client.
    NotOpen,
}

/// Why a commit of a reviewed (or auto-approved) proposal wrote nothing.
#[derive(Debug, Clone)]
pub enum CommitRefusal {
    /// The sandbox refused the path now.
    Access(Arc<AccessError>),
    /// The path now leads elsewhere (`now`) than where the edit was proposed (`target`), both
    /// as the sandbox shows them.
    Moved {
        /// Where it leads now.
        now: String,
        /// Where it led.
        target: String,
    },
    /// It is now not a regular file.
    NotRegular(EntryKind),
    /// It is now larger than [`crate::MAX_FILE_BYTES`].
    TooLarge(u64),
    /// It kept changing (renamed or replaced) while it was being written.
    KeptChanging,
    /// Writing failed.
    Io(Arc<io::Error>),
}

/// A direct write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteAction {
    /// `write_file`.
    Write,
    /// `append_text`.
    Append,
}

/// Why a direct write did not happen.
#[derive(Debug, Clone)]
pub enum WriteRefusal {
    /// The path is a directory.
    IsDirectory,
    /// The path is not a regular file.
    NotRegular(EntryKind),
    /// It kept changing (renamed or replaced) while it was being written.
    KeptChanging,
    /// Larger than the write reads.
    TooLarge {
        /// Its size, bytes.
        bytes: u64,
        /// The limit it exceeds, bytes.
        limit: u64,
    },
    /// Writing failed.
    Io(Arc<io::Error>),
}

impl Failure {
    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        use ErrorKind::*;
        match self {
            Failure::Access { .. }
            | Failure::CommitRefused {
                why: CommitRefusal::Access(_),
                ..
            } => AccessDenied,
            Failure::NoEdit
            | Failure::EditsAndMatchText { .. }
            | Failure::EmptyEdits
            | Failure::BlankMatchText { .. }
            | Failure::AppendToMissingFile { .. }
            | Failure::MatchTextTooLong { .. }
            | Failure::OverwriteInBatch
            | Failure::IsDirectory { .. }
            | Failure::NotRegularFile { .. }
            | Failure::FileTooLarge { .. }
            | Failure::FileNotText { .. }
            | Failure::ProposalTooLarge { .. }
            | Failure::ProposalWouldGrow { .. }
            | Failure::SameFileTwice { .. }
            | Failure::MultiFileContinued
            | Failure::MultiFileSessionEdited { .. }
            | Failure::SessionFileNotText { .. }
            | Failure::ReviewedNotText { .. }
            | Failure::MultiFileEditedInView
            | Failure::MultiFileEdited
            | Failure::CommitRefused {
                why: CommitRefusal::NotRegular(_) | CommitRefusal::TooLarge(_),
                ..
            }
            | Failure::WriteRefused {
                why:
                    WriteRefusal::IsDirectory
                    | WriteRefusal::NotRegular(_)
                    | WriteRefusal::TooLarge { .. },
                ..
            }
            | Failure::HardLinked { .. }
            | Failure::AppendToNonText { .. }
            | Failure::MoveRoot { .. }
            | Failure::SourceMissing { .. }
            | Failure::DestinationExists { .. }
            | Failure::MoveIntoItself { .. }
            | Failure::NotADirectory { .. } => InvalidRequest,
            Failure::MatchCount { .. } | Failure::NoChanges => Validation,
            Failure::FileNotFound { .. } => FileNotFound,
            Failure::Conflict { .. }
            | Failure::AutoConflict { .. }
            | Failure::MultiFileConflict { .. }
            | Failure::CommitRefused {
                why: CommitRefusal::Moved { .. },
                ..
            } => Conflict,
            Failure::OtherFileSession { .. }
            | Failure::SessionEnded
            | Failure::SessionEndedUnexpectedly
            | Failure::SessionClosed { .. }
            | Failure::BadSessionPath { .. }
            | Failure::SessionGone { .. }
            | Failure::SessionBusy { .. }
            | Failure::UnknownFormState
            | Failure::UnknownVerdictToken
            | Failure::MultiFileCommitted { .. }
            | Failure::NotSessionFile { .. }
            | Failure::ApprovedFileMissing { .. }
            | Failure::NotReviewed { .. } => Session,
            Failure::ReadFile { .. }
            | Failure::Limit(_)
            | Failure::ReadSessionFile { .. }
            | Failure::WriteSessionFile { .. }
            | Failure::RecordUserVersion { .. }
            | Failure::CreateSession { .. }
            | Failure::WriteReviewFiles { .. }
            | Failure::Random { .. }
            | Failure::Watch { .. }
            | Failure::WatchFailed { .. }
            | Failure::Internal { .. }
            | Failure::CommitRefused {
                why: CommitRefusal::KeptChanging | CommitRefusal::Io(_),
                ..
            }
            | Failure::FilesKeptChanging
            | Failure::CommitChange { .. }
            | Failure::PartlyCommitted { .. }
            | Failure::WriteRefused {
                why: WriteRefusal::KeptChanging | WriteRefusal::Io(_),
                ..
            }
            | Failure::CreateDestination { .. }
            | Failure::CrossDevice { .. }
            | Failure::SourceVanished { .. }
            | Failure::MoveFailed { .. }
            | Failure::CreateDirectory { .. }
            | Failure::NoReviewChannel { .. } => Io,
        }
    }

    /// The sandbox's refusal it carries, if any.
    pub fn access_error(&self) -> Option<&AccessError> {
        match self {
            Failure::Access { error, .. }
            | Failure::CommitRefused {
                why: CommitRefusal::Access(error),
                ..
            } => Some(error),
            _ => None,
        }
    }
}

/// A failed operation: what failed ([`Failure`]), and the data to act on it.
#[derive(Debug, Clone)]
pub struct EditError {
    failure: Box<Failure>,
    next: Option<Box<NextStep>>,
    hints: Option<Box<Hints>>,
    session_path: Option<String>,
    diff: Option<Box<VersionDiff>>,
}

impl EditError {
    /// The error of `failure`.
    pub fn new(failure: Failure) -> EditError {
        EditError {
            failure: Box::new(failure),
            next: None,
            hints: None,
            session_path: None,
            diff: None,
        }
    }

    /// A refusal of the sandbox, `then` saying what it means for the call.
    pub(crate) fn access(error: AccessError, then: AccessThen) -> EditError {
        EditError::new(Failure::Access {
            error: Arc::new(error),
            then,
        })
    }

    /// The error with `next` as its next step.
    pub fn with_next(mut self, next: NextStep) -> EditError {
        self.next = Some(Box::new(next));
        self
    }

    pub(crate) fn with_hints(mut self, hints: Option<Hints>) -> EditError {
        self.hints = hints.map(Box::new);
        self
    }

    pub(crate) fn with_session_path(mut self, session_path: impl Into<String>) -> EditError {
        self.session_path = Some(session_path.into());
        self
    }

    /// The error with every edit it names renumbered by `place` (from its number in one file's
    /// edits to its place in the request's `edits`).
    pub(crate) fn placed(mut self, place: impl Fn(Option<usize>) -> Option<usize>) -> EditError {
        match &mut *self.failure {
            Failure::BlankMatchText { edit }
            | Failure::AppendToMissingFile { edit }
            | Failure::MatchTextTooLong { edit }
            | Failure::MatchCount { edit, .. } => *edit = place(*edit),
            _ => {}
        }
        if let Some(hints) = &mut self.hints {
            hints.searched = hints.searched.placed(place);
        }
        self
    }

    /// The error without a session (it was removed: nothing to continue).
    pub(crate) fn without_session(mut self) -> EditError {
        self.session_path = None;
        self
    }

    pub(crate) fn with_diff(mut self, diff: VersionDiff) -> EditError {
        self.diff = Some(Box::new(diff));
        self
    }

    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        self.failure.kind()
    }

    /// What failed.
    pub fn failure(&self) -> &Failure {
        &self.failure
    }

    /// What to do next, when there is something to do.
    pub fn next(&self) -> Option<&NextStep> {
        self.next.as_deref()
    }

    /// The recovery hints, when `match_text` was not found or not unique.
    pub fn hints(&self) -> Option<&Hints> {
        self.hints.as_deref()
    }

    /// The review session the error concerns, when it stays open (conflicts).
    pub fn session_path(&self) -> Option<&str> {
        self.session_path.as_deref()
    }

    /// Conflicts: a unified diff of what changed in the file since the proposal was made.
    pub fn diff(&self) -> Option<&VersionDiff> {
        self.diff.as_deref()
    }

    /// The sandbox's refusal this error wraps (also its `source`).
    pub fn access_error(&self) -> Option<&AccessError> {
        self.failure.access_error()
    }
}

impl From<Failure> for EditError {
    fn from(failure: Failure) -> Self {
        EditError::new(failure)
    }
}

impl fmt::Display for EditError {
    /// The kind and the failure's facts, for logs (the binary words it for the model).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {:?}", self.kind().as_str(), self.failure)
    }
}

impl std::error::Error for EditError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.access_error()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl From<AccessError> for EditError {
    fn from(e: AccessError) -> Self {
        EditError::access(e, AccessThen::AsIs)
    }
}
