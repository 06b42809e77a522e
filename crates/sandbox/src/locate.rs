//! Resolution of a requested path as a walk of directory handles from an allowed directory.
//!
//! Each component is looked up in the directory handle reached so far, without following
//! symlinks; a symlink is read and its target walked in its place (a relative target from the
//! link's directory, an absolute one from the allowed directory that contains it), and `..` goes
//! back to the handle it came from. Nothing is ever re-resolved from a path string after it was
//! checked, so swapping a directory for a symlink between the check and the use cannot take a
//! tool outside: the swap is either seen by the walk (and judged) or happens to a name the tool
//! no longer uses.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Component, Path, PathBuf};

use crate::allowed::Sandbox;
use crate::error::AccessError;
use crate::handle::{DirHandle, EntryKind, EntryMeta};
use crate::{escape, lexical};

/// How many symlinks one resolution may follow before it is called a loop (Linux uses 40).
const MAX_SYMLINK_HOPS: usize = 40;
/// How often a component that changed between `stat` and `open` is looked up again.
const MAX_RETRIES: usize = 8;

/// Where a requested path leads: the deepest existing directory on the way, as a handle, and the
/// components below it.
#[derive(Debug, Clone)]
pub struct Located {
    /// The directory that holds the final entry (or the first missing component).
    pub dir: DirHandle,
    /// The final name (one component) for an existing entry; the missing components for a path
    /// that does not exist yet; empty when the path is `dir` itself.
    pub rest: Vec<OsString>,
    /// The final entry's metadata (not followed when it is a symlink that was not followed);
    /// `None` when the path does not exist.
    pub meta: Option<EntryMeta>,
    /// The canonical path (for display and messages only).
    pub path: PathBuf,
}

impl Located {
    /// True when the path names something that exists.
    pub fn exists(&self) -> bool {
        self.meta.is_some()
    }

    /// The final name when the entry exists below `dir` (not the directory itself).
    pub fn name(&self) -> Option<&OsStr> {
        match self.rest.as_slice() {
            [name] if self.meta.is_some() => Some(name.as_os_str()),
            _ => None,
        }
    }
}

/// Whether the final component, if it is a symlink, is followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FinalLink {
    /// Follow a final symlink (it must stay beneath an allowed directory).
    Follow,
    /// The link itself is the entry (moving or describing a link).
    Keep,
}

struct Walk<'a> {
    sandbox: &'a Sandbox,
    requested: &'a str,
    hops: usize,
}

impl Sandbox {
    /// Resolves `requested` through directory handles, admitting it only if every step stays
    /// inside an allowed directory.
    ///
    /// A name this server showed in escaped form (`bad\xff.txt`, `a\nb`) is accepted back: when
    /// `requested` unescapes to a path that exists, that path is used, else the text as given.
    pub fn locate(&self, requested: &str, final_link: FinalLink) -> Result<Located, AccessError> {
        if requested.contains('\0') {
            return Err(AccessError::Unresolvable {
                requested: requested.to_string(),
                reason: "the path contains a NUL byte".into(),
            });
        }
        if let Some(unescaped) = escape::unescape(requested)
            && let Ok(found) = self.locate_path(requested, &unescaped, final_link)
            && found.exists()
        {
            return Ok(found);
        }
        self.locate_path(requested, Path::new(requested), final_link)
    }

    fn locate_path(
        &self,
        requested: &str,
        path: &Path,
        final_link: FinalLink,
    ) -> Result<Located, AccessError> {
        let absolute = self.absolute(path);
        let mut walk = Walk {
            sandbox: self,
            requested,
            hops: 0,
        };
        walk.start_at(&absolute, final_link)
    }

    /// `path` made absolute: `~` expanded, relative paths against the first allowed directory.
    pub(crate) fn absolute(&self, path: &Path) -> PathBuf {
        let expanded = lexical::expand_tilde(path);
        if expanded.is_absolute() {
            expanded
        } else {
            self.roots[0].path().join(expanded)
        }
    }

