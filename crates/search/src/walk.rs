//! The directory walk shared by `grep_content` and `search_files`: ripgrep's `ignore` walker,
//! configured for a sandbox.
//!
//! * `.gitignore` and `.ignore` apply even outside a git repository (`require_git(false)`), and so
//!   do the ones in the directories between the sandbox root and the searched directory, so that
//!   searching `frontend/` honours the root's `node_modules/` rule. Ignore files *above* the
//!   sandbox root are not read.
//! * Hidden entries (a name starting with `.`) are skipped unless asked for; so are VCS
//!   directories (`.git`, `.hg`, `.svn`, …), which are also treated as ignored.
//! * Symlinks are never followed, so loops are harmless and the walk cannot leave the directory
//!   it started in. Callers still skip symlink entries themselves rather than open them.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use fs_mcp_sandbox::{DirHandle, EntryMeta, FinalLink, Sandbox};
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::{DirEntry, IncrementalIgnore, WalkBuilder};

/// Version-control directories: never interesting to search, often huge.
pub const VCS_DIRS: &[&str] = &[".git", ".hg", ".svn", ".bzr", "_darcs", ".jj", ".pijul"];

/// Which entries a walk visits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WalkOptions {
    /// Also visit hidden entries (names starting with `.`).
    pub include_hidden: bool,
    /// Also visit entries excluded by `.gitignore`/`.ignore`/git excludes, and VCS directories.
    pub include_ignored: bool,
}

/// What the walk left out, for the "nothing found" explanation.
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
    /// A short phrase such as `4 hidden entries and .gitignore rules`, or `None` if nothing was skipped.
    pub fn describe(&self, options: WalkOptions) -> Option<String> {
        let mut parts = Vec::new();
        let hidden = self.hidden.load(Ordering::Relaxed);
        if hidden > 0 {
            parts.push(format!(
                "{} (include_hidden=true to search them)",
                crate::format::plural(hidden, "hidden entry", "hidden entries")
            ));
        }
        if !options.include_ignored && self.ignore_rules.load(Ordering::Relaxed) {
            parts.push(
                "files excluded by .gitignore/.ignore (include_ignored=true to search them)".into(),
            );
        }
        let unsafe_rules = self.unsafe_rules.load(Ordering::Relaxed);
        if unsafe_rules > 0 {
            parts.push(format!(
                "{} {UNSAFE_RULES_NOTE} (include_ignored=true to search them)",
                crate::format::plural(unsafe_rules, "directory", "directories")
            ));
        }
        let vcs = self.vcs.load(Ordering::Relaxed);
        if vcs > 0 && options.include_hidden {
            parts.push("VCS directories such as .git (include_ignored=true to search them)".into());
        }
        if parts.is_empty() {
            None
        } else {
            Some(parts.join("; "))
        }
    }
}

/// Ignore rules of the directories strictly between the sandbox root (inclusive) and the walk
/// root, deepest first; each directory contributes `.ignore` before `.gitignore` (higher
/// precedence first).
#[derive(Default)]
pub(crate) struct AncestorRules {
    matchers: Vec<Gitignore>,
}

impl AncestorRules {
    pub(crate) fn load(sandbox: &Sandbox, root: &Path) -> AncestorRules {
        let mut matchers = Vec::new();
        let Some(base) = sandbox.root_of(root) else {
            return AncestorRules { matchers };
        };
        for dir in root.ancestors().skip(1) {
            if !dir.starts_with(base) {
                break;
            }
            for name in [".ignore", ".gitignore"] {
                let Some(text) = read_rules(sandbox, &dir.join(name)) else {
                    continue;
                };
                let mut builder = GitignoreBuilder::new(dir);
                // A partly invalid file still yields its valid globs, as ripgrep does.
                for line in text.lines() {
                    let _ = builder.add_line(None, line);
                }
                if let Ok(matcher) = builder.build()
                    && !matcher.is_empty()
                {
                    matchers.push(matcher);
                }
            }
        }
        AncestorRules { matchers }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.matchers.is_empty()
    }

    pub(crate) fn is_ignored(&self, path: &Path, is_dir: bool) -> bool {
        for m in &self.matchers {
            let verdict = m.matched(path, is_dir);
            if verdict.is_ignore() {
                return true;
            }
            if verdict.is_whitelist() {
                return false;
            }
        }
        false
    }
}

