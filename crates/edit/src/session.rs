//! Review sessions: where they live and how a client's `session_path` is admitted.
//!
//! All sessions live in one directory the server creates for itself (`fs-mcp-rs-reviews-XXXXXX`
//! under the system temp dir, mode 0700, random name), one subdirectory (mode 0700, random name)
//! per session holding `current_<name>` and `future_<name>`. A `session_path` from a client is
//! only ever looked up in the in-memory registry: it must be absolute, contain no `..`, have a
//! session's shape (`<sessions dir>/s-<32 hex>`, checked on its text before anything else) and
//! name a live session of this server. Nothing else is read, written or deleted through it, and
//! no filesystem call is made under the registry's lock. The whole directory is removed when the
//! registry is dropped.

use std::collections::HashMap;
use std::fs;
use std::hash::{DefaultHasher, Hasher};
use std::io;
use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use std::ffi::OsString;

use fs_mcp_sandbox::{AccessError, FinalLink, Sandbox};

use crate::diff::Diff;
use crate::error::{BadSessionPath, EditError, EndedWhy, Failure, Limit, NextStep};
use crate::text_style::TextStyle;
use crate::watch::FileStamp;

/// Files larger than this are not reviewed (and proposals may not grow past it).
pub const MAX_FILE_BYTES: u64 = 50 * 1024 * 1024;

/// Random bytes in a session directory's name (`s-<hex>`): a handle no other client can guess.
const SESSION_ID_BYTES: usize = 16;

/// Longest file-name part kept in `current_<name>` / `future_<name>`, in bytes.
const MAX_NAME_BYTES: usize = 200;

/// Review sessions open at once, every client together (a multi-file proposal has one a file).
pub const MAX_OPEN_REVIEWS: usize = 64;
/// Bytes the open review sessions hold in memory at most, every client together (each keeps the
/// file as proposed against, the proposal, and the proposal file's bytes; the disk holds two
/// copies more).
pub const MAX_OPEN_REVIEW_BYTES: usize = 384 * 1024 * 1024;
/// Review sessions one client session holds at most (stateless clients share one such share):
/// no client can take every review of a server shared by several.
pub const MAX_REVIEWS_PER_CLIENT: usize = 16;
/// Bytes one client session's reviews hold in memory at most (stateless clients: together).
pub const MAX_REVIEW_BYTES_PER_CLIENT: usize = 128 * 1024 * 1024;

/// A session no call has used for this long is closed (nothing written; its files removed),
/// however long the review timeout: twice the review timeout, and at least an hour.
pub fn max_idle(review_timeout: Duration) -> Duration {
    (review_timeout * 2).max(Duration::from_secs(3600))
}

/// Who may use a review session: the client session that proposed it, on the allowed
/// directories that session had. Every use of a `session_path` (a continued or collected
/// proposal, an answer to the client's form) is checked against it, so one client never reaches
/// another's review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewOwner {
    /// The client session; `None` for a stateless client (2026-07-28 over HTTP), which has no
    /// session across calls: then the unguessable session handle and the same allowed
    /// directories are what admit it.
    client: Option<u64>,
    roots: Vec<PathBuf>,
}

impl ReviewOwner {
    /// The client session `client` (unique in this process), with the sandbox it has.
    pub fn client(client: u64, sandbox: &Sandbox) -> ReviewOwner {
        ReviewOwner {
            client: Some(client),
            roots: sandbox.root_paths().to_vec(),
        }
    }

    /// A client without a session (each call on its own), with the sandbox it has.
    pub fn stateless(sandbox: &Sandbox) -> ReviewOwner {
        ReviewOwner {
            client: None,
            roots: sandbox.root_paths().to_vec(),
        }
    }

    /// Whether `caller` may use a session this owner made: the same client session (whatever
    /// its allowed directories are now: a review whose file left them ends when they change, and
    /// a commit goes only through the caller's sandbox anyway), or, for a stateless owner, a
    /// caller on the same allowed directories.
    pub(crate) fn admits(&self, caller: &ReviewOwner) -> bool {
        match self.client {
            Some(client) => caller.client == Some(client),
            None => self.roots == caller.roots,
        }
    }

