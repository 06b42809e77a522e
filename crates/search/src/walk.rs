//! The directory walk shared by `grep_content` and `search_files`: ripgrep's `ignore` walker,
//! configured for a sandbox, with every ignore-file reading of its own turned off.
//!
//! * The rules (`.gitignore`, `.ignore`, a repository's `info/exclude`) are read by this server
//!   through directory handles ([`crate::rules`]) and applied per directory ([`RuleTree`]), in the
//!   `ignore` crate's precedence. They apply even outside a git repository, and so do the ones in
//!   the directories between the allowed directory and the searched one, so that searching
//!   `frontend/` honours the root's `node_modules/` rule. Ignore files *above* the allowed
//!   directory, and the global git excludes file, are not read.
//! * Hidden entries (a name starting with `.`) are skipped unless asked for; so are VCS
//!   directories (`.git`, `.hg`, `.svn`, …), which are also treated as ignored.
//! * Symlinks are never followed, so loops are harmless and the walk cannot leave the directory
//!   it started in. Callers still skip symlink entries themselves rather than open them.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Instant;

use fs_mcp_sandbox::{DirHandle, EntryMeta, FinalLink, Sandbox};
use ignore::{DirEntry, WalkBuilder, WalkState};

use crate::rules::{DirRules, RuleBudget, UnsafeRules, Verdict};

/// Version-control directories: never interesting to search, often huge.
pub const VCS_DIRS: &[&str] = &[".git", ".hg", ".svn", ".bzr", "_darcs", ".jj", ".pijul"];

/// Which entries a walk visits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WalkOptions {
    /// Also visit hidden entries (names starting with `.`).
    pub include_hidden: bool,
    /// Also visit entries excluded by `.gitignore`/`.ignore`/a repository's exclude file, and VCS
    /// directories.
    pub include_ignored: bool,
}

/// What the walk left out, counted while it runs ([`SkipStats::skips`] says it as data).
#[derive(Debug, Default)]
pub(crate) struct SkipStats {
    pub hidden: AtomicU64,
    pub vcs: AtomicU64,
    /// An ignore file was seen (in the walk or between the sandbox root and the walk root).
    pub ignore_rules: AtomicBool,
    /// Directories not entered because an ignore file in them is not a plain file.
    pub unsafe_rules: AtomicU64,
}

impl SkipStats {
    /// What the walk left out that `options` would bring back, in the order the notes give it.
    pub fn skips(&self, options: WalkOptions) -> Vec<WalkSkip> {
        let mut skips = Vec::new();
        let hidden = self.hidden.load(Ordering::Relaxed);
        if hidden > 0 {
            skips.push(WalkSkip::Hidden { entries: hidden });
        }
        if !options.include_ignored && self.ignore_rules.load(Ordering::Relaxed) {
            skips.push(WalkSkip::IgnoreRules);
        }
        let unsafe_rules = self.unsafe_rules.load(Ordering::Relaxed);
        if unsafe_rules > 0 {
            skips.push(WalkSkip::UnsafeRules { dirs: unsafe_rules });
        }
        if self.vcs.load(Ordering::Relaxed) > 0 && options.include_hidden {
            skips.push(WalkSkip::VcsDirs);
        }
        skips
    }
}

/// A search option that brings back what a walk left out; the caller names it (it is a
/// parameter of the tool).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Include {
    /// [`WalkOptions::include_hidden`].
    Hidden,
    /// [`WalkOptions::include_ignored`].
    Ignored,
}

/// One kind of entry a `grep_content` walk left out. Exhaustive on purpose: a new kind does not
/// compile until the binary words it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WalkSkip {
    /// Hidden entries (names starting with `.`), not visited.
    Hidden {
        /// How many.
        entries: u64,
    },
    /// Entries excluded by `.gitignore`/`.ignore` rules (rules were in force).
    IgnoreRules,
    /// Directories not entered: an ignore file in them is of a kind never read as rules
    /// ([`crate::rules::UNSAFE_RULES_KINDS`]).
    UnsafeRules {
        /// How many.
        dirs: u64,
    },
    /// VCS directories such as `.git`, skipped although hidden entries were visited.
    VcsDirs,
}

