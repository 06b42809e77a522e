//! Tool outcomes as the model reads them: the one error format for every tool, and next steps
//! that name only the tools this server lists. The crates return data and typed errors; the
//! sentences for the model are written here (one submodule per kind of outcome).

pub mod edit;
pub mod info;
pub mod listing;
pub mod query;
pub mod read;
pub mod sandbox;
pub mod search;
pub mod worklog;

use std::collections::BTreeSet;
use std::fmt::Display;
use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock};

/// The tools a server lists (after `--all`, `--read-only` and `--disable-tools`): a next step
/// names a tool only when the model can call it.
#[derive(Clone, Debug, Default)]
pub struct ListedTools {
    names: Arc<BTreeSet<String>>,
}

impl ListedTools {
    /// The listed tools, by name.
    pub fn new(names: impl IntoIterator<Item = String>) -> ListedTools {
        ListedTools {
            names: Arc::new(names.into_iter().collect()),
        }
    }

    /// Whether `tool` is listed.
    pub fn has(&self, tool: &str) -> bool {
        self.names.contains(tool)
    }

    /// The listed ones among `tools`, in the order given, joined with " or " (`None` when none
    /// is listed): "check the name with search_files or list_directory_with_sizes".
    pub fn any_of(&self, tools: &[&str]) -> Option<String> {
        let listed: Vec<&str> = tools.iter().copied().filter(|t| self.has(t)).collect();
        (!listed.is_empty()).then(|| listed.join(" or "))
    }

    /// [`any_of`](Self::any_of) `preferred`, or else `fallback` if it is listed: a next step
    /// names two tools at most, and a third only when neither of those can be called.
    pub fn any_of_or(&self, preferred: &[&str], fallback: &str) -> Option<String> {
        self.any_of(preferred)
            .or_else(|| self.has(fallback).then(|| fallback.to_string()))
    }
}

/// One failure as the model reads it: what went wrong, then (when there is one) the next step,
/// each a sentence. `Error: '<path>' does not exist. Check the name with search_files.`
pub fn error_text(what: impl Display, next_step: Option<&str>) -> String {
    let mut text = format!("Error: {what}");
    if !text.ends_with(['.', '!', '?']) {
        text.push('.');
    }
    if let Some(step) = next_step.filter(|s| !s.is_empty()) {
        text.push(' ');
        text.push_str(step);
        if !text.ends_with(['.', '!', '?']) {
            text.push('.');
        }
    }
    text
}

/// A failed call (`isError: true`) in the one error format ([`error_text`]).
pub fn failure(what: impl Display, next_step: Option<&str>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(error_text(what, next_step))])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_is_one_line_of_sentences() {
        assert_eq!(
            error_text(
                "'a.txt' does not exist",
                Some("Check the name with search_files")
            ),
            "Error: 'a.txt' does not exist. Check the name with search_files."
        );
        assert_eq!(error_text("timed out.", None), "Error: timed out.");
    }

    #[test]
    fn next_steps_name_only_listed_tools() {
        let listed = ListedTools::new(["search_files".to_string()]);
        assert_eq!(
            listed
                .any_of(&["search_files", "list_directory_with_sizes"])
                .as_deref(),
            Some("search_files")
        );
        assert_eq!(listed.any_of(&["directory_tree"]), None);
        let fallback_only = ListedTools::new(["directory_tree".to_string()]);
        assert_eq!(
            fallback_only
                .any_of_or(
                    &["search_files", "list_directory_with_sizes"],
                    "directory_tree"
                )
                .as_deref(),
            Some("directory_tree")
        );
        assert_eq!(
            listed
                .any_of_or(
                    &["search_files", "list_directory_with_sizes"],
                    "directory_tree"
                )
                .as_deref(),
            Some("search_files")
        );
    }
}
