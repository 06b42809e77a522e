//! `create_directory`: mkdir -p.

use rmcp::handler::server::router::tool::ToolRoute;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};

use crate::params::PathParams;
use crate::context::FsServer;
use crate::tools::spec::{Effect, ToolSpec};
use crate::tools::reply::blocking;

/// What the server says about `create_directory`.
pub fn spec() -> ToolSpec {
    ToolSpec {
        effect: Effect::Writes {
            destructive: false,
            idempotent: true,
        },
        ..ToolSpec::new(
            "create_directory",
            "Create a directory with any missing parents (mkdir -p).",
        )
    }
}

pub(crate) fn route() -> ToolRoute<FsServer> {
    spec().route(FsServer::create_directory_tool_attr(), FsServer::create_directory)
}

impl FsServer {
    #[tool]
    async fn create_directory(
        &self,
        Parameters(p): Parameters<PathParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let sandbox = self.sandbox();
        let body = blocking(move || fs_mcp_edit::create_directory(&sandbox, &p.path)).await?;
        Ok(match body {
            Ok(written) => crate::render::edit::written(&written),
            Err(e) => crate::render::edit::failure(&e, self.listed_tools()),
        })
    }
}
