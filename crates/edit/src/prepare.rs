//! Preparing a proposal (`propose_and_review` up to the wait): read the file through the
//! sandbox, validate, build the proposed text (see [`crate::proposal`]), then stage it in a new
//! or continued review session, or commit it at once in headless mode.

use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use fs_mcp_sandbox::{AccessError, EntryKind, Sandbox};

use crate::approval::{SaveResult, process_save};
use crate::commit::{self, Change, Options, ReadMode};
use crate::committed::{commit_failure, model_of};
use crate::diff::{Diff, DiffVersion, VersionDiff, unified_diff};
use crate::error::{EditError, Failure, NextStep};
use crate::outcome::{
    Approval, Committed, Decision, Note, ReviewOutcome, committed, created_dirs_note,
};
use crate::proposal::{self, Base};
use crate::request::{EditSpec, ProposeRequest};
use crate::session::{FileIdentity, Fingerprint, MAX_FILE_BYTES, Registry, ReviewOwner, Session};
use crate::text_style::{LineEnding, TextStyle, decode_text, to_model};
use crate::validate::{self, Plan};
use crate::watch::{FileStamp, read_with_stamp};

/// The file a proposal is about: by handle, and its canonical path for messages.
#[derive(Clone, Copy)]
struct Target<'a> {
    identity: &'a FileIdentity,
    path: &'a Path,
}

/// How a proposal ended before waiting, or that it must wait.
pub(crate) enum Prepared {
    Done(ReviewOutcome),
    Wait { key: PathBuf, notes: Vec<Note> },
}

/// Reads the file under review through the sandbox (regular files only, by handle): `None` if
/// it does not exist; its fingerprint and text otherwise.
fn read_target(sandbox: &Sandbox, shown: &str) -> Result<Option<(Fingerprint, String)>, EditError> {
    let mut opened = match sandbox.open_file(shown) {
        Ok(opened) => opened,
        Err(AccessError::NotFound { .. }) => return Ok(None),
        Err(AccessError::NotRegular {
            kind: EntryKind::Dir,
            ..
        }) => {
            return Err(EditError::new(Failure::IsDirectory {
                path: shown.to_string(),
            }));
        }
        Err(AccessError::NotRegular { kind, .. }) => {
            return Err(EditError::new(Failure::NotRegularFile {
                path: shown.to_string(),
                kind,
            }));
        }
        Err(e) => return Err(e.into()),
    };
    let too_large = |bytes: u64| {
        EditError::new(Failure::FileTooLarge {
            path: shown.to_string(),
            bytes,
        })
    };
    if opened.meta.len > MAX_FILE_BYTES {
        return Err(too_large(opened.meta.len));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(opened.meta.len).unwrap_or(0));
    (&mut opened.file)
        .take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| {
            EditError::new(Failure::ReadFile {
                path: shown.to_string(),
                error: e.into(),
            })
        })?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    let fp = Fingerprint::of(&bytes);
    let text = decode_text(bytes).map_err(|error| {
        EditError::new(Failure::FileNotText {
            path: shown.to_string(),
            error,
        })
    })?;
    Ok(Some((fp, text)))
}

fn eol_name(style: &TextStyle) -> &'static str {
    match style.line_ending {
        LineEnding::Lf => "LF",
        LineEnding::Crlf => "CRLF",
    }
}

pub(crate) fn prepare(
    registry: &Registry,
    auto_approve: bool,
    sandbox: &Sandbox,
    req: &ProposeRequest,
    continued: Option<&Path>,
    owner: &ReviewOwner,
) -> Result<Prepared, EditError> {
    if req.files().is_some() {
        if continued.is_some() {
            return Err(EditError::new(Failure::MultiFileContinued)
                .with_next(NextStep::ProposeWithoutSession));
        }
        return prepare_many(registry, auto_approve, sandbox, req, owner);
    }
    // The file by handle, to recognise it later; its canonical path names it in messages only.
    let (identity, target) = FileIdentity::of(sandbox, &req.path)?;
    let target = Target {
        identity: &identity,
        path: &target,
    };
    let disk = read_target(sandbox, &req.path)?;
    let disk_model = disk.as_ref().map(|(_, text)| to_model(text));
    let plan = validate::validate(req, disk_model.as_deref())?;
    match continued {
        Some(key) => continue_session(registry, sandbox, key, &target, req, &plan, owner),
        None => new_proposal(
            registry,
            auto_approve,
            sandbox,
            &target,
            req,
            &plan,
            disk,
            owner,
        ),
    }
}

