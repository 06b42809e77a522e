//! Crash-safe file replacement.
//!
//! [`write_atomic`] writes the new content to a temporary file in the target's own directory,
//! gives it the old file's permissions (and, when allowed, its owner and group), flushes it to
//! disk, renames it over the target and flushes the directory. A process killed at any point
//! leaves either the complete old file or the complete new one, never a truncated mix; at worst
//! a stray `.{name}.*.fsmcp-tmp` file is left next to it.
//!
//! What a rename cannot keep: hard links to the old inode (the target gets a new inode),
//! extended attributes and ACLs. Symlinks are not replaced as long as the caller passes the
//! resolved path (the sandbox resolves symlinks), so the link's target file is what changes.
//!
//! [`write_text`] adds the text-style layer on top: it renders model-view text in a file's
//! [`TextStyle`] (line endings, BOM, final newline) before writing.

use std::fs::{self, File, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::text_style::TextStyle;

/// What [`write_atomic`] did besides writing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteReport {
    /// The file did not exist before.
    pub created: bool,
    /// Parent directories that were created, outermost first.
    pub created_dirs: Vec<PathBuf>,
}

/// Atomically replaces (or creates) `path` with `bytes`.
///
/// * An existing file keeps its permission bits; its owner and group are kept when the process
///   may set them (errors there are ignored).
/// * A new file gets `0o666` minus the umask, like any newly created file.
/// * With `create_parents`, missing parent directories are created (and reported).
/// * `path` must not be a directory; a symlink at `path` would be replaced by a regular file, so
///   pass a resolved path.
pub fn write_atomic(path: &Path, bytes: &[u8], create_parents: bool) -> io::Result<WriteReport> {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("'{}' has no parent directory", path.display()),
            ));
        }
    };
    let name = path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("'{}' does not name a file", path.display()),
        )
    })?;
    let created_dirs = if create_parents {
        create_missing_dirs(parent)?
    } else {
        Vec::new()
    };
    let existing = match fs::metadata(path) {
        Ok(meta) if meta.is_dir() => {
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                format!("'{}' is a directory", path.display()),
            ));
        }
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };

    let mut prefix = String::from(".");
    prefix.push_str(truncate_name(&name.to_string_lossy(), 100));
    prefix.push('.');
    let mut tmp = tempfile::Builder::new()
        .prefix(&prefix)
        .suffix(".fsmcp-tmp")
        .permissions(Permissions::from_mode(0o666))
        .tempfile_in(parent)?;
    tmp.as_file_mut().write_all(bytes)?;
    if let Some(meta) = &existing {
        // Owner first: chown may clear set-id bits, which the chmod below restores.
        let _ = std::os::unix::fs::fchown(tmp.as_file(), Some(meta.uid()), Some(meta.gid()));
        tmp.as_file()
            .set_permissions(Permissions::from_mode(meta.mode() & 0o7777))?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    sync_dir(parent);
    Ok(WriteReport {
        created: existing.is_none(),
        created_dirs,
    })
}

/// Renders model-view `text` in `style` and writes it atomically (see [`write_atomic`]).
/// The final newline is adjusted to the style (see [`TextStyle::render`]).
pub fn write_text(
    path: &Path,
    text: &str,
    style: &TextStyle,
    create_parents: bool,
) -> io::Result<WriteReport> {
    write_atomic(path, style.render(text).as_bytes(), create_parents)
}

/// Creates every missing directory above and including `dir`, returning the ones created,
/// outermost first.
pub fn create_missing_dirs(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut missing = Vec::new();
    let mut cursor = Some(dir);
    while let Some(d) = cursor {
        match fs::symlink_metadata(d) {
            Ok(_) => break,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                missing.push(d.to_path_buf());
                cursor = d.parent();
            }
            Err(e) => return Err(e),
        }
    }
    missing.reverse();
    let mut created = Vec::new();
    for d in missing {
        match fs::create_dir(&d) {
            Ok(()) => created.push(d),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && d.is_dir() => {}
            Err(e) => return Err(e),
        }
    }
    Ok(created)
}

/// Flushes a directory entry change (a rename) to disk; best effort.
pub fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}

fn truncate_name(name: &str, max_bytes: usize) -> &str {
    if name.len() <= max_bytes {
        return name;
    }
    let mut end = max_bytes;
    while !name.is_char_boundary(end) {
        end -= 1;
    }
    &name[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_and_keeps_mode() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.sh");
        fs::write(&p, "old").unwrap();
        fs::set_permissions(&p, Permissions::from_mode(0o750)).unwrap();
        let r = write_atomic(&p, b"new", false).unwrap();
        assert!(!r.created);
        assert_eq!(fs::read_to_string(&p).unwrap(), "new");
        assert_eq!(fs::metadata(&p).unwrap().mode() & 0o777, 0o750);
        // No temp file left behind.
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn creates_parents_and_reports_them() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a/b/c.txt");
        let r = write_atomic(&p, b"x", true).unwrap();
        assert!(r.created);
        assert_eq!(
            r.created_dirs,
            vec![dir.path().join("a"), dir.path().join("a/b")]
        );
        assert!(write_atomic(&dir.path().join("z/y.txt"), b"x", false).is_err());
        assert!(write_atomic(&dir.path().join("a"), b"x", false).is_err());
    }

    #[test]
    fn writes_text_in_style() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("w.txt");
        let style = TextStyle::detect("\u{FEFF}a\r\nb");
        write_text(&p, "x\ny\n", &style, false).unwrap();
        assert_eq!(fs::read(&p).unwrap(), "\u{FEFF}x\r\ny".as_bytes());
    }
}
