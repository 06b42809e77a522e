//! Editing: propose_and_review / commit_review (human-reviewed), and the `--all` tier's direct
//! writes write_file / append_text / move_file.

use fs_mcp_edit::{EditError, EditSpec, ProposeRequest, Staged, Written};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResponse, CallToolResult, InputResponses};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::{self, Deserializer};
use serde_json::Value;

use crate::lenient;
use crate::params::lean_schema;
use crate::render::{self, ListedTools};
use crate::server::FsServer;
use crate::tools::blocking;
use crate::tools::review;

// One replacement of a batch (a plain comment: the listed schema carries no description of it).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct EditParam {
    /// This edit's file, if not `path`.
    #[serde(default)]
    pub path: Option<String>,
    pub match_text: String,
    pub new_string: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = lean_schema)]
pub struct ProposeParams {
    pub path: String,
    /// At most 2,000 characters unless bypass_match_text_limit.
    #[serde(default)]
    pub match_text: String,
    #[serde(default)]
    pub new_string: String,
    /// How often match_text must occur. Default 1.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub expected_replacements: Option<i64>,
    /// From a REVIEW/PENDING/TIMEOUT/CANCELLED reply. Alone: wait for the verdict; with an edit: edit the human's version.
    #[serde(default)]
    pub session_path: Option<String>,
    /// Instead of match_text/new_string, in order; all written or none.
    #[serde(default, deserialize_with = "edit_list")]
    pub edits: Option<Vec<EditParam>>,
    #[serde(default, deserialize_with = "lenient::bool_or_default")]
    pub bypass_match_text_limit: bool,
}

