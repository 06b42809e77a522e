//! Path-string helpers used only to choose where a handle walk starts: `~` expansion and a
//! `realpath` that tolerates a missing tail. Nothing is ever opened by the paths they return.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};

use fs_mcp_text::describe_io;

const MAX_SYMLINK_HOPS: usize = 40;

/// Resolves `path` (absolute) like `realpath(3)`, but allows a missing tail: every existing
/// symlink is followed, `..` is applied to real directories only, and the first missing component
/// ends the lookup. `..` after a missing component is refused.
pub(crate) fn real_path(path: &Path) -> Result<PathBuf, String> {
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
            Err(e) if e.kind() == io::ErrorKind::NotADirectory => {
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

pub(crate) fn expand_tilde(path: &Path) -> PathBuf {
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
