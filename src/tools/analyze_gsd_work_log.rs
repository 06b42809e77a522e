//! `analyze_gsd_work_log`: a GSD-Lite work log's entries, sizes and supersession signals.

use std::io::BufReader;

use rmcp::handler::server::router::tool::ToolRoute;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::context::FsServer;
use crate::render;
use crate::tools::reply::{blocking, structured};
use crate::tools::spec::{ResultBudget, ToolSpec};

/// What the server says about `analyze_gsd_work_log`.
pub fn spec() -> ToolSpec {
    ToolSpec {
        result_budget: ResultBudget::ReplyCap,
        ..ToolSpec::new(
            "analyze_gsd_work_log",
            "Analyze a GSD-Lite work log (### [LOG-NNN] headers): per log its type, task, lines, cl100k tokens and signs it is superseded (tier 1 strong, tier 2 hints).",
        )
    }
}

pub(crate) fn route() -> ToolRoute<FsServer> {
    spec().route(
        FsServer::analyze_gsd_work_log_tool_attr(),
        FsServer::analyze_gsd_work_log,
    )
}

#[derive(Debug, Clone, Copy, Default, Deserialize, Serialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub(crate) enum WorkLogFormat {
    // The summary and every log as JSON (plain comments: docs/tools.md describes both formats).
    #[default]
    Json,
    // A markdown table, then the tier-1 flags per log.
    Table,
}

impl WorkLogFormat {
    /// The name a call sends (serde's, so the listed default cannot differ from it).
    fn name(self) -> String {
        match serde_json::to_value(self) {
            Ok(serde_json::Value::String(name)) => name,
            _ => format!("{self:?}"),
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct AnalyzeWorkLogParams {
    #[schemars(description = format!("Default {:?}.", fs_mcp_worklog::DEFAULT_PATH))]
    #[serde(default)]
    pub file_path: Option<String>,
    #[schemars(description = format!("Default {}.", WorkLogFormat::default().name()))]
    #[serde(default)]
    pub output_format: Option<WorkLogFormat>,
}

impl FsServer {
    #[tool]
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
        let listed = self.listed_tools().clone();
        blocking(move || {
            let opened = match sandbox.open_file(&path) {
                Ok(opened) => opened,
                Err(e) => return render::sandbox::access_failure(&e, &listed),
            };
            let shown = sandbox.display(&opened.path);
            match fs_mcp_worklog::analyze(BufReader::new(opened.file)) {
                Ok(analysis) => {
                    let data = render::worklog::to_json(&analysis, &shown);
                    let body = match format {
                        WorkLogFormat::Table => render::worklog::render_table(&analysis, &shown),
                        WorkLogFormat::Json => render::worklog::render_json(&analysis, &shown),
                    };
                    structured(body, &data)
                }
                Err(e) if e.kind() == std::io::ErrorKind::InvalidData => render::failure(
                    format!("'{shown}' is not UTF-8 text"),
                    Some("Give the path of a markdown work log (### [LOG-NNN] headers)"),
                ),
                Err(e) => render::failure(format!("Cannot read '{shown}': {e}"), None),
            }
        })
        .await
    }
}
