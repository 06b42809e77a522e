//! What the human's save of a proposal means ([`process_save`]), and committing an approved
//! session ([`commit_session`]): a compare-and-swap against the content the proposal was made
//! against, through the sandbox as it is at commit time.

use std::fs;
use std::path::Path;

use fs_mcp_sandbox::Sandbox;

use crate::commit::{self, Change, Options, ReadMode};
use crate::committed::{CommitInfo, commit_failure, model_of};
use crate::diff::{Diff, DiffVersion, VersionDiff};
use crate::error::{EditError, Failure, NextStep};
use crate::session::{Fingerprint, MAX_FILE_BYTES, Registry, Session, Verdict};
use crate::text_style::{decode_text, to_model};
use crate::watch::FileStamp;

/// What a save of the proposal file meant.
pub(crate) enum SaveResult {
    Committed(CommitInfo),
    Review(VersionDiff),
    NoNews,
}

fn conflict_error(session: &Session) -> EditError {
    let sp = session.dir.display().to_string();
    EditError::new(Failure::Conflict {
        path: session.shown.clone(),
        kept: session.future.clone(),
    })
    .with_next(NextStep::ReadAndProposeAgainOrMerge {
        path: session.shown.clone(),
    })
    .with_session_path(sp)
}

/// Commits `bytes` for the session `key` and removes the session. The target is located again
/// now, through the sandbox as it is now, and written under its directory's lock only if it
/// still is what the proposal was made against (compare-and-swap); otherwise the session stays
/// open and nothing is written.
pub(crate) fn commit_session(
    registry: &Registry,
    sandbox: &Sandbox,
    key: &Path,
    bytes: &[u8],
) -> Result<CommitInfo, EditError> {
    let (target, identity, base, base_model, shown, future) = {
        let sessions = registry.lock();
        let s = sessions
            .get(key)
            .ok_or_else(|| EditError::new(Failure::SessionEnded))?;
        (
            s.target.clone(),
            s.identity.clone(),
            s.base,
            s.base_model.clone(),
            s.shown.clone(),
            s.future.clone(),
        )
    };
    let options = Options {
        // A file that existed needs no new directory: if its directory is gone, that is a
        // conflict, and nothing is created for it.
        create_parents: base.is_none(),
        expect_path: Some(&identity),
        read: ReadMode::Whole {
            limit: MAX_FILE_BYTES,
        },
    };
    let result = commit::commit(sandbox, &shown, options, |current| {
        let now = current.exists().then(|| Fingerprint::of(&current.bytes));
        if now != base {
            let diff = VersionDiff::new(
                &shown,
                (DiffVersion::WhenProposed, &base_model),
                (DiffVersion::OnDiskNow, &model_of(current)),
            );
            let sessions = registry.lock();
            return Err(match sessions.get(key) {
                Some(s) => conflict_error(s).with_diff(diff),
                None => EditError::new(Failure::SessionEnded),
            });
        }
        Ok(Change::Replace(bytes.to_vec()))
    });
    match result {
        Ok(committed) => {
            let cleanup_error = registry.remove(key);
            Ok(CommitInfo {
                report: committed.report,
                cleanup_error,
                session_path: key.display().to_string(),
            })
        }
        Err(fail) => {
            let session_path = key.display().to_string();
            let error = commit_failure(fail, sandbox, &shown, &target, Some(&future), Some(&shown));
            Err(match error.session_path() {
                Some(_) => error,
                None => error.with_session_path(session_path),
            })
        }
    }
}