fn too_large(shown: &str, len: usize) -> Option<EditError> {
    (len as u64 > MAX_FILE_BYTES).then(|| {
        EditError::new(Failure::ProposalTooLarge {
            path: shown.to_string(),
            bytes: len,
        })
    })
}

// The proposal's inputs as `prepare` has them; grouping them would only rename them.
#[allow(clippy::too_many_arguments)]
fn new_proposal(
    registry: &Registry,
    auto_approve: bool,
    sandbox: &Sandbox,
    target: &Target<'_>,
    req: &ProposeRequest,
    plan: &Plan,
    disk: Option<(Fingerprint, String)>,
    owner: &ReviewOwner,
) -> Result<Prepared, EditError> {
    let shown = req.path.as_str();
    let (base_model, style, base_fp) = match &disk {
        Some((fp, text)) => (to_model(text), TextStyle::detect(text), Some(*fp)),
        None => {
            let creates = !plan.batch
                && plan
                    .edits
                    .first()
                    .is_some_and(|e| e.target == validate::Target::Overwrite);
            if !creates {
                return Err(EditError::new(Failure::FileNotFound {
                    path: shown.to_string(),
                }));
            }
            (String::new(), TextStyle::PLAIN, None)
        }
    };
    let built = proposal::build(
        plan,
        &base_model,
        Base::File,
        req.expected_replacements,
        shown,
    )?;
    let proposal_text = style.apply_final_newline(&built.text).into_owned();
    if disk.is_some() && proposal_text == base_model {
        return Err(EditError::new(Failure::NoChanges));
    }
    let mut notes: Vec<Note> = built.notes.into_iter().map(Note::NearMiss).collect();
    if style.mixed_line_endings {
        notes.push(Note::MixedLineEndings {
            path: shown.to_string(),
            line_ending: eol_name(&style),
        });
    }
    let native = style.render_verbatim(&proposal_text);
    if let Some(e) = too_large(shown, native.len()) {
        return Err(e);
    }

    if auto_approve {
        return auto_commit(
            sandbox,
            target,
            req,
            plan,
            AutoBase {
                fingerprint: base_fp,
                model: base_model,
                proposal: proposal_text,
                native,
            },
            notes,
        );
    }

    // Held until the session is in the registry, so proposals made at the same time are all
    // counted against the bounds.
    let _reserved = registry.admit(
        owner,
        base_model.len() + proposal_text.len() + native.len(),
        true,
    )?;
    let (dir, current, future) = registry
        .new_session_dir(target.path)
        .map_err(|e| EditError::new(Failure::CreateSession { error: e.into() }))?;
    let written = (|| -> io::Result<FileStamp> {
        fs::write(&current, style.render_verbatim(&base_model))?;
        fs::write(&future, native.as_bytes())?;
        Ok(FileStamp::of(&fs::metadata(&future)?))
    })();
    let stamp = match written {
        Ok(s) => s,
        Err(e) => {
            let _ = fs::remove_dir_all(&dir);
            return Err(EditError::new(Failure::WriteReviewFiles {
                error: e.into(),
            }));
        }
    };
    registry.lock().insert(
        dir.clone(),
        Session {
            dir: dir.clone(),
            current,
            future,
            target: target.path.to_path_buf(),
            identity: target.identity.clone(),
            verdict: None,
            shown: shown.to_string(),
            base: base_fp,
            base_model,
            style: TextStyle {
                final_newline: None,
                ..style
            },
            proposal: proposal_text,
            known_future: native.into_bytes(),
            known_stamp: Some(stamp),
            unreviewed: true,
            busy: false,
            members: Vec::new(),
            member_of: None,
            owner: Some(owner.clone()),
            last_used: std::time::Instant::now(),
            input_state: None,
            handed: None,
            diff: Diff::default(),
            app_token: None,
        },
    );
    Ok(Prepared::Wait { key: dir, notes })
}

