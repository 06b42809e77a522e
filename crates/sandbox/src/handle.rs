//! Directory handles: every operation is relative to an open directory descriptor and never
//! follows a symlink in the name it is given, so what a handle names cannot be redirected by a
//! rename or a symlink swap after it was opened.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use rustix::fs::{AtFlags, FileType, FlockOperation, Mode, OFlags, RenameFlags, Stat};

/// What kind of filesystem object an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link (never followed when reading metadata).
    Symlink,
    /// A named pipe.
    Fifo,
    /// A Unix domain socket.
    Socket,
    /// A character device such as `/dev/null`.
    CharDevice,
    /// A block device.
    BlockDevice,
    /// A type the filesystem does not report.
    Unknown,
}

impl EntryKind {
    fn of(file_type: FileType) -> EntryKind {
        match file_type {
            FileType::RegularFile => EntryKind::File,
            FileType::Directory => EntryKind::Dir,
            FileType::Symlink => EntryKind::Symlink,
            FileType::Fifo => EntryKind::Fifo,
            FileType::Socket => EntryKind::Socket,
            FileType::CharacterDevice => EntryKind::CharDevice,
            FileType::BlockDevice => EntryKind::BlockDevice,
            FileType::Unknown => EntryKind::Unknown,
        }
    }

    /// The kind with its article, for messages ("a named pipe (FIFO)").
    pub fn described(self) -> &'static str {
        match self {
            EntryKind::File => "a regular file",
            EntryKind::Dir => "a directory",
            EntryKind::Symlink => "a symbolic link",
            EntryKind::Fifo => "a named pipe (FIFO)",
            EntryKind::Socket => "a socket",
            EntryKind::CharDevice => "a character device",
            EntryKind::BlockDevice => "a block device",
            EntryKind::Unknown => "a special file",
        }
    }
}

/// The metadata of one entry, read without following a final symlink (or from an open handle).
#[derive(Debug, Clone, Copy)]
pub struct EntryMeta {
    /// What the entry is.
    pub kind: EntryKind,
    /// Size in bytes (`st_size`).
    pub len: u64,
    /// Permission bits (and set-id/sticky bits).
    pub mode: u32,
    /// Owner's user id.
    pub uid: u32,
    /// Owner's group id.
    pub gid: u32,
    /// Device id of the filesystem holding the entry (with `ino`, its identity).
    pub dev: u64,
    /// Inode number (with `dev`, the entry's identity).
    pub ino: u64,
    /// Number of hard links.
    pub nlink: u64,
    /// Last modification time (the epoch when it is before 1970).
    pub modified: SystemTime,
}

impl EntryMeta {
    /// Metadata from a `stat` result, the mode cut to its permission bits.
    // The field types of `stat` differ between platforms, so the casts are not all no-ops.
    #[allow(clippy::unnecessary_cast)]
    pub fn from_stat(stat: &Stat) -> EntryMeta {
        let modified = if stat.st_mtime >= 0 {
            SystemTime::UNIX_EPOCH
                + Duration::new(
                    stat.st_mtime as u64,
                    stat.st_mtime_nsec.clamp(0, 999_999_999) as u32,
                )
        } else {
            SystemTime::UNIX_EPOCH
        };
        EntryMeta {
            kind: EntryKind::of(FileType::from_raw_mode(stat.st_mode as _)),
            len: u64::try_from(stat.st_size).unwrap_or(0),
            mode: stat.st_mode as u32 & 0o7777,
            uid: stat.st_uid,
            gid: stat.st_gid,
            dev: stat.st_dev as u64,
            ino: stat.st_ino as u64,
            nlink: stat.st_nlink as u64,
            modified,
        }
    }

    /// Metadata of an open file or directory.
    pub fn of_handle(fd: impl AsFd) -> io::Result<EntryMeta> {
        Ok(EntryMeta::from_stat(&rustix::fs::fstat(fd)?))
    }
}

/// One name in a directory listing.
#[derive(Debug, Clone)]
pub struct DirEntryInfo {
    /// The entry's name in the directory, as bytes the filesystem gave.
    pub name: OsString,
    /// From the directory entry when the filesystem reports it, else from `fstatat` (no follow).
    pub kind: EntryKind,
}

