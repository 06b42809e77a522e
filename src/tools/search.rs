//! What the search and navigation tools share: how a search answer or error becomes a result.

use fs_mcp_search::SearchError;
use rmcp::model::CallToolResult;

use crate::tools::{failure, structured, text};

/// A search answer, or the error the model reads.
pub fn answer(result: Result<String, SearchError>) -> CallToolResult {
    match result {
        Ok(body) => text(body),
        Err(e) => failure(e.to_string()),
    }
}

/// A search answer as data: its text rendering as content and the data as `structuredContent`
/// (for tools with an output schema), or the error the model reads.
pub fn structured_answer<T: serde::Serialize>(
    result: Result<T, SearchError>,
    to_text: impl FnOnce(&T) -> String,
) -> CallToolResult {
    match result {
        Ok(data) => structured(to_text(&data), &data),
        Err(e) => failure(e.to_string()),
    }
}
