//! What the binary runs, from its first line: the query worker, the CLI, stderr logging, the
//! runtime, and serving until the input ends or a signal arrives. In the library, not in
//! `main.rs`: generic code instantiated here is compiled once, for the library, and not again for
//! the binary (a release build does not share generics across crates).

use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::cli::{Cli, Command};
use crate::context::FsServer;
use crate::flags::ServeArgs;
use crate::stdio::PendingReplies;
use rmcp::ServiceExt;
use tokio_util::sync::CancellationToken;
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::layer::Filter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer, Registry};

/// The whole program: `main.rs` calls this and nothing else.
pub fn main() -> ExitCode {
    // A query worker evaluates one jq query and exits: before the CLI, the runtime or any output.
    if std::env::args().nth(1).as_deref() == Some(crate::tools::query::WORKER_SUBCOMMAND) {
        return ExitCode::from(u8::try_from(fs_mcp_query::worker_main()).unwrap_or(1));
    }
    let cli = Cli::parse_args();
    match cli.command {
        Some(command) => subcommand(command),
        None => serve(cli.serve),
    }
}

// Each command runs in a frame of its own (`inline(never)`): inlined into `main`, their futures
// made one 88 KB frame whose every page was touched (stack probes) at each start, a fault each.

/// A subcommand: `schema`, `ui` or `proxy`.
#[inline(never)]
fn subcommand(command: Command) -> ExitCode {
    match command {
        Command::Schema(schema) => crate::schema_cli::run(schema),
        Command::Ui(ui) => {
            init_logging(ui.serve.log_level.as_deref(), false);
            crate::ui::run(ui)
        }
        Command::Proxy(proxy) => {
            init_logging(proxy.log_level.as_deref(), proxy.listen.http.is_some());
            crate::proxy::main(proxy)
        }
    }
}

/// Serving over stdio (the start every client makes) or HTTP.
#[inline(never)]
fn serve(cli: ServeArgs) -> ExitCode {
    init_logging(cli.log_level.as_deref(), cli.listen.http.is_some());
    // One stdio client is served well by one thread: tools run on the blocking pool either way,
    // and worker threads started before the first reply only delayed it (thread starts and
    // hand-offs on a busy machine). Over HTTP, many clients: a worker per core.
    let runtime = match cli.listen.http {
        Some(_) => tokio::runtime::Builder::new_multi_thread(),
        None => tokio::runtime::Builder::new_current_thread(),
    };
    // Work still running (a file read on a blocking thread) must not hold the exit back.
    // Boxed: the future is large, and moved by value it is copied into each frame on the way.
    crate::setup::run_to_exit_on(runtime, Box::pin(run(cli)), SHUTDOWN_LEFTOVERS)
}

/// How long the runtime waits for leftover blocking work at exit.
const SHUTDOWN_LEFTOVERS: Duration = Duration::from_millis(100);
/// How long a stdio shutdown waits for pending replies (cancelled reviews) to be written.
const REPLY_GRACE: Duration = Duration::from_millis(400);

/// Logs go to stderr only (in stdio mode stdout is the JSON-RPC channel), and to clients that
/// asked for them with `logging/setLevel`.
fn init_logging(level: Option<&str>, http: bool) {
    // Clients that start a stdio server (Claude Code) show every stderr line as an error: a
    // normal start prints nothing. Over HTTP a person started the server and wants its URL.
    let default = if http { "warn,fs_mcp_rs=info" } else { "warn" };
    // The usual start (stdio, no RUST_LOG, no --log-level) is warnings only: a level filter does
    // that without EnvFilter's directive parsing and per-callsite matching.
    let filter: Box<dyn Filter<Registry> + Send + Sync> =
        if !http && level.is_none() && std::env::var_os(EnvFilter::DEFAULT_ENV).is_none() {
            Box::new(LevelFilter::WARN)
        } else {
            Box::new(
                EnvFilter::try_from_default_env()
                    .or_else(|_| EnvFilter::try_new(level.unwrap_or(default)))
                    .unwrap_or_else(|_| EnvFilter::new(default)),
            )
        };
    let stderr = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_filter(filter);
    tracing_subscriber::registry()
        .with(stderr)
        .with(crate::client_log::layer())
        .init();
}

async fn run(cli: ServeArgs) -> anyhow::Result<()> {
    // Over stdio the reader and writer threads start first: they are up, and the client's first
    // line read, by the time the server is built.
    let stdio = cli.listen.http.is_none().then(crate::stdio::transport);
    // Watch for SIGTERM/SIGINT before anything else, so a signal always means a clean shutdown.
    let stop = CancellationToken::new();
    let signalled = stop.clone();
    let signal = crate::signal::shutdown();
    tokio::spawn(async move {
        signal.await;
        tracing::info!("shutting down");
        signalled.cancel();
    });
    let (sandbox, options) =
        crate::setup::prepare(&cli, "fs-mcp-rs /path/to/project", CancellationToken::new())?;
    let server = crate::server::new_server(sandbox, options)
        .map_err(|e| anyhow::anyhow!("cannot create the review session directory: {e}"))?;
    match cli.listen.http {
        Some(addr) => {
            // Many sessions will list the tools: built before the first is accepted.
            server.prepare_tools();
            let limits = cli.http_limits();
            let token = cli.listen.http_token.clone();
            Box::pin(crate::http::serve(server, addr, token, limits, stop)).await
        }
        None => {
            let stdio = stdio.unwrap_or_else(crate::stdio::transport);
            Box::pin(serve_stdio(server, stdio, stop)).await
        }
    }
}

/// Serves one client over stdin/stdout until stdin ends or a signal arrives. Either way, pending
/// reviews are answered (CANCELLED) and their files removed before returning.
async fn serve_stdio(
    server: FsServer,
    (transport, pending): (crate::stdio::StdioTransport, Arc<PendingReplies>),
    stop: CancellationToken,
) -> anyhow::Result<()> {
    let running = tokio::select! {
        running = server.clone().serve(transport) => running,
        () = stop.cancelled() => {
            server.end_reviews(REPLY_GRACE).await;
            return Ok(());
        }
    };
    let running = match running {
        Ok(running) => {
            // The `initialize` reply is out: build the tools while the client reads it.
            server.prepare_tools();
            running
        }
        // Input closed before the handshake ended (a client probing the command, `< /dev/null`):
        // nothing was asked, so nothing failed.
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(during)) => {
            tracing::debug!("stdin closed before the MCP handshake ended ({during})");
            server.end_reviews(REPLY_GRACE).await;
            return Ok(());
        }
        Err(e) => {
            server.end_reviews(REPLY_GRACE).await;
            return Err(anyhow::anyhow!("MCP handshake over stdio failed: {e}"));
        }
    };
    let service = running.cancellation_token();
    let waiting = running.waiting();
    tokio::pin!(waiting);
    let ended = tokio::select! {
        ended = &mut waiting => Some(ended),
        () = stop.cancelled() => None,
        () = pending.input_ended() => None,
    };
    let started = Instant::now();
    server.end_reviews(REPLY_GRACE).await;
    if let Some(ended) = ended {
        ended.map_err(|e| anyhow::anyhow!("stdio session ended with an error: {e}"))?;
        return Ok(());
    }
    // Signalled, or stdin ended with calls still running: let the replies of cancelled reviews
    // (and any other answer under way) out first, then stop the calls that are left.
    pending
        .wait_all_answered(REPLY_GRACE.saturating_sub(started.elapsed()))
        .await;
    service.cancel();
    let _ = tokio::time::timeout(SHUTDOWN_LEFTOVERS, waiting).await;
    Ok(())
}
