//! Crash-safe file replacement, by directory handle.
//!
//! [`replace_in`] writes the new content to a temporary file created (`O_EXCL`, random name) in
//! the target's own directory handle, gives it the old file's permissions (and, when allowed,
//! its owner and group), flushes it to disk, renames it over the name in that same handle and
//! flushes the directory. No path is resolved on the way: the directory was reached through the
//! sandbox, and every step is relative to its descriptor. A process killed at any point leaves
//! either the complete old file or the complete new one, never a truncated mix; at worst a stray
//! `.{name}.*.fsmcp-tmp` file is left next to it. On every error the temporary file is removed
//! and the original is left as it was.
//!
//! What a rename cannot keep: hard links to the old inode (the target gets a new inode),
//! extended attributes and ACLs.

use std::collections::hash_map::RandomState;
use std::ffi::{OsStr, OsString};
use std::fs::{File, Permissions};
use std::hash::{BuildHasher, Hasher};
use std::io::{self, Write};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use fs_mcp_sandbox::{DirHandle, EntryMeta};

/// How often a temporary name that already exists is drawn again.
const TEMP_NAME_TRIES: usize = 16;

/// What a write did besides writing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteReport {
    /// The file did not exist before.
    pub created: bool,
    /// Parent directories that were created, outermost first (canonical paths, for display).
    pub created_dirs: Vec<PathBuf>,
}

/// How [`replace_in`] treats the name it writes.
#[derive(Debug, Clone, Copy)]
pub enum Replace {
    /// Replace whatever file is there, keeping the given metadata (permissions, owner).
    Existing(EntryMeta),
    /// The name must not exist: a file created there meanwhile (by anyone) is never replaced
    /// (`RENAME_NOREPLACE`), and the write fails with `AlreadyExists`.
    New,
}

/// A temporary file in a directory, removed on drop unless it was renamed into place.
struct TempFile<'a> {
    dir: &'a DirHandle,
    name: Option<OsString>,
}

impl Drop for TempFile<'_> {
    fn drop(&mut self) {
        if let Some(name) = self.name.take()
            && let Err(e) = self.dir.unlink(&name)
            && e.kind() != io::ErrorKind::NotFound
        {
            tracing::warn!(
                "could not remove the temporary file {}: {e}",
                self.dir.path().join(&name).display()
            );
        }
    }
}

/// A fresh, unpredictable temporary name for `name`.
fn temp_name(name: &OsStr) -> OsString {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.write_u32(std::process::id());
    let mut out = b".".to_vec();
    out.extend_from_slice(truncate_name(name.as_bytes(), 100));
    out.extend_from_slice(format!(".{:016x}.fsmcp-tmp", h.finish()).as_bytes());
    OsString::from_vec(out)
}

