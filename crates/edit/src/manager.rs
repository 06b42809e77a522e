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
use crate::diff::{Diff, unified_diff};
use crate::editor::{self, LaunchOutcome, WaitingHook};
use crate::error::{AccessThen, EditError, EndedWhy, Failure, NextStep, TokenPurpose};
use crate::outcome::{
    Approval, CrashCompleted, Decision, Note, ReviewCommitted, ReviewOutcome, Undecided, committed,
};
use crate::prepare::{Prepared, prepare};
use crate::request::ProposeRequest;
use crate::session::{
    BusyGuard, FileIdentity, Handed, Registry, ReviewOwner, ReviewScope, Verdict,
};
use crate::text_style::{decode_text, to_model};
use crate::watch::{FileStamp, SaveWatcher, read_with_stamp};

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

/// The two files of a session under review, and the proposal file as the server last knew it.
struct ReviewFiles {
    current: PathBuf,
    future: PathBuf,
    known_stamp: Option<FileStamp>,
    known_bytes: Vec<u8>,
}

/// How a wait for the human ended.
enum WaitEnd {
    Saved(io::Result<(Vec<u8>, FileStamp)>),
    Decided(Verdict),
    TimedOut,
    Cancelled,
}

/// A staged proposal: answered already, or open and waiting for the human's verdict.
pub enum Staged {
    /// The call's answer (auto-approve, or a decision the agent had not heard of yet).
    Done(ReviewOutcome),
    /// Waiting for the human: pick a channel, then [`ReviewManager::await_editor`],
    /// [`ReviewManager::decide`] or [`ReviewManager::pending`].
    Open(OpenReview),
}

/// A proposal waiting for the human. Its session is busy (no other call can use it) until
/// this is dropped or consumed.
pub struct OpenReview {
    key: PathBuf,
    notes: Vec<Note>,
    _guard: BusyGuard,
    /// The session directory: the `session_path` to continue with.
    pub session_path: String,
    /// The file under review, as the client named it (the first file of a multi-file one).
    pub path: String,
    /// Every file of the proposal, as the client named them (one for most proposals).
    pub files: Vec<String>,
    /// The proposal as a unified diff (current → proposed), LF text, every file.
    pub diff: Diff,
    /// The "before" file of the diff.
    pub current: PathBuf,
    /// The proposal file.
    pub future: PathBuf,
    /// What a review page link for this proposal shows: its client's reviews.
    pub scope: ReviewScope,
}

