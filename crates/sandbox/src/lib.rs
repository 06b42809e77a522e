//! The one guard every client-supplied path goes through.
//!
//! A [`Sandbox`] holds the allowed directories as open directory handles. A requested path is
//! walked component by component through handles from the allowed directory it lies in
//! ([`Sandbox::locate`]): symlinks are followed only while they stay inside, `..` returns to the
//! handle it came from, and what a tool finally opens is opened relative to the last handle with
//! `O_NOFOLLOW`. No path is re-resolved between the check and the use, so renaming a directory or
//! swapping it for a symlink to outside cannot redirect a read or a write.
//!
//! Only regular files are opened for content ([`Sandbox::open_file`]): FIFOs, sockets and devices
//! are refused before they are opened, and checked again on the handle (`fstat`).

mod allowed;
mod error;
mod escape;
mod handle;
mod lexical;
mod locate;
#[cfg(any(test, feature = "testing"))]
pub mod testing;

use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

pub use allowed::{NoUsableDirs, Sandbox, SkippedDir};
pub use error::AccessError;
pub use escape::{escape_os, escape_path, escape_paths, unescape};
pub use handle::{DirEntryInfo, DirHandle, DirLock, EntryKind, EntryMeta, never_serve};
pub use locate::{FinalLink, Located};

/// How often an open that lost a race with a rename or symlink swap is tried again.
const MAX_OPEN_RETRIES: usize = 8;

/// Why one open attempt did not return a handle.
enum Attempt {
    /// The entry changed under the attempt: look it up again.
    Again,
    Fail(AccessError),
}

impl Attempt {
    /// The outcome of an I/O error from opening what was just located.
    fn after(requested: &str, error: io::Error) -> Attempt {
        if locate::changed_under_us(&error) {
            Attempt::Again
        } else {
            Attempt::Fail(AccessError::Io {
                requested: requested.to_string(),
                error,
            })
        }
    }
}

impl AccessError {
    /// An error from one of the sandbox's handle operations on what it had just located: one a
    /// rename or swap causes is [`AccessError::Changed`] (the model should try again), any other
    /// is [`AccessError::Io`].
    fn from_handle_op(requested: impl Into<String>, error: io::Error) -> AccessError {
        let requested = requested.into();
        if locate::changed_under_us(&error) {
            AccessError::Changed { requested }
        } else {
            AccessError::Io { requested, error }
        }
    }
}

/// A regular file opened for reading beneath an allowed directory.
#[derive(Debug)]
pub struct OpenedFile {
    /// The open handle: read through it, never reopen by path.
    pub file: File,
    /// Metadata of the open handle (not of a path).
    pub meta: EntryMeta,
    /// The canonical path it was reached by (display only).
    pub path: PathBuf,
}

/// Where a write goes: a directory handle and one name in it.
#[derive(Debug, Clone)]
pub struct WriteTarget {
    /// The directory the entry is in.
    pub dir: DirHandle,
    /// The entry's name in `dir`.
    pub name: OsString,
    /// The canonical path (display only).
    pub path: PathBuf,
    /// The entry there now, if any (a final symlink already followed).
    pub existing: Option<EntryMeta>,
}

impl Sandbox {
    /// The canonical path `requested` names, admitted only inside an allowed directory.
    ///
    /// For messages and display only: a tool that opens, lists or writes uses [`Sandbox::locate`],
    /// [`Sandbox::open_file`], [`Sandbox::open_dir`] or [`Sandbox::write_target`], which hand out
    /// handles, never this path.
    pub fn resolve(&self, requested: &str) -> Result<PathBuf, AccessError> {
        self.locate(requested, FinalLink::Follow).map(|l| l.path)
    }

    /// Opens a regular file for reading. Anything else (a directory, FIFO, socket, device) is
    /// refused without blocking, and the type is checked again on the open handle.
    pub fn open_file(&self, requested: &str) -> Result<OpenedFile, AccessError> {
        self.open_existing(requested, |located, meta| {
            let not_regular = |kind| {
                Attempt::Fail(AccessError::NotRegular {
                    requested: requested.to_string(),
                    path: located.path.clone(),
                    kind,
                })
            };
            let Some(name) = located.name() else {
                return Err(not_regular(EntryKind::Dir));
            };
            if meta.kind != EntryKind::File {
                return Err(not_regular(meta.kind));
            }
            match located.dir.open_read(name) {
                Ok((file, meta)) if meta.kind == EntryKind::File => Ok(OpenedFile {
                    file,
                    meta,
                    path: located.path.clone(),
                }),
                Ok((_, meta)) => Err(not_regular(meta.kind)),
                Err(e) => Err(Attempt::after(requested, e)),
            }
        })
    }

