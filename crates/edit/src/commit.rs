//! Commits as compare-and-swap, by directory handle.
//!
//! [`commit`] locates the target through the sandbox (a directory handle and one name, parents
//! created by handle when asked), takes the exclusive lock of that directory
//! ([`DirHandle::lock`], an `flock` that other server processes honour too), checks under the
//! lock that the path still leads to the same directory and name, reads the file as it is now
//! through the handle, lets the caller decide what to write given that content, and writes it
//! (temporary file + rename in the same handle, or an append through the handle) before the lock
//! is released. So the check "the file is what I think it is" and the write cannot be separated
//! by another writer of this server, and no write ever goes through a path.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::PathBuf;

use fs_mcp_sandbox::{AccessError, DirHandle, EntryKind, EntryMeta, FinalLink, Sandbox};

use crate::atomic::{NewDirs, Replace, WriteReport, replace_in};
use crate::session::FileIdentity;

/// How often the whole sequence is tried again when the target changed under it (renamed,
/// replaced by a symlink, created by someone not taking the lock).
pub(crate) const MAX_ATTEMPTS: usize = 8;

/// How much of a file is read when only its style is needed.
pub(crate) const SNIFF_BYTES: usize = 64 * 1024;

/// How much of the current file the decision needs.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ReadMode {
    /// All of it; a larger file is refused.
    Whole { limit: u64 },
    /// Its first [`SNIFF_BYTES`] and its last byte.
    Sniff,
}

/// The target as found under the lock.
#[derive(Debug)]
pub(crate) struct Current {
    /// `None`: nothing exists at the name.
    pub meta: Option<EntryMeta>,
    /// The content ([`ReadMode::Whole`]) or its first bytes ([`ReadMode::Sniff`]).
    pub bytes: Vec<u8>,
    /// `bytes` is the whole file.
    pub complete: bool,
    /// The file's last byte, if it has one.
    pub last_byte: Option<u8>,
}

impl Current {
    pub(crate) fn absent() -> Current {
        Current {
            meta: None,
            bytes: Vec::new(),
            complete: true,
            last_byte: None,
        }
    }

    pub fn exists(&self) -> bool {
        self.meta.is_some()
    }
}

/// What to write.
#[derive(Debug)]
pub(crate) enum Change {
    /// Replace the file (or create it) with these bytes, atomically.
    Replace(Vec<u8>),
    /// Add these bytes at the end of the existing file, through its handle.
    Append(Vec<u8>),
}

/// How the target must be found.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Options<'a> {
    /// Create missing parent directories (by handle). Without it, a missing parent means the
    /// file is absent: `decide` is asked about that, and nothing is created.
    pub create_parents: bool,
    /// Where the target was when the change was prepared, by handle (device and inode of its
    /// directory, names below; the name is kept from when it held a path, for tier_tools): if
    /// the requested path now leads elsewhere, nothing is written.
    pub expect_path: Option<&'a FileIdentity>,
    pub read: ReadMode,
}

/// Why nothing was written.
#[derive(Debug)]
pub(crate) enum CommitFail<E> {
    /// The sandbox refused the path (now outside, a parent missing, …).
    Access(AccessError),
    /// The path now leads to another file than the one the change was prepared for.
    Moved {
        now: PathBuf,
    },
    /// Something other than a regular file is there.
    NotRegular(EntryKind),
    /// Larger than [`ReadMode::Whole`]'s limit.
    TooLarge {
        /// Its size, bytes.
        bytes: u64,
        /// The limit it exceeds, bytes.
        limit: u64,
    },
    /// The target kept changing while it was being locked.
    Changed,
    /// The caller's decision (e.g. a conflict).
    Decide(E),
    Io(io::Error),
}

impl<E> From<io::Error> for CommitFail<E> {
    fn from(e: io::Error) -> Self {
        CommitFail::Io(e)
    }
}