/// What an auto-approved proposal was made against, and what it proposes.
struct AutoBase {
    fingerprint: Option<Fingerprint>,
    model: String,
    proposal: String,
    native: String,
}

/// Headless mode: commits a proposal at once, as a compare-and-swap. If the file changed since
/// it was read (another edit was committed first), the edit is applied again on top of the new
/// content when every `match_text` still matches exactly (COMMITTED, with a note); otherwise
/// the answer is a conflict with the diff of what changed. Nothing committed is overwritten.
fn auto_commit(
    sandbox: &Sandbox,
    target: &Target<'_>,
    req: &ProposeRequest,
    plan: &Plan,
    base: AutoBase,
    notes: Vec<Note>,
) -> Result<Prepared, EditError> {
    let shown = req.path.as_str();
    let options = Options {
        create_parents: base.fingerprint.is_none(),
        expect_path: Some(target.identity),
        read: ReadMode::Whole {
            limit: MAX_FILE_BYTES,
        },
    };
    // (content it was applied to, result), both model view, when re-applied on newer content.
    let mut reapplied: Option<(String, String)> = None;
    let result = commit::commit(sandbox, shown, options, |current| {
        reapplied = None;
        let now = current.exists().then(|| Fingerprint::of(&current.bytes));
        if now == base.fingerprint {
            return Ok(Change::Replace(base.native.clone().into_bytes()));
        }
        let conflict = |now_model: &str| {
            EditError::new(Failure::AutoConflict {
                path: shown.to_string(),
            })
            .with_next(NextStep::ReadAndProposeAgain {
                path: Some(shown.to_string()),
            })
            .with_diff(VersionDiff::new(
                shown,
                (DiffVersion::WhenProposed, &base.model),
                (DiffVersion::OnDiskNow, now_model),
            ))
        };
        let text = current
            .exists()
            .then(|| decode_text(current.bytes.clone()).ok())
            .flatten();
        let Some(text) = text else {
            return Err(conflict(&model_of(current)));
        };
        let now_model = to_model(&text);
        let style = TextStyle::detect(&text);
        let Some(applied) = proposal::reapply(plan, &now_model, req.expected_replacements) else {
            return Err(conflict(&now_model));
        };
        let applied = style.apply_final_newline(&applied).into_owned();
        let native = style.render_verbatim(&applied);
        if let Some(e) = too_large(shown, native.len()) {
            return Err(e);
        }
        reapplied = Some((now_model, applied));
        Ok(Change::Replace(native.into_bytes()))
    });
    let committed = result
        .map_err(|fail| commit_failure(fail, sandbox, shown, target.path, None, Some(shown)))?;
    let mut all: Vec<Note> = created_dirs_note(&committed.report, sandbox)
        .into_iter()
        .collect();
    let diff = match &reapplied {
        Some((now_model, applied)) => {
            all.push(Note::Reapplied {
                path: shown.to_string(),
            });
            unified_diff(
                now_model,
                applied,
                &format!("a/{shown}"),
                &format!("b/{shown}"),
            )
        }
        None => unified_diff(
            &base.model,
            &base.proposal,
            &format!("a/{shown}"),
            &format!("b/{shown}"),
        ),
    };
    all.extend(notes);
    Ok(Prepared::Done(auto_committed(
        vec![shown.to_string()],
        diff,
        all,
    )))
}

/// An auto-approved commit's outcome.
fn auto_committed(files: Vec<String>, diff: Diff, notes: Vec<Note>) -> ReviewOutcome {
    ReviewOutcome::new(
        Decision::Committed(Committed {
            files,
            approval: Approval::Auto,
            comment: None,
            diff: Some(diff),
            cleanup_failed: None,
        }),
        notes,
    )
}

