//! `list_directory`: a directory's entries, directories first.

use rmcp::handler::server::router::tool::ToolRoute;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};

use crate::params::PathParams;
use crate::render::listing::Listed;
use crate::context::FsServer;
use crate::tools::search::listing;
use crate::tools::spec::{LEAN_DEFAULT_SURFACE, ResultBudget, ToolSpec, ToolTier};

/// What the server says about `list_directory`.
pub fn spec() -> ToolSpec {
    ToolSpec {
        tier: ToolTier::AllOnly {
            why: LEAN_DEFAULT_SURFACE,
        },
        result_budget: ResultBudget::ReplyCap,
        ..ToolSpec::new(
            "list_directory",
            "A directory's entries as '[DIR] name' and '[FILE] name' lines, directories first.",
        )
    }
}

pub(crate) fn route() -> ToolRoute<FsServer> {
    spec().route(FsServer::list_directory_tool_attr(), FsServer::list_directory)
}

impl FsServer {
    #[tool]
    async fn list_directory(
        &self,
        Parameters(p): Parameters<PathParams>,
    ) -> Result<CallToolResult, ErrorData> {
        listing(self, p.path, Listed::text).await
    }
}
