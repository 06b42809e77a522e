//! The texts a model sees when a read cannot be done as asked; each says what to do next.

use std::path::Path;

use fs_mcp_sandbox::EntryKind;
pub(crate) use fs_mcp_text::{format_size, thousands};

use crate::lines::{CutLine, LineLen};
use crate::{MIN_REPLY_BYTES, ReadOptions, StructuredKind};

pub const MIXED_MODES: &str = "Cannot mix start_line/end_line/read_to_next_pattern with head/tail.\n\nFix: Use head or tail alone, or start_line with end_line or read_to_next_pattern.";
pub const HEAD_AND_TAIL: &str = "Cannot use head and tail together.\n\nFix: Make two requests for the same path, one with head and one with tail.";

pub fn end_line_with_pattern(end_line: u64, pattern: &str) -> String {
    format!(
        "Mutually exclusive parameters provided.\n\nYou provided: end_line={end_line}, read_to_next_pattern='{pattern}'\nProblem: `end_line` and `read_to_next_pattern` cannot be used together.\nFix: Choose one method for defining the read boundary."
    )
}

pub fn pattern_without_start(pattern: &str) -> String {
    format!(
        "Missing required parameter.\n\nYou provided: read_to_next_pattern='{pattern}' without `start_line`.\nProblem: `read_to_next_pattern` requires a `start_line` to know where to begin scanning.\nFix: Provide a `start_line`."
    )
}

pub fn invalid_start(path: &str, start_line: u64, total_lines: u64) -> String {
    let fix = if total_lines == 0 {
        "Fix: The file is empty; read it without start_line.".to_string()
    } else {
        format!("Fix: Choose a start_line between 1 and {total_lines}.")
    };
    format!(
        "Invalid start_line.\n\nYou provided: start_line={start_line}\nProblem: The file '{path}' only has {total_lines} lines.\n{fix}\nTip: Use grep_content to find valid line numbers first."
    )
}

pub fn end_before_start(start: u64, end: u64) -> String {
    format!(
        "end_line ({end}) is before start_line ({start}).\n\nFix: Use an end_line of at least {start}, or leave it out to read to the end of the file."
    )
}

pub fn negative(name: &str, value: i64) -> String {
    let hint = match name {
        "tail" | "head" => "a number of lines, 1 or more",
        _ => "a 1-based line number",
    };
    format!("{name}={value} is negative.\n\nFix: Give {name} as {hint}.")
}

pub fn bad_pattern(pattern: &str, error: &regex::Error) -> String {
    format!(
        "Invalid read_to_next_pattern '{pattern}': {error}\n\nFix: Use a valid regular expression (Rust regex syntax; no look-around or back-references). Escape special characters such as ( [ {{ with a backslash."
    )
}

pub fn not_found(path: &str) -> String {
    format!(
        "File not found: {path}\n\nFix: Check the path; search_files or directory_tree show what exists, and relative paths resolve against the first allowed directory (list_allowed_directories)."
    )
}

pub fn is_directory(path: &str) -> String {
    format!(
        "{path} is a directory, not a file.\n\nFix: Use directory_tree or list_directory_with_sizes to see what it contains, then read a file in it."
    )
}

pub fn not_regular(path: &str, kind: EntryKind) -> String {
    format!(
        "{path} is {}, not a regular file; read_files reads only regular files (a pipe, socket or device could block or never end).\n\nFix: Read the regular file that holds the data instead; get_file_info shows what a path is.",
        kind.described()
    )
}

pub fn io_error(path: &str, error: &std::io::Error) -> String {
    format!("Cannot read {path}: {error}")
}

pub fn binary(path: &str) -> String {
    format!(
        "{path} is a binary file (not UTF-8 text).\n\nFix: Use read_media_file for images and audio, or get_file_info to see its type and size."
    )
}

pub fn not_utf8(path: &str, line: u64) -> String {
    if line == 0 {
        binary(path)
    } else {
        format!(
            "{path} is not valid UTF-8 text at line {line}.\n\nFix: Read a line range before it, or use get_file_info to inspect the file."
        )
    }
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
) -> Result<(), String> {
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
        Some(kind) if size > structured_limit => Err(structured_guard(
            path,
            size,
            kind,
            options.example_queries.map(|f| f(resolved, kind, &head())),
        )),
        _ if size > options.text_guard_bytes => Err(text_guard(path, size)),
        _ => Ok(()),
    }
}

fn structured_guard(
    path: &str,
    size: u64,
    kind: StructuredKind,
    examples: Option<Vec<String>>,
) -> String {
    let (type_name, tool) = match kind {
        StructuredKind::Json => ("JSON", "query_json"),
        StructuredKind::Yaml => ("YAML", "query_yaml"),
    };
    let examples = examples
        .filter(|q| !q.is_empty())
        .unwrap_or_else(|| vec!["keys".into(), ".[0:5]".into(), "length".into()]);
    let mut text = format!(
        "{path} is a large {type_name} file ({}, ~{} tokens).\n\nReading the entire file may overflow your context window. Query it instead:\n",
        format_size(size),
        thousands(size / 4)
    );
    for query in examples {
        text.push_str(&format!(
            "- {tool}({}, {})\n",
            json_quote(path),
            json_quote(&query)
        ));
    }
    text.push_str(
        "\nOr read part of it with head, tail or start_line/end_line, or find lines with grep_content.\nAs a last resort, set large_file_passthrough=true to read it whole.",
    );
    text
}

fn text_guard(path: &str, size: u64) -> String {
    format!(
        "{path} is large ({}, ~{} tokens); reading it whole may overflow your context window.\n\nFix: Read part of it: {{\"path\": \"{path}\", \"head\": 200}}, {{\"path\": \"{path}\", \"start_line\": 1000, \"end_line\": 1200}} or {{\"path\": \"{path}\", \"tail\": 100}}; find the lines you need with grep_content. As a last resort, set large_file_passthrough=true.",
        format_size(size),
        thousands(size / 4)
    )
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
) -> String {
    let subject = match line {
        Some(n) => format!("line {}", thousands(n)),
        None => "this line".to_string(),
    };
    let length = match cut.len {
        LineLen::Exact(n) => format!("has {} bytes", thousands(n)),
        LineLen::AtLeast(n) => format!("has more than {} bytes", thousands(n)),
    };
    let hint = if cut.by_budget {
        "the rest does not fit in this reply; grep_content finds text in it.".to_string()
    } else {
        format!(
            "large_file_passthrough=true lifts the {}-byte line limit (the {}-byte reply limit stays); grep_content finds text in it.",
            thousands(line_cap as u64),
            thousands(cap as u64)
        )
    };
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
