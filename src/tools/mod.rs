//! One module per tool group; each defines a `#[tool_router]` impl block on `FsServer`.

pub mod edit;
pub mod query;
pub mod read;
mod review;
pub mod search;
pub mod worklog;

use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ContentBlock};

/// A successful text result.
pub fn text(body: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(body)])
}

/// A failed call whose message the model reads (isError: true), e.g. a refused path.
pub fn failure(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

/// Runs blocking filesystem work off the async runtime, so other calls keep being served.
pub async fn blocking<T, F>(work: F) -> Result<T, ErrorData>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ErrorData::internal_error(format!("tool task failed: {e}"), None))
}
