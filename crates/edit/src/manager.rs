//! [`ReviewManager`]: the propose → review → commit workflow.

use std::fmt;
use std::fs;
use std::future::Future;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use fs_mcp_sandbox::{AccessError, EntryKind, Sandbox};

use crate::atomic::WriteReport;
use crate::commit::{self, Change, CommitFail, Current, Options, ReadMode};
use crate::diff::unified_diff;
use crate::editor::{self, LaunchOutcome};
use crate::error::{EditError, ErrorKind};
use crate::proposal::{self, Base};
use crate::request::ProposeRequest;
use crate::response::{ReviewResponse, UserAction};
use crate::session::{BusyGuard, Fingerprint, Registry, Session};
use crate::text_style::{LineEnding, TextStyle, decode_text, to_model};
use crate::validate::{self, Plan, Target};
use crate::watch::{FileStamp, SaveWatcher, read_with_stamp};

/// Files larger than this are not reviewed (and proposals may not grow past it).
pub const MAX_FILE_BYTES: u64 = 50 * 1024 * 1024;

/// Called when a proposal starts waiting for the human (e.g. to send the MCP client a log
/// message saying which files to compare).
pub type WaitingHook = Arc<dyn Fn(&WaitingInfo) + Send + Sync>;

/// What a waiting review looks like, for [`ReviewConfig::on_waiting`].
#[derive(Debug, Clone)]
pub struct WaitingInfo {
    /// The session directory (what `session_path` will be).
    pub session_path: String,
    /// The file under review, as the client named it.
    pub path: String,
    /// The "before" file of the diff.
    pub current: PathBuf,
    /// The proposal the human saves (unchanged to approve, edited to give feedback).
    pub future: PathBuf,
    /// Whether the diff window was opened.
    pub launch: LaunchOutcome,
    /// How to open the diff by hand.
    pub instructions: String,
}

/// Configuration of a [`ReviewManager`].
#[derive(Clone)]
pub struct ReviewConfig {
    /// The diff command as arguments, with `{current}` and `{future}` placeholders; run without
    /// a shell. `None` opens nothing (the user opens the files by hand). Default:
    /// `code --diff {current} {future}`. See [`crate::parse_command_template`].
    pub review_command: Option<Vec<String>>,
    /// How long a proposal waits for the human before returning `TIMEOUT`. Default 10 minutes.
    pub review_timeout: Duration,
    /// Headless mode: commit every proposal at once, without review.
    pub auto_approve: bool,
    /// Quiet period of the file watcher. Default 200 ms.
    pub debounce: Duration,
    /// Where the sessions directory is created. Default: the system temp dir.
    pub sessions_parent: Option<PathBuf>,
    /// Called when a proposal starts waiting.
    pub on_waiting: Option<WaitingHook>,
}

impl Default for ReviewConfig {
    fn default() -> Self {
        ReviewConfig {
            review_command: Some(editor::default_review_command()),
            review_timeout: Duration::from_secs(600),
            auto_approve: false,
            debounce: Duration::from_millis(200),
            sessions_parent: None,
            on_waiting: None,
        }
    }
}

impl fmt::Debug for ReviewConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReviewConfig")
            .field("review_command", &self.review_command)
            .field("review_timeout", &self.review_timeout)
            .field("auto_approve", &self.auto_approve)
            .field("debounce", &self.debounce)
            .field("sessions_parent", &self.sessions_parent)
            .field("on_waiting", &self.on_waiting.as_ref().map(|_| "<hook>"))
            .finish()
    }
}

pub(crate) struct Inner {
    pub config: ReviewConfig,
    pub registry: Registry,
}

/// Runs `propose_and_review` and `commit_review`. Share it as `Arc<ReviewManager>` (or clone
/// it: clones share the sessions); every method takes `&self` and returns a `Send` future, and
/// any number of reviews may wait at once.
///
/// Dropping the last clone removes the sessions directory (best effort).
#[derive(Clone)]
pub struct ReviewManager {
    inner: Arc<Inner>,
}

impl fmt::Debug for ReviewManager {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReviewManager")
            .field("config", &self.inner.config)
            .field("sessions_dir", &self.inner.registry.root())
            .finish()
    }
}

/// How a proposal ended before waiting, or that it must wait.
enum Prepared {
    Done(ReviewResponse),
    Wait { key: PathBuf, notes: Vec<String> },
}

