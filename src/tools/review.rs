//! Where the human reviews a proposal, chosen per client session, best first: the review view
//! inside the client (MCP Apps, see [`crate::app`]), the client's own
//! form (MCP elicitation: `input_required` on 2026-07-28, `elicitation/create` before), the
//! review command when its program is installed, else the review page this server serves on
//! 127.0.0.1, which answers at once with its link. Verdicts mean the same on every channel (see
//! [`fs_mcp_edit::Verdict`]); nothing ever waits on a window that was never opened.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use fs_mcp_edit::{EditError, Handed, OpenReview, ReviewOutcome, Verdict};
use fs_mcp_sandbox::Sandbox;
use rmcp::RoleServer;
use rmcp::model::{
    ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema,
    InputRequest, InputRequiredResult, InputResponses, ProtocolVersion,
};
use rmcp::service::RequestContext;
use serde_json::{Value, json};

use crate::context::FsServer;
use crate::context::ReviewVia;
use crate::render::edit::{FormFailure, diff_text};

/// The key of our one input request in an MRTR round.
const REVIEW_INPUT: &str = "review";
/// Diff lines shown in the client's form; the rest is named with where to see it.
const FORM_DIFF_LINES: usize = 60;
/// Characters of diff shown in the client's form.
const FORM_DIFF_CHARS: usize = 6000;
/// A form closed without approval sooner than this after it was sent was closed by the client,
/// not by a person: seeing a form appear and pressing a key takes a person at least about
/// 200 ms (simple visual reaction time), before reading a word of it. Claude Code in headless
/// mode (`claude -p`) cancels every form about 15 ms after it is sent.
pub const FASTEST_HUMAN_ANSWER: Duration = Duration::from_millis(200);

/// The review page's link was given for this session: a call collecting its verdict waits in
/// the page rather than asking a form that did not serve.
pub fn offered_on_page(server: &FsServer, open: &OpenReview) -> bool {
    matches!(server.reviews().handed(open), Some(Handed::Page))
}

/// The review view was shown for this session: a call collecting its verdict waits for the
/// verdict the view sends.
pub fn offered_in_app(server: &FsServer, open: &OpenReview) -> bool {
    matches!(server.reviews().handed(open), Some(Handed::App))
}

/// Where a proposal is reviewed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    /// The review view inside the client (MCP Apps): the call answers PENDING with what the
    /// view shows; the next call collects the verdict.
    App,
    /// The client's form; `mrtr`: as an `input_required` result (2026-07-28); `url`: the
    /// client also takes URL-mode requests (used for a diff too long for the form).
    ClientForm { mrtr: bool, url: bool },
    /// The review command (or files opened by hand with `--review-command none`).
    Command,
    /// The review page; `wait`: the human already looks at it (`fs-mcp-rs ui`).
    Page { wait: bool },
}

/// The channel for this call's client, best first (see the module documentation).
pub fn choose(server: &FsServer, context: &RequestContext<RoleServer>) -> Channel {
    let (via, page_is_client) = server.review_via();
    let elicitation = context.client_capabilities().and_then(|c| c.elicitation);
    // Form mode: declared, or neither mode named (what 2025-06-18 clients send).
    let form = elicitation
        .as_ref()
        .is_some_and(|e| e.form.is_some() || e.url.is_none());
    let url = elicitation.as_ref().is_some_and(|e| e.url.is_some());
    let mrtr = context
        .protocol_version()
        .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
    let page = Channel::Page {
        wait: page_is_client,
    };
    let command = command_available(server.reviews().config().review_command.as_deref());
    let app = crate::app::declared(context);
    match via {
        ReviewVia::Auto if app => Channel::App,
        ReviewVia::Auto if form => Channel::ClientForm { mrtr, url },
        ReviewVia::Auto if page_is_client => page,
        ReviewVia::Auto if command => Channel::Command,
        ReviewVia::Auto => page,
        ReviewVia::Elicitation if form => Channel::ClientForm { mrtr, url },
        ReviewVia::Elicitation => page,
        ReviewVia::Command if command => Channel::Command,
        ReviewVia::Command => page,
        ReviewVia::Page => page,
        ReviewVia::App if app => Channel::App,
        ReviewVia::App => page,
    }
}

