//! Ignore rules, read by this server through sandbox handles and fed to the `ignore` crate's
//! matcher as bytes: the crate never opens a file by path on our behalf.
//!
//! A directory's rules are its `.ignore`, its `.gitignore` and, when it is the root of a git
//! repository, the repository's `info/exclude`. Every one of these files is opened by a
//! directory handle, without following a symlink and without blocking (`O_NONBLOCK`), and read
//! only if it is a regular file of at most [`MAX_RULES_BYTES`]; a symlink is followed only by the
//! sandbox's own handle walk, so only to a file inside the allowed directories. Where such a file
//! exists but must not be read (a FIFO, socket, device, a file over the cap, a symlink leading
//! outside) or whose rules would take the search past [`MAX_RULE_LINES`], the directory's rules
//! are unknown: [`UnsafeRules`], and the walk does not enter it.
//!
//! `.git` is read as follows: a `.git` directory's `info/exclude`; a `.git` file (`gitdir: …`,
//! as in worktrees and submodules) or a `.git` symlink is followed only to a directory inside
//! the allowed directories, and so is a `commondir` file in it; the pointer files are read
//! through handles too (regular, at most [`MAX_POINTER_BYTES`]). A pointer that leads outside,
//! nowhere or to something other than a directory is not followed: that repository's exclude
//! rules are simply not applied. The global git excludes file (`core.excludesFile`) lies outside
//! the allowed directories and is never read.

use std::ffi::OsStr;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use fs_mcp_sandbox::{DirHandle, EntryKind, Sandbox, escape_path};
use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// Largest ignore file read (a rules file is small; a huge one is not read at all).
pub(crate) const MAX_RULES_BYTES: u64 = 1 << 20;

/// Largest `.git` or `commondir` pointer file read (one path).
const MAX_POINTER_BYTES: u64 = 4096;

/// Rule lines one search reads at most, over all its directories: building the matchers costs
/// time per glob, so a tree of megabyte-sized ignore files cannot make one call run for minutes.
/// (Real trees have a few thousand: the Linux kernel some 1,500.) This and the byte limits
/// below must match the numbers `unsafe_rules_kinds!` below names.
pub(crate) const MAX_RULE_LINES: usize = 20_000;

/// Bytes of rules one search reads at most, over all its directories: a glob's matcher costs
/// memory and time by its length too (one 1 MB line of `[ab]?` took 800 MB to build).
pub(crate) const MAX_RULE_BYTES: usize = 512 << 10;

/// Longest rule line read; a file with a longer one is not read (real rules are short).
pub(crate) const MAX_RULE_LINE_BYTES: usize = 4096;

/// What is left of [`MAX_RULE_LINES`] and [`MAX_RULE_BYTES`] for one search.
#[derive(Debug)]
pub(crate) struct RuleBudget {
    lines_left: AtomicUsize,
    bytes_left: AtomicUsize,
}

impl Default for RuleBudget {
    fn default() -> Self {
        RuleBudget {
            lines_left: AtomicUsize::new(MAX_RULE_LINES),
            bytes_left: AtomicUsize::new(MAX_RULE_BYTES),
        }
    }
}

impl RuleBudget {
    /// Takes `lines` and `bytes` from the budget; `false` if not that many are left (the
    /// lines taken are then not given back: the search is past its budget anyway).
    fn take(&self, lines: usize, bytes: usize) -> bool {
        let take = |left: &AtomicUsize, n: usize| {
            left.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |l| l.checked_sub(n))
                .is_ok()
        };
        take(&self.lines_left, lines) && take(&self.bytes_left, bytes)
    }
}

/// An ignore file that exists but must not be read, so the rules of its directory are unknown.
#[derive(Debug)]
pub(crate) struct UnsafeRules {
    /// The file, as reached (display with [`Sandbox::display`]).
    pub file: PathBuf,
}

/// What the rules say about one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// No rule matches.
    None,
    Ignore,
    /// A `!pattern` re-includes it.
    Whitelist,
}

impl Verdict {
    fn of<T>(m: ignore::Match<T>) -> Option<Verdict> {
        match m {
            ignore::Match::None => None,
            ignore::Match::Ignore(_) => Some(Verdict::Ignore),
            ignore::Match::Whitelist(_) => Some(Verdict::Whitelist),
        }
    }
}

/// The rules in force in one directory: its own files and, through `parent`, those of the
/// directories above it up to the allowed directory.
#[derive(Debug)]
pub(crate) struct DirRules {
    ignore: Option<Gitignore>,
    gitignore: Option<Gitignore>,
    exclude: Option<Gitignore>,
    /// Holds a `.git` entry: `.gitignore` and excludes of the directories above do not apply
    /// below it (as in git and the `ignore` crate).
    repo_root: bool,
    parent: Option<Arc<DirRules>>,
}