impl fmt::Debug for OpenReview {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenReview")
            .field("session_path", &self.session_path)
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// Open proposals listed at most in one answer of the review page (the rest are counted).
pub const MAX_LISTED_REVIEWS: usize = 32;
/// Bytes of diff one answer of the review page lists at most, every proposal together.
pub const MAX_LISTED_DIFF_BYTES: usize = 512 * 1024;
/// Bytes of one proposal's diff the list shows; the whole diff is in its detail.
pub const MAX_LISTED_DIFF_BYTES_EACH: usize = 32 * 1024;

/// The least diff a listed proposal shows (when its diff is longer).
const MIN_LISTED_DIFF: usize = 4 * 1024;

/// An open proposal as the review page lists it.
#[derive(Debug, Clone)]
pub struct ReviewListing {
    /// Its session.
    pub session_path: String,
    /// The file(s), as the client named them, comma-separated.
    pub path: String,
    /// Every file.
    pub files: Vec<String>,
    /// Unified diff current → proposed, cut to [`MAX_LISTED_DIFF_BYTES_EACH`] at a line end.
    pub diff: Diff,
    /// Bytes of the diff left out of `diff` (its detail has them).
    pub diff_cut: usize,
}

/// The open proposals of a scope as one answer of the review page lists them: the first ones
/// in session order, within [`MAX_LISTED_REVIEWS`] and [`MAX_LISTED_DIFF_BYTES`].
#[derive(Debug, Clone, Default)]
pub struct ReviewList {
    /// The proposals listed.
    pub reviews: Vec<ReviewListing>,
    /// Open proposals of the scope not listed (past a bound).
    pub left_out: usize,
}

/// One open proposal whole, as the review page shows it to decide or edit it.
#[derive(Debug, Clone)]
pub struct ReviewDetail {
    /// Its session.
    pub session_path: String,
    /// The file(s), as the client named them, comma-separated.
    pub path: String,
    /// Every file.
    pub files: Vec<String>,
    /// Unified diff current → proposed (bounded like every diff).
    pub diff: Diff,
    /// The proposed text (model view) to edit; `None` for a multi-file proposal, which is
    /// approved or rejected whole.
    pub proposed: Option<String>,
}

/// What a review view shows of an open proposal ([`ReviewManager::proposal_view`]).
#[derive(Debug, Clone)]
pub struct ProposalView {
    /// Each file's diff, in the proposal's order.
    pub files: Vec<FileDiff>,
    /// The proposed text of a single-file proposal (model view); `None` for several files,
    /// which are approved or rejected as a whole.
    pub proposed: Option<String>,
}

/// One file's part of a proposal.
#[derive(Debug, Clone)]
pub struct FileDiff {
    /// The file as the client named it.
    pub path: String,
    /// Unified diff current → proposed.
    pub diff: Diff,
}

/// A file of a session as LF text.
fn read_model(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    Some(to_model(&String::from_utf8_lossy(&bytes)))
}

/// The diff a session shows: its "current" file against its proposal file.
fn session_diff(current: &Path, future: &Path, shown: &str) -> Diff {
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
fn group_diff(files: &[GroupFile]) -> (Vec<String>, Diff) {
    let mut diff = Diff::default();
    for (shown, current, future) in files {
        diff.append(session_diff(current, future, shown));
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
            .ok_or_else(|| EditError::new(Failure::SessionEnded))?;
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
        Err(e) => Err(EditError::new(Failure::ReadSessionFile {
            file: future,
            error: e.into(),
        })),
    }
}

/// The outcome of a save of the proposal file.
fn save_outcome(
    result: SaveResult,
    session_path: &str,
    shown: &str,
    notes: Vec<Note>,
    sandbox: &Sandbox,
) -> ReviewOutcome {
    match result {
        SaveResult::Committed(info) => committed(
            vec![shown.to_string()],
            Approval::Reviewed,
            None,
            &info,
            notes,
            sandbox,
        ),
        SaveResult::Review(diff) => ReviewOutcome::new(
            Decision::Feedback {
                session_path: session_path.to_string(),
                path: shown.to_string(),
                diff,
                before_this_call: false,
            },
            notes,
        ),
        // Only changed content reaches here, and an unreviewed proposal always yields a
        // decision; kept for completeness.
        SaveResult::NoNews => ReviewOutcome::new(
            Decision::Undecided {
                session_path: session_path.to_string(),
                path: shown.to_string(),
                why: Undecided::Untouched,
                editor_file: None,
            },
            notes,
        ),
    }
}

async fn blocking<T, F>(f: F) -> Result<T, EditError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, EditError> + Send + 'static,
{
    tokio::task::spawn_blocking(f).await.map_err(|e| {
        EditError::new(Failure::Internal {
            error: e.to_string(),
        })
    })?
}

impl ReviewManager {
    /// Creates the manager and its private sessions directory.
    pub fn new(config: ReviewConfig) -> io::Result<ReviewManager> {
        let registry = Arc::new(Registry::new(
            config.sessions_parent.as_deref(),
            crate::session::max_idle(config.review_timeout),
        )?);
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
        owner: &ReviewOwner,
        cancel: C,
    ) -> Result<ReviewOutcome, EditError>
    where
        C: Future<Output = ()> + Send,
    {
        match self.stage(sandbox, request, owner).await? {
            Staged::Done(outcome) => Ok(outcome),
            Staged::Open(open) => self.await_editor(sandbox, open, true, cancel).await,
        }
    }

    /// Validates and stages a proposal in a review session (new, or continued with
    /// `session_path`), without showing it to anyone yet: the caller picks the review channel.
    /// Answers at once ([`Staged::Done`]) with auto-approve, and when the session already has a
    /// decision the agent has not heard of (a save of the proposal file, a verdict from the
    /// review page). A request with `session_path` and no edit at all (no `match_text`,
    /// `new_string` or `edits`) collects the verdict on the open proposal as it is.
    ///
    /// `owner` is the calling client: only its own sessions can be continued or collected, and a
    /// new one is made its own.
    pub async fn stage(
        &self,
        sandbox: &Sandbox,
        request: ProposeRequest,
        owner: &ReviewOwner,
    ) -> Result<Staged, EditError> {
        let recovered = self.recover(sandbox).await;
        let staged = self.stage_now(sandbox, request, owner).await;
        if recovered.is_empty() {
            return staged;
        }
        match staged {
            Ok(Staged::Done(mut outcome)) => {
                outcome
                    .notes
                    .extend(recovered.into_iter().map(Note::CrashCompleted));
                Ok(Staged::Done(outcome))
            }
            Ok(Staged::Open(mut open)) => {
                open.notes
                    .extend(recovered.into_iter().map(Note::CrashCompleted));
                Ok(Staged::Open(open))
            }
            Err(e) => {
                tracing::warn!("completed after a crash: {recovered:?}");
                Err(e)
            }
        }
    }

    /// Completes, once per process, multi-file commits a crashed server left half done.
    async fn recover(&self, sandbox: &Sandbox) -> Vec<CrashCompleted> {
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
        owner: &ReviewOwner,
    ) -> Result<Staged, EditError> {
        let inner = Arc::clone(&self.inner);
        let mut guard = match request.session() {
            Some(sp) => {
                let key = inner.registry.key_for(sp, owner)?;
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
                let notes: Vec<Note> = (!request.is_collect())
                    .then_some(Note::NewEditNotApplied)
                    .into_iter()
                    .collect();
                let outcome = self.act(sandbox, &key, &shown, verdict, notes).await?;
                return Ok(Staged::Done(outcome));
            }
            let group = inner
                .registry
                .lock()
                .get(&key)
                .is_some_and(|s| !s.members.is_empty());
            if request.is_collect() && group {
                return Ok(Staged::Open(
                    self.open_review(
                        key,
                        Vec::new(),
                        guard
                            .take()
                            .ok_or_else(|| EditError::new(Failure::SessionEndedUnexpectedly))?,
                    )?,
                ));
            }
            if request.is_collect() {
                let save_inner = Arc::clone(&inner);
                let save_key = key.clone();
                let save_sandbox = sandbox.clone();
                let seen =
                    blocking(move || unseen_save(&save_inner.registry, &save_sandbox, &save_key))
                        .await?;
                return match seen {
                    Some(result) => Ok(Staged::Done(save_outcome(
                        result,
                        &key.display().to_string(),
                        &shown,
                        Vec::new(),
                        sandbox,
                    ))),
                    None => Ok(Staged::Open(
                        self.open_review(
                            key,
                            Vec::new(),
                            guard
                                .take()
                                .ok_or_else(|| EditError::new(Failure::SessionEndedUnexpectedly))?,
                        )?,
                    )),
                };
            }
        }
        let continued = guard.as_ref().map(|g| g.key().to_path_buf());
        let prep_sandbox = sandbox.clone();
        let prep_inner = Arc::clone(&inner);
        let prep_owner = owner.clone();
        let prepared = blocking(move || {
            prepare(
                &prep_inner.registry,
                prep_inner.config.auto_approve,
                &prep_sandbox,
                &request,
                continued.as_deref(),
                &prep_owner,
            )
        })
        .await?;
        let (key, notes) = match prepared {
            Prepared::Done(outcome) => return Ok(Staged::Done(outcome)),
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
            .ok_or_else(|| EditError::new(Failure::SessionEnded))
    }

    fn open_review(
        &self,
        key: PathBuf,
        notes: Vec<Note>,
        guard: BusyGuard,
    ) -> Result<OpenReview, EditError> {
        let (shown, current, future, files, scope) = {
            let sessions = self.inner.registry.lock();
            let s = sessions
                .get(&key)
                .ok_or_else(|| EditError::new(Failure::SessionEndedUnexpectedly))?;
            let scope = s
                .owner
                .as_ref()
                .map_or_else(|| ReviewScope::Review(key.clone()), |o| o.scope_for(&key));
            (
                s.shown.clone(),
                s.current.clone(),
                s.future.clone(),
                group_files(&sessions, s),
                scope,
            )
        };
        let (files, diff) = group_diff(&files);
        if let Some(s) = self.inner.registry.lock().get_mut(&key) {
            s.diff.clone_from(&diff);
        }
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
            scope,
        })
    }

    /// The state to send with the client's form for `open` (2026-07-28 `requestState`): a
    /// random token bound to this session, which only its client's answer may carry back
    /// ([`ReviewManager::session_of_input_state`]).
    pub fn input_state(&self, open: &OpenReview) -> Result<String, EditError> {
        let token = crate::session::random_hex(16).map_err(|e| {
            EditError::new(Failure::Random {
                purpose: TokenPurpose::FormState,
                error: e.into(),
            })
        })?;
        match self.inner.registry.lock().get_mut(&open.key) {
            Some(s) => s.input_state = Some(token.clone()),
            None => return Err(EditError::new(Failure::SessionEnded)),
        }
        Ok(token)
    }

    /// Ends every open review of the client session `client`, whose session ended (closed by
    /// the client, expired, evicted, its connection gone): nobody can collect or commit them any
    /// more, so they are cancelled at once, nothing written, their files removed; the review page
    /// no longer lists them, and a later use of their path is told why
    /// ([`EndedWhy::ClientGone`]). Returns how many proposals ended.
    pub fn end_client(&self, client: u64) -> usize {
        self.inner.registry.end_where(
            |s| {
                s.owner
                    .as_ref()
                    .is_some_and(|o| o.client_id() == Some(client))
            },
            EndedWhy::ClientGone,
        )
    }

    /// The client session `client` now has `sandbox` (its roots changed). Its proposals whose
    /// files are still the same files inside `sandbox` stay open (named as `sandbox` shows them
    /// now); the others end, cancelled, nothing written, and a later use of their path is told
    /// why. A proposal a call is waiting on is left to that call: its commit goes through the
    /// sandbox in force then, like every commit. Returns how many proposals ended.
    pub async fn roots_changed(&self, client: u64, sandbox: &Sandbox) -> usize {
        let registry = Arc::clone(&self.inner.registry);
        let sandbox = sandbox.clone();
        blocking(move || Ok(roots_changed_blocking(&registry, client, &sandbox)))
            .await
            .unwrap_or(0)
    }

    /// Records how `open` was put before the human (kept in its session, ended with it).
    pub fn hand(&self, open: &OpenReview, handed: Handed) {
        if let Some(s) = self.inner.registry.lock().get_mut(&open.key) {
            s.handed = Some(handed);
        }
    }

    /// How `open` was last put before the human, if it was.
    pub fn handed(&self, open: &OpenReview) -> Option<Handed> {
        self.inner
            .registry
            .lock()
            .get(&open.key)
            .and_then(|s| s.handed)
    }

    /// The `session_path` a form's answer (its `requestState`) continues, for `owner`.
    pub fn session_of_input_state(
        &self,
        state: &str,
        owner: &ReviewOwner,
    ) -> Result<String, EditError> {
        self.inner
            .registry
            .key_of_input_state(state, owner)
            .map(|key| key.display().to_string())
    }

    /// The token a review view inside the client (MCP Apps) sends back with the human's
    /// verdict for `open` ([`ReviewManager::submit_app_verdict`]): random, bound to this
    /// session, spent by the first verdict. A new one replaces the last.
    pub fn app_token(&self, open: &OpenReview) -> Result<String, EditError> {
        let token = crate::session::random_hex(16).map_err(|e| {
            EditError::new(Failure::Random {
                purpose: TokenPurpose::ViewToken,
                error: e.into(),
            })
        })?;
        match self.inner.registry.lock().get_mut(&open.key) {
            Some(s) => s.app_token = Some(token.clone()),
            None => return Err(EditError::new(Failure::SessionEnded)),
        }
        Ok(token)
    }

    /// Posts the verdict a review view gave (its `token`, from [`ReviewManager::app_token`]):
    /// only for an open, undecided session of `caller`'s, once. The call collecting the
    /// verdict acts on it. Returns the session's `session_path`.
    pub fn submit_app_verdict(
        &self,
        token: &str,
        caller: &ReviewOwner,
        verdict: Verdict,
    ) -> Result<String, EditError> {
        self.inner
            .registry
            .post_app_verdict(token, caller, verdict)
            .map(|key| key.display().to_string())
    }

    /// What a review view shows of `open`: each file's diff, and the proposed text of a
    /// single-file proposal (the human may edit it before approving).
    pub fn proposal_view(&self, open: &OpenReview) -> ProposalView {
        let group = {
            let sessions = self.inner.registry.lock();
            match sessions.get(&open.key) {
                Some(s) => group_files(&sessions, s),
                None => Vec::new(),
            }
        };
        let proposed = match group.as_slice() {
            [(_, _, future)] => read_model(future),
            _ => None,
        };
        ProposalView {
            files: group
                .iter()
                .map(|(shown, current, future)| FileDiff {
                    path: shown.clone(),
                    diff: session_diff(current, future, shown),
                })
                .collect(),
            proposed,
        }
    }

    /// Acts on the human's decision on an open proposal (from the client's form): approve
    /// commits it, reject ends the session with nothing written, an edited version is feedback.
    pub async fn decide(
        &self,
        sandbox: &Sandbox,
        open: OpenReview,
        verdict: Verdict,
    ) -> Result<ReviewOutcome, EditError> {
        let notes = open.notes.clone();
        let outcome = self
            .act(sandbox, &open.key, &open.path, verdict, notes)
            .await;
        drop(open);
        outcome
    }

    async fn act(
        &self,
        sandbox: &Sandbox,
        key: &Path,
        shown: &str,
        verdict: Verdict,
        notes: Vec<Note>,
    ) -> Result<ReviewOutcome, EditError> {
        let inner = Arc::clone(&self.inner);
        let files: Vec<String> = {
            let sessions = inner.registry.lock();
            match sessions.get(key) {
                Some(s) => group_files(&sessions, s).into_iter().map(|f| f.0).collect(),
                None => vec![shown.to_string()],
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
                committed(files, Approval::Reviewed, comment, &info, notes, sandbox)
            }
            VerdictResult::Rejected(comment) => {
                ReviewOutcome::new(Decision::Rejected { files, comment }, notes)
            }
            VerdictResult::Saved(result) => {
                save_outcome(result, &session_path, shown, notes, sandbox)
            }
        })
    }

