//! `append_text`: append text to a file without review (`--all` tier).

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

/// What the server says about `append_text`.
pub fn spec() -> ToolSpec {
    ToolSpec {
        effect: Effect::Writes {
            destructive: false,
            idempotent: false,
        },
        tier: ToolTier::AllOnly {
            why: WRITES_WITHOUT_REVIEW,
        },
        ..ToolSpec::new(
            "append_text",
            "Append text to a file without review (--all tier).",
        )
    }
}

pub(crate) fn route() -> ToolRoute<FsServer> {
    spec().route(FsServer::append_text_tool_attr(), FsServer::append_text)
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct AppendParams {
    /// Created if missing.
    pub path: String,
    /// Starts on a new line.
    pub content: String,
}

impl FsServer {
    #[tool]
    async fn append_text(
        &self,
        Parameters(p): Parameters<AppendParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let sandbox = self.sandbox();
        let result =
            blocking(move || fs_mcp_edit::tier_tools::append_text(&sandbox, &p.path, &p.content))
                .await?;
        Ok(written_answer(result, self.listed_tools()))
    }
}
