//! `create_directory`: `mkdir -p` inside the sandbox.

use fs_mcp_sandbox::{AccessError, EntryKind, FinalLink, Sandbox};

use crate::SearchError;
use crate::error::describe_io;

/// Creates the directory and any missing parents, each by handle beneath the allowed directory
/// (a directory on the way swapped for a symlink is never followed outside). An existing
/// directory is fine; a file in the way is an error.
pub fn create_directory(sandbox: &Sandbox, path: &str) -> Result<String, SearchError> {
    let located = sandbox.locate(path, FinalLink::Follow)?;
    let shown = sandbox.display(&located.path);
    match located.meta {
        Some(m) if m.kind == EntryKind::Dir => {
            return Ok(format!("Directory {shown} already exists."));
        }
        Some(_) => {
            return Err(SearchError::WrongType {
                path: shown,
                message:
                    "already exists and is not a directory, so no directory can be created there."
                        .into(),
            });
        }
        None => {}
    }
    match sandbox.create_dir_all(path) {
        Ok((_, true)) => Ok(format!("Successfully created directory {shown}")),
        Ok((_, false)) => Ok(format!("Directory {shown} already exists.")),
        Err(AccessError::Io { error, .. }) => Err(SearchError::Io {
            path: shown,
            message: format!("cannot create directory: {}", describe_io(&error)),
        }),
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::Fixture;

    #[test]
    fn creates_parents_and_reports_existing() {
        let fx = Fixture::new();
        assert_eq!(
            create_directory(&fx.sandbox, "a/b/c").unwrap(),
            "Successfully created directory a/b/c"
        );
        assert!(fx.root.join("a/b/c").is_dir());
        assert_eq!(
            create_directory(&fx.sandbox, "a/b").unwrap(),
            "Directory a/b already exists."
        );
    }

    #[test]
    fn file_in_the_way_and_outside() {
        let fx = Fixture::new();
        fx.write("f.txt", "x");
        let err = create_directory(&fx.sandbox, "f.txt")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("f.txt already exists and is not a directory"),
            "{err}"
        );
        let err = create_directory(&fx.sandbox, "f.txt/sub")
            .unwrap_err()
            .to_string();
        assert!(err.contains("not a directory"), "{err}");
        assert!(create_directory(&fx.sandbox, "../outside/x").is_err());
        assert!(!fx.outside.join("x").exists());
        fx.symlink(&fx.outside, "out");
        assert!(create_directory(&fx.sandbox, "out/new").is_err());
        assert!(!fx.outside.join("new").exists());
    }
}
