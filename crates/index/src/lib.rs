//! An index of the text files of a sandbox's allowed directories, telling `grep_content` which
//! files may match a regex, so that a repeated search opens only those, and `search_files` what
//! its walk would list, so that a repeated listing does not walk. The crate knows nothing of
//! MCP: it gives a [`CandidatePlan`](fs_mcp_search::CandidatePlan) that
//! [`fs_mcp_search::grep_content`] takes in its control, and an
//! [`IndexedListing`](fs_mcp_search::IndexedListing) that [`fs_mcp_search::find_files_with`]
//! takes ([`Index::listing`]).
//!
//! # What it holds
//!
//! Per allowed directory, the outcome of the walk `grep_content` does with its default options
//! (the same walker and ignore rules, [`fs_mcp_search::walk_default`]): which regular files it
//! visits (and by name, the symlinks, FIFOs and sockets it passes), which entries it skips as
//! hidden, ignored or VCS directories (for the notes and `search_files`' counts), and, per
//! visited file, a Bloom filter of the file's lowercased trigrams (half a byte to a byte per
//! distinct trigram, so at most about the file's size). Files are read by handle through the sandbox as the search
//! reads them. A binary file (a NUL byte), one over 8 MiB, one that could not be read, one with a
//! UTF-16 byte order mark (the search transcodes it, so its raw bytes say nothing of what is
//! matched) and one with several hard links (it may be written through a name nobody watches;
//! see below) is always a candidate. The names of hidden and ignored entries kept for the notes
//! count toward the cap too.
//! The whole index is capped ([`IndexConfig::max_bytes`]); past the cap searches scan and the
//! log says why.
//!
//! A regex's requirement comes from `regex-syntax`'s HIR ([`Required`]); a regex that requires
//! nothing checkable (`.`, `\w+`) makes every file a candidate. A file is left out only when its
//! filter proves it lacks a required string, so the candidates are a superset of the files with
//! a match, and the search, which still opens and reads every candidate as a scan does, answers
//! what a scan answers: the same matches, counts (the files left out are counted as searched),
//! notes and caps.
//!
//! # Never stale
//!
//! The index is kept fresh by an inotify instance watching every directory the walk enters,
//! plus `.git` and `.git/info` of repositories (their exclude rules), and the rules the walk
//! reads off its own entries: every link of an ignore file that is a symlink, and the git
//! directory, `commondir` and `info/exclude` a `.git` file or symlink leads to (submodules,
//! worktrees). The walker lists a directory just before it reports it (and the index watches
//! it), so once every directory is watched, each is listed again by handle and the entries that
//! differ are applied as changes: an entry created or removed before that second listing is in
//! it, one after it is reported. A file's content is read after its directory is watched, so a
//! later write is reported. Allowed directories may nest; a change updates the index of each. A
//! change to a file's content, a create, delete or rename updates that entry, read again by handle; a change
//! to a directory the walk enters, to an ignore file, or a new directory, rebuilds the index in
//! the background, and searches scan meanwhile.
//!
//! The hard part is the event of a write that completed before a search arrived but that the
//! reader thread has not handled yet. Before an index answers, [`Index::plan`] creates a marker
//! file in a private directory watched by the *same* inotify instance and waits for its event:
//!
//! 1. The kernel queues an inotify event synchronously, inside the system call that makes the
//!    change (`write`, `rename`, `unlink`, …), before that call returns; a write that completed
//!    before the search arrived therefore has its event queued before the marker's creation,
//!    which happens later.
//! 2. One instance's events are read in queue order, and the reader applies each batch, in
//!    order, under the index's lock before it records a marker as seen.
//! 3. So once the marker is seen, every earlier change has been applied, and the index reflects
//!    each changed path as read after its change.
//!
//! If the marker does not arrive within [`IndexConfig::sync_timeout`] (the reader is behind),
//! the search scans. If the queue overflows (`IN_Q_OVERFLOW`), a watch cannot be added (the
//! inotify watch limit) or reading events fails, the index is rebuilt (or, past a failure, left
//! unusable for a while) and searches scan until it is ready. Changes inotify does not report
//! are not seen: don't use `--index` where they happen:
//!
//! * writes through a shared `mmap`; other machines writing to a network file system (NFS,
//!   SMB); the host writing to a virtual machine's or container's shared folder (virtiofs, 9p,
//!   WSL's `/mnt/c`), or a FUSE file system's own backend;
//! * writes through a hard link made *after* the build in a directory the index does not watch
//!   (outside the allowed directories, or an ignored or hidden one): inotify reports a write only
//!   to the watch of the directory of the name written through, and `link(2)` reports nothing
//!   to the directories of the other names. A file that already has several names when it is
//!   read is always a candidate, and a new name in a watched directory makes every name of the
//!   file one, so only links made afterwards from unwatched places go unseen;
//! * writes through an `O_TMPFILE` descriptor opened in such a directory after `linkat(2)`
//!   gave the file a name in the tree (opened in a watched directory, they are seen);
//! * a change to a symlink to a directory in the middle of an ignore file's target path, or the
//!   creation of the git directory a `.git` file points to when it did not exist yet.
//!
//! # Safety
//!
//! The index only tells which files need not be opened. Every file the search reads is opened
//! by handle beneath an allowed directory with no symlink at any component, as in a scan; a
//! directory swapped for a symlink is a change to a walked directory (a rebuild), and a path the
//! index still names opens to nothing outside.

