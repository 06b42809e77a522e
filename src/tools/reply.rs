//! The shapes of a tool's result the tool files share (text, data, failure), and running
//! blocking work off the async runtime.

use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ContentBlock};

/// A successful text result.
pub fn text(body: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(body)])
}

/// A successful result carrying data: `data` as `structuredContent` (for clients that read it,
/// checked against the tool's output schema) and `body`, its text rendering, as the content
/// models read.
///
/// A `"$ref"` key in the data (a query result holding a JSON Schema) is escaped (`"$$ref"`) as
/// Gemini needs (rule R14 of docs/GEMINI_SCHEMA_CONTRACT.md); the text keeps it as it is.
pub fn structured(body: impl Into<String>, data: &impl serde::Serialize) -> CallToolResult {
    let mut result = text(body);
    result.structured_content = serde_json::to_value(data).ok().map(|mut value| {
        gemini_compat::escape_output_refs(&mut value);
        value
    });
    result
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