    /// The client session, `None` for a stateless client.
    pub(crate) fn client_id(&self) -> Option<u64> {
        self.client
    }

    /// The allowed directories it now has (its client's roots changed).
    pub(crate) fn set_roots(&mut self, sandbox: &Sandbox) {
        self.roots = sandbox.root_paths().to_vec();
    }

    /// What a review page link of this owner's shows: its client session's reviews, or (a
    /// stateless client) the one review `key`.
    pub(crate) fn scope_for(&self, key: &Path) -> ReviewScope {
        match self.client {
            Some(client) => ReviewScope::Client(client),
            None => ReviewScope::Review(key.to_path_buf()),
        }
    }
}

/// Which open reviews a review page link shows and may decide.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ReviewScope {
    /// Every review (the playground, whose page is the one client).
    All,
    /// The reviews of one client session.
    Client(u64),
    /// One review (of a stateless client), by its session key.
    Review(PathBuf),
}

impl ReviewScope {
    pub(crate) fn covers(&self, session: &Session) -> bool {
        session
            .owner
            .as_ref()
            .is_some_and(|owner| self.covers_owner(owner, &session.dir))
    }

    /// Whether the review `key` of `owner` is in this scope.
    fn covers_owner(&self, owner: &ReviewOwner, key: &Path) -> bool {
        match self {
            ReviewScope::All => true,
            ReviewScope::Client(client) => owner.client == Some(*client),
            ReviewScope::Review(review) => review == key,
        }
    }
}

/// Content identity of the target file, to notice changes made behind the session's back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fingerprint {
    len: u64,
    hash: u64,
}

impl Fingerprint {
    pub fn of(bytes: &[u8]) -> Fingerprint {
        let mut h = DefaultHasher::new();
        h.write(bytes);
        Fingerprint {
            len: bytes.len() as u64,
            hash: h.finish(),
        }
    }
}

/// Which file a proposal is about, by handle: the device and inode of the deepest directory that
/// existed on the way when it was proposed, and the names below it. A path re-resolved later is
/// for messages only; two requests name the same file when their identities are equal. (A
/// missing directory created by someone else meanwhile makes a new file's identity differ: the
/// commit then refuses and nothing is written, the safe side.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileIdentity {
    dir: (u64, u64),
    rest: Vec<OsString>,
}

impl FileIdentity {
    /// The identity `requested` has now, through the sandbox (following a final symlink, as an
    /// edit does), and its canonical path for messages.
    pub fn of(sandbox: &Sandbox, requested: &str) -> Result<(FileIdentity, PathBuf), AccessError> {
        let located = sandbox.locate(requested, FinalLink::Follow)?;
        let meta = located.dir.meta().map_err(|error| AccessError::Io {
            requested: requested.to_string(),
            error,
        })?;
        Ok((
            FileIdentity {
                dir: (meta.dev, meta.ino),
                rest: located.rest.clone(),
            },
            located.path,
        ))
    }

    /// Whether a directory handle and the names below it are this identity.
    pub fn is(&self, dir_dev_ino: (u64, u64), rest: &[OsString]) -> bool {
        self.dir == dir_dev_ino && self.rest == rest
    }
}

/// The human's decision on a proposal, the same on every review channel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Write the proposal as it is (an optional comment goes back to the agent).
    Approve {
        /// What the human added.
        comment: Option<String>,
    },
    /// Write nothing and end the session (decline and cancel carry no comment).
    Reject {
        /// Why, in the human's words.
        comment: Option<String>,
    },
    /// The human's own version of the file (model view, LF): sent back as feedback (`REVIEW`).
    Edited(String),
}

