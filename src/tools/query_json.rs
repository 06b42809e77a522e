//! `query_json`: jq over a JSON file (evaluated as src/tools/query.rs says).

use fs_mcp_query::InputFormat;
use rmcp::handler::server::router::tool::ToolRoute;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, tool};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::context::FsServer;
use crate::lenient;
use crate::params::{Param, QUERY_TIMEOUT, lean_schema};
use crate::tools::query::query_budget;
use crate::tools::spec::ToolSpec;

/// What the server says about `query_json`.
pub fn spec() -> ToolSpec {
    ToolSpec {
        params: &[Param::Int(&QUERY_TIMEOUT)],
        result_budget: query_budget(),
        ..ToolSpec::new(
            "query_json",
            format!(
                "Run jq on a JSON file instead of reading it: one compact JSON result per line, at most {}. Start with \"keys\" or \"length\".",
                fs_mcp_query::Limits::default().max_results
            ),
        )
    }
}

pub(crate) fn route() -> ToolRoute<FsServer> {
    spec().route(FsServer::query_json_tool_attr(), FsServer::query_json)
}

#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = lean_schema)]
pub(crate) struct QueryJsonParams {
    pub file_path: String,
    /// E.g. ".items[0:3]".
    pub jq_expression: String,
    #[schemars(description = QUERY_TIMEOUT.description())]
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub timeout: Option<i64>,
}

impl FsServer {
    #[tool]
    async fn query_json(
        &self,
        Parameters(p): Parameters<QueryJsonParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self
            .run_query(
                &p.file_path,
                p.jq_expression,
                InputFormat::Json,
                p.timeout,
                &context,
            )
            .await)
    }
}
