//! One allowed directory's index: the walk `grep_content` does with its default options (which
//! files it visits, which entries it skips and why) and a trigram filter per visited file. Built
//! by that very walk ([`fs_mcp_search::walk_default`]), files read by handle through the sandbox;
//! kept up to date entry by entry ([`RootIndex::update`]) or rebuilt.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

use fs_mcp_sandbox::{DirHandle, EntryKind, Sandbox, escape_path};
use fs_mcp_search::{
    CandidatePlan, EntryClass, IndexedListing, WalkObserver, WalkRules, is_ignore_file,
};

use crate::grams::Grams;
use crate::query::Required;

/// Largest file indexed; a larger one is always a candidate. grep_content's line cap: no file
/// left out of a search can hold a line the search would cut (and note).
pub(crate) const MAX_INDEXED_FILE: u64 = fs_mcp_search::MAX_SEARCHED_LINE_BYTES;

/// Bytes an entry costs besides its filter and path (map node, enum, lengths), for the cap.
const ENTRY_OVERHEAD: usize = 64;

/// Bytes a skipped entry's name costs besides its bytes (set node, lengths), for the cap.
const NAME_OVERHEAD: usize = 32;

/// What keeping the name of a skipped (hidden or ignored) entry costs.
fn name_cost(name: &OsStr) -> usize {
    name.len() + NAME_OVERHEAD
}

/// A visited file: its filter, or `Always` (binary, too large, unreadable, hard-linked: always
/// searched).
#[derive(Debug)]
enum FileEntry {
    /// The filter, and the file's identity, to find it when it gets another name.
    Grams(Grams, FileId),
    Always,
}

/// A file's identity: device and inode.
type FileId = (u64, u64);

/// The inode of an unnamed (`O_TMPFILE`) file, from the name its events carry (`#<inode>`).
fn unnamed_inode(name: &OsStr) -> Option<u64> {
    name.to_str()?.strip_prefix('#')?.parse().ok()
}

/// What reading a walked file gives.
struct ReadEntry {
    entry: FileEntry,
    /// Bytes of text indexed.
    text: u64,
    /// The file's identity when it has more than one name.
    linked: Option<FileId>,
}

/// A directory the walk entered: the names it skips there (for the notes, and where
/// `search_files` counts what it leaves out), the entries it visits that are neither
/// directories nor regular files (`search_files` lists them), and whether it holds an ignore
/// file.
#[derive(Debug, Default)]
struct DirInfo {
    hidden: BTreeSet<OsString>,
    ignored: BTreeSet<OsString>,
    /// VCS directories (`.git`, `_darcs`, …).
    vcs: BTreeSet<OsString>,
    /// Symlinks, FIFOs, sockets, devices.
    other: BTreeSet<OsString>,
    rules_file: bool,
}

/// One allowed directory's index.
pub(crate) struct RootIndex {
    root: PathBuf,
    files: BTreeMap<PathBuf, FileEntry>,
    dirs: BTreeMap<PathBuf, DirInfo>,
    rules: WalkRules,
    /// Paths off the walk whose change changes the rules: the target of an ignore file that is a
    /// symlink, and what a `.git` file or symlink leads to (its `commondir`, `info`,
    /// `info/exclude`), as `fs_mcp_search`'s rules follow them. Their directories are watched.
    rule_sources: BTreeSet<PathBuf>,
    /// Heap bytes held (filters, paths, entries).
    bytes: usize,
    /// Bytes of text indexed.
    text_bytes: u64,
}

/// Why an index cannot stand for a scan; searches scan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Unusable {
    /// The cap on the index's memory is reached.
    OverCap { cap: usize },
    /// The walk could not list a directory (it may have vanished meanwhile).
    Walk(String),
    /// The walk leaves out a directory whose ignore rules must not be read (the scan says so
    /// in its notes; the index does not know what it would say).
    Rules(String),
    /// The watcher could not watch a directory.
    Watch(String),
}