/// Whether the review command can open a window: its program is on PATH (or a path to an
/// executable). No command at all (`none`) means the human opens the files by hand: allowed.
fn command_available(template: Option<&[String]>) -> bool {
    let Some(program) = template.and_then(|t| t.first()) else {
        return true;
    };
    let executable = |p: &Path| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        return executable(Path::new(program));
    }
    std::env::var_os("PATH").is_some_and(|paths| {
        std::env::split_paths(&paths).any(|dir| executable(&dir.join(program)))
    })
}

/// How the form lays the diff out in the approve field's description.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffLayout {
    /// One diff line per line.
    Lines,
    /// One line, the line ends marked ` ⏎ `: Claude Code shows a field's description whole but
    /// draws its line breaks (`\n`, U+2028) as U+FFFD, which ran the diff lines together.
    OneLine,
}

impl DiffLayout {
    /// The layout this call's client shows legibly (by the name it gives).
    pub fn for_client(context: &RequestContext<RoleServer>) -> DiffLayout {
        let name = context
            .client_info()
            .map(|info| info.name.to_ascii_lowercase())
            .unwrap_or_default();
        if name.contains("claude") {
            DiffLayout::OneLine
        } else {
            DiffLayout::Lines
        }
    }

    fn line_end(self) -> &'static str {
        match self {
            DiffLayout::Lines => "\n",
            DiffLayout::OneLine => " ⏎ ",
        }
    }
}

/// The diff as the form shows it: at most [`FORM_DIFF_LINES`] lines and [`FORM_DIFF_CHARS`]
/// characters, then how many lines were cut and where the whole proposal is.
fn bounded_diff(open: &OpenReview, layout: DiffLayout) -> String {
    let diff = diff_text(&open.diff);
    let lines: Vec<&str> = diff.lines().collect();
    let mut shown = String::new();
    let mut count = 0;
    for line in &lines {
        if count == FORM_DIFF_LINES || shown.len() + line.len() + 1 > FORM_DIFF_CHARS {
            break;
        }
        shown.push_str(line);
        shown.push_str(layout.line_end());
        count += 1;
    }
    if count < lines.len() {
        shown.push_str(&format!(
            "… {} more diff lines not shown; the whole proposal is in {}\n",
            lines.len() - count,
            open.future.display()
        ));
    }
    shown
}

/// The form: approve (its description holds the diff, which clients show whole) and a comment.
fn form(open: &OpenReview, layout: DiffLayout) -> ElicitRequestParams {
    let diff = diff_text(&open.diff);
    let added = diff
        .lines()
        .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
        .count();
    let removed = diff
        .lines()
        .filter(|l| l.starts_with('-') && !l.starts_with("---"))
        .count();
    let files = open
        .files
        .iter()
        .map(|f| format!("'{f}'"))
        .collect::<Vec<_>>()
        .join(", ");
    let message = format!(
        "Review the agent's edit of {files} (+{added} -{removed} lines; the diff is under Approve).\nCheck Approve and accept to write it; leave it unchecked, or decline, to reject (nothing is written).\nA comment goes back to the agent."
    );
    let schema: ElicitationSchema = serde_json::from_value(json!({
        "type": "object",
        "properties": {
            "approve": {
                "type": "boolean",
                "title": "Approve",
                "description": bounded_diff(open, layout),
                "default": false
            },
            "comment": {
                "type": "string",
                "title": "Comment",
                "description": "Optional: a note for the agent (why you reject, what to change)."
            }
        },
        "required": ["approve"]
    }))
    .unwrap_or_else(|_| ElicitationSchema::new(BTreeMap::new()));
    ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema: schema,
    }
}

/// What the human answered in the form: accept with approve → approve; accept without it →
/// reject (with the comment); decline and cancel → reject without a comment.
fn verdict_of(result: &ElicitResult) -> Verdict {
    let field = |name: &str| result.content.as_ref().and_then(|c| c.get(name));
    let comment = field("comment")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_string);
    match result.action {
        ElicitationAction::Accept => {
            let approve = match field("approve") {
                Some(Value::Bool(b)) => *b,
                Some(Value::String(s)) => s.eq_ignore_ascii_case("true"),
                _ => false,
            };
            if approve {
                Verdict::Approve { comment }
            } else {
                Verdict::Reject { comment }
            }
        }
        _ => Verdict::Reject { comment: None },
    }
}

