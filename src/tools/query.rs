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
use crate::server::FsServer;
use crate::tools::{blocking, failure, text};

/// The hidden subcommand that evaluates one query.
pub const WORKER_SUBCOMMAND: &str = "__query-worker";
const MAX_TIMEOUT_SECS: i64 = 600;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct QueryJsonParams {
    /// The JSON file, relative to the first allowed directory.
    pub file_path: String,
    /// jq expression, e.g. "keys", ".items[0:5]", ".items[] | select(.status == \"open\") | .id". May span lines and hold # comments.
    pub jq_expression: String,
    /// Seconds before the query is stopped. Default 30.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub timeout: Option<i64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct QueryYamlParams {
    /// The YAML file (several documents are several inputs), relative to the first allowed directory.
    pub file_path: String,
    /// jq expression (yq syntax is jq syntax), e.g. "keys", ".services | keys", ".spec.containers[].image".
    pub yq_expression: String,
    /// Seconds before the query is stopped. Default 30.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub timeout: Option<i64>,
}

#[tool_router(router = query_tools, vis = "pub(crate)")]
impl FsServer {
    #[tool(
        description = "Query a JSON file with a jq expression instead of reading it (no jq needed; key order kept). Output: one compact JSON result per line, the first 100 results then a note on how to slice (.items[100:200]); a lone result is followed by the line '(1 result)'; 'No results found.' when nothing (or only null) comes out.\n\
Start with \"keys\" or \"length\", then narrow: \".items[0:3]\", \".items[] | select(.id == 7)\", \"[.items[].name] | unique\".",
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
        description = "Query a YAML file with a jq expression (YAML 1.2: 'no' stays a string; anchors and merge keys resolved; each document of a multi-document file is one input). Same output as query_json: compact JSON, one result per line, at most 100; a lone result is followed by '(1 result)'.",
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
            Ok(Err(e)) => return failure(e.to_string()),
            Err(e) => return failure(e.message.to_string()),
        };
        let seconds = timeout
            .unwrap_or(fs_mcp_query::DEFAULT_TIMEOUT_SECS as i64)
            .clamp(1, MAX_TIMEOUT_SECS);
        let worker = match std::env::current_exe() {
            Ok(exe) => exe,
            Err(e) => {
                return failure(format!(
                    "cannot locate the server binary to run the query: {e}"
                ));
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
            Ok(body) => text(mark_single_result(body)),
            Err(e) => failure(e.to_string()),
        }
    }
}

/// fs-mcp-query's whole output when nothing comes out.
const NO_RESULTS: &str = "No results found.";

/// What a lone result is followed by.
pub const SINGLE_RESULT_NOTE: &str = "(1 result)";

/// Ends an output of exactly one result with a count line. Some clients (Gemini CLI) take a
/// text result that parses as JSON for structured content and then refuse anything but an
/// object, so a lone `3`, `["a","b"]` or `"x"` would fail the call there. With the note, no
/// output is a bare JSON value, and every client shows the same text.
fn mark_single_result(mut body: String) -> String {
    // Each result is one compact line; notes (truncation, errors, debug output) add lines.
    if !body.contains('\n') && body != NO_RESULTS {
        body.push('\n');
        body.push_str(SINGLE_RESULT_NOTE);
    }
    body
}

/// Example queries for read_files' large-file guard, from the first bytes of the file (read by
/// read_files from the handle it opened; the path only gives the extension).
pub fn example_queries(path: &Path, kind: StructuredKind, head: &[u8]) -> Vec<String> {
    fs_mcp_query::example_queries(path, kind == StructuredKind::Yaml, head)
}