impl WalkSkip {
    /// The option that brings these entries back.
    pub fn brought_back_by(self) -> Include {
        match self {
            WalkSkip::Hidden { .. } => Include::Hidden,
            WalkSkip::IgnoreRules | WalkSkip::UnsafeRules { .. } | WalkSkip::VcsDirs => {
                Include::Ignored
            }
        }
    }
}

/// The rules of every directory a walk entered, by the path the walk reached it by. Each
/// directory's rules are read once, by a handle opened without following any symlink, when the
/// walk is about to enter it; its entries are then judged by them ([`DirRules::verdict`]).
pub(crate) struct RuleTree {
    sandbox: Sandbox,
    dirs: RwLock<HashMap<PathBuf, Arc<DirRules>>>,
    budget: RuleBudget,
    /// Past it, no directory is entered (its rules would be read and built for nothing).
    deadline: Option<Instant>,
}

/// What entering a directory found.
pub(crate) enum Entered {
    /// Its rules are known.
    Rules,
    /// One of its ignore files must not be read ([`UnsafeRules`]): not entered.
    Unsafe,
    /// It is no longer reachable without a symlink (swapped, removed): not entered.
    Gone,
}

impl RuleTree {
    /// The rules at `root` (canonical, inside the sandbox), with those of the directories from
    /// its allowed directory down to it. An ignore file of `root` itself that must not be read is
    /// an error that says what to do; one of a directory above is left unapplied.
    pub(crate) fn load(
        sandbox: &Sandbox,
        root: &Path,
        deadline: Option<Instant>,
    ) -> Result<RuleTree, crate::error::SearchError> {
        let budget = RuleBudget::default();
        let mut rules: Option<Arc<DirRules>> = None;
        if let Some(base) = sandbox.root_of(root) {
            let mut chain: Vec<&Path> = root
                .ancestors()
                .take_while(|dir| dir.starts_with(base))
                .collect();
            chain.reverse();
            for dir in chain {
                let Ok(handle) = sandbox.open_walked_dir(dir) else {
                    continue;
                };
                match DirRules::load(sandbox, &handle, rules.clone(), &budget) {
                    Ok(loaded) => rules = Some(loaded),
                    Err(unsafe_rules) if dir == root => {
                        return Err(unsafe_rules_error(sandbox, &unsafe_rules));
                    }
                    Err(_) => {}
                }
            }
        }
        let mut dirs = HashMap::new();
        if let Some(rules) = rules {
            dirs.insert(root.to_path_buf(), rules);
        }
        Ok(RuleTree {
            sandbox: sandbox.clone(),
            dirs: RwLock::new(dirs),
            budget,
            deadline,
        })
    }

    /// No rule applies at the root.
    pub(crate) fn is_empty_at(&self, root: &Path) -> bool {
        self.rules_of(root).is_none_or(|rules| rules.is_empty())
    }

    fn rules_of(&self, dir: &Path) -> Option<Arc<DirRules>> {
        let dirs = self.dirs.read().unwrap_or_else(|e| e.into_inner());
        dirs.get(dir).cloned()
    }

    /// The verdict of the rules of `path`'s directory on `path`.
    pub(crate) fn verdict(&self, path: &Path, is_dir: bool) -> Verdict {
        path.parent()
            .and_then(|dir| self.rules_of(dir))
            .map_or(Verdict::None, |rules| rules.verdict(path, is_dir))
    }

    /// Reads the rules of the directory `dir` (an entry of a directory already entered) before
    /// the walk enters it.
    pub(crate) fn enter(&self, dir: &Path) -> Entered {
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Entered::Gone;
        }
        let parent = dir.parent().and_then(|p| self.rules_of(p));
        let Ok(handle) = self.sandbox.open_walked_dir(dir) else {
            return Entered::Gone;
        };
        match DirRules::load(&self.sandbox, &handle, parent, &self.budget) {
            Ok(rules) => {
                let mut dirs = self.dirs.write().unwrap_or_else(|e| e.into_inner());
                dirs.insert(dir.to_path_buf(), rules);
                Entered::Rules
            }
            Err(_) => Entered::Unsafe,
        }
    }
}

