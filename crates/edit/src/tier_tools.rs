//! The `--all` tier's direct-write tools: `write_file`, `append_text` and `move_file`.
//!
//! Every path goes through the sandbox and every write through a directory handle (a
//! compare-and-swap commit): the target's directory is locked, the file is read and written under the
//! lock, so concurrent writers of this server (any process) apply one after the other. Writes
//! are atomic (see [`crate::atomic`]) and keep an existing file's permissions, BOM and
//! line-ending style; appends go through a handle of the existing file. Only regular files are
//! written: a FIFO, socket or device is refused without being opened for reading or blocking.
//! These functions block; call them from `spawn_blocking` in async code.
//!
//! Differences from the original, on purpose:
//! * `write_file` and `append_text` create missing parent directories (and say so).
//! * `write_file` writes LF text into a CRLF file with CRLF line endings, and keeps a BOM.
//! * `append_text` adds a separating newline only when the file does not already end with one
//!   (the original always added one, leaving a blank line), in the file's line-ending style.
//! * `move_file` moves a symlink itself rather than its target, and refuses to move an allowed
//!   directory itself.

use std::io;

use fs_mcp_sandbox::{EntryKind, FinalLink, Sandbox};

use crate::atomic::{NewDirs, WriteReport};
use crate::commit::{self, Change, CommitFail, Current, Options, ReadMode};
use crate::error::{EditError, Failure, NextStep, WriteAction, WriteRefusal};
use crate::outcome::{Written, created_dirs};
use crate::text_style::{BOM, TextStyle, normalize_newlines};

/// The start of an existing file as text, for style detection: `None` if it is binary or not
/// UTF-8 (a character cut at the end of an incomplete sniff does not count).
fn sniffed_text(current: &Current) -> Option<&str> {
    fs_mcp_text::as_text(&current.bytes, current.complete).ok()
}

/// The error of a write that did not happen.
fn write_failure(fail: CommitFail<EditError>, action: WriteAction, path: &str) -> EditError {
    let refused = |why: WriteRefusal| {
        EditError::new(Failure::WriteRefused {
            action,
            path: path.to_string(),
            why,
        })
    };
    match fail {
        CommitFail::Decide(e) => e,
        CommitFail::Access(e) => e.into(),
        CommitFail::NotRegular(EntryKind::Dir) => refused(WriteRefusal::IsDirectory),
        CommitFail::NotRegular(kind) => refused(WriteRefusal::NotRegular(kind)),
        CommitFail::Moved { .. } | CommitFail::Changed => {
            refused(WriteRefusal::KeptChanging).with_next(NextStep::TryAgain)
        }
        CommitFail::TooLarge { bytes, limit } => refused(WriteRefusal::TooLarge { bytes, limit }),
        CommitFail::Io(e) => refused(WriteRefusal::Io(e.into())),
    }
}

