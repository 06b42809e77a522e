//! `search_files`: files whose name (or relative path) matches a glob.
//!
//! * A pattern without `/` (and without `**`) matches the **file name** at any depth, like the
//!   original's `rglob`: `*.rs`, `Cargo.toml`, `test_*.py`.
//! * A pattern with `/` or `**` matches the **path relative to `path`**: `src/**/*.rs`,
//!   `**/fixtures/*.json`, `docs/*.md` (only directly in `docs/`). A leading `./` or `/` anchors
//!   at `path` and is dropped.
//! * `*` and `?` never cross `/`; `**` does; `{a,b}` and `[abc]` work as in globset.
//!
//! The walk honours `.gitignore`/hidden rules like `grep_content` (see [`crate::walk`]). Only
//! files (and symlinks, shown but not followed) are listed, sorted, at most `max_results`, with a
//! note giving the total, and a `Skipped:` line counting the matching files left out as hidden or
//! ignored (counted in the same walk, within [`SKIPPED_COUNT_BUDGET`] left-out entries).
//!
//! With an index (`--index`, a [`ListingSource`]) and the default options, the walk's outcome
//! comes from the index instead ([`find_files_with`]): its entries are listed as the walk's
//! are (confirmed by handle), and only what lies below its left-out entries is walked, to count.

use std::collections::{BinaryHeap, HashSet};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, RwLock};

use fs_mcp_sandbox::Sandbox;
use globset::{GlobBuilder, GlobMatcher};
use ignore::WalkState;

use crate::error::SearchError;
use crate::rules::Verdict;
use crate::walk::{self, WalkOptions};

/// Settings of a `search_files` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindOptions {
    /// Also list hidden files and descend into hidden directories.
    pub include_hidden: bool,
    /// Also list files excluded by `.gitignore`/`.ignore` (and VCS directories).
    pub include_ignored: bool,
    /// Paths listed at most; the note gives the total.
    pub max_results: usize,
}

impl FindOptions {
    /// [`FindOptions::max_results`] when the client gives none.
    pub const DEFAULT_MAX_RESULTS: usize = 200;
}

impl Default for FindOptions {
    fn default() -> Self {
        FindOptions {
            include_hidden: false,
            include_ignored: false,
            max_results: Self::DEFAULT_MAX_RESULTS,
        }
    }
}

enum Target {
    Name(GlobMatcher),
    RelativePath(GlobMatcher),
}

fn compile(pattern: &str) -> Result<Target, SearchError> {
    let trimmed = pattern.trim();
    let mut p = trimmed;
    while let Some(rest) = p.strip_prefix("./") {
        p = rest;
    }
    let p = p.trim_start_matches('/');
    if p.is_empty() {
        return Err(SearchError::InvalidGlob {
            pattern: pattern.to_string(),
            reason: None,
        });
    }
    let glob = GlobBuilder::new(p)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map_err(|e| SearchError::InvalidGlob {
            pattern: pattern.to_string(),
            reason: Some(e.kind().to_string()),
        })?;
    let matcher = glob.compile_matcher();
    Ok(if p.contains('/') || p.contains("**") {
        Target::RelativePath(matcher)
    } else {
        Target::Name(matcher)
    })
}

fn is_match(target: &Target, root: &Path, path: &Path) -> bool {
    match target {
        Target::Name(m) => path.file_name().is_some_and(|name| m.is_match(name)),
        Target::RelativePath(m) => path.strip_prefix(root).is_ok_and(|rel| m.is_match(rel)),
    }
}

/// Hidden or ignored entries the walk visits at most (to count the matching files among them), so
/// that a huge ignored tree (`node_modules/`, `target/`) costs a bounded time.
const SKIPPED_COUNT_BUDGET: u64 = 5_000;

/// What `search_files` found, as data; the caller words it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundFiles {
    /// The first [`FindOptions::max_results`] matching files, sorted, as displayed paths.
    pub files: Vec<String>,
    /// Matching files, listed or not (more than `files` when the listing was cut).
    pub total: u64,
    /// The matching files left out as hidden or ignored, by the option that lists them.
    pub left_out: Vec<LeftOut>,
    /// The left-out files were counted only within this many left-out entries (so the counts
    /// are lower bounds), when the count stopped there.
    pub counting_stopped_after: Option<u64>,
}

