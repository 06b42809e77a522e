//! `analyze_gsd_work_log`: a GSD-Lite work log's entries, sizes and supersession signals.

use std::io::BufReader;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::server::FsServer;
use crate::tools::{blocking, failure, text};

#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum WorkLogFormat {
    /// The summary and every log as JSON.
    #[default]
    Json,
    /// A markdown table, then the tier-1 flags per log.
    Table,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct AnalyzeWorkLogParams {
    /// The work log, relative to the first allowed directory. Default "gsd-lite/WORK.md".
    #[serde(default)]
    pub file_path: Option<String>,
    /// "json" (default) or "table".
    #[serde(default)]
    pub output_format: Option<WorkLogFormat>,
}

#[tool_router(router = worklog_tools, vis = "pub(crate)")]
impl FsServer {
    #[tool(
        description = "Analyze a GSD-Lite work log (markdown with '### [LOG-NNN] - [TYPE] - title - Task: ID' headers): per log its type, task, line range and size in tokens (cl100k, counted offline), and signals that it may be superseded. Tier 1 (strikethrough or SUPERSEDED BY in the header, [DEPRECATED], 'do not follow', status obsolete, killed/scrapped) are strong; tier 2 (depends on, supersedes, replaces, pivot, hit a wall, decided not to, options evaluated) are hints. Code spans and fenced blocks are ignored. Read a flagged log with read_files start_line/end_line from its 'lines'.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn analyze_gsd_work_log(
        &self,
        Parameters(p): Parameters<AnalyzeWorkLogParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let sandbox = self.sandbox();
        let path = p
            .file_path
            .filter(|p| !p.trim().is_empty())
            .unwrap_or_else(|| fs_mcp_worklog::DEFAULT_PATH.to_string());
        let format = p.output_format.unwrap_or_default();
        blocking(move || {
            let opened = match sandbox.open_file(&path) {
                Ok(opened) => opened,
                Err(e) => return failure(e.to_string()),
            };
            let shown = sandbox.display(&opened.path);
            match fs_mcp_worklog::analyze(BufReader::new(opened.file)) {
                Ok(analysis) if format == WorkLogFormat::Table => {
                    text(fs_mcp_worklog::render_table(&analysis, &shown))
                }
                Ok(analysis) => text(fs_mcp_worklog::render_json(&analysis, &shown)),
                Err(e) if e.kind() == std::io::ErrorKind::InvalidData => failure(format!(
                    "'{shown}' is not UTF-8 text; analyze_gsd_work_log reads markdown work logs."
                )),
                Err(e) => failure(format!("Cannot read '{shown}': {e}")),
            }
        })
        .await
    }
}
