//! Why one item of a read failed, as data: the binary's renderer turns it into the model's
//! sentence with a next step (it knows which tools the model can call).

use std::fmt;
use std::io;

use fs_mcp_sandbox::{AccessError, EntryKind};
use fs_mcp_text::{describe_io, format_size, thousands};

use crate::request::StructuredKind;

/// Why one requested item could not be read. `path` is always the name as the reply shows it.
/// `Display` states the facts in one sentence (no next step, no tool names).
#[derive(Debug)]
pub enum ReadError {
    /// The sandbox would not open the file (missing, a directory, outside, not regular…).
    Access {
        /// The name as shown.
        path: String,
        /// The sandbox's refusal.
        error: AccessError,
    },
    /// `head`, `tail`, `start_line` or `end_line` is negative.
    Negative {
        /// The parameter's name.
        name: &'static str,
        /// The value given.
        value: i64,
    },
    /// A line range or pattern mixed with `head` or `tail`.
    MixedModes,
    /// `head` and `tail` in one item.
    HeadAndTail,
    /// `end_line` and `read_to_next_pattern` in one item.
    EndLineWithPattern {
        /// The `end_line` given.
        end_line: u64,
        /// The pattern given.
        pattern: String,
    },
    /// `read_to_next_pattern` without `start_line`.
    PatternWithoutStart {
        /// The pattern given.
        pattern: String,
    },
    /// `read_to_next_pattern` is not a valid regex.
    BadPattern {
        /// The pattern given.
        pattern: String,
        /// The parser's error.
        error: regex::Error,
    },
    /// `end_line` before `start_line`.
    EndBeforeStart {
        /// The `start_line` given.
        start: u64,
        /// The `end_line` given.
        end: u64,
    },
    /// `start_line` is past the file's last line.
    StartPastEnd {
        /// The name as shown.
        path: String,
        /// The `start_line` given.
        start: u64,
        /// How many lines the file has.
        lines: u64,
    },
    /// The file holds a NUL byte in its first bytes, or is not UTF-8 from its start.
    Binary {
        /// The name as shown.
        path: String,
    },
    /// The text stops being UTF-8 at a line.
    NotUtf8 {
        /// The name as shown.
        path: String,
        /// The first line that is not UTF-8 (1-based).
        line: u64,
    },
    /// A whole-file read above the size guard (`large_file_passthrough` lifts it).
    TooLarge {
        /// The name as shown.
        path: String,
        /// The file's size in bytes.
        size: u64,
        /// JSON or YAML: a query reads it better than a partial read.
        structured: Option<StructuredKind>,
        /// Example queries for a structured file (empty when none were made).
        examples: Vec<String>,
    },
    /// Reading failed.
    Io {
        /// The name as shown.
        path: String,
        /// The error of the read.
        error: io::Error,
    },
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Access { path, error } => match error {
                AccessError::NotFound { .. } => write!(f, "File not found: {path}"),
                AccessError::NotRegular {
                    kind: EntryKind::Dir,
                    ..
                } => write!(f, "{path} is a directory, not a file"),
                AccessError::NotRegular { kind, .. } => write!(
                    f,
                    "{path} is {}, not a regular file; only regular files are read (a pipe, socket or device could block or never end)",
                    kind.described()
                ),
                other => write!(f, "{other}"),
            },
            ReadError::Negative { name, value } => write!(f, "{name}={value} is negative"),
            ReadError::MixedModes => {
                f.write_str("Cannot mix start_line/end_line/read_to_next_pattern with head/tail")
            }
            ReadError::HeadAndTail => f.write_str("Cannot use head and tail together"),
            ReadError::EndLineWithPattern { end_line, pattern } => write!(
                f,
                "end_line={end_line} and read_to_next_pattern='{pattern}' cannot be used together"
            ),
            ReadError::PatternWithoutStart { pattern } => write!(
                f,
                "read_to_next_pattern='{pattern}' needs a start_line to know where to begin scanning"
            ),
            ReadError::BadPattern { pattern, error } => {
                // The parser's error spans lines (the pattern, a caret); the reply's frame line
                // holds one.
                let error = error.to_string().replace('\n', " ");
                write!(f, "Invalid read_to_next_pattern '{pattern}': {error}")
            }
            ReadError::EndBeforeStart { start, end } => {
                write!(f, "end_line ({end}) is before start_line ({start})")
            }
            ReadError::StartPastEnd { path, start, lines } => write!(
                f,
                "Invalid start_line={start}: {path} only has {lines} lines"
            ),
            ReadError::Binary { path } => write!(f, "{path} is a binary file (not UTF-8 text)"),
            ReadError::NotUtf8 { path, line } => {
                write!(f, "{path} is not valid UTF-8 text at line {line}")
            }
            ReadError::TooLarge {
                path,
                size,
                structured,
                ..
            } => {
                let kind = match structured {
                    Some(StructuredKind::Json) => "a large JSON file",
                    Some(StructuredKind::Yaml) => "a large YAML file",
                    None => "large",
                };
                write!(
                    f,
                    "{path} is {kind} ({}, ~{} tokens); reading it whole may overflow your context window",
                    format_size(*size),
                    thousands(size / 4)
                )
            }
            ReadError::Io { path, error } => {
                write!(f, "Cannot read {path}: {}", describe_io(error))
            }
        }
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReadError::Access { error, .. } => Some(error),
            ReadError::BadPattern { error, .. } => Some(error),
            ReadError::Io { error, .. } => Some(error),
            _ => None,
        }
    }
}
