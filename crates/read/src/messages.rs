//! The notes of a reply as data ([`Note`]: what was cut, where to read on, the limits), and the
//! size guards of whole reads. The caller words them ([`ReadWords`]); the crate frames them.

use std::path::Path;

use crate::error::ReadError;
use crate::lines::LineLen;
use crate::request::{MIN_REPLY_BYTES, ReadOptions, StructuredKind};

/// The words of a `read_files` reply for the model: a failed item and the notes.
///
/// The crate frames the reply; the caller (the binary's `src/render/`) words its typed notes
/// and errors, so no crate writes a sentence for the model and no wording can forge the frame.
/// The frame here: the reply's tag, `File:`, `Error:`, `Note:`, `Cut:`.
pub trait ReadWords {
    /// A failed item, after the tag: the caller's one error format (`Error: … <next step>.`).
    fn error(&self, error: &ReadError) -> String;
    /// A note, after `[TAG] Note: ` (or, for [`Note::LineCut`], after `[TAG] Cut: `).
    fn note(&self, note: &Note) -> String;
}

/// Where the next call reads on: the arguments of its item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadOn {
    /// `{"path", "start_line", "end_line"?, "read_to_next_pattern"?}`.
    From {
        /// The path as shown.
        path: String,
        /// The first line not shown.
        start: u64,
        /// The end of the requested range, if one was given.
        end: Option<u64>,
        /// The pattern the read ends at, if one was given.
        pattern: Option<String>,
    },
    /// `{"path", "tail"}`: the last `lines` lines.
    Tail {
        /// The path as shown.
        path: String,
        /// How many lines, counted back from the end.
        lines: u64,
    },
}

/// What a block cut at the reply cap shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// Lines `first..=last`.
    Lines {
        /// First line shown.
        first: u64,
        /// Last line shown.
        last: u64,
    },
    /// No line of the range.
    NoLine,
    /// A whole read whose first line does not fit (it is cut).
    FirstLineCut,
    /// The first `shown` of the last `of` lines (a `tail` read).
    TailLines {
        /// Lines shown.
        shown: u64,
        /// Lines asked for.
        of: u64,
    },
}

/// One note of a reply, with its numbers. Exhaustive on purpose: a new note does not compile
/// until the binary words it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// The reply cap (`cap` bytes) was reached inside this block.
    ReplyCut {
        /// The reply cap, in bytes.
        cap: usize,
        /// What the block shows.
        shown: Shown,
        /// The item that reads on.
        read_on: ReadOn,
    },
    /// A cut line has no line break within `scan` bytes after its shown part, so the lines
    /// after it were not read.
    LineUnended {
        /// The line (`None` in a `tail` read, whose line numbers are unknown).
        line: Option<u64>,
        /// How far past the shown part the line's end was looked for, in bytes.
        scan: u64,
        /// The item that reads on.
        read_on: ReadOn,
    },
    /// `read_to_next_pattern` found no line matching `pattern` after line `start`: the block
    /// runs to the end of the file.
    PatternNotFound {
        /// The pattern as given.
        pattern: String,
        /// The line the read started at.
        start: u64,
    },
    /// `read_to_next_pattern` is costly to run (its work per call is bounded): it was not
    /// looked for from `line` on, so the block ends before that line.
    PatternWorkSpent {
        /// The pattern as given.
        pattern: String,
        /// The first line not searched (nor shown).
        line: u64,
        /// What the block shows.
        shown: Shown,
        /// The item that reads on.
        read_on: ReadOn,
    },
    /// `read_to_next_pattern` is costly to run: `lines` lines longer than `bytes` were searched
    /// for it in their first `bytes` bytes only.
    PatternLinesPartlySearched {
        /// The pattern as given.
        pattern: String,
        /// Lines searched in part.
        lines: u64,
        /// Bytes of each line searched.
        bytes: usize,
    },
    /// A `tail` read shows only its last `lines` lines: the line before them is longer than the
    /// `scan` bytes searched back from the end.
    TailPartial {
        /// Lines shown.
        lines: u64,
        /// Bytes searched back from the end.
        scan: u64,
    },
    /// The last line has no line break in the last `scan` bytes; only its last `shown` bytes are
    /// shown.
    LongLastLine {
        /// Bytes searched back from the end.
        scan: u64,
        /// Bytes shown.
        shown: usize,
    },
    /// The last note of a reply whose cap was reached before item `first` (0-based) of `total`;
    /// `names` are the first few of them, shortened.
    NotRead {
        /// The reply cap, in bytes.
        cap: usize,
        /// The first item not read (0-based).
        first: usize,
        /// All items of the call.
        total: usize,
        /// The first items not read, as shown (at most three).
        names: Vec<String>,
    },
    /// A line cut inside the text (the marker after its shown part).
    LineCut {
        /// The line (`None` in a `tail` read).
        line: Option<u64>,
        /// Its length, exact or a lower bound.
        len: LineLen,
        /// Bytes of it shown.
        shown: usize,
        /// Cut because the reply is full (not by the line cap).
        by_budget: bool,
        /// The line cap, in bytes.
        line_cap: usize,
        /// The reply cap, in bytes.
        cap: usize,
    },
}

/// Refuses a whole-file read that would flood the model's context. A structured file is steered
/// to a query above its guard or above the reply cap (a cut JSON document is of little use);
/// `head` gives the file's first bytes for example queries, read only when they are shown.
pub fn check_size_guards(
    path: &str,
    resolved: &Path,
    size: u64,
    options: &ReadOptions,
    head: impl FnOnce() -> Vec<u8>,
) -> Result<(), ReadError> {
    let structured_limit = options
        .structured_guard_bytes
        .min(options.max_reply_bytes.max(MIN_REPLY_BYTES) as u64);
    let extension = resolved
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let kind = match extension.as_deref() {
        Some("json") => Some(StructuredKind::Json),
        Some("yaml" | "yml") => Some(StructuredKind::Yaml),
        _ => None,
    };
    match kind {
        Some(kind) if size > structured_limit => Err(ReadError::TooLarge {
            path: path.to_string(),
            size,
            structured: Some(kind),
            examples: options
                .example_queries
                .map(|f| f(resolved, kind, &head()))
                .unwrap_or_default(),
        }),
        _ if size > options.text_guard_bytes => Err(ReadError::TooLarge {
            path: path.to_string(),
            size,
            structured: None,
            examples: Vec::new(),
        }),
        _ => Ok(()),
    }
}