impl std::fmt::Display for Unusable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unusable::OverCap { cap } => write!(
                f,
                "the index would take more than its cap of {} MiB",
                cap >> 20
            ),
            Unusable::Walk(why) | Unusable::Rules(why) | Unusable::Watch(why) => f.write_str(why),
        }
    }
}

/// What a change to one path does to the index.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Update {
    /// Applied (or not the index's concern).
    Done,
    /// The walk itself may differ (a directory, an ignore file): build again.
    Rebuild(&'static str),
}

/// Reads one walked file as grep reads it (by handle, without following a symlink) into its
/// entry, with the text bytes it covers.
fn read_entry(sandbox: &Sandbox, path: &Path) -> ReadEntry {
    let always = |linked| ReadEntry {
        entry: FileEntry::Always,
        text: 0,
        linked,
    };
    let Ok(opened) = sandbox.open_walked(path) else {
        return always(None);
    };
    let id = (opened.meta.dev, opened.meta.ino);
    // A file with another name can be written through it, and inotify reports that write only
    // to the watch of the other name's directory (outside, ignored, or another walked one):
    // no filter of it can be trusted.
    if opened.meta.nlink > 1 {
        return always(Some(id));
    }
    if opened.meta.len > MAX_INDEXED_FILE {
        return always(None);
    }
    let mut text = Vec::with_capacity(opened.meta.len as usize);
    // `take` bounds the read if the file grows meanwhile.
    match (&opened.file)
        .take(MAX_INDEXED_FILE + 1)
        .read_to_end(&mut text)
    {
        Ok(n)
            if n as u64 <= MAX_INDEXED_FILE
                && memchr::memchr(0, &text).is_none()
                && !is_transcoded(&text) =>
        {
            ReadEntry {
                entry: FileEntry::Grams(Grams::of(&text), id),
                text: n as u64,
                linked: None,
            }
        }
        _ => always(None),
    }
}

/// True for a text the search transcodes before matching: one with a UTF-16 byte order mark
/// (grep-searcher's BOM sniffing turns it into UTF-8), whose raw bytes hold none of the
/// trigrams of what is matched. (UTF-16 text often has no NUL byte: CJK characters.)
fn is_transcoded(text: &[u8]) -> bool {
    text.starts_with(&[0xFF, 0xFE]) || text.starts_with(&[0xFE, 0xFF])
}

fn entry_cost(path: &Path, entry: &FileEntry) -> usize {
    let grams = match entry {
        FileEntry::Grams(g, _) => g.bytes(),
        FileEntry::Always => 0,
    };
    path.as_os_str().len() + grams + ENTRY_OVERHEAD
}

/// Collects what the build walk reports, from its worker threads.
struct Builder<'a> {
    sandbox: &'a Sandbox,
    cap: usize,
    /// Called for every directory the walk is about to list (the watcher watches it first).
    watch_dir: &'a (dyn Fn(&Path) -> Result<(), String> + Sync),
    files: Mutex<BTreeMap<PathBuf, FileEntry>>,
    dirs: Mutex<BTreeMap<PathBuf, DirInfo>>,
    rule_sources: Mutex<BTreeSet<PathBuf>>,
    bytes: AtomicUsize,
    text_bytes: AtomicU64,
    failed: Mutex<Option<Unusable>>,
    give_up: AtomicBool,
}