/// A configured walker over `root` (canonical, inside the sandbox) plus the counters its filter
/// fills in. With `prune_swapped`, a directory is entered only while it is reachable without a
/// symlink (one `openat2` per directory): for walks without a timeout, so that a directory
/// swapped for a symlink to a large tree outside cannot make them walk it. (Confidentiality does
/// not depend on it: files are opened, and names confirmed, by handle.) A walk that reads rules
/// opens every directory by handle anyway, to read them, and is pruned so in any case.
pub(crate) fn walker(
    sandbox: &Sandbox,
    root: &Path,
    options: WalkOptions,
    threads: usize,
    prune_swapped: bool,
    deadline: Option<Instant>,
) -> Result<(WalkBuilder, Arc<SkipStats>), crate::error::SearchError> {
    let stats = Arc::new(SkipStats::default());
    let tree = if options.include_ignored {
        None
    } else {
        let tree = RuleTree::load(sandbox, root, deadline)?;
        if !tree.is_empty_at(root) {
            stats.ignore_rules.store(true, Ordering::Relaxed);
        }
        Some(tree)
    };
    let mut builder = configured_builder(root, threads);
    let filter_stats = Arc::clone(&stats);
    let filter_sandbox = sandbox.clone();
    builder.filter_entry(move |entry| {
        keep_entry(entry, options, tree.as_ref(), &filter_stats)
            && !(tree.is_none() && prune_swapped && is_swapped_dir(&filter_sandbox, entry))
    });
    Ok((builder, stats))
}

/// The error for a walk root whose own ignore files must not be read.
fn unsafe_rules_error(sandbox: &Sandbox, unsafe_rules: &UnsafeRules) -> crate::error::SearchError {
    crate::error::SearchError::UnsafeIgnoreFile {
        path: sandbox.display(&unsafe_rules.file),
    }
}

/// A walk builder that reads no ignore file itself (the rules are applied by the callers'
/// filters from [`RuleTree`]), nor any hidden-file or VCS filter (the callers' too).
fn configured_builder(root: &Path, threads: usize) -> WalkBuilder {
    let mut builder = WalkBuilder::new(root);
    builder
        .standard_filters(false)
        .follow_links(false)
        .require_git(false)
        .parents(false)
        .git_ignore(false)
        .git_exclude(false)
        .git_global(false)
        .ignore(false)
        .threads(threads);
    builder
}

fn keep_entry(
    entry: &DirEntry,
    options: WalkOptions,
    tree: Option<&RuleTree>,
    stats: &SkipStats,
) -> bool {
    if entry.depth() == 0 {
        return true;
    }
    let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
    let class = classify(entry.path(), is_dir, options, tree);
    count_class(entry.file_name(), class, options, stats);
    if class != EntryClass::Walked || !is_dir {
        return class == EntryClass::Walked;
    }
    enter_dir(entry.path(), tree, stats)
}

/// Records what the walk skipped in `stats`, for the notes.
fn count_class(name: &OsStr, class: EntryClass, options: WalkOptions, stats: &SkipStats) {
    if !options.include_ignored && is_ignore_file(name) {
        stats.ignore_rules.store(true, Ordering::Relaxed);
    }
    match class {
        EntryClass::Vcs => {
            stats.vcs.fetch_add(1, Ordering::Relaxed);
        }
        EntryClass::Hidden => {
            stats.hidden.fetch_add(1, Ordering::Relaxed);
        }
        EntryClass::Ignored => stats.ignore_rules.store(true, Ordering::Relaxed),
        EntryClass::Walked => {}
    }
}