    /// Posts a verdict for an open session (the review page): the call waiting on it, or the
    /// agent's next call with its `session_path`, acts on it. Only a proposal's own session in
    /// `scope` (the page link's) is decided, and only as a whole.
    pub fn submit_verdict(
        &self,
        session_path: &str,
        verdict: Verdict,
        scope: &ReviewScope,
    ) -> Result<(), EditError> {
        let key = self.inner.registry.key_in_scope(session_path, scope)?;
        match self.inner.registry.lock().get_mut(&key) {
            Some(s) => s.verdict = Some(verdict),
            None => return Err(EditError::new(Failure::SessionEnded)),
        }
        self.inner.registry.decided.notify_waiters();
        Ok(())
    }

    /// Whether any proposal of `scope` is open (without reading its files).
    pub fn has_open_reviews(&self, scope: &ReviewScope) -> bool {
        self.inner
            .registry
            .lock()
            .values()
            .any(|s| s.member_of.is_none() && scope.covers(s))
    }

    /// The open proposals in `scope` (what a review page link lists), from what their sessions
    /// hold (no file is read, no diff computed): the first ones by session path within
    /// [`MAX_LISTED_REVIEWS`] and [`MAX_LISTED_DIFF_BYTES`], each diff cut to
    /// [`MAX_LISTED_DIFF_BYTES_EACH`] (its detail, [`ReviewManager::review_detail`], has it
    /// whole). A proposal the human already decided on (verdict not yet collected) is left out.
    pub fn open_reviews(&self, scope: &ReviewScope) -> ReviewList {
        let sessions = self.inner.registry.lock();
        let mut open: Vec<&crate::session::Session> = sessions
            .values()
            .filter(|s| s.verdict.is_none() && s.member_of.is_none() && scope.covers(s))
            .collect();
        open.sort_by(|a, b| a.dir.cmp(&b.dir));
        let mut list = ReviewList::default();
        let mut bytes = 0usize;
        for s in &open {
            let room = MAX_LISTED_DIFF_BYTES
                .saturating_sub(bytes)
                .min(MAX_LISTED_DIFF_BYTES_EACH);
            // A proposal is listed with a useful part of its diff, or left for a later answer.
            if list.reviews.len() == MAX_LISTED_REVIEWS || room < s.diff.len().min(MIN_LISTED_DIFF)
            {
                break;
            }
            let diff = s.diff.head(room);
            bytes += diff.len();
            let files: Vec<String> = group_files(&sessions, s).into_iter().map(|f| f.0).collect();
            list.reviews.push(ReviewListing {
                session_path: s.dir.display().to_string(),
                path: files.join(", "),
                files,
                diff_cut: s.diff.len() - diff.len(),
                diff,
            });
        }
        list.left_out = open.len() - list.reviews.len();
        list
    }