impl DirRules {
    /// The rules of the directory `dir` (an open handle) under `parent`'s, read by handle. A
    /// directory without any rules file or `.git` shares its parent's rules.
    pub(crate) fn load(
        sandbox: &Sandbox,
        dir: &DirHandle,
        parent: Option<Arc<DirRules>>,
        budget: &RuleBudget,
    ) -> Result<Arc<DirRules>, UnsafeRules> {
        let ignore = read_rules(sandbox, dir, ".ignore", budget)?;
        let gitignore = read_rules(sandbox, dir, ".gitignore", budget)?;
        let (repo_root, exclude) = git_exclude(sandbox, dir, budget)?;
        if let Some(parent) = parent
            .as_ref()
            .filter(|_| ignore.is_none() && gitignore.is_none() && exclude.is_none() && !repo_root)
        {
            return Ok(Arc::clone(parent));
        }
        Ok(Arc::new(DirRules {
            ignore,
            gitignore,
            exclude,
            repo_root,
            parent,
        }))
    }

    /// No rules at all: nothing is ever ignored.
    pub(crate) fn is_empty(&self) -> bool {
        let mut level = Some(self);
        while let Some(rules) = level {
            if rules.ignore.is_some() || rules.gitignore.is_some() || rules.exclude.is_some() {
                return false;
            }
            level = rules.parent.as_deref();
        }
        true
    }

    /// The verdict for `path`, an entry of this directory, as the `ignore` crate's walker gives
    /// it: for each kind of file the deepest matching rule wins; then `.ignore` before
    /// `.gitignore` before the excludes.
    pub(crate) fn verdict(&self, path: &Path, is_dir: bool) -> Verdict {
        let (mut by_ignore, mut by_gitignore, mut by_exclude) = (None, None, None);
        let mut saw_repo_root = false;
        let mut level = Some(self);
        let matched = |m: &Option<Gitignore>| {
            m.as_ref()
                .and_then(|m| Verdict::of(m.matched(path, is_dir)))
        };
        while let Some(rules) = level {
            if by_ignore.is_none() {
                by_ignore = matched(&rules.ignore);
            }
            if !saw_repo_root {
                if by_gitignore.is_none() {
                    by_gitignore = matched(&rules.gitignore);
                }
                if by_exclude.is_none() {
                    by_exclude = matched(&rules.exclude);
                }
            }
            saw_repo_root |= rules.repo_root;
            level = rules.parent.as_deref();
        }
        by_ignore
            .or(by_gitignore)
            .or(by_exclude)
            .unwrap_or(Verdict::None)
    }
}

/// How reading one small file by handle went.
enum Small {
    Absent,
    /// Exists, but is not a regular file inside the allowed directories within the size cap.
    Refused,
    Bytes(Vec<u8>),
}