/// Matching files `search_files` left out. Exhaustive on purpose: a new kind does not compile
/// until the binary words it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeftOut {
    /// Matching files under hidden names.
    Hidden {
        /// How many (at least, when the count stopped).
        files: u64,
    },
    /// Matching files excluded by `.gitignore`/`.ignore` rules or inside VCS directories.
    Ignored {
        /// How many (at least, when the count stopped).
        files: u64,
    },
    /// The count stopped before any ignored matching file was counted: some may exist.
    IgnoredNotCounted,
    /// Directories not entered: an ignore file in them is of a kind never read as rules
    /// ([`crate::rules::UNSAFE_RULES_KINDS`]).
    UnsafeRules {
        /// How many.
        dirs: u64,
    },
}

impl LeftOut {
    /// The option that lists these files.
    pub fn listed_by(self) -> walk::Include {
        match self {
            LeftOut::Hidden { .. } => walk::Include::Hidden,
            LeftOut::Ignored { .. } | LeftOut::IgnoredNotCounted | LeftOut::UnsafeRules { .. } => {
                walk::Include::Ignored
            }
        }
    }
}

/// Lists the files under `path` matching `pattern`, sorted, as displayed paths: relative to the
/// first allowed directory like every other path, whatever `path` is (the pattern itself is
/// matched against the path relative to `path`), and counts the matching files left out as hidden
/// or ignored.
///
/// One walk does both: it visits hidden and ignored entries too, decides for each one whether
/// the options leave it out ([`Exclusions`]), lists the others, and counts the left-out matches
/// until [`SKIPPED_COUNT_BUDGET`] left-out entries were visited (then it stops descending into
/// left-out directories, and the count is a lower bound).
pub fn find_files(
    sandbox: &Sandbox,
    path: &str,
    pattern: &str,
    options: &FindOptions,
) -> Result<FoundFiles, SearchError> {
    find_files_with(sandbox, path, pattern, options, None)
}

/// The outcome of the walk `search_files` does with its default options (no hidden, no ignored
/// entries) from `root`, as an index kept fresh knows it (`--index`): the entries it lists, and
/// the hidden, ignored and VCS entries it leaves out in the directories it enters. What lies
/// below the left-out entries is walked again when asked, as a scan counts it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IndexedListing {
    /// The walk's entries below `root` that are not directories (regular files, symlinks,
    /// FIFOs, …) and that the caller's filter kept (the glob).
    pub listed: Vec<PathBuf>,
    /// The entries the walk leaves out (hidden names, ignored entries, VCS directories) in the
    /// directories it enters below `root` and in `root`.
    pub left_out: Vec<PathBuf>,
}

/// Where [`find_files_with`] may take its walk's outcome from instead of walking (an index).
pub trait ListingSource {
    /// The default walk's outcome from `root` (canonical), keeping in
    /// [`IndexedListing::listed`] only the entries `wanted` accepts; `None`: the search walks.
    fn listing(&self, root: &Path, wanted: &dyn Fn(&Path) -> bool) -> Option<IndexedListing>;
}

/// [`find_files`], taking the walk's outcome from `source` when it has it for these options.
/// The answer is the scan's: every name listed or counted is confirmed by handle as the scan
/// confirms it, and what lies below left-out entries is walked now, as the scan walks it.
pub fn find_files_with(
    sandbox: &Sandbox,
    path: &str,
    pattern: &str,
    options: &FindOptions,
    source: Option<&dyn ListingSource>,
) -> Result<FoundFiles, SearchError> {
    let target = compile(pattern)?;
    let (root, meta) = walk::resolve_existing(sandbox, path)?;
    if meta.kind != fs_mcp_sandbox::EntryKind::Dir {
        return Err(SearchError::NotADirectory {
            path: sandbox.display(&root),
        });
    }
    let finder = Finder {
        sandbox,
        exclusions: Exclusions::new(sandbox, &root, options)?,
        target,
        root: &root,
        options,
        cap: options.max_results.max(1),
        best: Mutex::new(BinaryHeap::with_capacity(options.max_results.max(1) + 1)),
        total: AtomicU64::new(0),
        counts: SkipCounts::default(),
    };
    let served = !options.include_hidden && !options.include_ignored;
    let listing = source
        .filter(|_| served)
        .and_then(|source| source.listing(&root, &|p| finder.matches(p)));
    match listing {
        Some(listing) => finder.list_from(listing)?,
        None => finder.scan()?,
    }
    Ok(finder.answer())
}