    /// One open proposal of `scope` whole (a review page link's detail), from what its session
    /// holds: its diff and, for a one-file proposal, the proposed text to edit.
    pub fn review_detail(
        &self,
        session_path: &str,
        scope: &ReviewScope,
    ) -> Result<ReviewDetail, EditError> {
        let key = self.inner.registry.key_in_scope(session_path, scope)?;
        let (files, diff, proposed) = {
            let sessions = self.inner.registry.lock();
            let s = sessions
                .get(&key)
                .ok_or_else(|| EditError::new(Failure::SessionEnded))?;
            let files: Vec<String> = group_files(&sessions, s).into_iter().map(|f| f.0).collect();
            let proposed = s.members.is_empty().then(|| s.known_future.clone());
            (files, s.diff.clone(), proposed)
        };
        Ok(ReviewDetail {
            session_path: key.display().to_string(),
            path: files.join(", "),
            files,
            diff,
            proposed: proposed.map(|bytes| to_model(&String::from_utf8_lossy(&bytes))),
        })
    }

    /// The outcome when the proposal waits in the review page at `link`: nothing written yet.
    pub fn pending(&self, open: OpenReview, link: &str) -> ReviewOutcome {
        ReviewOutcome::new(
            Decision::Pending {
                session_path: open.session_path.clone(),
                path: open.path.clone(),
                diff: open.diff.clone(),
                link: link.to_string(),
            },
            open.notes.clone(),
        )
    }

