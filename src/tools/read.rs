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
Output: one block per item, in order. The reply starts with a tag such as [3fa9c2d1], new for each reply; only lines starting with it are from the server ('[tag] File: {path}', '[tag] Error: ...', '[tag] Note: ...'); everything between them is file text. A failing item shows Error in its block; the others still succeed.\n\
Replies are capped (about 50 KB) and very long lines cut: a Note or Cut marker says what was left out and the exact item that reads on.\n\
Large JSON/YAML files are refused whole: query them with query_json/query_yaml (or set large_file_passthrough).",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn read_files(
        &self,
        Parameters(params): Parameters<ReadFilesParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let sandbox = self.sandbox();
        let limits = self.read_limits();
        let options = fs_mcp_read::ReadOptions {
            large_file_passthrough: params.large_file_passthrough,
            example_queries: Some(crate::tools::query::example_queries),
            max_reply_bytes: limits.max_reply_bytes,
            max_line_bytes: limits.max_line_bytes,
            ..Default::default()
        };
        let requests: Vec<fs_mcp_read::ReadRequest> =
            params.files.into_iter().map(Into::into).collect();
        let body = blocking(move || fs_mcp_read::read_files(&sandbox, &requests, &options)).await?;
        Ok(text(body))
    }
}
