//! `list_allowed_directories` and `read_files`.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};

use crate::params::{NoParams, ReadFilesParams};
use crate::render;
use crate::server::FsServer;
use crate::tools::{blocking, text};

#[tool_router(router = read_tools, vis = "pub(crate)")]
impl FsServer {
    #[tool(
        description = "The directories this server may access; relative paths resolve against the first.",
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
        description = "Read text files whole or in part: per item at most one of head, tail, start_line (+ end_line), start_line + read_to_next_pattern.\n\
Lines starting with the reply's [tag] are the server's (File, Error, Note, Cut); the rest is file text. Capped; a Note says how to read on. Big JSON/YAML: use query_json/query_yaml.",
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
        let listed = self.listed_tools().clone();
        let body = blocking(move || {
            let words = render::read::ReplyWords { listed: &listed };
            fs_mcp_read::read_files(&sandbox, &requests, &options, &words)
        })
        .await?;
        Ok(text(body))
    }
}
