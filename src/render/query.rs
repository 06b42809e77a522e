//! `query_json`'s and `query_yaml`'s outcomes as the model reads them: the answer (with "no
//! results" and a lone result said in words) and the errors, with next steps naming only listed
//! tools.

use fs_mcp_query::{Answer, QueryError};
use rmcp::model::CallToolResult;

use super::{ListedTools, failure};

/// What an answer without results reads.
pub const NO_RESULTS: &str = "No results found.";

/// What a lone result is followed by.
pub const SINGLE_RESULT_NOTE: &str = "(1 result)";

/// The answer as text: the results (or [`NO_RESULTS`]), then the notes. A lone result with
/// nothing after it is followed by [`SINGLE_RESULT_NOTE`]: some clients (Gemini CLI) take a
/// text result that parses as JSON for structured content and then refuse anything but an
/// object, so a lone `3`, `["a","b"]` or `"x"` would fail the call there. With the note, no
/// output is a bare JSON value, and every client shows the same text.
pub fn answer_text(answer: &Answer) -> String {
    let mut text = if answer.is_empty() {
        NO_RESULTS.to_string()
    } else {
        answer.results.clone()
    };
    text.push_str(&answer.notes);
    if answer.shown == 1 && answer.notes.is_empty() {
        text.push('\n');
        text.push_str(SINGLE_RESULT_NOTE);
    }
    text
}

/// The next step after `error`, if there is one to give.
pub fn next_step(error: &QueryError, listed: &ListedTools) -> Option<String> {
    match error {
        QueryError::InputLooksLikeYaml(_) => listed
            .any_of(&["query_yaml"])
            .map(|tool| format!("Query it with {tool}")),
        QueryError::Timeout(_) => Some(
            "Simplify the query or narrow it to part of the file (e.g. `.items[0:100]`), or give a longer timeout (at most 600 seconds)"
                .into(),
        ),
        QueryError::MemoryLimit(_) => {
            Some("Narrow the query to part of the file, e.g. `keys` or `.items[0:5]`".into())
        }
        QueryError::Cancelled => None,
        _ => None,
    }
}

/// A failed query in the one error format.
pub fn query_failure(error: &QueryError, listed: &ListedTools) -> CallToolResult {
    failure(error, next_step(error, listed).as_deref())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::render::error_text;

    fn answer(results: &str, shown: usize, notes: &str) -> Answer {
        Answer {
            results: results.into(),
            shown,
            notes: notes.into(),
        }
    }

    #[test]
    fn no_results_and_a_lone_result_are_said() {
        assert_eq!(answer_text(&answer("", 0, "")), "No results found.");
        assert_eq!(answer_text(&answer("3", 1, "")), "3\n(1 result)");
        assert_eq!(answer_text(&answer("1\n2", 2, "")), "1\n2");
        let cut = "\n\n--- Truncated. ---";
        assert_eq!(answer_text(&answer("[1,…", 1, cut)), format!("[1,…{cut}"));
        let debug = "\n\n--- debug/stderr output ---\nx";
        assert_eq!(
            answer_text(&answer("", 0, debug)),
            format!("No results found.{debug}")
        );
    }

    #[test]
    fn yaml_in_query_json_points_to_query_yaml_when_listed() {
        let e = QueryError::InputLooksLikeYaml(
            "The file is not valid JSON: x at line 1, column 5.".into(),
        );
        let listed = ListedTools::new(["query_yaml".to_string()]);
        assert_eq!(
            error_text(&e, next_step(&e, &listed).as_deref()),
            "Error: The file is not valid JSON: x at line 1, column 5. It looks like YAML. Query it with query_yaml."
        );
        assert_eq!(
            error_text(&e, next_step(&e, &ListedTools::default()).as_deref()),
            "Error: The file is not valid JSON: x at line 1, column 5. It looks like YAML."
        );
    }

    #[test]
    fn a_timeout_says_what_to_do() {
        let e = QueryError::Timeout(Duration::from_secs(2));
        assert!(
            error_text(&e, next_step(&e, &ListedTools::default()).as_deref())
                .starts_with("Error: Query timed out after 2 seconds. Simplify the query")
        );
    }
}
