//! `list_allowed_directories`: the directories this server may access.

use rmcp::handler::server::router::tool::ToolRoute;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};

use crate::params::NoParams;
use crate::context::FsServer;
use crate::tools::spec::ToolSpec;
use crate::tools::reply::text;

/// What the server says about `list_allowed_directories`.
pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "list_allowed_directories",
        "The directories this server may access; relative paths resolve against the first.",
    )
}

pub(crate) fn route() -> ToolRoute<FsServer> {
    spec().route(
        FsServer::list_allowed_directories_tool_attr(),
        FsServer::list_allowed_directories,
    )
}

impl FsServer {
    #[tool]
    async fn list_allowed_directories(
        &self,
        Parameters(_): Parameters<NoParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let sandbox = self.sandbox();
        let list = sandbox
            .roots()
            .iter()
            .map(|r| r.display().to_string())
            .collect::<Vec<_>>()
            .join("\n");
        Ok(text(list))
    }
}
