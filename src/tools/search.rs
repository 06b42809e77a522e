//! What the search and navigation tools share: how a search answer or error becomes a result.

use fs_mcp_search::SearchError;
use rmcp::model::CallToolResult;

use crate::tools::{failure, text};

/// A search answer, or the error the model reads.
pub fn answer(result: Result<String, SearchError>) -> CallToolResult {
    match result {
        Ok(body) => text(body),
        Err(e) => failure(e.to_string()),
    }
}
