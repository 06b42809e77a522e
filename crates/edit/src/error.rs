//! The error type of every operation in this crate: what went wrong (a fact, its `Display`), of
//! which kind, with the data a reader needs (recovery hints, the diff of a conflict, the session
//! that stays open) and what to do next as data ([`NextStep`]). No tool is named here: the
//! binary renders the next step with the tools it lists.

use std::fmt;
use std::sync::Arc;

use fs_mcp_sandbox::AccessError;

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

/// A failed operation: its kind, what happened (`Display`), and the data to act on it.
#[derive(Debug, Clone)]
pub struct EditError {
    kind: ErrorKind,
    message: String,
    next: Option<Box<NextStep>>,
    hints: Option<Box<Hints>>,
    session_path: Option<String>,
    diff: Option<String>,
    /// The sandbox's refusal this error wraps, if any (its `source`).
    access: Option<Arc<AccessError>>,
}

impl EditError {
    /// A new error of `kind`; `message` says what happened.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> EditError {
        EditError {
            kind,
            message: message.into(),
            next: None,
            hints: None,
            session_path: None,
            diff: None,
            access: None,
        }
    }

    /// A refusal of the sandbox, with `message` (which says it in context) wrapping it.
    pub(crate) fn access(message: impl Into<String>, error: AccessError) -> EditError {
        let mut wrapped = EditError::new(ErrorKind::AccessDenied, message);
        wrapped.access = Some(Arc::new(error));
        wrapped
    }

    pub(crate) fn invalid(message: impl Into<String>) -> EditError {
        EditError::new(ErrorKind::InvalidRequest, message)
    }

    pub(crate) fn validation(message: impl Into<String>) -> EditError {
        EditError::new(ErrorKind::Validation, message)
    }

    pub(crate) fn io(message: impl Into<String>) -> EditError {
        EditError::new(ErrorKind::Io, message)
    }

    pub(crate) fn session(message: impl Into<String>) -> EditError {
        EditError::new(ErrorKind::Session, message)
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

    /// The error without a session (it was removed: nothing to continue).
    pub(crate) fn without_session(mut self) -> EditError {
        self.session_path = None;
        self
    }

    pub(crate) fn with_diff(mut self, diff: impl Into<String>) -> EditError {
        self.diff = Some(diff.into());
        self
    }

    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// What happened.
    pub fn message(&self) -> &str {
        &self.message
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
    pub fn diff(&self) -> Option<&str> {
        self.diff.as_deref()
    }

    /// The sandbox's refusal this error wraps (also its `source`).
    pub fn access_error(&self) -> Option<&AccessError> {
        self.access.as_deref()
    }
}

impl fmt::Display for EditError {
    /// What happened (the next step, hints and diff are data: see the accessors).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for EditError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.access
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

impl From<AccessError> for EditError {
    fn from(e: AccessError) -> Self {
        EditError::access(e.to_string(), e)
    }
}