/// One review session.
#[derive(Debug)]
pub(crate) struct Session {
    /// The session directory (canonical); the registry key.
    pub dir: PathBuf,
    pub current: PathBuf,
    pub future: PathBuf,
    /// The file under review, canonical: for messages only.
    pub target: PathBuf,
    /// The file under review, by handle: what "the same file" means.
    pub identity: FileIdentity,
    /// A decision given through the review page (or another channel) not yet acted on.
    pub verdict: Option<Verdict>,
    /// The path as the client gave it when the session started.
    pub shown: String,
    /// The target's content when the session started (`None`: it did not exist).
    pub base: Option<Fingerprint>,
    /// That content, model view ("" when it did not exist), to show what changed on a conflict.
    pub base_model: String,
    /// BOM and line endings of the target.
    pub style: TextStyle,
    /// The agent's latest proposal, model view, final newline adjusted.
    pub proposal: String,
    /// The bytes `future_` holds as far as the server knows.
    pub known_future: Vec<u8>,
    pub known_stamp: Option<FileStamp>,
    /// `future_` holds the agent's proposal and the human has not saved it since.
    pub unreviewed: bool,
    /// A call is working on this session.
    pub busy: bool,
    /// The other files' sessions of a multi-file proposal this session leads (one review, one
    /// verdict, one all-or-nothing commit).
    pub members: Vec<PathBuf>,
    /// The session leading the multi-file proposal this file belongs to (hidden from clients).
    pub member_of: Option<PathBuf>,
    /// Who may use it; `None` while it is being made (then nobody may).
    pub owner: Option<ReviewOwner>,
    /// When a call last used it (it expires after [`max_idle`] unused).
    pub last_used: Instant,
    /// The state handed to the client with its form (2026-07-28 `requestState`): a random
    /// token for this session, which the client's answer must carry back.
    pub input_state: Option<String>,
    /// Where the proposal was last put before the human (the client's form, the page's link):
    /// the session's own, so it lives and ends with it and no other client's reviews displace it.
    pub handed: Option<Handed>,
    /// The proposal's diff as last shown (a leader's: every file's), computed once when it was
    /// staged (bounded like every diff): what the review page lists, without reading the files.
    pub diff: Diff,
    /// The token a review view inside the client (MCP Apps) carries back with the human's
    /// verdict: random, for this session alone, spent by the first verdict.
    pub app_token: Option<String>,
}

/// How a proposal was last put before the human, for a later call on its session to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handed {
    /// Sent as a form the client answers in a later call (2026-07-28 `input_required`), at this
    /// instant.
    Form(Instant),
    /// The review page's link was given: the verdict is given there.
    Page,
    /// The review view was shown inside the client (MCP Apps): its verdict comes from there.
    App,
}

impl Session {
    /// Bytes this session holds in memory.
    fn bytes(&self) -> usize {
        self.base_model.len() + self.proposal.len() + self.known_future.len() + self.diff.len()
    }
}

/// The live sessions and their directory.
#[derive(Debug)]
pub(crate) struct Registry {
    root: PathBuf,
    /// How long a session may stay unused before it is closed.
    max_idle: Duration,
    /// Room admitted for sessions being made (or grown) and not yet in `sessions`; always
    /// locked after `sessions`.
    reservations: Mutex<Vec<Reserved>>,
    next_reservation: std::sync::atomic::AtomicU64,
    sessions: Mutex<HashMap<PathBuf, Session>>,
    /// Reviews ended by something other than their client's call (its session ended, its
    /// allowed directories changed), the latest [`MAX_ENDED_REMEMBERED`]: a later use of their
    /// path is told why.
    ended: Mutex<std::collections::VecDeque<Ended>>,
    /// Woken whenever a verdict is posted, so a waiting call looks at its session's mailbox.
    pub decided: tokio::sync::Notify,
}

fn private_dir(builder_prefix: &str, parent: &Path) -> io::Result<PathBuf> {
    let dir = tempfile::Builder::new()
        .prefix(builder_prefix)
        .rand_bytes(8)
        .permissions(fs::Permissions::from_mode(0o700))
        .tempdir_in(parent)?
        .keep();
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o700))?;
    fs::canonicalize(&dir)
}

