//! The one guard every client-supplied path goes through.
//!
//! A [`Sandbox`] holds the allowed directories as canonical paths. [`Sandbox::resolve`] turns a
//! requested path into the canonical path it really names (every existing symlink followed, `..`
//! applied after the symlink it follows, a missing tail appended verbatim) and admits it only if it
//! lies inside an allowed directory, compared component by component. A path that does not exist
//! yet is therefore judged by its nearest existing ancestor, and a dangling symlink by its target.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::fmt;
use std::io;
use std::path::{Component, Path, PathBuf};

/// How many symlinks one resolution may follow before it is called a loop (Linux uses 40).
const MAX_SYMLINK_HOPS: usize = 40;

/// The allowed directories and the checks against them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sandbox {
    roots: Vec<PathBuf>,
}

/// A directory given at startup that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedDir {
    pub path: PathBuf,
    pub reason: String,
}

/// Why a sandbox could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoUsableDirs {
    pub skipped: Vec<SkippedDir>,
}

impl fmt::Display for NoUsableDirs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "no usable allowed directory")?;
        for s in &self.skipped {
            write!(f, "; {}: {}", s.path.display(), s.reason)?;
        }
        Ok(())
    }
}

impl std::error::Error for NoUsableDirs {}

/// Why a requested path was not admitted.
#[derive(Debug)]
pub enum AccessError {
    /// The path resolves outside every allowed directory.
    Outside {
        requested: String,
        resolved: PathBuf,
        roots: Vec<PathBuf>,
    },
    /// The path could not be resolved (a symlink loop, `..` after a missing component, an I/O error).
    Unresolvable { requested: String, reason: String },
}

impl fmt::Display for AccessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AccessError::Outside {
                requested,
                resolved,
                roots,
            } => {
                let list = roots
                    .iter()
                    .map(|r| r.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ");
                write!(
                    f,
                    "Access denied: '{requested}' resolves to '{}', which is outside the allowed directories ({list}).",
                    resolved.display()
                )?;
                if let Some(first) = roots.first() {
                    write!(
                        f,
                        " Use a path inside them; a relative path such as 'src/main.rs' resolves against {}.",
                        first.display()
                    )?;
                }
                Ok(())
            }
            AccessError::Unresolvable { requested, reason } => {
                write!(f, "Cannot resolve path '{requested}': {reason}.")
            }
        }
    }
}

impl std::error::Error for AccessError {}

impl Sandbox {
    /// Builds a sandbox from the directories given on the command line (or by the client).
    ///
    /// `~` is expanded and each directory is canonicalized. Entries that do not exist or are not
    /// directories are skipped and reported; if none is left, the error lists why.
    pub fn new<I, P>(dirs: I) -> Result<(Sandbox, Vec<SkippedDir>), NoUsableDirs>
    where
        I: IntoIterator<Item = P>,
        P: AsRef<Path>,
    {
        let mut roots: Vec<PathBuf> = Vec::new();
        let mut skipped = Vec::new();
        for dir in dirs {
            let dir = expand_tilde(dir.as_ref());
            match std::fs::canonicalize(&dir) {
                Ok(canonical) if canonical.is_dir() => {
                    if !roots.contains(&canonical) {
                        roots.push(canonical);
                    }
                }
                Ok(_) => skipped.push(SkippedDir {
                    path: dir,
                    reason: "not a directory".into(),
                }),
                Err(e) => skipped.push(SkippedDir {
                    path: dir,
                    reason: describe_io(&e),
                }),
            }
        }
        if roots.is_empty() {
            return Err(NoUsableDirs { skipped });
        }
        Ok((Sandbox { roots }, skipped))
    }

    /// The allowed directories, canonical, in the order given. The first one anchors relative paths.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// Resolves a client-supplied path and admits it only if it lies inside an allowed directory.
    ///
    /// The result is canonical for its existing part; a missing tail is appended as given, so
    /// the path may name a file about to be created.
    pub fn resolve(&self, requested: &str) -> Result<PathBuf, AccessError> {
        let unresolvable = |reason: String| AccessError::Unresolvable {
            requested: requested.to_string(),
            reason,
        };
        if requested.contains('\0') {
            return Err(unresolvable("the path contains a NUL byte".into()));
        }
        let expanded = expand_tilde(Path::new(requested));
        let absolute = if expanded.is_absolute() {
            expanded
        } else {
            self.roots[0].join(expanded)
        };
        let resolved = real_path(&absolute).map_err(unresolvable)?;
        if self.contains(&resolved) {
            Ok(resolved)
        } else {
            Err(AccessError::Outside {
                requested: requested.to_string(),
                resolved,
                roots: self.roots.clone(),
            })
        }
    }