/// One `search_files` call's matcher, rules and findings.
struct Finder<'a> {
    sandbox: &'a Sandbox,
    target: Target,
    root: &'a Path,
    options: &'a FindOptions,
    exclusions: Exclusions<'a>,
    cap: usize,
    /// The `cap` smallest displayed paths seen so far (a max-heap, so the largest is dropped).
    best: Mutex<BinaryHeap<String>>,
    total: AtomicU64,
    counts: SkipCounts,
}

impl Finder<'_> {
    fn matches(&self, path: &Path) -> bool {
        is_match(&self.target, self.root, path)
    }

    /// Walks everything below the root, listing what the options keep and counting the rest.
    fn scan(&self) -> Result<(), SearchError> {
        self.walk(self.root, &[])
    }

    /// Walks `roots` (the search root, or left-out directories below it), visiting every entry
    /// below them.
    fn walk(&self, first: &Path, others: &[PathBuf]) -> Result<(), SearchError> {
        let everything = WalkOptions {
            include_hidden: true,
            include_ignored: true,
        };
        let (mut builder, _) = walk::walker(
            self.sandbox,
            first,
            everything,
            walk::default_threads(),
            true,
            None,
        )?;
        for other in others {
            builder.add(other);
        }
        builder.build_parallel().run(|| {
            let mut names = walk::NameCheck::new(self.sandbox);
            Box::new(move |entry| {
                let Ok(entry) = entry else {
                    return WalkState::Continue;
                };
                if entry.depth() == 0 {
                    return WalkState::Continue;
                }
                let is_dir = entry.file_type().is_none_or(|t| t.is_dir());
                let exclusion = self
                    .exclusions
                    .classify(entry.path(), entry.file_name(), is_dir);
                self.visit(&mut names, entry.path(), is_dir, exclusion)
            })
        });
        Ok(())
    }

    /// What the scan does with an entry below the root (`exclusion` says why the options leave
    /// it out, if they do).
    fn visit(
        &self,
        names: &mut walk::NameCheck<'_>,
        path: &Path,
        is_dir: bool,
        exclusion: Exclusion,
    ) -> WalkState {
        // Its rules are read (by handle) to classify what is in it, also in a left-out
        // directory entered to count (one excluded by a rule above the root); under a hidden
        // name left out, the rules are never asked.
        if is_dir && !exclusion.hidden {
            match self.exclusions.enter(path, exclusion) {
                walk::Entered::Rules => {}
                walk::Entered::Unsafe => {
                    self.counts.unsafe_rules.fetch_add(1, Ordering::Relaxed);
                    return WalkState::Skip;
                }
                walk::Entered::Gone => return WalkState::Skip,
            }
        }
        if exclusion.left_out() {
            // Counted only if the directory reached by handles holds it too: a left-out
            // directory swapped for a symlink must not have outside names counted.
            let name = path.file_name().unwrap_or_default();
            return self
                .counts
                .left_out(name, is_dir, exclusion, self.options, || {
                    self.matches(path) && names.exists(path)
                });
        }
        if !is_dir {
            self.list(names, path);
        }
        WalkState::Continue
    }

    /// Lists `path`, a non-directory entry the options keep, if it matches.
    fn list(&self, names: &mut walk::NameCheck<'_>, path: &Path) {
        // The walker lists directories by path (and an index is a hint); a name is shown only
        // if the directory reached by handles (no symlink anywhere) holds it, so a swap cannot
        // leak outside names.
        if self.matches(path) && names.exists(path) {
            self.total.fetch_add(1, Ordering::Relaxed);
            let shown = self.sandbox.display(path);
            let mut heap = self.best.lock().unwrap_or_else(|e| e.into_inner());
            if heap.len() < self.cap {
                heap.push(shown);
            } else if heap.peek().is_some_and(|top| shown < *top) {
                heap.pop();
                heap.push(shown);
            }
        }
    }

    /// What the scan does, from an index's listing: its entries are listed as the walk's are,
    /// and its left-out entries counted and walked as the scan walks them.
    fn list_from(&self, mut listing: IndexedListing) -> Result<(), SearchError> {
        // Grouped by directory, so each directory is opened once to confirm its names (per
        // thread: the confirmations, one `fstatat` each, are most of the work).
        listing.listed.sort_unstable_by(|a, b| {
            a.parent()
                .map(Path::as_os_str)
                .cmp(&b.parent().map(Path::as_os_str))
        });
        let per_thread = listing
            .listed
            .len()
            .div_ceil(walk::default_threads())
            .max(1);
        std::thread::scope(|scope| {
            for part in listing.listed.chunks(per_thread) {
                scope.spawn(move || {
                    let mut names = walk::NameCheck::new(self.sandbox);
                    for path in part {
                        self.list(&mut names, path);
                    }
                });
            }
        });
        let mut names = walk::NameCheck::new(self.sandbox);
        let mut kinds = KindCheck::new(self.sandbox);
        let mut below = Vec::new();
        for path in &listing.left_out {
            let Some(name) = path.file_name() else {
                continue;
            };
            // Hidden or (a rule, a VCS directory) ignored: as the scan classifies a left-out
            // entry of a directory it lists.
            let hidden = walk::is_hidden(name);
            // Past the count's budget a hidden entry is neither counted nor entered (nor are
            // its rules read): no need to look at it.
            if hidden && self.counts.past_budget() {
                continue;
            }
            // As the walker sees it now (a listing by the scan would).
            let Some(is_dir) = kinds.is_dir(path) else {
                continue;
            };
            let exclusion = Exclusion {
                hidden,
                ignored: !hidden,
            };
            // Entered only while reachable without a symlink, as the scan's walker prunes a
            // directory swapped for one (a walk's roots are not pruned by it).
            if self.visit(&mut names, path, is_dir, exclusion) == WalkState::Continue
                && is_dir
                && self.sandbox.open_walked_dir(path).is_ok()
            {
                below.push(path.clone());
            }
        }
        match below.split_first() {
            Some((first, others)) => self.walk(first, others),
            None => Ok(()),
        }
    }

    fn answer(self) -> FoundFiles {
        let paths = self
            .best
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
            .into_sorted_vec();
        let skipped = self.counts.finish(self.options);
        FoundFiles {
            files: paths,
            total: self.total.load(Ordering::Relaxed),
            left_out: skipped.left_out(),
            counting_stopped_after: skipped.partial.then_some(SKIPPED_COUNT_BUDGET),
        }
    }
}

