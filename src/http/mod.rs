//! Streamable HTTP transport at `/mcp`, loopback by default, guarded against DNS rebinding and
//! bounded in what a client can hold: connections, time to send a request, sessions.
//!
//! In front of rmcp's service sits one guard per request: the `Host` and `Origin` must name this
//! server exactly, the bearer token (if set) must match, and a POST body must arrive in time and
//! be one JSON-RPC message (a malformed body or a batch gets a JSON-RPC error, not rmcp's HTTP 415).
//! Connections are served by our own accept loop (axum's has no timeouts), shared with `ui`
//! ([`accept_connections`]): a request's headers must arrive within the header timeout (also the
//! idle timeout between requests); a connection counts as unauthenticated until one of its
//! requests passes the token check ([`mark_authenticated`]), unauthenticated ones may hold at most
//! half of the connection cap (the oldest makes room for a new one), and a 401 or 403 closes its
//! connection. So a flood of idle or tokenless connections cannot lock out a client with the token.
//! At the session cap, the longest-idle session (one that never got past the handshake first;
//! never one with a request running, such as a review waiting for the human) makes room for a
//! new client.
//!
//! Modules by concern: [`host`] (Host/Origin, shared with the ui), `auth` (the token), `body`
//! (the POST body), [`connections`] (accounting and the accept loop, shared with the ui),
//! `sessions` (the session cap), `priming` (SSE priming events, for the clients that expect them).

mod auth;
mod body;
pub mod connections;
pub(crate) mod host;
pub(crate) mod page;
mod priming;
mod sessions;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{Method, StatusCode, header};
use axum::response::Response;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub(crate) use auth::same_secret;
pub use body::MAX_BODY_BYTES;
pub use connections::{OpenConnections, accept_connections, mark_authenticated};
use host::{HostRule, Refused};
pub use sessions::{CappedSessions, SessionsError};

/// File descriptors kept free for the tools (files, query workers) when sizing the connection cap.
const RESERVED_FDS: u64 = 128;

/// How long a shutdown waits for answers (cancelled reviews) before closing connections.
const ANSWER_GRACE: Duration = Duration::from_millis(400);

/// What one client may hold, and for how long.
#[derive(Debug, Clone)]
pub struct HttpLimits {
    /// Time to send a request's headers; also how long a connection may sit idle.
    pub header_timeout: Duration,
    /// Time to send a request's body once its headers are in.
    pub body_timeout: Duration,
    /// Open MCP sessions at most; `initialize` beyond it is refused.
    pub max_sessions: usize,
    /// A session nobody used for this long is closed.
    pub session_idle: Duration,
    /// Open connections at most (default: from the file descriptor limit).
    pub max_connections: usize,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            max_sessions: 100,
            session_idle: Duration::from_secs(300),
            max_connections: connection_cap_for_fd_limit(),
        }
    }
}

/// Connections the process can hold with some descriptors to spare (16 to 4096).
pub fn connection_cap_for_fd_limit() -> usize {
    match rlimit::Resource::NOFILE.get() {
        Ok((soft, _hard)) => {
            usize::try_from(soft.saturating_sub(RESERVED_FDS).clamp(16, 4096)).unwrap_or(4096)
        }
        Err(_) => 1024,
    }
}

/// Builds the transport configuration for a bind address. Requests whose `Origin` names another
/// site are refused (MCP spec: servers must validate Origin); requests without `Origin` (non-browser
/// clients) pass. The guard checks the same more strictly (exact ports); this is the second line.
pub fn http_config(addr: SocketAddr, shutdown: CancellationToken) -> StreamableHttpServerConfig {
    let rule = HostRule::new(addr);
    let mut origins = Vec::new();
    for host in &rule.hosts {
        let host = if host.contains(':') {
            format!("[{host}]")
        } else {
            host.clone()
        };
        origins.push(format!("http://{host}:*"));
        origins.push(format!("https://{host}:*"));
    }
    let config = StreamableHttpServerConfig::default()
        .with_cancellation_token(shutdown)
        // SSE priming events (2025-11-25), left out again for older clients (`priming`).
        .with_sse_retry(Some(priming::RETRY))
        .with_allowed_origins(origins)
        .enforce_origin_validation();
    if addr.ip().is_unspecified() {
        // Bound to every interface: any Host may arrive; Origin is still checked.
        config.disable_allowed_hosts()
    } else {
        config.with_allowed_hosts(rule.hosts)
    }
}

/// What every request to `/mcp` is checked against before rmcp sees it: the Host/Origin rule,
/// the token, then the body.
struct Guard {
    hosts: HostRule,
    /// `Bearer {token}`, when a token is required.
    bearer: Option<Arc<str>>,
    body_timeout: Duration,
}

