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

/// The `_meta` key where Claude Code reads how long (in characters) a tool's result may be before
/// it saves the result to a file and shows the model a 2 KB preview instead.
pub const RESULT_SIZE_KEY: &str = "anthropic/maxResultSizeChars";
/// What Claude Code keeps inline when a tool says nothing: saying it again would change nothing
/// and cost tokens on every request.
pub const CLIENT_DEFAULT_RESULT_CHARS: usize = 50_000;
/// The most Claude Code honours for [`RESULT_SIZE_KEY`].
pub const RESULT_SIZE_CEILING: usize = 500_000;
/// Room for the notes a query adds after its output cap.
const QUERY_NOTE_ROOM: usize = 1_024;

/// The result budget said to clients, for tools whose results can be large: the reply cap
/// (`--max-reply-bytes`; bytes, so at least as many characters), or the tool's own larger cap,
/// at most [`RESULT_SIZE_CEILING`]. `None` for tools whose results stay small, and where the
/// budget is no more than a client assumes anyway ([`CLIENT_DEFAULT_RESULT_CHARS`]).
pub fn result_budget(tool: &str, read_limits: crate::server::ReadLimits) -> Option<usize> {
    let own_cap = match tool {
        "query_json" | "query_yaml" => {
            fs_mcp_query::Limits::default().max_output_bytes + QUERY_NOTE_ROOM
        }
        "read_files"
        | "grep_content"
        | "directory_tree"
        | "list_directory"
        | "list_directory_with_sizes"
        | "analyze_gsd_work_log" => 0,
        _ => return None,
    };
    let budget = read_limits
        .max_reply_bytes
        .max(own_cap)
        .min(RESULT_SIZE_CEILING);
    (budget > CLIENT_DEFAULT_RESULT_CHARS).then_some(budget)
}

/// The tool's `_meta` with its result budget, if it has one.
pub fn result_budget_meta(
    tool: &str,
    read_limits: crate::server::ReadLimits,
) -> Option<rmcp::model::MetaObject> {
    let budget = result_budget(tool, read_limits)?;
    let mut meta = rmcp::model::JsonObject::new();
    meta.insert(RESULT_SIZE_KEY.into(), budget.into());
    Some(rmcp::model::MetaObject(meta))
}
