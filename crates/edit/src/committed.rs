//! What a commit did ([`CommitInfo`]), or why it wrote nothing ([`commit_failure`]): shared by
//! the one-file review (`approval`) and the multi-file change (`changeset`).

use std::path::Path;

use fs_mcp_sandbox::Sandbox;

use crate::atomic::WriteReport;
use crate::commit::{CommitFail, Current};
use crate::error::{EditError, ErrorKind, NextStep};
use crate::session::MAX_FILE_BYTES;
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

/// How a commit that wrote nothing is reported. `kept` ends the message (where the reviewed
/// version is, or ""); the next step is to re-read and propose again (`path`: the one file, or
/// `None` for a multi-file change).
pub(crate) fn commit_failure(
    fail: CommitFail<EditError>,
    sandbox: &Sandbox,
    shown: &str,
    target: &Path,
    kept: &str,
    path: Option<&str>,
) -> EditError {
    let next = NextStep::ReadAndProposeAgain {
        path: path.map(str::to_string),
    };
    let error = match fail {
        CommitFail::Decide(e) => return e,
        CommitFail::Access(e) => EditError::access(
            format!("Cannot commit to '{shown}' now: {e} Nothing was written.{kept}"),
            e,
        ),
        CommitFail::Moved { now } => EditError::new(
            ErrorKind::Conflict,
            format!(
                "Conflict: '{shown}' now leads to '{}', not to '{}' where this edit was proposed (a directory on the way was moved, renamed or replaced), so nothing was written.{kept}",
                sandbox.display(&now),
                sandbox.display(target)
            ),
        ),
        CommitFail::NotRegular(kind) => EditError::invalid(format!(
            "Cannot commit to '{shown}': it is now {}, not a regular file. Nothing was written.{kept}",
            kind.described()
        )),
        CommitFail::TooLarge(len) => EditError::invalid(format!(
            "Cannot commit to '{shown}': it is now too large to edit ({} MiB; the limit is {} MiB). Nothing was written.{kept}",
            len / (1024 * 1024),
            MAX_FILE_BYTES / (1024 * 1024)
        )),
        CommitFail::Changed => EditError::io(format!(
            "Cannot commit to '{shown}': it kept changing (renamed or replaced) while it was being written, so nothing was written.{kept}"
        )),
        CommitFail::Io(e) => EditError::io(format!(
            "Failed to write final content to {shown}: {e}. The file was not changed.{kept}"
        )),
    };
    error.with_next(next)
}