/// Whether entries (named by an index) are directories, as reached now by handles without
/// following any symlink; `None` when gone.
struct KindCheck<'s> {
    sandbox: &'s Sandbox,
    last: Option<(PathBuf, Option<fs_mcp_sandbox::DirHandle>)>,
}

impl<'s> KindCheck<'s> {
    fn new(sandbox: &'s Sandbox) -> KindCheck<'s> {
        KindCheck {
            sandbox,
            last: None,
        }
    }

    fn is_dir(&mut self, path: &Path) -> Option<bool> {
        let (parent, name) = (path.parent()?, path.file_name()?);
        if self.last.as_ref().is_none_or(|(p, _)| p != parent) {
            let handle = self.sandbox.open_walked_dir(parent).ok();
            self.last = Some((parent.to_path_buf(), handle));
        }
        let (_, dir) = self.last.as_ref()?;
        let meta = dir.as_ref()?.stat(name).ok()?;
        Some(meta.kind == fs_mcp_sandbox::EntryKind::Dir)
    }
}

/// Why the options leave an entry out of the listing (both can hold).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Exclusion {
    /// The entry or a directory above it (below the walk root) has a hidden name.
    hidden: bool,
    /// The entry or a directory above it is excluded by ignore rules or is a VCS directory.
    ignored: bool,
}