/// Largest ignore file read (a rules file is small; a huge one is not read whole).
const MAX_RULES_BYTES: u64 = 1 << 20;

/// An ignore file's text, opened by handle without following symlinks; `None` if absent.
fn read_rules(sandbox: &Sandbox, path: &Path) -> Option<String> {
    use std::io::Read;
    let opened = sandbox.open_walked(path).ok()?;
    let mut bytes = Vec::new();
    opened
        .file
        .take(MAX_RULES_BYTES)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// A configured walker over `root` (canonical, inside the sandbox) plus the counters its filter
/// fills in. With `prune_swapped`, a directory is entered only while it is reachable without a
/// symlink (one `openat2` per directory): for walks without a timeout, so that a directory
/// swapped for a symlink to a large tree outside cannot make them walk it. (Confidentiality does
/// not depend on it: files are opened, and names confirmed, by handle.)
pub(crate) fn walker(
    sandbox: &Sandbox,
    root: &Path,
    options: WalkOptions,
    threads: usize,
    prune_swapped: bool,
) -> Result<(WalkBuilder, Arc<SkipStats>), crate::SearchError> {
    let stats = Arc::new(SkipStats::default());
    let rules = if options.include_ignored {
        AncestorRules {
            matchers: Vec::new(),
        }
    } else {
        AncestorRules::load(sandbox, root)
    };
    if !rules.matchers.is_empty() {
        stats.ignore_rules.store(true, Ordering::Relaxed);
    }
    if !options.include_ignored {
        check_root_rules(sandbox, root)?;
    }
    // The walk's own rules, asked only when a rule above the root excludes an entry: a
    // negation below the root re-includes it, as in git.
    let own_rules = if rules.matchers.is_empty() {
        None
    } else {
        ignore_rule_matcher(root).map(|m| OwnRules {
            root: root.to_path_buf(),
            matcher: std::sync::Mutex::new(m),
        })
    };
    let mut builder = configured_builder(root, options, threads);
    let filter_stats = Arc::clone(&stats);
    let filter_sandbox = sandbox.clone();
    builder.filter_entry(move |entry| {
        keep_entry(
            entry,
            options,
            &rules,
            own_rules.as_ref(),
            &filter_sandbox,
            &filter_stats,
        ) && !(prune_swapped && is_swapped_dir(&filter_sandbox, entry))
    });
    Ok((builder, stats))
}

/// The ignore files the `ignore` crate reads itself, by path and following symlinks.
const IGNORE_FILE_NAMES: [&str; 2] = [".gitignore", ".ignore"];

/// What a directory skipped by [`unsafe_rules_file`] has.
/// The kinds of ignore file never read, as the notes and errors name them.
macro_rules! unsafe_rules_kinds {
    () => {
        "a FIFO, socket, device, file over 1 MiB or symlink to none inside the allowed directories"
    };
}

pub(crate) const UNSAFE_RULES_NOTE: &str = concat!(
    "not entered: their .gitignore/.ignore is ",
    unsafe_rules_kinds!()
);

/// An ignore file in `dir` that must not be read: a FIFO (opening it blocks for ever), a socket,
/// a device, a file over [`MAX_RULES_BYTES`] (read whole), or a symlink that does not lead to
/// such a plain file inside the allowed directories (it could lead outside, to a device, or to
/// the server's own stdin). The `ignore` crate opens ignore files by path, following symlinks,
/// so a directory holding one is not entered by a walk that reads rules.
pub(crate) fn unsafe_rules_file(sandbox: &Sandbox, dir: &Path) -> Option<PathBuf> {
    let plain = |kind_is_file: bool, len: u64| kind_is_file && len <= MAX_RULES_BYTES;
    IGNORE_FILE_NAMES.iter().map(|n| dir.join(n)).find(|path| {
        std::fs::symlink_metadata(path).is_ok_and(|meta| {
            let kind = meta.file_type();
            if kind.is_symlink() {
                // Followed by handles, inside the allowed directories only.
                let target = path
                    .to_str()
                    .and_then(|p| sandbox.locate(p, FinalLink::Follow).ok())
                    .and_then(|located| located.meta);
                return !target
                    .is_some_and(|m| plain(m.kind == fs_mcp_sandbox::EntryKind::File, m.len));
            }
            !(kind.is_dir() || plain(kind.is_file(), meta.len()))
        })
    })
}

/// Refuses a walk root whose own ignore files must not be read ([`unsafe_rules_file`]).
pub(crate) fn check_root_rules(sandbox: &Sandbox, root: &Path) -> Result<(), crate::SearchError> {
    match unsafe_rules_file(sandbox, root) {
        Some(path) => Err(crate::SearchError::WrongType {
            path: sandbox.display(&path),
            message: concat!(
                "is ",
                unsafe_rules_kinds!(),
                ", so it is not read as ignore rules, and the search that needs them is not run. Search with include_ignored=true (no rules read), or search a sub-directory."
            )
            .into(),
        }),
        None => Ok(()),
    }
}

/// A walk builder with the ignore-file settings of every walk (hidden and VCS entries are left to
/// the callers' filters).
fn configured_builder(root: &Path, options: WalkOptions, threads: usize) -> WalkBuilder {
    let mut builder = WalkBuilder::new(root);
    let respect = !options.include_ignored;
    builder
        .standard_filters(false)
        .follow_links(false)
        .require_git(false)
        .parents(false)
        .git_ignore(respect)
        .git_exclude(respect)
        .git_global(respect)
        .ignore(respect)
        .threads(threads);
    builder
}

/// The ignore-file rules a walk of `root` without `include_ignored` applies (`.gitignore`,
/// `.ignore`, git excludes, in the `ignore` crate's own precedence), as a matcher for single
/// paths relative to `root`: for a walk that visits ignored entries too and must tell which ones
/// a rule-respecting walk would have left out. Ancestor rules ([`AncestorRules`]), hidden names
/// and VCS directories are not part of it.
pub(crate) fn ignore_rule_matcher(root: &Path) -> Option<IncrementalIgnore> {
    let respecting = WalkOptions {
        include_hidden: true,
        include_ignored: false,
    };
    configured_builder(root, respecting, 1)
        .build_matchers()
        .pop()
}

/// The ignore rules at and below a walk root, for single paths.
struct OwnRules {
    root: PathBuf,
    matcher: std::sync::Mutex<IncrementalIgnore>,
}

impl OwnRules {
    /// A `!pattern` at or below the root re-includes `path`.
    fn reincludes(&self, path: &Path, is_dir: bool) -> bool {
        let Ok(rel) = path.strip_prefix(&self.root) else {
            return false;
        };
        let mut matcher = self.matcher.lock().unwrap_or_else(|e| e.into_inner());
        matcher.matched(rel, is_dir).is_whitelist()
    }
}

fn keep_entry(
    entry: &DirEntry,
    options: WalkOptions,
    rules: &AncestorRules,
    own_rules: Option<&OwnRules>,
    sandbox: &Sandbox,
    stats: &SkipStats,
) -> bool {
    if entry.depth() == 0 {
        return true;
    }
    let name = entry.file_name();
    let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
    if !options.include_ignored && is_ignore_file(name) {
        stats.ignore_rules.store(true, Ordering::Relaxed);
    }
    if is_dir && !options.include_ignored && is_vcs_dir(name) {
        stats.vcs.fetch_add(1, Ordering::Relaxed);
        return false;
    }
    if !options.include_hidden && is_hidden(name) {
        stats.hidden.fetch_add(1, Ordering::Relaxed);
        return false;
    }
    if !options.include_ignored
        && rules.is_ignored(entry.path(), is_dir)
        && !own_rules.is_some_and(|own| own.reincludes(entry.path(), is_dir))
    {
        return false;
    }
    if is_dir && !options.include_ignored && unsafe_rules_file(sandbox, entry.path()).is_some() {
        stats.unsafe_rules.fetch_add(1, Ordering::Relaxed);
        return false;
    }
    true
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

fn is_ignore_file(name: &OsStr) -> bool {
    name == ".gitignore" || name == ".ignore"
}

/// Worker threads for a parallel walk: the machine's parallelism, at most 8. Asked once per
/// process: `available_parallelism` reads the cgroup files on every call (a dozen system calls).
pub(crate) fn default_threads() -> usize {
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
) -> Result<(PathBuf, EntryMeta), crate::SearchError> {
    let located = sandbox.locate(requested, FinalLink::Follow)?;
    match located.meta {
        Some(meta) => Ok((located.path, meta)),
        None => Err(crate::SearchError::NotFound {
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