/// Reads `name` in `dir`: a regular file is opened by handle without following a symlink and
/// without blocking; a symlink is followed by the sandbox's handle walk (inside only). Anything
/// else is not opened at all.
fn read_small(sandbox: &Sandbox, dir: &DirHandle, name: &str, limit: u64) -> Small {
    let name_os = OsStr::new(name);
    let kind = match dir.stat(name_os) {
        Ok(meta) => meta.kind,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Small::Absent,
        // Not listable or vanished: as if absent (the crate skipped unreadable files too).
        Err(_) => return Small::Absent,
    };
    let opened = match kind {
        // A directory of that name holds no rules.
        EntryKind::Dir => return Small::Absent,
        EntryKind::File => match dir.open_read(name_os) {
            Ok((file, meta)) => Some((file, meta)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Small::Absent,
            Err(_) => None,
        },
        EntryKind::Symlink => sandbox
            .open_file(&escape_path(&dir.path().join(name)))
            .ok()
            .map(|opened| (opened.file, opened.meta)),
        _ => None,
    };
    let Some((file, meta)) = opened else {
        return Small::Refused;
    };
    if meta.kind != EntryKind::File || meta.len > limit {
        return Small::Refused;
    }
    let mut bytes = Vec::new();
    // `take` bounds the read even if the file grows meanwhile.
    match file.take(limit + 1).read_to_end(&mut bytes) {
        Ok(_) if bytes.len() as u64 <= limit => Small::Bytes(bytes),
        _ => Small::Refused,
    }
}

/// The rules file `name` of `dir` as a matcher (`None`: absent or without a rule).
fn read_rules(
    sandbox: &Sandbox,
    dir: &DirHandle,
    name: &str,
    budget: &RuleBudget,
) -> Result<Option<Gitignore>, UnsafeRules> {
    let file = || UnsafeRules {
        file: dir.path().join(name),
    };
    match read_small(sandbox, dir, name, MAX_RULES_BYTES) {
        Small::Absent => Ok(None),
        Small::Refused => Err(file()),
        Small::Bytes(bytes) => matcher(dir.path(), &bytes, budget).ok_or_else(file),
    }
}

/// A matcher for rules read from a file of the directory `base` (`Some(None)`: no rule in it;
/// `None`: more rules than the budget has left, or a line over [`MAX_RULE_LINE_BYTES`]). A
/// partly invalid file still yields its valid globs, as ripgrep does.
fn matcher(base: &Path, bytes: &[u8], budget: &RuleBudget) -> Option<Option<Gitignore>> {
    let text = String::from_utf8_lossy(bytes);
    let (mut rules, mut rule_bytes) = (0, 0);
    for line in text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
    {
        if line.len() > MAX_RULE_LINE_BYTES {
            return None;
        }
        rules += 1;
        rule_bytes += line.len();
    }
    if !budget.take(rules, rule_bytes) {
        return None;
    }
    let mut builder = GitignoreBuilder::new(base);
    for (i, line) in text.lines().enumerate() {
        let line = if i == 0 {
            line.trim_start_matches('\u{feff}')
        } else {
            line
        };
        let _ = builder.add_line(None, line);
    }
    Some(builder.build().ok().filter(|m| !m.is_empty()))
}

/// Whether `dir` is a repository root (it holds a `.git` entry) and the repository's exclude
/// rules, found as the module documentation says.
fn git_exclude(
    sandbox: &Sandbox,
    dir: &DirHandle,
    budget: &RuleBudget,
) -> Result<(bool, Option<Gitignore>), UnsafeRules> {
    let Ok(meta) = dir.stat(OsStr::new(".git")) else {
        return Ok((false, None));
    };
    let git_dir = match meta.kind {
        EntryKind::Dir => dir.open_subdir(OsStr::new(".git")).ok(),
        EntryKind::File => pointed_dir(sandbox, dir, ".git", "gitdir:"),
        EntryKind::Symlink => sandbox
            .open_dir(&escape_path(&dir.path().join(".git")))
            .ok(),
        // A FIFO, socket or device named `.git` is not a repository and is never opened.
        _ => return Ok((false, None)),
    };
    let Some(git_dir) = git_dir else {
        return Ok((true, None));
    };
    // Worktrees and submodules share the exclude file of their common directory.
    let common = if meta.kind == EntryKind::Dir {
        git_dir
    } else {
        match read_small(sandbox, &git_dir, "commondir", MAX_POINTER_BYTES) {
            Small::Absent => git_dir,
            Small::Refused => return Ok((true, None)),
            Small::Bytes(bytes) => match dir_at(sandbox, &git_dir, &bytes) {
                Some(common) => common,
                None => return Ok((true, None)),
            },
        }
    };
    let Ok(info) = common.open_subdir(OsStr::new("info")) else {
        return Ok((true, None));
    };
    // The exclude patterns are relative to the working tree, like a root `.gitignore`.
    let file = || UnsafeRules {
        file: info.path().join("exclude"),
    };
    match read_small(sandbox, &info, "exclude", MAX_RULES_BYTES) {
        Small::Absent => Ok((true, None)),
        Small::Refused => Err(file()),
        Small::Bytes(bytes) => match matcher(dir.path(), &bytes, budget) {
            Some(rules) => Ok((true, rules)),
            None => Err(file()),
        },
    }
}

/// The directory a pointer file (`.git`: `gitdir: PATH`) in `dir` names, if it is inside.
fn pointed_dir(sandbox: &Sandbox, dir: &DirHandle, name: &str, prefix: &str) -> Option<DirHandle> {
    let Small::Bytes(bytes) = read_small(sandbox, dir, name, MAX_POINTER_BYTES) else {
        return None;
    };
    let text = std::str::from_utf8(&bytes).ok()?;
    let target = text.lines().next()?.strip_prefix(prefix)?;
    dir_at(sandbox, dir, target.as_bytes())
}

/// The directory `bytes` (one path, relative to `base` unless absolute) names, opened through
/// the sandbox (symlinks followed only inside the allowed directories), or `None`.
fn dir_at(sandbox: &Sandbox, base: &DirHandle, bytes: &[u8]) -> Option<DirHandle> {
    let text = std::str::from_utf8(bytes).ok()?.lines().next()?.trim();
    if text.is_empty() {
        return None;
    }
    // Passed escaped: the sandbox takes escaped names back, so any byte in the path is exact.
    sandbox.open_dir(&escape_path(&base.path().join(text))).ok()
}

/// The kinds of ignore file never read, as the errors and the callers' notes name them.
macro_rules! unsafe_rules_kinds {
    () => {
        "a FIFO, socket, device, file over 1 MiB or symlink to none inside the allowed directories, or has more rules than a search reads (20,000 lines, 512 KiB, 4 KiB a line)"
    };
}

/// What an ignore file that is not read as rules is: `a FIFO, socket, device, file over 1 MiB
/// or symlink to none inside the allowed directories, or has more rules than a search reads
/// (20,000 lines, 512 KiB, 4 KiB a line)`.
pub const UNSAFE_RULES_KINDS: &str = unsafe_rules_kinds!();
