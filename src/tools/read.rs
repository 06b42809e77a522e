//! `list_allowed_directories` and `read_files`.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};

use crate::params::{NoParams, ReadFilesParams};
use crate::server::FsServer;
use crate::tools::{blocking, text};

#[tool_router(router = read_tools, vis = "pub(crate)")]
impl FsServer {
    #[tool(
        description = "List the directories this server may read and write. Relative paths resolve against the first one.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
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

    #[tool(
        description = "Read one or more text files in one call: whole, or just the part you need.\n\
Each item: {\"path\": ...} plus at most one mode: head=N, tail=N, start_line (+ end_line), or start_line + read_to_next_pattern (reads up to the next line matching the regex, e.g. one function).\n\
Workflow that saves tokens: grep_content gives line numbers and a section end hint -> read_files with start_line/end_line.\n\
Output: one 'File: {path}' block per item, in order, separated by '---'. A failing item shows 'Error: ...' in its block; the others still succeed.\n\
Large JSON/YAML files are refused whole: query them with query_json/query_yaml (or set large_file_passthrough).",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn read_files(
        &self,
        Parameters(params): Parameters<ReadFilesParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let sandbox = self.sandbox();
        let options = fs_mcp_read::ReadOptions {
            large_file_passthrough: params.large_file_passthrough,
            example_queries: Some(crate::tools::query::example_queries),
            ..Default::default()
        };
        let requests: Vec<fs_mcp_read::ReadRequest> =
            params.files.into_iter().map(Into::into).collect();
        let body = blocking(move || fs_mcp_read::read_files(&sandbox, &requests, &options)).await?;
        Ok(text(body))
    }
}
