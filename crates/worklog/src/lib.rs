//! `analyze_gsd_work_log`: scans a GSD-Lite markdown work log for `### [LOG-NNN]` entries and
//! reports each entry's type, task, size in tokens and the signals that it may be superseded.
//!
//! Entries run from their header to the line before the next header (or the end). Headers inside
//! fenced code blocks are documentation, not entries. Signals are searched case-insensitively in
//! each line of the entry with code (fenced blocks and inline spans) masked, so a log that
//! *documents* the patterns does not trip them; a header's own signals are counted once, in
//! pattern order. Time and memory are bounded whatever the file: see [`analyze`].
//!
//! The analysis is data ([`Analysis`], its [`WorkLogNote`]s); the caller renders it.

mod patterns;

pub use patterns::{MAX_SIGNALS_LISTED, Signals};

use std::io::{self, BufRead};
use std::sync::OnceLock;

use serde::Serialize;

/// The default work log location of a GSD-Lite project.
pub const DEFAULT_PATH: &str = "gsd-lite/WORK.md";

/// One `### [LOG-NNN]` entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LogEntry {
    /// `LOG-NNN`, as in the header.
    pub log_id: String,
    /// The bracketed type after the id (`DECISION`, `EXECUTION`, …), upper-cased.
    #[serde(rename = "type")]
    pub kind: String,
    /// The header's title text.
    pub title: String,
    /// The header's `Task: NAME` suffix, when it has one.
    pub task: Option<String>,
    /// The entry's size in tokens, counted as [`Analysis::tokenizer`] says.
    pub tokens: usize,
    /// First and last line (1-based, inclusive).
    pub lines: [usize; 2],
    /// What suggests the entry is superseded.
    pub signals: Signals,
}

/// The whole analysis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Analysis {
    /// The first [`MAX_LOGS_LISTED`] entries.
    pub logs: Vec<LogEntry>,
    /// Entries found after the first [`MAX_LOGS_LISTED`] (counted, not listed).
    pub logs_not_listed: usize,
    /// Tokens of the analyzed part (preamble included).
    pub total_tokens: usize,
    /// How tokens were counted, said in every output.
    pub tokenizer: &'static str,
    /// A line was longer than [`MAX_LINE_BYTES`]: its rest was estimated and not scanned.
    pub approximate: bool,
    /// More than [`MAX_TOKENIZED_BYTES`] of text: the rest was counted at the rate measured on
    /// the text tokenized.
    pub tokens_estimated: bool,
    /// Bytes read and analyzed; the analysis stops after [`MAX_ANALYZED_BYTES`].
    pub bytes_analyzed: u64,
    /// The file goes on after [`MAX_ANALYZED_BYTES`]: what follows is not analyzed.
    pub stopped_early: bool,
}

impl Analysis {
    /// What was estimated or left out, in this order; empty if nothing (the caller words them).
    pub fn notes(&self) -> Vec<WorkLogNote> {
        let mut notes = Vec::new();
        if self.stopped_early {
            notes.push(WorkLogNote::StoppedEarly {
                analyzed_bytes: MAX_ANALYZED_BYTES,
            });
        }
        if self.logs_not_listed > 0 {
            notes.push(WorkLogNote::LogsNotListed {
                not_listed: self.logs_not_listed,
                listed: MAX_LOGS_LISTED,
            });
        }
        if self.approximate {
            notes.push(WorkLogNote::LongLinesApproximate {
                line_bytes: MAX_LINE_BYTES,
            });
        }
        if self.tokens_estimated {
            notes.push(WorkLogNote::TokensEstimated {
                tokenized_bytes: MAX_TOKENIZED_BYTES,
            });
        }
        notes
    }

    /// Every entry found, listed or not.
    pub fn total_logs(&self) -> usize {
        self.logs.len() + self.logs_not_listed
    }

    /// Tier 1 and tier 2 signals over all listed entries, listed or not.
    pub fn flag_counts(&self) -> (usize, usize) {
        self.logs.iter().fold((0, 0), |(t1, t2), log| {
            (
                t1 + log.signals.tier_1_count(),
                t2 + log.signals.tier_2_count(),
            )
        })
    }
}

/// What an analysis estimated or left out, with its numbers. Exhaustive: a new note does not
/// compile until the caller words it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkLogNote {
    /// Only the first `analyzed_bytes` of the file were analyzed: entries after them are not
    /// listed and their tokens not counted.
    StoppedEarly {
        /// [`MAX_ANALYZED_BYTES`].
        analyzed_bytes: u64,
    },
    /// Entries after the first `listed` are counted in the total but not listed.
    LogsNotListed {
        /// Entries counted, not listed.
        not_listed: usize,
        /// [`MAX_LOGS_LISTED`].
        listed: usize,
    },
    /// Lines over `line_bytes` were counted approximately (4 bytes per token after their first
    /// `line_bytes`) and scanned for signals only in their first `line_bytes`.
    LongLinesApproximate {
        /// [`MAX_LINE_BYTES`].
        line_bytes: usize,
    },
    /// Tokens after the first `tokenized_bytes` of text were estimated at the rate counted on
    /// those.
    TokensEstimated {
        /// [`MAX_TOKENIZED_BYTES`].
        tokenized_bytes: usize,
    },
}