/// What a commit did.
#[derive(Debug, Clone)]
pub(crate) struct Committed {
    pub report: WriteReport,
}

/// One attempt's outcome: done, or the target changed under it and the attempt is repeated.
enum Attempt<T> {
    Done(T),
    Retry,
}

pub(crate) fn identity(meta: &EntryMeta) -> (u64, u64) {
    (meta.dev, meta.ino)
}

/// Locates `requested`, locks its directory and, under the lock, reads the current file, asks
/// `decide` what to write and writes it. See the module documentation.
pub(crate) fn commit<E>(
    sandbox: &Sandbox,
    requested: &str,
    options: Options<'_>,
    mut decide: impl FnMut(&Current) -> Result<Change, E>,
) -> Result<Committed, CommitFail<E>> {
    for _ in 0..MAX_ATTEMPTS {
        if let Attempt::Done(done) = attempt(sandbox, requested, options, &mut decide)? {
            return Ok(done);
        }
    }
    Err(CommitFail::Changed)
}

fn attempt<E>(
    sandbox: &Sandbox,
    requested: &str,
    options: Options<'_>,
    decide: &mut impl FnMut(&Current) -> Result<Change, E>,
) -> Result<Attempt<Committed>, CommitFail<E>> {
    sandbox
        .refuse_if_read_only(requested)
        .map_err(CommitFail::Access)?;
    let located = sandbox
        .locate(requested, FinalLink::Follow)
        .map_err(CommitFail::Access)?;
    if let Some(expected) = options.expect_path
        && !expected.is(identity(&located.dir.meta()?), &located.rest)
    {
        return Err(CommitFail::Moved { now: located.path });
    }
    if let Some(meta) = located.meta
        && meta.kind != EntryKind::File
    {
        return Err(CommitFail::NotRegular(meta.kind));
    }
    let mut rest = located.rest;
    let Some(name) = rest.pop() else {
        return Err(CommitFail::NotRegular(EntryKind::Dir));
    };
    if !rest.is_empty() && !options.create_parents {
        // The file cannot be there: let the caller judge that (a conflict when it existed),
        // without creating directories for a write that will not happen.
        decide(&Current::absent()).map_err(CommitFail::Decide)?;
        return Err(CommitFail::Access(AccessError::NotFound {
            requested: requested.to_string(),
            path: located.dir.path().join(&rest[0]),
        }));
    }
    let (dir, new_dirs) = NewDirs::create(located.dir, &rest)?;

    let _lock = dir.lock()?;
    // Under the lock, the path must still lead to this directory and name: a rename or a
    // symlink swap since the walk above is either seen here or repeats the attempt.
    let again = sandbox
        .locate(requested, FinalLink::Follow)
        .map_err(CommitFail::Access)?;
    if again.rest.as_slice() != [name.clone()]
        || identity(&again.dir.meta()?) != identity(&dir.meta()?)
    {
        return Ok(Attempt::Retry);
    }
    let Some(current) = read_current(&dir, &name, options.read)? else {
        return Ok(Attempt::Retry);
    };
    let change = decide(&current).map_err(CommitFail::Decide)?;
    match (change, current.meta) {
        (Change::Replace(bytes), meta) => {
            let mode = meta.map_or(Replace::New, Replace::Existing);
            match replace_in(&dir, &name, &bytes, mode) {
                Ok(()) => {}
                // Created meanwhile by someone who does not take the lock: never replaced.
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && meta.is_none() => {
                    return Ok(Attempt::Retry);
                }
                Err(e) => return Err(e.into()),
            }
        }
        (Change::Append(bytes), Some(meta)) => {
            if !append_in(&dir, &name, &meta, &bytes)? {
                return Ok(Attempt::Retry);
            }
        }
        (Change::Append(bytes), None) => match replace_in(&dir, &name, &bytes, Replace::New) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => return Ok(Attempt::Retry),
            Err(e) => return Err(e.into()),
        },
    }
    Ok(Attempt::Done(Committed {
        report: WriteReport {
            created: current.meta.is_none(),
            created_dirs: new_dirs.keep(),
        },
    }))
}

