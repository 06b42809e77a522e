//! `grep_content`: a ripgrep-style regex search over a directory tree, in-process.
//!
//! The walk is `ignore`'s parallel walker (see [`crate::walk`]); every worker thread owns its
//! searchers; each file's matches are collected with their context lines, and files with matches
//! get their [section-end hints](crate::hints) from one extra boundary scan. Results are sorted
//! by path and line, so the output is stable whatever the thread timing.
//!
//! # Output
//!
//! ```text
//! File: src/lib.rs, Line: 42 (section end hint: L58)
//! ---
//! 40-    let x = 1;
//! 41-
//! 42:    let y = compute(x);
//! 43-    y
//! 44-}
//! ---
//!
//! File: src/main.rs, Lines: 7, 9 (section end hint: L12)
//! ---
//! 5-fn main() {
//! …
//! ---
//!
//! Note: showing the first 100 of 2,345 matching lines (120 files with matches, 4,000 files searched). Narrow the search: pass a sub-directory as search_path, or a more specific pattern.
//! ```
//!
//! `n:` marks a matching line and `n-` a context line; indentation is kept and lines longer than
//! 300 characters are cut. Matches whose context touches share one block. Paths are
//! `Sandbox::display` paths. The hint (absent for file types without a profile) is the last line
//! of the section the match is in, ready for `read_files(start_line, end_line)`.
//! No match gives `No matches found.`, plus a `Not searched: …` line naming what was skipped
//! (hidden entries, ignored files, binary files). A cancelled or timed-out search returns what it
//! found with a note.
//!
//! Fixed compared with the original tool: context lines are shown, indentation is kept, the match
//! cap is global (with the total count), a pattern starting with `-` is just a pattern, the
//! default hints work (and point at the last line of the block, not the next block's first line),
//! and a slow search returns its partial results instead of an error.

mod render;
mod sink;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use fs_mcp_sandbox::{EntryKind, Sandbox};
use grep_matcher::LineTerminator;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder};
use ignore::WalkState;

use crate::error::SearchError;
use crate::hints::{self, BoundarySink, Profile, SectionEnd, Sections};
use crate::limits;
use crate::walk::{self, SkipStats, WalkOptions};

pub use render::{GrepNote, GrepWords, Stopped};
pub use sink::GrepLine;

/// Settings of one `grep_content` call. [`GrepOptions::new`] gives the documented defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrepOptions {
    /// Regex (Rust `regex` syntax, as ripgrep). May start with `-`.
    pub pattern: String,
    /// File or directory to search; relative paths resolve against the first allowed directory.
    pub search_path: String,
    /// Match regardless of case.
    pub case_insensitive: bool,
    /// Lines of context before and after each match.
    pub context_lines: usize,
    /// `None`: built-in section boundaries by file extension. `Some(patterns)`: a line matching
    /// any pattern starts a section. `Some(vec![])`: no hints.
    pub section_patterns: Option<Vec<String>>,
    /// Global cap on the matching lines shown.
    pub max_matches: usize,
    /// Also search files excluded by `.gitignore`/`.ignore` (and VCS directories).
    pub include_ignored: bool,
    /// Also search hidden files and directories.
    pub include_hidden: bool,
    /// Stop and return partial results after this long.
    pub timeout: Duration,
    /// Worker threads; 0 picks the machine's parallelism.
    pub threads: usize,
}

impl GrepOptions {
    /// [`GrepOptions::context_lines`] when the client gives none.
    pub const DEFAULT_CONTEXT_LINES: usize = 2;
    /// [`GrepOptions::max_matches`] when the client gives none.
    pub const DEFAULT_MAX_MATCHES: usize = 100;
    /// [`GrepOptions::timeout`] when the client gives none.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
    /// Most [`GrepOptions::section_patterns`] a search takes (each is compiled and run over
    /// every file with matches).
    pub const MAX_SECTION_PATTERNS: usize = 20;

    /// Options for `pattern` in the current directory, everything else at its default.
    pub fn new(pattern: impl Into<String>) -> GrepOptions {
        GrepOptions {
            pattern: pattern.into(),
            search_path: ".".into(),
            case_insensitive: false,
            context_lines: Self::DEFAULT_CONTEXT_LINES,
            section_patterns: None,
            max_matches: Self::DEFAULT_MAX_MATCHES,
            include_ignored: false,
            include_hidden: false,
            timeout: Self::DEFAULT_TIMEOUT,
            threads: 0,
        }
    }
}

