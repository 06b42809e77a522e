//! Reviews in a web page: the playground's Reviews view ([`Pending`]) and, for the stdio and
//! HTTP servers, a review-only page started on the first proposal that needs it
//! ([`ReviewPage`]). Both list the open proposals of the review manager and post the human's
//! verdict to it, the same verdicts as every other channel: approve, reject (with a comment),
//! or an edited version sent back as feedback.

use std::net::Ipv4Addr;
use std::sync::Arc;

use axum::extract::{Request, State as AxumState};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use fs_mcp_edit::{ReviewManager, Verdict};
use serde::Deserialize;
use serde_json::{Value, json};

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::api::refuse;

const REVIEW_HTML: &str = include_str!("assets/review.html");

/// What the page posts to decide on a proposal.
#[derive(Debug, Deserialize)]
pub struct DecideBody {
    pub session_path: String,
    /// Edited content (feedback to the agent); absent approves the proposal as it is.
    #[serde(default)]
    pub content: Option<String>,
    /// Reject the proposal: nothing is written.
    #[serde(default)]
    pub reject: bool,
    /// The human's comment for the agent.
    #[serde(default)]
    pub comment: Option<String>,
}

impl DecideBody {
    fn verdict(&self) -> Verdict {
        let comment = self
            .comment
            .as_deref()
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(str::to_string);
        if self.reject {
            Verdict::Reject { comment }
        } else if let Some(content) = &self.content {
            Verdict::Edited(content.clone())
        } else {
            Verdict::Approve { comment }
        }
    }
}

/// The open proposals of a review manager, as the pages show and decide them.
#[derive(Clone)]
pub struct Pending {
    manager: Arc<ReviewManager>,
}

impl Pending {
    pub fn new(manager: Arc<ReviewManager>) -> Pending {
        Pending { manager }
    }

    /// Open proposals with their diff.
    pub fn list(&self) -> Value {
        let items: Vec<Value> = self
            .manager
            .open_reviews()
            .into_iter()
            .map(|r| {
                json!({
                    "session_path": r.session_path,
                    "path": r.path,
                    "files": r.files,
                    "diff": r.diff,
                    "proposed": r.proposed,
                })
            })
            .collect();
        json!({ "reviews": items })
    }

    /// Posts the human's verdict; the waiting `propose_and_review` call (or the agent's next
    /// call with the session_path) acts on it.
    pub fn decide(&self, body: &DecideBody) -> Result<(), String> {
        self.manager
            .submit_verdict(&body.session_path, body.verdict())
            .map_err(|e| format!("{e} Reload the list of reviews."))
    }
}

/// The review page of a stdio or HTTP server: 127.0.0.1, a free port, a random token.
pub struct ReviewPage {
    url: String,
}

struct PageState {
    pending: Pending,
    token: String,
    port: u16,
}

impl ReviewPage {
    /// Binds 127.0.0.1 on a free port and serves the page in the background for as long as the
    /// process runs.
    pub async fn start(manager: Arc<ReviewManager>) -> std::io::Result<ReviewPage> {
        let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
        let port = listener.local_addr()?.port();
        let token = super::random_token()?;
        let state = Arc::new(PageState {
            pending: Pending::new(manager),
            token: token.clone(),
            port,
        });
        let app = Router::new()
            .route("/", get(page))
            .route("/api/reviews", get(list))
            .route("/api/reviews/decide", post(decide))
            .layer(axum::middleware::from_fn_with_state(
                Arc::clone(&state),
                guard,
            ))
            .with_state(state);
        // The same connection handling as --http and the playground: header and idle timeouts,
        // a connection cap of which connections without the token hold at most half.
        tokio::spawn(async move {
            let never = CancellationToken::new();
            crate::http::accept_connections(
                listener,
                app,
                &crate::http::HttpLimits::default(),
                &never,
                &TaskTracker::new(),
            )
            .await;
        });
        let url = format!("http://127.0.0.1:{port}/?token={token}");
        tracing::info!("review page serving at http://127.0.0.1:{port}/");
        Ok(ReviewPage { url })
    }

    /// The link for the human (it carries the token).
    pub fn url(&self) -> &str {
        &self.url
    }
}

/// The playground's guard, for the review page.
async fn guard(
    AxumState(state): AxumState<Arc<PageState>>,
    request: Request,
    next: Next,
) -> Response {
    let hint =
        "missing or wrong token: open the link propose_and_review gave (it ends in ?token=…)";
    super::api::guard_page(state.port, &state.token, hint, request, next).await
}

/// The page, its CSS and JS inline; nothing else may load or run.
async fn page() -> Response {
    let mut response = Html(REVIEW_HTML).into_response();
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        axum::http::HeaderValue::from_static(
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; base-uri 'none'; form-action 'none'",
        ),
    );
    response
}

async fn list(AxumState(state): AxumState<Arc<PageState>>) -> Response {
    Json(state.pending.list()).into_response()
}

async fn decide(
    AxumState(state): AxumState<Arc<PageState>>,
    Json(body): Json<DecideBody>,
) -> Response {
    match state.pending.decide(&body) {
        Ok(()) => Json(json!({ "ok": true })).into_response(),
        Err(message) => refuse(StatusCode::NOT_FOUND, &message),
    }
}