impl Builder<'_> {
    fn fail(&self, why: Unusable) {
        self.give_up.store(true, Ordering::Relaxed);
        let mut failed = self.failed.lock().unwrap_or_else(|e| e.into_inner());
        failed.get_or_insert(why);
    }

    fn dir_info<T>(&self, dir: &Path, f: impl FnOnce(&mut DirInfo) -> T) -> T {
        let mut dirs = self.dirs.lock().unwrap_or_else(|e| e.into_inner());
        f(dirs.entry(dir.to_path_buf()).or_default())
    }

    /// Counts `cost` more bytes toward the cap.
    fn charge(&self, cost: usize) {
        if self.bytes.fetch_add(cost, Ordering::Relaxed) + cost > self.cap {
            self.fail(Unusable::OverCap { cap: self.cap });
        }
    }

    fn watch(&self, dir: &Path) {
        if let Err(why) = (self.watch_dir)(dir) {
            self.fail(Unusable::Watch(why));
        }
    }

    /// Watches where the rules of `dir` come from, before the walk reads them (it reads a
    /// directory's rules when it enters it, before it lists the directory's entries, so a watch
    /// added when `.git` is listed would miss a change in between): a `.git` directory and its
    /// `info`, what a `.git` file or symlink leads to, every link of an ignore file that is a
    /// symlink.
    fn watch_rules(&self, dir: &Path) {
        let Ok(handle) = self.sandbox.open_walked_dir(dir) else {
            return;
        };
        for name in [".gitignore", ".ignore"] {
            self.follow_rules_link(dir, OsStr::new(name));
        }
        let dot_git = dir.join(".git");
        match handle.stat(OsStr::new(".git")).map(|meta| meta.kind) {
            Ok(EntryKind::Dir) => {
                // Its info/exclude holds rules: watched, so a change rebuilds.
                self.watch(&dot_git);
                let info = dot_git.join("info");
                if self.sandbox.open_walked_dir(&info).is_ok() {
                    self.watch(&info);
                    self.follow_rules_link(&info, OsStr::new("exclude"));
                }
            }
            Ok(_) => self.follow_git_pointer(&dot_git),
            Err(_) => {}
        }
    }

    /// Records `path` as a source of rules and watches its directory, so that its change
    /// rebuilds.
    fn rule_source(&self, path: PathBuf) {
        if let Some(dir) = path.parent() {
            self.watch(dir);
        }
        let mut sources = self.rule_sources.lock().unwrap_or_else(|e| e.into_inner());
        sources.insert(path);
    }

    /// A rules file (`.gitignore`, `.ignore`, `info/exclude`) that is a symlink: every link of
    /// the chain after it, and its final target (inside the allowed directories; the rules
    /// follow no other), are sources of rules. (A symlink to a directory in the middle of a
    /// target's path is not followed here: retargeting it goes unseen.)
    fn follow_rules_link(&self, parent: &Path, name: &OsStr) {
        let Some(mut dir) = self.sandbox.open_walked_dir(parent).ok() else {
            return;
        };
        let mut name = name.to_os_string();
        // As many hops as the kernel follows.
        for hop in 0..=40 {
            if hop > 0 {
                self.rule_source(dir.path().join(&name));
            }
            let is_link = dir
                .stat(&name)
                .is_ok_and(|meta| meta.kind == EntryKind::Symlink);
            let Some(target) = is_link.then(|| dir.read_link(&name).ok()).flatten() else {
                return;
            };
            let next = dir.path().join(target);
            let (Some(next_dir), Some(next_name)) = (next.parent(), next.file_name()) else {
                return;
            };
            let Ok(opened) = self.sandbox.open_dir(&escape_path(next_dir)) else {
                return;
            };
            (dir, name) = (opened, next_name.to_os_string());
        }
    }

    /// A `.git` that is a file (`gitdir: …`, worktrees and submodules) or a symlink: the git
    /// directory it leads to holds the exclude rules (through `commondir`), as the rules read it.
    fn follow_git_pointer(&self, dot_git: &Path) {
        let git_dir = match self.sandbox.open_walked(dot_git) {
            Ok(pointer) => read_pointer(&pointer.file, pointer.meta.len)
                .and_then(|target| dir_at(self.sandbox, dot_git.parent()?, &target)),
            // Not a regular file: a symlink (followed inside only) or nothing usable.
            Err(_) => self.sandbox.open_dir(&escape_path(dot_git)).ok(),
        };
        let Some(git_dir) = git_dir else {
            return;
        };
        let git_path = git_dir.path().to_path_buf();
        self.rule_source(git_path.join("commondir"));
        self.rule_source(git_path.join("info"));
        let common = git_dir
            .open_read(OsStr::new("commondir"))
            .ok()
            .and_then(|(file, meta)| read_pointer(&file, meta.len))
            .and_then(|target| dir_at(self.sandbox, &git_path, &target));
        let common_path = common.map_or_else(|| git_path.clone(), |c| c.path().to_path_buf());
        if common_path != git_path {
            self.rule_source(common_path.join("info"));
        }
        let info = common_path.join("info");
        self.rule_source(info.join("exclude"));
        self.follow_rules_link(&info, OsStr::new("exclude"));
    }
}

