//! How a review ended, as data: the verdict ([`Decision`]) and what else happened ([`Note`]).
//! The binary words it for the model (the reply `propose_and_review` documents); nothing here
//! names a tool.

use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use fs_mcp_sandbox::{AccessError, Sandbox};

use crate::atomic::WriteReport;
use crate::committed::CommitInfo;
use crate::diff::{Diff, VersionDiff};
use crate::editor::LaunchOutcome;
use crate::near_miss::NearMiss;

/// What the human (or the wait) decided, as `propose_and_review` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserAction {
    /// The change is written to the file (approved unchanged, or auto-approved).
    Committed,
    /// The human edited the proposal: feedback to continue from.
    Review,
    /// Nobody decided within the review timeout; the file is unchanged, the session stays open.
    Timeout,
    /// The call was cancelled; the file is unchanged, the session stays open.
    Cancelled,
    /// The human rejected the proposal (or declined or dismissed the form): nothing written,
    /// the session ended.
    Rejected,
    /// The proposal waits in the review page; nothing written yet.
    Pending,
}

impl UserAction {
    /// The name `propose_and_review` replies with (`COMMITTED`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            UserAction::Committed => "COMMITTED",
            UserAction::Review => "REVIEW",
            UserAction::Timeout => "TIMEOUT",
            UserAction::Cancelled => "CANCELLED",
            UserAction::Rejected => "REJECTED",
            UserAction::Pending => "PENDING",
        }
    }
}

/// How a change came to be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Approval {
    /// The human approved it in this call (a save, the form, the page).
    Reviewed,
    /// Headless mode: committed without review.
    Auto,
    /// The human approved the previous proposal after the last call ended; the call's new edit
    /// was not applied.
    BeforeThisCall,
}

/// A written change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Committed {
    /// The files, as the client named them.
    pub files: Vec<String>,
    /// How it was approved.
    pub approval: Approval,
    /// The human's comment, if they added one.
    pub comment: Option<String>,
    /// Auto-approve: unified diff of what was written.
    pub diff: Option<Diff>,
    /// The session directory that could not be removed, and why (the change is written).
    pub cleanup_failed: Option<(String, String)>,
}

/// Why a review ended without a verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Undecided {
    /// The review timeout passed.
    TimedOut(Duration),
    /// The call was cancelled.
    Cancelled,
    /// The proposal file was saved but not changed after an earlier verdict.
    Untouched,
}

/// How a proposal ended (the call's answer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Written.
    Committed(Committed),
    /// Nothing written; the session ended.
    Rejected {
        /// The files, as the client named them.
        files: Vec<String>,
        /// Why, in the human's words.
        comment: Option<String>,
    },
    /// The human edited the proposal: their version is the session's now.
    Feedback {
        /// The session to continue.
        session_path: String,
        /// The file, as the client named it.
        path: String,
        /// The diff from the proposal (or the human's previous version) to theirs.
        diff: VersionDiff,
        /// The edit was made after the last call ended; this call's new edit was not applied.
        before_this_call: bool,
    },
    /// Waiting in the review page.
    Pending {
        /// The session to collect the verdict with.
        session_path: String,
        /// The file, as the client named it.
        path: String,
        /// The proposal as a unified diff.
        diff: Diff,
        /// The page's link for the human.
        link: String,
    },
    /// No verdict: the session stays open.
    Undecided {
        /// The session to continue.
        session_path: String,
        /// The file, as the client named it.
        path: String,
        /// Why.
        why: Undecided,
        /// The proposal file the human can still save in their editor (editor channel).
        editor_file: Option<PathBuf>,
    },
}

/// A multi-file change interrupted by the crash of server process `pid`, rolled forward.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrashCompleted {
    /// The process that crashed.
    pub pid: u32,
    /// The files written before the crash, as the client named them.
    pub written_before: Vec<String>,
    /// The files written now.
    pub completed_now: Vec<String>,
    /// The files that could not be completed (still old content), with why.
    pub failed: Vec<(String, NotCompleted)>,
}

/// Why a file of a crash-interrupted multi-file change could not be completed.
#[derive(Debug, Clone)]
pub enum NotCompleted {
    /// The sandbox refused its path now.
    Access(Arc<AccessError>),
    /// Its directory is not the one the change was for.
    OtherDirectory,
    /// Renaming (or looking at) it failed.
    Io(Arc<io::Error>),
}

impl PartialEq for NotCompleted {
    /// The same reason (errors compared by their text: neither error type compares).
    fn eq(&self, other: &NotCompleted) -> bool {
        match (self, other) {
            (NotCompleted::Access(a), NotCompleted::Access(b)) => a.to_string() == b.to_string(),
            (NotCompleted::OtherDirectory, NotCompleted::OtherDirectory) => true,
            (NotCompleted::Io(a), NotCompleted::Io(b)) => a.to_string() == b.to_string(),
            _ => false,
        }
    }
}

impl Eq for NotCompleted {}

