//! The texts a model sees when a read cannot be done as asked; each says what to do next.

use std::path::Path;

use crate::{ReadOptions, StructuredKind};

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

/// Refuses a whole-file read that would flood the model's context.
pub fn check_size_guards(
    path: &str,
    resolved: &Path,
    size: u64,
    options: &ReadOptions,
) -> Result<(), String> {
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
        Some(kind) if size > options.structured_guard_bytes => {
            Err(structured_guard(path, resolved, size, kind, options))
        }
        _ if size > options.text_guard_bytes => Err(text_guard(path, size)),
        _ => Ok(()),
    }
}

fn structured_guard(
    path: &str,
    resolved: &Path,
    size: u64,
    kind: StructuredKind,
    options: &ReadOptions,
) -> String {
    let (type_name, tool) = match kind {
        StructuredKind::Json => ("JSON", "query_json"),
        StructuredKind::Yaml => ("YAML", "query_yaml"),
    };
    let examples = options
        .example_queries
        .map(|f| f(resolved, kind))
        .filter(|q| !q.is_empty())
        .unwrap_or_else(|| vec!["keys".into(), ".[0:5]".into(), "length".into()]);
    let mut text = format!(
        "{path} is a large {type_name} file ({}, ~{} tokens).\n\nReading the entire file may overflow your context window. Query it instead:\n",
        format_size(size),
        group_thousands(size / 4)
    );
    for query in examples {
        text.push_str(&format!("- {tool}(\"{path}\", {})\n", serde_quote(&query)));
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
        group_thousands(size / 4)
    )
}

/// A query as a double-quoted string literal, escaped like JSON.
fn serde_quote(query: &str) -> String {
    let mut out = String::with_capacity(query.len() + 2);
    out.push('"');
    for c in query.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `1234567` → `1,234,567`.
pub fn group_thousands(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Human-readable size, as the original: `98.00 B`, `1.80 KB`, `3.20 MB`.
pub fn format_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut value = bytes as f64;
    for unit in UNITS {
        if value < 1024.0 {
            return format!("{value:.2} {unit}");
        }
        value /= 1024.0;
    }
    format!("{value:.2} PB")
}
