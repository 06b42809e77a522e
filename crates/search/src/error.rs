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

impl fmt::Display for SearchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SearchError::Access(e) => write!(f, "{e}"),
            SearchError::NotFound { path } => write!(f, "{path} does not exist."),
            SearchError::NotADirectory { path } => write!(f, "{path} is not a directory."),
            SearchError::NotSearchable { path, kind } => write!(
                f,
                "{path} is {}; only regular files (and directories of them) are searched.",
                kind.described()
            ),
            SearchError::UnsafeIgnoreFile { path } => write!(
                f,
                "{path} is {}, so it is not read as ignore rules, and the search that needs them is not run.",
                crate::rules::UNSAFE_RULES_KINDS
            ),
            SearchError::EmptyRegex => f.write_str("pattern is empty."),
            SearchError::InvalidRegex {
                pattern,
                reason,
                too_large: true,
            } => write!(
                f,
                "regex '{pattern}' is too large: {}.",
                reason.trim_end_matches('.')
            ),
            SearchError::InvalidRegex {
                pattern, reason, ..
            } => write!(f, "invalid regex '{pattern}': {reason}"),
            SearchError::InvalidSectionPattern {
                pattern: Some(pattern),
                reason,
            } => write!(f, "invalid section_patterns entry '{pattern}': {reason}"),
            SearchError::InvalidSectionPattern {
                pattern: None,
                reason,
            } => write!(f, "invalid section_patterns: {reason}"),
            SearchError::InvalidGlob {
                pattern,
                reason: None,
            } => write!(f, "empty glob pattern '{pattern}'."),
            SearchError::InvalidGlob {
                pattern,
                reason: Some(reason),
            } => write!(f, "invalid glob '{pattern}': {reason}"),
            SearchError::NoMatchesAllowed => {
                f.write_str("the match limit is 0; it must be at least 1")
            }
            SearchError::Io { path, message } => write!(f, "{path}: {message}."),
        }
    }
}

impl std::error::Error for SearchError {}

impl From<AccessError> for SearchError {
    fn from(e: AccessError) -> Self {
        SearchError::Access(e)
    }
}