/// What a save of the proposal file meant.
enum SaveResult {
    Committed(CommitInfo),
    Review(String),
    NoNews,
}

struct CommitInfo {
    report: WriteReport,
    cleanup_error: Option<String>,
    session_path: String,
}

enum WaitEnd {
    Saved(io::Result<(Vec<u8>, FileStamp)>),
    TimedOut,
    Cancelled,
}

async fn blocking<T, F>(f: F) -> Result<T, EditError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, EditError> + Send + 'static,
{
    tokio::task::spawn_blocking(f).await.map_err(|e| {
        EditError::io(format!(
            "Internal error: the file operation did not finish ({e})."
        ))
    })?
}

fn humanize(d: Duration) -> String {
    let ms = d.as_millis();
    if ms >= 60_000 && ms.is_multiple_of(60_000) {
        format!("{} min", ms / 60_000)
    } else if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
    }
}

fn join_message(mut message: String, notes: &[String]) -> String {
    for n in notes {
        message.push(' ');
        message.push_str(n);
    }
    message
}

fn created_dirs_note(
    report: &WriteReport,
    sandbox_display: impl Fn(&Path) -> String,
) -> Option<String> {
    if report.created_dirs.is_empty() {
        return None;
    }
    let list = report
        .created_dirs
        .iter()
        .map(|d| sandbox_display(d))
        .collect::<Vec<_>>()
        .join(", ");
    Some(format!("Created missing parent directories: {list}."))
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
            return Err(EditError::invalid(format!(
                "'{shown}' is a directory, not a file."
            )));
        }
        Err(AccessError::NotRegular { kind, .. }) => {
            return Err(EditError::invalid(format!(
                "'{shown}' is {}, not a regular file; only regular files are edited.",
                kind.described()
            )));
        }
        Err(e) => return Err(e.into()),
    };
    let too_large = |len: u64| {
        EditError::invalid(format!(
            "'{shown}' is too large to review ({} MiB; the limit is {} MiB).",
            len / (1024 * 1024),
            MAX_FILE_BYTES / (1024 * 1024)
        ))
    };
    if opened.meta.len > MAX_FILE_BYTES {
        return Err(too_large(opened.meta.len));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(opened.meta.len).unwrap_or(0));
    (&mut opened.file)
        .take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| EditError::io(format!("Cannot read '{shown}': {e}")))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    let fp = Fingerprint::of(&bytes);
    let text = decode_text(bytes)
        .map_err(|e| EditError::invalid(format!("Cannot edit '{shown}': {e}.")))?;
    Ok(Some((fp, text)))
}

/// The file as found at commit time, in model view ("" when it is gone or not text), for the
/// diff of a conflict.
fn model_of(current: &Current) -> String {
    if !current.exists() {
        return String::new();
    }
    to_model(&String::from_utf8_lossy(&current.bytes))
}

/// How a commit that wrote nothing is reported. `keep` ends the message (where the reviewed
/// version is and what to do next).
fn commit_failure(
    fail: CommitFail<EditError>,
    sandbox: &Sandbox,
    shown: &str,
    target: &Path,
    keep: &str,
) -> EditError {
    match fail {
        CommitFail::Decide(e) => e,
        CommitFail::Access(e) => EditError::new(
            ErrorKind::AccessDenied,
            format!("Cannot commit to '{shown}' now: {e} Nothing was written. {keep}"),
        ),
        CommitFail::Moved { now } => EditError::new(
            ErrorKind::Conflict,
            format!(
                "Conflict: '{shown}' now leads to '{}', not to '{}' where this edit was proposed (a directory on the way was moved, renamed or replaced), so nothing was written. {keep}",
                sandbox.display(&now),
                sandbox.display(target)
            ),
        ),
        CommitFail::NotRegular(kind) => EditError::invalid(format!(
            "Cannot commit to '{shown}': it is now {}, not a regular file. Nothing was written. {keep}",
            kind.described()
        )),
        CommitFail::TooLarge(len) => EditError::invalid(format!(
            "Cannot commit to '{shown}': it is now too large to edit ({} MiB; the limit is {} MiB). Nothing was written. {keep}",
            len / (1024 * 1024),
            MAX_FILE_BYTES / (1024 * 1024)
        )),
        CommitFail::Changed => EditError::io(format!(
            "Cannot commit to '{shown}': it kept changing (renamed or replaced) while it was being written, so nothing was written. {keep}"
        )),
        CommitFail::Io(e) => EditError::io(format!(
            "Failed to write final content to {shown}: {e}. The file was not changed. {keep}"
        )),
    }
}