/// Reads the rules of a directory the walk is about to enter; false when it must not be entered.
fn enter_dir(path: &Path, tree: Option<&RuleTree>, stats: &SkipStats) -> bool {
    let Some(tree) = tree else {
        return true;
    };
    match tree.enter(path) {
        Entered::Rules => true,
        Entered::Unsafe => {
            stats.unsafe_rules.fetch_add(1, Ordering::Relaxed);
            false
        }
        Entered::Gone => false,
    }
}

/// What a walk does with an entry below its root, before reading any rules of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryClass {
    /// Visited (a directory is then entered, if its own rules may be read).
    Walked,
    /// A hidden name, skipped.
    Hidden,
    /// A version-control directory, skipped.
    Vcs,
    /// Excluded by `.gitignore`/`.ignore`/`info/exclude`, skipped.
    Ignored,
}

/// The one rule deciding what a walk does with the entry `path` (below the walk's root).
fn classify(
    path: &Path,
    is_dir: bool,
    options: WalkOptions,
    tree: Option<&RuleTree>,
) -> EntryClass {
    let Some(name) = path.file_name() else {
        return EntryClass::Walked;
    };
    if is_dir && !options.include_ignored && is_vcs_dir(name) {
        return EntryClass::Vcs;
    }
    if !options.include_hidden && is_hidden(name) {
        return EntryClass::Hidden;
    }
    match tree {
        Some(tree) if tree.verdict(path, is_dir) == Verdict::Ignore => EntryClass::Ignored,
        _ => EntryClass::Walked,
    }
}

/// True for a directory the walk is about to enter that is not reachable from its allowed
/// directory without a symlink (it was swapped for one after it was listed): the walk does not
/// enter it, so it cannot wander outside. Names and files are checked again by handle when used.
fn is_swapped_dir(sandbox: &Sandbox, entry: &DirEntry) -> bool {
    entry.depth() > 0
        && entry.file_type().is_some_and(|t| t.is_dir())
        && sandbox.open_walked_dir(entry.path()).is_err()
}

pub(crate) fn is_hidden(name: &OsStr) -> bool {
    name.as_encoded_bytes().first() == Some(&b'.')
}

pub(crate) fn is_vcs_dir(name: &OsStr) -> bool {
    VCS_DIRS.iter().any(|v| OsStr::new(v) == name)
}

/// True for the names of the ignore files a walk reads (`.gitignore`, `.ignore`).
pub fn is_ignore_file(name: &OsStr) -> bool {
    name == ".gitignore" || name == ".ignore"
}

/// What a caller that keeps its own record of `grep_content`'s walk (fs-mcp-index) is told, from
/// the walk's worker threads.
pub trait WalkObserver: Sync {
    /// An entry below the root and what the walk does with it. A directory the walk goes into is
    /// reported before it is listed.
    fn entry(&self, path: &Path, is_dir: bool, class: EntryClass);
    /// A walked directory that is not entered because its ignore files must not be read. (One
    /// removed or swapped for a symlink since it was listed is skipped without a word: its
    /// parent, listed before, saw the change.)
    fn not_entered(&self, path: &Path);
    /// A regular file the walk visits (`grep_content` opens and searches it).
    fn file(&self, path: &Path);
    /// A visited entry that is neither a directory nor a regular file (a symlink, FIFO, socket,
    /// device): `search_files` lists it.
    fn other(&self, _path: &Path) {}
    /// Something could not be listed.
    fn failed(&self);
}

/// The rules a walk read, kept to judge entries that appear later as the walk would have.
pub struct WalkRules {
    tree: RuleTree,
}

impl WalkRules {
    /// What the walk with default options does with `path`, an entry of a directory it entered.
    pub fn classify(&self, path: &Path, is_dir: bool) -> EntryClass {
        classify(path, is_dir, WalkOptions::default(), Some(&self.tree))
    }

    /// True when ignore rules are in force in `dir` (a directory the walk entered), which a walk
    /// starting there mentions in its notes.
    pub fn rules_in_force(&self, dir: &Path) -> bool {
        !self.tree.is_empty_at(dir)
    }
}

