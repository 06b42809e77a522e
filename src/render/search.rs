//! The search and navigation tools' errors ([`SearchError`]) as the model reads them.

use fs_mcp_search::{InfoOptions, NextTools, SearchError};
use rmcp::model::CallToolResult;

use super::{ListedTools, error_text, failure, sandbox};

/// The next step after `error`, if there is one to give.
pub fn next_step(error: &SearchError, listed: &ListedTools) -> Option<String> {
    Some(match error {
        SearchError::Access(access) => return sandbox::next_step(access, listed),
        SearchError::NotFound { .. } => {
            match listed.any_of_or(&["search_files", "list_directory_with_sizes"], "directory_tree")
            {
                Some(tools) => format!("Check the name with {tools}"),
                None => {
                    "Check the name; a relative path resolves against the first allowed directory"
                        .into()
                }
            }
        }
        SearchError::UnsafeIgnoreFile { .. } => {
            "Search with include_ignored=true (no rules read), or search a sub-directory".into()
        }
        SearchError::EmptyRegex => "Give a regex such as 'fn main' or 'TODO'".into(),
        SearchError::InvalidRegex {
            too_large: true, ..
        } => "Large counted repetitions such as a{1000}{1000} compile to huge automata; use a smaller count or a shorter literal".into(),
        SearchError::InvalidRegex { .. } => "The pattern is a Rust regex (ripgrep syntax) matched within one line (so no \\n); escape special characters like ( [ { . * + ? with a backslash, e.g. 'foo\\(' to find 'foo('".into(),
        SearchError::InvalidSectionPattern { .. } => "section_patterns use Rust regex syntax (no look-around or back-references); escape special characters like ( [ { with a backslash".into(),
        SearchError::InvalidGlob { reason: None, .. } => {
            "Use e.g. '*.rs' (file names at any depth) or 'src/**/*.rs' (paths under path)".into()
        }
        SearchError::InvalidGlob { .. } => "* matches within a name, ** any number of directories, ? one character, [abc] a set, {a,b} alternatives; escape a literal with a backslash".into(),
        SearchError::NoMatchesAllowed => "Give max_matches of 1 or more".into(),
        SearchError::NotADirectory { .. }
        | SearchError::NotSearchable { .. }
        | SearchError::Io { .. } => return None,
        _ => return None,
    })
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
    fn a_bad_pattern_gets_its_hint_as_the_next_step() {
        let bad = SearchError::InvalidGlob {
            pattern: "[a".into(),
            reason: Some("unclosed character class; missing ']'".into()),
        };
        assert_eq!(
            search_error(&bad, &ListedTools::default()),
            "Error: invalid glob '[a': unclosed character class; missing ']'. * matches within a name, ** any number of directories, ? one character, [abc] a set, {a,b} alternatives; escape a literal with a backslash."
        );
        let huge = SearchError::InvalidRegex {
            pattern: "a{1000}{1000}".into(),
            reason: "Compiled regex exceeds size limit of 10485760 bytes.".into(),
            too_large: true,
        };
        assert_eq!(
            search_error(&huge, &ListedTools::default()),
            "Error: regex 'a{1000}{1000}' is too large: Compiled regex exceeds size limit of 10485760 bytes. Large counted repetitions such as a{1000}{1000} compile to huge automata; use a smaller count or a shorter literal."
        );
    }
}