    /// The outcome when the human gave no verdict: the review timeout passed (`timed_out`, →
    /// `TIMEOUT`) or the call was cancelled (→ `CANCELLED`). Nothing written; the session stays
    /// open.
    pub fn undecided(&self, open: OpenReview, timed_out: bool) -> ReviewOutcome {
        let why = if timed_out {
            Undecided::TimedOut(self.inner.config.review_timeout)
        } else {
            Undecided::Cancelled
        };
        ReviewOutcome::new(
            Decision::Undecided {
                session_path: open.session_path.clone(),
                path: open.path.clone(),
                why,
                editor_file: None,
            },
            open.notes.clone(),
        )
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
    ) -> Result<ReviewOutcome, EditError>
    where
        C: Future<Output = ()> + Send,
    {
        let outcome = self
            .wait(sandbox, &open.key, &open.path, &open.notes, launch, cancel)
            .await;
        drop(open);
        outcome
    }

    /// The wait of [`ReviewManager::await_editor`]: show the proposal, wait for the first of a
    /// save, a verdict, the timeout or `cancel`, and act on it.
    async fn wait<C>(
        &self,
        sandbox: &Sandbox,
        key: &Path,
        shown: &str,
        notes: &[Note],
        launch: bool,
        cancel: C,
    ) -> Result<ReviewOutcome, EditError>
    where
        C: Future<Output = ()> + Send,
    {
        let files = self.review_files(key)?;
        let session_path = key.display().to_string();
        let mut watcher =
            SaveWatcher::start(&files.future, self.inner.config.debounce).map_err(|e| {
                EditError::new(Failure::Watch {
                    file: files.future.clone(),
                    error: e.to_string(),
                })
                .with_next(NextStep::CommitAfterSave {
                    session_path: session_path.clone(),
                    path: shown.to_string(),
                })
                .with_session_path(session_path.clone())
            })?;
        let launch_note = self.show(&files, &session_path, shown, launch);
        let end = self.first_end(&mut watcher, key, &files, cancel).await;
        drop(watcher);
        let mut notes = notes.to_vec();
        notes.extend(launch_note);
        self.act_on_end(sandbox, key, shown, &files, end, notes)
            .await
    }