impl Guard {
    async fn check(&self, request: Request) -> Result<Request, Response> {
        self.hosts.check(&request).map_err(|refused| {
            let message = match refused {
                Refused::Host => "Forbidden: the Host header does not name this server",
                Refused::Origin => "Forbidden: the Origin header names another site",
            };
            text_response(StatusCode::FORBIDDEN, message)
        })?;
        if let Some(refusal) = self
            .bearer
            .as_ref()
            .and_then(|expected| auth::bearer_refusal(expected, request.headers()))
        {
            return Err(refusal);
        }
        mark_authenticated(&request);
        if request.method() != Method::POST || !body::is_json(request.headers()) {
            // Other methods carry no body; a wrong Content-Type is rmcp's 415 to explain.
            return Ok(request);
        }
        body::check_body(request, self.body_timeout).await
    }
}

fn text_response(status: StatusCode, message: &str) -> Response {
    let mut response = Response::new(Body::from(message.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// What [`serve`] needs of a server: a handler for each client session, and a last word before
/// the sessions end at shutdown. The MCP server (`crate::server`) and `fs-mcp-rs proxy` both serve through it.
pub trait HttpSessions: Send + Sync + 'static {
    /// The handler one client session gets.
    type Session: rmcp::ServerHandler + Send + 'static;
    /// A handler for a new client session.
    fn new_session(&self) -> Self::Session;
    /// At shutdown, answers what is still pending within `grace` (fs-mcp-rs: reviews, CANCELLED).
    fn end(&self, grace: Duration) -> impl Future<Output = ()> + Send;
    /// Layers of its own around the `/mcp` route, inside the guard (the body is read and checked).
    fn wrap_mcp(&self, mcp: axum::Router) -> axum::Router {
        mcp
    }
}

/// Serves until `stop` is cancelled (then answers pending reviews with CANCELLED, ends the sessions
/// and connections, all within about a second). With a `token`, every request must carry
/// `Authorization: Bearer {token}`.
pub async fn serve<S: HttpSessions>(
    server: S,
    addr: SocketAddr,
    token: Option<String>,
    limits: HttpLimits,
    stop: CancellationToken,
) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr}"))?;
    let local = listener.local_addr().unwrap_or(addr);
    let sessions_end = CancellationToken::new();
    let sessions = Arc::new(CappedSessions::new(
        limits.max_sessions,
        limits.session_idle,
    ));
    let server = Arc::new(server);
    let factory_server = Arc::clone(&server);
    let service = StreamableHttpService::new(
        move || Ok(factory_server.new_session()),
        Arc::clone(&sessions),
        http_config(local, sessions_end.clone()),
    );
    let guard = Arc::new(Guard {
        hosts: HostRule::new(local),
        bearer: token
            .filter(|t| !t.is_empty())
            .map(|t| Arc::from(format!("Bearer {t}"))),
        body_timeout: limits.body_timeout,
    });
    // Bounded at twice the session cap: entries of closed sessions give way to new ones.
    let priming = Arc::new(priming::PrimingSessions::new(
        limits.max_sessions.saturating_mul(2),
    ));
    let app = server
        .wrap_mcp(axum::Router::new().nest_service("/mcp", service))
        .layer(axum::middleware::from_fn(
            move |request: axum::extract::Request, next: axum::middleware::Next| {
                let guard = Arc::clone(&guard);
                let priming = Arc::clone(&priming);
                async move {
                    match guard.check(request).await {
                        Ok(request) => {
                            let primes = priming.takes_priming(&request);
                            let initialize = request
                                .extensions()
                                .get::<priming::InitializeVersion>()
                                .is_some();
                            let response = next.run(request).await;
                            if initialize {
                                priming.record(primes, &response);
                            }
                            if primes {
                                response
                            } else {
                                priming::without_priming(response)
                            }
                        }
                        Err(response) => response,
                    }
                }
            },
        ));
    if !addr.ip().is_loopback() {
        tracing::warn!(
            "listening on {local}, reachable from other machines; anyone who can reach it can use these tools"
        );
    }
    tracing::info!("serving MCP over streamable HTTP at http://{local}/mcp");

    let answers = TaskTracker::new();
    let open = accept_connections(listener, app, &limits, &stop, &answers).await;
    // Pending reviews answer CANCELLED; give those answers (and other replies already under way)
    // a moment to reach their clients, then end the sessions and the connections.
    let started = Instant::now();
    server.end(ANSWER_GRACE).await;
    answers.close();
    let _ = tokio::time::timeout(
        ANSWER_GRACE.saturating_sub(started.elapsed()),
        answers.wait(),
    )
    .await;
    sessions_end.cancel();
    open.close().await;
    Ok(())
}
