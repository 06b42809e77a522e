//! `list_directory_with_sizes`: a directory's entries with sizes and totals.

use rmcp::handler::server::router::tool::ToolRoute;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};

use crate::params::PathParams;
use crate::render::listing::Listed;
use crate::context::FsServer;
use crate::tools::search::listing;
use crate::tools::spec::{ResultBudget, ToolSpec};

/// What the server says about `list_directory_with_sizes`.
pub fn spec() -> ToolSpec {
    ToolSpec {
        result_budget: ResultBudget::ReplyCap,
        ..ToolSpec::new(
            "list_directory_with_sizes",
            "A directory's entries with sizes and totals, directories first.",
        )
    }
}

pub(crate) fn route() -> ToolRoute<FsServer> {
    spec().route(
        FsServer::list_directory_with_sizes_tool_attr(),
        FsServer::list_directory_with_sizes,
    )
}

impl FsServer {
    #[tool]
    async fn list_directory_with_sizes(
        &self,
        Parameters(p): Parameters<PathParams>,
    ) -> Result<CallToolResult, ErrorData> {
        listing(self, p.path, Listed::text_with_sizes).await
    }
}