/// Progress of a running search, reported from the walker threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Progress {
    /// Files searched so far.
    pub files_searched: u64,
    /// Matching lines found so far (before the cap on those shown).
    pub matches: u64,
}

/// A progress callback; called from worker threads at most every [`PROGRESS_INTERVAL`], and
/// once at the end.
pub type ProgressFn = Arc<dyn Fn(Progress) + Send + Sync>;

/// Minimum time between two progress reports.
pub const PROGRESS_INTERVAL: Duration = Duration::from_millis(250);

/// Cancellation and progress hooks for a search, and the files it may skip (all optional).
#[derive(Clone, Default)]
pub struct GrepControl<'a> {
    /// When set to true (by another thread), the search stops soon and returns what it has.
    pub cancel: Option<&'a AtomicBool>,
    /// Called with the counts while the search runs (see [`ProgressFn`]).
    pub progress: Option<ProgressFn>,
    /// What the walk would find, known beforehand (an index): used in place of the walk when it
    /// is for this search's root and the default walk options; otherwise the search walks.
    pub candidates: Option<&'a CandidatePlan>,
}

/// The outcome of the walk a search with the default walk options (no hidden, no ignored
/// entries) would do from `root`, as an index kept fresh knows it: the files that may match
/// are opened (by handle, as the walk's are) and searched; the others are counted as searched
/// without a match. The answer is the walk's when the plan is exact.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CandidatePlan {
    /// The canonical directory the walk starts from.
    pub root: PathBuf,
    /// The walk's regular files that may hold a match, in path order.
    pub candidates: Vec<PathBuf>,
    /// The walk's regular files that cannot hold a match.
    pub excluded: u64,
    /// Hidden entries the walk skips.
    pub hidden: u64,
    /// Ignore rules are in force at the root or met by the walk (the notes say so).
    pub ignore_rules: bool,
}

/// Why a search ended before searching every file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    Cancelled,
    Timeout,
}

/// All matches of one file (after the global cap), sorted by line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileMatches {
    /// The path as `Sandbox::display` shows it.
    pub path: String,
    /// Match and context lines in line order.
    pub lines: Vec<GrepLine>,
    /// Section-end hint per matching line number (absent without a profile or with hints off).
    pub hints: Vec<(u64, SectionEnd)>,
}

/// The result of a search: the matches shown plus what the notes need.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrepOutcome {
    pub files: Vec<FileMatches>,
    /// Matching lines shown (≤ `max_matches`).
    pub shown_matches: u64,
    /// Matching lines found in total.
    pub total_matches: u64,
    /// Counting stopped early: `total_matches` is a lower bound.
    pub total_is_lower_bound: bool,
    pub files_with_matches: u64,
    pub files_searched: u64,
    /// Binary files skipped.
    pub binary_files: u64,
    /// Files that could not be read.
    pub unreadable_files: u64,
    /// Lines longer than [`GrepOutcome::searched_line_bytes`], searched only up to that length.
    pub long_lines: u64,
    /// How much of one line this search looked at: [`MAX_SEARCHED_LINE_BYTES`], less for a
    /// pattern whose worst case costs more per byte (see [`searched_line_bytes`]).
    pub searched_line_bytes: u64,
    pub stopped: Option<StopReason>,
    pub elapsed: Duration,
    /// What the walk skipped (hidden entries, ignore rules) that an option brings back.
    pub skipped: Vec<walk::WalkSkip>,
    pub max_matches: usize,
    pub timeout: Duration,
}

impl GrepOutcome {
    /// The text answer of the tool, its notes worded by `words`.
    pub fn render(&self, words: &dyn GrepWords) -> String {
        render::render(self, words)
    }
}

/// Searches and renders: the text `grep_content` returns.
pub fn grep_content(
    sandbox: &Sandbox,
    options: &GrepOptions,
    control: &GrepControl<'_>,
    words: &dyn GrepWords,
) -> Result<String, SearchError> {
    search(sandbox, options, control).map(|o| o.render(words))
}