impl Registry {
    /// Creates the sessions directory under `parent` (default: the system temp dir).
    pub fn new(parent: Option<&Path>, max_idle: Duration) -> io::Result<Registry> {
        let parent = parent.map_or_else(std::env::temp_dir, Path::to_path_buf);
        let root = private_dir("fs-mcp-rs-reviews-", &parent)?;
        Ok(Registry {
            root,
            max_idle,
            reservations: Mutex::new(Vec::new()),
            next_reservation: std::sync::atomic::AtomicU64::new(0),
            sessions: Mutex::new(HashMap::new()),
            ended: Mutex::new(std::collections::VecDeque::new()),
            decided: tokio::sync::Notify::new(),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn lock(&self) -> MutexGuard<'_, HashMap<PathBuf, Session>> {
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Makes room for `bytes` more in memory for `owner` (with `new_session`, for one more
    /// session): closes the sessions unused for longer than the idle limit, then refuses when the
    /// open sessions, all together or this client's, are at their count or byte bound. The room
    /// stays reserved until the returned guard drops (after the session is in the registry), so
    /// proposals made at the same time are all counted.
    pub fn admit(
        &self,
        owner: &ReviewOwner,
        bytes: usize,
        new_session: bool,
    ) -> Result<Reservation<'_>, EditError> {
        let expired: Vec<PathBuf> = self
            .lock()
            .values()
            .filter(|s| !s.busy && s.last_used.elapsed() > self.max_idle)
            .map(|s| s.dir.clone())
            .collect();
        for key in expired {
            self.remove(&key);
        }
        let sessions = self.lock();
        let mut reservations = self.reservations.lock().unwrap_or_else(|e| e.into_inner());
        let mine = |client: Option<u64>| client == owner.client;
        let count = sessions.len() + reservations.iter().filter(|r| r.session).count();
        let held = sessions.values().map(Session::bytes).sum::<usize>()
            + reservations.iter().map(|r| r.bytes).sum::<usize>();
        let my_count = sessions
            .values()
            .filter(|s| s.owner.as_ref().is_some_and(|o| mine(o.client)))
            .count()
            + reservations
                .iter()
                .filter(|r| r.session && mine(r.client))
                .count();
        let my_held = sessions
            .values()
            .filter(|s| s.owner.as_ref().is_some_and(|o| mine(o.client)))
            .map(Session::bytes)
            .sum::<usize>()
            + reservations
                .iter()
                .filter(|r| mine(r.client))
                .map(|r| r.bytes)
                .sum::<usize>();
        let idle_minutes = self.max_idle.as_secs() / 60;
        let refuse = |limit: Limit| {
            Err(EditError::new(Failure::Limit(limit))
                .with_next(NextStep::FinishOpenReviews { idle_minutes }))
        };
        if new_session && my_count >= MAX_REVIEWS_PER_CLIENT {
            return refuse(Limit::ClientReviews);
        }
        if new_session && count >= MAX_OPEN_REVIEWS {
            return refuse(Limit::ServerReviews);
        }
        if my_held.saturating_add(bytes) > MAX_REVIEW_BYTES_PER_CLIENT {
            return refuse(Limit::ClientBytes {
                needed: bytes,
                held: my_held,
            });
        }
        if held.saturating_add(bytes) > MAX_OPEN_REVIEW_BYTES {
            return refuse(Limit::ServerBytes {
                needed: bytes,
                held,
            });
        }
        let id = self
            .next_reservation
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        reservations.push(Reserved {
            id,
            client: owner.client,
            bytes,
            session: new_session,
        });
        Ok(Reservation { registry: self, id })
    }

    /// A new, empty session directory and the paths of its two files. Its name carries 128
    /// random bits from the system: a session path is a handle no other client can guess.
    pub fn new_session_dir(&self, target: &Path) -> io::Result<(PathBuf, PathBuf, PathBuf)> {
        let dir = loop {
            let dir = self
                .root
                .join(format!("s-{}", random_hex(SESSION_ID_BYTES)?));
            match fs::DirBuilder::new().mode(0o700).create(&dir) {
                Ok(()) => break dir,
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        };
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "file".into());
        let name = truncate(&name, MAX_NAME_BYTES);
        let current = dir.join(format!("current_{name}"));
        let future = dir.join(format!("future_{name}"));
        Ok((dir, current, future))
    }

    /// The registry key of a client-supplied `session_path` that `caller` may use (a proposal's
    /// own session, made by the caller's client on the same allowed directories), or why it is
    /// refused. Another client's session, or one file of a multi-file proposal, is refused as a
    /// session that is not open: a refusal tells nothing of what other clients have.
    pub fn key_for(&self, session_path: &str, caller: &ReviewOwner) -> Result<PathBuf, EditError> {
        self.key_where(session_path, |owner, _| owner.admits(caller))
    }

    /// The registry key of a `session_path` a review page link of `scope` may decide: only a
    /// proposal's own session (never one file of a multi-file proposal), of that scope.
    pub fn key_in_scope(
        &self,
        session_path: &str,
        scope: &ReviewScope,
    ) -> Result<PathBuf, EditError> {
        self.key_where(session_path, |owner, key| scope.covers_owner(owner, key))
    }

    /// The key of `session_path` when it names a proposal's own session that is `usable`.
    fn key_where(
        &self,
        session_path: &str,
        usable: impl Fn(&ReviewOwner, &Path) -> bool,
    ) -> Result<PathBuf, EditError> {
        let key = self.key_of(session_path)?;
        let open = self.lock().get(&key).is_some_and(|s| {
            s.member_of.is_none() && s.owner.as_ref().is_some_and(|o| usable(o, &s.dir))
        });
        if open {
            return Ok(key);
        }
        let ended = self.ended_list();
        match ended
            .iter()
            .rev()
            .find(|e| e.key == key && usable(&e.owner, &e.key))
        {
            Some(e) => Err(EditError::new(Failure::SessionClosed {
                session_path: session_path.to_string(),
                why: e.why.clone(),
            })
            .with_next(NextStep::ProposeWithoutSession)),
            None => Err(not_open(session_path)),
        }
    }

    fn ended_list(&self) -> MutexGuard<'_, std::collections::VecDeque<Ended>> {
        self.ended.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Ends the proposals (their leaders and members) whose leader `ends`, as if cancelled:
    /// nothing written, files removed, a later use of their path told `why`. Returns how many.
    pub fn end_where(&self, ends: impl Fn(&Session) -> bool, why: EndedWhy) -> usize {
        let doomed: Vec<(PathBuf, Vec<PathBuf>, ReviewOwner)> = self
            .lock()
            .values()
            .filter(|s| s.member_of.is_none() && ends(s))
            .filter_map(|s| {
                let owner = s.owner.clone()?;
                Some((s.dir.clone(), s.members.clone(), owner))
            })
            .collect();
        for (key, members, owner) in &doomed {
            {
                let mut ended = self.ended_list();
                if ended.len() >= MAX_ENDED_REMEMBERED {
                    ended.pop_front();
                }
                ended.push_back(Ended {
                    key: key.clone(),
                    owner: owner.clone(),
                    why: why.clone(),
                });
            }
            for dir in members.iter().chain(std::iter::once(key)) {
                if let Some(e) = self.remove(dir) {
                    tracing::warn!("could not remove the ended review {}: {e}", dir.display());
                }
            }
        }
        doomed.len()
    }

    /// The session a form's `requestState` names, for `caller`.
    pub fn key_of_input_state(
        &self,
        state: &str,
        caller: &ReviewOwner,
    ) -> Result<PathBuf, EditError> {
        let sessions = self.lock();
        let found = sessions.values().find(|s| {
            s.input_state
                .as_deref()
                .is_some_and(|mine| same_secret(mine.as_bytes(), state.as_bytes()))
        });
        match found {
            Some(s)
                if s.member_of.is_none() && s.owner.as_ref().is_some_and(|o| o.admits(caller)) =>
            {
                Ok(s.dir.clone())
            }
            _ => Err(EditError::new(Failure::UnknownFormState)
                .with_next(NextStep::ProposeWithoutSession)),
        }
    }

    /// Posts `verdict` for the session whose view token is `token`, once, for `caller` alone:
    /// the token is spent, and a session already decided takes no second verdict. A path, a
    /// spent or forged token, or another client's, names nothing.
    pub fn post_app_verdict(
        &self,
        token: &str,
        caller: &ReviewOwner,
        verdict: Verdict,
    ) -> Result<PathBuf, EditError> {
        let mut sessions = self.lock();
        let found = sessions.values_mut().find(|s| {
            s.app_token
                .as_deref()
                .is_some_and(|mine| same_secret(mine.as_bytes(), token.as_bytes()))
        });
        match found {
            Some(s)
                if s.member_of.is_none()
                    && s.verdict.is_none()
                    && s.owner.as_ref().is_some_and(|o| o.admits(caller)) =>
            {
                if matches!(verdict, Verdict::Edited(_)) && !s.members.is_empty() {
                    return Err(EditError::new(Failure::MultiFileEditedInView));
                }
                s.app_token = None;
                s.verdict = Some(verdict);
                let key = s.dir.clone();
                drop(sessions);
                self.decided.notify_waiters();
                Ok(key)
            }
            _ => Err(EditError::new(Failure::UnknownVerdictToken)),
        }
    }

    /// The key `session_path` names, open or not, whoever owns it (for the checks above).
    fn key_of(&self, session_path: &str) -> Result<PathBuf, EditError> {
        let refuse = |why: BadSessionPath| {
            EditError::new(Failure::BadSessionPath {
                session_path: session_path.to_string(),
                why,
            })
            .with_next(NextStep::UseReturnedSessionPath)
        };
        let p = Path::new(session_path);
        if !p.is_absolute() {
            return Err(refuse(BadSessionPath::NotAbsolute));
        }
        if p.components().any(|c| matches!(c, Component::ParentDir)) {
            return Err(refuse(BadSessionPath::ParentDir));
        }
        // Decided on the text, without the lock: a path of another shape names no session and
        // is never looked at on disk (a FUSE mount, a FIFO or a long symlink chain would stall).
        self.key_shaped(p).ok_or_else(|| not_open(session_path))
    }

    /// The registry key `path` names when it has a session's shape, `<sessions root>/s-<32 hex>`
    /// (the sessions directory as this server names it: a session path is handed out canonical),
    /// decided on the text alone: nothing is resolved on disk.
    fn key_shaped(&self, path: &Path) -> Option<PathBuf> {
        let name = path.file_name()?.to_str()?;
        let hex = name.strip_prefix("s-")?;
        let is_hex = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
        if hex.len() != SESSION_ID_BYTES * 2 || !hex.bytes().all(is_hex) {
            return None;
        }
        (path.parent()? == self.root).then(|| self.root.join(name))
    }

    /// Removes a multi-file proposal's sessions (the leader's and its members'); the error text
    /// if a directory could not be removed.
    pub fn remove_group(&self, leader: &Path) -> Option<String> {
        let members = self
            .lock()
            .get(leader)
            .map(|s| s.members.clone())
            .unwrap_or_default();
        let mut error = None;
        for member in members {
            error = error.or(self.remove(&member));
        }
        self.remove(leader).or(error)
    }

    /// Removes a session and its directory; the error text if the directory could not be removed.
    pub fn remove(&self, key: &Path) -> Option<String> {
        let removed = self.lock().remove(key);
        let dir = removed.map_or_else(|| key.to_path_buf(), |s| s.dir);
        // Only ever delete directories inside our own root.
        if dir.parent() != Some(self.root.as_path()) {
            return None;
        }
        match fs::remove_dir_all(&dir) {
            Ok(()) => None,
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => Some(e.to_string()),
        }
    }
}

impl Drop for Registry {
    fn drop(&mut self) {
        if let Err(e) = fs::remove_dir_all(&self.root)
            && e.kind() != io::ErrorKind::NotFound
        {
            tracing::warn!(
                "could not remove the review sessions directory {}: {e}",
                self.root.display()
            );
        }
    }
}

/// Ended reviews remembered, to say why when their path comes back (only words depend on it).
const MAX_ENDED_REMEMBERED: usize = 256;

/// A review ended without its client's call.
#[derive(Debug)]
struct Ended {
    key: PathBuf,
    owner: ReviewOwner,
    why: EndedWhy,
}

/// Room [`Registry::admit`] gave and nobody has taken yet.
#[derive(Debug)]
struct Reserved {
    id: u64,
    client: Option<u64>,
    bytes: usize,
    session: bool,
}

/// Admitted room, held until dropped.
pub(crate) struct Reservation<'r> {
    registry: &'r Registry,
    id: u64,
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        self.registry
            .reservations
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|r| r.id != self.id);
    }
}