    /// The two files of a session and what the server knows of the proposal file.
    fn review_files(&self, key: &Path) -> Result<ReviewFiles, EditError> {
        let sessions = self.inner.registry.lock();
        let s = sessions
            .get(key)
            .ok_or_else(|| EditError::new(Failure::SessionEndedUnexpectedly))?;
        Ok(ReviewFiles {
            current: s.current.clone(),
            future: s.future.clone(),
            known_stamp: s.known_stamp,
            known_bytes: s.known_future.clone(),
        })
    }

    /// Shows the proposal to the human: launches the review command (when `launch`), logs where
    /// the review waits, and calls the waiting hook. The note for the reply when no window opened.
    fn show(
        &self,
        files: &ReviewFiles,
        session_path: &str,
        shown: &str,
        launch: bool,
    ) -> Option<Note> {
        let config = &self.inner.config;
        let command = if launch {
            config.review_command.as_deref()
        } else {
            None
        };
        let waiting = editor::show(
            command,
            config.on_waiting.as_ref(),
            session_path,
            shown,
            &files.current,
            &files.future,
        );
        match waiting.launch {
            LaunchOutcome::Launched { .. } | LaunchOutcome::Disabled => None,
            other => Some(Note::EditorNotOpened {
                launch: other,
                current: waiting.current,
                future: waiting.future,
            }),
        }
    }