/// Largest `.git` or `commondir` pointer file read, as the rules read them.
const MAX_POINTER_BYTES: u64 = 4096;

/// The first line of a pointer file, without a `gitdir:` prefix.
fn read_pointer(file: &std::fs::File, len: u64) -> Option<String> {
    if len > MAX_POINTER_BYTES {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(MAX_POINTER_BYTES).read_to_end(&mut bytes).ok()?;
    let line = std::str::from_utf8(&bytes).ok()?.lines().next()?;
    let target = line.strip_prefix("gitdir:").unwrap_or(line).trim();
    (!target.is_empty()).then(|| target.to_string())
}

/// The directory `target` (relative to `base` unless absolute) names, through the sandbox.
fn dir_at(sandbox: &Sandbox, base: &Path, target: &str) -> Option<DirHandle> {
    sandbox.open_dir(&escape_path(&base.join(target))).ok()
}

impl WalkObserver for Builder<'_> {
    fn entry(&self, path: &Path, is_dir: bool, class: EntryClass) {
        if self.give_up.load(Ordering::Relaxed) {
            return;
        }
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return;
        };
        let rules_file = is_ignore_file(name);
        match class {
            EntryClass::Walked if is_dir => {
                self.dir_info(path, |_| ());
                self.watch(path);
                self.watch_rules(path);
            }
            EntryClass::Hidden => {
                self.dir_info(parent, |d| d.hidden.insert(name.to_owned()));
                self.charge(name_cost(name));
            }
            EntryClass::Ignored => {
                self.dir_info(parent, |d| d.ignored.insert(name.to_owned()));
                self.charge(name_cost(name));
            }
            EntryClass::Vcs => {
                self.dir_info(parent, |d| d.vcs.insert(name.to_owned()));
                self.charge(name_cost(name));
            }
            EntryClass::Walked => {}
        }
        if rules_file {
            self.dir_info(parent, |d| d.rules_file = true);
        }
    }

    fn not_entered(&self, path: &Path) {
        self.fail(Unusable::Rules(format!(
            "{} is not entered by the walk (its ignore rules must not be read)",
            path.display()
        )));
    }

    fn file(&self, path: &Path) {
        if self.give_up.load(Ordering::Relaxed) {
            return;
        }
        let ReadEntry { entry, text, .. } = read_entry(self.sandbox, path);
        let cost = entry_cost(path, &entry);
        if self.bytes.fetch_add(cost, Ordering::Relaxed) + cost > self.cap {
            self.fail(Unusable::OverCap { cap: self.cap });
            return;
        }
        self.text_bytes.fetch_add(text, Ordering::Relaxed);
        let mut files = self.files.lock().unwrap_or_else(|e| e.into_inner());
        files.insert(path.to_path_buf(), entry);
    }

    fn other(&self, path: &Path) {
        if self.give_up.load(Ordering::Relaxed) {
            return;
        }
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return;
        };
        self.dir_info(parent, |d| d.other.insert(name.to_owned()));
        self.charge(name_cost(name));
    }

    fn failed(&self) {
        self.fail(Unusable::Walk(
            "the walk could not list a directory".to_string(),
        ));
    }
}