    /// Opens a directory (following symlinks that stay inside).
    pub fn open_dir(&self, requested: &str) -> Result<DirHandle, AccessError> {
        self.open_existing(requested, |located, meta| {
            let Some(name) = located.name() else {
                return Ok(located.dir.clone());
            };
            if meta.kind != EntryKind::Dir {
                return Err(Attempt::Fail(AccessError::Unresolvable {
                    requested: requested.to_string(),
                    reason: format!("it is {}, not a directory", meta.kind.described()),
                }));
            }
            located
                .dir
                .open_subdir(name)
                .map_err(|e| Attempt::after(requested, e))
        })
    }

    /// Locates an existing `requested` and opens it with `open`; when the entry changed between
    /// the lookup and the open (renamed, swapped for a symlink), it is looked up again, a bounded
    /// number of times.
    fn open_existing<T>(
        &self,
        requested: &str,
        open: impl Fn(&Located, EntryMeta) -> Result<T, Attempt>,
    ) -> Result<T, AccessError> {
        for _ in 0..MAX_OPEN_RETRIES {
            let located = match self.locate(requested, FinalLink::Follow) {
                Ok(located) => located,
                Err(AccessError::Changed { .. }) => continue,
                Err(e) => return Err(e),
            };
            let Some(meta) = located.meta else {
                return Err(AccessError::NotFound {
                    requested: requested.to_string(),
                    path: located.path,
                });
            };
            match open(&located, meta) {
                Ok(opened) => return Ok(opened),
                Err(Attempt::Again) => continue,
                Err(Attempt::Fail(e)) => return Err(e),
            }
        }
        Err(AccessError::Changed {
            requested: requested.to_string(),
        })
    }

    /// Where a write of `requested` goes: the directory handle and the final name (a final
    /// symlink inside is followed, so its target changes). With `create_parents`, missing
    /// directories on the way are created, each by handle.
    pub fn write_target(
        &self,
        requested: &str,
        create_parents: bool,
    ) -> Result<WriteTarget, AccessError> {
        self.refuse_if_read_only(requested)?;
        let located = self.locate(requested, FinalLink::Follow)?;
        let io = |error: io::Error| AccessError::from_handle_op(requested, error);
        if located.rest.is_empty() {
            return Err(AccessError::NotRegular {
                requested: requested.to_string(),
                path: located.path,
                kind: EntryKind::Dir,
            });
        }
        let mut rest = located.rest;
        let name = rest.pop().unwrap_or_default();
        if !rest.is_empty() && !create_parents {
            return Err(AccessError::NotFound {
                requested: requested.to_string(),
                path: located.dir.path().join(&rest[0]),
            });
        }
        let mut dir = located.dir;
        for component in &rest {
            dir = make_subdir(&dir, component).map_err(io)?;
        }
        Ok(WriteTarget {
            dir,
            name,
            path: located.path,
            existing: located.meta,
        })
    }

    /// `mkdir -p` by handles: returns the directory and whether anything was created.
    pub fn create_dir_all(&self, requested: &str) -> Result<(DirHandle, bool), AccessError> {
        self.refuse_if_read_only(requested)?;
        let located = self.locate(requested, FinalLink::Follow)?;
        if located.exists() {
            return self.open_dir(requested).map(|dir| (dir, false));
        }
        let mut dir = located.dir;
        for component in &located.rest {
            dir = make_subdir(&dir, component)
                .map_err(|error| AccessError::from_handle_op(requested, error))?;
        }
        Ok((dir, true))
    }