/// `write_file`: creates or replaces a file with `content`, atomically.
///
/// An existing text file keeps its BOM and, unless `content` itself contains CRLF, its CRLF
/// line endings; permissions are kept.
pub fn write_file(sandbox: &Sandbox, path: &str, content: &str) -> Result<Written, EditError> {
    let options = Options {
        create_parents: true,
        expect_path: None,
        read: ReadMode::Sniff,
    };
    let committed = commit::commit(sandbox, path, options, |current| {
        let bytes = match sniffed_text(current).filter(|_| current.exists()) {
            Some(text) => {
                let style = TextStyle {
                    final_newline: None,
                    ..TextStyle::detect(text)
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
            None => content.to_string(),
        };
        Ok::<_, EditError>(Change::Replace(bytes.into_bytes()))
    })
    .map_err(|fail| write_failure(fail, WriteAction::Write, path))?;
    Ok(Written::Wrote {
        path: path.to_string(),
        created_dirs: created_dirs(&committed.report, sandbox),
    })
}

/// `append_text`: appends `content` to a file (creating it if needed).
///
/// A newline is put in between only if the file is non-empty and does not end with one;
/// `content`'s line endings follow the file's style. An existing file is appended to through
/// its handle (a failed write is cut back off) unless it has more than one hard link (refused:
/// the other names would change too); a new one is created atomically.
pub fn append_text(sandbox: &Sandbox, path: &str, content: &str) -> Result<Written, EditError> {
    let options = Options {
        create_parents: true,
        expect_path: None,
        read: ReadMode::Sniff,
    };
    let addition = normalize_newlines(content);
    let committed = commit::commit(sandbox, path, options, |current| {
        let Some(meta) = current.meta else {
            return Ok(Change::Replace(
                TextStyle::PLAIN.render_verbatim(&addition).into_bytes(),
            ));
        };
        if meta.nlink > 1 {
            return Err(hard_linked(path, meta.nlink));
        }
        let Some(text) = sniffed_text(current) else {
            return Err(EditError::new(Failure::AppendToNonText {
                path: path.to_string(),
            }));
        };
        // The file's line endings, without a second BOM in the middle of the file.
        let style = TextStyle {
            final_newline: None,
            bom: false,
            ..TextStyle::detect(text)
        };
        let mut model = String::with_capacity(addition.len() + 1);
        if current.last_byte.is_some_and(|b| b != b'\n') && !addition.is_empty() {
            model.push('\n');
        }
        model.push_str(&addition);
        Ok(Change::Append(style.render_verbatim(&model).into_bytes()))
    })
    .map_err(|fail| write_failure(fail, WriteAction::Append, path))?;
    Ok(Written::Appended {
        path: path.to_string(),
        created_dirs: created_dirs(&committed.report, sandbox),
    })
}

/// Refusal of an in-place append to a file with other names: they would change too, and they may
/// lie outside the allowed directories.
fn hard_linked(path: &str, links: u64) -> EditError {
    EditError::new(Failure::HardLinked {
        path: path.to_string(),
        links,
    })
    .with_next(NextStep::WriteWholeFile)
}

/// `move_file`: renames a file, directory or symlink (the link itself, not its target). Both
/// paths are located by directory handles and the rename goes from one handle to the other
/// without replacing anything.
pub fn move_file(sandbox: &Sandbox, source: &str, destination: &str) -> Result<Written, EditError> {
    sandbox.refuse_if_read_only(destination)?;
    let src = sandbox.locate(source, FinalLink::Keep)?;
    let (Some(src_meta), Some(src_name)) = (src.meta, src.name()) else {
        if src.exists() {
            return Err(EditError::new(Failure::MoveRoot {
                source: source.to_string(),
            }));
        }
        return Err(EditError::new(Failure::SourceMissing {
            source: source.to_string(),
        }));
    };
    let src_path = src.path.clone();
    let dst = sandbox.locate(destination, FinalLink::Keep)?;
    let exists = || {
        EditError::new(Failure::DestinationExists {
            destination: destination.to_string(),
        })
    };
    if dst.exists() {
        return Err(exists());
    }
    if src_meta.kind == EntryKind::Dir && dst.path.starts_with(&src_path) {
        return Err(EditError::new(Failure::MoveIntoItself {
            source: source.to_string(),
            destination: destination.to_string(),
        }));
    }
    let mut rest = dst.rest;
    let Some(dst_name) = rest.pop() else {
        return Err(exists());
    };
    let (dir, new_dirs) = NewDirs::create(dst.dir, &rest)
        .map_err(|e| EditError::new(Failure::CreateDestination { error: e.into() }))?;
    src.dir
        .rename(src_name, &dir, &dst_name, true)
        .map_err(|e| move_error(e, source, destination))?;
    let created_dirs = new_dirs.keep();
    // Best effort, as for writes: the rename is done; this makes it survive a crash.
    let _ = dir.sync();
    let _ = src.dir.sync();
    let report = WriteReport {
        created: false,
        created_dirs,
    };
    Ok(Written::Moved {
        source: source.to_string(),
        destination: destination.to_string(),
        created_dirs: crate::outcome::created_dirs(&report, sandbox),
    })
}

fn move_error(e: io::Error, source: &str, destination: &str) -> EditError {
    use rustix::io::Errno;
    let (source, destination) = (source.to_string(), destination.to_string());
    EditError::new(match Errno::from_io_error(&e) {
        Some(Errno::EXIST) | Some(Errno::NOTEMPTY) => Failure::DestinationExists { destination },
        Some(Errno::XDEV) => Failure::CrossDevice {
            source,
            destination,
        },
        Some(Errno::INVAL) => Failure::MoveIntoItself {
            source,
            destination,
        },
        Some(Errno::NOENT) => Failure::SourceVanished {
            source,
            destination,
        },
        _ => Failure::MoveFailed {
            source,
            destination,
            error: e.into(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::{PermissionsExt, symlink};
    use std::path::PathBuf;

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
            Written::Wrote {
                path: "a/b/new.txt".into(),
                created_dirs: vec!["a".into(), "a/b".into()]
            }
        );
        assert_eq!(fs::read_to_string(ws.join("a/b/new.txt")).unwrap(), "hi\n");

        fs::write(ws.join("w.txt"), "\u{FEFF}x\r\ny\r\n").unwrap();
        fs::set_permissions(ws.join("w.txt"), fs::Permissions::from_mode(0o640)).unwrap();
        assert_eq!(
            write_file(&sb, "w.txt", "one\ntwo").unwrap(),
            Written::Wrote {
                path: "w.txt".into(),
                created_dirs: Vec::new()
            }
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
        assert!(matches!(
            write_file(&sb, "a", "x").unwrap_err().failure(),
            Failure::WriteRefused {
                action: WriteAction::Write,
                why: WriteRefusal::IsDirectory,
                ..
            }
        ));
    }

    #[test]
    fn append_text_without_blank_lines() {
        let (_t, ws, sb) = setup();
        fs::write(ws.join("a.txt"), "abc").unwrap();
        assert_eq!(
            append_text(&sb, "a.txt", "def").unwrap(),
            Written::Appended {
                path: "a.txt".into(),
                created_dirs: Vec::new()
            }
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
        assert!(matches!(
            move_file(&sb, "a.txt", "b.txt").unwrap_err().failure(),
            Failure::DestinationExists { destination } if destination == "b.txt"
        ));
        assert_eq!(
            move_file(&sb, "a.txt", "d/c.txt").unwrap(),
            Written::Moved {
                source: "a.txt".into(),
                destination: "d/c.txt".into(),
                created_dirs: vec!["d".into()]
            }
        );
        assert_eq!(fs::read_to_string(ws.join("d/c.txt")).unwrap(), "a");
        assert!(matches!(
            move_file(&sb, "nope", "x").unwrap_err().failure(),
            Failure::SourceMissing { source } if source == "nope"
        ));
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
        assert!(matches!(
            move_file(&sb, "dir", "dir/sub").unwrap_err().failure(),
            Failure::MoveIntoItself { .. }
        ));
    }

    #[test]
    fn fifos_and_sockets_are_refused_without_blocking_or_reading() {
        let (_t, ws, sb) = setup();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            ws.join("pipe"),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        let _socket = std::os::unix::net::UnixListener::bind(ws.join("sock")).unwrap();
        for name in ["pipe", "sock"] {
            let what = if name == "pipe" {
                EntryKind::Fifo
            } else {
                EntryKind::Socket
            };
            for result in [write_file(&sb, name, "x"), append_text(&sb, name, "x")] {
                let err = result.unwrap_err();
                assert!(
                    matches!(
                        err.failure(),
                        Failure::WriteRefused { why: WriteRefusal::NotRegular(kind), .. }
                            if *kind == what
                    ),
                    "{err}"
                );
            }
        }
        // Still the FIFO and the socket, not replaced by files.
        use std::os::unix::fs::FileTypeExt;
        assert!(
            fs::symlink_metadata(ws.join("pipe"))
                .unwrap()
                .file_type()
                .is_fifo()
        );
        assert!(
            fs::symlink_metadata(ws.join("sock"))
                .unwrap()
                .file_type()
                .is_socket()
        );
    }

    #[test]
    fn parallel_appends_and_writes_lose_nothing() {
        let (_t, ws, sb) = setup();
        fs::write(ws.join("log.txt"), "start\n").unwrap();
        std::thread::scope(|scope| {
            for i in 0..24 {
                let sb = &sb;
                scope.spawn(move || {
                    append_text(sb, "log.txt", &format!("entry {i:02}\n")).unwrap();
                    write_file(sb, &format!("w/{i}.txt"), "x").unwrap();
                });
            }
        });
        let text = fs::read_to_string(ws.join("log.txt")).unwrap();
        for i in 0..24 {
            assert!(text.contains(&format!("entry {i:02}\n")), "{text}");
        }
        assert_eq!(text.lines().count(), 25, "{text}");
        assert_eq!(fs::read_dir(ws.join("w")).unwrap().count(), 24);
        // No temporary file left anywhere.
        assert_eq!(fs::read_dir(&ws).unwrap().count(), 2);
    }

    #[test]
    fn writes_through_a_symlink_inside_change_its_target() {
        let (_t, ws, sb) = setup();
        fs::create_dir(ws.join("real")).unwrap();
        fs::write(ws.join("real/f.txt"), "old\n").unwrap();
        symlink("real/f.txt", ws.join("link.txt")).unwrap();
        write_file(&sb, "link.txt", "new\n").unwrap();
        assert!(
            fs::symlink_metadata(ws.join("link.txt"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(ws.join("real/f.txt")).unwrap(), "new\n");
        append_text(&sb, "link.txt", "more").unwrap();
        assert_eq!(
            fs::read_to_string(ws.join("real/f.txt")).unwrap(),
            "new\nmore"
        );
        // A symlink to outside is refused and the outside stays empty.
        symlink(ws.join("../outside"), ws.join("out")).unwrap();
        assert!(write_file(&sb, "out/x.txt", "no").is_err());
        assert!(append_text(&sb, "out/x.txt", "no").is_err());
        assert!(move_file(&sb, "real/f.txt", "out/f.txt").is_err());
        assert_eq!(fs::read_dir(ws.join("../outside")).unwrap().count(), 0);
    }
}
