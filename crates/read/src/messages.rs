//! The notes of a reply (what was cut, how to read on) and the size guards of whole reads.

use std::path::Path;

use crate::lines::{CutLine, LineLen};
use crate::{MIN_REPLY_BYTES, ReadError, ReadOptions, StructuredKind};
pub(crate) use fs_mcp_text::{format_size, thousands};

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

/// A JSON string literal.
fn json_quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The arguments of the item that reads on from line `next`.
pub fn read_on(path: &str, next: u64, end: Option<u64>, pattern: Option<&str>) -> String {
    let mut text = format!("{{\"path\": {}, \"start_line\": {next}", json_quote(path));
    if let Some(end) = end {
        text.push_str(&format!(", \"end_line\": {end}"));
    }
    if let Some(pattern) = pattern {
        text.push_str(&format!(
            ", \"read_to_next_pattern\": {}",
            json_quote(pattern)
        ));
    }
    text.push('}');
    text
}

/// The arguments of the item that reads the last `lines` lines.
pub fn read_on_tail(path: &str, lines: u64) -> String {
    format!("{{\"path\": {}, \"tail\": {lines}}}", json_quote(path))
}

/// The note of a block cut at the reply cap.
pub fn reply_cut(cap: usize, what: &str, read_on: &str) -> String {
    format!(
        "Reply limit ({} bytes) reached: {what}. Read on with {read_on}.",
        thousands(cap as u64)
    )
}

/// The marker that ends the shown part of a cut line (inside the text, after it).
pub fn cut_marker(
    tag: &str,
    line: Option<u64>,
    cut: CutLine,
    line_cap: usize,
    cap: usize,
    search_tool: Option<&str>,
) -> String {
    let subject = match line {
        Some(n) => format!("line {}", thousands(n)),
        None => "this line".to_string(),
    };
    let length = match cut.len {
        LineLen::Exact(n) => format!("has {} bytes", thousands(n)),
        LineLen::AtLeast(n) => format!("has more than {} bytes", thousands(n)),
    };
    let mut hint = if cut.by_budget {
        "the rest does not fit in this reply".to_string()
    } else {
        format!(
            "large_file_passthrough=true lifts the {}-byte line limit (the {}-byte reply limit stays)",
            thousands(line_cap as u64),
            thousands(cap as u64)
        )
    };
    if let Some(tool) = search_tool {
        hint.push_str(&format!("; {tool} finds text in it"));
    }
    hint.push('.');
    format!(
        " {tag} Cut: {subject} {length}; the first {} are shown; {hint}",
        thousands(cut.shown as u64)
    )
}

pub fn pattern_not_found(pattern: &str, start: u64) -> String {
    format!("Pattern '{pattern}' not found after line {start}; read to the end of the file.")
}

/// A cut line whose end was not found: the lines after it were not reached.
pub fn line_unended(line: u64, read_on: &str) -> String {
    format!(
        "Line {} has no line break within {} after its shown part, so the lines after it were not read. Read on with {read_on}.",
        thousands(line),
        format_size(crate::lines::LONG_LINE_SCAN)
    )
}

pub fn line_unended_tail(read_on: &str) -> String {
    format!(
        "A line has no line break within {} after its shown part, so the lines after it were not read. Read them with {read_on}.",
        format_size(crate::lines::LONG_LINE_SCAN)
    )
}

pub fn tail_partial(lines: u64, scan: u64) -> String {
    format!(
        "Only the last {} lines are shown: the line before them is longer than the {} that tail searches back from the end.",
        thousands(lines),
        format_size(scan)
    )
}

pub fn long_last_line(scan: u64, shown: usize) -> String {
    format!(
        "The last line has no line break in the last {} of the file, so only its last {} bytes are shown.",
        format_size(scan),
        thousands(shown as u64)
    )
}

/// The last note of a reply whose cap was reached before item `first` (0-based) of `total`.
pub fn not_read(cap: usize, first: usize, total: usize, names: &[String]) -> String {
    let total_text = thousands(total as u64);
    let items = if first + 1 == total {
        format!("item {total_text} of {total_text} was not read")
    } else {
        format!(
            "items {}–{total_text} of {total_text} were not read",
            thousands(first as u64 + 1)
        )
    };
    let mut list = names.join(", ");
    if total - first > names.len() {
        list.push_str(", …");
    }
    format!(
        "Reply limit ({} bytes) reached: {items} ({list}). Ask for them in another call.",
        thousands(cap as u64)
    )
}