impl RootIndex {
    /// Walks and reads `root` (an allowed directory), calling `watch_dir` for every directory
    /// before the walk lists it.
    pub(crate) fn build(
        sandbox: &Sandbox,
        root: &Path,
        threads: usize,
        cap: usize,
        watch_dir: &(dyn Fn(&Path) -> Result<(), String> + Sync),
    ) -> Result<RootIndex, Unusable> {
        let builder = Builder {
            sandbox,
            cap,
            watch_dir,
            files: Mutex::default(),
            dirs: Mutex::default(),
            rule_sources: Mutex::default(),
            bytes: AtomicUsize::new(0),
            text_bytes: AtomicU64::new(0),
            failed: Mutex::new(None),
            give_up: AtomicBool::new(false),
        };
        builder.dir_info(root, |_| ());
        builder.watch(root);
        builder.watch_rules(root);
        let rules = fs_mcp_search::walk_default(sandbox, root, threads, &builder)
            .map_err(|e| Unusable::Walk(e.to_string()))?;
        if let Some(why) = builder
            .failed
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
        {
            return Err(why);
        }
        let dirs = builder.dirs.into_inner().unwrap_or_else(|e| e.into_inner());
        let dir_bytes: usize = dirs
            .keys()
            .map(|d| d.as_os_str().len() + ENTRY_OVERHEAD)
            .sum();
        Ok(RootIndex {
            root: root.to_path_buf(),
            files: builder
                .files
                .into_inner()
                .unwrap_or_else(|e| e.into_inner()),
            dirs,
            rules,
            rule_sources: builder
                .rule_sources
                .into_inner()
                .unwrap_or_else(|e| e.into_inner()),
            bytes: builder.bytes.into_inner() + dir_bytes,
            text_bytes: builder.text_bytes.into_inner(),
        })
    }

    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    pub(crate) fn text_bytes(&self) -> u64 {
        self.text_bytes
    }

    pub(crate) fn file_count(&self) -> usize {
        self.files.len()
    }

    /// True when a change of `path` changes the rules read through a symlink or a `.git`
    /// pointer (wherever `path` lies).
    pub(crate) fn is_rule_source(&self, path: &Path) -> bool {
        self.rule_sources.contains(path)
    }

