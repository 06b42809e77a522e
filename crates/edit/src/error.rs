//! The error type of every operation in this crate, and its rendering.
//!
//! Failures while preparing an edit (`validation_error`, `file_not_found`) and commit conflicts
//! (`conflict`) render as the original server's pretty JSON object
//! (`{"error": true, "error_type": ..., "message": ..., <hint fields>}`); everything else
//! (bad arguments, access denied, unknown sessions, I/O) renders as a plain message. Either way
//! `to_string()` is the text the MCP layer puts in its error result.

use std::fmt;

use serde::Serialize;

use crate::hints::Hints;

/// What kind of failure an [`EditError`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The arguments are unusable (blank or too long `match_text`, bad sentinel use, …). Plain.
    InvalidRequest,
    /// The sandbox refused a path. Plain.
    AccessDenied,
    /// The edit could not be prepared (`match_text` not found or not unique, no changes). JSON.
    Validation,
    /// The file to edit does not exist. JSON.
    FileNotFound,
    /// The file changed on disk after the proposal was made; nothing was written. JSON.
    Conflict,
    /// `session_path` does not name a usable review session. Plain.
    Session,
    /// Reading or writing failed. Plain.
    Io,
}

impl ErrorKind {
    /// The `error_type` string of the JSON rendering.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::InvalidRequest => "invalid_request",
            ErrorKind::AccessDenied => "access_denied",
            ErrorKind::Validation => "validation_error",
            ErrorKind::FileNotFound => "file_not_found",
            ErrorKind::Conflict => "conflict",
            ErrorKind::Session => "session_error",
            ErrorKind::Io => "io_error",
        }
    }

    fn renders_as_json(self) -> bool {
        matches!(
            self,
            ErrorKind::Validation | ErrorKind::FileNotFound | ErrorKind::Conflict
        )
    }
}

/// A failed operation, with the hint payload when `match_text` could not be used.
#[derive(Debug, Clone)]
pub struct EditError {
    kind: ErrorKind,
    message: String,
    hints: Option<Box<Hints>>,
    session_path: Option<String>,
    diff: Option<String>,
}

#[derive(Serialize)]
struct JsonShape<'a> {
    error: bool,
    error_type: &'a str,
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    session_path: Option<&'a str>,
    /// Conflicts: what changed in the file since the proposal was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<&'a str>,
    #[serde(flatten)]
    hints: Option<&'a Hints>,
}

impl EditError {
    /// A new error of `kind`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> EditError {
        EditError {
            kind,
            message: message.into(),
            hints: None,
            session_path: None,
            diff: None,
        }
    }

    pub(crate) fn invalid(message: impl Into<String>) -> EditError {
        EditError::new(ErrorKind::InvalidRequest, message)
    }

    pub(crate) fn validation(message: impl Into<String>) -> EditError {
        EditError::new(ErrorKind::Validation, message)
    }

    pub(crate) fn io(message: impl Into<String>) -> EditError {
        EditError::new(ErrorKind::Io, message)
    }

    pub(crate) fn session(message: impl Into<String>) -> EditError {
        EditError::new(ErrorKind::Session, message)
    }

    pub(crate) fn with_hints(mut self, hints: Option<Hints>) -> EditError {
        self.hints = hints.map(Box::new);
        self
    }

    pub(crate) fn with_session_path(mut self, session_path: impl Into<String>) -> EditError {
        self.session_path = Some(session_path.into());
        self
    }

    pub(crate) fn with_diff(mut self, diff: impl Into<String>) -> EditError {
        self.diff = Some(diff.into());
        self
    }

    /// The kind of failure.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The human-readable message (without the JSON wrapping).
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The recovery hints, when `match_text` was not found or not unique.
    pub fn hints(&self) -> Option<&Hints> {
        self.hints.as_deref()
    }

    /// The review session the error concerns, when it stays open (conflicts).
    pub fn session_path(&self) -> Option<&str> {
        self.session_path.as_deref()
    }

    /// Conflicts: a unified diff of what changed in the file since the proposal was made.
    pub fn diff(&self) -> Option<&str> {
        self.diff.as_deref()
    }

    /// The error as a JSON value (`error`, `error_type`, `message`, then any hint fields),
    /// whatever its kind.
    pub fn to_json_value(&self) -> serde_json::Value {
        serde_json::to_value(self.shape()).unwrap_or_else(|_| {
            serde_json::json!({"error": true, "error_type": self.kind.as_str(), "message": self.message})
        })
    }

    fn shape(&self) -> JsonShape<'_> {
        JsonShape {
            error: true,
            error_type: self.kind.as_str(),
            message: &self.message,
            session_path: self.session_path.as_deref(),
            diff: self.diff.as_deref(),
            hints: self.hints.as_deref(),
        }
    }
}

impl fmt::Display for EditError {
    /// Pretty JSON (two-space indent) for validation, file-not-found and conflict errors, as the
    /// original server did; the plain message otherwise.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.kind.renders_as_json() {
            match serde_json::to_string_pretty(&self.shape()) {
                Ok(json) => f.write_str(&json),
                Err(_) => f.write_str(&self.message),
            }
        } else {
            f.write_str(&self.message)
        }
    }
}

impl std::error::Error for EditError {}

impl From<fs_mcp_sandbox::AccessError> for EditError {
    fn from(e: fs_mcp_sandbox::AccessError) -> Self {
        EditError::new(ErrorKind::AccessDenied, e.to_string())
    }
}