/// The tokenizer named in outputs.
pub const TOKENIZER: &str = "cl100k_base (GPT-4), counted offline";

/// Bytes of a line that are kept, scanned for headers and signals and counted exactly: a longer
/// line's rest is read past and counted as 4 bytes per token. Bounds the memory of one line and
/// the tokenizer's input (its merge state takes some 40 bytes per input byte).
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// Bytes of a file analyzed: a work log is markdown of a few megabytes at most; the rest of a
/// larger file is not read, so one call's time stays bounded.
pub const MAX_ANALYZED_BYTES: u64 = 64 << 20;

/// Bytes of text given to the tokenizer in one call (its cost per byte varies with the text, up
/// to about a microsecond for long runs of spaces or digits); the rest is estimated at the rate
/// measured on them.
pub const MAX_TOKENIZED_BYTES: usize = 8 << 20;

/// Entries listed; the others are counted. Bounds the answer and the memory it takes.
pub const MAX_LOGS_LISTED: usize = 2_000;

/// Counts tokens with cl100k_base; falls back to bytes ÷ 4 if the tables cannot be built.
/// The text should be at most [`MAX_LINE_BYTES`] or so: the tokenizer's memory grows with the
/// longest run of text without a break.
pub fn count_tokens(text: &str) -> usize {
    static BPE: OnceLock<Option<tiktoken_rs::CoreBPE>> = OnceLock::new();
    match BPE.get_or_init(|| tiktoken_rs::cl100k_base().ok()) {
        Some(bpe) => bpe.encode_ordinary(text).len(),
        None => text.len().div_ceil(4),
    }
}

/// Text waiting to be counted, counted in windows of about [`MAX_LINE_BYTES`] (cut at line ends,
/// so a window boundary changes the count little).
#[derive(Default)]
struct TokenWindow {
    pending: String,
    counted: usize,
    /// Bytes and tokens the tokenizer saw, for the rate past [`MAX_TOKENIZED_BYTES`].
    tokenized_bytes: usize,
    tokenized_tokens: usize,
    estimated: bool,
}

impl TokenWindow {
    fn push_line(&mut self, line: &str) {
        if self.pending.len() + line.len() > MAX_LINE_BYTES {
            self.flush();
        }
        self.pending.push_str(line);
        self.pending.push('\n');
    }

    fn flush(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        if self.tokenized_bytes < MAX_TOKENIZED_BYTES {
            let tokens = count_tokens(&self.pending);
            self.tokenized_bytes += self.pending.len();
            self.tokenized_tokens += tokens;
            self.counted += tokens;
        } else {
            let rate = self.tokenized_tokens as f64 / self.tokenized_bytes.max(1) as f64;
            self.counted += (self.pending.len() as f64 * rate).ceil() as usize;
            self.estimated = true;
        }
        self.pending.clear();
    }

    /// All tokens pushed so far, and resets.
    fn take(&mut self) -> usize {
        self.flush();
        std::mem::take(&mut self.counted)
    }
}

/// An entry being read.
struct Open {
    /// Within [`MAX_LOGS_LISTED`]: its signals are looked for.
    listed: bool,
    header: patterns::Header,
    start: usize,
    end: usize,
    signals: patterns::Found,
    tokens: usize,
}

/// One line as read: at most [`MAX_LINE_BYTES`] of it kept, its full length known.
struct Line {
    kept: Vec<u8>,
    /// Bytes beyond `kept`, newline excluded.
    cut: u64,
}

/// Reads one line (without its `\n`) into `line`, keeping at most [`MAX_LINE_BYTES`] and reading
/// past the rest without storing it. `Ok(false)` at the end of input; `budget` bytes at most.
fn read_line(reader: &mut impl BufRead, line: &mut Line, budget: &mut u64) -> io::Result<bool> {
    line.kept.clear();
    line.cut = 0;
    let mut any = false;
    loop {
        if *budget == 0 {
            return Ok(any);
        }
        let chunk = reader.fill_buf()?;
        if chunk.is_empty() {
            return Ok(any);
        }
        any = true;
        let window = &chunk[..chunk
            .len()
            .min(usize::try_from(*budget).unwrap_or(usize::MAX))];
        let (body, used, done) = match window.iter().position(|&b| b == b'\n') {
            Some(i) => (&window[..i], i + 1, true),
            None => (window, window.len(), false),
        };
        let room = MAX_LINE_BYTES - line.kept.len();
        let keep = body.len().min(room);
        line.kept.extend_from_slice(&body[..keep]);
        line.cut += (body.len() - keep) as u64;
        reader.consume(used);
        *budget -= used as u64;
        if done {
            return Ok(true);
        }
    }
}