/// Whether the diff is cut in the form (then a client taking URL mode is sent to the page).
pub fn too_long_for_form(open: &OpenReview) -> bool {
    let diff = diff_text(&open.diff);
    diff.len() > FORM_DIFF_CHARS || diff.lines().count() > FORM_DIFF_LINES
}

/// The URL-mode request: review the whole diff in the page (the verdict is given there).
fn url_request(open: &OpenReview, link: &str) -> ElicitRequestParams {
    let id = Path::new(&open.session_path)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    ElicitRequestParams::UrlElicitationParams {
        meta: None,
        message: format!(
            "The agent's edit of {} is too long for this form ({} diff lines): review it in your browser, and approve or reject it there.",
            open.files.join(", "),
            diff_text(&open.diff).lines().count()
        ),
        url: link.to_string(),
        elicitation_id: id,
    }
}

/// What the client answered to our request.
pub enum Answer {
    /// The form's verdict.
    Verdict(Verdict),
    /// The human opened the review page (URL mode): the verdict comes from there.
    Opened,
}

fn answer_to(result: &ElicitResult, url_mode: bool) -> Answer {
    match (url_mode, &result.action) {
        (true, ElicitationAction::Accept) => Answer::Opened,
        (true, _) => Answer::Verdict(Verdict::Reject { comment: None }),
        (false, _) => Answer::Verdict(verdict_of(result)),
    }
}

/// The answer in an MRTR retry, if the client answered our request (`url_mode`: it was the
/// URL-mode one).
pub fn answer_of(responses: &InputResponses, url_mode: bool) -> Option<Answer> {
    let answer = responses.get(REVIEW_INPUT)?;
    let result: ElicitResult = serde_json::from_value(answer.clone()).ok()?;
    Some(answer_to(&result, url_mode))
}

/// The `input_required` result asking the client to show the form, or to open `link` (URL
/// mode), on 2026-07-28. The `state` is a random token bound to the session and its client
/// ([`fs_mcp_edit::ReviewManager::input_state`]): forged or another client's, it names nothing.
pub fn input_required(
    server: &FsServer,
    open: &OpenReview,
    link: Option<&str>,
    layout: DiffLayout,
    state: String,
) -> InputRequiredResult {
    let params = match link {
        Some(link) => url_request(open, link),
        None => form(open, layout),
    };
    let mut requests = BTreeMap::new();
    requests.insert(
        REVIEW_INPUT.to_string(),
        InputRequest::Elicitation(ElicitRequest::new(params)),
    );
    server.reviews().hand(open, Handed::Form(Instant::now()));
    InputRequiredResult::new(Some(requests), Some(state))
}

/// How long after its MRTR form went out the client closed it unapproved, when that was too
/// soon for a person ([`FASTEST_HUMAN_ANSWER`]).
pub fn closed_unseen(server: &FsServer, open: &OpenReview, verdict: &Verdict) -> Option<Duration> {
    let Some(Handed::Form(sent)) = server.reviews().handed(open) else {
        return None;
    };
    let after = sent.elapsed();
    (matches!(verdict, Verdict::Reject { comment: None }) && after < FASTEST_HUMAN_ANSWER)
        .then_some(after)
}

/// The form was closed `after` it was sent, before anyone could read it (a headless client):
/// no rejection, the review page's link instead.
pub async fn unseen_form(server: &FsServer, open: OpenReview, after: Duration) -> ChannelEnd {
    tracing::info!(
        "the client closed the review form {} ms after it was sent, before anyone could read it; offering the review page",
        after.as_millis()
    );
    let outcome = page_link(server, open).await?;
    Ok((outcome, Some(FormFailure::ClosedUnseen(after))))
}

/// The page link when the diff is too long for the form and the client takes URL mode (`None`
/// otherwise, or when the page cannot start: then the form shows the cut diff).
pub async fn url_mode_link(server: &FsServer, open: &OpenReview, url: bool) -> Option<String> {
    if !url || !too_long_for_form(open) {
        return None;
    }
    match server.review_page_url(&open.scope).await {
        Ok(link) => Some(link),
        Err(e) => {
            tracing::warn!("cannot start the review page ({e}); the form shows a cut diff");
            None
        }
    }
}

/// How a review channel ended: the outcome, and why the client's form did not serve when the
/// page was offered instead.
pub type ChannelEnd = Result<(ReviewOutcome, Option<FormFailure>), EditError>;