    /// The first of: a save of the proposal file, a verdict posted for the session, the review
    /// timeout, `cancel`.
    async fn first_end<C>(
        &self,
        watcher: &mut SaveWatcher,
        key: &Path,
        files: &ReviewFiles,
        cancel: C,
    ) -> WaitEnd
    where
        C: Future<Output = ()> + Send,
    {
        let timeout = tokio::time::sleep(self.inner.config.review_timeout);
        tokio::pin!(timeout);
        tokio::pin!(cancel);
        tokio::select! {
            saved = watcher.next_save(files.known_stamp, &files.known_bytes) => WaitEnd::Saved(saved),
            verdict = next_verdict(&self.inner.registry, key) => WaitEnd::Decided(verdict),
            () = &mut timeout => WaitEnd::TimedOut,
            () = &mut cancel => WaitEnd::Cancelled,
        }
    }

    /// Acts on how the wait ended.
    async fn act_on_end(
        &self,
        sandbox: &Sandbox,
        key: &Path,
        shown: &str,
        files: &ReviewFiles,
        end: WaitEnd,
        notes: Vec<Note>,
    ) -> Result<ReviewOutcome, EditError> {
        let session_path = key.display().to_string();
        let undecided = |why: Undecided| {
            ReviewOutcome::new(
                Decision::Undecided {
                    session_path: session_path.clone(),
                    path: shown.to_string(),
                    why,
                    editor_file: Some(files.future.clone()),
                },
                notes.clone(),
            )
        };
        match end {
            WaitEnd::TimedOut => Ok(undecided(Undecided::TimedOut(
                self.inner.config.review_timeout,
            ))),
            WaitEnd::Cancelled => Ok(undecided(Undecided::Cancelled)),
            WaitEnd::Decided(verdict) => self.act(sandbox, key, shown, verdict, notes).await,
            WaitEnd::Saved(Err(e)) => Err(EditError::new(Failure::WatchFailed {
                file: files.future.clone(),
                path: shown.to_string(),
                error: e.to_string(),
            })
            .with_next(NextStep::CommitAfterSave {
                session_path: session_path.clone(),
                path: shown.to_string(),
            })
            .with_session_path(session_path.clone())),
            WaitEnd::Saved(Ok((bytes, stamp))) => {
                let save_inner = Arc::clone(&self.inner);
                let save_key = key.to_path_buf();
                let save_sandbox = sandbox.clone();
                let result = blocking(move || {
                    process_save(&save_inner.registry, &save_sandbox, &save_key, bytes, stamp)
                })
                .await?;
                Ok(save_outcome(result, &session_path, shown, notes, sandbox))
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
        owner: &ReviewOwner,
    ) -> Result<ReviewCommitted, EditError> {
        let inner = Arc::clone(&self.inner);
        let key = inner.registry.key_for(session_path, owner)?;
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

fn roots_changed_blocking(registry: &Registry, client: u64, sandbox: &Sandbox) -> usize {
    let files: Vec<(PathBuf, PathBuf, FileIdentity, PathBuf)> = registry
        .lock()
        .values()
        .filter(|s| !s.busy && s.owner.as_ref().and_then(|o| o.client_id()) == Some(client))
        .map(|s| {
            let leader = s.member_of.clone().unwrap_or_else(|| s.dir.clone());
            (s.dir.clone(), s.target.clone(), s.identity.clone(), leader)
        })
        .collect();
    // Looked up on disk outside the registry's lock.
    let mut outside: std::collections::BTreeMap<PathBuf, String> = Default::default();
    let mut inside = Vec::new();
    for (key, target, identity, leader) in files {
        let shown = sandbox.display(&target);
        match FileIdentity::of(sandbox, &shown) {
            Ok((now, _)) if now == identity => inside.push((key, shown)),
            _ => {
                outside.entry(leader).or_insert(shown);
            }
        }
    }
    {
        let mut sessions = registry.lock();
        for (key, shown) in inside {
            if let Some(s) = sessions.get_mut(&key) {
                s.shown = shown;
                if let Some(owner) = s.owner.as_mut() {
                    owner.set_roots(sandbox);
                }
            }
        }
    }
    outside
        .into_iter()
        .map(|(leader, file)| {
            registry.end_where(|s| s.dir == leader, EndedWhy::OutsideRoots { file })
        })
        .sum()
}

fn commit_review_blocking(
    inner: &Arc<Inner>,
    sandbox: &Sandbox,
    key: &Path,
    session_path: &str,
    original_path: &str,
) -> Result<ReviewCommitted, EditError> {
    // By handle, to check that it names the session's file; the commit itself locates the file
    // again by handles.
    let (identity, _) = FileIdentity::of(sandbox, original_path).map_err(|e| {
        EditError::access(e, AccessThen::SessionStaysOpen)
            .with_session_path(session_path.to_string())
    })?;
    let (future, known_stamp, known_future, unreviewed, proposal, style, session_identity, shown) = {
        let sessions = inner.registry.lock();
        let s = sessions
            .get(key)
            .ok_or_else(|| EditError::new(Failure::SessionEnded))?;
        if !s.members.is_empty() || s.member_of.is_some() {
            // One file of it alone would break "all or none".
            return Err(EditError::new(Failure::MultiFileCommitted {
                session_path: session_path.to_string(),
            })
            .with_next(NextStep::CollectVerdict {
                session_path: session_path.to_string(),
                path: s.shown.clone(),
            }));
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
        return Err(EditError::new(Failure::NotSessionFile {
            original_path: original_path.to_string(),
            session_path: session_path.to_string(),
            file: shown,
        }));
    }
    let (bytes, stamp) = match read_with_stamp(&future) {
        Ok(found) => found,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(EditError::new(Failure::ApprovedFileMissing {
                file: future,
            }));
        }
        Err(e) => {
            return Err(EditError::new(Failure::ReadSessionFile {
                file: future,
                error: e.into(),
            }));
        }
    };
    let changed = Some(stamp) != known_stamp || bytes != known_future;
    if !changed && unreviewed {
        return Err(EditError::new(Failure::NotReviewed {
            session_path: session_path.to_string(),
            file: future,
            original_path: original_path.to_string(),
        })
        .with_next(NextStep::AwaitReview {
            session_path: session_path.to_string(),
        }));
    }
    let text = decode_text(bytes.clone()).map_err(|error| {
        EditError::new(Failure::ReviewedNotText {
            file: future.clone(),
            error,
            stays_open: false,
        })
        .with_next(NextStep::SaveAsUtf8)
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
    Ok(ReviewCommitted {
        path: original_path.to_string(),
        cleanup_failed: info.cleanup_error.map(|e| (session_path.to_string(), e)),
        created_dirs: crate::outcome::created_dirs(&info.report, sandbox),
    })
}
