//! `analyze_gsd_work_log`: scans a GSD-Lite markdown work log for `### [LOG-NNN]` entries and
//! reports each entry's type, task, size in tokens and the signals that it may be superseded.
//!
//! Entries run from their header to the line before the next header (or the end). Headers inside
//! fenced code blocks are documentation, not entries. Signals are searched case-insensitively in
//! the entry with code (fenced blocks and inline spans) masked, so a log that *documents* the
//! patterns does not trip them; a header's own signals are counted once, in pattern order.

mod patterns;
mod render;

use std::io::{self, BufRead};
use std::sync::OnceLock;

use serde::Serialize;

pub use render::{render_json, render_table};

/// The default work log location of a GSD-Lite project.
pub const DEFAULT_PATH: &str = "gsd-lite/WORK.md";

/// One `### [LOG-NNN]` entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LogEntry {
    pub log_id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    pub task: Option<String>,
    pub tokens: usize,
    /// First and last line (1-based, inclusive).
    pub lines: [usize; 2],
    pub signals: Signals,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Signals {
    pub tier_1: Vec<String>,
    pub tier_2: Vec<String>,
}

/// The whole analysis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Analysis {
    pub logs: Vec<LogEntry>,
    /// Tokens of the whole file (preamble included).
    pub total_tokens: usize,
    /// How tokens were counted, said in every output.
    pub tokenizer: &'static str,
}

/// The tokenizer named in outputs.
pub const TOKENIZER: &str = "cl100k_base (GPT-4), counted offline";

/// Counts tokens with cl100k_base; falls back to bytes ÷ 4 if the tables cannot be built.
pub fn count_tokens(text: &str) -> usize {
    static BPE: OnceLock<Option<tiktoken_rs::CoreBPE>> = OnceLock::new();
    match BPE.get_or_init(|| tiktoken_rs::cl100k_base().ok()) {
        Some(bpe) => bpe.encode_ordinary(text).len(),
        None => text.len().div_ceil(4),
    }
}

/// An entry being read.
struct Open {
    header: patterns::Header,
    header_text: String,
    start: usize,
    body: String,
}

/// Reads the log line by line; memory is one entry at a time.
pub fn analyze(reader: impl BufRead) -> io::Result<Analysis> {
    let mut logs = Vec::new();
    let mut total_tokens = 0;
    let mut current: Option<Open> = None;
    let mut in_fence = false;
    let mut line_no = 0;
    let mut chunk = String::new();
    for line in reader.lines() {
        let line = line?;
        line_no += 1;
        let trimmed = line.trim_start();
        let is_header = !in_fence && trimmed.starts_with("### [LOG-");
        if trimmed.starts_with("```") {
            in_fence = !in_fence;
        }
        if is_header {
            if let Some(open) = current.take() {
                logs.push(finish(open, line_no - 1));
            }
            // A header that does not parse still ends the previous entry.
            current = patterns::parse_header(trimmed).map(|header| Open {
                header,
                header_text: line.clone(),
                start: line_no,
                body: String::new(),
            });
        } else if let Some(open) = current.as_mut() {
            open.body.push_str(&line);
            open.body.push('\n');
        }
        chunk.push_str(&line);
        chunk.push('\n');
        if chunk.len() > 1 << 20 {
            total_tokens += count_tokens(&chunk);
            chunk.clear();
        }
    }
    total_tokens += count_tokens(&chunk);
    if let Some(open) = current.take() {
        logs.push(finish(open, line_no));
    }
    Ok(Analysis {
        logs,
        total_tokens,
        tokenizer: TOKENIZER,
    })
}

fn finish(open: Open, end: usize) -> LogEntry {
    let mut signals = Signals::default();
    patterns::header_signals(&open.header_text, &mut signals);
    let masked = patterns::mask_code(&open.body);
    // The body starts on the line after the header.
    patterns::body_signals(&masked, open.start + 1, &mut signals);
    let tokens = count_tokens(&open.header_text) + 1 + count_tokens(&open.body);
    LogEntry {
        log_id: open.header.log_id,
        kind: open.header.kind,
        title: open.header.title,
        task: open.header.task,
        tokens,
        lines: [open.start, end.max(open.start)],
        signals,
    }
}

#[cfg(test)]
mod tests;