/// Walks `root` (canonical, inside the sandbox) as `grep_content` with its default options does
/// (no hidden entries, ignore rules applied, no symlink followed), telling `observer` about every
/// entry. Returns the rules read, for judging later entries.
pub fn walk_default(
    sandbox: &Sandbox,
    root: &Path,
    threads: usize,
    observer: &dyn WalkObserver,
) -> Result<WalkRules, crate::error::SearchError> {
    let options = WalkOptions::default();
    let tree = RuleTree::load(sandbox, root, None)?;
    let builder = configured_builder(root, threads.max(1));
    builder.build_parallel().run(|| {
        let tree = &tree;
        Box::new(move |entry| {
            let entry = match entry {
                Ok(entry) => entry,
                Err(_) => {
                    observer.failed();
                    return WalkState::Continue;
                }
            };
            let path = entry.path();
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            if entry.depth() > 0 {
                let class = classify(path, is_dir, options, Some(tree));
                observer.entry(path, is_dir, class);
                if class != EntryClass::Walked {
                    return WalkState::Skip;
                }
                if is_dir {
                    match tree.enter(path) {
                        Entered::Rules => {}
                        Entered::Unsafe => {
                            observer.not_entered(path);
                            return WalkState::Skip;
                        }
                        // Removed or swapped since it was listed: a change its parent reports.
                        Entered::Gone => return WalkState::Skip,
                    }
                }
            }
            if entry.file_type().is_some_and(|t| t.is_file()) {
                observer.file(path);
            } else if entry.depth() > 0 && !is_dir {
                observer.other(path);
            }
            WalkState::Continue
        })
    });
    Ok(WalkRules { tree })
}

/// Worker threads for a parallel walk: the machine's parallelism, at most 8. Asked once per
/// process: `available_parallelism` reads the cgroup files on every call (a dozen system calls).
pub fn default_threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(2, |n| n.get().min(8)))
}

/// The canonical path of `requested` if it exists (located by handles), else a not-found error
/// naming the displayed path. The path is where a walk starts; every file and directory the walk
/// then uses is opened again by handle ([`Sandbox::open_walked`],
/// [`Sandbox::open_walked_dir`]), never through a symlink.
pub(crate) fn resolve_existing(
    sandbox: &Sandbox,
    requested: &str,
) -> Result<(PathBuf, EntryMeta), crate::error::SearchError> {
    let located = sandbox.locate(requested, FinalLink::Follow)?;
    match located.meta {
        Some(meta) => Ok((located.path, meta)),
        None => Err(crate::error::SearchError::NotFound {
            path: sandbox.display(&located.path),
        }),
    }
}

/// Confirms that names a path walk reported exist in the directory they were reported in, as
/// reached now by handles without following any symlink. The `ignore` walker lists directories
/// by path, so a directory swapped for a symlink between two of its steps could make it list a
/// directory outside; a name is shown only if it is (also) in the real directory inside.
pub(crate) struct NameCheck<'s> {
    sandbox: &'s Sandbox,
    last: Option<(PathBuf, Option<DirHandle>)>,
}

impl<'s> NameCheck<'s> {
    pub fn new(sandbox: &'s Sandbox) -> NameCheck<'s> {
        NameCheck {
            sandbox,
            last: None,
        }
    }

    /// True when `path` (built by the walk) names an entry of its directory inside the sandbox.
    pub fn exists(&mut self, path: &Path) -> bool {
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return false;
        };
        // Entries arrive grouped by directory, so one cached handle saves most opens.
        let cached = self.last.as_ref().is_some_and(|(p, _)| p == parent);
        if !cached {
            let handle = self.sandbox.open_walked_dir(parent).ok();
            self.last = Some((parent.to_path_buf(), handle));
        }
        match &self.last {
            Some((_, Some(dir))) => dir.stat(name).is_ok(),
            _ => false,
        }
    }
}
