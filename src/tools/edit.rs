//! What the editing tools share: the MRTR retry state, the shutdown guard of reviews, and how a
//! direct write's answer or error becomes a result.

use fs_mcp_edit::{EditError, Written};
use rmcp::RoleServer;
use rmcp::model::{CallToolResult, InputResponses};
use rmcp::service::RequestContext;

use crate::context::FsServer;
use crate::render::{self, ListedTools};

/// An MRTR retry of `tools/call` (2026-07-28): the state we handed out (the session_path) and
/// the client's answers, put in the request's extensions by `call_tool`.
#[derive(Debug, Clone)]
pub struct InputRetry {
    /// The state handed out with the form: the review's session path.
    pub request_state: String,
    /// The client's answers to the form.
    pub input_responses: InputResponses,
}

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

/// A direct write's answer, or its failure.
pub fn written_answer(result: Result<Written, EditError>, listed: &ListedTools) -> CallToolResult {
    match result {
        Ok(written) => render::edit::written(&written),
        Err(e) => render::edit::failure(&e, listed),
    }
}
