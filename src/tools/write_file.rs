//! `write_file`: create or replace a file without review (`--all` tier).

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

/// What the server says about `write_file`.
pub fn spec() -> ToolSpec {
    ToolSpec {
        effect: Effect::Writes {
            destructive: true,
            idempotent: true,
        },
        tier: ToolTier::AllOnly {
            why: WRITES_WITHOUT_REVIEW,
        },
        ..ToolSpec::new(
            "write_file",
            "Create or replace a file, atomically, without review (--all tier). Prefer propose_and_review when a human should see the change.",
        )
    }
}

pub(crate) fn route() -> ToolRoute<FsServer> {
    spec().route(FsServer::write_file_tool_attr(), FsServer::write_file)
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct WriteParams {
    /// Missing parent directories are created.
    pub path: String,
    pub content: String,
}

impl FsServer {
    #[tool]
    async fn write_file(
        &self,
        Parameters(p): Parameters<WriteParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let sandbox = self.sandbox();
        let result =
            blocking(move || fs_mcp_edit::tier_tools::write_file(&sandbox, &p.path, &p.content))
                .await?;
        Ok(written_answer(result, self.listed_tools()))
    }
}
