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

use crate::approval::{SaveResult, commit_session, process_save};
use crate::editor::{self, LaunchOutcome};
use crate::error::{EditError, ErrorKind};
use crate::prepare::{Prepared, prepare};
use crate::request::ProposeRequest;
use crate::response::{
    ReviewResponse, UserAction, committed_response, created_dirs_note, join_message,
    review_response,
};
use crate::session::{BusyGuard, Registry};
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

impl ReviewManager {
    /// Creates the manager and its private sessions directory.
    pub fn new(config: ReviewConfig) -> io::Result<ReviewManager> {
        let registry = Arc::new(Registry::new(config.sessions_parent.as_deref())?);
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
                Some(BusyGuard::acquire(&inner.registry, key)?)
            }
            None => None,
        };
        let continued = guard.as_ref().map(|g| g.key().to_path_buf());
        let prep_sandbox = sandbox.clone();
        let prep_inner = Arc::clone(&inner);
        let shown = request.path.clone();
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
            Prepared::Done(response) => return Ok(response),
            Prepared::Wait { key, notes } => (key, notes),
        };
        if guard.is_none() {
            guard = Some(BusyGuard::acquire(&inner.registry, key.clone())?);
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
                    process_save(&save_inner.registry, &save_sandbox, &save_key, bytes, stamp)
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