/// An open directory beneath an allowed directory, with the canonical path it was reached by
/// (for display only: operations use the descriptor, never the path).
#[derive(Debug, Clone)]
pub struct DirHandle {
    fd: Arc<OwnedFd>,
    path: PathBuf,
}

/// Directories this process never serves, wherever they lie: their canonical path and
/// device/inode (see [`never_serve`]).
static NEVER_SERVED: std::sync::RwLock<Vec<(PathBuf, (u64, u64))>> =
    std::sync::RwLock::new(Vec::new());

/// Never serve `dir` or anything below it, in any sandbox of this process: the server's private
/// review files, when the temp dir lies inside an allowed directory. A path into it is refused as
/// outside, and no walk (by path or by handle) enters it. A `dir` that cannot be opened is not
/// registered (it cannot be reached either).
pub fn never_serve(dir: &Path) {
    let Ok(handle) = DirHandle::open_root(dir) else {
        return;
    };
    let Ok(meta) = handle.meta() else {
        return;
    };
    let path = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    NEVER_SERVED
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .push((path, (meta.dev, meta.ino)));
}

/// Whether the directory with this device/inode is never served.
pub(crate) fn never_served(dev_ino: (u64, u64)) -> bool {
    let never = NEVER_SERVED.read().unwrap_or_else(|e| e.into_inner());
    never.iter().any(|(_, id)| *id == dev_ino)
}

/// Whether a walk-built (canonical, link-free) path lies in a directory never served.
pub(crate) fn never_served_path(path: &Path) -> bool {
    let never = NEVER_SERVED.read().unwrap_or_else(|e| e.into_inner());
    never.iter().any(|(dir, _)| path.starts_with(dir))
}

/// Flags for opening a directory: never through a final symlink, never as a controlling terminal.
fn dir_flags() -> OFlags {
    OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC | OFlags::NOCTTY
}

/// Refuses names that would walk: a handle operation takes one component.
fn single_component(name: &OsStr) -> io::Result<()> {
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes == b"." || bytes == b".." || bytes.contains(&b'/') {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("'{}' is not a single file name", name.to_string_lossy()),
        ));
    }
    Ok(())
}

impl DirHandle {
    /// Opens an allowed directory at startup: the one place a path is resolved by the OS.
    pub fn open_root(path: &Path) -> io::Result<DirHandle> {
        let fd = rustix::fs::open(path, dir_flags(), Mode::empty())?;
        Ok(DirHandle {
            fd: Arc::new(fd),
            path: path.to_path_buf(),
        })
    }

    /// A handle from a directory descriptor opened beneath an allowed directory.
    pub(crate) fn from_fd(fd: OwnedFd, path: PathBuf) -> DirHandle {
        DirHandle {
            fd: Arc::new(fd),
            path,
        }
    }

    /// The canonical path this directory was reached by (for display).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The open directory's descriptor, for the `*at()` calls.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// The entry's metadata, not following a symlink.
    pub fn stat(&self, name: &OsStr) -> io::Result<EntryMeta> {
        single_component(name)?;
        let stat = rustix::fs::statat(self.fd(), name, AtFlags::SYMLINK_NOFOLLOW)?;
        Ok(EntryMeta::from_stat(&stat))
    }

    /// This directory's own metadata.
    pub fn meta(&self) -> io::Result<EntryMeta> {
        EntryMeta::of_handle(self.fd())
    }

    /// The target of a symlink in this directory, as stored.
    pub fn read_link(&self, name: &OsStr) -> io::Result<PathBuf> {
        single_component(name)?;
        let target = rustix::fs::readlinkat(self.fd(), name, Vec::new())?;
        Ok(PathBuf::from(
            <OsString as std::os::unix::ffi::OsStringExt>::from_vec(target.into_bytes()),
        ))
    }

    /// Opens a subdirectory; a symlink in its place is refused (`ELOOP`/`ENOTDIR`), not followed.
    pub fn open_subdir(&self, name: &OsStr) -> io::Result<DirHandle> {
        single_component(name)?;
        let fd = rustix::fs::openat(self.fd(), name, dir_flags(), Mode::empty())?;
        let never = NEVER_SERVED.read().unwrap_or_else(|e| e.into_inner());
        if !never.is_empty() {
            let meta = EntryMeta::of_handle(&fd)?;
            if never.iter().any(|(_, id)| *id == (meta.dev, meta.ino)) {
                return Err(io::Error::new(
                    io::ErrorKind::PermissionDenied,
                    "this server's own review files are not served",
                ));
            }
        }
        drop(never);
        Ok(DirHandle {
            fd: Arc::new(fd),
            path: self.path.join(name),
        })
    }

