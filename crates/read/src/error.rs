//! Why one item of a read failed, as data: the binary's renderer turns it into the model's
//! sentence with a next step (it knows which tools the model can call).

use std::fmt;
use std::io;

use fs_mcp_sandbox::AccessError;
use fs_mcp_text::describe_io;

use crate::request::StructuredKind;

/// Why one requested item could not be read. `path` is always the name as the reply shows it.
/// `Display` states the facts tersely (for logs); the binary words them for the model.
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

/// The facts, tersely, for logs and other callers; the sentences a model reads are the binary's
/// (`src/render/read.rs`).
impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Access { error, .. } => write!(f, "{error}"),
            ReadError::Negative { name, value } => write!(f, "negative {name}: {value}"),
            ReadError::MixedModes => f.write_str("a line range or stop pattern with head or tail"),
            ReadError::HeadAndTail => f.write_str("head and tail in one request"),
            ReadError::EndLineWithPattern { end_line, pattern } => {
                write!(
                    f,
                    "end line {end_line} and stop pattern {pattern:?} in one request"
                )
            }
            ReadError::PatternWithoutStart { pattern } => {
                write!(f, "stop pattern {pattern:?} without a start line")
            }
            ReadError::BadPattern { pattern, error } => {
                write!(f, "invalid stop pattern {pattern:?}: {error}")
            }
            ReadError::EndBeforeStart { start, end } => {
                write!(f, "end line {end} before start line {start}")
            }
            ReadError::StartPastEnd { path, start, lines } => {
                write!(f, "{path}: start line {start} past its {lines} lines")
            }
            ReadError::Binary { path } => write!(f, "{path}: binary, not UTF-8 text"),
            ReadError::NotUtf8 { path, line } => write!(f, "{path}: not UTF-8 at line {line}"),
            ReadError::TooLarge { path, size, .. } => {
                write!(f, "{path}: {size} bytes, over the whole-file read guard")
            }
            ReadError::Io { path, error } => write!(f, "{path}: {}", describe_io(error)),
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