/// Marks a session busy for as long as it lives (also when the future holding it is dropped).
pub(crate) struct BusyGuard {
    registry: Arc<Registry>,
    key: PathBuf,
}

impl BusyGuard {
    /// Marks `key` busy, or says why it cannot be used now.
    pub fn acquire(registry: &Arc<Registry>, key: PathBuf) -> Result<BusyGuard, EditError> {
        let mut sessions = registry.lock();
        let Some(session) = sessions.get_mut(&key) else {
            return Err(EditError::new(Failure::SessionGone {
                session_path: key.display().to_string(),
            }));
        };
        if session.busy {
            return Err(EditError::new(Failure::SessionBusy {
                session_path: key.display().to_string(),
            })
            .with_next(NextStep::WaitForOtherCall));
        }
        session.busy = true;
        session.last_used = Instant::now();
        drop(sessions);
        Ok(BusyGuard {
            registry: Arc::clone(registry),
            key,
        })
    }

    pub fn key(&self) -> &Path {
        &self.key
    }
}

impl Drop for BusyGuard {
    fn drop(&mut self) {
        if let Some(s) = self.registry.lock().get_mut(&self.key) {
            s.busy = false;
            s.last_used = Instant::now();
        }
    }
}

/// The refusal of a `session_path` that names no open session this caller may use.
fn not_open(session_path: &str) -> EditError {
    EditError::new(Failure::BadSessionPath {
        session_path: session_path.to_string(),
        why: BadSessionPath::NotOpen,
    })
    .with_next(NextStep::UseReturnedSessionPath)
}

