//! What the search and navigation tools share: how a search answer given as data becomes a
//! result (errors rendered by `crate::render::search`).

use fs_mcp_search::SearchError;
use rmcp::model::CallToolResult;

use crate::context::FsServer;
use crate::render::listing::Listed;
use crate::render::{self, ListedTools};
use crate::tools::reply::{blocking, structured};

/// A search answer as data: its text rendering as content and the data as `structuredContent`,
/// or the call's failure in the one error format.
pub fn structured_answer<T: serde::Serialize>(
    result: Result<T, SearchError>,
    to_text: impl FnOnce(&T) -> String,
    listed: &ListedTools,
) -> CallToolResult {
    match result {
        Ok(data) => structured(to_text(&data), &data),
        Err(e) => render::search::failure(&e, listed),
    }
}

/// `list_directory` and `list_directory_with_sizes`: the same listing, told by `to_text`.
pub async fn listing(
    server: &FsServer,
    path: String,
    to_text: fn(&Listed) -> String,
) -> Result<CallToolResult, rmcp::ErrorData> {
    let sandbox = server.sandbox();
    let listing = blocking(move || fs_mcp_search::list_entries(&sandbox, &path)).await?;
    Ok(structured_answer(
        listing.map(Listed::from),
        to_text,
        server.listed_tools(),
    ))
}
