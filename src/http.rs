//! Streamable HTTP transport at `/mcp`, loopback by default, guarded against DNS rebinding.

use std::net::SocketAddr;

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

/// Serves until Ctrl-C (or SIGTERM).
pub async fn serve(server: FsServer, addr: SocketAddr) -> anyhow::Result<()> {
    let shutdown = CancellationToken::new();
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        LocalSessionManager::default().into(),
        http_config(addr, shutdown.child_token()),
    );
    let app = axum::Router::new().nest_service("/mcp", service);
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