mod grams;
mod query;
mod store;
#[cfg(target_os = "linux")]
mod watch;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use fs_mcp_sandbox::{EntryKind, FinalLink, Sandbox};
use fs_mcp_search::{CandidatePlan, IndexedListing};

pub use query::Required;
use store::{RootIndex, Unusable, Update};

/// Settings of an [`Index`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexConfig {
    /// Cap on the index's memory, in bytes; past it searches scan.
    pub max_bytes: usize,
    /// How long a search waits for the watcher to catch up before it scans.
    pub sync_timeout: Duration,
    /// Threads of a build (0: the machine's parallelism, at most 8).
    pub threads: usize,
}

impl IndexConfig {
    /// [`IndexConfig::max_bytes`] by default: 1 GiB.
    pub const DEFAULT_MAX_BYTES: usize = 1 << 30;
    /// Wait after an unusable build before trying again: a cap or a watch limit does not go
    /// away soon.
    const RETRY_AFTER: Duration = Duration::from_secs(60);
    /// How long searches scan before an allowed directory on a file system whose changes
    /// inotify does not report is looked at again (a mount may change, rarely).
    const RETRY_UNREPORTED_AFTER: Duration = Duration::from_secs(60 * 60);
    /// Wait after a build the walk could not finish (a directory vanished while it was listed).
    const RETRY_WALK_AFTER: Duration = Duration::from_secs(2);
}

impl Default for IndexConfig {
    fn default() -> Self {
        IndexConfig {
            max_bytes: Self::DEFAULT_MAX_BYTES,
            sync_timeout: Duration::from_millis(250),
            threads: 0,
        }
    }
}

/// What an index is doing, for logs and benchmarks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// Not built yet ([`Index::start`] builds it).
    Idle,
    /// Being built; searches scan.
    Building,
    /// In use.
    Ready {
        /// Files indexed.
        files: usize,
        /// Bytes of text indexed.
        text_bytes: u64,
        /// Memory the index takes.
        index_bytes: usize,
        /// How long the last build took.
        build_time: Duration,
    },
    /// Not usable (the reason); searches scan.
    Unusable(String),
}

/// The index of one set of allowed directories (a sandbox); see the crate docs.
pub struct Index {
    shared: Arc<Shared>,
}

struct Shared {
    sandbox: Sandbox,
    config: IndexConfig,
    /// Private directory of the sync markers.
    markers: tempfile::TempDir,
    next_marker: AtomicU64,
    state: Mutex<State>,
    /// Signalled when a marker is seen or the phase changes.
    changed: Condvar,
}

struct State {
    /// Bumped by every build; events of an older build's watcher are dropped.
    generation: u64,
    phase: Phase,
    /// Highest marker the current generation's watcher delivered.
    seen_marker: u64,
    #[cfg(target_os = "linux")]
    watcher: Option<watch::Watcher>,
}

enum Phase {
    Idle,
    Building {
        /// Paths changed while building, applied once built.
        pending: Vec<PathBuf>,
    },
    Ready {
        roots: Vec<RootIndex>,
        build_time: Duration,
    },
    Unusable {
        why: String,
        /// When a search may start a build again.
        retry_at: Instant,
    },
}

