//! [`ReviewManager`]: the propose → review → commit workflow: it waits for the human and
//! answers `commit_review`; preparing a proposal is in [`crate::prepare`], interpreting and
//! committing a save in [`crate::approval`].

use std::fmt;
use std::future::Future;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use fs_mcp_sandbox::Sandbox;

use crate::approval::{SaveResult, VerdictResult, apply_verdict, commit_session, process_save};
use crate::diff::unified_diff;
use crate::editor::{self, LaunchOutcome};
use crate::error::{EditError, ErrorKind};
use crate::prepare::{Prepared, prepare};
use crate::request::ProposeRequest;
use crate::response::{
    ReviewResponse, UserAction, committed_response, created_dirs_note, join_message,
    review_response,
};
use crate::session::{BusyGuard, FileIdentity, Registry, Verdict};
use crate::text_style::{decode_text, to_model};
use crate::watch::{FileStamp, SaveWatcher, read_with_stamp};

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

struct Inner {
    config: ReviewConfig,
    /// Multi-file commits a crashed process left half done were looked for (once per process).
    recovered: std::sync::atomic::AtomicBool,
    /// Shared with the busy guards, which mark a session free again when they drop.
    registry: Arc<Registry>,
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

enum WaitEnd {
    Saved(io::Result<(Vec<u8>, FileStamp)>),
    Decided(Verdict),
    TimedOut,
    Cancelled,
}

/// A staged proposal: answered already, or open and waiting for the human's verdict.
pub enum Staged {
    /// The call's answer (auto-approve, or a decision the agent had not heard of yet).
    Done(ReviewResponse),
    /// Waiting for the human: pick a channel, then [`ReviewManager::await_editor`],
    /// [`ReviewManager::decide`] or [`ReviewManager::pending_response`].
    Open(OpenReview),
}

/// A proposal waiting for the human. Its session is busy (no other call can use it) until
/// this is dropped or consumed.
pub struct OpenReview {
    key: PathBuf,
    notes: Vec<String>,
    _guard: BusyGuard,
    /// The session directory: the `session_path` to continue with.
    pub session_path: String,
    /// The file under review, as the client named it (the first file of a multi-file one).
    pub path: String,
    /// Every file of the proposal, as the client named them (one for most proposals).
    pub files: Vec<String>,
    /// The proposal as a unified diff (current → proposed), LF text, every file.
    pub diff: String,
    /// The "before" file of the diff.
    pub current: PathBuf,
    /// The proposal file.
    pub future: PathBuf,
}

impl fmt::Debug for OpenReview {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenReview")
            .field("session_path", &self.session_path)
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// An open proposal as the review page lists it.
#[derive(Debug, Clone)]
pub struct ReviewListing {
    /// Its session.
    pub session_path: String,
    /// The file(s), as the client named them, comma-separated.
    pub path: String,
    /// Every file.
    pub files: Vec<String>,
    /// Unified diff current → proposed.
    pub diff: String,
    /// The proposed text (model view).
    pub proposed: String,
}

/// A file of a session as LF text.
fn read_model(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    Some(to_model(&String::from_utf8_lossy(&bytes)))
}

/// The diff a session shows: its "current" file against its proposal file.
fn session_diff(current: &Path, future: &Path, shown: &str) -> String {
    let before = read_model(current).unwrap_or_default();
    let after = read_model(future).unwrap_or_default();
    unified_diff(
        &before,
        &after,
        &format!("a/{shown}"),
        &format!("b/{shown}"),
    )
}

/// One file of a proposal: the name shown, its "before" file and its proposal file.
type GroupFile = (String, PathBuf, PathBuf);

/// The files of a session's proposal (its members' too). Cheap: taken under the registry lock,
/// read after it.
fn group_files(
    sessions: &std::collections::HashMap<PathBuf, crate::session::Session>,
    lead: &crate::session::Session,
) -> Vec<GroupFile> {
    std::iter::once(lead)
        .chain(lead.members.iter().filter_map(|k| sessions.get(k)))
        .map(|s| (s.shown.clone(), s.current.clone(), s.future.clone()))
        .collect()
}

/// The names and the diffs of `group_files`, one diff after the other.
fn group_diff(files: &[GroupFile]) -> (Vec<String>, String) {
    let mut diff = String::new();
    for (shown, current, future) in files {
        diff.push_str(&session_diff(current, future, shown));
    }
    (files.iter().map(|f| f.0.clone()).collect(), diff)
}

/// Waits until a verdict is posted for `key`, and takes it.
async fn next_verdict(registry: &Registry, key: &Path) -> Verdict {
    loop {
        let notified = registry.decided.notified();
        tokio::pin!(notified);
        // Registered before looking, so a verdict posted in between still wakes us.
        notified.as_mut().enable();
        if let Some(v) = registry.lock().get_mut(key).and_then(|s| s.verdict.take()) {
            return v;
        }
        notified.await;
    }
}

/// A save of the proposal file the server has not acted on yet, acted on now.
fn unseen_save(
    registry: &Registry,
    sandbox: &Sandbox,
    key: &Path,
) -> Result<Option<SaveResult>, EditError> {
    let (future, known_stamp, known_future) = {
        let sessions = registry.lock();
        let s = sessions
            .get(key)
            .ok_or_else(|| EditError::session("The review session has ended."))?;
        (s.future.clone(), s.known_stamp, s.known_future.clone())
    };
    match read_with_stamp(&future) {
        Ok((bytes, stamp)) if Some(stamp) != known_stamp || bytes != known_future => {
            match process_save(registry, sandbox, key, bytes, stamp)? {
                SaveResult::NoNews => Ok(None),
                other => Ok(Some(other)),
            }
        }
        Ok(_) => Ok(None),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(EditError::io(format!(
            "Cannot read {}: {e}",
            future.display()
        ))),
    }
}

/// The answer for a save of the proposal file.
fn save_response(
    result: SaveResult,
    session_path: &str,
    shown: &str,
    notes: &[String],
    sandbox: &Sandbox,
) -> ReviewResponse {
    match result {
        SaveResult::Committed(info) => committed_response(
            format!("Changes committed to '{shown}'. No further action needed."),
            shown,
            &info,
            notes,
            sandbox,
        ),
        SaveResult::Review(diff) => review_response(
            session_path,
            "User provided feedback. A diff is included. Propose a new edit against the updated content.",
            shown,
            diff,
            notes,
        ),
        // Only changed content reaches here, and an unreviewed proposal always yields a
        // decision; kept for completeness.
        SaveResult::NoNews => ReviewResponse {
            session_path: Some(session_path.to_string()),
            user_action: UserAction::Timeout,
            message: join_message(
                format!(
                    "The proposal file was touched but not changed; '{shown}' was not changed. Call propose_and_review with session_path='{session_path}' and no edit to wait for the verdict."
                ),
                notes,
            ),
            user_comment: None,
            user_feedback_diff: None,
            diff: None,
        },
    }
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

impl ReviewManager {
    /// Creates the manager and its private sessions directory.
    pub fn new(config: ReviewConfig) -> io::Result<ReviewManager> {
        let registry = Arc::new(Registry::new(config.sessions_parent.as_deref())?);
        Ok(ReviewManager {
            inner: Arc::new(Inner {
                config,
                recovered: std::sync::atomic::AtomicBool::new(false),
                registry,
            }),
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

    /// `propose_and_review` with the review command as the channel: [`ReviewManager::stage`],
    /// then [`ReviewManager::await_editor`] (which launches the command). With
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
        match self.stage(sandbox, request).await? {
            Staged::Done(response) => Ok(response),
            Staged::Open(open) => self.await_editor(sandbox, open, true, cancel).await,
        }
    }

    /// Validates and stages a proposal in a review session (new, or continued with
    /// `session_path`), without showing it to anyone yet: the caller picks the review channel.
    /// Answers at once ([`Staged::Done`]) with auto-approve, and when the session already has a
    /// decision the agent has not heard of (a save of the proposal file, a verdict from the
    /// review page). A request with `session_path` and no edit at all (no `match_text`,
    /// `new_string` or `edits`) collects the verdict on the open proposal as it is.
    pub async fn stage(
        &self,
        sandbox: &Sandbox,
        request: ProposeRequest,
    ) -> Result<Staged, EditError> {
        let recovered = self.recover(sandbox).await;
        let staged = self.stage_now(sandbox, request).await;
        if recovered.is_empty() {
            return staged;
        }
        match staged {
            Ok(Staged::Done(mut response)) => {
                response.message = join_message(response.message, &recovered);
                Ok(Staged::Done(response))
            }
            Ok(Staged::Open(mut open)) => {
                open.notes.extend(recovered);
                Ok(Staged::Open(open))
            }
            Err(e) => {
                tracing::warn!("{}", recovered.join(" "));
                Err(e)
            }
        }
    }

    /// Completes, once per process, multi-file commits a crashed server left half done.
    async fn recover(&self, sandbox: &Sandbox) -> Vec<String> {
        use std::sync::atomic::Ordering;
        if self.inner.recovered.swap(true, Ordering::SeqCst) {
            return Vec::new();
        }
        let root = self.inner.registry.root().to_path_buf();
        let sandbox = sandbox.clone();
        blocking(move || Ok(crate::changeset::recover(&sandbox, &root)))
            .await
            .unwrap_or_default()
    }

    async fn stage_now(
        &self,
        sandbox: &Sandbox,
        request: ProposeRequest,
    ) -> Result<Staged, EditError> {
        let inner = Arc::clone(&self.inner);
        let mut guard = match request.session() {
            Some(sp) => {
                let key = inner.registry.key_for(sp)?;
                Some(BusyGuard::acquire(&inner.registry, key)?)
            }
            None => None,
        };
        if let Some(g) = &guard {
            let key = g.key().to_path_buf();
            let shown = self.shown(&key)?;
            let verdict = inner
                .registry
                .lock()
                .get_mut(&key)
                .and_then(|s| s.verdict.take());
            if let Some(verdict) = verdict {
                let note = (!request.is_collect()).then(|| {
                    "Your new edit was NOT applied: the user decided on your previous proposal first.".to_string()
                });
                let response = self
                    .act(sandbox, &key, &shown, verdict, note.as_slice())
                    .await?;
                return Ok(Staged::Done(response));
            }
            let group = inner
                .registry
                .lock()
                .get(&key)
                .is_some_and(|s| !s.members.is_empty());
            if request.is_collect() && group {
                return Ok(Staged::Open(self.open_review(
                    key,
                    Vec::new(),
                    guard.take().ok_or_else(|| {
                        EditError::session("The review session ended unexpectedly.")
                    })?,
                )?));
            }
            if request.is_collect() {
                let save_inner = Arc::clone(&inner);
                let save_key = key.clone();
                let save_sandbox = sandbox.clone();
                let seen =
                    blocking(move || unseen_save(&save_inner.registry, &save_sandbox, &save_key))
                        .await?;
                return match seen {
                    Some(result) => Ok(Staged::Done(save_response(
                        result,
                        &key.display().to_string(),
                        &shown,
                        &[],
                        sandbox,
                    ))),
                    None => Ok(Staged::Open(self.open_review(
                        key,
                        Vec::new(),
                        guard.take().ok_or_else(|| {
                            EditError::session("The review session ended unexpectedly.")
                        })?,
                    )?)),
                };
            }
        }
        let continued = guard.as_ref().map(|g| g.key().to_path_buf());
        let prep_sandbox = sandbox.clone();
        let prep_inner = Arc::clone(&inner);
        let prepared = blocking(move || {
            prepare(
                &prep_inner.registry,
                prep_inner.config.auto_approve,
                &prep_sandbox,
                &request,
                continued.as_deref(),
            )
        })
        .await?;
        let (key, notes) = match prepared {
            Prepared::Done(response) => return Ok(Staged::Done(response)),
            Prepared::Wait { key, notes } => (key, notes),
        };
        let guard = match guard {
            Some(g) => g,
            None => BusyGuard::acquire(&inner.registry, key.clone())?,
        };
        Ok(Staged::Open(self.open_review(key, notes, guard)?))
    }

    fn shown(&self, key: &Path) -> Result<String, EditError> {
        self.inner
            .registry
            .lock()
            .get(key)
            .map(|s| s.shown.clone())
            .ok_or_else(|| EditError::session("The review session has ended."))
    }

    fn open_review(
        &self,
        key: PathBuf,
        notes: Vec<String>,
        guard: BusyGuard,
    ) -> Result<OpenReview, EditError> {
        let (shown, current, future, files) = {
            let sessions = self.inner.registry.lock();
            let s = sessions
                .get(&key)
                .ok_or_else(|| EditError::session("The review session ended unexpectedly."))?;
            (
                s.shown.clone(),
                s.current.clone(),
                s.future.clone(),
                group_files(&sessions, s),
            )
        };
        let (files, diff) = group_diff(&files);
        Ok(OpenReview {
            session_path: key.display().to_string(),
            key,
            notes,
            _guard: guard,
            path: shown,
            files,
            diff,
            current,
            future,
        })
    }

    /// Acts on the human's decision on an open proposal (from the client's form): approve
    /// commits it, reject ends the session with nothing written, an edited version is feedback.
    pub async fn decide(
        &self,
        sandbox: &Sandbox,
        open: OpenReview,
        verdict: Verdict,
    ) -> Result<ReviewResponse, EditError> {
        let response = self
            .act(sandbox, &open.key, &open.path, verdict, &open.notes)
            .await;
        drop(open);
        response
    }

    async fn act(
        &self,
        sandbox: &Sandbox,
        key: &Path,
        shown: &str,
        verdict: Verdict,
        notes: &[String],
    ) -> Result<ReviewResponse, EditError> {
        let inner = Arc::clone(&self.inner);
        let files = {
            let sessions = inner.registry.lock();
            match sessions.get(key) {
                Some(s) => group_files(&sessions, s)
                    .iter()
                    .map(|f| format!("'{}'", f.0))
                    .collect::<Vec<_>>()
                    .join(", "),
                None => format!("'{shown}'"),
            }
        };
        let act_key = key.to_path_buf();
        let act_sandbox = sandbox.clone();
        let result =
            blocking(move || apply_verdict(&inner.registry, &act_sandbox, &act_key, verdict))
                .await?;
        let session_path = key.display().to_string();
        Ok(match result {
            VerdictResult::Committed(info, comment) => {
                let mut response = committed_response(
                    format!("Changes committed to {files}. No further action needed."),
                    shown,
                    &info,
                    notes,
                    sandbox,
                );
                if comment.is_some() {
                    response
                        .message
                        .push_str(" The user added a comment (user_comment).");
                }
                response.user_comment = comment;
                response
            }
            VerdictResult::Rejected(comment) => {
                let why = if comment.is_some() {
                    " user_comment says why."
                } else {
                    ""
                };
                ReviewResponse {
                    session_path: None,
                    user_action: UserAction::Rejected,
                    message: join_message(
                        format!(
                            "The user rejected the proposal: {files} not changed and the review session ended.{why} Propose a revised edit (without session_path) or ask the user what they want."
                        ),
                        notes,
                    ),
                    user_comment: comment,
                    user_feedback_diff: None,
                    diff: None,
                }
            }
            VerdictResult::Saved(result) => {
                save_response(result, &session_path, shown, notes, sandbox)
            }
        })
    }

    /// Posts a verdict for an open session (the review page): the call waiting on it, or the
    /// agent's next call with its `session_path`, acts on it.
    pub fn submit_verdict(&self, session_path: &str, verdict: Verdict) -> Result<(), EditError> {
        let key = self.inner.registry.key_for(session_path)?;
        match self.inner.registry.lock().get_mut(&key) {
            Some(s) => s.verdict = Some(verdict),
            None => return Err(EditError::session("The review session has ended.")),
        }
        self.inner.registry.decided.notify_waiters();
        Ok(())
    }

    /// Every open proposal with its diff (what the review page lists). A proposal the human
    /// already decided on (verdict not yet collected) is left out.
    pub fn open_reviews(&self) -> Vec<ReviewListing> {
        let open: Vec<(String, Vec<GroupFile>)> = {
            let sessions = self.inner.registry.lock();
            sessions
                .values()
                .filter(|s| s.verdict.is_none() && s.member_of.is_none())
                .map(|s| (s.dir.display().to_string(), group_files(&sessions, s)))
                .collect()
        };
        let mut found: Vec<ReviewListing> = open
            .into_iter()
            .map(|(session_path, group)| {
                let (files, diff) = group_diff(&group);
                ReviewListing {
                    session_path,
                    path: files.join(", "),
                    diff,
                    // A multi-file proposal is approved or rejected, not edited in the page.
                    proposed: match group.as_slice() {
                        [(_, _, future)] => read_model(future).unwrap_or_default(),
                        _ => String::new(),
                    },
                    files,
                }
            })
            .collect();
        found.sort_by(|a, b| a.session_path.cmp(&b.session_path));
        found
    }

    /// The answer when the proposal waits in the review page: nothing written yet; the link for
    /// the human and how to collect the verdict.
    pub fn pending_response(&self, open: OpenReview, link: &str) -> ReviewResponse {
        let message = format!(
            "Not written yet: the user reviews it in the browser. Give them this link: {link} . Then call propose_and_review(path='{path}', session_path='{sp}') with no edit to collect the verdict (it waits for it).",
            path = open.path,
            sp = open.session_path
        );
        ReviewResponse {
            session_path: Some(open.session_path.clone()),
            user_action: UserAction::Pending,
            message: join_message(message, &open.notes),
            user_comment: None,
            user_feedback_diff: None,
            diff: Some(open.diff.clone()),
        }
    }

    /// The answer when the human gave no verdict: the review timeout passed (`timed_out`, →
    /// `TIMEOUT`) or the call was cancelled (→ `CANCELLED`). Nothing written; the session stays
    /// open.
    pub fn undecided_response(&self, open: OpenReview, timed_out: bool) -> ReviewResponse {
        let (action, lead) = if timed_out {
            (
                UserAction::Timeout,
                format!(
                    "No review decision within {}.",
                    humanize(self.inner.config.review_timeout)
                ),
            )
        } else {
            (
                UserAction::Cancelled,
                "The review was cancelled.".to_string(),
            )
        };
        let message = format!(
            "{lead} '{path}' was not changed. The review session stays open: call propose_and_review with session_path='{sp}' and no edit to ask for the verdict again, or with a new edit; to start over, call it without session_path.",
            path = open.path,
            sp = open.session_path
        );
        ReviewResponse {
            session_path: Some(open.session_path.clone()),
            user_action: action,
            message: join_message(message, &open.notes),
            user_comment: None,
            user_feedback_diff: None,
            diff: None,
        }
    }

    /// Waits for the human's decision on an open proposal in their editor (launching the review
    /// command first when `launch`): a save of the proposal file (→ `COMMITTED`, or `REVIEW`
    /// with their changes), a verdict posted with [`ReviewManager::submit_verdict`], the review
    /// timeout (→ `TIMEOUT`) or `cancel` (→ `CANCELLED`).
    pub async fn await_editor<C>(
        &self,
        sandbox: &Sandbox,
        open: OpenReview,
        launch: bool,
        cancel: C,
    ) -> Result<ReviewResponse, EditError>
    where
        C: Future<Output = ()> + Send,
    {
        let outcome = self
            .wait(sandbox, &open.key, &open.path, &open.notes, launch, cancel)
            .await;
        drop(open);
        outcome
    }

    async fn wait<C>(
        &self,
        sandbox: &Sandbox,
        key: &Path,
        shown: &str,
        notes: &[String],
        launch: bool,
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
        let command = if launch {
            inner.config.review_command.as_deref()
        } else {
            None
        };
        let launch = editor::launch(command, &current, &future);
        let instructions = editor::manual_instructions(&current, &future);
        let launch_note = match &launch {
            LaunchOutcome::Launched { .. } | LaunchOutcome::Disabled => None,
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
            verdict = next_verdict(&inner.registry, key) => WaitEnd::Decided(verdict),
            () = &mut timeout => WaitEnd::TimedOut,
            () = &mut cancel => WaitEnd::Cancelled,
        };
        drop(watcher);

        let mut notes = notes.to_vec();
        let open_session = |lead: String, notes: &[String]| {
            let mut all = notes.to_vec();
            all.extend(launch_note.clone());
            let message = format!(
                "{lead} '{shown}' was not changed. The review session stays open: the user can still review the diff and save {} (unchanged to approve, edited to give feedback). To continue, call propose_and_review with session_path='{session_path}' and no edit to wait for the verdict again (or with a new edit), or commit_review(session_path='{session_path}', original_path='{shown}') once the user has saved. To start over, call propose_and_review without session_path.",
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
                user_comment: None,
                user_feedback_diff: None,
                diff: None,
            }),
            WaitEnd::Cancelled => Ok(ReviewResponse {
                session_path: Some(session_path.clone()),
                user_action: UserAction::Cancelled,
                message: open_session("The review was cancelled.".to_string(), &notes),
                user_comment: None,
                user_feedback_diff: None,
                diff: None,
            }),
            WaitEnd::Decided(verdict) => self.act(sandbox, key, shown, verdict, &notes).await,
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
                    process_save(&save_inner.registry, &save_sandbox, &save_key, bytes, stamp)
                })
                .await?;
                notes.extend(launch_note.clone());
                Ok(save_response(result, &session_path, shown, &notes, sandbox))
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
        let guard = BusyGuard::acquire(&inner.registry, key.clone())?;
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

fn commit_review_blocking(
    inner: &Arc<Inner>,
    sandbox: &Sandbox,
    key: &Path,
    session_path: &str,
    original_path: &str,
) -> Result<String, EditError> {
    // By handle, to check that it names the session's file; the commit itself locates the file
    // again by handles.
    let (identity, _) = FileIdentity::of(sandbox, original_path).map_err(|e| {
        EditError::new(
            ErrorKind::AccessDenied,
            format!(
                "{e} Nothing was written; the session stays open (session_path='{session_path}')."
            ),
        )
        .with_session_path(session_path.to_string())
    })?;
    let (future, known_stamp, known_future, unreviewed, proposal, style, session_identity, shown) = {
        let sessions = inner.registry.lock();
        let s = sessions
            .get(key)
            .ok_or_else(|| EditError::session("The review session has ended."))?;
        if !s.members.is_empty() || s.member_of.is_some() {
            // One file of it alone would break "all or none".
            return Err(EditError::session(format!(
                "Session {session_path} is a multi-file proposal: it is committed only as a whole, when the user approves it. Call propose_and_review(path='{}', session_path='{session_path}') with no edit to get the verdict. Nothing was written.",
                s.shown
            )));
        }
        (
            s.future.clone(),
            s.known_stamp,
            s.known_future.clone(),
            s.unreviewed,
            s.proposal.clone(),
            s.style,
            s.identity.clone(),
            s.shown.clone(),
        )
    };
    if identity != session_identity {
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
    let info = commit_session(&inner.registry, sandbox, key, commit_bytes.as_bytes())?;
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