fn eol_name(style: &TextStyle) -> &'static str {
    match style.line_ending {
        LineEnding::Lf => "LF",
        LineEnding::Crlf => "CRLF",
    }
}

impl ReviewManager {
    /// Creates the manager and its private sessions directory.
    pub fn new(config: ReviewConfig) -> io::Result<ReviewManager> {
        let registry = Registry::new(config.sessions_parent.as_deref())?;
        Ok(ReviewManager {
            inner: Arc::new(Inner { config, registry }),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &ReviewConfig {
        &self.inner.config
    }

    /// The directory holding every session of this manager.
    pub fn sessions_dir(&self) -> &Path {
        self.inner.registry.root()
    }

    /// How many review sessions are open.
    pub fn open_sessions(&self) -> usize {
        self.inner.registry.lock().len()
    }

    /// `propose_and_review`: validates and applies the edit, shows it to the human, and waits
    /// until they save the proposal (→ `COMMITTED`, or `REVIEW` with their changes), the review
    /// timeout passes (→ `TIMEOUT`) or `cancel` completes (→ `CANCELLED`). With
    /// [`ReviewConfig::auto_approve`] it commits at once.
    ///
    /// Pass `std::future::pending()` as `cancel` for no cancellation, or e.g.
    /// `token.cancelled()` of a `tokio_util::sync::CancellationToken`. Dropping the returned
    /// future is also safe: the file is never half-written and the session stays usable.
    ///
    /// Must be called inside a Tokio runtime with the time driver (it uses `spawn_blocking` and
    /// `tokio::time::sleep`).
    pub async fn propose_and_review<C>(
        &self,
        sandbox: &Sandbox,
        request: ProposeRequest,
        cancel: C,
    ) -> Result<ReviewResponse, EditError>
    where
        C: Future<Output = ()> + Send,
    {
        let inner = Arc::clone(&self.inner);
        let mut guard = match request.session() {
            Some(sp) => {
                let key = inner.registry.key_for(sp)?;
                Some(BusyGuard::acquire(&inner, key)?)
            }
            None => None,
        };
        let continued = guard.as_ref().map(|g| g.key().to_path_buf());
        let prep_sandbox = sandbox.clone();
        let prep_inner = Arc::clone(&inner);
        let shown = request.path.clone();
        let prepared =
            blocking(move || prepare(&prep_inner, &prep_sandbox, &request, continued.as_deref()))
                .await?;
        let (key, notes) = match prepared {
            Prepared::Done(response) => return Ok(response),
            Prepared::Wait { key, notes } => (key, notes),
        };
        if guard.is_none() {
            guard = Some(BusyGuard::acquire(&inner, key.clone())?);
        }
        let outcome = self.wait(sandbox, &key, &shown, &notes, cancel).await;
        drop(guard);
        outcome
    }

    async fn wait<C>(
        &self,
        sandbox: &Sandbox,
        key: &Path,
        shown: &str,
        notes: &[String],
        cancel: C,
    ) -> Result<ReviewResponse, EditError>
    where
        C: Future<Output = ()> + Send,
    {
        let inner = &self.inner;
        let (current, future, known_stamp, known_bytes) = {
            let sessions = inner.registry.lock();
            let s = sessions
                .get(key)
                .ok_or_else(|| EditError::session("The review session ended unexpectedly."))?;
            (
                s.current.clone(),
                s.future.clone(),
                s.known_stamp,
                s.known_future.clone(),
            )
        };
        let session_path = key.display().to_string();
        let mut watcher = SaveWatcher::start(&future, inner.config.debounce).map_err(|e| {
            EditError::io(format!(
                "Cannot watch {} for the review: {e}. The session stays open; after the user has saved the file, call commit_review(session_path='{session_path}', original_path='{shown}').",
                future.display()
            ))
            .with_session_path(session_path.clone())
        })?;
        let launch = editor::launch(inner.config.review_command.as_deref(), &current, &future);
        let instructions = editor::manual_instructions(&current, &future);
        let launch_note = match &launch {
            LaunchOutcome::Launched { .. } => None,
            other => Some(format!("Note: {other}; the user has to {instructions}")),
        };
        match &launch {
            LaunchOutcome::Launched { program } => {
                tracing::info!(
                    "waiting for the review of '{shown}' (opened with '{program}'); save {} to decide",
                    future.display()
                );
            }
            LaunchOutcome::Disabled => {
                tracing::info!("waiting for the review of '{shown}': {instructions}");
            }
            other => tracing::warn!("{other}; to review '{shown}', {instructions}"),
        }
        if let Some(hook) = &inner.config.on_waiting {
            hook(&WaitingInfo {
                session_path: session_path.clone(),
                path: shown.to_string(),
                current: current.clone(),
                future: future.clone(),
                launch: launch.clone(),
                instructions: instructions.clone(),
            });
        }

        let timeout = tokio::time::sleep(inner.config.review_timeout);
        tokio::pin!(timeout);
        tokio::pin!(cancel);
        let end = tokio::select! {
            saved = watcher.next_save(known_stamp, &known_bytes) => WaitEnd::Saved(saved),
            () = &mut timeout => WaitEnd::TimedOut,
            () = &mut cancel => WaitEnd::Cancelled,
        };
        drop(watcher);

        let mut notes = notes.to_vec();
        let open_session = |lead: String, notes: &[String]| {
            let mut all = notes.to_vec();
            all.extend(launch_note.clone());
            let message = format!(
                "{lead} '{shown}' was not changed. The review session stays open: the user can still review the diff and save {} (unchanged to approve, edited to give feedback). To continue, call commit_review(session_path='{session_path}', original_path='{shown}') once the user has saved, or call propose_and_review again with session_path='{session_path}' (repeat the same edit to wait for the review again; if the user saved in the meantime, that call reports their decision). To start over, call propose_and_review without session_path.",
                future.display()
            );
            join_message(message, &all)
        };
        match end {
            WaitEnd::TimedOut => Ok(ReviewResponse {
                session_path: Some(session_path.clone()),
                user_action: UserAction::Timeout,
                message: open_session(
                    format!(
                        "No review decision within {}.",
                        humanize(inner.config.review_timeout)
                    ),
                    &notes,
                ),
                user_feedback_diff: None,
                diff: None,
            }),
            WaitEnd::Cancelled => Ok(ReviewResponse {
                session_path: Some(session_path.clone()),
                user_action: UserAction::Cancelled,
                message: open_session("The review was cancelled.".to_string(), &notes),
                user_feedback_diff: None,
                diff: None,
            }),
            WaitEnd::Saved(Err(e)) => Err(EditError::io(format!(
                "Watching {} for the review failed: {e}. '{shown}' was not changed; the session stays open (call commit_review once the user has saved, or propose_and_review with session_path).",
                future.display()
            ))
            .with_session_path(session_path.clone())),
            WaitEnd::Saved(Ok((bytes, stamp))) => {
                let save_inner = Arc::clone(inner);
                let save_key = key.to_path_buf();
                let save_sandbox = sandbox.clone();
                let result = blocking(move || {
                    process_save(&save_inner, &save_sandbox, &save_key, bytes, stamp)
                })
                .await?;
                match result {
                    SaveResult::Committed(info) => Ok(committed_response(
                        format!("Changes committed to '{shown}'. No further action needed."),
                        shown,
                        &info,
                        &notes,
                        sandbox,
                    )),
                    SaveResult::Review(diff) => {
                        notes.extend(launch_note.clone());
                        Ok(review_response(
                            &session_path,
                            "User provided feedback. A diff is included. Propose a new edit against the updated content.",
                            shown,
                            diff,
                            &notes,
                        ))
                    }
                    // `next_save` only returns changed content, and an unreviewed proposal
                    // always yields a decision; kept for completeness.
                    SaveResult::NoNews => Ok(ReviewResponse {
                        session_path: Some(session_path.clone()),
                        user_action: UserAction::Timeout,
                        message: open_session("The proposal file was touched but not changed.".into(), &notes),
                        user_feedback_diff: None,
                        diff: None,
                    }),
                }
            }
        }
    }

    /// `commit_review`: accepts the human's current version of a session (its proposal file,
    /// as last saved) and writes it to `original_path`, which must be the session's file.
    ///
    /// Refused when the session's proposal was never saved by the human (nothing approved), when
    /// the file changed on disk since the proposal (conflict; the session stays open), and for
    /// anything that is not an open session of this manager.
    pub async fn commit_review(
        &self,
        sandbox: &Sandbox,
        session_path: &str,
        original_path: &str,
    ) -> Result<String, EditError> {
        let inner = Arc::clone(&self.inner);
        let key = inner.registry.key_for(session_path)?;
        let guard = BusyGuard::acquire(&inner, key.clone())?;
        let sandbox = sandbox.clone();
        let session_path = session_path.to_string();
        let original_path = original_path.to_string();
        let result = blocking(move || {
            commit_review_blocking(&inner, &sandbox, &key, &session_path, &original_path)
        })
        .await;
        drop(guard);
        result
    }
}

fn committed_response(
    lead: String,
    shown: &str,
    info: &CommitInfo,
    notes: &[String],
    sandbox: &Sandbox,
) -> ReviewResponse {
    let mut all: Vec<String> = Vec::new();
    all.extend(created_dirs_note(&info.report, |d| sandbox.display(d)));
    all.extend(notes.iter().cloned());
    match &info.cleanup_error {
        None => ReviewResponse {
            session_path: None,
            user_action: UserAction::Committed,
            message: join_message(lead, &all),
            user_feedback_diff: None,
            diff: None,
        },
        Some(e) => ReviewResponse {
            session_path: Some(info.session_path.clone()),
            user_action: UserAction::Committed,
            message: join_message(
                format!(
                    "Successfully committed changes to '{shown}', but failed to clean up session dir: {e}"
                ),
                &all,
            ),
            user_feedback_diff: None,
            diff: None,
        },
    }
}

fn review_response(
    session_path: &str,
    lead: &str,
    shown: &str,
    diff: String,
    notes: &[String],
) -> ReviewResponse {
    let message = format!(
        "{lead} To continue, call propose_and_review with session_path='{session_path}' and a match_text taken from the user's version; to accept the user's version as it is, call commit_review(session_path='{session_path}', original_path='{shown}')."
    );
    ReviewResponse {
        session_path: Some(session_path.to_string()),
        user_action: UserAction::Review,
        message: join_message(message, notes),
        user_feedback_diff: Some(diff),
        diff: None,
    }
}

fn conflict_error(session: &Session) -> EditError {
    let sp = session.dir.display().to_string();
    EditError::new(
        ErrorKind::Conflict,
        format!(
            "Conflict: '{shown}' changed on disk after this proposal was made (edited, created, moved or deleted by someone else), so nothing was written: the file on disk is as they left it, and the reviewed version is kept in {future}. To continue, re-read '{shown}' and call propose_and_review again without session_path; or ask the user to merge the reviewed version by hand.",
            shown = session.shown,
            future = session.future.display()
        ),
    )
    .with_session_path(sp)
}

/// Commits `bytes` for the session `key` and removes the session. The target is located again
/// now, through the sandbox as it is now, and written under its directory's lock only if it
/// still is what the proposal was made against (compare-and-swap); otherwise the session stays
/// open and nothing is written.
fn commit_session(
    inner: &Inner,
    sandbox: &Sandbox,
    key: &Path,
    bytes: &[u8],
) -> Result<CommitInfo, EditError> {
    let (target, base, base_model, shown, future) = {
        let sessions = inner.registry.lock();
        let s = sessions
            .get(key)
            .ok_or_else(|| EditError::session("The review session has ended."))?;
        (
            s.target.clone(),
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
        expect_path: Some(&target),
        read: ReadMode::Whole {
            limit: MAX_FILE_BYTES,
        },
    };
    let result = commit::commit(sandbox, &shown, options, |current| {
        let now = current.exists().then(|| Fingerprint::of(&current.bytes));
        if now != base {
            let diff = unified_diff(
                &base_model,
                &model_of(current),
                &format!("a/{shown} (when proposed)"),
                &format!("b/{shown} (on disk now)"),
            );
            let sessions = inner.registry.lock();
            return Err(match sessions.get(key) {
                Some(s) => conflict_error(s).with_diff(diff),
                None => EditError::session("The review session has ended."),
            });
        }
        Ok(Change::Replace(bytes.to_vec()))
    });
    match result {
        Ok(committed) => {
            let cleanup_error = inner.registry.remove(key);
            Ok(CommitInfo {
                report: committed.report,
                cleanup_error,
                session_path: key.display().to_string(),
            })
        }
        Err(fail) => {
            let session_path = key.display().to_string();
            let keep = format!(
                "The reviewed version is kept in {} and the session stays open (session_path='{session_path}'); re-read '{shown}' and call propose_and_review again without session_path.",
                future.display()
            );
            let error = commit_failure(fail, sandbox, &shown, &target, &keep);
            Err(match error.session_path() {
                Some(_) => error,
                None => error.with_session_path(session_path),
            })
        }
    }
}

/// Interprets a save of the session's proposal file.
fn process_save(
    inner: &Inner,
    sandbox: &Sandbox,
    key: &Path,
    bytes: Vec<u8>,
    stamp: FileStamp,
) -> Result<SaveResult, EditError> {
    let (unreviewed, proposal, known_future, style, current, future) = {
        let sessions = inner.registry.lock();
        let s = sessions
            .get(key)
            .ok_or_else(|| EditError::session("The review session has ended."))?;
        (
            s.unreviewed,
            s.proposal.clone(),
            s.known_future.clone(),
            s.style,
            s.current.clone(),
            s.future.clone(),
        )
    };
    let text = decode_text(bytes.clone()).map_err(|e| {
        EditError::invalid(format!(
            "The reviewed file {} cannot be used: {e}. Ask the user to save it as UTF-8 text; the session stays open (session_path='{}').",
            future.display(),
            key.display()
        ))
    })?;
    let model = to_model(&text);
    let record = |unreviewed_now: bool| {
        if let Some(s) = inner.registry.lock().get_mut(key) {
            s.known_future = bytes.clone();
            s.known_stamp = Some(stamp);
            s.unreviewed = unreviewed_now;
        }
    };
    if unreviewed && model == proposal {
        // Approved. Remember it first, so a conflict leaves the approval on record.
        record(false);
        let info = commit_session(
            inner,
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
        format!("a/{name} (agent proposal)")
    } else {
        format!("a/{name} (user's previous version)")
    };
    let diff = unified_diff(
        &known_model,
        &model,
        &from,
        &format!("b/{name} (user feedback)"),
    );
    fs::write(&current, &bytes).map_err(|e| {
        EditError::io(format!(
            "Cannot record the user's version in {}: {e}",
            current.display()
        ))
    })?;
    record(false);
    Ok(SaveResult::Review(diff))
}

fn prepare(
    inner: &Arc<Inner>,
    sandbox: &Sandbox,
    req: &ProposeRequest,
    continued: Option<&Path>,
) -> Result<Prepared, EditError> {
    // The canonical path, to recognise the same file later (never opened by this path).
    let target = sandbox.resolve(&req.path)?;
    let disk = read_target(sandbox, &req.path)?;
    let disk_model = disk.as_ref().map(|(_, text)| to_model(text));
    let plan = validate::validate(req, disk_model.as_deref())?;
    match continued {
        Some(key) => continue_session(inner, sandbox, key, &target, req, &plan),
        None => new_proposal(inner, sandbox, &target, req, &plan, disk),
    }
}

fn too_large(shown: &str, len: usize) -> Option<EditError> {
    (len as u64 > MAX_FILE_BYTES).then(|| {
        EditError::invalid(format!(
            "The proposed content for '{shown}' is too large ({} MiB; the limit is {} MiB).",
            len / (1024 * 1024),
            MAX_FILE_BYTES / (1024 * 1024)
        ))
    })
}

fn new_proposal(
    inner: &Arc<Inner>,
    sandbox: &Sandbox,
    target: &Path,
    req: &ProposeRequest,
    plan: &Plan,
    disk: Option<(Fingerprint, String)>,
) -> Result<Prepared, EditError> {
    let shown = req.path.as_str();
    let (base_model, style, base_fp) = match &disk {
        Some((fp, text)) => (to_model(text), TextStyle::detect(text), Some(*fp)),
        None => {
            let creates = !plan.batch
                && plan
                    .edits
                    .first()
                    .is_some_and(|e| e.target == Target::Overwrite);
            if !creates {
                return Err(EditError::new(
                    ErrorKind::FileNotFound,
                    format!("Edit preparation failed: File not found: {shown}"),
                ));
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
        return Err(EditError::validation(
            "Edit preparation failed: No changes to apply.",
        ));
    }
    let mut notes = built.notes;
    if style.mixed_line_endings {
        notes.push(format!(
            "Note: '{shown}' had mixed line endings; it is written with {} line endings throughout.",
            eol_name(&style)
        ));
    }
    let native = style.render_verbatim(&proposal_text);
    if let Some(e) = too_large(shown, native.len()) {
        return Err(e);
    }

    if inner.config.auto_approve {
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

    let (dir, current, future) = inner
        .registry
        .new_session_dir(target)
        .map_err(|e| EditError::io(format!("Cannot create a review session: {e}")))?;
    let written = (|| -> io::Result<FileStamp> {
        fs::write(&current, style.render_verbatim(&base_model))?;
        fs::write(&future, native.as_bytes())?;
        Ok(FileStamp::of(&fs::metadata(&future)?))
    })();
    let stamp = match written {
        Ok(s) => s,
        Err(e) => {
            let _ = fs::remove_dir_all(&dir);
            return Err(EditError::io(format!("Cannot write the review files: {e}")));
        }
    };
    inner.registry.lock().insert(
        dir.clone(),
        Session {
            dir: dir.clone(),
            current,
            future,
            target: target.to_path_buf(),
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
    target: &Path,
    req: &ProposeRequest,
    plan: &Plan,
    base: AutoBase,
    notes: Vec<String>,
) -> Result<Prepared, EditError> {
    let shown = req.path.as_str();
    let options = Options {
        create_parents: base.fingerprint.is_none(),
        expect_path: Some(target),
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
            EditError::new(
                ErrorKind::Conflict,
                format!(
                    "Conflict: '{shown}' changed on disk while this edit was being committed (another edit landed first), and the edit does not apply cleanly to the new content (a match_text no longer occurs exactly as expected, the file was deleted, or the edit replaces the whole file); nothing was written. 'diff' shows what changed; re-read '{shown}' and propose again."
                ),
            )
            .with_diff(unified_diff(
                &base.model,
                now_model,
                &format!("a/{shown} (when proposed)"),
                &format!("b/{shown} (on disk now)"),
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
    let committed = result.map_err(|fail| {
        commit_failure(
            fail,
            sandbox,
            shown,
            target,
            &format!("Re-read '{shown}' and propose again."),
        )
    })?;
    let mut all = Vec::new();
    all.extend(created_dirs_note(&committed.report, |d| sandbox.display(d)));
    let diff = match &reapplied {
        Some((now_model, applied)) => {
            all.push(format!(
                "Note: '{shown}' changed on disk while this edit was being committed (another edit landed first); your edit was applied again on top of the new content (its match_text still matched exactly), so both changes are kept. 'diff' shows what your edit changed."
            ));
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
    Ok(Prepared::Done(ReviewResponse {
        session_path: None,
        user_action: UserAction::Committed,
        message: join_message(
            "Auto-approve is on (headless mode): changes committed to '{shown}' without human review. 'diff' shows what changed."
                .replace("{shown}", shown),
            &all,
        ),
        user_feedback_diff: None,
        diff: Some(diff),
    }))
}

fn continue_session(
    inner: &Arc<Inner>,
    sandbox: &Sandbox,
    key: &Path,
    target: &Path,
    req: &ProposeRequest,
    plan: &Plan,
) -> Result<Prepared, EditError> {
    let shown = req.path.as_str();
    let (current, future, known_stamp, known_future, style, session_shown) = {
        let sessions = inner.registry.lock();
        let s = sessions
            .get(key)
            .ok_or_else(|| EditError::session("The review session has ended."))?;
        if s.target != target {
            return Err(EditError::session(format!(
                "Session {} reviews '{}', not '{shown}'. Pass the same path, or call propose_and_review without session_path to start a review of '{shown}'.",
                key.display(),
                s.shown
            )));
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
            match process_save(inner, sandbox, key, bytes, stamp)? {
                SaveResult::NoNews => {}
                SaveResult::Committed(info) => {
                    return Ok(Prepared::Done(committed_response(
                        format!(
                            "The user approved your previous proposal (saved it unchanged) after the last call ended, so it is now committed to '{session_shown}'. Your new edit was NOT applied: re-read the file and call propose_and_review again without session_path if it is still needed."
                        ),
                        &session_shown,
                        &info,
                        &[],
                        sandbox,
                    )));
                }
                SaveResult::Review(diff) => {
                    return Ok(Prepared::Done(review_response(
                        &session_path,
                        "The user edited the proposal after the last call ended; the diff shows their changes. Your new edit was NOT applied. Propose it again against the user's version.",
                        &session_shown,
                        diff,
                        &[],
                    )));
                }
            }
        }
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => {
            return Err(EditError::io(format!(
                "Cannot read {}: {e}",
                future.display()
            )));
        }
    }

    let staged_raw = fs::read(&current)
        .map_err(|e| EditError::io(format!("Cannot read {}: {e}", current.display())))?;
    let staged = to_model(
        &decode_text(staged_raw)
            .map_err(|e| EditError::invalid(format!("Cannot use {}: {e}.", current.display())))?,
    );
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
        return Err(EditError::validation(format!(
            "Edit preparation failed: No changes to apply. (To accept the user's version as it is, call commit_review(session_path='{session_path}', original_path='{shown}').)"
        )));
    }
    let native = style.render_verbatim(&proposal_text);
    if let Some(e) = too_large(shown, native.len()) {
        return Err(e);
    }
    let on_disk = fs::read(&future).ok();
    if on_disk.as_deref() != Some(native.as_bytes()) {
        fs::write(&future, native.as_bytes())
            .map_err(|e| EditError::io(format!("Cannot write {}: {e}", future.display())))?;
    }
    let stamp = fs::metadata(&future)
        .map(|m| FileStamp::of(&m))
        .map_err(|e| EditError::io(format!("Cannot read {}: {e}", future.display())))?;
    if let Some(s) = inner.registry.lock().get_mut(key) {
        s.proposal = proposal_text;
        s.known_future = native.into_bytes();
        s.known_stamp = Some(stamp);
        s.unreviewed = true;
    }
    Ok(Prepared::Wait {
        key: key.to_path_buf(),
        notes: built.notes,
    })
}

fn commit_review_blocking(
    inner: &Arc<Inner>,
    sandbox: &Sandbox,
    key: &Path,
    session_path: &str,
    original_path: &str,
) -> Result<String, EditError> {
    // The canonical path, only to check that it names the session's file; the commit itself
    // locates the file again by handles.
    let target = sandbox.resolve(original_path).map_err(|e| {
        EditError::new(
            ErrorKind::AccessDenied,
            format!(
                "{e} Nothing was written; the session stays open (session_path='{session_path}')."
            ),
        )
        .with_session_path(session_path.to_string())
    })?;
    let (future, known_stamp, known_future, unreviewed, proposal, style, session_target, shown) = {
        let sessions = inner.registry.lock();
        let s = sessions
            .get(key)
            .ok_or_else(|| EditError::session("The review session has ended."))?;
        (
            s.future.clone(),
            s.known_stamp,
            s.known_future.clone(),
            s.unreviewed,
            s.proposal.clone(),
            s.style,
            s.target.clone(),
            s.shown.clone(),
        )
    };
    if target != session_target {
        return Err(EditError::session(format!(
            "original_path '{original_path}' is not the file of session {session_path} (that is '{shown}'). Nothing was written."
        )));
    }
    let (bytes, stamp) = match read_with_stamp(&future) {
        Ok(found) => found,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(EditError::session(format!(
                "Approved file not found in session: {}",
                future.display()
            )));
        }
        Err(e) => {
            return Err(EditError::io(format!(
                "Cannot read {}: {e}",
                future.display()
            )));
        }
    };
    let changed = Some(stamp) != known_stamp || bytes != known_future;
    if !changed && unreviewed {
        return Err(EditError::session(format!(
            "The proposal in session {session_path} has not been reviewed: the user has not saved {} since it was proposed, so nothing is approved and '{original_path}' was not changed. Ask the user to review the diff and save that file (unchanged to approve), then call commit_review again; or call propose_and_review again with session_path to wait for the review.",
            future.display()
        )));
    }
    let text = decode_text(bytes.clone()).map_err(|e| {
        EditError::invalid(format!(
            "The reviewed file {} cannot be used: {e}. Ask the user to save it as UTF-8 text.",
            future.display()
        ))
    })?;
    let model = to_model(&text);
    let commit_bytes = if unreviewed && model == proposal {
        style.render_verbatim(&proposal)
    } else {
        style.render_verbatim(&model)
    };
    if let Some(s) = inner.registry.lock().get_mut(key) {
        s.known_future = bytes;
        s.known_stamp = Some(stamp);
        s.unreviewed = false;
    }
    let info = commit_session(inner, sandbox, key, commit_bytes.as_bytes())?;
    let mut notes = Vec::new();
    notes.extend(created_dirs_note(&info.report, |d| sandbox.display(d)));
    let message = match &info.cleanup_error {
        None => format!(
            "Successfully committed changes to '{original_path}' and cleaned up the review session."
        ),
        Some(e) => format!(
            "Successfully committed changes to {original_path}, but failed to clean up session dir {session_path}: {e}"
        ),
    };
    Ok(join_message(message, &notes))
}