    /// Opens a file that a tree walk found under an allowed directory, by the path the walk
    /// built, following no symlink at any component (the walk does not follow them either).
    pub fn open_walked(&self, path: &Path) -> Result<OpenedFile, AccessError> {
        let requested = || escape_path(path).into_owned();
        if handle::never_served_path(path) {
            return Err(self.excluded_error(requested(), path));
        }
        // Fast path (a grep opens every file this way): the path's bytes below its allowed
        // directory go to one openat2, without splitting them into components first.
        #[cfg(target_os = "linux")]
        let fast = self
            .walked_relative(path)
            .and_then(|(root, relative)| walked::beneath_bytes(&self.roots[root], relative));
        #[cfg(not(target_os = "linux"))]
        let fast: Option<io::Result<(File, EntryMeta)>> = None;
        let opened = match fast {
            Some(opened) => opened,
            None => {
                let Some((root, mut rest)) = self
                    .lexical_start(path)
                    .filter(|(_, r)| !r.iter().any(|c| c == ".."))
                else {
                    return Err(AccessError::Outside {
                        requested: requested(),
                        resolved: path.to_path_buf(),
                        roots: self.roots(),
                    });
                };
                walked::open_file(&self.roots[root], rest.make_contiguous())
            }
        };
        let opened = opened.map_err(|error| walked_error(path, error))?;
        let (file, meta) = opened;
        if meta.kind != EntryKind::File {
            return Err(AccessError::NotRegular {
                requested: requested(),
                path: path.to_path_buf(),
                kind: meta.kind,
            });
        }
        Ok(OpenedFile {
            file,
            meta,
            path: path.to_path_buf(),
        })
    }

    /// The deepest allowed directory `path` lies in and the bytes of the path below it, when that
    /// part is only plain names (no `..`), else `None` (the general walk handles it).
    #[cfg(target_os = "linux")]
    fn walked_relative<'p>(&self, path: &'p Path) -> Option<(usize, &'p [u8])> {
        // Compared as bytes: a grep calls this for every file, and `Path::starts_with` /
        // `strip_prefix` / `components` parse both paths component by component.
        self.root_paths
            .iter()
            .enumerate()
            .filter_map(|(i, root)| plain_relative(path, root).map(|rel| (i, root, rel)))
            .max_by_key(|(_, root, _)| root.as_os_str().len())
            .map(|(i, _, rel)| (i, rel))
    }

    /// Opens a directory that a tree walk found, following no symlink at any component.
    pub fn open_walked_dir(&self, path: &Path) -> Result<DirHandle, AccessError> {
        let requested = || escape_path(path).into_owned();
        if handle::never_served_path(path) {
            return Err(self.excluded_error(requested(), path));
        }
        let Some((root, rest)) = self
            .lexical_start(path)
            .filter(|(_, r)| !r.iter().any(|c| c == ".."))
        else {
            return Err(AccessError::Outside {
                requested: requested(),
                resolved: path.to_path_buf(),
                roots: self.roots(),
            });
        };
        let rest: Vec<OsString> = rest.into_iter().collect();
        walked::open_dir(&self.roots[root], &rest).map_err(|error| walked_error(path, error))
    }

    /// The refusal of a path into a directory never served ([`never_serve`]): as if outside.
    pub(crate) fn excluded_error(&self, requested: String, resolved: &Path) -> AccessError {
        AccessError::Outside {
            requested,
            resolved: resolved.to_path_buf(),
            roots: self.roots(),
        }
    }

    /// True when an already canonical path lies inside (or is) an allowed directory.
    pub fn contains(&self, canonical: &Path) -> bool {
        self.root_of(canonical).is_some()
    }

    /// The allowed directory a canonical path lies in (the deepest one, if roots nest).
    pub fn root_of(&self, canonical: &Path) -> Option<&Path> {
        self.root_paths
            .iter()
            .filter(|root| canonical.starts_with(root))
            .max_by_key(|root| root.components().count())
            .map(PathBuf::as_path)
    }

    /// How to show a canonical path to the model so that it can be passed back as is: relative to
    /// the first allowed directory when inside it (relative paths resolve there), absolute
    /// otherwise; control characters and invalid UTF-8 escaped (see [`escape_os`]).
    pub fn display(&self, canonical: &Path) -> String {
        // Fast path for the common case (a grep shows every file's path): plain names below
        // the first allowed directory, where the byte remainder is what `strip_prefix` gives.
        if let Some(relative) = plain_relative(canonical, &self.root_paths[0]) {
            use std::os::unix::ffi::OsStrExt;
            return escape_os(std::ffi::OsStr::from_bytes(relative)).into_owned();
        }
        match canonical.strip_prefix(&self.root_paths[0]) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
            Ok(rel) => escape_path(rel).into_owned(),
            Err(_) => escape_path(canonical).into_owned(),
        }
    }
}

