//! query_json and query_yaml: jq expressions over a file, evaluated in a child process of this
//! same binary (`fs-mcp-rs __query-worker`) so that a runaway query costs only its own call.

use std::path::Path;
use std::time::Duration;

use fs_mcp_query::{InputFormat, Limits, QueryRequest};
use fs_mcp_read::StructuredKind;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::lenient;
use crate::params::lean_schema;
use crate::render;
use crate::server::FsServer;
use crate::tools::{blocking, text};

/// The hidden subcommand that evaluates one query.
pub const WORKER_SUBCOMMAND: &str = "__query-worker";
const MAX_TIMEOUT_SECS: i64 = 600;

#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = lean_schema)]
pub struct QueryJsonParams {
    pub file_path: String,
    /// E.g. ".items[0:3]".
    pub jq_expression: String,
    /// Seconds. Default 30, at most 600.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub timeout: Option<i64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = lean_schema)]
pub struct QueryYamlParams {
    pub file_path: String,
    /// jq syntax.
    pub yq_expression: String,
    /// Seconds. Default 30, at most 600.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub timeout: Option<i64>,
}

#[tool_router(router = query_tools, vis = "pub(crate)")]
impl FsServer {
    #[tool(
        description = "Run jq on a JSON file instead of reading it: one compact JSON result per line, at most 100. Start with \"keys\" or \"length\".",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
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

    #[tool(
        description = "query_json for YAML files (1.2; anchors resolved; each document one input).",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
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

impl FsServer {
    async fn run_query(
        &self,
        file_path: &str,
        expression: String,
        format: InputFormat,
        timeout: Option<i64>,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResult {
        // The file is opened here, through the sandbox's handle walk, and the worker reads that
        // descriptor: nothing resolves the path again between the check and the read.
        let sandbox = self.sandbox();
        let requested = file_path.to_string();
        let opened = match blocking(move || sandbox.open_file(&requested)).await {
            Ok(Ok(opened)) => opened,
            Ok(Err(e)) => return render::sandbox::access_failure(&e, self.listed_tools()),
            Err(e) => return render::failure(&e.message, None),
        };
        let seconds = timeout
            .unwrap_or(fs_mcp_query::DEFAULT_TIMEOUT_SECS as i64)
            .clamp(1, MAX_TIMEOUT_SECS);
        let worker = match std::env::current_exe() {
            Ok(exe) => exe,
            Err(e) => {
                return render::failure(
                    format!("cannot locate the server binary to run the query: {e}"),
                    None,
                );
            }
        };
        let request = QueryRequest {
            file_path: opened.path,
            expression,
            format,
            limits: Limits::default(),
        };
        let cancelled = context.ct.clone();
        let result = fs_mcp_query::run_isolated(
            &worker,
            &[WORKER_SUBCOMMAND],
            request,
            opened.file,
            Duration::from_secs(seconds as u64),
            self.query_memory_limit(),
            async move { cancelled.cancelled().await },
        )
        .await;
        match result {
            Ok(answer) => text(render::query::answer_text(&answer)),
            Err(e) => render::query::query_failure(&e, self.listed_tools()),
        }
    }
}

/// Example queries for read_files' large-file guard, from the first bytes of the file (read by
/// read_files from the handle it opened; the path only gives the extension).
pub fn example_queries(path: &Path, kind: StructuredKind, head: &[u8]) -> Vec<String> {
    fs_mcp_query::example_queries(path, kind == StructuredKind::Yaml, head)
}
