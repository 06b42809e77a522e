//! Streamable HTTP transport at `/mcp`, loopback by default, guarded against DNS rebinding.

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use crate::server::FsServer;

/// The `Host` names a loopback server answers to.
const LOOPBACK_HOSTS: &[&str] = &["localhost", "127.0.0.1", "::1", "[::1]"];

/// Builds the transport configuration for a bind address. Requests whose `Origin` names another
/// site are refused (MCP spec: servers must validate Origin); requests without `Origin` (non-browser
/// clients) pass.
pub fn http_config(addr: SocketAddr, shutdown: CancellationToken) -> StreamableHttpServerConfig {
    let mut hosts: Vec<String> = LOOPBACK_HOSTS.iter().map(|h| h.to_string()).collect();
    if !addr.ip().is_loopback() && !addr.ip().is_unspecified() {
        hosts.push(addr.ip().to_string());
    }
    let mut origins = Vec::new();
    for host in &hosts {
        let host = if host.contains(':') && !host.starts_with('[') {
            format!("[{host}]")
        } else {
            host.clone()
        };
        origins.push(format!("http://{host}:*"));
        origins.push(format!("https://{host}:*"));
    }
    let config = StreamableHttpServerConfig::default()
        .with_cancellation_token(shutdown)
        .with_allowed_origins(origins)
        .enforce_origin_validation();
    if addr.ip().is_unspecified() {
        // Bound to every interface: any Host may arrive; Origin is still checked.
        config.disable_allowed_hosts()
    } else {
        config.with_allowed_hosts(hosts)
    }
}

/// Serves until Ctrl-C (or SIGTERM). With a `token`, every request must carry
/// `Authorization: Bearer {token}`.
pub async fn serve(
    server: FsServer,
    addr: SocketAddr,
    token: Option<String>,
) -> anyhow::Result<()> {
    serve_sessions(move || server.new_session(), addr, token).await
}

/// Serves one `ServerHandler` per client session, made by `new_session`, with the same guards
/// (Origin, Host, bearer token) as [`serve`]; `fs-mcp-rs proxy --http` uses it too.
pub async fn serve_sessions<S>(
    new_session: impl Fn() -> S + Send + Sync + 'static,
    addr: SocketAddr,
    token: Option<String>,
) -> anyhow::Result<()>
where
    S: rmcp::ServerHandler + Send + 'static,
{
    let shutdown = CancellationToken::new();
    let service = StreamableHttpService::new(
        move || Ok(new_session()),
        LocalSessionManager::default().into(),
        http_config(addr, shutdown.child_token()),
    );
    let mut app = axum::Router::new().nest_service("/mcp", service);
    if let Some(token) = token.filter(|t| !t.is_empty()) {
        let expected: Arc<str> = Arc::from(format!("Bearer {token}"));
        app = app.layer(axum::middleware::from_fn(move |request, next| {
            require_bearer(Arc::clone(&expected), request, next)
        }));
    }
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr}"))?;
    let local = listener.local_addr().unwrap_or(addr);
    if !addr.ip().is_loopback() {
        tracing::warn!(
            "listening on {local}, reachable from other machines; anyone who can reach it can use these tools"
        );
    }
    tracing::info!("serving MCP over streamable HTTP at http://{local}/mcp");
    let stop = shutdown.clone();
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            wait_for_signal().await;
            stop.cancel();
        })
        .await
        .context("HTTP server failed")
}

/// Refuses a request without the expected `Authorization` header (401, as RFC 6750 asks).
async fn require_bearer(
    expected: Arc<str>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let given = request
        .headers()
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    if constant_time_eq(given.as_bytes(), expected.as_bytes()) {
        next.run(request).await
    } else {
        axum::response::Response::builder()
            .status(axum::http::StatusCode::UNAUTHORIZED)
            .header(axum::http::header::WWW_AUTHENTICATE, "Bearer")
            .body(axum::body::Body::from(
                "missing or wrong bearer token: send Authorization: Bearer <token>",
            ))
            .unwrap_or_default()
    }
}

/// Compares without an early exit, so the time taken does not reveal how much of a guess matched.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Resolves on Ctrl-C or SIGTERM.
pub async fn wait_for_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
}
