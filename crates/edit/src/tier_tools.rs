//! The `--all` tier's direct-write tools: `write_file`, `append_text` and `move_file`.
//!
//! Every path goes through the sandbox. Writes are atomic (see [`crate::atomic`]) and keep an
//! existing file's permissions, BOM and line-ending style. These functions block; call them
//! from `spawn_blocking` in async code.
//!
//! Differences from the original, on purpose:
//! * `write_file` and `append_text` create missing parent directories (and say so).
//! * `write_file` writes LF text into a CRLF file with CRLF line endings, and keeps a BOM.
//! * `append_text` adds a separating newline only when the file does not already end with one
//!   (the original always added one, leaving a blank line), in the file's line-ending style.
//! * `move_file` moves a symlink itself rather than its target, and refuses to move an allowed
//!   directory itself.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use fs_mcp_sandbox::Sandbox;

use crate::atomic::{WriteReport, write_atomic};
use crate::error::{EditError, ErrorKind};
use crate::text_style::{BOM, TextStyle, decode_text, normalize_newlines, to_model};

fn dirs_note(sandbox: &Sandbox, report: &WriteReport) -> String {
    if report.created_dirs.is_empty() {
        return String::new();
    }
    let list = report
        .created_dirs
        .iter()
        .map(|d| sandbox.display(d))
        .collect::<Vec<_>>()
        .join(", ");
    format!(" (created missing parent directories: {list})")
}

