//! A path the sandbox refused ([`AccessError`]), as the model reads it: the crate's facts, then
//! a next step naming only listed tools.

use fs_mcp_sandbox::{AccessError, EntryKind, escape_path};

use rmcp::model::CallToolResult;

use super::{ListedTools, error_text, failure};

/// The next step after a path that does not exist, for every tool: the listed tools that find
/// names, or how a relative path resolves.
pub fn check_the_name(listed: &ListedTools) -> String {
    match listed.any_of_or(
        &["search_files", "list_directory_with_sizes"],
        "directory_tree",
    ) {
        Some(tools) => format!("Check the name with {tools}"),
        None => {
            "Check the name; a relative path resolves against the first allowed directory".into()
        }
    }
}

/// The next step after `error`, if there is one to give.
pub fn next_step(error: &AccessError, listed: &ListedTools) -> Option<String> {
    match error {
        AccessError::NotFound { .. } => Some(check_the_name(listed)),
        AccessError::NotRegular {
            kind: EntryKind::Dir,
            ..
        } => Some(
            match listed.any_of_or(
                &["list_directory_with_sizes", "directory_tree"],
                "list_directory",
            ) {
                Some(tools) => format!("List it with {tools}, then use a file in it"),
                None => "Give the path of a file in it".to_string(),
            },
        ),
        AccessError::Outside { roots, .. } => Some(match roots.first() {
            Some(first) => format!(
                "Use a path inside them; a relative path such as 'src/main.rs' resolves against {}",
                escape_path(first)
            ),
            None => "Use a path inside them".to_string(),
        }),
        AccessError::Changed { .. } => Some("Try again".to_string()),
        AccessError::NotRegular { .. }
        | AccessError::Unresolvable { .. }
        | AccessError::ReadOnly { .. }
        | AccessError::Io { .. } => None,
    }
}

/// `Error: <what the sandbox says>. <next step>.`
pub fn access_error(error: &AccessError, listed: &ListedTools) -> String {
    error_text(error, next_step(error, listed).as_deref())
}

/// A call failed because the sandbox refused its path.
pub fn access_failure(error: &AccessError, listed: &ListedTools) -> CallToolResult {
    failure(error, next_step(error, listed).as_deref())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn not_found() -> AccessError {
        AccessError::NotFound {
            requested: "a.txt".into(),
            path: PathBuf::from("/w/a.txt"),
        }
    }

    #[test]
    fn a_missing_file_names_the_listed_finders() {
        let all = ListedTools::new(["search_files", "list_directory_with_sizes"].map(String::from));
        assert_eq!(
            access_error(&not_found(), &all),
            "Error: 'a.txt' does not exist. Check the name with search_files or list_directory_with_sizes."
        );
    }

    #[test]
    fn a_missing_file_names_no_tool_that_is_not_listed() {
        let some = ListedTools::new(["directory_tree".to_string()]);
        assert_eq!(
            access_error(&not_found(), &some),
            "Error: 'a.txt' does not exist. Check the name with directory_tree."
        );
        assert_eq!(
            access_error(&not_found(), &ListedTools::default()),
            "Error: 'a.txt' does not exist. Check the name; a relative path resolves against the first allowed directory."
        );
    }

    #[test]
    fn a_directory_is_listed_with_what_is_listed() {
        let dir = AccessError::NotRegular {
            requested: "src".into(),
            path: PathBuf::from("/w/src"),
            kind: EntryKind::Dir,
        };
        let listed = ListedTools::new(["list_directory".to_string()]);
        assert_eq!(
            access_error(&dir, &listed),
            "Error: 'src' is a directory, not a file. List it with list_directory, then use a file in it."
        );
        assert_eq!(
            access_error(&dir, &ListedTools::default()),
            "Error: 'src' is a directory, not a file. Give the path of a file in it."
        );
    }

    #[test]
    fn outside_says_where_relative_paths_resolve() {
        let outside = AccessError::Outside {
            requested: "../x".into(),
            resolved: PathBuf::from("/x"),
            roots: vec![PathBuf::from("/w")],
        };
        assert_eq!(
            access_error(&outside, &ListedTools::default()),
            "Error: Access denied: '../x' resolves to '/x', which is outside the allowed directories (/w). Use a path inside them; a relative path such as 'src/main.rs' resolves against /w."
        );
    }
}
