//! The search and navigation tools' errors ([`SearchError`]) as the model reads them.

use fs_mcp_search::{InfoOptions, NextTools, SearchError};
use rmcp::model::CallToolResult;

use super::{ListedTools, error_text, failure, sandbox};

/// The next step after `error`, if there is one to give.
pub fn next_step(error: &SearchError, listed: &ListedTools) -> Option<String> {
    match error {
        SearchError::Access(access) => sandbox::next_step(access, listed),
        SearchError::NotFound { .. } => Some(
            match listed.any_of_or(
                &["search_files", "list_directory_with_sizes"],
                "directory_tree",
            ) {
                Some(tools) => format!("Check the name with {tools}"),
                None => {
                    "Check the name; a relative path resolves against the first allowed directory"
                        .to_string()
                }
            },
        ),
        SearchError::TooLarge { .. } => listed
            .any_of(&["read_files"])
            .map(|tool| format!("Read it in parts with {tool} (head, tail or a line range)")),
        SearchError::NotADirectory { .. }
        | SearchError::WrongType { .. }
        | SearchError::InvalidPattern { .. }
        | SearchError::InvalidArgument { .. }
        | SearchError::Io { .. } => None,
    }
}

/// `get_file_info`'s options, its advice naming only listed tools.
pub fn info_options(listed: &ListedTools) -> InfoOptions {
    let named = |tool: &str| listed.any_of(&[tool]);
    InfoOptions {
        next_tools: NextTools {
            read: named("read_files"),
            grep: named("grep_content"),
            media: named("read_media_file"),
            json_query: named("query_json"),
            yaml_query: named("query_yaml"),
        },
        ..InfoOptions::default()
    }
}

/// `Error: <what>. <next step>.`
pub fn search_error(error: &SearchError, listed: &ListedTools) -> String {
    error_text(error, next_step(error, listed).as_deref())
}

/// A search answer, or the call's failure.
pub fn answer(result: Result<String, SearchError>, listed: &ListedTools) -> CallToolResult {
    match result {
        Ok(body) => crate::tools::text(body),
        Err(e) => failure(&e, next_step(&e, listed).as_deref()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_path_names_only_listed_tools() {
        let missing = SearchError::NotFound {
            path: "nope".into(),
        };
        let listed = ListedTools::new(["directory_tree".to_string()]);
        assert_eq!(
            search_error(&missing, &listed),
            "Error: nope does not exist. Check the name with directory_tree."
        );
    }

    #[test]
    fn a_bad_pattern_keeps_its_hint() {
        let bad = SearchError::InvalidPattern {
            message: "invalid glob '[a': unclosed class.".into(),
        };
        assert_eq!(
            search_error(&bad, &ListedTools::default()),
            "Error: invalid glob '[a': unclosed class."
        );
    }

    #[test]
    fn too_large_points_to_partial_reads_only_when_listed() {
        let big = SearchError::TooLarge {
            path: "big.bin".into(),
            size: 2048,
            limit: 1024,
        };
        assert_eq!(
            search_error(&big, &ListedTools::default()),
            "Error: big.bin is 2.00 KB (2,048 bytes), larger than the 1.00 KB limit."
        );
        assert!(
            search_error(&big, &ListedTools::new(["read_files".to_string()]))
                .ends_with("Read it in parts with read_files (head, tail or a line range).")
        );
    }
}