/// The bytes of `path` below `root` when `path` is `root` followed by one or more plain names
/// (no empty, `.` or `..` component, no trailing `/`), else `None`. For such paths this equals
/// `path.strip_prefix(root)`, without parsing components.
fn plain_relative<'p>(path: &'p Path, root: &Path) -> Option<&'p [u8]> {
    use std::os::unix::ffi::OsStrExt;
    let (path, root) = (path.as_os_str().as_bytes(), root.as_os_str().as_bytes());
    let rest = path.strip_prefix(root)?;
    // `root` is canonical: "/" itself ends with the separator, every other root does not.
    let relative = if root.ends_with(b"/") {
        rest
    } else {
        rest.strip_prefix(b"/")?
    };
    let plain = !relative.is_empty()
        && relative
            .split(|&b| b == b'/')
            .all(|name| !name.is_empty() && name != b"." && name != b"..");
    plain.then_some(relative)
}

/// Why a path a walk found could not be opened: gone since the walk ([`AccessError::NotFound`]),
/// a component renamed or swapped for a symlink since ([`AccessError::Changed`]: it is never
/// followed), or another I/O error.
fn walked_error(path: &Path, error: io::Error) -> AccessError {
    let requested = escape_path(path).into_owned();
    if error.kind() == io::ErrorKind::NotFound {
        return AccessError::NotFound {
            requested,
            path: path.to_path_buf(),
        };
    }
    AccessError::from_handle_op(requested, error)
}

/// Opens `name` in `dir` as a directory, creating it first if missing.
fn make_subdir(dir: &DirHandle, name: &std::ffi::OsStr) -> io::Result<DirHandle> {
    match dir.mkdir(name, 0o777) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    dir.open_subdir(name)
}

mod walked {
    //! Opening a walk-built path beneath its allowed directory with no symlink anywhere: one
    //! `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` on Linux, a handle walk elsewhere or when
    //! the kernel lacks it.

    use std::ffi::OsString;
    use std::fs::File;
    use std::io;

    use crate::handle::{DirHandle, EntryMeta};

    pub(crate) fn open_file(root: &DirHandle, rest: &[OsString]) -> io::Result<(File, EntryMeta)> {
        #[cfg(target_os = "linux")]
        if let Some(opened) = beneath(root, rest) {
            return opened;
        }
        let Some((name, dirs)) = rest.split_last() else {
            return Err(io::Error::other("a directory, not a file"));
        };
        let mut dir = root.clone();
        for component in dirs {
            dir = dir.open_subdir(component)?;
        }
        dir.open_read(name)
    }

    /// A directory below `root` (or `root` itself for no components): one openat2 where the
    /// kernel has it, else a walk of `open_subdir`, neither following any symlink. Tree walks
    /// call this for every directory, so the single system call matters.
    pub(crate) fn open_dir(root: &DirHandle, rest: &[OsString]) -> io::Result<DirHandle> {
        if rest.is_empty() {
            return Ok(root.clone());
        }
        #[cfg(target_os = "linux")]
        if let Some(opened) = beneath_dir(root, rest) {
            return opened;
        }
        let mut dir = root.clone();
        for component in rest {
            dir = dir.open_subdir(component)?;
        }
        Ok(dir)
    }

    #[cfg(target_os = "linux")]
    fn beneath_dir(root: &DirHandle, rest: &[OsString]) -> Option<io::Result<DirHandle>> {
        use rustix::fs::{Mode, OFlags, ResolveFlags};
        let flags = OFlags::RDONLY
            | OFlags::DIRECTORY
            | OFlags::NOFOLLOW
            | OFlags::CLOEXEC
            | OFlags::NOCTTY;
        let resolve =
            ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
        match rustix::fs::openat2(
            root.fd(),
            joined(rest).as_slice(),
            flags,
            Mode::empty(),
            resolve,
        ) {
            Ok(fd) => {
                let mut path = root.path().to_path_buf();
                path.extend(rest);
                Some(Ok(DirHandle::from_fd(fd, path)))
            }
            Err(rustix::io::Errno::NOSYS)
            | Err(rustix::io::Errno::PERM)
            | Err(rustix::io::Errno::AGAIN) => None,
            Err(e) => Some(Err(e.into())),
        }
    }

