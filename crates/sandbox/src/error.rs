//! Why a requested path was not admitted or could not be used: [`AccessError`], the facts of
//! each refusal.

use std::fmt;
use std::io;
use std::path::PathBuf;

use crate::escape::{escape_os, escape_path};
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

/// The facts of the refusal, one sentence without a next step: the binary's renderer adds the
/// next step (it knows which tools the model can call).
impl fmt::Display for AccessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AccessError::Outside {
                requested,
                resolved,
                roots,
            } => {
                let list = roots
                    .iter()
                    .map(|r| escape_path(r).into_owned())
                    .collect::<Vec<_>>()
                    .join(", ");
                write!(
                    f,
                    "Access denied: '{}' resolves to '{}', which is outside the allowed directories ({list})",
                    escape_os(requested.as_ref()),
                    escape_path(resolved)
                )
            }
            AccessError::Unresolvable { requested, reason } => write!(
                f,
                "Cannot resolve path '{}': {reason}",
                escape_os(requested.as_ref())
            ),
            AccessError::NotFound { requested, .. } => {
                write!(f, "'{}' does not exist", escape_os(requested.as_ref()))
            }
            AccessError::NotRegular {
                requested, kind, ..
            } => {
                let requested = escape_os(requested.as_ref());
                if *kind == EntryKind::Dir {
                    write!(f, "'{requested}' is a directory, not a file")
                } else {
                    write!(
                        f,
                        "'{requested}' is {}; only regular files are read or written",
                        kind.described()
                    )
                }
            }
            AccessError::Changed { requested } => write!(
                f,
                "'{}' kept changing while it was being opened (renamed or replaced)",
                escape_os(requested.as_ref())
            ),
            AccessError::ReadOnly { requested } => write!(
                f,
                "'{}' cannot be written: this server runs read-only (--read-only)",
                escape_os(requested.as_ref())
            ),
            AccessError::Io { requested, error } => write!(
                f,
                "Cannot access '{}': {error}",
                escape_os(requested.as_ref())
            ),
        }
    }
}

impl std::error::Error for AccessError {}