fn continue_session(
    registry: &Registry,
    sandbox: &Sandbox,
    key: &Path,
    target: &Target<'_>,
    req: &ProposeRequest,
    plan: &Plan,
    owner: &ReviewOwner,
) -> Result<Prepared, EditError> {
    let shown = req.path.as_str();
    let (current, future, known_stamp, known_future, style, session_shown) = {
        let sessions = registry.lock();
        let s = sessions
            .get(key)
            .ok_or_else(|| EditError::new(Failure::SessionEnded))?;
        if !s.members.is_empty() || s.member_of.is_some() {
            return Err(EditError::new(Failure::MultiFileSessionEdited {
                session_path: key.display().to_string(),
            })
            .with_next(NextStep::CollectVerdict {
                session_path: key.display().to_string(),
                path: s.shown.clone(),
            }));
        }
        if s.identity != *target.identity {
            return Err(EditError::new(Failure::OtherFileSession {
                session_path: key.display().to_string(),
                reviews: s.shown.clone(),
                path: shown.to_string(),
            })
            .with_next(NextStep::SameFileOrNewSession {
                path: shown.to_string(),
            }));
        }
        (
            s.current.clone(),
            s.future.clone(),
            s.known_stamp,
            s.known_future.clone(),
            s.style,
            s.shown.clone(),
        )
    };
    let session_path = key.display().to_string();

    // A save the server has not seen yet (made after the last call ended) is reported first.
    match read_with_stamp(&future) {
        Ok((bytes, stamp)) if Some(stamp) != known_stamp || bytes != known_future => {
            match process_save(registry, sandbox, key, bytes, stamp)? {
                SaveResult::NoNews => {}
                SaveResult::Committed(info) => {
                    return Ok(Prepared::Done(committed(
                        vec![session_shown],
                        Approval::BeforeThisCall,
                        None,
                        &info,
                        Vec::new(),
                        sandbox,
                    )));
                }
                SaveResult::Review(diff) => {
                    return Ok(Prepared::Done(ReviewOutcome::new(
                        Decision::Feedback {
                            session_path,
                            path: session_shown,
                            diff,
                            before_this_call: true,
                        },
                        Vec::new(),
                    )));
                }
            }
        }
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => {
            return Err(EditError::new(Failure::ReadSessionFile {
                file: future.clone(),
                error: e.into(),
            }));
        }
    }

    let staged_raw = fs::read(&current).map_err(|e| {
        EditError::new(Failure::ReadSessionFile {
            file: current.clone(),
            error: e.into(),
        })
    })?;
    let staged = to_model(&decode_text(staged_raw).map_err(|error| {
        EditError::new(Failure::SessionFileNotText {
            file: current.clone(),
            error,
        })
    })?);
    let style = style.with_final_newline_of(&staged);
    let built = proposal::build(
        plan,
        &staged,
        Base::Session,
        req.expected_replacements,
        shown,
    )?;
    let proposal_text = style.apply_final_newline(&built.text).into_owned();
    if proposal_text == staged {
        return Err(
            EditError::new(Failure::NoChanges).with_next(NextStep::AcceptUserVersion {
                session_path,
                path: shown.to_string(),
            }),
        );
    }
    let native = style.render_verbatim(&proposal_text);
    if let Some(e) = too_large(shown, native.len()) {
        return Err(e);
    }
    // What the session holds grows by this much (a continued proposal is bounded like a new one).
    let growth = (proposal_text.len() + native.len()).saturating_sub(
        registry
            .lock()
            .get(key)
            .map_or(0, |s| s.proposal.len() + s.known_future.len()),
    );
    let _reserved = registry.admit(owner, growth, false)?;
    let on_disk = fs::read(&future).ok();
    if on_disk.as_deref() != Some(native.as_bytes()) {
        fs::write(&future, native.as_bytes()).map_err(|e| {
            EditError::new(Failure::WriteSessionFile {
                file: future.clone(),
                error: e.into(),
            })
        })?;
    }
    let stamp = fs::metadata(&future)
        .map(|m| FileStamp::of(&m))
        .map_err(|e| {
            EditError::new(Failure::ReadSessionFile {
                file: future.clone(),
                error: e.into(),
            })
        })?;
    if let Some(s) = registry.lock().get_mut(key) {
        s.proposal = proposal_text;
        s.known_future = native.into_bytes();
        s.known_stamp = Some(stamp);
        s.unreviewed = true;
    }
    Ok(Prepared::Wait {
        key: key.to_path_buf(),
        notes: built.notes.into_iter().map(Note::NearMiss).collect(),
    })
}