/// How many matching lines are counted, beyond the ones shown, before the total becomes "at least".
fn count_limit(cap: usize) -> u64 {
    (cap as u64).saturating_mul(20).max(2_000)
}

/// How long counting may go on once the cap is reached.
const COUNT_TIME_BUDGET: Duration = Duration::from_secs(2);

/// Runs the search and returns the structured outcome.
pub fn search(
    sandbox: &Sandbox,
    options: &GrepOptions,
    control: &GrepControl<'_>,
) -> Result<GrepOutcome, SearchError> {
    let started = Instant::now();
    if options.pattern.is_empty() {
        return Err(SearchError::EmptyRegex);
    }
    if options.max_matches == 0 {
        return Err(SearchError::NoMatchesAllowed);
    }
    let matcher = build_matcher(&options.pattern, options.case_insensitive)?;
    let custom = match &options.section_patterns {
        Some(p) if !p.is_empty() => Some(hints::custom_profile(p, options.case_insensitive)?),
        _ => None,
    };
    let section_weight = match &options.section_patterns {
        Some(patterns) => patterns
            .iter()
            .map(|p| pattern_weight(p, options.case_insensitive))
            .max()
            .unwrap_or(0),
        None => 0,
    };
    let line_cap = searched_line_bytes(
        pattern_weight(&options.pattern, options.case_insensitive).max(section_weight),
    );
    let hint_mode = match (&options.section_patterns, &custom) {
        (_, Some(profile)) => HintMode::Custom(profile),
        (Some(_), None) => HintMode::Off,
        (None, _) => HintMode::Builtin,
    };
    let (root, meta) = walk::resolve_existing(sandbox, &options.search_path)?;
    if !matches!(meta.kind, EntryKind::File | EntryKind::Dir) {
        // Never opened: a FIFO would block the search, a device could be endless.
        return Err(SearchError::NotSearchable {
            path: sandbox.display(&root),
            kind: meta.kind,
        });
    }
    let walk_options = WalkOptions {
        include_hidden: options.include_hidden,
        include_ignored: options.include_ignored,
    };
    let threads = if options.threads == 0 {
        walk::default_threads()
    } else {
        options.threads
    };
    // The timeout bounds a walk that a swapped directory sends outside; every file is opened
    // by handle below, so nothing outside is read.
    let deadline = started.checked_add(options.timeout);
    // An index leaves out files that cannot match, trusting that none holds a line the search
    // would cut and note; that holds for the usual line cap only, so a costly pattern scans.
    let plan = control.candidates.filter(|plan| {
        plan.root == root
            && meta.kind == EntryKind::Dir
            && walk_options == WalkOptions::default()
            && line_cap == MAX_SEARCHED_LINE_BYTES
    });
    let walk = match plan {
        Some(plan) => {
            let stats = SkipStats::default();
            stats.hidden.store(plan.hidden, Ordering::Relaxed);
            stats
                .ignore_rules
                .store(plan.ignore_rules, Ordering::Relaxed);
            (None, Arc::new(stats))
        }
        None => {
            let (builder, stats) =
                walk::walker(sandbox, &root, walk_options, threads, false, deadline)?;
            (Some(builder), stats)
        }
    };
    let (builder, skip_stats) = walk;

    let shared = Shared {
        sandbox,
        matcher,
        hint_mode,
        cap: options.max_matches as u64,
        count_limit: count_limit(options.max_matches),
        context: options.context_lines as u64,
        line_cap,
        deadline,
        started,
        cancel: control.cancel,
        progress: control.progress.clone(),
        stop: AtomicU8::new(0),
        counted: AtomicU64::new(0),
        cap_reached: AtomicBool::new(false),
        cap_reached_at_ms: AtomicU64::new(u64::MAX),
        lower_bound: AtomicBool::new(false),
        files_searched: AtomicU64::new(0),
        files_with_matches: AtomicU64::new(0),
        binary_files: AtomicU64::new(0),
        unreadable: AtomicU64::new(0),
        long_lines: AtomicU64::new(0),
        last_progress_ms: AtomicU64::new(0),
        kept: Mutex::new(Kept::default()),
    };

    match (builder, plan) {
        (Some(builder), _) => builder.build_parallel().run(|| {
            let mut worker = Worker::new(&shared);
            Box::new(move |entry| worker.visit(entry))
        }),
        (None, Some(plan)) => search_planned(&shared, plan, threads),
        (None, None) => {}
    }

    let stopped = match shared.stop.load(Ordering::Relaxed) {
        STOP_CANCEL => Some(StopReason::Cancelled),
        STOP_TIMEOUT => Some(StopReason::Timeout),
        _ => None,
    };
    let kept = shared.kept.into_inner().unwrap_or_else(|e| e.into_inner());
    let files_with_matches = shared.files_with_matches.load(Ordering::Relaxed);
    let total_matches = shared.counted.load(Ordering::Relaxed);
    let lower_bound = shared.lower_bound.load(Ordering::Relaxed) || stopped.is_some();
    let files_searched = shared.files_searched.load(Ordering::Relaxed);
    if let Some(progress) = &control.progress {
        progress(Progress {
            files_searched,
            matches: total_matches,
        });
    }
    let (files, shown) = apply_cap(kept.files, shared.cap, shared.context);
    Ok(GrepOutcome {
        files,
        shown_matches: shown,
        total_matches,
        total_is_lower_bound: lower_bound,
        files_with_matches,
        files_searched,
        binary_files: shared.binary_files.load(Ordering::Relaxed),
        unreadable_files: shared.unreadable.load(Ordering::Relaxed),
        long_lines: shared.long_lines.load(Ordering::Relaxed),
        searched_line_bytes: line_cap,
        stopped,
        elapsed: started.elapsed(),
        skipped: skip_stats.skips(walk_options),
        max_matches: options.max_matches,
        timeout: options.timeout,
    })
}

