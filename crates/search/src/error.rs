//! The one error type of the crate: what went wrong, with the data (the path as shown, the
//! limit); the binary's renderer adds the `Error:` prefix and the next step.

use std::fmt;

use fs_mcp_sandbox::{AccessError, EntryKind};

/// Why a call could not produce its normal answer.
///
/// `Display` states the facts (with the parser's words for a bad pattern), naming the path as
/// the model can pass it back (`Sandbox::display`); it names no tool and gives no next step.
#[derive(Debug)]
pub enum SearchError {
    /// The sandbox refused the path.
    Access(AccessError),
    /// The path does not exist.
    NotFound {
        /// The path as shown to the client (`Sandbox::display`).
        path: String,
    },
    /// A directory was expected.
    NotADirectory {
        /// The path as shown to the client (`Sandbox::display`).
        path: String,
    },
    /// A search path that is neither a regular file nor a directory (never opened).
    NotSearchable {
        /// The path as shown to the client (`Sandbox::display`).
        path: String,
        /// What it is.
        kind: EntryKind,
    },
    /// An ignore file of the walk's root that must not be read as rules (a FIFO, a device, too
    /// big…), so the search that needs its rules is not run.
    UnsafeIgnoreFile {
        /// The ignore file as shown to the client (`Sandbox::display`).
        path: String,
    },
    /// The regex is empty.
    EmptyRegex,
    /// The regex did not compile.
    InvalidRegex {
        /// The pattern (cut to 200 characters).
        pattern: String,
        /// The parser's error.
        reason: String,
        /// It compiles to more than the size limit (a huge counted repetition).
        too_large: bool,
    },
    /// A `section_patterns` entry did not compile.
    InvalidSectionPattern {
        /// The entry (`None`: the entries together were refused).
        pattern: Option<String>,
        /// The parser's error.
        reason: String,
    },
    /// The glob is empty or did not compile.
    InvalidGlob {
        /// The glob as given.
        pattern: String,
        /// The parser's error (`None`: the glob is empty).
        reason: Option<String>,
    },
    /// The match limit is 0.
    NoMatchesAllowed,
    /// An I/O error, with the path it happened on.
    Io {
        /// The path as shown to the client (`Sandbox::display`).
        path: String,
        /// The I/O error in words.
        message: String,
    },
}

impl SearchError {
    pub(crate) fn io(path: &str, err: &std::io::Error) -> SearchError {
        SearchError::Io {
            path: path.to_string(),
            message: describe_io(err),
        }
    }
}

pub(crate) use fs_mcp_text::describe_io;

/// The facts, tersely, for logs and other callers; the sentences a model reads are the binary's
/// (`src/render/search.rs`).
impl fmt::Display for SearchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SearchError::Access(e) => write!(f, "{e}"),
            SearchError::NotFound { path } => write!(f, "{path}: not found"),
            SearchError::NotADirectory { path } => write!(f, "{path}: not a directory"),
            SearchError::NotSearchable { path, kind } => {
                write!(f, "{path}: {}, not searched", kind.described())
            }
            SearchError::UnsafeIgnoreFile { path } => {
                write!(f, "{path}: an ignore file not read as rules")
            }
            SearchError::EmptyRegex => f.write_str("empty regex"),
            SearchError::InvalidRegex {
                pattern, reason, ..
            } => write!(f, "invalid regex {pattern:?}: {reason}"),
            SearchError::InvalidSectionPattern { pattern, reason } => match pattern {
                Some(pattern) => write!(f, "invalid section pattern {pattern:?}: {reason}"),
                None => write!(f, "invalid section patterns: {reason}"),
            },
            SearchError::InvalidGlob { pattern, reason } => match reason {
                Some(reason) => write!(f, "invalid glob {pattern:?}: {reason}"),
                None => write!(f, "empty glob {pattern:?}"),
            },
            SearchError::NoMatchesAllowed => f.write_str("a match limit of 0"),
            SearchError::Io { path, message } => write!(f, "{path}: {message}"),
        }
    }
}

impl std::error::Error for SearchError {}

impl From<AccessError> for SearchError {
    fn from(e: AccessError) -> Self {
        SearchError::Access(e)
    }
}
