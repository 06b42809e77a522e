//! `query_yaml`: query_json for YAML files.

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

/// What the server says about `query_yaml`.
pub fn spec() -> ToolSpec {
    ToolSpec {
        params: &[Param::Int(&QUERY_TIMEOUT)],
        result_budget: query_budget(),
        ..ToolSpec::new(
            "query_yaml",
            "query_json for YAML files (1.2; anchors resolved; each document one input).",
        )
    }
}

pub(crate) fn route() -> ToolRoute<FsServer> {
    spec().route(FsServer::query_yaml_tool_attr(), FsServer::query_yaml)
}

#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = lean_schema)]
pub(crate) struct QueryYamlParams {
    pub file_path: String,
    /// jq syntax.
    pub yq_expression: String,
    #[schemars(description = QUERY_TIMEOUT.description())]
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub timeout: Option<i64>,
}

impl FsServer {
    #[tool]
    async fn query_yaml(
        &self,
        Parameters(p): Parameters<QueryYamlParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(self
            .run_query(
                &p.file_path,
                p.yq_expression,
                InputFormat::Yaml,
                p.timeout,
                &context,
            )
            .await)
    }
}