/// A proposal whose edits name several files: one session per file, linked to the first (the
/// leader the client sees), so the files get one review, one verdict and one all-or-nothing
/// commit (see [`crate::changeset`]). With auto-approve it is committed at once.
fn prepare_many(
    registry: &Registry,
    auto_approve: bool,
    sandbox: &Sandbox,
    req: &ProposeRequest,
    owner: &ReviewOwner,
) -> Result<Prepared, EditError> {
    let files = req.files().unwrap_or_default();
    let mut keys: Vec<PathBuf> = Vec::new();
    let mut notes = Vec::new();
    let undo = |keys: &[PathBuf]| {
        for key in keys {
            registry.remove(key);
        }
    };
    for (path, placed) in files {
        let places: Vec<usize> = placed.iter().map(|(place, _)| *place).collect();
        // Each file is prepared on its own, so its errors and notes number its edits from 0 (or
        // not at all, for a lone edit): the model needs their places in the `edits` it sent.
        let place = |edit: Option<usize>| places.get(edit.unwrap_or(0)).copied().or(edit);
        let edits: Vec<EditSpec> = placed.into_iter().map(|(_, edit)| edit).collect();
        let one = match edits.as_slice() {
            [single] => ProposeRequest {
                expected_replacements: req.expected_replacements,
                ..ProposeRequest::single(&path, &single.match_text, &single.new_string)
            },
            _ => ProposeRequest::batch(&path, edits),
        };
        let one = ProposeRequest {
            bypass_match_text_limit: req.bypass_match_text_limit,
            ..one
        };
        match prepare(registry, false, sandbox, &one, None, owner) {
            Ok(Prepared::Wait { key, notes: more }) => {
                let more = more.into_iter().map(|note| note.placed(place));
                let duplicate = {
                    let sessions = registry.lock();
                    let identity = sessions.get(&key).map(|s| s.identity.clone());
                    keys.iter()
                        .filter_map(|k| sessions.get(k))
                        .find(|s| Some(&s.identity) == identity.as_ref())
                        .map(|s| s.shown.clone())
                };
                keys.push(key);
                if let Some(other) = duplicate {
                    undo(&keys);
                    return Err(EditError::new(Failure::SameFileTwice {
                        path: path.to_string(),
                        other,
                    }));
                }
                notes.extend(more);
            }
            Ok(Prepared::Done(_)) => {}
            Err(e) => {
                undo(&keys);
                return Err(e.placed(place));
            }
        }
    }
    let Some((leader, members)) = keys.split_first() else {
        return Err(EditError::new(Failure::NoChanges));
    };
    {
        let mut sessions = registry.lock();
        for member in members {
            if let Some(s) = sessions.get_mut(member) {
                s.member_of = Some(leader.clone());
            }
        }
        if let Some(s) = sessions.get_mut(leader) {
            s.members = members.to_vec();
        }
    }
    if !auto_approve {
        return Ok(Prepared::Wait {
            key: leader.clone(),
            notes,
        });
    }
    let (diff, shown) = {
        let sessions = registry.lock();
        let mut diff = Diff::default();
        let mut shown: Vec<String> = Vec::new();
        for key in &keys {
            if let Some(s) = sessions.get(key) {
                diff.append(unified_diff(
                    &s.base_model,
                    &s.proposal,
                    &format!("a/{}", s.shown),
                    &format!("b/{}", s.shown),
                ));
                shown.push(s.shown.clone());
            }
        }
        (diff, shown)
    };
    let committed = crate::changeset::commit_group(registry, sandbox, leader);
    let info = match committed {
        Ok(info) => info,
        Err(e) => {
            registry.remove_group(leader);
            return Err(e.without_session());
        }
    };
    let mut all: Vec<Note> = created_dirs_note(&info.report, sandbox)
        .into_iter()
        .collect();
    all.extend(notes);
    Ok(Prepared::Done(auto_committed(shown, diff, all)))
}