    #[cfg(target_os = "linux")]
    fn joined(rest: &[OsString]) -> Vec<u8> {
        use std::os::unix::ffi::OsStrExt;
        let mut relative: Vec<u8> = Vec::new();
        for (i, component) in rest.iter().enumerate() {
            if i > 0 {
                relative.push(b'/');
            }
            relative.extend_from_slice(component.as_bytes());
        }
        relative
    }

    /// `None` when openat2 is not available here (old kernel, seccomp), so the walk runs instead.
    #[cfg(target_os = "linux")]
    fn beneath(root: &DirHandle, rest: &[OsString]) -> Option<io::Result<(File, EntryMeta)>> {
        beneath_bytes(root, &joined(rest))
    }

    /// [`beneath`] for a relative path given as bytes (plain names separated by `/`).
    #[cfg(target_os = "linux")]
    pub(crate) fn beneath_bytes(
        root: &DirHandle,
        relative: &[u8],
    ) -> Option<io::Result<(File, EntryMeta)>> {
        use rustix::fs::{Mode, OFlags, ResolveFlags};
        let flags =
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
        let resolve =
            ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
        match rustix::fs::openat2(root.fd(), relative, flags, Mode::empty(), resolve) {
            // O_NONBLOCK stays on: reads of a regular file ignore it (see `DirHandle::open_read`).
            Ok(fd) => Some((|| {
                let meta = EntryMeta::of_handle(&fd)?;
                Ok((File::from(fd), meta))
            })()),
            Err(rustix::io::Errno::NOSYS)
            | Err(rustix::io::Errno::PERM)
            | Err(rustix::io::Errno::AGAIN) => None,
            Err(e) => Some(Err(e.into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::symlink;

    fn setup() -> (tempfile::TempDir, PathBuf, Sandbox) {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        fs::create_dir_all(base.join("ws/sub")).unwrap();
        fs::create_dir_all(base.join("wsx")).unwrap();
        fs::create_dir_all(base.join("outside")).unwrap();
        fs::write(base.join("ws/a.txt"), "a").unwrap();
        fs::write(base.join("wsx/secret"), "s").unwrap();
        fs::write(base.join("outside/secret"), "s").unwrap();
        let (sb, skipped) = Sandbox::new([base.join("ws")]).unwrap();
        assert!(skipped.is_empty());
        (tmp, base, sb)
    }

    #[test]
    fn entries_up_to_reads_at_most_the_limit_and_says_there_are_more() {
        let (_t, base, sb) = setup();
        for i in 0..5 {
            fs::write(base.join(format!("ws/sub/f{i}")), "").unwrap();
        }
        let dir = sb.open_dir("sub").unwrap();
        let (some, more) = dir.entries_up_to(3).unwrap();
        assert_eq!((some.len(), more), (3, true));
        let (all, more) = dir.entries_up_to(5).unwrap();
        assert_eq!((all.len(), more), (5, false));
        assert_eq!(dir.entries().unwrap().len(), 5);
    }

    #[test]
    fn relative_paths_resolve_against_first_root() {
        let (_t, base, sb) = setup();
        assert_eq!(sb.resolve("a.txt").unwrap(), base.join("ws/a.txt"));
        assert_eq!(sb.resolve(".").unwrap(), base.join("ws"));
        assert_eq!(sb.resolve("").unwrap(), base.join("ws"));
        assert_eq!(sb.resolve("sub/../a.txt").unwrap(), base.join("ws/a.txt"));
    }

    #[test]
    fn sibling_prefix_is_refused() {
        let (_t, base, sb) = setup();
        let err = sb
            .resolve(base.join("wsx/secret").to_str().unwrap())
            .unwrap_err();
        assert!(matches!(err, AccessError::Outside { .. }), "{err}");
        assert!(sb.resolve("../wsx/secret").is_err());
    }

    #[test]
    fn dotdot_escape_and_absolute_outside_are_refused() {
        let (_t, _base, sb) = setup();
        assert!(sb.resolve("../outside/secret").is_err());
        assert!(sb.resolve("sub/../../outside/secret").is_err());
        assert!(sb.resolve("/etc/passwd").is_err());
        match sb.resolve("/etc/passwd") {
            Err(AccessError::Outside {
                requested, roots, ..
            }) => {
                assert_eq!(requested, "/etc/passwd");
                assert_eq!(roots, sb.roots());
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn symlinks_pointing_outside_are_refused() {
        let (_t, base, sb) = setup();
        symlink(base.join("outside/secret"), base.join("ws/filelink")).unwrap();
        symlink(base.join("outside"), base.join("ws/dirlink")).unwrap();
        assert!(sb.resolve("filelink").is_err());
        assert!(sb.resolve("dirlink").is_err());
        assert!(sb.resolve("dirlink/secret").is_err());
        // A file about to be created under a symlinked directory that points outside.
        assert!(sb.resolve("dirlink/new.txt").is_err());
        assert!(sb.resolve("dirlink/newdir/new.txt").is_err());
    }

    #[test]
    fn dangling_symlink_is_judged_by_its_target() {
        let (_t, base, sb) = setup();
        symlink(base.join("outside/not-yet"), base.join("ws/dangling")).unwrap();
        assert!(sb.resolve("dangling").is_err());
        symlink(base.join("ws/later.txt"), base.join("ws/inside-dangling")).unwrap();
        assert_eq!(
            sb.resolve("inside-dangling").unwrap(),
            base.join("ws/later.txt")
        );
    }

    #[test]
    fn symlinks_inside_are_followed() {
        let (_t, base, sb) = setup();
        symlink("sub", base.join("ws/rel-link")).unwrap();
        assert_eq!(sb.resolve("rel-link").unwrap(), base.join("ws/sub"));
        // `..` applies after the link is followed, as the OS does.
        assert_eq!(
            sb.resolve("rel-link/../a.txt").unwrap(),
            base.join("ws/a.txt")
        );
    }

    #[test]
    fn loops_and_missing_dotdot_are_errors_not_hangs() {
        let (_t, base, sb) = setup();
        symlink(base.join("ws/loop2"), base.join("ws/loop1")).unwrap();
        symlink(base.join("ws/loop1"), base.join("ws/loop2")).unwrap();
        assert!(matches!(
            sb.resolve("loop1"),
            Err(AccessError::Unresolvable { .. })
        ));
        assert!(sb.resolve("nope/../../outside/secret").is_err());
        assert!(sb.resolve("a.txt/x").is_err());
    }

    #[test]
    fn new_files_inside_are_allowed() {
        let (_t, base, sb) = setup();
        assert_eq!(
            sb.resolve("sub/new/deeper.txt").unwrap(),
            base.join("ws/sub/new/deeper.txt")
        );
    }

    #[test]
    fn unusable_dirs_are_reported() {
        let (_t, base, _sb) = setup();
        let (sb, skipped) = Sandbox::new([base.join("missing"), base.join("ws")]).unwrap();
        assert_eq!(sb.roots(), &[base.join("ws")]);
        assert_eq!(skipped.len(), 1);
        let err = Sandbox::new([base.join("ws/a.txt")]).unwrap_err();
        assert!(err.to_string().contains("not a directory"));
    }

    #[test]
    fn display_is_relative_to_first_root() {
        let (_t, base, sb) = setup();
        assert_eq!(sb.display(&base.join("ws/sub/x.rs")), "sub/x.rs");
        assert_eq!(sb.display(&base.join("ws")), ".");
    }
}

#[cfg(test)]
mod plain_relative_tests {
    use super::plain_relative;
    use std::path::Path;

    #[test]
    fn plain_names_below_the_root_only() {
        fn rel<'p>(path: &'p str, root: &str) -> Option<&'p [u8]> {
            plain_relative(Path::new(path), Path::new(root))
        }
        assert_eq!(rel("/ws/a/b.rs", "/ws"), Some(&b"a/b.rs"[..]));
        assert_eq!(rel("/a/b", "/"), Some(&b"a/b"[..]));
        // Not below the root, or not plain names: the component-wise code decides.
        for (path, root) in [
            ("/ws", "/ws"),
            ("/wsx/secret", "/ws"),
            ("/ws/../x", "/ws"),
            ("/ws/./a", "/ws"),
            ("/ws//a", "/ws"),
            ("/ws/a/", "/ws"),
            ("/other/a", "/ws"),
        ] {
            assert_eq!(rel(path, root), None, "{path} below {root}");
        }
        // Where it answers, it agrees with strip_prefix.
        assert_eq!(
            Path::new("/ws/a/b.rs").strip_prefix("/ws").unwrap(),
            Path::new("a/b.rs")
        );
    }
}