    /// The allowed directory an absolute path lies in lexically (deepest first) and the
    /// components below it, `..` kept for the walk to apply.
    pub(crate) fn lexical_start(&self, absolute: &Path) -> Option<(usize, VecDeque<OsString>)> {
        let mut best: Option<(usize, usize)> = None;
        for (i, root) in self.roots.iter().enumerate() {
            let depth = root.path().components().count();
            if absolute.starts_with(root.path())
                && best.is_none_or(|(_, best_depth)| depth > best_depth)
            {
                best = Some((i, depth));
            }
        }
        let (index, depth) = best?;
        let rest = absolute
            .components()
            .skip(depth)
            .filter_map(|c| match c {
                Component::Normal(name) => Some(name.to_os_string()),
                Component::ParentDir => Some(OsString::from("..")),
                _ => None,
            })
            .collect();
        Some((index, rest))
    }
}

impl Walk<'_> {
    fn error(&self, reason: impl Into<String>) -> AccessError {
        AccessError::Unresolvable {
            requested: self.requested.to_string(),
            reason: reason.into(),
        }
    }

    fn outside(&self, resolved: PathBuf) -> AccessError {
        AccessError::Outside {
            requested: self.requested.to_string(),
            resolved,
            roots: self.sandbox.roots(),
        }
    }

    /// Counts one more look at a component that changed between `stat` and use; past the bound
    /// the walk gives up with [`AccessError::Changed`] (the caller may try the whole path again).
    fn again(&self, retries: &mut usize) -> Result<(), AccessError> {
        *retries += 1;
        if *retries > MAX_RETRIES {
            return Err(AccessError::Changed {
                requested: self.requested.to_string(),
            });
        }
        Ok(())
    }

    fn io(&self, e: io::Error) -> AccessError {
        AccessError::Io {
            requested: self.requested.to_string(),
            error: e,
        }
    }

    /// Starts a walk at the allowed directory `absolute` lies in. A path that reaches an allowed
    /// directory only through symlinks outside every allowed directory (`/tmp` → `/private/tmp`)
    /// is first canonicalized, then walked by handles from the allowed directory it names.
    fn start_at(&mut self, absolute: &Path, final_link: FinalLink) -> Result<Located, AccessError> {
        if let Some((root, rest)) = self.sandbox.lexical_start(absolute) {
            return self.walk(root, rest, final_link);
        }
        let canonical = lexical::real_path(absolute).map_err(|reason| self.error(reason))?;
        match self.sandbox.lexical_start(&canonical) {
            Some((root, rest)) => self.walk(root, rest, final_link),
            None => Err(self.outside(canonical)),
        }
    }

    fn walk(
        &mut self,
        root: usize,
        mut pending: VecDeque<OsString>,
        final_link: FinalLink,
    ) -> Result<Located, AccessError> {
        let mut stack: Vec<DirHandle> = vec![self.sandbox.roots[root].clone()];
        let mut retries = 0;
        while let Some(part) = pending.pop_front() {
            let here = stack
                .last()
                .cloned()
                .ok_or_else(|| self.error("empty walk"))?;
            if part == ".." {
                if stack.len() > 1 {
                    stack.pop();
                    continue;
                }
                // Above an allowed directory: admitted only if that is inside another one.
                let mut above = here.path().parent().unwrap_or(Path::new("/")).to_path_buf();
                above.extend(pending.iter());
                return self.restart(&above, final_link);
            }
            let last = pending.is_empty();
            let meta = match here.stat(&part) {
                Ok(meta) => meta,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    if pending.iter().any(|p| p == "..") {
                        return Err(self.error("'..' follows a component that does not exist"));
                    }
                    let mut path = here.path().join(&part);
                    path.extend(pending.iter());
                    let mut rest = vec![part];
                    rest.extend(pending);
                    return Ok(Located {
                        dir: here,
                        rest,
                        meta: None,
                        path,
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::NotADirectory => {
                    return Err(
                        self.error(format!("'{}' is not a directory", here.path().display()))
                    );
                }
                Err(e) => return Err(self.io(e)),
            };
            if meta.kind == EntryKind::Dir && crate::handle::never_served((meta.dev, meta.ino)) {
                return Err(self
                    .sandbox
                    .excluded_error(self.requested.to_string(), &here.path().join(&part)));
            }
            match meta.kind {
                EntryKind::Symlink if !last || final_link == FinalLink::Follow => {
                    self.hops += 1;
                    if self.hops > MAX_SYMLINK_HOPS {
                        return Err(self.error("too many levels of symbolic links (a loop?)"));
                    }
                    let target = match here.read_link(&part) {
                        Ok(target) => target,
                        // No longer a symlink (EINVAL) or gone: look at it again.
                        Err(e) if changed_under_us(&e) => {
                            self.again(&mut retries)?;
                            self.hops -= 1;
                            pending.push_front(part);
                            continue;
                        }
                        Err(e) => return Err(self.io(e)),
                    };
                    if target.is_absolute() {
                        let mut next = target;
                        next.extend(pending.iter());
                        return self.restart(&next, final_link);
                    }
                    for component in target.components().rev() {
                        match component {
                            Component::Normal(name) => pending.push_front(name.to_os_string()),
                            Component::ParentDir => pending.push_front(OsString::from("..")),
                            _ => {}
                        }
                    }
                }
                EntryKind::Dir if !last => match here.open_subdir(&part) {
                    Ok(dir) => stack.push(dir),
                    // Swapped for something else since the stat: look at it again.
                    Err(e) if changed_under_us(&e) => {
                        self.again(&mut retries)?;
                        pending.push_front(part);
                    }
                    Err(e) => return Err(self.io(e)),
                },
                _ if !last => {
                    return Err(self.error(format!(
                        "'{}' is not a directory",
                        here.path().join(&part).display()
                    )));
                }
                _ => {
                    return Ok(Located {
                        path: here.path().join(&part),
                        dir: here,
                        rest: vec![part],
                        meta: Some(meta),
                    });
                }
            }
        }
        let dir = stack.pop().ok_or_else(|| self.error("empty walk"))?;
        let meta = dir.meta().map_err(|e| self.io(e))?;
        Ok(Located {
            path: dir.path().to_path_buf(),
            dir,
            rest: Vec::new(),
            meta: Some(meta),
        })
    }

    /// Continues at an absolute path reached by a symlink or by `..` above an allowed directory.
    fn restart(&mut self, absolute: &Path, final_link: FinalLink) -> Result<Located, AccessError> {
        self.hops += 1;
        if self.hops > MAX_SYMLINK_HOPS {
            return Err(self.error("too many levels of symbolic links (a loop?)"));
        }
        match self.sandbox.lexical_start(absolute) {
            Some((root, rest)) => self.walk(root, rest, final_link),
            None => {
                // Report where it leads, as far as it can be told without going there.
                let shown = lexical::real_path(absolute).unwrap_or_else(|_| absolute.to_path_buf());
                Err(self.outside(shown))
            }
        }
    }
}

/// Errors that mean "this name is no longer what was looked at a moment ago": a directory
/// swapped for a symlink (`ELOOP` under `O_NOFOLLOW`, `ENOTDIR` under `O_DIRECTORY`), a symlink
/// swapped for something else (`EINVAL` from `readlinkat`), an entry renamed away (`ENOENT`),
/// and from `openat2`'s confinement a path that now leaves its directory (`EXDEV`) or a rename
/// anywhere during the lookup (`EAGAIN`). Only the sandbox's own handle operations, where these
/// cannot mean anything else, read them this way.
pub(crate) fn changed_under_us(e: &io::Error) -> bool {
    matches!(
        rustix::io::Errno::from_io_error(e),
        Some(
            rustix::io::Errno::LOOP
                | rustix::io::Errno::NOTDIR
                | rustix::io::Errno::NOENT
                | rustix::io::Errno::INVAL
                | rustix::io::Errno::XDEV
                | rustix::io::Errno::AGAIN
        )
    )
}