impl Exclusion {
    fn left_out(self) -> bool {
        self.hidden || self.ignored
    }
}

/// The listing rules of [`walk::walker`] without `include_hidden`/`include_ignored`, applied per
/// entry of a walk that visits everything: hidden names, VCS directories, and the ignore rules
/// read by handle ([`walk::RuleTree`], which includes those of the directories above the walk
/// root). What holds for a directory holds for everything under it (a rule-respecting walk
/// would not have entered it): names are checked along the whole path below the root, and the
/// directories left out by a rule are remembered for their entries.
struct Exclusions<'a> {
    root: &'a Path,
    include_hidden: bool,
    /// `None` with `include_ignored` (no rule applies).
    tree: Option<walk::RuleTree>,
    /// Directories excluded by a rule (or under one), entered only to count.
    ignored_dirs: RwLock<HashSet<PathBuf>>,
}

impl<'a> Exclusions<'a> {
    fn new(
        sandbox: &Sandbox,
        root: &'a Path,
        options: &FindOptions,
    ) -> Result<Exclusions<'a>, SearchError> {
        let tree = if options.include_ignored {
            None
        } else {
            Some(walk::RuleTree::load(sandbox, root, None)?)
        };
        Ok(Exclusions {
            root,
            include_hidden: options.include_hidden,
            tree,
            ignored_dirs: RwLock::new(HashSet::new()),
        })
    }

    /// The verdict for the entry `path` named `name` (below the root).
    fn classify(&self, path: &Path, name: &OsStr, is_dir: bool) -> Exclusion {
        let Ok(rel) = path.strip_prefix(self.root) else {
            return Exclusion::default();
        };
        let mut verdict = Exclusion::default();
        if !self.include_hidden && rel.components().any(|c| walk::is_hidden(c.as_os_str())) {
            // Under a hidden name the category is settled: the rules need not be asked.
            verdict.hidden = true;
            return verdict;
        }
        let Some(tree) = &self.tree else {
            return verdict;
        };
        let in_vcs_dir = (is_dir && walk::is_vcs_dir(name))
            || rel
                .parent()
                .is_some_and(|p| p.components().any(|c| walk::is_vcs_dir(c.as_os_str())));
        let under_ignored = path.parent().is_some_and(|dir| {
            let dirs = self.ignored_dirs.read().unwrap_or_else(|e| e.into_inner());
            dirs.contains(dir)
        });
        verdict.ignored =
            in_vcs_dir || under_ignored || tree.verdict(path, is_dir) == Verdict::Ignore;
        verdict
    }

    /// Reads the rules of a directory the walk is about to enter (not under a hidden name left
    /// out) and remembers whether it is left out by a rule.
    fn enter(&self, dir: &Path, exclusion: Exclusion) -> walk::Entered {
        let Some(tree) = &self.tree else {
            return walk::Entered::Rules;
        };
        if exclusion.ignored {
            let mut dirs = self.ignored_dirs.write().unwrap_or_else(|e| e.into_inner());
            dirs.insert(dir.to_path_buf());
        }
        tree.enter(dir)
    }
}

/// Counts of the matching files the listing left out, filled in during the walk.
#[derive(Default)]
struct SkipCounts {
    /// Left-out entries visited so far (files and directories, matching or not).
    visited: AtomicU64,
    hidden: AtomicU64,
    ignored: AtomicU64,
    partial: AtomicBool,
    /// Directories not entered: an ignore file in them must not be read.
    unsafe_rules: AtomicU64,
}

