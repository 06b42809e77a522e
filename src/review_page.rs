//! Reviews in a web page: the playground's Reviews view ([`Pending`]) and, for the stdio and
//! HTTP servers, a review-only page started on the first proposal that needs it
//! ([`ReviewPage`]). Both list the open proposals of the review manager and post the human's
//! verdict to it, the same verdicts as every other channel: approve, reject (with a comment),
//! or an edited version sent back as feedback.

use std::collections::HashMap;
use std::net::Ipv4Addr;
use std::sync::{Arc, Mutex};

use axum::extract::{Request, State as AxumState};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use fs_mcp_edit::{ReviewManager, ReviewScope, Verdict};
use serde::Deserialize;
use serde_json::{Value, json};

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::http::page::{given_token, guard_page, random_token, refuse};
use crate::http::same_secret;

const REVIEW_HTML: &str = include_str!("ui/assets/review.html");

/// What the page posts to decide on a proposal.
#[derive(Debug, Deserialize)]
pub struct DecideBody {
    /// The review decided (its session path, as the page lists it).
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
    /// The open reviews of `manager`.
    pub fn new(manager: Arc<ReviewManager>) -> Pending {
        Pending { manager }
    }

    /// Open proposals of `scope` with their diff, from what the reviews hold, bounded in count
    /// and bytes (each diff cut, with how much; what is left out counted in a note).
    pub fn list(&self, scope: &ReviewScope) -> Value {
        let list = self.manager.open_reviews(scope);
        let items: Vec<Value> = list
            .reviews
            .into_iter()
            .map(|r| {
                json!({
                    "session_path": r.session_path,
                    "path": r.path,
                    "files": r.files,
                    "diff": crate::render::edit::diff_text(&r.diff),
                    "diff_cut": r.diff_cut,
                })
            })
            .collect();
        let mut answer = json!({ "reviews": items, "left_out": list.left_out });
        if list.left_out > 0 {
            answer["note"] = json!(format!(
                "{} more open proposal(s) not listed: at most {} proposals and {} KiB of diff are listed at once; decide these and the others follow.",
                list.left_out,
                fs_mcp_edit::MAX_LISTED_REVIEWS,
                fs_mcp_edit::MAX_LISTED_DIFF_BYTES >> 10
            ));
        }
        answer
    }

    /// One open proposal of `scope` whole: its diff and the proposed text to edit.
    pub fn detail(&self, session_path: &str, scope: &ReviewScope) -> Result<Value, String> {
        let detail = self
            .manager
            .review_detail(session_path, scope)
            .map_err(|e| {
                format!(
                    "{} Reload the list of reviews.",
                    crate::render::edit::what_failed(e.failure())
                )
            })?;
        Ok(json!({
            "session_path": detail.session_path,
            "path": detail.path,
            "files": detail.files,
            "diff": crate::render::edit::diff_text(&detail.diff),
            "proposed": detail.proposed,
        }))
    }

    /// Posts the human's verdict; the waiting `propose_and_review` call (or the agent's next
    /// call with the session_path) acts on it.
    pub fn decide(&self, body: &DecideBody, scope: &ReviewScope) -> Result<(), String> {
        self.manager
            .submit_verdict(&body.session_path, body.verdict(), scope)
            .map_err(|e| {
                format!(
                    "{} Reload the list of reviews.",
                    crate::render::edit::what_failed(e.failure())
                )
            })
    }
}

/// The review page of a stdio or HTTP server: 127.0.0.1, a free port, and a random token for
/// each client session (each stateless review): a link shows and decides only the reviews of
/// the session it was given to, so clients sharing one server never see each other's.
pub struct ReviewPage {
    state: Arc<PageState>,
}

struct PageState {
    pending: Pending,
    /// Each link's token and the reviews it reaches.
    scopes: Mutex<HashMap<String, ReviewScope>>,
    port: u16,
}

impl PageState {
    /// The reviews `token` reaches, if it is one of the links' tokens.
    fn scope_of(&self, token: &str) -> Option<ReviewScope> {
        let scopes = self.scopes.lock().unwrap_or_else(|e| e.into_inner());
        scopes
            .iter()
            .find(|(known, _)| same_secret(known.as_bytes(), token.as_bytes()))
            .map(|(_, scope)| scope.clone())
    }
}