/// Pending changes kept during a build; past it the build starts over when done.
const MAX_PENDING: usize = 100_000;

impl Index {
    /// An index of `sandbox`'s allowed directories (not built yet).
    pub fn new(sandbox: &Sandbox, config: IndexConfig) -> std::io::Result<Index> {
        let markers = tempfile::Builder::new().prefix("fs-mcp-index-").tempdir()?;
        Ok(Index {
            shared: Arc::new(Shared {
                sandbox: sandbox.clone(),
                config,
                markers,
                next_marker: AtomicU64::new(0),
                state: Mutex::new(State {
                    generation: 0,
                    phase: Phase::Idle,
                    seen_marker: 0,
                    #[cfg(target_os = "linux")]
                    watcher: None,
                }),
                changed: Condvar::new(),
            }),
        })
    }

    /// The allowed directories this index is of.
    pub fn roots(&self) -> &[PathBuf] {
        self.shared.sandbox.root_paths()
    }

    /// Starts building in the background if not built or building yet.
    pub fn start(&self) {
        let mut state = self.shared.lock();
        if matches!(state.phase, Phase::Idle) {
            Shared::rebuild(&self.shared, &mut state, "first use");
        }
    }

    /// What the index is doing.
    pub fn status(&self) -> Status {
        let state = self.shared.lock();
        match &state.phase {
            Phase::Idle => Status::Idle,
            Phase::Building { .. } => Status::Building,
            Phase::Ready { roots, build_time } => Status::Ready {
                files: roots.iter().map(RootIndex::file_count).sum(),
                text_bytes: roots.iter().map(RootIndex::text_bytes).sum(),
                index_bytes: roots.iter().map(RootIndex::bytes).sum(),
                build_time: *build_time,
            },
            Phase::Unusable { why, .. } => Status::Unusable(why.clone()),
        }
    }

