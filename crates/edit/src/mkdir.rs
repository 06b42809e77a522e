//! `create_directory`: `mkdir -p` inside the sandbox (a write, so it lives with the write tools).

use crate::error::{EditError, Failure};
use crate::outcome::Written;
use fs_mcp_sandbox::{AccessError, EntryKind, FinalLink, Sandbox};

/// Creates the directory and any missing parents, each by handle beneath the allowed directory
/// (a directory on the way swapped for a symlink is never followed outside). An existing
/// directory is fine; a file in the way is an error.
pub fn create_directory(sandbox: &Sandbox, path: &str) -> Result<Written, EditError> {
    let located = sandbox.locate(path, FinalLink::Follow)?;
    let shown = sandbox.display(&located.path);
    match located.meta {
        Some(m) if m.kind == EntryKind::Dir => {
            return Ok(Written::Directory {
                shown,
                created: false,
            });
        }
        Some(_) => {
            return Err(EditError::new(Failure::NotADirectory { shown }));
        }
        None => {}
    }
    match sandbox.create_dir_all(path) {
        Ok((_, created)) => Ok(Written::Directory { shown, created }),
        Err(AccessError::Io { error, .. }) => Err(EditError::new(Failure::CreateDirectory {
            shown,
            error: error.into(),
        })),
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fs_mcp_sandbox::testing::Fixture;
    use std::fs;

    #[test]
    fn creates_parents_and_reports_existing() {
        let fx = Fixture::new();
        let (root, sandbox) = (&fx.root, &fx.sandbox);
        assert_eq!(
            create_directory(sandbox, "a/b/c").unwrap(),
            Written::Directory {
                shown: "a/b/c".into(),
                created: true
            }
        );
        assert!(root.join("a/b/c").is_dir());
        assert_eq!(
            create_directory(sandbox, "a/b").unwrap(),
            Written::Directory {
                shown: "a/b".into(),
                created: false
            }
        );
    }

    #[test]
    fn file_in_the_way_and_outside() {
        let fx = Fixture::new();
        let (root, outside, sandbox) = (&fx.root, &fx.outside, &fx.sandbox);
        fs::write(root.join("f.txt"), "x").unwrap();
        let err = create_directory(sandbox, "f.txt").unwrap_err();
        assert!(
            matches!(err.failure(), Failure::NotADirectory { shown } if shown == "f.txt"),
            "{err}"
        );
        assert!(create_directory(sandbox, "f.txt/sub").is_err());
        assert!(root.join("f.txt").is_file());
        assert!(create_directory(sandbox, "../outside/x").is_err());
        assert!(!outside.join("x").exists());
        std::os::unix::fs::symlink(outside, root.join("out")).unwrap();
        assert!(create_directory(sandbox, "out/new").is_err());
        assert!(!outside.join("new").exists());
    }
}
