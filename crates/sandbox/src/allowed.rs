//! The allowed directories: the [`Sandbox`] built from them, and why one could not be used.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::error::AccessError;
use crate::handle::DirHandle;
use crate::lexical;

/// The allowed directories and the checks against them.
#[derive(Debug, Clone)]
pub struct Sandbox {
    /// The handle of each allowed directory, in order.
    pub(crate) roots: Vec<DirHandle>,
    /// Their canonical paths, in the same order.
    pub(crate) root_paths: Vec<PathBuf>,
    /// Refuse every write (`--read-only`), whatever tool asks.
    pub(crate) read_only: bool,
}

impl PartialEq for Sandbox {
    fn eq(&self, other: &Sandbox) -> bool {
        self.root_paths == other.root_paths && self.read_only == other.read_only
    }
}

impl Eq for Sandbox {}

/// A directory given at startup that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedDir {
    /// The directory as given.
    pub path: PathBuf,
    /// Why it cannot be used (missing, not a directory, unreadable).
    pub reason: String,
}

/// Why a sandbox could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoUsableDirs {
    /// Every directory given, each with why it was skipped.
    pub skipped: Vec<SkippedDir>,
}

impl fmt::Display for NoUsableDirs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "no usable allowed directory")?;
        for s in &self.skipped {
            write!(f, "; {}: {}", s.path.display(), s.reason)?;
        }
        Ok(())
    }
}

impl std::error::Error for NoUsableDirs {}

impl Sandbox {
    /// Builds a sandbox from the directories given on the command line (or by the client).
    ///
    /// `~` is expanded, each directory is canonicalized and opened. Entries that do not exist or
    /// are not directories are skipped and reported; if none is left, the error lists why.
    pub fn new<I, P>(dirs: I) -> Result<(Sandbox, Vec<SkippedDir>), NoUsableDirs>
    where
        I: IntoIterator<Item = P>,
        P: AsRef<Path>,
    {
        let mut roots: Vec<DirHandle> = Vec::new();
        let mut root_paths: Vec<PathBuf> = Vec::new();
        let mut skipped = Vec::new();
        for dir in dirs {
            let dir = lexical::expand_tilde(dir.as_ref());
            let opened = std::fs::canonicalize(&dir).and_then(|canonical| {
                if canonical.is_dir() {
                    DirHandle::open_root(&canonical).map(Some)
                } else {
                    Ok(None)
                }
            });
            match opened {
                Ok(Some(handle)) => {
                    if !root_paths.iter().any(|p| p == handle.path()) {
                        root_paths.push(handle.path().to_path_buf());
                        roots.push(handle);
                    }
                }
                Ok(None) => skipped.push(SkippedDir {
                    path: dir,
                    reason: "not a directory".into(),
                }),
                Err(e) => skipped.push(SkippedDir {
                    path: dir,
                    reason: fs_mcp_text::describe_io(&e),
                }),
            }
        }
        if roots.is_empty() {
            return Err(NoUsableDirs { skipped });
        }
        Ok((
            Sandbox {
                roots,
                root_paths,
                read_only: false,
            },
            skipped,
        ))
    }

    /// The same sandbox, refusing every write when `read_only`.
    pub fn with_read_only(mut self, read_only: bool) -> Sandbox {
        self.read_only = read_only;
        self
    }

    /// True when every write is refused.
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// Refuses a write of `requested` when the sandbox is read-only. Every writer calls it (the
    /// handle-returning write helpers here do so themselves).
    pub fn refuse_if_read_only(&self, requested: &str) -> Result<(), AccessError> {
        if self.read_only {
            return Err(AccessError::ReadOnly {
                requested: requested.to_string(),
            });
        }
        Ok(())
    }

    /// The allowed directories, canonical, in the order given. The first one anchors relative paths.
    pub fn roots(&self) -> Vec<PathBuf> {
        self.root_paths.clone()
    }

    /// The allowed directories as paths, without copying.
    pub fn root_paths(&self) -> &[PathBuf] {
        &self.root_paths
    }

    /// The handle of each allowed directory, in order.
    pub fn root_handles(&self) -> &[DirHandle] {
        &self.roots
    }
}