    /// Waits up to `limit` for the index to be ready (or unusable); the status then.
    pub fn wait_ready(&self, limit: Duration) -> Status {
        let deadline = Instant::now() + limit;
        let mut state = self.shared.lock();
        while matches!(state.phase, Phase::Building { .. } | Phase::Idle) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            state = self
                .shared
                .changed
                .wait_timeout(state, left)
                .map(|(s, _)| s)
                .unwrap_or_else(|e| e.into_inner().0);
        }
        drop(state);
        self.status()
    }

    /// The plan for a `grep_content` search of `search_path` for `pattern`, or `None` when the
    /// search must scan: hidden or ignored files asked for, the index not built ([`Index::start`]
    /// builds it; the caller starts it after its first search, so that search runs alone),
    /// building, behind, unusable, or not covering the directory. It never waits for a build.
    pub fn plan(
        &self,
        search_path: &str,
        pattern: &str,
        case_insensitive: bool,
        include_hidden: bool,
        include_ignored: bool,
    ) -> Option<CandidatePlan> {
        if include_hidden || include_ignored {
            return None;
        }
        let located = self
            .shared
            .sandbox
            .locate(search_path, FinalLink::Follow)
            .ok()?;
        if located.meta.map(|m| m.kind) != Some(EntryKind::Dir) {
            return None;
        }
        let required = Required::of(pattern, case_insensitive);
        let plan = self.with_root(&located.path, |index| index.plan(&located.path, &required));
        if let Some(plan) = &plan {
            tracing::debug!(
                "index: {} candidate files of {} for {pattern:?}",
                plan.candidates.len(),
                plan.candidates.len() as u64 + plan.excluded
            );
        }
        plan
    }

    /// The listing a `search_files` search of `root` (canonical) with its default options does
    /// (hidden and ignored entries left out), the listed entries filtered by `wanted`, or
    /// `None` when the search must walk: for the same reasons as [`Index::plan`].
    pub fn listing(&self, root: &Path, wanted: &dyn Fn(&Path) -> bool) -> Option<IndexedListing> {
        let listing = self.with_root(root, |index| index.listing(root, wanted));
        if let Some(listing) = &listing {
            tracing::debug!(
                "index: {} listed entries and {} left out for search_files",
                listing.listed.len(),
                listing.left_out.len()
            );
        }
        listing
    }

    /// `answer` of the index of the allowed directory holding `dir` (canonical), once every
    /// change made before now is applied; `None` when the index cannot tell (see
    /// [`Index::plan`]).
    fn with_root<T>(&self, dir: &Path, answer: impl FnOnce(&RootIndex) -> Option<T>) -> Option<T> {
        let shared = &self.shared;
        let generation = {
            let mut state = shared.lock();
            match &state.phase {
                Phase::Ready { .. } => state.generation,
                // Built once asked ([`Index::start`]), so the first search runs alone.
                Phase::Idle => return None,
                Phase::Unusable { retry_at, .. } if Instant::now() >= *retry_at => {
                    Shared::rebuild(shared, &mut state, "retry");
                    return None;
                }
                _ => return None,
            }
        };
        let state = shared.sync(generation)?;
        let Phase::Ready { roots, .. } = &state.phase else {
            return None;
        };
        let base = shared.sandbox.root_of(dir)?;
        let index = roots.iter().find(|r| r.root() == base)?;
        answer(index)
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Proves every change made before now has been applied (see the crate docs): the state,
    /// locked, if so within the timeout and still of `generation`.
    fn sync(&self, generation: u64) -> Option<MutexGuard<'_, State>> {
        let n = self.next_marker.fetch_add(1, Ordering::Relaxed) + 1;
        #[cfg(target_os = "linux")]
        let marker = self.markers.path().join(watch::marker_name(n));
        #[cfg(not(target_os = "linux"))]
        let marker = self.markers.path().join(format!("sync-{n}"));
        if let Err(e) = std::fs::File::create(&marker) {
            tracing::warn!("index: could not create its sync marker ({e}); searches scan");
            return None;
        }
        let deadline = Instant::now() + self.config.sync_timeout;
        let mut state = self.lock();
        while state.generation == generation && state.seen_marker < n {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            state = self
                .changed
                .wait_timeout(state, left)
                .map(|(s, _)| s)
                .unwrap_or_else(|e| e.into_inner().0);
        }
        let _ = std::fs::remove_file(&marker);
        if state.generation == generation && state.seen_marker >= n {
            Some(state)
        } else {
            tracing::debug!("index: the watcher is behind or rebuilding; this search scans");
            None
        }
    }

    /// Starts a build in the background (a new generation); searches scan until it is ready.
    fn rebuild(shared: &Arc<Shared>, state: &mut State, why: &str) {
        tracing::info!("index: building ({why})");
        state.generation += 1;
        state.phase = Phase::Building {
            pending: Vec::new(),
        };
        #[cfg(target_os = "linux")]
        drop(state.watcher.take());
        let generation = state.generation;
        let weak = Arc::downgrade(shared);
        let spawned = std::thread::Builder::new()
            .name("fs-mcp-index-build".into())
            .spawn(move || build(weak, generation));
        if let Err(e) = spawned {
            state.phase = Phase::Unusable {
                why: format!("could not start a build thread: {e}"),
                retry_at: Instant::now() + IndexConfig::RETRY_AFTER,
            };
        }
        shared.changed.notify_all();
    }

    /// Applies a batch of changes from the watcher of `generation`; false once that watcher is
    /// no longer the current one.
    #[cfg(target_os = "linux")]
    fn on_changes(shared: &Arc<Shared>, generation: u64, changes: Vec<watch::Change>) -> bool {
        let mut state = shared.lock();
        if state.generation != generation {
            return false;
        }
        let markers = shared.markers.path();
        for change in changes {
            let path = match change {
                watch::Change::Overflow => {
                    Shared::rebuild(shared, &mut state, "the watcher's queue overflowed");
                    return false;
                }
                watch::Change::Path(path) => path,
            };
            if path.parent() == Some(markers) {
                if let Some(n) = watch::marker_number(path.file_name()) {
                    state.seen_marker = state.seen_marker.max(n);
                    shared.changed.notify_all();
                }
                continue;
            }
            match &mut state.phase {
                Phase::Building { pending, .. } => {
                    if pending.len() < MAX_PENDING {
                        pending.push(path);
                    } else {
                        Shared::rebuild(shared, &mut state, "too many changes while building");
                        return false;
                    }
                }
                Phase::Ready { roots, .. } => {
                    if let Update::Rebuild(why) =
                        apply(&shared.sandbox, roots, &path, shared.config.max_bytes)
                    {
                        Shared::rebuild(shared, &mut state, why);
                        return false;
                    }
                }
                Phase::Idle | Phase::Unusable { .. } => {}
            }
        }
        true
    }
}