/// How many link tokens the page keeps: one a client session that asked for a review (or one a
/// stateless review); the oldest goes first past this.
const MAX_LINKS: usize = 1024;

impl ReviewPage {
    /// Binds 127.0.0.1 on a free port and serves the page in the background for as long as the
    /// process runs.
    pub async fn start(manager: Arc<ReviewManager>) -> std::io::Result<ReviewPage> {
        let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
        let port = listener.local_addr()?.port();
        let state = Arc::new(PageState {
            pending: Pending::new(manager),
            scopes: Mutex::new(HashMap::new()),
            port,
        });
        let app = Router::new()
            .route("/", get(page))
            .route("/api/reviews", get(list))
            .route("/api/reviews/one", get(one))
            .route("/api/reviews/decide", post(decide))
            .layer(axum::middleware::from_fn_with_state(
                Arc::clone(&state),
                guard,
            ))
            .with_state(Arc::clone(&state));
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
        tracing::info!("review page serving at http://127.0.0.1:{port}/");
        Ok(ReviewPage { state })
    }

    /// The link for the human to review the proposals of `scope` (it carries that scope's
    /// token, made on first need).
    pub fn url_for(&self, scope: &ReviewScope) -> std::io::Result<String> {
        let mut scopes = self.state.scopes.lock().unwrap_or_else(|e| e.into_inner());
        let known = scopes
            .iter()
            .find(|(_, s)| *s == scope)
            .map(|(token, _)| token.clone());
        let token = match known {
            Some(token) => token,
            None => {
                if scopes.len() >= MAX_LINKS {
                    // Links whose reviews all ended go first; then any one (a dropped link
                    // answers 401, and the next proposal of its client gives a new one).
                    let manager = &self.state.pending.manager;
                    scopes.retain(|_, s| manager.has_open_reviews(s));
                    if scopes.len() >= MAX_LINKS
                        && let Some(old) = scopes.keys().next().cloned()
                    {
                        scopes.remove(&old);
                    }
                }
                let token = random_token()?;
                scopes.insert(token.clone(), scope.clone());
                token
            }
        };
        Ok(format!(
            "http://127.0.0.1:{}/?token={token}",
            self.state.port
        ))
    }
}

/// The reviews the token of a request that passed the guard reaches.
#[derive(Clone)]
struct Scoped(ReviewScope);

/// The playground's guard, for the review page, with a token for each link: the scope it
/// reaches goes with the request.
async fn guard(
    AxumState(state): AxumState<Arc<PageState>>,
    mut request: Request,
    next: Next,
) -> Response {
    let hint =
        "missing or wrong token: open the link propose_and_review gave (it ends in ?token=…)";
    let scope = given_token(&request).and_then(|t| state.scope_of(&t));
    let accepted = scope.is_some();
    if let Some(scope) = scope {
        request.extensions_mut().insert(Scoped(scope));
    }
    guard_page(state.port, accepted, hint, request, next).await
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

async fn list(
    AxumState(state): AxumState<Arc<PageState>>,
    Extension(Scoped(scope)): Extension<Scoped>,
) -> Response {
    Json(state.pending.list(&scope)).into_response()
}

/// `?session_path=…`: the review to show whole.
#[derive(Debug, Deserialize)]
pub struct OneQuery {
    /// The review's `session_path`.
    pub session_path: String,
}

async fn one(
    AxumState(state): AxumState<Arc<PageState>>,
    Extension(Scoped(scope)): Extension<Scoped>,
    axum::extract::Query(query): axum::extract::Query<OneQuery>,
) -> Response {
    match state.pending.detail(&query.session_path, &scope) {
        Ok(detail) => Json(detail).into_response(),
        Err(message) => refuse(StatusCode::NOT_FOUND, &message),
    }
}

async fn decide(
    AxumState(state): AxumState<Arc<PageState>>,
    Extension(Scoped(scope)): Extension<Scoped>,
    Json(body): Json<DecideBody>,
) -> Response {
    match state.pending.decide(&body, &scope) {
        Ok(()) => Json(json!({ "ok": true })).into_response(),
        Err(message) => refuse(StatusCode::NOT_FOUND, &message),
    }
}