/// Searches a plan's candidates on `threads` workers, in path order, as the walk's visitor would.
fn search_planned(shared: &Shared<'_>, plan: &CandidatePlan, threads: usize) {
    shared
        .files_searched
        .fetch_add(plan.excluded, Ordering::Relaxed);
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, plan.candidates.len().max(1)) {
            scope.spawn(|| {
                let mut worker = Worker::new(shared);
                while let Some(path) = plan.candidates.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if shared.should_stop() || worker.visit_file(path) == WalkState::Quit {
                        break;
                    }
                }
            });
        }
    });
}

/// Longest stretch of one line that is searched; the rest of a longer line (a minified bundle,
/// a data dump) is skipped while reading, so memory per search thread stays bounded and the
/// timeout is checked between reads even inside one huge line.
pub const MAX_SEARCHED_LINE_BYTES: u64 = 8 << 20;

/// Work one regex search over a stretch of text may do (see [`fs_mcp_text::REGEX_WORK_PER_SEARCH`]):
/// the deadline is checked between such searches, never inside one, so this bounds how long a
/// search can overrun it; patterns of up to 16 positions still search 8 MiB of a line.
const SEARCH_WORK_PER_CALL: u64 = fs_mcp_text::REGEX_WORK_PER_SEARCH;

/// The shortest stretch of a line searched, whatever the pattern.
const MIN_SEARCHED_LINE_BYTES: u64 = 256;

/// How many bytes of one line a search with a pattern of `weight` (see [`pattern_weight`])
/// looks at, and hands the regex engine in one read: every search call then covers at most
/// about twice that (a read and the unfinished line before it), so its worst case stays within
/// [`SEARCH_WORK_PER_CALL`]. Simple patterns keep [`MAX_SEARCHED_LINE_BYTES`].
pub fn searched_line_bytes(weight: u64) -> u64 {
    (SEARCH_WORK_PER_CALL / weight.max(1)).clamp(MIN_SEARCHED_LINE_BYTES, MAX_SEARCHED_LINE_BYTES)
}

pub use fs_mcp_text::pattern_weight;

