//! Editing: propose_and_review / commit_review (human-reviewed), and the `--all` tier's direct
//! writes write_file / append_text / move_file.

use fs_mcp_edit::{EditError, EditSpec, ProposeRequest, Staged, UserAction};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResponse, CallToolResult, InputResponses};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::{self, Deserializer};
use serde_json::Value;

use crate::lenient;
use crate::server::FsServer;
use crate::tools::review;
use crate::tools::{blocking, failure, text};

/// One replacement of a batch.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct EditParam {
    /// File this edit changes, when not the top-level path: one proposal may change several files (one review, written all or none).
    #[serde(default)]
    pub path: Option<String>,
    /// Exact text to find (whitespace and indentation included).
    pub match_text: String,
    /// Text to put in its place.
    pub new_string: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ProposeParams {
    /// File to edit or create, relative to the first allowed directory.
    pub path: String,
    /// Exact text to replace (copy it from read_files). Sentinels: "" creates a new file (or fills an empty one), "OVERWRITE_FILE" replaces the whole file, "APPEND_TO_FILE" adds new_string at the end. At most 2,000 characters unless bypass_match_text_limit.
    #[serde(default)]
    pub match_text: String,
    /// The replacement text (or the new file's content).
    #[serde(default)]
    pub new_string: String,
    /// How many times match_text must occur. Default 1.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub expected_replacements: Option<i64>,
    /// Continue a review session: the session_path from a previous REVIEW, PENDING, TIMEOUT or CANCELLED response. With no match_text, new_string or edits, waits for the verdict on the open proposal; with an edit, it applies to the human's version.
    #[serde(default)]
    pub session_path: Option<String>,
    /// Several replacements in one proposal, applied in order: [{"match_text": ..., "new_string": ...}]. Use instead of match_text/new_string. An item with its own "path" changes that file: one proposal, one review, and every file written or none.
    #[serde(default, deserialize_with = "edit_list")]
    pub edits: Option<Vec<EditParam>>,
    /// Allow a match_text longer than 2,000 characters. Default false; prefer a shorter, unique match_text.
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
    /// The session_path of the review to accept.
    pub session_path: String,
    /// The file the session edits (as given to propose_and_review).
    pub original_path: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct WriteParams {
    /// File to write, relative to the first allowed directory. Missing parent directories are created.
    pub path: String,
    /// The complete new content.
    pub content: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct AppendParams {
    /// File to append to (created if missing).
    pub path: String,
    /// Text to add; it starts on a new line.
    pub content: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct MoveParams {
    /// File or directory to move.
    pub source: String,
    /// Where to move it; must not exist yet.
    pub destination: String,
}

/// An MRTR retry of `tools/call` (2026-07-28): the state we handed out (the session_path) and
/// the client's answers, put in the request's extensions by `call_tool`.
#[derive(Debug, Clone)]
pub struct InputRetry {
    pub request_state: String,
    pub input_responses: InputResponses,
}

const SHUTTING_DOWN: &str = "The server is shutting down; no new review is started. Call propose_and_review again once it runs again.";

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

fn edit_answer(result: Result<String, EditError>) -> CallToolResult {
    match result {
        Ok(body) => text(body),
        Err(e) => failure(e.to_string()),
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
        description = "Propose an edit for the human to review, and get their verdict. The human sees the diff where they are: the client's own approval form, their editor, or a review page in the browser.\n\
Single edit: match_text (exact, from read_files) -> new_string. Batch: edits=[{match_text, new_string}, ...]. New file: match_text \"\". Whole file: \"OVERWRITE_FILE\". Append: \"APPEND_TO_FILE\".\n\
Returns JSON user_action: COMMITTED (written, done); REJECTED (nothing written; user_comment may say why); REVIEW (the human changed your proposal: user_feedback_diff shows how; continue with session_path); PENDING (nothing written yet: give the human the link in message, then call again with path and session_path and no edit to get the verdict); TIMEOUT/CANCELLED (nothing written; resume with session_path). If match_text is not found or not unique, the error carries similar passages with line numbers and recovery steps.\n\
An error with error_type \"conflict\" means the file changed meanwhile and nothing was written: its diff shows what changed; re-read the file and propose again.\n\
The file keeps its line endings, final newline, BOM and permissions.",
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
            return Ok(failure(SHUTTING_DOWN).into());
        };
        let sandbox = self.sandbox();
        let path = p.path.clone();
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
        let staged = match self.reviews().stage(&sandbox, request).await {
            Ok(staged) => staged,
            Err(e) => return Ok(failure(e.to_string()).into()),
        };
        let open = match staged {
            Staged::Done(response) => return Ok(text(response.to_json()).into()),
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
                    Some(review::Answer::Verdict(verdict)) => {
                        self.reviews().decide(&sandbox, open, verdict).await
                    }
                    // URL mode: the human opened the page; the verdict comes from there.
                    Some(review::Answer::Opened) => {
                        review::in_page(self, &sandbox, open, true, &context).await
                    }
                    None => return Ok(review::input_required(&open, link.as_deref()).into()),
                }
            }
            review::Channel::ClientForm { mrtr: false, url } => {
                review::ask_in_form(self, &sandbox, open, &context, url).await
            }
            review::Channel::Command => {
                self.reviews()
                    .await_editor(&sandbox, open, !collect, self.cancelled(&context))
                    .await
            }
            review::Channel::Page { wait } => {
                review::in_page(self, &sandbox, open, wait || collect, &context).await
            }
        };
        Ok(match result {
            Ok(mut response) => {
                if self.shutdown_token().is_cancelled()
                    && response.user_action == UserAction::Cancelled
                {
                    // The session's files go with the process: nothing to resume.
                    response.session_path = None;
                    response.message = format!(
                        "The server is shutting down, so the review was cancelled: '{path}' was not changed and the review files are removed. Propose the edit again once the server runs again."
                    );
                }
                text(response.to_json())
            }
            Err(e) => failure(e.to_string()),
        }
        .into())
    }

    #[tool(
        description = "Accept the human's current version of a review session (after a REVIEW, TIMEOUT or CANCELLED response) and write it to the file.",
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
        Ok(edit_answer(result))
    }

    #[tool(
        description = "Write a file without review (--all tier): create it or replace its content, atomically (regular files only). Prefer propose_and_review when a human should see the change.",
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
        Ok(edit_answer(result))
    }

    #[tool(
        description = "Append text to a file without review (--all tier), on a new line; creates the file if missing (regular files only).",
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
        Ok(edit_answer(result))
    }

    #[tool(
        description = "Move or rename a file or directory (--all tier). The destination must not exist.",
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
        Ok(edit_answer(result))
    }
}
