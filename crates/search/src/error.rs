//! The one error type of the crate: what went wrong, with the data (the path as shown, the
//! limit); the binary's renderer adds the `Error:` prefix and the next step.

use std::fmt;

use fs_mcp_sandbox::AccessError;

/// Why a call could not produce its normal answer.
///
/// `Display` gives the facts in one sentence (more for a pattern's parser error and its hint),
/// naming the path as the model can pass it back (`Sandbox::display`); it names no tool.
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
    /// A file (or a directory) was expected and something else is there.
    WrongType {
        /// The path as shown to the client (`Sandbox::display`).
        path: String,
        /// What is there and what was expected.
        message: String,
    },
    /// A regular expression or glob did not compile; the message carries the parser's error and a hint.
    InvalidPattern {
        /// The parser's error with a hint.
        message: String,
    },
    /// An argument is out of range or inconsistent.
    InvalidArgument {
        /// Which argument and what range it must be in.
        message: String,
    },
    /// The file is larger than the limit of the operation.
    TooLarge {
        /// The path as shown to the client (`Sandbox::display`).
        path: String,
        /// The file's size in bytes.
        size: u64,
        /// The operation's limit in bytes.
        limit: u64,
    },
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

pub(crate) use fs_mcp_format::describe_io;

impl fmt::Display for SearchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SearchError::Access(e) => write!(f, "{e}"),
            SearchError::NotFound { path } => write!(f, "{path} does not exist."),
            SearchError::NotADirectory { path } => write!(f, "{path} is not a directory."),
            SearchError::WrongType { path, message } => write!(f, "{path} {message}"),
            SearchError::InvalidPattern { message } | SearchError::InvalidArgument { message } => {
                write!(f, "{message}")
            }
            SearchError::TooLarge { path, size, limit } => write!(
                f,
                "{path} is {} ({} bytes), larger than the {} limit.",
                crate::format::format_size(*size),
                crate::format::thousands(*size),
                crate::format::format_size(*limit)
            ),
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
