//! Test fixtures: a sandbox over a fresh temporary directory.

use std::fs;
use std::path::{Path, PathBuf};

use fs_mcp_sandbox::Sandbox;

pub struct Fixture {
    _tmp: tempfile::TempDir,
    pub root: PathBuf,
    pub outside: PathBuf,
    pub sandbox: Sandbox,
}

impl Fixture {
    pub fn new() -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        let root = base.join("ws");
        let outside = base.join("outside");
        fs::create_dir_all(&root).unwrap();
        fs::create_dir_all(&outside).unwrap();
        let (sandbox, _) = Sandbox::new([&root]).unwrap();
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

    pub fn mkdir(&self, rel: &str) -> PathBuf {
        let p = self.root.join(rel);
        fs::create_dir_all(&p).unwrap();
        p
    }

    pub fn symlink(&self, target: impl AsRef<Path>, rel: &str) {
        std::os::unix::fs::symlink(target, self.root.join(rel)).unwrap();
    }
}

pub fn write_at(dir: &Path, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let p = dir.join(rel);
    if let Some(parent) = p.parent() {
        fs::create_dir_all(parent).unwrap();
    }
    fs::write(&p, content).unwrap();
    p
}
