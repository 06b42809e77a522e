//! The one error type of the crate. Its `Display` is the complete message for the model.

use std::fmt;

use fs_mcp_sandbox::AccessError;

/// Why a call could not produce its normal answer.
///
/// Every message is written for the model: it names the path as the model can pass it back
/// (`Sandbox::display`) and, where it helps, says what to do instead.
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

pub(crate) use fs_mcp_text::describe_io;

impl fmt::Display for SearchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SearchError::Access(e) => write!(f, "{e}"),
            SearchError::NotFound { path } => write!(f, "Error: {path} does not exist."),
            SearchError::NotADirectory { path } => write!(f, "Error: {path} is not a directory."),
            SearchError::WrongType { path, message } => write!(f, "Error: {path} {message}"),
            SearchError::InvalidPattern { message } | SearchError::InvalidArgument { message } => {
                write!(f, "Error: {message}")
            }
            SearchError::TooLarge { path, size, limit } => write!(
                f,
                "Error: {path} is {} ({} bytes), larger than the {} limit.",
                crate::format::format_size(*size),
                crate::format::thousands(*size),
                crate::format::format_size(*limit)
            ),
            SearchError::Io { path, message } => write!(f, "Error: {path}: {message}."),
        }
    }
}

impl std::error::Error for SearchError {}

impl From<AccessError> for SearchError {
    fn from(e: AccessError) -> Self {
        SearchError::Access(e)
    }
}