/// Reads an existing file as text, for style detection: `Ok(None)` if it does not exist,
/// `Ok(Some(None))` if it exists but is not text.
fn existing_text(target: &Path, path: &str) -> Result<Option<Option<String>>, EditError> {
    match fs::metadata(target) {
        Ok(m) if m.is_dir() => Err(EditError::invalid(format!(
            "Cannot write to '{path}': it is a directory."
        ))),
        Ok(_) => {
            let bytes = fs::read(target)
                .map_err(|e| EditError::io(format!("Cannot read '{path}': {e}")))?;
            Ok(Some(decode_text(bytes).ok()))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(EditError::io(format!("Cannot access '{path}': {e}"))),
    }
}

/// `write_file`: creates or replaces a file with `content`, atomically.
///
/// An existing text file keeps its BOM and, unless `content` itself contains CRLF, its CRLF
/// line endings; permissions are kept. Returns `Successfully wrote to {path}`.
pub fn write_file(sandbox: &Sandbox, path: &str, content: &str) -> Result<String, EditError> {
    let target = sandbox.resolve(path)?;
    let bytes = match existing_text(&target, path)? {
        Some(Some(text)) => {
            let style = TextStyle {
                final_newline: None,
                ..TextStyle::detect(&text)
            };
            if content.contains("\r\n") {
                let mut out = String::with_capacity(content.len() + 3);
                if style.bom && !content.starts_with(BOM) {
                    out.push(BOM);
                }
                out.push_str(content);
                out
            } else {
                style.render_verbatim(content)
            }
        }
        _ => content.to_string(),
    };
    let report = write_atomic(&target, bytes.as_bytes(), true)
        .map_err(|e| EditError::io(format!("Failed to write to {path}: {e}")))?;
    Ok(format!(
        "Successfully wrote to {path}{}",
        dirs_note(sandbox, &report)
    ))
}

/// `append_text`: appends `content` to a file (creating it if needed), atomically.
///
/// A newline is put in between only if the file is non-empty and does not end with one;
/// `content`'s line endings follow the file's style. Returns
/// `Successfully appended content to '{path}'.`
pub fn append_text(sandbox: &Sandbox, path: &str, content: &str) -> Result<String, EditError> {
    let target = sandbox.resolve(path)?;
    let (style, model) = match existing_text(&target, path)? {
        Some(Some(text)) => (
            TextStyle {
                final_newline: None,
                ..TextStyle::detect(&text)
            },
            to_model(&text),
        ),
        Some(None) => {
            return Err(EditError::invalid(format!(
                "Cannot append text to '{path}': it is not a UTF-8 text file."
            )));
        }
        None => (TextStyle::PLAIN, String::new()),
    };
    let addition = normalize_newlines(content);
    let mut new_model = model;
    if !new_model.is_empty() && !new_model.ends_with('\n') && !addition.is_empty() {
        new_model.push('\n');
    }
    new_model.push_str(&addition);
    let report = write_atomic(&target, style.render_verbatim(&new_model).as_bytes(), true)
        .map_err(|e| EditError::io(format!("Failed to append to '{path}': {e}")))?;
    Ok(format!(
        "Successfully appended content to '{path}'.{}",
        dirs_note(sandbox, &report)
    ))
}

/// Resolves a path without following a symlink in its last component (the entry itself is
/// what gets moved), while its directory is resolved and checked by the sandbox.
fn resolve_entry(sandbox: &Sandbox, requested: &str) -> Result<PathBuf, EditError> {
    let p = Path::new(requested);
    if let (Some(parent), Some(name)) = (p.parent(), p.file_name())
        && let Some(parent) = parent.to_str()
    {
        let dir = sandbox.resolve(parent)?;
        let full = dir.join(name);
        if sandbox.contains(&full) {
            return Ok(full);
        }
    }
    Ok(sandbox.resolve(requested)?)
}

/// `move_file`: renames a file or directory. Both paths go through the sandbox; an existing
/// destination is refused. Returns `Moved {source} to {destination}`.
pub fn move_file(sandbox: &Sandbox, source: &str, destination: &str) -> Result<String, EditError> {
    let src = resolve_entry(sandbox, source)?;
    let dst = resolve_entry(sandbox, destination)?;
    let src_meta = match fs::symlink_metadata(&src) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(EditError::new(
                ErrorKind::InvalidRequest,
                format!("Source {source} does not exist."),
            ));
        }
        Err(e) => return Err(EditError::io(format!("Cannot access {source}: {e}"))),
    };
    if sandbox.roots().iter().any(|r| r == &src) {
        return Err(EditError::invalid(format!(
            "Cannot move {source}: it is an allowed directory itself."
        )));
    }
    if fs::symlink_metadata(&dst).is_ok() {
        return Err(EditError::invalid(format!(
            "Destination {destination} already exists"
        )));
    }
    if src_meta.is_dir() && dst.starts_with(&src) {
        return Err(EditError::invalid(format!(
            "Cannot move {source} into itself ({destination})."
        )));
    }
    let created = match dst.parent() {
        Some(parent) => crate::atomic::create_missing_dirs(parent)
            .map_err(|e| EditError::io(format!("Cannot create the destination directory: {e}")))?,
        None => Vec::new(),
    };
    fs::rename(&src, &dst).map_err(|e| {
        if e.raw_os_error() == Some(18) {
            // EXDEV
            EditError::io(format!(
                "Cannot move {source} to {destination}: they are on different filesystems (a rename cannot cross them)."
            ))
        } else {
            EditError::io(format!("Failed to move {source} to {destination}: {e}"))
        }
    })?;
    let report = WriteReport {
        created: false,
        created_dirs: created,
    };
    Ok(format!(
        "Moved {source} to {destination}{}",
        dirs_note(sandbox, &report)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{PermissionsExt, symlink};

    fn setup() -> (tempfile::TempDir, PathBuf, Sandbox) {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        fs::create_dir_all(base.join("ws")).unwrap();
        fs::create_dir_all(base.join("outside")).unwrap();
        let (sb, _) = Sandbox::new([base.join("ws")]).unwrap();
        (tmp, base.join("ws"), sb)
    }

    #[test]
    fn write_file_creates_parents_and_keeps_style() {
        let (_t, ws, sb) = setup();
        let msg = write_file(&sb, "a/b/new.txt", "hi\n").unwrap();
        assert_eq!(
            msg,
            "Successfully wrote to a/b/new.txt (created missing parent directories: a, a/b)"
        );
        assert_eq!(fs::read_to_string(ws.join("a/b/new.txt")).unwrap(), "hi\n");

        fs::write(ws.join("w.txt"), "\u{FEFF}x\r\ny\r\n").unwrap();
        fs::set_permissions(ws.join("w.txt"), fs::Permissions::from_mode(0o640)).unwrap();
        assert_eq!(
            write_file(&sb, "w.txt", "one\ntwo").unwrap(),
            "Successfully wrote to w.txt"
        );
        assert_eq!(
            fs::read(ws.join("w.txt")).unwrap(),
            "\u{FEFF}one\r\ntwo".as_bytes()
        );
        use std::os::unix::fs::MetadataExt;
        assert_eq!(
            fs::metadata(ws.join("w.txt")).unwrap().mode() & 0o777,
            0o640
        );
        assert!(write_file(&sb, "../outside/x", "no").is_err());
        assert!(!ws.join("../outside/x").exists());
        assert!(
            write_file(&sb, "a", "x")
                .unwrap_err()
                .message()
                .contains("directory")
        );
    }

    #[test]
    fn append_text_without_blank_lines() {
        let (_t, ws, sb) = setup();
        fs::write(ws.join("a.txt"), "abc").unwrap();
        assert_eq!(
            append_text(&sb, "a.txt", "def").unwrap(),
            "Successfully appended content to 'a.txt'."
        );
        assert_eq!(fs::read_to_string(ws.join("a.txt")).unwrap(), "abc\ndef");
        fs::write(ws.join("b.txt"), "abc\n").unwrap();
        append_text(&sb, "b.txt", "def\n").unwrap();
        assert_eq!(fs::read_to_string(ws.join("b.txt")).unwrap(), "abc\ndef\n");
        fs::write(ws.join("c.txt"), "l1\r\n").unwrap();
        append_text(&sb, "c.txt", "l2\nl3\n").unwrap();
        assert_eq!(
            fs::read_to_string(ws.join("c.txt")).unwrap(),
            "l1\r\nl2\r\nl3\r\n"
        );
        append_text(&sb, "new/d.txt", "x").unwrap();
        assert_eq!(fs::read_to_string(ws.join("new/d.txt")).unwrap(), "x");
    }

    #[test]
    fn move_file_rules() {
        let (_t, ws, sb) = setup();
        fs::write(ws.join("a.txt"), "a").unwrap();
        fs::write(ws.join("b.txt"), "b").unwrap();
        assert_eq!(
            move_file(&sb, "a.txt", "b.txt").unwrap_err().message(),
            "Destination b.txt already exists"
        );
        assert_eq!(
            move_file(&sb, "a.txt", "d/c.txt").unwrap(),
            "Moved a.txt to d/c.txt (created missing parent directories: d)"
        );
        assert_eq!(fs::read_to_string(ws.join("d/c.txt")).unwrap(), "a");
        assert!(
            move_file(&sb, "nope", "x")
                .unwrap_err()
                .message()
                .contains("does not exist")
        );
        assert!(move_file(&sb, "b.txt", "../outside/b.txt").is_err());
        assert!(ws.join("b.txt").exists());
        assert!(move_file(&sb, ".", "elsewhere").is_err());
        // A symlink (even one pointing outside) is moved as a link, its target untouched.
        symlink(ws.join("../outside"), ws.join("link")).unwrap();
        move_file(&sb, "link", "link2").unwrap();
        assert!(
            fs::symlink_metadata(ws.join("link2"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert!(ws.join("../outside").is_dir());
        fs::create_dir(ws.join("dir")).unwrap();
        assert!(
            move_file(&sb, "dir", "dir/sub")
                .unwrap_err()
                .message()
                .contains("into itself")
        );
    }
}