/// Creates a new temporary file next to `name` in `dir` (`O_EXCL`).
fn create_temp<'a>(dir: &'a DirHandle, name: &OsStr) -> io::Result<(TempFile<'a>, File)> {
    let mut last = None;
    for _ in 0..TEMP_NAME_TRIES {
        let tmp = temp_name(name);
        match dir.create_new(&tmp, 0o666) {
            Ok(file) => {
                return Ok((
                    TempFile {
                        dir,
                        name: Some(tmp),
                    },
                    file,
                ));
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no free temporary name")))
}

/// Writes `bytes` to a new temporary file next to `name` in `dir` (keeping the permissions and
/// owner of `mode`'s file), fsynced, and returns its name; the caller renames it into place
/// (see [`crate::changeset`]) or removes it.
pub(crate) fn write_temp(
    dir: &DirHandle,
    name: &OsStr,
    bytes: &[u8],
    mode: Replace,
) -> io::Result<OsString> {
    let (mut tmp, mut file) = create_temp(dir, name)?;
    file.write_all(bytes)?;
    if let Replace::Existing(meta) = mode {
        // Owner first: chown may clear set-id bits, which the chmod below restores.
        let _ = std::os::unix::fs::fchown(&file, Some(meta.uid), Some(meta.gid));
        file.set_permissions(Permissions::from_mode(meta.mode & 0o7777))?;
    }
    file.sync_all()?;
    drop(file);
    tmp.name
        .take()
        .ok_or_else(|| io::Error::other("the temporary file is gone"))
}

/// Atomically puts `bytes` at `name` in `dir` (see the module documentation).
///
/// * [`Replace::Existing`]: the new file gets the old one's permission bits, and its owner and
///   group when the process may set them (errors there are ignored).
/// * [`Replace::New`]: the file gets `0o666` minus the umask; an entry that appeared at `name`
///   meanwhile is left alone and the call fails with `AlreadyExists`.
pub fn replace_in(dir: &DirHandle, name: &OsStr, bytes: &[u8], mode: Replace) -> io::Result<()> {
    let written = write_temp(dir, name, bytes, mode)?;
    // Removed on drop unless the rename below takes it.
    let mut tmp = TempFile {
        dir,
        name: Some(written),
    };
    if let Some(tmp_name) = &tmp.name {
        dir.rename(tmp_name, dir, name, matches!(mode, Replace::New))?;
    }
    // Renamed: nothing left to clean up.
    tmp.name = None;
    // Best effort: the content is durable already; this makes the rename survive a crash too.
    let _ = dir.sync();
    Ok(())
}

/// Opens `name` in `dir` as a directory, creating it first if missing; reports whether it was
/// created.
fn make_subdir(dir: &DirHandle, name: &OsStr) -> io::Result<(DirHandle, bool)> {
    let created = match dir.mkdir(name, 0o777) {
        Ok(()) => true,
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => false,
        Err(e) => return Err(e),
    };
    Ok((dir.open_subdir(name)?, created))
}

/// The directories a write created on the way to a new file. Unless the write keeps them
/// ([`NewDirs::keep`]), dropping this removes them again, deepest first and each only while it
/// is empty: a write that did not happen (a conflict, an error, an attempt repeated after a race)
/// leaves no trace, and its next attempt finds the tree the proposal saw.
#[derive(Debug, Default)]
pub(crate) struct NewDirs {
    /// Each created directory as its parent's handle and its name, outermost first.
    made: Vec<(DirHandle, OsString)>,
    /// The same directories' canonical paths, for the report.
    paths: Vec<PathBuf>,
}

impl NewDirs {
    /// Opens (creating where missing) each of `components` in turn below `dir`; returns the
    /// last directory.
    pub fn create(dir: DirHandle, components: &[OsString]) -> io::Result<(DirHandle, NewDirs)> {
        let mut new = NewDirs::default();
        let last = new.create_below(dir, components)?;
        Ok((last, new))
    }

    /// As [`NewDirs::create`], adding what it creates to these (several files of one change:
    /// undone together, in the reverse order of their making, so nested ones go first).
    pub fn create_below(
        &mut self,
        dir: DirHandle,
        components: &[OsString],
    ) -> io::Result<DirHandle> {
        let mut dir = dir;
        for component in components {
            let (sub, created) = make_subdir(&dir, component)?;
            if created {
                self.paths.push(sub.path().to_path_buf());
                self.made.push((dir, component.clone()));
            }
            dir = sub;
        }
        Ok(dir)
    }

    /// The write happened: the directories stay; their paths, outermost first.
    pub fn keep(mut self) -> Vec<PathBuf> {
        self.made.clear();
        std::mem::take(&mut self.paths)
    }
}

impl Drop for NewDirs {
    fn drop(&mut self) {
        for (parent, name) in self.made.iter().rev() {
            let _ = parent.remove_empty_dir(name);
        }
    }
}

fn truncate_name(name: &[u8], max_bytes: usize) -> &[u8] {
    if name.len() <= max_bytes {
        return name;
    }
    // Cut at a character boundary when the name is UTF-8, so the temp name stays readable.
    let mut end = max_bytes;
    if let Ok(text) = std::str::from_utf8(name) {
        while !text.is_char_boundary(end) {
            end -= 1;
        }
    }
    &name[..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::MetadataExt;

    fn root(dir: &std::path::Path) -> DirHandle {
        DirHandle::open_root(&fs::canonicalize(dir).unwrap()).unwrap()
    }

    #[test]
    fn replaces_and_keeps_mode() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("f.sh");
        fs::write(&p, "old").unwrap();
        fs::set_permissions(&p, Permissions::from_mode(0o750)).unwrap();
        let dir = root(tmp.path());
        let meta = dir.stat(OsStr::new("f.sh")).unwrap();
        replace_in(&dir, OsStr::new("f.sh"), b"new", Replace::Existing(meta)).unwrap();
        assert_eq!(fs::read_to_string(&p).unwrap(), "new");
        assert_eq!(fs::metadata(&p).unwrap().mode() & 0o777, 0o750);
        // No temp file left behind.
        assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_new_file_never_replaces_one_that_appeared() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = root(tmp.path());
        replace_in(&dir, OsStr::new("n.txt"), b"first", Replace::New).unwrap();
        let err = replace_in(&dir, OsStr::new("n.txt"), b"second", Replace::New).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(
            fs::read_to_string(tmp.path().join("n.txt")).unwrap(),
            "first"
        );
        // The failed write's temporary file was removed.
        assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_failed_rename_leaves_the_original_and_no_temp_file() {
        let tmp = tempfile::tempdir().unwrap();
        fs::create_dir(tmp.path().join("d")).unwrap();
        fs::write(tmp.path().join("d/keep.txt"), "mine").unwrap();
        let dir = root(tmp.path());
        let meta = dir.stat(OsStr::new("d")).unwrap();
        // Renaming a file over a non-empty directory fails after the temp file was written.
        let err = replace_in(&dir, OsStr::new("d"), b"x", Replace::Existing(meta)).unwrap_err();
        assert!(err.raw_os_error().is_some(), "{err}");
        assert_eq!(
            fs::read_to_string(tmp.path().join("d/keep.txt")).unwrap(),
            "mine"
        );
        let names: Vec<_> = fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![OsString::from("d")]);
    }

    #[test]
    fn temp_names_are_hidden_bounded_and_distinct() {
        let long = "x".repeat(300);
        let a = temp_name(OsStr::new(&long));
        let b = temp_name(OsStr::new(&long));
        assert_ne!(a, b);
        assert!(a.as_bytes().starts_with(b".xxx"));
        assert!(a.len() < 140, "{}", a.len());
        assert!(a.to_string_lossy().ends_with(".fsmcp-tmp"));
    }
}
