//! What the editing tools share: the MRTR retry state, the shutdown guard of reviews, and how an
//! edit's answer or error becomes a result.

use fs_mcp_edit::EditError;
use rmcp::RoleServer;
use rmcp::model::{CallToolResult, InputResponses};
use rmcp::service::RequestContext;

use crate::server::FsServer;
use crate::tools::{failure, text};

/// An MRTR retry of `tools/call` (2026-07-28): the state we handed out (the session_path) and
/// the client's answers, put in the request's extensions by `call_tool`.
#[derive(Debug, Clone)]
pub struct InputRetry {
    pub request_state: String,
    pub input_responses: InputResponses,
}

pub const SHUTTING_DOWN: &str = "The server is shutting down; no new review is started. Call propose_and_review again once it runs again.";

impl FsServer {
    /// Completes when the call is cancelled or the server shuts down.
    pub(crate) fn cancelled(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> impl Future<Output = ()> + Send + 'static {
        let cancelled = context.ct.clone();
        let shutdown = self.shutdown_token().clone();
        async move {
            tokio::select! {
                () = cancelled.cancelled() => {}
                () = shutdown.cancelled() => {}
            }
        }
    }

    /// A token held while a review runs, or `None` once the server is shutting down.
    pub(crate) fn review_slot(&self) -> Option<tokio_util::task::task_tracker::TaskTrackerToken> {
        let tracker = self.reviews_in_progress();
        (!tracker.is_closed() && !self.shutdown_token().is_cancelled()).then(|| tracker.token())
    }
}

pub fn edit_answer(result: Result<String, EditError>) -> CallToolResult {
    match result {
        Ok(body) => text(body),
        Err(e) => failure(e.to_string()),
    }
}