    /// Opens an entry for reading without following a symlink and without blocking on a FIFO or
    /// device, then returns it with its metadata. The caller checks the kind.
    pub fn open_read(&self, name: &OsStr) -> io::Result<(File, EntryMeta)> {
        single_component(name)?;
        let flags =
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
        let fd = rustix::fs::openat(self.fd(), name, flags, Mode::empty())?;
        // O_NONBLOCK stays: it only kept the open of a FIFO from hanging, and reads of a regular
        // file ignore it (one syscall less per file a grep opens).
        let meta = EntryMeta::of_handle(&fd)?;
        Ok((File::from(fd), meta))
    }

    /// Opens an existing regular file for writing in place (appends), refusing symlinks and
    /// anything that is not a regular file before a byte is read or written.
    pub fn open_write_existing(&self, name: &OsStr) -> io::Result<(File, EntryMeta)> {
        single_component(name)?;
        let flags =
            OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
        let fd = rustix::fs::openat(self.fd(), name, flags, Mode::empty())?;
        let meta = EntryMeta::of_handle(&fd)?;
        if meta.kind != EntryKind::File {
            return Err(io::Error::other(format!("is {}", meta.kind.described())));
        }
        rustix::fs::fcntl_setfl(&fd, OFlags::empty())?;
        Ok((File::from(fd), meta))
    }

    /// Creates a new file that did not exist (`O_EXCL`), for writing.
    pub fn create_new(&self, name: &OsStr, mode: u32) -> io::Result<File> {
        single_component(name)?;
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(self.fd(), name, flags, Mode::from_raw_mode(mode as _))?;
        Ok(File::from(fd))
    }

    /// Creates a subdirectory.
    pub fn mkdir(&self, name: &OsStr, mode: u32) -> io::Result<()> {
        single_component(name)?;
        rustix::fs::mkdirat(self.fd(), name, Mode::from_raw_mode(mode as _))?;
        Ok(())
    }

    /// Removes an empty directory from this directory (a non-empty one is an error, and stays).
    pub fn remove_empty_dir(&self, name: &OsStr) -> io::Result<()> {
        single_component(name)?;
        rustix::fs::unlinkat(self.fd(), name, AtFlags::REMOVEDIR)?;
        Ok(())
    }

    /// Removes a file (not a directory) from this directory.
    pub fn unlink(&self, name: &OsStr) -> io::Result<()> {
        single_component(name)?;
        rustix::fs::unlinkat(self.fd(), name, AtFlags::empty())?;
        Ok(())
    }

    /// Renames `from` in this directory to `to` in `target` (atomic on one filesystem). With
    /// `no_replace`, an existing `to` is an error instead of being replaced.
    pub fn rename(
        &self,
        from: &OsStr,
        target: &DirHandle,
        to: &OsStr,
        no_replace: bool,
    ) -> io::Result<()> {
        single_component(from)?;
        single_component(to)?;
        if no_replace {
            rename_no_replace(self.fd(), from, target.fd(), to)
        } else {
            rustix::fs::renameat(self.fd(), from, target.fd(), to)?;
            Ok(())
        }
    }

    /// Flushes the directory itself, so a rename into it survives a crash.
    pub fn sync(&self) -> io::Result<()> {
        rustix::fs::fsync(self.fd())?;
        Ok(())
    }

    /// An exclusive advisory lock on this directory, held until the guard drops. Every writer of
    /// this server (any process) takes it around compare-and-swap commits in the directory.
    ///
    /// The lock is taken on a descriptor of its own: flock belongs to an open file description,
    /// and clones of one handle (the allowed directories are shared by every call) share theirs,
    /// so two threads locking clones would not exclude each other.
    pub fn lock(&self) -> io::Result<DirLock> {
        let fd = rustix::fs::openat(self.fd(), ".", dir_flags(), Mode::empty())?;
        rustix::fs::flock(&fd, FlockOperation::LockExclusive)?;
        Ok(DirLock { fd: Arc::new(fd) })
    }