/// Interprets a save of the session's proposal file.
pub(crate) fn process_save(
    registry: &Registry,
    sandbox: &Sandbox,
    key: &Path,
    bytes: Vec<u8>,
    stamp: FileStamp,
) -> Result<SaveResult, EditError> {
    let (unreviewed, proposal, known_future, style, current, future) = {
        let sessions = registry.lock();
        let s = sessions
            .get(key)
            .ok_or_else(|| EditError::new(Failure::SessionEnded))?;
        (
            s.unreviewed,
            s.proposal.clone(),
            s.known_future.clone(),
            s.style,
            s.current.clone(),
            s.future.clone(),
        )
    };
    let text = decode_text(bytes.clone()).map_err(|error| {
        EditError::new(Failure::ReviewedNotText {
            file: future.clone(),
            error,
            stays_open: true,
        })
        .with_next(NextStep::SaveAsUtf8)
        .with_session_path(key.display().to_string())
    })?;
    let model = to_model(&text);
    let record = |unreviewed_now: bool| {
        if let Some(s) = registry.lock().get_mut(key) {
            s.known_future = bytes.clone();
            s.known_stamp = Some(stamp);
            s.unreviewed = unreviewed_now;
        }
    };
    if unreviewed && model == proposal {
        // Approved. Remember it first, so a conflict leaves the approval on record.
        record(false);
        let info = commit_session(
            registry,
            sandbox,
            key,
            style.render_verbatim(&proposal).as_bytes(),
        )?;
        return Ok(SaveResult::Committed(info));
    }
    let known_model = to_model(&String::from_utf8_lossy(&known_future));
    if !unreviewed && model == known_model {
        record(false);
        return Ok(SaveResult::NoNews);
    }
    let name = future
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let from = if unreviewed {
        DiffVersion::AgentProposal
    } else {
        DiffVersion::UsersPreviousVersion
    };
    let diff = VersionDiff::new(
        &name,
        (from, &known_model),
        (DiffVersion::UserFeedback, &model),
    );
    fs::write(&current, &bytes).map_err(|e| {
        EditError::new(Failure::RecordUserVersion {
            file: current.clone(),
            error: e.into(),
        })
    })?;
    record(false);
    // Both files hold the human's version now: nothing is proposed until the agent answers.
    if let Some(s) = registry.lock().get_mut(key) {
        s.diff = Diff::default();
    }
    Ok(SaveResult::Review(diff))
}

/// What acting on a [`Verdict`] did.
pub(crate) enum VerdictResult {
    /// The proposal is written; the human's comment, if any.
    Committed(CommitInfo, Option<String>),
    /// Nothing written, the session is gone; the human's comment, if any.
    Rejected(Option<String>),
    /// The human's own version, taken as a save of the proposal file.
    Saved(SaveResult),
}

/// Acts on the human's decision for session `key`: the same meaning whichever channel it came
/// through (the client's form, the review page).
pub(crate) fn apply_verdict(
    registry: &Registry,
    sandbox: &Sandbox,
    key: &Path,
    verdict: Verdict,
) -> Result<VerdictResult, EditError> {
    match verdict {
        Verdict::Approve { comment } => {
            let (proposal, style, group) = {
                let mut sessions = registry.lock();
                let s = sessions
                    .get_mut(key)
                    .ok_or_else(|| EditError::new(Failure::SessionEnded))?;
                // The approval is on record before the write, so a conflict keeps it.
                s.unreviewed = false;
                (s.proposal.clone(), s.style, !s.members.is_empty())
            };
            if group {
                let info = crate::changeset::commit_group(registry, sandbox, key)?;
                return Ok(VerdictResult::Committed(info, comment));
            }
            let info = commit_session(
                registry,
                sandbox,
                key,
                style.render_verbatim(&proposal).as_bytes(),
            )?;
            Ok(VerdictResult::Committed(info, comment))
        }
        Verdict::Reject { comment } => {
            if registry.lock().get(key).is_none() {
                return Err(EditError::new(Failure::SessionEnded));
            }
            if let Some(e) = registry.remove_group(key) {
                tracing::warn!(
                    "could not remove the rejected review {}: {e}",
                    key.display()
                );
            }
            Ok(VerdictResult::Rejected(comment))
        }
        Verdict::Edited(text) => {
            let (future, style) = {
                let sessions = registry.lock();
                let s = sessions
                    .get(key)
                    .ok_or_else(|| EditError::new(Failure::SessionEnded))?;
                if !s.members.is_empty() {
                    return Err(EditError::new(Failure::MultiFileEdited));
                }
                (s.future.clone(), s.style)
            };
            let bytes = style.render_verbatim(&to_model(&text)).into_bytes();
            fs::write(&future, &bytes).map_err(|e| {
                EditError::new(Failure::RecordUserVersion {
                    file: future.clone(),
                    error: e.into(),
                })
            })?;
            let stamp = fs::metadata(&future)
                .map(|m| FileStamp::of(&m))
                .map_err(|e| {
                    EditError::new(Failure::ReadSessionFile {
                        file: future.clone(),
                        error: e.into(),
                    })
                })?;
            Ok(VerdictResult::Saved(process_save(
                registry, sandbox, key, bytes, stamp,
            )?))
        }
    }
}