fn edit_list<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<EditParam>>, D::Error> {
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(v) => lenient::list_of(v).map(Some).map_err(de::Error::custom),
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CommitReviewParams {
    pub session_path: String,
    /// As given to propose_and_review.
    pub original_path: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct WriteParams {
    /// Missing parent directories are created.
    pub path: String,
    pub content: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct AppendParams {
    /// Created if missing.
    pub path: String,
    /// Starts on a new line.
    pub content: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct MoveParams {
    pub source: String,
    /// Must not exist yet.
    pub destination: String,
}

/// An MRTR retry of `tools/call` (2026-07-28): the state we handed out (the session_path) and
/// the client's answers, put in the request's extensions by `call_tool`.
#[derive(Debug, Clone)]
pub struct InputRetry {
    pub request_state: String,
    pub input_responses: InputResponses,
}

impl FsServer {
    /// Completes when the call is cancelled or the server shuts down.
    fn cancelled(
        &self,
        context: &RequestContext<RoleServer>,
    ) -> impl Future<Output = ()> + Send + 'static {
        let cancelled = context.ct.clone();
        let shutdown = self.shutdown_token().clone();
        async move {
            tokio::select! {
                () = cancelled.cancelled() => {}
                () = shutdown.cancelled() => {}
            }
        }
    }

    /// A token held while a review runs, or `None` once the server is shutting down.
    fn review_slot(&self) -> Option<tokio_util::task::task_tracker::TaskTrackerToken> {
        let tracker = self.reviews_in_progress();
        (!tracker.is_closed() && !self.shutdown_token().is_cancelled()).then(|| tracker.token())
    }
}

fn written_answer(result: Result<Written, EditError>, listed: &ListedTools) -> CallToolResult {
    match result {
        Ok(written) => render::edit::written(&written),
        Err(e) => render::edit::failure(&e, listed),
    }
}

impl From<ProposeParams> for ProposeRequest {
    fn from(p: ProposeParams) -> Self {
        ProposeRequest {
            path: p.path,
            match_text: p.match_text,
            new_string: p.new_string,
            expected_replacements: p
                .expected_replacements
                .map_or(1, |n| u32::try_from(n.max(0)).unwrap_or(u32::MAX)),
            session_path: p.session_path.filter(|s| !s.is_empty()),
            edits: p.edits.filter(|e| !e.is_empty()).map(|edits| {
                edits
                    .into_iter()
                    .map(|e| {
                        let spec = EditSpec::new(e.match_text, e.new_string);
                        match e.path.filter(|p| !p.trim().is_empty()) {
                            Some(path) => spec.in_file(path),
                            None => spec,
                        }
                    })
                    .collect()
            }),
            bypass_match_text_limit: p.bypass_match_text_limit,
        }
    }
}

#[tool_router(router = edit_tools, vis = "pub(crate)")]
impl FsServer {
    #[tool(
        description = "Propose an edit; the human reviews the diff (in the client's form, an editor or a browser page) and you get the verdict.\n\
match_text (exact) -> new_string; match_text \"\" creates the file, \"OVERWRITE_FILE\" replaces it, \"APPEND_TO_FILE\" appends. Several: edits, each may name its own path.\n\
JSON user_action: COMMITTED (written); REJECTED (see user_comment); REVIEW (the human edited it: user_feedback_diff; continue with session_path); PENDING (give the human the link in message, then call with path and session_path only to collect the verdict); TIMEOUT/CANCELLED (resume with session_path). Only COMMITTED writes. \"Error: Conflict\": the file changed; re-read it, propose again.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn propose_and_review(
        &self,
        Parameters(p): Parameters<ProposeParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(_in_progress) = self.review_slot() else {
            return Ok(render::edit::shutting_down().into());
        };
        let sandbox = self.sandbox();
        let mut request: ProposeRequest = p.into();
        let retry = context.extensions.get::<InputRetry>().cloned();
        if let Some(retry) = &retry {
            // The client answers our form (2026-07-28): the proposal is the session's as it
            // was shown, whatever the retried arguments say.
            request = ProposeRequest {
                path: request.path,
                session_path: Some(retry.request_state.clone()),
                ..ProposeRequest::default()
            };
        }
        let collect = request.is_collect();
        let listed = self.listed_tools();
        let staged = match self.reviews().stage(&sandbox, request).await {
            Ok(staged) => staged,
            Err(e) => return Ok(render::edit::failure(&e, listed).into()),
        };
        let open = match staged {
            Staged::Done(outcome) => {
                let context = render::edit::ReplyContext::default();
                return Ok(render::edit::verdict_reply(&outcome, listed, &context).into());
            }
            Staged::Open(open) => open,
        };
        let mut channel = review::choose(self, &context);
        if open.files.len() > 1 && channel == review::Channel::Command {
            // A diff window shows one file: a multi-file change is reviewed in the page.
            channel = review::Channel::Page { wait: false };
        }
        let result = match channel {
            review::Channel::ClientForm { mrtr: true, url } => {
                let link = review::url_mode_link(self, &open, url).await;
                match retry
                    .as_ref()
                    .and_then(|r| review::answer_of(&r.input_responses, link.is_some()))
                {
                    Some(review::Answer::Verdict(verdict)) => self
                        .reviews()
                        .decide(&sandbox, open, verdict)
                        .await
                        .map(|o| (o, None)),
                    // URL mode: the human opened the page; the verdict comes from there.
                    Some(review::Answer::Opened) => {
                        review::in_page(self, &sandbox, open, true, &context).await
                    }
                    None => {
                        let layout = review::DiffLayout::for_client(&context);
                        return Ok(review::input_required(&open, link.as_deref(), layout).into());
                    }
                }
            }
            review::Channel::ClientForm { mrtr: false, url } => {
                review::ask_in_form(self, &sandbox, open, &context, url).await
            }
            review::Channel::Command => self
                .reviews()
                .await_editor(&sandbox, open, !collect, self.cancelled(&context))
                .await
                .map(|o| (o, None)),
            review::Channel::Page { wait } => {
                review::in_page(self, &sandbox, open, wait || collect, &context).await
            }
        };
        Ok(match result {
            Ok((outcome, form_failed)) => {
                let context = render::edit::ReplyContext {
                    shutting_down: self.shutdown_token().is_cancelled(),
                    form_failed,
                };
                render::edit::verdict_reply(&outcome, listed, &context)
            }
            Err(e) => render::edit::failure(&e, listed),
        }
        .into())
    }

    #[tool(
        description = "Write the human's version of a review session (after REVIEW, TIMEOUT or CANCELLED).",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn commit_review(
        &self,
        Parameters(p): Parameters<CommitReviewParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let sandbox = self.sandbox();
        let result = self
            .reviews()
            .commit_review(&sandbox, &p.session_path, &p.original_path)
            .await;
        Ok(match result {
            Ok(committed) => render::edit::review_committed(&committed),
            Err(e) => render::edit::failure(&e, self.listed_tools()),
        })
    }

    #[tool(
        description = "Create or replace a file, atomically, without review (--all tier). Prefer propose_and_review when a human should see the change.",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn write_file(
        &self,
        Parameters(p): Parameters<WriteParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let sandbox = self.sandbox();
        let result =
            blocking(move || fs_mcp_edit::tier_tools::write_file(&sandbox, &p.path, &p.content))
                .await?;
        Ok(written_answer(result, self.listed_tools()))
    }

    #[tool(
        description = "Append text to a file without review (--all tier).",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn append_text(
        &self,
        Parameters(p): Parameters<AppendParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let sandbox = self.sandbox();
        let result =
            blocking(move || fs_mcp_edit::tier_tools::append_text(&sandbox, &p.path, &p.content))
                .await?;
        Ok(written_answer(result, self.listed_tools()))
    }

    #[tool(
        description = "Move or rename a file or directory (--all tier).",
        annotations(
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn move_file(
        &self,
        Parameters(p): Parameters<MoveParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let sandbox = self.sandbox();
        let result = blocking(move || {
            fs_mcp_edit::tier_tools::move_file(&sandbox, &p.source, &p.destination)
        })
        .await?;
        Ok(written_answer(result, self.listed_tools()))
    }
}