impl SkipCounts {
    /// Counts a left-out entry (if it is a matching file) and says whether to descend into it.
    fn left_out(
        &self,
        name: &OsStr,
        is_dir: bool,
        exclusion: Exclusion,
        options: &FindOptions,
        matches: impl FnOnce() -> bool,
    ) -> WalkState {
        if self.visited.fetch_add(1, Ordering::Relaxed) >= SKIPPED_COUNT_BUDGET {
            self.partial.store(true, Ordering::Relaxed);
            return if is_dir {
                WalkState::Skip
            } else {
                WalkState::Continue
            };
        }
        if is_dir {
            // Without include_hidden, `.git` would need both options to be listed: its files
            // are not counted (nor walked), so the count names what one option would add.
            return if !options.include_hidden && walk::is_vcs_dir(name) {
                WalkState::Skip
            } else {
                WalkState::Continue
            };
        }
        if matches() {
            let counter = if exclusion.hidden {
                &self.hidden
            } else {
                &self.ignored
            };
            counter.fetch_add(1, Ordering::Relaxed);
        }
        WalkState::Continue
    }

    /// The budget is spent: a left-out entry is then only noted as not counted.
    fn past_budget(&self) -> bool {
        if self.visited.load(Ordering::Relaxed) >= SKIPPED_COUNT_BUDGET {
            self.partial.store(true, Ordering::Relaxed);
            return true;
        }
        false
    }

    fn finish(&self, options: &FindOptions) -> Skipped {
        Skipped {
            hidden: self.hidden.load(Ordering::Relaxed),
            ignored: self.ignored.load(Ordering::Relaxed),
            partial: self.partial.load(Ordering::Relaxed),
            unsafe_rules: self.unsafe_rules.load(Ordering::Relaxed),
            include_hidden: options.include_hidden,
            include_ignored: options.include_ignored,
        }
    }
}

/// Matching files the listing left out.
struct Skipped {
    /// Under a hidden name (only counted without `include_hidden`).
    hidden: u64,
    /// Excluded by ignore rules or inside a VCS directory (only counted without `include_ignored`).
    ignored: u64,
    /// The count stopped at [`SKIPPED_COUNT_BUDGET`] entries: the numbers are lower bounds.
    partial: bool,
    /// Directories not entered: an ignore file in them must not be read.
    unsafe_rules: u64,
    include_hidden: bool,
    include_ignored: bool,
}

