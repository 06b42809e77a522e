//! `propose_and_review`: an edit the human reviews before it is written.

use fs_mcp_edit::{EditSpec, ProposeRequest, Staged};
use rmcp::handler::server::router::tool::ToolRoute;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResponse;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::Deserializer;

use crate::context::FsServer;
use crate::lenient;
use crate::params::{EDITS, EXPECTED_REPLACEMENTS, Param, lean_schema};
use crate::render;
use crate::tools::edit::InputRetry;
use crate::tools::review;
use crate::tools::spec::{Effect, ToolSpec};

/// What the server says about `propose_and_review`.
pub fn spec() -> ToolSpec {
    ToolSpec {
        effect: Effect::Writes {
            destructive: true,
            idempotent: false,
        },
        params: &[Param::Int(&EXPECTED_REPLACEMENTS), Param::List(&EDITS)],
        ..ToolSpec::new(
            "propose_and_review",
            "Propose an edit; the human reviews the diff (in the client's form, an editor or a browser page) and you get the verdict.\n\
match_text (exact) -> new_string; match_text \"\" creates the file, \"OVERWRITE_FILE\" replaces it, \"APPEND_TO_FILE\" appends. Several: edits, each may name its own path.\n\
JSON user_action: COMMITTED (written); REJECTED (see user_comment); REVIEW (the human edited it: user_feedback_diff; continue with session_path); PENDING (give the human the link in message, then call with path and session_path only to collect the verdict); TIMEOUT/CANCELLED (resume with session_path). Only COMMITTED writes. \"Error: Conflict\": the file changed; re-read it, propose again.",
        )
    }
}

pub(crate) fn route() -> ToolRoute<FsServer> {
    spec().route(
        FsServer::propose_and_review_tool_attr(),
        FsServer::propose_and_review,
    )
}

// One replacement of a batch (a plain comment: the listed schema carries no description of it).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub(crate) struct EditParam {
    /// This edit's file, if not `path`.
    #[serde(default)]
    pub path: Option<String>,
    pub match_text: String,
    pub new_string: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = lean_schema)]
pub(crate) struct ProposeParams {
    pub path: String,
    #[schemars(description = format!(
        "At most {} characters unless bypass_match_text_limit.",
        fs_mcp_text::thousands(fs_mcp_edit::MATCH_TEXT_MAX_LENGTH as u64)
    ))]
    #[serde(default)]
    pub match_text: String,
    #[serde(default)]
    pub new_string: String,
    #[schemars(description = EXPECTED_REPLACEMENTS.description())]
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub expected_replacements: Option<i64>,
    /// From a REVIEW/PENDING/TIMEOUT/CANCELLED reply. Alone: wait for the verdict; with an edit: edit the human's version.
    #[serde(default)]
    pub session_path: Option<String>,
    #[schemars(description = EDITS.description())]
    #[serde(default, deserialize_with = "edit_list")]
    pub edits: Option<Vec<EditParam>>,
    #[serde(default, deserialize_with = "lenient::bool_or_default")]
    pub bypass_match_text_limit: bool,
}

fn edit_list<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<EditParam>>, D::Error> {
    EDITS.deserialize_opt(d)
}

impl From<ProposeParams> for ProposeRequest {
    fn from(p: ProposeParams) -> Self {
        ProposeRequest {
            path: p.path,
            match_text: p.match_text,
            new_string: p.new_string,
            expected_replacements: u32::try_from(
                EXPECTED_REPLACEMENTS.clamp(p.expected_replacements),
            )
            .unwrap_or(u32::MAX),
            session_path: p.session_path.filter(|s| !s.is_empty()),
            // An empty list is passed on: the crate tells it from a blank match_text.
            edits: p.edits.map(|edits| {
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

impl FsServer {
    #[tool]
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
        let owner = self.review_owner(&context);
        let listed = self.listed_tools();
        let retry = context.extensions.get::<InputRetry>().cloned();
        if let Some(retry) = &retry {
            // The client answers our form (2026-07-28): the state names the session it was
            // sent for (a random token bound to it, this client's alone), and the proposal is
            // the session's as it was shown, whatever the retried arguments say.
            let session_path = match self
                .reviews()
                .session_of_input_state(&retry.request_state, &owner)
            {
                Ok(session_path) => session_path,
                Err(e) => return Ok(render::edit::failure(&e, listed).into()),
            };
            request = ProposeRequest {
                path: request.path,
                session_path: Some(session_path),
                ..ProposeRequest::default()
            };
        }
        let collect = request.is_collect();
        let staged = match self.reviews().stage(&sandbox, request, &owner).await {
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
        if collect && review::offered_in_app(self, &open) {
            // The view was shown (MCP Apps): the verdict comes from there.
            channel = review::Channel::App;
        } else if collect && review::offered_on_page(self, &open) {
            // The page's link was given (the form did not serve): the verdict comes from there.
            channel = review::Channel::Page { wait: true };
        }
        if open.files.len() > 1 && channel == review::Channel::Command {
            // A diff window shows one file: a multi-file change is reviewed in the page.
            channel = review::Channel::Page { wait: false };
        }
        let result = match channel {
            // Collecting: wait for the verdict the view sends (as the page's wait does).
            review::Channel::App if collect => {
                review::in_page(self, &sandbox, open, true, &context).await
            }
            review::Channel::App => {
                return Ok(match review::in_app(self, open, listed) {
                    Ok(result) => result,
                    Err(e) => render::edit::failure(&e, listed),
                }
                .into());
            }
            review::Channel::ClientForm { mrtr: true, url } => {
                let link = review::url_mode_link(self, &open, url).await;
                match retry
                    .as_ref()
                    .and_then(|r| review::answer_of(&r.input_responses, link.is_some()))
                {
                    Some(review::Answer::Verdict(verdict)) => {
                        match review::closed_unseen(self, &open, &verdict) {
                            Some(after) => review::unseen_form(self, open, after).await,
                            None => self
                                .reviews()
                                .decide(&sandbox, open, verdict)
                                .await
                                .map(|o| (o, None)),
                        }
                    }
                    // URL mode: the human opened the page; the verdict comes from there.
                    Some(review::Answer::Opened) => {
                        review::in_page(self, &sandbox, open, true, &context).await
                    }
                    None => {
                        let layout = review::DiffLayout::for_client(&context);
                        let state = match self.reviews().input_state(&open) {
                            Ok(state) => state,
                            Err(e) => return Ok(render::edit::failure(&e, listed).into()),
                        };
                        return Ok(
                            review::input_required(self, &open, link.as_deref(), layout, state).into()
                        );
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
                    in_app: false,
                };
                render::edit::verdict_reply(&outcome, listed, &context)
            }
            Err(e) => render::edit::failure(&e, listed),
        }
        .into())
    }
}
