//! `grep_content`: regex search of file contents, with section end hints.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use fs_mcp_search::{GrepControl, GrepOptions, Progress, ProgressFn};
use rmcp::handler::server::router::tool::ToolRoute;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ProgressNotificationParam};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, tool};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::context::FsServer;
use crate::lenient;
use crate::params::{
    CONTEXT_LINES, GREP_TIMEOUT, MAX_MATCHES, Param, SECTION_PATTERNS, dot, lean_schema,
};
use crate::render;
use crate::render::search::answer;
use crate::tools::reply::blocking;
use crate::tools::spec::{ResultBudget, ToolSpec};

/// What the server says about `grep_content`.
pub fn spec() -> ToolSpec {
    ToolSpec {
        result_budget: ResultBudget::ReplyCap,
        params: &[
            Param::Int(&CONTEXT_LINES),
            Param::List(&SECTION_PATTERNS),
            Param::Int(&MAX_MATCHES),
            Param::Int(&GREP_TIMEOUT),
        ],
        ..ToolSpec::new(
            "grep_content",
            "Regex search of file contents (ripgrep; skips .gitignored, hidden and binary files). For a match at line n with 'section end hint: L{m}', read_files start_line n, end_line m reads its block.",
        )
    }
}

pub(crate) fn route() -> ToolRoute<FsServer> {
    spec().route(FsServer::grep_content_tool_attr(), FsServer::grep_content)
}

#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = lean_schema)]
pub(crate) struct GrepContentParams {
    /// Rust regex, e.g. "fn main|TODO".
    pub pattern: String,
    #[serde(default = "dot")]
    pub search_path: String,
    #[serde(default, deserialize_with = "lenient::bool_or_default")]
    pub case_insensitive: bool,
    #[schemars(description = CONTEXT_LINES.description())]
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub context_lines: Option<i64>,
    #[schemars(description = SECTION_PATTERNS.description())]
    #[serde(default, deserialize_with = "section_list")]
    pub section_patterns: Option<Vec<String>>,
    #[schemars(description = MAX_MATCHES.description())]
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub max_matches: Option<i64>,
    #[serde(default, deserialize_with = "lenient::bool_or_default")]
    pub include_ignored: bool,
    #[serde(default, deserialize_with = "lenient::bool_or_default")]
    pub include_hidden: bool,
    #[schemars(description = GREP_TIMEOUT.description())]
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub timeout: Option<i64>,
}

impl FsServer {
    #[tool]
    async fn grep_content(
        &self,
        Parameters(p): Parameters<GrepContentParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let (sandbox, index) = (self.sandbox(), self.search_index());
        let mut options = GrepOptions::new(p.pattern);
        options.search_path = p.search_path;
        options.case_insensitive = p.case_insensitive;
        options.context_lines = CONTEXT_LINES.clamp_usize(p.context_lines);
        options.section_patterns = p.section_patterns;
        options.max_matches = MAX_MATCHES.clamp_usize(p.max_matches);
        options.include_ignored = p.include_ignored;
        options.include_hidden = p.include_hidden;
        options.timeout = Duration::from_secs(GREP_TIMEOUT.clamp_usize(p.timeout) as u64);

        // MCP cancellation stops the walk; the partial result is still returned.
        let cancel = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&cancel);
        let cancelled = context.ct.clone();
        let cancel_watch = tokio::spawn(async move {
            cancelled.cancelled().await;
            flag.store(true, Ordering::SeqCst);
        });
        let (progress, forwarding) = progress_forwarder(&context).unzip();
        let body = blocking(move || {
            // `--index`: the files that may match; a scan when the index cannot promise that.
            let plan = index.and_then(|index| index.plan(&sandbox, &options));
            let control = GrepControl {
                cancel: Some(&cancel),
                progress,
                candidates: plan.as_ref().and_then(|p| p.candidates()),
            };
            fs_mcp_search::grep_content(&sandbox, &options, &control, &render::search::GrepNotes)
        })
        .await;
        cancel_watch.abort();
        // The search is over, so the progress channel is closed: let the last notifications out
        // before the result, as clients expect.
        if let Some(forwarding) = forwarding {
            let _ = tokio::time::timeout(Duration::from_secs(2), forwarding).await;
        }
        Ok(answer(body?, self.listed_tools()))
    }
}

fn section_list<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    SECTION_PATTERNS.deserialize_opt(d)
}

/// Turns the search's progress callbacks into MCP progress notifications when the client asked
/// for them (sent a progress token). The task ends once the callback is dropped.
fn progress_forwarder(
    context: &RequestContext<RoleServer>,
) -> Option<(ProgressFn, tokio::task::JoinHandle<()>)> {
    let token = context.meta.get_progress_token()?;
    let peer = context.peer.clone();
    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel::<Progress>();
    let forwarding = tokio::spawn(async move {
        while let Some(progress) = receiver.recv().await {
            let note =
                ProgressNotificationParam::new(token.clone(), progress.files_searched as f64)
                    .with_message(format!(
                        "{} files searched, {} matches",
                        progress.files_searched, progress.matches
                    ));
            if peer.notify_progress(note).await.is_err() {
                break;
            }
        }
    });
    let callback: ProgressFn = Arc::new(move |progress: Progress| {
        let _ = sender.send(progress);
    });
    Some((callback, forwarding))
}