/// Something else the reply says (after the verdict).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// Missing parent directories created for the write, as shown to the client.
    CreatedDirs(Vec<String>),
    /// The file changed while an auto-approved edit was committed; the edit was applied again on
    /// the new content (its `match_text` still matched exactly), both changes kept.
    Reapplied {
        /// The file, as the client named it.
        path: String,
    },
    /// The human decided on the previous proposal first; this call's new edit was not applied.
    NewEditNotApplied,
    /// The file had mixed line endings; it is written with `line_ending` throughout.
    MixedLineEndings {
        /// The file, as the client named it.
        path: String,
        /// `LF` or `CRLF`.
        line_ending: &'static str,
    },
    /// The review command did not open a window: the human opens the diff by hand.
    EditorNotOpened {
        /// What happened to the command.
        launch: LaunchOutcome,
        /// The "before" file, to open by hand.
        current: PathBuf,
        /// The proposal file, to open by hand (and save to decide).
        future: PathBuf,
    },
    /// A `match_text` with no exact hit was resolved by a near miss.
    NearMiss(NearMiss),
    /// A multi-file change an earlier server process approved, and was writing when it
    /// crashed, was completed.
    CrashCompleted(CrashCompleted),
}

impl Note {
    /// The same note, a near miss's edit renumbered by `place`.
    pub(crate) fn placed(self, place: impl Fn(Option<usize>) -> Option<usize>) -> Note {
        match self {
            Note::NearMiss(near_miss) => Note::NearMiss(NearMiss {
                edit: place(near_miss.edit),
                ..near_miss
            }),
            other => other,
        }
    }
}

/// How a proposal ended: the decision, then the notes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewOutcome {
    /// The decision.
    pub decision: Decision,
    /// What else happened.
    pub notes: Vec<Note>,
}

impl ReviewOutcome {
    /// The decision with `notes`.
    pub fn new(decision: Decision, notes: Vec<Note>) -> ReviewOutcome {
        ReviewOutcome { decision, notes }
    }

    /// The `user_action` of the reply.
    pub fn user_action(&self) -> UserAction {
        match &self.decision {
            Decision::Committed(_) => UserAction::Committed,
            Decision::Rejected { .. } => UserAction::Rejected,
            Decision::Feedback { .. } => UserAction::Review,
            Decision::Pending { .. } => UserAction::Pending,
            Decision::Undecided {
                why: Undecided::Cancelled,
                ..
            } => UserAction::Cancelled,
            Decision::Undecided { .. } => UserAction::Timeout,
        }
    }

    /// The session that stays open, if one does.
    pub fn session_path(&self) -> Option<&str> {
        match &self.decision {
            Decision::Committed(c) => c.cleanup_failed.as_ref().map(|(sp, _)| sp.as_str()),
            Decision::Rejected { .. } => None,
            Decision::Feedback { session_path, .. }
            | Decision::Pending { session_path, .. }
            | Decision::Undecided { session_path, .. } => Some(session_path),
        }
    }
}

/// `commit_review`'s outcome: the human's version is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewCommitted {
    /// The file, as the client named it.
    pub path: String,
    /// The session directory that could not be removed, and why.
    pub cleanup_failed: Option<(String, String)>,
    /// Missing parent directories created, as shown to the client.
    pub created_dirs: Vec<String>,
}

/// A direct write (`write_file`, `append_text`, `move_file`, `create_directory`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    /// `write_file`.
    Wrote {
        /// The file, as the client named it.
        path: String,
        /// Missing parent directories created, as shown to the client.
        created_dirs: Vec<String>,
    },
    /// `append_text`.
    Appended {
        /// The file, as the client named it.
        path: String,
        /// Missing parent directories created, as shown to the client.
        created_dirs: Vec<String>,
    },
    /// `move_file`.
    Moved {
        /// As the client named it.
        source: String,
        /// As the client named it.
        destination: String,
        /// Missing parent directories created, as shown to the client.
        created_dirs: Vec<String>,
    },
    /// `create_directory`: created (`true`) or already there.
    Directory {
        /// The directory, as shown to the client.
        shown: String,
        /// It was created now.
        created: bool,
    },
}

/// The directories a write created, as shown to the client.
pub(crate) fn created_dirs(report: &WriteReport, sandbox: &Sandbox) -> Vec<String> {
    report
        .created_dirs
        .iter()
        .map(|d| sandbox.display(d))
        .collect()
}

/// The note on the directories a write created, if it created any.
pub(crate) fn created_dirs_note(report: &WriteReport, sandbox: &Sandbox) -> Option<Note> {
    let dirs = created_dirs(report, sandbox);
    (!dirs.is_empty()).then_some(Note::CreatedDirs(dirs))
}

/// A committed session's outcome: the created directories first, then `notes`.
pub(crate) fn committed(
    files: Vec<String>,
    approval: Approval,
    comment: Option<String>,
    info: &CommitInfo,
    notes: Vec<Note>,
    sandbox: &Sandbox,
) -> ReviewOutcome {
    let mut all: Vec<Note> = created_dirs_note(&info.report, sandbox)
        .into_iter()
        .collect();
    all.extend(notes);
    ReviewOutcome::new(
        Decision::Committed(Committed {
            files,
            approval,
            comment,
            diff: None,
            cleanup_failed: info
                .cleanup_error
                .clone()
                .map(|e| (info.session_path.clone(), e)),
        }),
        all,
    )
}