/// `bytes` random bytes from the system, as hex.
pub(crate) fn random_hex(bytes: usize) -> io::Result<String> {
    use std::io::Read;
    let mut raw = vec![0u8; bytes];
    fs::File::open("/dev/urandom")?.read_exact(&mut raw)?;
    Ok(raw.iter().map(|b| format!("{b:02x}")).collect())
}

/// Compares two secrets in time independent of where they differ.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Shortens a file name to `max` bytes, keeping a short extension (for syntax highlighting).
fn truncate(name: &str, max: usize) -> String {
    if name.len() <= max {
        return name.to_string();
    }
    let ext = Path::new(name)
        .extension()
        .and_then(|e| e.to_str())
        .filter(|e| e.len() <= 16)
        .unwrap_or("");
    let mut end = if ext.is_empty() {
        max
    } else {
        max - ext.len() - 1
    };
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    if ext.is_empty() {
        name[..end].to_string()
    } else {
        format!("{}.{ext}", &name[..end])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    fn registry() -> (tempfile::TempDir, Arc<Registry>) {
        let parent = tempfile::tempdir().unwrap();
        let registry = Registry::new(Some(parent.path()), Duration::from_secs(3600)).unwrap();
        (parent, Arc::new(registry))
    }

    /// A session of `owner` in the registry, as a proposal makes one.
    fn insert(registry: &Registry, owner: ReviewOwner) -> PathBuf {
        let (dir, current, future) = registry.new_session_dir(Path::new("f.txt")).unwrap();
        let session = Session {
            dir: dir.clone(),
            current,
            future,
            target: PathBuf::from("/nowhere/f.txt"),
            identity: FileIdentity {
                dir: (0, 0),
                rest: Vec::new(),
            },
            verdict: None,
            shown: "f.txt".into(),
            base: None,
            base_model: String::new(),
            style: TextStyle::default(),
            proposal: String::new(),
            known_future: Vec::new(),
            known_stamp: None,
            unreviewed: true,
            busy: false,
            members: Vec::new(),
            member_of: None,
            owner: Some(owner),
            last_used: Instant::now(),
            input_state: None,
            handed: None,
            diff: Diff::default(),
            app_token: None,
        };
        registry.lock().insert(dir.clone(), session);
        dir
    }

    /// `key_for` on another thread, answered within a few seconds (`None`: it hung).
    fn key_for_soon(
        registry: &Arc<Registry>,
        path: &str,
        owner: &ReviewOwner,
    ) -> Option<Result<PathBuf, EditError>> {
        let (tx, rx) = mpsc::channel();
        let (registry, path, owner) = (Arc::clone(registry), path.to_string(), owner.clone());
        std::thread::spawn(move || {
            let _ = tx.send(registry.key_for(&path, &owner));
        });
        rx.recv_timeout(Duration::from_secs(3)).ok()
    }

    /// A client-given path that has not a session's shape is refused on its text: it takes no
    /// lock (another call holding the registry does not hold it up) and is never resolved on
    /// disk (a FIFO, a FUSE mount or a symlink chain cannot stall the registry).
    #[test]
    fn a_session_path_of_another_shape_is_refused_without_the_lock() {
        let (parent, registry) = registry();
        let sandbox_dir = tempfile::tempdir().unwrap();
        let (sandbox, _) = Sandbox::new(&[sandbox_dir.path().to_path_buf()]).unwrap();
        let owner = ReviewOwner::client(1, &sandbox);
        let key = insert(&registry, owner.clone());
        let fifo = parent.path().join("fifo");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let root = registry.root().display().to_string();
        let held = registry.lock();
        for path in [
            fifo.display().to_string(),
            format!("{}/s-{}", fifo.display(), "a".repeat(32)),
            format!("{root}/s-{}", "A".repeat(32)),
            format!("{root}/s-short"),
            format!("{root}/current_f.txt"),
            format!("{}/x", key.display()),
            "/proc/self/fd/0".to_string(),
        ] {
            let answer = key_for_soon(&registry, &path, &owner)
                .unwrap_or_else(|| panic!("{path}: waited for the registry lock"));
            let err = answer.unwrap_err();
            assert!(
                matches!(
                    err.failure(),
                    Failure::BadSessionPath {
                        why: BadSessionPath::NotOpen,
                        ..
                    }
                ),
                "{path}: {err}"
            );
        }
        drop(held);
        assert_eq!(
            key_for_soon(&registry, &key.display().to_string(), &owner)
                .unwrap()
                .unwrap(),
            key
        );
    }

    /// A review ended without its client's call says why when its path comes back, to its own
    /// client and page link only.
    #[test]
    fn an_ended_review_says_why() {
        let (_parent, registry) = registry();
        let sandbox_dir = tempfile::tempdir().unwrap();
        let (sandbox, _) = Sandbox::new(&[sandbox_dir.path().to_path_buf()]).unwrap();
        let owner = ReviewOwner::client(1, &sandbox);
        let key = insert(&registry, owner.clone());
        assert_eq!(registry.end_where(|_| true, EndedWhy::ClientGone), 1);
        assert!(!key.exists());
        let path = key.display().to_string();
        let ended = |err: EditError| {
            matches!(
                err.failure(),
                Failure::SessionClosed {
                    session_path,
                    why: EndedWhy::ClientGone,
                } if *session_path == path
            )
        };
        assert!(ended(registry.key_for(&path, &owner).unwrap_err()));
        assert!(ended(
            registry
                .key_in_scope(&path, &ReviewScope::Client(1))
                .unwrap_err()
        ));
        let other = ReviewOwner::client(2, &sandbox);
        let err = registry.key_for(&path, &other).unwrap_err();
        assert!(
            matches!(
                err.failure(),
                Failure::BadSessionPath {
                    why: BadSessionPath::NotOpen,
                    ..
                }
            ),
            "{err}"
        );
    }

    /// The exact path in other spellings of the same text (`a/./b//`) is found; through a
    /// symlinked parent it is not (nothing is resolved on disk: a session path is handed out
    /// canonical, and a client echoes it).
    #[test]
    fn a_session_path_is_matched_on_its_text() {
        let (parent, registry) = registry();
        let sandbox_dir = tempfile::tempdir().unwrap();
        let (sandbox, _) = Sandbox::new(&[sandbox_dir.path().to_path_buf()]).unwrap();
        let owner = ReviewOwner::client(1, &sandbox);
        let key = insert(&registry, owner.clone());
        let name = key.file_name().unwrap().to_str().unwrap();
        for path in [
            key.display().to_string(),
            format!("{}/./{name}/", registry.root().display()),
            format!("{}//{name}", registry.root().display()),
        ] {
            assert_eq!(registry.key_for(&path, &owner).unwrap(), key, "{path}");
        }
        let link = parent.path().join("link");
        std::os::unix::fs::symlink(registry.root(), &link).unwrap();
        assert!(
            registry
                .key_for(&link.join(name).display().to_string(), &owner)
                .is_err()
        );
    }
}