/// Reads the entry `name` in `dir` without following a symlink and without blocking on a FIFO
/// or device (`None`: it changed under the read; try again).
pub(crate) fn read_current<E>(
    dir: &DirHandle,
    name: &OsString,
    mode: ReadMode,
) -> Result<Option<Current>, CommitFail<E>> {
    let (mut file, meta) = match dir.open_read(name) {
        Ok(opened) => opened,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Some(Current::absent())),
        // A symlink appeared at the name (O_NOFOLLOW): locate again.
        Err(e) if rustix::io::Errno::from_io_error(&e) == Some(rustix::io::Errno::LOOP) => {
            return Ok(None);
        }
        Err(e) => return Err(e.into()),
    };
    match meta.kind {
        EntryKind::File => {}
        EntryKind::Symlink => return Ok(None),
        other => return Err(CommitFail::NotRegular(other)),
    }
    let (bytes, complete) = match mode {
        ReadMode::Whole { limit } => {
            if meta.len > limit {
                return Err(CommitFail::TooLarge {
                    bytes: meta.len,
                    limit,
                });
            }
            let mut bytes = Vec::with_capacity(usize::try_from(meta.len).unwrap_or(0));
            // `take` bounds the read even if the file grows meanwhile.
            (&mut file).take(limit + 1).read_to_end(&mut bytes)?;
            if bytes.len() as u64 > limit {
                return Err(CommitFail::TooLarge {
                    bytes: bytes.len() as u64,
                    limit,
                });
            }
            (bytes, true)
        }
        ReadMode::Sniff => {
            let mut bytes = Vec::with_capacity(SNIFF_BYTES.min(meta.len as usize));
            (&mut file)
                .take(SNIFF_BYTES as u64)
                .read_to_end(&mut bytes)?;
            let complete = bytes.len() as u64 >= meta.len;
            (bytes, complete)
        }
    };
    let last_byte = last_byte(&file, &meta, &bytes, complete)?;
    Ok(Some(Current {
        meta: Some(meta),
        bytes,
        complete,
        last_byte,
    }))
}

fn last_byte(
    file: &File,
    meta: &EntryMeta,
    bytes: &[u8],
    complete: bool,
) -> io::Result<Option<u8>> {
    if complete {
        return Ok(bytes.last().copied());
    }
    if meta.len == 0 {
        return Ok(None);
    }
    let mut one = [0u8; 1];
    match file.read_at(&mut one, meta.len - 1)? {
        1 => Ok(Some(one[0])),
        _ => Ok(bytes.last().copied()),
    }
}

/// Appends `bytes` to the regular file `name` (the one read under the lock: same inode), through
/// a handle that checks its type before writing. A failed write is undone (the file is cut back
/// to its old length). `false`: the file is no longer the one that was read, or it has other
/// names now (hard links, perhaps outside the allowed directories, which an in-place write would
/// change too): the caller's decision sees the link count on the next attempt.
fn append_in(dir: &DirHandle, name: &OsString, read: &EntryMeta, bytes: &[u8]) -> io::Result<bool> {
    let (mut file, meta) = dir.open_write_existing(name)?;
    // Checked on the handle written through: a name linked to this inode later is one someone
    // gave to this file, not an outside file's content reached through the workspace.
    if identity(&meta) != identity(read) || meta.nlink > 1 {
        return Ok(false);
    }
    let end = file.seek(SeekFrom::End(0))?;
    let written = file.write_all(bytes).and_then(|()| file.sync_data());
    if let Err(e) = written {
        // Nothing the user had is lost: what was added is taken off again.
        let _ = file.set_len(end);
        return Err(e);
    }
    Ok(true)
}