fn build_matcher(pattern: &str, case_insensitive: bool) -> Result<RegexMatcher, SearchError> {
    RegexMatcherBuilder::new()
        .case_insensitive(case_insensitive)
        .multi_line(true)
        .crlf(true)
        .ban_byte(Some(0))
        .size_limit(limits::REGEX_SIZE_LIMIT)
        .dfa_size_limit(limits::DFA_SIZE_LIMIT)
        .build(pattern)
        .map_err(|e| {
            let reason = e.to_string();
            SearchError::InvalidRegex {
                pattern: fs_mcp_text::truncate(
                    pattern,
                    fs_mcp_text::Keep::Chars(200),
                    fs_mcp_text::Marker::CountOfRest,
                )
                .into_owned(),
                too_large: reason.contains("size limit"),
                reason: reason.trim_end().to_string(),
            }
        })
}

enum HintMode<'p> {
    Builtin,
    Custom(&'p Profile),
    Off,
}

const STOP_NONE: u8 = 0;
const STOP_CANCEL: u8 = 1;
const STOP_TIMEOUT: u8 = 2;
/// Counting budget exhausted: not a user-visible stop, the total is just "at least".
const STOP_COUNTED: u8 = 3;

struct Shared<'a> {
    sandbox: &'a Sandbox,
    matcher: RegexMatcher,
    hint_mode: HintMode<'a>,
    cap: u64,
    count_limit: u64,
    context: u64,
    /// Bytes of one line searched, and most bytes handed on by one read
    /// ([`searched_line_bytes`]).
    line_cap: u64,
    deadline: Option<Instant>,
    started: Instant,
    cancel: Option<&'a AtomicBool>,
    progress: Option<ProgressFn>,
    stop: AtomicU8,
    /// Matching lines seen in total.
    counted: AtomicU64,
    /// `cap` matching lines are kept: from now on only files sorting before the boundary are
    /// searched in full.
    cap_reached: AtomicBool,
    cap_reached_at_ms: AtomicU64,
    lower_bound: AtomicBool,
    files_searched: AtomicU64,
    files_with_matches: AtomicU64,
    binary_files: AtomicU64,
    unreadable: AtomicU64,
    long_lines: AtomicU64,
    last_progress_ms: AtomicU64,
    kept: Mutex<Kept>,
}

/// One file's findings before capping.
struct RawFile {
    lines: Vec<GrepLine>,
    hints: Vec<(u64, SectionEnd)>,
    matches: u64,
}

/// The files whose matches may be shown, by displayed path.
///
/// The output is the first `cap` matching lines in path order, whatever order the threads visit
/// files in: once `cap` lines are kept, the files sorting after the one holding the cap-th line
/// are dropped and later files sorting after it are only counted.
#[derive(Default)]
struct Kept {
    files: BTreeMap<String, RawFile>,
    matches: u64,
    boundary: Option<String>,
}

impl Kept {
    fn insert(&mut self, key: String, file: RawFile, cap: u64) {
        self.matches += file.matches;
        self.files.insert(key, file);
        while let Some((_, last)) = self.files.last_key_value() {
            if self.matches - last.matches < cap {
                break;
            }
            self.matches -= last.matches;
            self.files.pop_last();
        }
        if self.matches >= cap {
            self.boundary = self.files.last_key_value().map(|(k, _)| k.clone());
        }
    }

    fn wants_full(&self, key: &str) -> bool {
        self.boundary.as_deref().is_none_or(|b| key < b)
    }
}

impl<'a> Shared<'a> {
    /// Checks cancellation and the deadline; records the reason and returns true when the search
    /// must be abandoned (partial results are kept).
    fn should_abort(&self) -> bool {
        let state = self.stop.load(Ordering::Relaxed);
        if state == STOP_CANCEL || state == STOP_TIMEOUT {
            return true;
        }
        if self.cancel.is_some_and(|c| c.load(Ordering::Relaxed)) {
            self.request_stop(STOP_CANCEL);
            return true;
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.request_stop(STOP_TIMEOUT);
            return true;
        }
        false
    }

    /// True when no further file should be started: an abort, or counting is done. A file
    /// already being searched (and its hint scan) still finishes unless the search aborts.
    fn should_stop(&self) -> bool {
        self.should_abort() || self.stop.load(Ordering::Relaxed) == STOP_COUNTED
    }

