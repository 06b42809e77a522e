//! For tests (feature `testing`): a sandbox over `ws/` in a fresh temporary directory, with
//! `outside/` beside it, and the writes tests set files up with. Every crate that takes a
//! sandbox uses this one fixture.

// Test support: a panic is how a test reports failure.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::fs;
use std::path::{Path, PathBuf};

use crate::allowed::Sandbox;

/// A sandbox over `root` (`ws/`); `outside` lies beside it, outside the sandbox. The directory
/// is removed when the fixture is dropped.
pub struct Fixture {
    _tmp: tempfile::TempDir,
    /// The allowed directory, canonical.
    pub root: PathBuf,
    /// A directory beside it, outside the sandbox.
    pub outside: PathBuf,
    /// The sandbox over `root`.
    pub sandbox: Sandbox,
}

impl Fixture {
    /// An empty `ws/` and `outside/` in a fresh temporary directory.
    pub fn new() -> Fixture {
        let tmp = tempfile::tempdir().expect("temp dir");
        let base = fs::canonicalize(tmp.path()).expect("canonical temp dir");
        let root = base.join("ws");
        let outside = base.join("outside");
        fs::create_dir_all(&root).expect("mkdir ws");
        fs::create_dir_all(&outside).expect("mkdir outside");
        let (sandbox, _) = Sandbox::new([&root]).expect("sandbox over ws");
        Fixture {
            _tmp: tmp,
            root,
            outside,
            sandbox,
        }
    }

    /// Writes `content` to `rel` under the root, creating parents.
    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
        write_at(&self.root, rel, content)
    }

    /// Creates `rel` (and its parents) under the root.
    pub fn mkdir(&self, rel: &str) -> PathBuf {
        let path = self.root.join(rel);
        fs::create_dir_all(&path).expect("mkdir");
        path
    }

    /// A symlink at `rel` under the root, to `target`.
    pub fn symlink(&self, target: impl AsRef<Path>, rel: &str) -> PathBuf {
        let link = self.root.join(rel);
        std::os::unix::fs::symlink(target, &link).expect("symlink");
        link
    }
}

impl Default for Fixture {
    fn default() -> Self {
        Fixture::new()
    }
}

/// Writes `content` to `rel` under `dir`, creating parents.
pub fn write_at(dir: &Path, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(rel);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("mkdir parents");
    }
    fs::write(&path, content).expect("write");
    path
}