    /// Brings the index up to date with whatever `path` is now (an event named it). Reads the
    /// current state by handle rather than trusting the event's kind, so events may be merged
    /// or arrive late.
    pub(crate) fn update(&mut self, sandbox: &Sandbox, path: &Path, cap: usize) -> Update {
        if self.dirs.contains_key(path) {
            return Update::Rebuild("a directory the walk enters changed");
        }
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return Update::Done;
        };
        if !self.dirs.contains_key(parent) {
            return self.outside_walk(path);
        }
        if is_ignore_file(name) || name == ".git" {
            return Update::Rebuild("ignore rules changed");
        }
        let Ok(dir) = sandbox.open_walked_dir(parent) else {
            return Update::Rebuild("a directory the walk enters is gone");
        };
        let kind = match dir.stat(name) {
            Ok(meta) => Some(meta.kind),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(_) => return Update::Rebuild("an entry could not be examined"),
        };
        self.forget(path, parent, name);
        let Some(kind) = kind else {
            // Writes through an `O_TMPFILE` descriptor, also after linkat(2) gave the file a
            // name, are reported under the kernel's name for it, `#<inode>`.
            if let Some(ino) = unnamed_inode(name) {
                self.distrust(|(_, of)| of == ino);
            }
            return Update::Done;
        };
        let is_dir = kind == EntryKind::Dir;
        match (self.rules.classify(path, is_dir), kind) {
            (EntryClass::Walked, EntryKind::Dir) => Update::Rebuild("a directory appeared"),
            (EntryClass::Vcs, _) => Update::Rebuild("a repository appeared"),
            (EntryClass::Hidden, _) => {
                self.dir_mut(parent).hidden.insert(name.to_owned());
                self.charge_name(name, cap)
            }
            (EntryClass::Ignored, _) => {
                self.dir_mut(parent).ignored.insert(name.to_owned());
                self.charge_name(name, cap)
            }
            (EntryClass::Walked, EntryKind::File) => {
                let ReadEntry {
                    entry,
                    text,
                    linked,
                } = read_entry(sandbox, path);
                if let Some(id) = linked {
                    self.distrust(|of| of == id);
                }
                self.bytes += entry_cost(path, &entry);
                self.text_bytes += text;
                self.files.insert(path.to_path_buf(), entry);
                if self.bytes > cap {
                    return Update::Rebuild("the index grew past its cap");
                }
                Update::Done
            }
            // A symlink, FIFO, socket or device: visited by the walk (and listed by
            // `search_files`) but never searched.
            (EntryClass::Walked, _) => {
                self.dir_mut(parent).other.insert(name.to_owned());
                self.charge_name(name, cap)
            }
        }
    }

    /// An event below a directory the walk does not enter: only a repository's exclude file
    /// matters there.
    fn outside_walk(&self, path: &Path) -> Update {
        let mut components = path.ancestors();
        // `<dir>/.git/info/exclude`, `<dir>/.git/info`, `<dir>/.git/commondir`.
        for _ in 0..3 {
            let Some(ancestor) = components.next() else {
                break;
            };
            if ancestor.file_name() == Some(OsStr::new(".git"))
                && ancestor.parent().is_some_and(|d| self.dirs.contains_key(d))
            {
                let rest = path.strip_prefix(ancestor).unwrap_or(path);
                let relevant = rest.as_os_str().is_empty()
                    || rest.starts_with("info")
                    || rest == Path::new("commondir");
                return if relevant {
                    Update::Rebuild("a repository's exclude rules changed")
                } else {
                    Update::Done
                };
            }
        }
        Update::Done
    }

    /// Makes every file whose identity `is_it` always a candidate: it just got another name
    /// (link(2) reports nothing to the watch of its other names' directories), or was written
    /// through a descriptor whose events name no path.
    fn distrust(&mut self, is_it: impl Fn(FileId) -> bool) {
        for entry in self.files.values_mut() {
            if let FileEntry::Grams(grams, of) = entry
                && is_it(*of)
            {
                self.bytes = self.bytes.saturating_sub(grams.bytes());
                *entry = FileEntry::Always;
            }
        }
    }

    fn dir_mut(&mut self, dir: &Path) -> &mut DirInfo {
        self.dirs.entry(dir.to_path_buf()).or_default()
    }

    /// Drops what the index knew of the entry `name` of `parent`.
    fn forget(&mut self, path: &Path, parent: &Path, name: &OsStr) {
        if let Some(entry) = self.files.remove(path) {
            self.bytes = self.bytes.saturating_sub(entry_cost(path, &entry));
        }
        let dir = self.dir_mut(parent);
        let removed = usize::from(dir.hidden.remove(name))
            + usize::from(dir.ignored.remove(name))
            + usize::from(dir.vcs.remove(name))
            + usize::from(dir.other.remove(name));
        self.bytes = self.bytes.saturating_sub(removed * name_cost(name));
    }

    /// Counts a skipped entry's name just kept toward the cap.
    fn charge_name(&mut self, name: &OsStr, cap: usize) -> Update {
        self.bytes += name_cost(name);
        if self.bytes > cap {
            return Update::Rebuild("the index grew past its cap");
        }
        Update::Done
    }

    /// The paths whose state the build may have missed, to apply as changes once every
    /// directory is watched: the walker lists a directory before it tells the index about it
    /// (so before the index watches it), and an entry created or removed in between is seen
    /// only by listing each directory again now, by handle. (A file's content is read after
    /// its directory is watched, so later writes are reported.)
    pub(crate) fn unlisted_changes(&self, sandbox: &Sandbox) -> Result<Vec<PathBuf>, Update> {
        let mut changed = Vec::new();
        let mut listed = std::collections::HashSet::new();
        for (dir, info) in &self.dirs {
            let Ok(handle) = sandbox.open_walked_dir(dir) else {
                return Err(Update::Rebuild("a directory the walk enters is gone"));
            };
            let Ok(entries) = handle.entries() else {
                return Err(Update::Rebuild("a directory could not be listed"));
            };
            for entry in entries {
                let path = dir.join(&entry.name);
                // Rules (ignore files, `.git` and what it leads to) are read when the walk
                // enters their directory, after it is watched: one there now was read or is
                // reported, and taking it for a change here would rebuild for ever.
                if is_ignore_file(&entry.name) || entry.name == ".git" || self.is_rule_source(&path)
                {
                    listed.insert(path);
                    continue;
                }
                let known = self.files.contains_key(&path)
                    || self.dirs.contains_key(&path)
                    || info.hidden.contains(&entry.name)
                    || info.ignored.contains(&entry.name)
                    || info.vcs.contains(&entry.name)
                    || info.other.contains(&entry.name);
                if !known {
                    changed.push(path.clone());
                }
                listed.insert(path);
            }
        }
        let known = self
            .files
            .keys()
            .chain(self.dirs.keys().filter(|d| d.as_path() != self.root));
        changed.extend(known.filter(|p| !listed.contains(*p)).cloned());
        Ok(changed)
    }

    /// The listing `search_files` with its default options does from `root` (canonical; a
    /// directory the walk enters), the listed entries filtered by `wanted`, or `None` when the
    /// walk does not enter it.
    pub(crate) fn listing(
        &self,
        root: &Path,
        wanted: &dyn Fn(&Path) -> bool,
    ) -> Option<IndexedListing> {
        if !self.dirs.contains_key(root) {
            return None;
        }
        let mut listing = IndexedListing::default();
        for (dir, info) in self
            .dirs
            .range::<Path, _>((std::ops::Bound::Included(root), std::ops::Bound::Unbounded))
            .take_while(|(d, _)| d.starts_with(root))
        {
            let left_out = info.hidden.iter().chain(&info.ignored).chain(&info.vcs);
            listing.left_out.extend(left_out.map(|name| dir.join(name)));
            listing.listed.extend(
                info.other
                    .iter()
                    .map(|name| dir.join(name))
                    .filter(|path| wanted(path)),
            );
        }
        listing.listed.extend(
            self.files
                .range::<Path, _>((std::ops::Bound::Included(root), std::ops::Bound::Unbounded))
                .take_while(|(p, _)| p.starts_with(root))
                .map(|(path, _)| path)
                .filter(|path| wanted(path))
                .cloned(),
        );
        Some(listing)
    }

    /// The plan for a search of `root` (canonical; a directory the walk enters) for `required`,
    /// or `None` when the walk does not enter it.
    pub(crate) fn plan(&self, root: &Path, required: &Required) -> Option<CandidatePlan> {
        if !self.dirs.contains_key(root) {
            return None;
        }
        let mut plan = CandidatePlan {
            root: root.to_path_buf(),
            ignore_rules: self.rules.rules_in_force(root),
            ..CandidatePlan::default()
        };
        for (dir, info) in self
            .dirs
            .range::<Path, _>((std::ops::Bound::Included(root), std::ops::Bound::Unbounded))
            .take_while(|(d, _)| d.starts_with(root))
        {
            let _ = dir;
            plan.hidden += info.hidden.len() as u64;
            plan.ignore_rules |= info.rules_file || !info.ignored.is_empty();
        }
        for (path, entry) in self
            .files
            .range::<Path, _>((std::ops::Bound::Included(root), std::ops::Bound::Unbounded))
            .take_while(|(p, _)| p.starts_with(root))
        {
            let may_match = match entry {
                FileEntry::Always => true,
                FileEntry::Grams(grams, _) => required.may_be_met_by(grams),
            };
            if may_match {
                plan.candidates.push(path.clone());
            } else {
                plan.excluded += 1;
            }
        }
        Some(plan)
    }
}