    /// Records a stop reason; cancellation and timeout take precedence over "counting done".
    fn request_stop(&self, reason: u8) {
        let _ = self
            .stop
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |current| {
                (current == STOP_NONE || (current == STOP_COUNTED && reason != STOP_COUNTED))
                    .then_some(reason)
            });
    }

    /// True once the search was aborted (cancel, timeout).
    fn aborted(&self) -> bool {
        let state = self.stop.load(Ordering::Relaxed);
        state == STOP_CANCEL || state == STOP_TIMEOUT
    }

    /// Reads `file`, failing as soon as the search must stop, so that even a huge file without
    /// matches cannot outlive the timeout by more than one buffer.
    /// Runs one file through `searcher` into `sink` and records what the run says about the
    /// whole search (cut lines, an unreadable or binary file, a capped count). True when the
    /// sink holds a usable result: a search interrupted by a stop keeps what it found so far.
    fn search_file<S: sink::Outcome>(
        &self,
        searcher: &mut Searcher,
        file: &std::fs::File,
        sink: &mut S,
    ) -> bool {
        let mut reader = self.reader(file);
        let result = searcher.search_reader(&self.matcher, &mut reader, &mut *sink);
        self.long_lines
            .fetch_add(reader.cut_lines, Ordering::Relaxed);
        if result.is_err() && !self.aborted() {
            self.unreadable.fetch_add(1, Ordering::Relaxed);
            return false;
        }
        if sink.binary() {
            self.binary_files.fetch_add(1, Ordering::Relaxed);
            return false;
        }
        if sink.capped() {
            self.lower_bound.store(true, Ordering::Relaxed);
        }
        true
    }

    fn reader<'f>(&'f self, file: &'f std::fs::File) -> StopReader<'f, 'a> {
        StopReader {
            file,
            shared: self,
            line_bytes: 0,
            skipping: false,
            cut_lines: 0,
        }
    }

    fn lock_kept(&self) -> std::sync::MutexGuard<'_, Kept> {
        self.kept.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn elapsed_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    /// Once the cap is reached, counting goes on for a while; then the total is "at least".
    fn counting_exhausted(&self) -> bool {
        let counted = self.counted.load(Ordering::Relaxed);
        if counted >= self.count_limit {
            return true;
        }
        let since = self.cap_reached_at_ms.load(Ordering::Relaxed);
        since != u64::MAX
            && self.elapsed_ms().saturating_sub(since) >= COUNT_TIME_BUDGET.as_millis() as u64
    }

    fn report_progress(&self) {
        let Some(progress) = &self.progress else {
            return;
        };
        let now = self.elapsed_ms();
        let last = self.last_progress_ms.load(Ordering::Relaxed);
        if now.saturating_sub(last) < PROGRESS_INTERVAL.as_millis() as u64 {
            return;
        }
        if self
            .last_progress_ms
            .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
        {
            progress(Progress {
                files_searched: self.files_searched.load(Ordering::Relaxed),
                matches: self.counted.load(Ordering::Relaxed),
            });
        }
    }
}

/// Reads a file for the searcher: fails as soon as the search must stop, and passes on at most
/// the search's line cap ([`searched_line_bytes`]) of any one line (the rest of the line is read
/// and dropped, its line terminator kept, so line numbers stay right) and of the file per read,
/// so that no one regex search between two deadline checks covers more than about twice that.
struct StopReader<'f, 'a> {
    file: &'f std::fs::File,
    shared: &'f Shared<'a>,
    /// Bytes of the current line passed on so far.
    line_bytes: u64,
    /// Dropping the rest of an over-long line.
    skipping: bool,
    /// Lines that were cut.
    cut_lines: u64,
}

impl StopReader<'_, '_> {
    /// Compacts `buf[..n]` in place to what the searcher may see; returns the new length.
    fn cut_long_lines(&mut self, buf: &mut [u8], n: usize) -> usize {
        let (mut read, mut written) = (0, 0);
        while read < n {
            let newline = memchr::memchr(b'\n', &buf[read..n]).map(|p| read + p);
            if self.skipping {
                match newline {
                    Some(at) => {
                        self.skipping = false;
                        self.line_bytes = 0;
                        buf[written] = b'\n';
                        written += 1;
                        read = at + 1;
                    }
                    None => read = n,
                }
                continue;
            }
            let line_end = newline.unwrap_or(n);
            let room = (self.shared.line_cap - self.line_bytes) as usize;
            if line_end - read <= room {
                let end = newline.map_or(n, |at| at + 1);
                buf.copy_within(read..end, written);
                written += end - read;
                self.line_bytes = if newline.is_some() {
                    0
                } else {
                    self.line_bytes + (end - read) as u64
                };
                read = end;
            } else {
                buf.copy_within(read..read + room, written);
                written += room;
                read += room;
                self.skipping = true;
                self.cut_lines += 1;
            }
        }
        written
    }
}