impl Skipped {
    /// What the options left out, in the order the note gives it.
    fn left_out(&self) -> Vec<LeftOut> {
        let mut left_out = Vec::new();
        if !self.include_hidden && self.hidden > 0 {
            left_out.push(LeftOut::Hidden { files: self.hidden });
        }
        if !self.include_ignored && self.ignored > 0 {
            left_out.push(LeftOut::Ignored {
                files: self.ignored,
            });
        } else if !self.include_ignored && self.partial {
            left_out.push(LeftOut::IgnoredNotCounted);
        }
        if self.unsafe_rules > 0 {
            left_out.push(LeftOut::UnsafeRules {
                dirs: self.unsafe_rules,
            });
        }
        left_out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fs_mcp_sandbox::testing::Fixture;

    /// The listed paths, one per line.
    fn find(fx: &Fixture, path: &str, pattern: &str) -> String {
        find_files(&fx.sandbox, path, pattern, &FindOptions::default())
            .unwrap()
            .files
            .join("\n")
    }

    fn fixture() -> Fixture {
        let fx = Fixture::new();
        fx.write("main.rs", "");
        fx.write("src/lib.rs", "");
        fx.write("src/deep/mod.rs", "");
        fx.write("docs/a.md", "");
        fx.write("docs/sub/b.md", "");
        fx.write(".hidden/x.rs", "");
        fx.write("gen/out.rs", "");
        fx.write(".gitignore", "gen/\n");
        fx
    }

    #[test]
    fn the_found_files_are_the_data_the_text_is_rendered_from() {
        let fx = Fixture::new();
        fx.write("a.rs", "");
        fx.write("b.rs", "");
        fx.write(".hidden.rs", "");
        let options = FindOptions {
            max_results: 1,
            ..FindOptions::default()
        };
        let found = find_files(&fx.sandbox, ".", "*.rs", &options).unwrap();
        assert_eq!(
            (found.files.as_slice(), found.total),
            (&["a.rs".to_string()][..], 2)
        );
        assert_eq!(found.left_out, [LeftOut::Hidden { files: 1 }]);
        assert_eq!(found.left_out[0].listed_by(), walk::Include::Hidden);
        assert_eq!(found.counting_stopped_after, None);
    }

    #[test]
    fn name_patterns_match_at_any_depth_sorted() {
        let fx = fixture();
        assert_eq!(
            find(&fx, ".", "*.rs"),
            "main.rs\nsrc/deep/mod.rs\nsrc/lib.rs"
        );
        assert_eq!(find(&fx, "src", "*.rs"), "src/deep/mod.rs\nsrc/lib.rs");
        assert_eq!(find(&fx, ".", "lib.rs"), "src/lib.rs");
    }

    #[test]
    fn path_patterns_match_relative_paths() {
        let fx = fixture();
        assert_eq!(find(&fx, ".", "docs/*.md"), "docs/a.md");
        assert_eq!(find(&fx, ".", "docs/**/*.md"), "docs/a.md\ndocs/sub/b.md");
        assert_eq!(find(&fx, ".", "**/mod.rs"), "src/deep/mod.rs");
        assert_eq!(find(&fx, ".", "./src/*.rs"), "src/lib.rs");
        assert_eq!(find(&fx, "src", "deep/*.rs"), "src/deep/mod.rs");
    }

    #[test]
    fn ignored_and_hidden_need_options() {
        let fx = fixture();
        let all = FindOptions {
            include_hidden: true,
            include_ignored: true,
            ..FindOptions::default()
        };
        let out = find_files(&fx.sandbox, ".", "*.rs", &all).unwrap();
        assert!(
            out.files.contains(&".hidden/x.rs".to_string())
                && out.files.contains(&"gen/out.rs".to_string()),
            "{out:?}"
        );
        assert_eq!(out.left_out, []);
        let out = find_files(&fx.sandbox, ".", "out.rs", &FindOptions::default()).unwrap();
        assert_eq!(
            (out.files.len(), out.left_out.clone()),
            (0, vec![LeftOut::Ignored { files: 1 }])
        );
        assert_eq!(out.left_out[0].listed_by(), walk::Include::Ignored);
    }

    #[test]
    fn skipped_matches_are_counted_even_when_some_are_listed() {
        let fx = fixture();
        fx.write("gen/more.rs", "");
        let out = find_files(&fx.sandbox, ".", "*.rs", &FindOptions::default()).unwrap();
        assert_eq!(out.files, ["main.rs", "src/deep/mod.rs", "src/lib.rs"]);
        assert_eq!(
            out.left_out,
            [LeftOut::Hidden { files: 1 }, LeftOut::Ignored { files: 2 }]
        );
        let hidden_too = FindOptions {
            include_hidden: true,
            ..FindOptions::default()
        };
        let out = find_files(&fx.sandbox, ".", "*.rs", &hidden_too).unwrap();
        assert_eq!(
            out.files,
            [".hidden/x.rs", "main.rs", "src/deep/mod.rs", "src/lib.rs"]
        );
        assert_eq!(out.left_out, [LeftOut::Ignored { files: 2 }]);
        // Files inside .git need both options: not counted without include_hidden, counted as
        // ignored with it.
        fx.write(".git/notes.rs", "");
        let out = find_files(&fx.sandbox, ".", "*.rs", &FindOptions::default()).unwrap();
        assert_eq!(
            out.left_out,
            [LeftOut::Hidden { files: 1 }, LeftOut::Ignored { files: 2 }]
        );
        let out = find_files(&fx.sandbox, ".", "*.rs", &hidden_too).unwrap();
        assert_eq!(out.left_out, [LeftOut::Ignored { files: 3 }]);
        // Nothing left out: no note.
        assert_eq!(find(&fx, "docs", "*.md"), "docs/a.md\ndocs/sub/b.md");
        let out = find_files(&fx.sandbox, "docs", "*.md", &FindOptions::default()).unwrap();
        assert_eq!((out.left_out, out.counting_stopped_after), (vec![], None));
    }

    #[test]
    fn skipped_count_follows_the_listing_rules() {
        let fx = Fixture::new();
        // Rules of a directory above the searched one, a negation, an ignored directory whose
        // own rules would re-include a file (they are never read), and a hidden directory.
        fx.write(".gitignore", "gen/\n");
        fx.write("sub/.gitignore", "*.rs\n!keep.rs\nskip/\n");
        fx.write("sub/keep.rs", "");
        fx.write("sub/drop.rs", "");
        fx.write("sub/gen/a.rs", "");
        fx.write("sub/skip/.gitignore", "!*.rs\n");
        fx.write("sub/skip/b.rs", "");
        fx.write("sub/.cache/c.rs", "");
        let out = find_files(&fx.sandbox, "sub", "*.rs", &FindOptions::default()).unwrap();
        assert_eq!(out.files, ["sub/keep.rs"]);
        assert_eq!(
            out.left_out,
            [LeftOut::Hidden { files: 1 }, LeftOut::Ignored { files: 3 }]
        );
    }

    #[test]
    fn a_deeper_negation_wins_over_the_rules_above_the_searched_directory() {
        let fx = Fixture::new();
        fx.write(".gitignore", "*.log\nout/\n");
        fx.write("a/.gitignore", "!keep.log\n!out/\n");
        fx.write("a/keep.log", "");
        fx.write("a/drop.log", "");
        fx.write("a/out/x.txt", "");
        fx.write("b/out/y.txt", "");
        let from_root = find(&fx, ".", "*.{log,txt}");
        assert_eq!(from_root, "a/keep.log\na/out/x.txt");
        assert_eq!(find(&fx, "a", "*.{log,txt}"), from_root);
        assert_eq!(find(&fx, "b", "*.txt"), "");
    }

    #[test]
    fn skipped_count_stops_at_its_budget_but_the_listing_is_complete() {
        let fx = Fixture::new();
        fx.write(".gitignore", "big/\n");
        for i in 0..SKIPPED_COUNT_BUDGET + 10 {
            fx.write(&format!("big/f{i}.txt"), "");
        }
        for i in 0..3 {
            fx.write(&format!("shown/f{i}.txt"), "");
        }
        let out = find_files(&fx.sandbox, ".", "*.txt", &FindOptions::default()).unwrap();
        assert_eq!(out.files, ["shown/f0.txt", "shown/f1.txt", "shown/f2.txt"]);
        assert!(
            matches!(out.left_out[..], [LeftOut::Ignored { files }] if files > 0 && files <= SKIPPED_COUNT_BUDGET),
            "{out:?}"
        );
        assert_eq!(out.counting_stopped_after, Some(SKIPPED_COUNT_BUDGET));
    }

    #[test]
    fn cap_note_and_errors() {
        let fx = Fixture::new();
        for i in 0..12 {
            fx.write(&format!("f{i:02}.txt"), "");
        }
        let opts = FindOptions {
            max_results: 5,
            ..FindOptions::default()
        };
        let out = find_files(&fx.sandbox, ".", "*.txt", &opts).unwrap();
        assert_eq!(
            (out.files.join("\n").as_str(), out.total),
            ("f00.txt\nf01.txt\nf02.txt\nf03.txt\nf04.txt", 12)
        );
        let err = find_files(&fx.sandbox, ".", "[a", &opts)
            .unwrap_err()
            .to_string();
        assert!(err.contains("invalid glob \"[a\""), "{err}");
        assert!(find_files(&fx.sandbox, "missing", "*", &opts).is_err());
        assert!(
            find_files(&fx.sandbox, "f00.txt", "*", &opts)
                .unwrap_err()
                .to_string()
                .contains("not a directory")
        );
        assert!(find_files(&fx.sandbox, "..", "*", &opts).is_err());
    }

    #[test]
    fn symlinks_are_listed_not_followed() {
        let fx = Fixture::new();
        fs_mcp_sandbox::testing::write_at(&fx.outside, "secret.rs", "");
        fx.symlink(&fx.outside, "out");
        fx.symlink(fx.root.clone(), "loop");
        fx.write("a.rs", "");
        assert_eq!(find(&fx, ".", "*.rs"), "a.rs");
        assert_eq!(find(&fx, ".", "out"), "out");
    }
}