/// Asks with `elicitation/create` (before 2026-07-28) and acts on the answer. The file is only
/// written on approval; a timeout or a cancelled call leaves the session open; a client that
/// fails the request (lost connection, no such method after all) gets the review page instead.
pub async fn ask_in_form(
    server: &FsServer,
    sandbox: &Sandbox,
    open: OpenReview,
    context: &RequestContext<RoleServer>,
    url: bool,
) -> ChannelEnd {
    let timeout = server.reviews().config().review_timeout;
    let link = url_mode_link(server, &open, url).await;
    let params = match &link {
        Some(link) => url_request(&open, link),
        None => form(&open, DiffLayout::for_client(context)),
    };
    let sent = Instant::now();
    let asked = context.peer.create_elicitation(params);
    let cancelled = context.ct.clone();
    let shutdown = server.shutdown_token().clone();
    let outcome = tokio::select! {
        answer = asked => Some(answer),
        () = tokio::time::sleep(timeout) => None,
        () = cancelled.cancelled() => None,
        () = shutdown.cancelled() => None,
    };
    match outcome {
        Some(Ok(result)) => match answer_to(&result, link.is_some()) {
            // Closed before anyone could have read it (a headless client): not a rejection.
            Answer::Verdict(Verdict::Reject { comment: None })
                if sent.elapsed() < FASTEST_HUMAN_ANSWER =>
            {
                unseen_form(server, open, sent.elapsed()).await
            }
            Answer::Verdict(verdict) => server
                .reviews()
                .decide(sandbox, open, verdict)
                .await
                .map(|o| (o, None)),
            Answer::Opened => in_page(server, sandbox, open, true, context).await,
        },
        Some(Err(e)) => {
            tracing::warn!("the client's review form failed ({e}); offering the review page");
            let outcome = page_link(server, open).await?;
            Ok((outcome, Some(FormFailure::Error(e.to_string()))))
        }
        // Not answered in time, or the call was cancelled: nothing written, the session
        // stays open.
        None => Ok((
            server.reviews().undecided(
                open,
                !context.ct.is_cancelled() && !server.shutdown_token().is_cancelled(),
            ),
            None,
        )),
    }
}

/// The review page: answers at once with the link, or (the human already looks at the page,
/// or the agent collects the verdict) waits for the verdict given there.
pub async fn in_page(
    server: &FsServer,
    sandbox: &Sandbox,
    open: OpenReview,
    wait: bool,
    context: &RequestContext<RoleServer>,
) -> ChannelEnd {
    if wait {
        let cancelled = context.ct.clone();
        let shutdown = server.shutdown_token().clone();
        return server
            .reviews()
            .await_editor(sandbox, open, false, async move {
                tokio::select! {
                    () = cancelled.cancelled() => {}
                    () = shutdown.cancelled() => {}
                }
            })
            .await
            .map(|o| (o, None));
    }
    Ok((page_link(server, open).await?, None))
}

/// The review view (MCP Apps): answers at once with PENDING for the model and, in the
/// result's `_meta`, what the view shows (each file's diff) and the token its verdict carries.
pub fn in_app(
    server: &FsServer,
    open: OpenReview,
    listed: &crate::render::ListedTools,
) -> Result<rmcp::model::CallToolResult, EditError> {
    let reviews = server.reviews();
    let token = reviews.app_token(&open)?;
    let view = reviews.proposal_view(&open);
    let data = crate::app::view_data(&open, &view, &token);
    reviews.hand(&open, Handed::App);
    let outcome = reviews.pending(open, "");
    let context = crate::render::edit::ReplyContext {
        in_app: true,
        ..Default::default()
    };
    let mut result = crate::render::edit::verdict_reply(&outcome, listed, &context);
    let mut meta = rmcp::model::MetaObject::default();
    meta.0.insert(crate::app::VIEW_DATA_KEY.into(), data);
    result.meta = Some(meta);
    Ok(result)
}

async fn page_link(server: &FsServer, open: OpenReview) -> Result<ReviewOutcome, EditError> {
    let url = server.review_page_url(&open.scope).await.map_err(|e| {
        EditError::new(fs_mcp_edit::Failure::NoReviewChannel {
            error: e.to_string(),
        })
        .with_next(fs_mcp_edit::NextStep::ConfigureReview)
    })?;
    server.reviews().hand(&open, Handed::Page);
    Ok(server.reviews().pending(open, &url))
}
