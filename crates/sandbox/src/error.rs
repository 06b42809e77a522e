//! Why a requested path was not admitted or could not be used: [`AccessError`], the facts of
//! each refusal.

use std::fmt;
use std::io;
use std::path::PathBuf;

use crate::escape::{escape_os, escape_path, escape_paths};
use crate::handle::EntryKind;

/// Why a requested path was not admitted or could not be used.
#[derive(Debug)]
pub enum AccessError {
    /// The path resolves outside every allowed directory.
    Outside {
        /// The path as the client gave it.
        requested: String,
        /// Where it leads (display only).
        resolved: PathBuf,
        /// The allowed directories.
        roots: Vec<PathBuf>,
    },
    /// The path could not be resolved (a symlink loop, `..` after a missing component, a file
    /// used as a directory).
    Unresolvable {
        /// The path as the client gave it.
        requested: String,
        /// What stopped the resolution, in words.
        reason: String,
    },
    /// Nothing exists at the path.
    NotFound {
        /// The path as the client gave it.
        requested: String,
        /// The canonical path that was looked for (display only).
        path: PathBuf,
    },
    /// The path exists but is not a regular file (content is read and written only in those).
    NotRegular {
        /// The path as the client gave it.
        requested: String,
        /// The canonical path (display only).
        path: PathBuf,
        /// What the entry is instead.
        kind: EntryKind,
    },
    /// The entry kept changing under the walk (renamed or swapped while being opened).
    Changed {
        /// The path as the client gave it.
        requested: String,
    },
    /// The server runs read-only.
    ReadOnly {
        /// The path as the client gave it.
        requested: String,
    },
    /// Any other I/O error.
    Io {
        /// The path as the client gave it.
        requested: String,
        /// The error from the system call.
        error: io::Error,
    },
}

impl AccessError {
    /// The path as the client gave it.
    pub fn requested(&self) -> &str {
        match self {
            AccessError::Outside { requested, .. }
            | AccessError::Unresolvable { requested, .. }
            | AccessError::NotFound { requested, .. }
            | AccessError::NotRegular { requested, .. }
            | AccessError::Changed { requested }
            | AccessError::ReadOnly { requested }
            | AccessError::Io { requested, .. } => requested,
        }
    }
}

/// A terse line for logs. The model reads the binary's words for these facts
/// (`src/render/sandbox.rs`), never this.
impl fmt::Display for AccessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let requested = escape_os(self.requested().as_ref());
        match self {
            AccessError::Outside {
                resolved, roots, ..
            } => {
                let list = escape_paths(roots);
                write!(
                    f,
                    "{requested}: outside the roots ({list}), resolves to {}",
                    escape_path(resolved)
                )
            }
            AccessError::Unresolvable { reason, .. } => {
                write!(f, "{requested}: unresolvable: {reason}")
            }
            AccessError::NotFound { .. } => write!(f, "{requested}: not found"),
            AccessError::NotRegular { kind, .. } => {
                write!(f, "{requested}: not a regular file ({})", kind.described())
            }
            AccessError::Changed { .. } => write!(f, "{requested}: changed while opened"),
            AccessError::ReadOnly { .. } => write!(f, "{requested}: read-only server"),
            AccessError::Io { error, .. } => write!(f, "{requested}: {error}"),
        }
    }
}

impl std::error::Error for AccessError {}
