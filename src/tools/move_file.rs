//! `move_file`: move or rename a file or directory (`--all` tier).

use rmcp::handler::server::router::tool::ToolRoute;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::context::FsServer;
use crate::tools::edit::written_answer;
use crate::tools::spec::{Effect, ToolSpec, ToolTier, WRITES_WITHOUT_REVIEW};
use crate::tools::reply::blocking;

/// What the server says about `move_file`.
pub fn spec() -> ToolSpec {
    ToolSpec {
        effect: Effect::Writes {
            destructive: true,
            idempotent: false,
        },
        tier: ToolTier::AllOnly {
            why: WRITES_WITHOUT_REVIEW,
        },
        ..ToolSpec::new(
            "move_file",
            "Move or rename a file or directory (--all tier).",
        )
    }
}

pub(crate) fn route() -> ToolRoute<FsServer> {
    spec().route(FsServer::move_file_tool_attr(), FsServer::move_file)
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct MoveParams {
    pub source: String,
    /// Must not exist yet.
    pub destination: String,
}

impl FsServer {
    #[tool]
    async fn move_file(
        &self,
        Parameters(p): Parameters<MoveParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let sandbox = self.sandbox();
        let result = blocking(move || {
            fs_mcp_edit::tier_tools::move_file(&sandbox, &p.source, &p.destination)
        })
        .await?;
        Ok(written_answer(result, self.listed_tools()))
    }
}