impl std::io::Read for StopReader<'_, '_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            if self.shared.should_abort() {
                return Err(std::io::Error::other("search stopped"));
            }
            let cap = self.shared.line_cap;
            let wanted = buf.len().min(usize::try_from(cap).unwrap_or(usize::MAX));
            let n = self.file.read(&mut buf[..wanted])?;
            if n == 0 {
                return Ok(0);
            }
            // Common case: every line (part) in the chunk fits, checked with two memchr calls.
            if !self.skipping {
                match memchr::memchr(b'\n', &buf[..n]) {
                    None if self.line_bytes + n as u64 <= cap => {
                        self.line_bytes += n as u64;
                        return Ok(n);
                    }
                    Some(first) if self.line_bytes + first as u64 <= cap => {
                        let last = memchr::memrchr(b'\n', &buf[..n]).unwrap_or(first);
                        self.line_bytes = (n - last - 1) as u64;
                        return Ok(n);
                    }
                    _ => {}
                }
            }
            let kept = self.cut_long_lines(buf, n);
            if kept > 0 {
                return Ok(kept);
            }
        }
    }
}

/// The per-thread state: its own searchers (a `Searcher` is not `Sync`).
struct Worker<'s, 'a> {
    shared: &'s Shared<'a>,
    full: Searcher,
    count: Searcher,
    boundaries: Searcher,
}

impl<'s, 'a> Worker<'s, 'a> {
    fn new(shared: &'s Shared<'a>) -> Self {
        let context = shared.context as usize;
        let base = || {
            let mut b = SearcherBuilder::new();
            b.line_terminator(LineTerminator::crlf())
                .binary_detection(BinaryDetection::quit(0));
            b
        };
        Worker {
            shared,
            full: base()
                .line_number(true)
                .before_context(context)
                .after_context(context)
                .build(),
            count: base().line_number(false).build(),
            boundaries: base().line_number(true).build(),
        }
    }

