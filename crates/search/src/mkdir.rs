//! `create_directory`: `mkdir -p` inside the sandbox.

use fs_mcp_sandbox::Sandbox;

use crate::SearchError;
use crate::error::describe_io;

/// Creates the directory and any missing parents. An existing directory is fine; a file in the
/// way is an error.
pub fn create_directory(sandbox: &Sandbox, path: &str) -> Result<String, SearchError> {
    let target = sandbox.resolve(path)?;
    let shown = sandbox.display(&target);
    match std::fs::symlink_metadata(&target) {
        Ok(m) if m.is_dir() => return Ok(format!("Directory {shown} already exists.")),
        Ok(_) => {
            return Err(SearchError::WrongType {
                path: shown,
                message:
                    "already exists and is not a directory, so no directory can be created there."
                        .into(),
            });
        }
        Err(_) => {}
    }
    // Find the deepest existing ancestor to name a file in the way precisely.
    if let Some(blocker) = target
        .ancestors()
        .skip(1)
        .find(|a| std::fs::symlink_metadata(a).is_ok())
        .filter(|a| !a.is_dir())
    {
        return Err(SearchError::WrongType {
            path: sandbox.display(blocker),
            message: format!("is a file, so the directory {shown} cannot be created under it."),
        });
    }
    std::fs::create_dir_all(&target).map_err(|e| SearchError::Io {
        path: shown.clone(),
        message: format!("cannot create directory: {}", describe_io(&e)),
    })?;
    Ok(format!("Successfully created directory {shown}"))
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