/// Applies a change of `path` to the index of every allowed directory it lies in (allowed
/// directories may nest: each index holds the entries below the inner one).
fn apply(sandbox: &Sandbox, roots: &mut [RootIndex], path: &Path, cap: usize) -> Update {
    if roots.iter().any(|r| r.is_rule_source(path)) {
        return Update::Rebuild("ignore rules read through a symlink or a .git file changed");
    }
    let mut total: usize = roots.iter().map(RootIndex::bytes).sum();
    for index in roots.iter_mut().filter(|r| path.starts_with(r.root())) {
        let before = index.bytes();
        let room = cap.saturating_sub(total - before);
        if let Update::Rebuild(why) = index.update(sandbox, path, room) {
            return Update::Rebuild(why);
        }
        total = total - before + index.bytes();
    }
    Update::Done
}

/// The file systems (by `statfs(2)` magic number) whose changes inotify does not report: other
/// machines (NFS, SMB, Ceph, AFS), the host of a VM or WSL (9p, virtiofs, which is FUSE) or a
/// FUSE daemon write to them behind the kernel's back. No index is built there: searches scan.
#[cfg(target_os = "linux")]
fn unreported_file_system(magic: u32) -> Option<&'static str> {
    match magic {
        0x6969 => Some("NFS"),
        0x517B => Some("SMB"),
        0xFF53_4D42 => Some("CIFS"),
        0xFE53_4D42 => Some("SMB2"),
        0x0102_1997 => Some("9p"),
        0x6573_5546 => Some("FUSE (virtiofs, sshfs, …)"),
        0x00C3_6400 => Some("Ceph"),
        0x5346_414F => Some("AFS"),
        0x0BD0_0BD0 => Some("Lustre"),
        _ => None,
    }
}

/// Builds generation `generation` and installs it unless a newer one started meanwhile.
#[cfg(target_os = "linux")]
fn build(weak: Weak<Shared>, generation: u64) {
    let Some(shared) = weak.upgrade() else {
        return;
    };
    let started = Instant::now();
    let built = build_roots(&shared, generation);
    let mut state = shared.lock();
    if state.generation != generation {
        return;
    }
    match built {
        Ok((roots, watcher)) => {
            let Phase::Building { pending, .. } = std::mem::replace(
                &mut state.phase,
                Phase::Ready {
                    roots,
                    build_time: started.elapsed(),
                },
            ) else {
                return;
            };
            state.watcher = Some(watcher);
            if let Phase::Ready { roots, build_time } = &mut state.phase {
                let files: usize = roots.iter().map(RootIndex::file_count).sum();
                let text: u64 = roots.iter().map(RootIndex::text_bytes).sum();
                let bytes: usize = roots.iter().map(RootIndex::bytes).sum();
                tracing::info!(
                    "index: ready in {} ms: {files} files, {text} bytes of text in {bytes} bytes",
                    build_time.as_millis(),
                );
                // Entries the walk listed before their directory was watched, then the changes
                // reported while building.
                let mut missed = Vec::new();
                for index in roots.iter() {
                    match index.unlisted_changes(&shared.sandbox) {
                        Ok(paths) => missed.extend(paths),
                        Err(Update::Rebuild(why)) => {
                            missed.clear();
                            Shared::rebuild(&shared, &mut state, why);
                            shared.changed.notify_all();
                            return;
                        }
                        Err(Update::Done) => {}
                    }
                }
                for path in missed.into_iter().chain(pending) {
                    if let Update::Rebuild(why) =
                        apply(&shared.sandbox, roots, &path, shared.config.max_bytes)
                    {
                        Shared::rebuild(&shared, &mut state, why);
                        break;
                    }
                }
            }
        }
        Err((why, retry_after)) => {
            tracing::warn!("index: not usable, searches scan: {why}");
            state.phase = Phase::Unusable {
                why,
                retry_at: Instant::now() + retry_after,
            };
        }
    }
    shared.changed.notify_all();
}