    fn visit(&mut self, entry: Result<ignore::DirEntry, ignore::Error>) -> WalkState {
        let shared = self.shared;
        if shared.should_stop() {
            return WalkState::Quit;
        }
        let entry = match entry {
            Ok(e) => e,
            Err(_) => {
                shared.unreadable.fetch_add(1, Ordering::Relaxed);
                return WalkState::Continue;
            }
        };
        // Directories are walked by the walker itself; symlinks are never searched through
        // (the target may lie outside the sandbox); FIFOs, sockets and devices are skipped.
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            return WalkState::Continue;
        }
        self.visit_file(entry.path())
    }

    /// Opens and searches one file the walk (or a plan) found.
    fn visit_file(&mut self, path: &Path) -> WalkState {
        let shared = self.shared;
        // Opened beneath the allowed directory with no symlink at any component: a directory
        // swapped for a symlink since the walk listed it cannot redirect the read.
        let file = match shared.sandbox.open_walked(path) {
            Ok(opened) => opened.file,
            Err(_) => {
                shared.unreadable.fetch_add(1, Ordering::Relaxed);
                return WalkState::Continue;
            }
        };
        let key = shared.sandbox.display(path);
        if shared.lock_kept().wants_full(&key) {
            self.search_full(path, key, &file);
        } else {
            self.search_count(&file);
        }
        shared.files_searched.fetch_add(1, Ordering::Relaxed);
        shared.report_progress();
        if shared.should_stop() {
            return WalkState::Quit;
        }
        if shared.cap_reached.load(Ordering::Relaxed) && shared.counting_exhausted() {
            shared.lower_bound.store(true, Ordering::Relaxed);
            shared.request_stop(STOP_COUNTED);
            return WalkState::Quit;
        }
        WalkState::Continue
    }

    fn search_full(&mut self, path: &Path, key: String, file: &std::fs::File) {
        let shared = self.shared;
        let budget = shared
            .count_limit
            .saturating_sub(shared.counted.load(Ordering::Relaxed))
            .max(1);
        let mut sink =
            sink::CollectSink::new(shared.cap, budget, shared.context, || shared.should_abort());
        if !shared.search_file(&mut self.full, file, &mut sink) || sink.kept == 0 {
            return;
        }
        sink.finish_lines();
        let hints = self.hints_for(path, file, &sink.lines);
        let lines = std::mem::take(&mut sink.lines);
        shared.counted.fetch_add(sink.seen, Ordering::Relaxed);
        shared.files_with_matches.fetch_add(1, Ordering::Relaxed);
        let mut kept = shared.lock_kept();
        kept.insert(
            key,
            RawFile {
                lines,
                hints,
                matches: sink.kept,
            },
            shared.cap,
        );
        if kept.boundary.is_some() && !shared.cap_reached.swap(true, Ordering::Relaxed) {
            shared
                .cap_reached_at_ms
                .store(shared.elapsed_ms(), Ordering::Relaxed);
        }
    }

    fn search_count(&mut self, file: &std::fs::File) {
        let shared = self.shared;
        let budget = shared
            .count_limit
            .saturating_sub(shared.counted.load(Ordering::Relaxed));
        if budget == 0 {
            return;
        }
        let mut sink = sink::CountSink::new(budget, || shared.should_abort());
        if shared.search_file(&mut self.count, file, &mut sink) && sink.count > 0 {
            shared.counted.fetch_add(sink.count, Ordering::Relaxed);
            shared.files_with_matches.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// One boundary scan of the file, then a hint for every kept match.
    fn hints_for(
        &mut self,
        path: &Path,
        file: &std::fs::File,
        lines: &[GrepLine],
    ) -> Vec<(u64, SectionEnd)> {
        let shared = self.shared;
        let profile = match shared.hint_mode {
            HintMode::Off => return Vec::new(),
            HintMode::Custom(p) => p,
            HintMode::Builtin => match hints::builtin_profile(path) {
                Some(p) => p,
                None => return Vec::new(),
            },
        };
        use std::io::{Seek, SeekFrom};
        let mut handle = file;
        if handle.seek(SeekFrom::Start(0)).is_err() {
            return Vec::new();
        }
        let mut sink = BoundarySink::new(profile, || shared.should_abort());
        let result =
            self.boundaries
                .search_reader(profile.matcher(), shared.reader(file), &mut sink);
        if result.is_err() || sink.stopped {
            return Vec::new();
        }
        let mut sections = Sections::new(profile, sink.records);
        lines
            .iter()
            .filter(|l| l.is_match)
            .map(|l| (l.number, sections.hint(l.number)))
            .collect()
    }
}

/// Keeps the first `cap` matching lines in path order and trims the last file's lines after its
/// last kept match (context included, up to the next, unshown, match).
fn apply_cap(kept: BTreeMap<String, RawFile>, cap: u64, context: u64) -> (Vec<FileMatches>, u64) {
    let mut files: Vec<FileMatches> = kept
        .into_iter()
        .map(|(path, r)| FileMatches {
            path,
            lines: r.lines,
            hints: r.hints,
        })
        .collect();
    let mut shown = 0u64;
    let mut keep_files = 0;
    for file in &mut files {
        if shown >= cap {
            break;
        }
        keep_files += 1;
        let in_file = file.lines.iter().filter(|l| l.is_match).count() as u64;
        if shown + in_file <= cap {
            shown += in_file;
            continue;
        }
        let allowed = cap - shown;
        let last_kept = file
            .lines
            .iter()
            .filter(|l| l.is_match)
            .nth(allowed as usize - 1)
            .map_or(0, |l| l.number);
        let cut = file
            .lines
            .iter()
            .position(|l| l.number > last_kept && (l.is_match || l.number > last_kept + context))
            .unwrap_or(file.lines.len());
        file.lines.truncate(cut);
        file.hints.retain(|h| h.0 <= last_kept);
        shown = cap;
    }
    files.truncate(keep_files);
    (files, shown)
}

#[cfg(test)]
mod tests;
