//! What a commit did ([`CommitInfo`]), or why it wrote nothing ([`commit_failure`]): shared by
//! the one-file review (`approval`) and the multi-file change (`changeset`).

use std::path::{Path, PathBuf};

use fs_mcp_sandbox::Sandbox;

use crate::atomic::WriteReport;
use crate::commit::{CommitFail, Current};
use crate::error::{CommitRefusal, EditError, Failure, NextStep};
use crate::text_style::to_model;

/// A committed session: what the write did, and why its directory is still there if it is.
pub(crate) struct CommitInfo {
    pub report: WriteReport,
    pub cleanup_error: Option<String>,
    pub session_path: String,
}

/// The file as found at commit time, in model view ("" when it is gone or not text), for the
/// diff of a conflict.
pub(crate) fn model_of(current: &Current) -> String {
    if !current.exists() {
        return String::new();
    }
    to_model(&String::from_utf8_lossy(&current.bytes))
}

/// How a commit that wrote nothing is reported. `kept`: where the reviewed version is (the
/// session stays open), if it is; the next step is to re-read and propose again (`path`: the
/// one file, or `None` for a multi-file change).
pub(crate) fn commit_failure(
    fail: CommitFail<EditError>,
    sandbox: &Sandbox,
    shown: &str,
    target: &Path,
    kept: Option<&Path>,
    path: Option<&str>,
) -> EditError {
    let next = NextStep::ReadAndProposeAgain {
        path: path.map(str::to_string),
    };
    let why = match fail {
        CommitFail::Decide(e) => return e,
        CommitFail::Access(e) => CommitRefusal::Access(e.into()),
        CommitFail::Moved { now } => CommitRefusal::Moved {
            now: sandbox.display(&now),
            target: sandbox.display(target),
        },
        CommitFail::NotRegular(kind) => CommitRefusal::NotRegular(kind),
        CommitFail::TooLarge { bytes, .. } => CommitRefusal::TooLarge(bytes),
        CommitFail::Changed => CommitRefusal::KeptChanging,
        CommitFail::Io(e) => CommitRefusal::Io(e.into()),
    };
    let error = EditError::new(Failure::CommitRefused {
        path: shown.to_string(),
        why,
        kept: kept.map(PathBuf::from),
    });
    error.with_next(next)
}
