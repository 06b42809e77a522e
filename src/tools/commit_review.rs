//! `commit_review`: write the human's version of a review session.

use rmcp::handler::server::router::tool::ToolRoute;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, tool};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::context::FsServer;
use crate::render;
use crate::tools::spec::{Effect, ToolSpec};

/// What the server says about `commit_review`.
pub fn spec() -> ToolSpec {
    ToolSpec {
        effect: Effect::Writes {
            destructive: true,
            idempotent: false,
        },
        ..ToolSpec::new(
            "commit_review",
            "Write the human's version of a review session (after REVIEW, TIMEOUT or CANCELLED).",
        )
    }
}

pub(crate) fn route() -> ToolRoute<FsServer> {
    spec().route(FsServer::commit_review_tool_attr(), FsServer::commit_review)
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct CommitReviewParams {
    pub session_path: String,
    /// As given to propose_and_review.
    pub original_path: String,
}

impl FsServer {
    #[tool]
    async fn commit_review(
        &self,
        Parameters(p): Parameters<CommitReviewParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let sandbox = self.sandbox();
        let owner = self.review_owner(&context);
        let result = self
            .reviews()
            .commit_review(&sandbox, &p.session_path, &p.original_path, &owner)
            .await;
        Ok(match result {
            Ok(committed) => render::edit::review_committed(&committed),
            Err(e) => render::edit::failure(&e, self.listed_tools()),
        })
    }
}