    /// The names in this directory (without `.` and `..`), in the order the filesystem gives.
    pub fn entries(&self) -> io::Result<Vec<DirEntryInfo>> {
        collect_entries(rustix::fs::Dir::read_from(self.fd())?, usize::MAX).map(|(all, _)| all)
    }

    /// At most `limit` names of this directory, in the order the filesystem gives, and whether
    /// there are more: for a view that shows a few, so a directory of millions costs `limit`.
    pub fn entries_up_to(&self, limit: usize) -> io::Result<(Vec<DirEntryInfo>, bool)> {
        collect_entries(rustix::fs::Dir::read_from(self.fd())?, limit)
    }

    /// Like [`DirHandle::entries`], cheaper for a handle nothing else shares (a tree walk's): the
    /// listing reads a duplicate of this descriptor from the start instead of reopening `.`.
    pub fn entries_unshared(&self) -> io::Result<Vec<DirEntryInfo>> {
        if Arc::strong_count(&self.fd) != 1 {
            return self.entries();
        }
        // A duplicate shares the file offset; no other clone exists to list concurrently, and
        // `entries` on a later clone reopens `.`, so moving the offset here is harmless.
        let dup = self.fd.try_clone()?;
        rustix::fs::seek(&dup, rustix::fs::SeekFrom::Start(0))?;
        collect_entries(rustix::fs::Dir::new(dup)?, usize::MAX).map(|(all, _)| all)
    }
}

/// The names of `dir` (at most `limit`) and whether some were left unread.
fn collect_entries(
    mut dir: rustix::fs::Dir,
    limit: usize,
) -> io::Result<(Vec<DirEntryInfo>, bool)> {
    let mut out = Vec::new();
    let mut more = false;
    for entry in dir.by_ref() {
        let entry = entry?;
        let bytes = entry.file_name().to_bytes();
        if bytes == b"." || bytes == b".." {
            continue;
        }
        if out.len() == limit {
            more = true;
            break;
        }
        let name = OsStr::from_bytes(bytes).to_os_string();
        out.push(DirEntryInfo {
            name,
            kind: EntryKind::of(entry.file_type()),
        });
    }
    // Filesystems that do not report the type in the entry: ask, without following symlinks.
    for info in out.iter_mut().filter(|e| e.kind == EntryKind::Unknown) {
        if let Ok(stat) = rustix::fs::statat(dir.fd()?, &info.name, AtFlags::SYMLINK_NOFOLLOW) {
            info.kind = EntryMeta::from_stat(&stat).kind;
        }
    }
    Ok((out, more))
}

/// Releases the directory lock on drop.
#[derive(Debug)]
pub struct DirLock {
    fd: Arc<OwnedFd>,
}

impl Drop for DirLock {
    fn drop(&mut self) {
        let _ = rustix::fs::flock(self.fd.as_fd(), FlockOperation::Unlock);
    }
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn rename_no_replace(
    from_dir: BorrowedFd<'_>,
    from: &OsStr,
    to_dir: BorrowedFd<'_>,
    to: &OsStr,
) -> io::Result<()> {
    match rustix::fs::renameat_with(from_dir, from, to_dir, to, RenameFlags::NOREPLACE) {
        Ok(()) => Ok(()),
        // Filesystems without RENAME_NOREPLACE: link then unlink gives the same "never replace".
        Err(rustix::io::Errno::INVAL) | Err(rustix::io::Errno::NOSYS) => {
            rustix::fs::linkat(from_dir, from, to_dir, to, AtFlags::empty())?;
            rustix::fs::unlinkat(from_dir, from, AtFlags::empty())?;
            Ok(())
        }
        Err(e) => Err(e.into()),
    }
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn rename_no_replace(
    from_dir: BorrowedFd<'_>,
    from: &OsStr,
    to_dir: BorrowedFd<'_>,
    to: &OsStr,
) -> io::Result<()> {
    let _ = RenameFlags::empty();
    rustix::fs::linkat(from_dir, from, to_dir, to, AtFlags::empty())?;
    rustix::fs::unlinkat(from_dir, from, AtFlags::empty())?;
    Ok(())
}