    /// True when an already canonical path lies inside (or is) an allowed directory.
    pub fn contains(&self, canonical: &Path) -> bool {
        self.root_of(canonical).is_some()
    }

    /// The allowed directory a canonical path lies in (the deepest one, if roots nest).
    pub fn root_of(&self, canonical: &Path) -> Option<&Path> {
        self.roots
            .iter()
            .filter(|root| canonical.starts_with(root))
            .max_by_key(|root| root.components().count())
            .map(PathBuf::as_path)
    }

    /// How to show a canonical path to the model so that it can be passed back as is: relative to
    /// the first allowed directory when inside it (relative paths resolve there), absolute otherwise.
    pub fn display(&self, canonical: &Path) -> String {
        match canonical.strip_prefix(&self.roots[0]) {
            Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
            Ok(rel) => rel.display().to_string(),
            Err(_) => canonical.display().to_string(),
        }
    }
}

/// Resolves `path` (absolute) like `realpath(3)`, but allows a missing tail: every existing symlink is
/// followed, `..` is applied to real directories only, and the first missing component ends the
/// lookup. `..` after a missing component is refused, since its meaning depends on what gets created.
fn real_path(path: &Path) -> Result<PathBuf, String> {
    let mut pending: VecDeque<OsString> = VecDeque::new();
    let mut resolved = PathBuf::from("/");
    push_components(&mut pending, path, &mut resolved);
    let mut hops = 0usize;
    let mut missing = false;
    while let Some(part) = pending.pop_front() {
        if part == ".." {
            if missing {
                return Err("'..' follows a component that does not exist".into());
            }
            resolved.pop();
            continue;
        }
        let candidate = resolved.join(&part);
        if missing {
            resolved = candidate;
            continue;
        }
        match std::fs::symlink_metadata(&candidate) {
            Ok(meta) if meta.file_type().is_symlink() => {
                hops += 1;
                if hops > MAX_SYMLINK_HOPS {
                    return Err("too many levels of symbolic links (a loop?)".into());
                }
                let target = std::fs::read_link(&candidate).map_err(|e| describe_io(&e))?;
                // The link's target replaces the link; its components go in front of what is left.
                let mut front = VecDeque::new();
                push_components(&mut front, &target, &mut resolved);
                while let Some(c) = front.pop_back() {
                    pending.push_front(c);
                }
            }
            Ok(_) => resolved = candidate,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                missing = true;
                resolved = candidate;
            }
            Err(e) if e.raw_os_error() == Some(20) => {
                // ENOTDIR: a file used as a directory. Nothing below it can exist.
                return Err(format!("'{}' is not a directory", resolved.display()));
            }
            Err(e) => return Err(describe_io(&e)),
        }
    }
    Ok(resolved)
}

/// Queues the components of `path`. An absolute path restarts resolution at `/`.
fn push_components(queue: &mut VecDeque<OsString>, path: &Path, resolved: &mut PathBuf) {
    for component in path.components() {
        match component {
            Component::RootDir | Component::Prefix(_) => {
                queue.clear();
                *resolved = PathBuf::from("/");
            }
            Component::CurDir => {}
            Component::ParentDir => queue.push_back(OsString::from("..")),
            Component::Normal(name) => queue.push_back(name.to_os_string()),
        }
    }
}

fn expand_tilde(path: &Path) -> PathBuf {
    let Some(text) = path.to_str() else {
        return path.to_path_buf();
    };
    let home = || std::env::var_os("HOME").map(PathBuf::from);
    if text == "~" {
        if let Some(h) = home() {
            return h;
        }
    } else if let Some(rest) = text.strip_prefix("~/")
        && let Some(h) = home()
    {
        return h.join(rest);
    }
    path.to_path_buf()
}

fn describe_io(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "does not exist".into(),
        io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
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
        let msg = sb.resolve("/etc/passwd").unwrap_err().to_string();
        assert!(
            msg.contains("/etc/passwd") && msg.contains("relative path"),
            "{msg}"
        );
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