/// The kept part of a line as text; a character cut at the [`MAX_LINE_BYTES`] boundary is
/// dropped, any other invalid byte is an `InvalidData` error (the log is not UTF-8 text).
fn line_text(line: &Line) -> io::Result<&str> {
    match std::str::from_utf8(&line.kept) {
        Ok(text) => Ok(text),
        Err(e) if line.cut > 0 && e.error_len().is_none() => {
            Ok(std::str::from_utf8(&line.kept[..e.valid_up_to()]).unwrap_or_default())
        }
        Err(e) => Err(io::Error::new(io::ErrorKind::InvalidData, e)),
    }
}

/// Reads the log line by line. Memory is one line (at most [`MAX_LINE_BYTES`]), one token
/// window and the entries listed; time is linear in the bytes read, at most
/// [`MAX_ANALYZED_BYTES`].
pub fn analyze(mut reader: impl BufRead) -> io::Result<Analysis> {
    let mut logs = Vec::new();
    let mut logs_not_listed = 0;
    let mut total_tokens = 0;
    let mut approximate = false;
    let mut window = TokenWindow::default();
    let mut current: Option<Open> = None;
    let mut in_fence = false;
    let mut line_no = 0;
    let mut budget = MAX_ANALYZED_BYTES;
    let mut line = Line {
        kept: Vec::new(),
        cut: 0,
    };
    let mut close = |open: Open, window: &mut TokenWindow, logs: &mut Vec<LogEntry>| {
        let tokens = open.tokens + window.take();
        if open.listed {
            logs.push(finish(open, tokens));
        } else {
            logs_not_listed += 1;
        }
        tokens
    };
    while read_line(&mut reader, &mut line, &mut budget)? {
        line_no += 1;
        let text = line_text(&line)?;
        let text = text.strip_suffix('\r').unwrap_or(text);
        // The rest of a pathologically long line: estimated, never given to the tokenizer.
        let estimated = usize::try_from(line.cut.div_ceil(4)).unwrap_or(usize::MAX);
        approximate |= line.cut > 0;
        let trimmed = text.trim_start();
        let is_fence = trimmed.starts_with("```");
        let is_header = !in_fence && trimmed.starts_with("### [LOG-");
        let masked_line = in_fence || is_fence;
        if is_fence {
            in_fence = !in_fence;
        }
        if is_header {
            if let Some(open) = current.take() {
                total_tokens += close(open, &mut window, &mut logs);
            } else {
                total_tokens += window.take();
            }
            // A header that does not parse still ends the previous entry.
            // Entries past the listing cap are only counted: their signals are not looked for.
            let listed = logs.len() < MAX_LOGS_LISTED;
            current = patterns::parse_header(trimmed).map(|header| {
                let mut signals = patterns::Found::default();
                if listed {
                    signals.header(text);
                }
                Open {
                    listed,
                    header,
                    start: line_no,
                    end: line_no,
                    signals,
                    tokens: 0,
                }
            });
        } else if let Some(open) = current.as_mut() {
            if open.listed && !masked_line {
                open.signals.body_line(text, line_no);
            }
            open.end = line_no;
        }
        window.push_line(text);
        match current.as_mut() {
            Some(open) => open.tokens = open.tokens.saturating_add(estimated),
            None => total_tokens += estimated,
        }
    }
    if let Some(open) = current.take() {
        total_tokens += close(open, &mut window, &mut logs);
    }
    total_tokens += window.take();
    // Anything left unread after the budget: the file goes on.
    let stopped_early = budget == 0 && !reader.fill_buf()?.is_empty();
    Ok(Analysis {
        logs,
        logs_not_listed,
        total_tokens,
        tokenizer: TOKENIZER,
        approximate,
        tokens_estimated: window.estimated,
        bytes_analyzed: MAX_ANALYZED_BYTES - budget,
        stopped_early,
    })
}

fn finish(open: Open, tokens: usize) -> LogEntry {
    LogEntry {
        log_id: open.header.log_id,
        kind: open.header.kind,
        title: open.header.title,
        task: open.header.task,
        tokens,
        lines: [open.start, open.end.max(open.start)],
        signals: open.signals.into_signals(),
    }
}

#[cfg(test)]
mod tests;