#[cfg(target_os = "linux")]
fn build_roots(
    shared: &Arc<Shared>,
    generation: u64,
) -> Result<(Vec<RootIndex>, watch::Watcher), (String, Duration)> {
    for root in shared.sandbox.root_handles() {
        if let Ok(stat) = rustix::fs::fstatfs(root.fd())
            && let Some(kind) = unreported_file_system(stat.f_type as u32)
        {
            return Err((
                format!(
                    "{} is on {kind}, whose changes inotify does not report (they are made by \
                     other machines, the host or a daemon), so an index could be stale",
                    root.path().display()
                ),
                IndexConfig::RETRY_UNREPORTED_AFTER,
            ));
        }
    }
    let weak = Arc::downgrade(shared);
    let error_weak = Weak::clone(&weak);
    let watcher = watch::Watcher::start(
        shared.markers.path().join("wake"),
        move |changes| {
            weak.upgrade()
                .is_some_and(|shared| Shared::on_changes(&shared, generation, changes))
        },
        move |error| {
            if let Some(shared) = error_weak.upgrade() {
                let mut state = shared.lock();
                if state.generation == generation {
                    tracing::warn!("index: reading the watcher's events failed: {error}");
                    Shared::rebuild(&shared, &mut state, "the watcher failed");
                }
            }
        },
    )
    .map_err(|e| {
        (
            format!("could not start an inotify watcher: {e}"),
            IndexConfig::RETRY_AFTER,
        )
    })?;
    watcher.watch(shared.markers.path()).map_err(|e| {
        (
            format!("could not watch the index's marker directory: {e}"),
            IndexConfig::RETRY_AFTER,
        )
    })?;
    let threads = match shared.config.threads {
        0 => fs_mcp_search::default_threads(),
        n => n,
    };
    let watch_dir = |dir: &Path| match watcher.watch(dir) {
        Ok(()) => Ok(()),
        // Removed, or swapped for a symlink (not followed), since its parent listed it: the
        // parent's watch reports that change, and it is applied once built.
        Err(e)
            if e.kind() == std::io::ErrorKind::NotFound
                || e.raw_os_error() == Some(libc::ENOTDIR) =>
        {
            Ok(())
        }
        Err(e) if e.raw_os_error() == Some(libc::ENOSPC) => {
            Err("inotify watch limit reached (raise fs.inotify.max_user_watches)".to_string())
        }
        Err(e) => Err(format!("could not watch {}: {e}", dir.display())),
    };
    let mut roots = Vec::new();
    let mut used = 0usize;
    for root in shared.sandbox.root_paths() {
        let cap = shared.config.max_bytes.saturating_sub(used);
        let index = RootIndex::build(&shared.sandbox, root, threads, cap, &watch_dir).map_err(
            |why: Unusable| {
                let retry = match why {
                    Unusable::Walk(_) => IndexConfig::RETRY_WALK_AFTER,
                    _ => IndexConfig::RETRY_AFTER,
                };
                (format!("{}: {why}", root.display()), retry)
            },
        )?;
        used += index.bytes();
        roots.push(index);
    }
    Ok((roots, watcher))
}

#[cfg(not(target_os = "linux"))]
fn build(weak: Weak<Shared>, generation: u64) {
    let Some(shared) = weak.upgrade() else {
        return;
    };
    let mut state = shared.lock();
    if state.generation == generation {
        state.phase = Phase::Unusable {
            why: "the index needs inotify (Linux); searches scan".into(),
            retry_at: Instant::now() + Duration::from_secs(u64::from(u32::MAX)),
        };
    }
    shared.changed.notify_all();
}

#[cfg(all(test, target_os = "linux"))]
mod file_system_tests {
    use super::unreported_file_system;

    #[test]
    fn local_file_systems_are_indexed_and_network_ones_are_not() {
        let dir = std::env::temp_dir();
        let file = std::fs::File::open(&dir).expect("open the temp dir");
        let stat = rustix::fs::fstatfs(&file).expect("statfs");
        assert_eq!(unreported_file_system(stat.f_type as u32), None, "{dir:?}");
        for (magic, kind) in [(0x6969, "NFS"), (0xFF53_4D42, "CIFS"), (0x0102_1997, "9p")] {
            assert_eq!(unreported_file_system(magic), Some(kind));
        }
        assert!(unreported_file_system(0x6573_5546).is_some_and(|k| k.starts_with("FUSE")));
    }
}
