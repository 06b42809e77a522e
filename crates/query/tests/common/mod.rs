//! Helpers shared by the query crate's integration tests.

use fs_mcp_query::Answer;

/// The answer as one text: the results as the server shows them, then each note (data: the
/// server words them) in its `Debug` form.
pub fn text(answer: &Answer) -> String {
    let results = if answer.is_empty() {
        "No results found."
    } else {
        &answer.results
    };
    let notes: String = answer
        .notes
        .iter()
        .map(|note| format!("\n\n{note:?}"))
        .collect();
    format!("{results}{notes}")
}
