//! `fs-mcp-rs ui`: a local web playground. It serves one page on 127.0.0.1 and drives the same
//! [`FsServer`] the MCP transports run through an in-process MCP client, so the page shows what a
//! client gets (tools/list, tools/call results) byte for byte.
//!
//! Guarded like a local admin page: a random token on every request (401 without) and the page's
//! own `Host`/`Origin` only (403 otherwise), so neither another site nor another local user can
//! drive the tools.

mod api;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use anyhow::Context;
use clap::Args;
use rmcp::ServiceExt;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::flags::ServeArgs;

/// The default port of the playground (the HTTP transport's is 8124).
pub const DEFAULT_PORT: u16 = 8125;

/// Options of `fs-mcp-rs ui`.
#[derive(Debug, Args)]
pub struct UiArgs {
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, value_name = "PORT", default_value_t = DEFAULT_PORT)]
    pub port: u16,

    /// The serving flags the playground's in-process server takes.
    #[command(flatten)]
    pub serve: ServeArgs,
}

/// Runs the playground until Ctrl-C.
pub fn run(args: UiArgs) -> std::process::ExitCode {
    // No graceful drain: a propose_and_review call may be waiting minutes for a review.
    crate::setup::run_to_exit(serve(args), std::time::Duration::from_millis(100))
}

async fn serve(args: UiArgs) -> anyhow::Result<()> {
    let cli = &args.serve;
    if cli.listen.http.is_some() || cli.listen.http_token.is_some() {
        anyhow::bail!(
            "--http and --http-token do not apply to `fs-mcp-rs ui`; use --port (the page prints its own token)"
        );
    }
    let stop = CancellationToken::new();
    let (sandbox, mut options) = crate::setup::prepare(cli, "fs-mcp-rs ui .", stop.clone())?;
    let tier = options.tier;
    // The page is the reviewer: a diff window would open on top of it, so only an explicit
    // --review-command launches one.
    if !explicit_review_command() {
        options.review.review_command = None;
    }
    // The human looks at this page: a proposal waits in its Reviews view.
    options.review_page_is_client = true;
    // The page has no MCP roots to offer: the directories given here are the sandbox.
    options.dirs_from_cli = true;
    let server = crate::server::new_server(sandbox, options)
        .map_err(|e| anyhow::anyhow!("cannot create the review session directory: {e}"))?;
    let pending = crate::review_page::Pending::new(server.reviews());
    let roots: Vec<String> = server
        .sandbox()
        .roots()
        .iter()
        .map(|r| r.display().to_string())
        .collect();

    // The in-process MCP pair: the page's requests go through a real client and the protocol.
    let (client_io, server_io) = tokio::io::duplex(1 << 20);
    let mcp_server = server.clone();
    tokio::spawn(async move {
        match mcp_server.serve(server_io).await {
            Ok(running) => {
                let _ = running.waiting().await;
            }
            Err(e) => tracing::error!("in-process MCP server failed: {e}"),
        }
    });
    let client = ().serve(client_io).await.context("the in-process MCP handshake failed")?;

    let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, args.port))
        .await
        .with_context(|| {
            format!(
                "cannot listen on 127.0.0.1:{}; pick another with --port (0 = any free port)",
                args.port
            )
        })?;
    let local: SocketAddr = listener
        .local_addr()
        .context("cannot read the listening address")?;
    let token =
        crate::http::page::random_token().context("cannot read /dev/urandom for the page token")?;
    let state = Arc::new(api::State {
        client,
        tier,
        roots,
        pending,
        server,
        token: token.clone(),
        port: local.port(),
    });
    let app = api::router(state);
    // The URL is the one line on stdout, so scripts can read it; logs stay on stderr.
    println!("http://127.0.0.1:{}/?token={token}", local.port());
    tracing::info!("fs-mcp-rs ui serving at http://127.0.0.1:{}/", local.port());
    let signal = crate::signal::shutdown();
    let accepting = CancellationToken::new();
    let on_signal = accepting.clone();
    tokio::spawn(async move {
        signal.await;
        on_signal.cancel();
    });
    // The same connection handling as --http: header and idle timeouts, a connection cap of
    // which connections without the page's token hold at most half, 401/403 close.
    let open = crate::http::accept_connections(
        listener,
        app,
        &cli.http_limits(),
        &accepting,
        &TaskTracker::new(),
    )
    .await;
    // Waiting reviews answer CANCELLED and their files go. No graceful drain beyond a moment: a
    // propose_and_review call may be waiting minutes for a review.
    stop.cancel();
    open.close().await;
    Ok(())
}

/// Whether --review-command was given on the command line (clap fills in the VS Code default).
fn explicit_review_command() -> bool {
    std::env::args().any(|a| a == "--review-command" || a.starts_with("--review-command="))
}
