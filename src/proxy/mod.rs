//! `fs-mcp-rs proxy`: serve another MCP server (the upstream) with every tool schema made
//! Gemini-safe, arguments mapped back to the upstream's raw schema on every call, and everything
//! else passed through.
//!
//! One upstream connection per client session: the upstream sees the client's own capabilities
//! (roots, sampling, elicitation) and its requests reach the one client that can answer them.

mod child;
mod http_raw;
mod scan;
mod session;
mod tools;
mod upstream;

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::Args;
use rmcp::ServiceExt;
use tokio_util::sync::CancellationToken;

pub use gemini_compat::SchemaProfile;
pub use session::{ProxyService, ProxySession};

/// Options of `fs-mcp-rs proxy`.
#[derive(Debug, Args)]
#[command(
    after_help = "Examples:\n  fs-mcp-rs proxy -- npx -y @notionhq/notion-mcp-server\n  fs-mcp-rs proxy --http 127.0.0.1:8125 -- uvx mcp-server-git\n  fs-mcp-rs proxy --url http://127.0.0.1:9000/mcp\n\nThe upstream's stderr goes to the proxy's stderr. If the upstream exits or its connection \
drops, pending calls fail with an error saying so and the proxy exits with status 1 (it does not restart it). \
When the client leaves (end of input, HTTP session end) or on SIGTERM/SIGINT, the upstream's stdin is closed; \
if it has not exited 2 s later it gets SIGTERM, and 2 s after that SIGKILL (its whole process group)."
)]
pub struct ProxyArgs {
    /// Where to serve HTTP, if not stdio.
    #[command(flatten)]
    pub listen: crate::flags::HttpListen,

    /// The upstream is a streamable-HTTP MCP server at this URL (http:// only) instead of a command.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    pub url: Option<String>,

    /// Log level for stderr (error, warn, info, debug, trace); RUST_LOG takes precedence.
    #[arg(long, value_name = "LEVEL")]
    pub log_level: Option<String>,

    /// Tool schemas served to clients (the values and their help come from the profile registry).
    #[arg(long, value_name = "PROFILE", default_value = "gemini", value_parser = crate::flags::schema_profile_parser(), help = crate::flags::SCHEMA_PROFILE_HELP)]
    pub schema_profile: SchemaProfile,

    /// The upstream MCP server to start (stdio), after `--`: `fs-mcp-rs proxy -- CMD [ARGS...]`.
    #[arg(
        last = true,
        value_name = "CMD",
        required_unless_present = "url",
        num_args = 1..
    )]
    pub command: Vec<String>,
}

/// Where the upstream is.
#[derive(Debug, Clone)]
pub enum UpstreamSpec {
    /// A command speaking MCP over its stdin/stdout.
    Command {
        /// The program, looked up on `PATH`.
        program: String,
        /// Its arguments, as given after `--`.
        args: Vec<String>,
    },
    /// A streamable-HTTP endpoint.
    Url(String),
}

impl UpstreamSpec {
    fn from_args(args: &ProxyArgs) -> Result<UpstreamSpec, String> {
        if let Some(url) = &args.url {
            if !url.starts_with("http://") {
                return Err(format!(
                    "--url {url}: only http:// upstreams are supported; for https, run the proxy next to a local relay or wrap the server's stdio command instead"
                ));
            }
            return Ok(UpstreamSpec::Url(url.clone()));
        }
        let mut parts = args.command.iter().cloned();
        match parts.next() {
            Some(program) if !program.is_empty() => Ok(UpstreamSpec::Command {
                program,
                args: parts.collect(),
            }),
            _ => Err("no upstream: give `-- CMD [ARGS...]` or `--url URL`".into()),
        }
    }

    /// How log lines and errors name the upstream.
    pub fn describe(&self) -> String {
        match self {
            UpstreamSpec::Command { program, args } => {
                let mut s = program.clone();
                for a in args {
                    s.push(' ');
                    s.push_str(a);
                }
                s
            }
            UpstreamSpec::Url(url) => url.clone(),
        }
    }
}

/// What every session of one proxy process shares.
pub struct Shared {
    /// Where the upstream is (a command or a URL).
    pub upstream: UpstreamSpec,
    /// `--schema-profile` (`auto` is resolved per session from the client's name).
    pub profile: SchemaProfile,
    /// Cancelled when an upstream dies: the proxy then exits.
    pub upstream_died: CancellationToken,
    /// Upstream processes started, so none outlives the proxy.
    children: Mutex<Vec<Arc<child::UpstreamChild>>>,
    /// Set when the proxy shuts its upstreams down: their connections closing is no crash.
    pub stopping: std::sync::atomic::AtomicBool,
}

impl Shared {
    fn register(&self, child: Arc<child::UpstreamChild>) {
        let mut children = self.children.lock().unwrap_or_else(|e| e.into_inner());
        children.retain(|c| !c.has_exited());
        children.push(child);
    }

    /// Shuts every upstream process down (stdin closed, SIGTERM, SIGKILL; bounded), together.
    async fn stop_upstreams(&self) {
        self.stopping
            .store(true, std::sync::atomic::Ordering::SeqCst);
        let children =
            std::mem::take(&mut *self.children.lock().unwrap_or_else(|e| e.into_inner()));
        let mut stopping = tokio::task::JoinSet::new();
        for child in children {
            stopping.spawn(async move { child.shut_down().await });
        }
        while stopping.join_next().await.is_some() {}
    }
}

/// How long a handshake under way may still finish once the client's input has ended.
const HANDSHAKE_AFTER_EOF: Duration = Duration::from_secs(1);
/// How long replies under way may take once the client's input has ended or a signal came.
const REPLY_GRACE: Duration = Duration::from_secs(1);

/// Runs the proxy until the client leaves, a signal arrives or the upstream dies.
pub fn main(args: ProxyArgs) -> ExitCode {
    let spec = match UpstreamSpec::from_args(&args) {
        Ok(spec) => spec,
        Err(e) => {
            tracing::error!("{e}");
            return ExitCode::FAILURE;
        }
    };
    // `run` shuts the upstream down itself; do not wait for stragglers.
    crate::setup::run_to_exit(
        run(
            spec,
            args.schema_profile,
            args.listen.http,
            args.listen.http_token,
        ),
        Duration::from_millis(500),
    )
}

async fn run(
    spec: UpstreamSpec,
    profile: SchemaProfile,
    http: Option<SocketAddr>,
    token: Option<String>,
) -> anyhow::Result<()> {
    tracing::info!(
        "fs-mcp-rs {} proxy for {}",
        env!("CARGO_PKG_VERSION"),
        spec.describe()
    );
    let shared = Arc::new(Shared {
        upstream: spec,
        profile,
        upstream_died: CancellationToken::new(),
        children: Mutex::new(Vec::new()),
        stopping: std::sync::atomic::AtomicBool::new(false),
    });
    let result = match http {
        Some(addr) => serve_http(&shared, addr, token).await,
        None => serve_stdio(&shared).await,
    };
    shared.stop_upstreams().await;
    result
}

fn died_error(shared: &Shared) -> anyhow::Error {
    anyhow::anyhow!(
        "the upstream MCP server ({}) exited; the proxy stops",
        shared.upstream.describe()
    )
}

async fn serve_http(
    shared: &Arc<Shared>,
    addr: SocketAddr,
    token: Option<String>,
) -> anyhow::Result<()> {
    let died = shared.upstream_died.clone();
    // The HTTP server stops on a signal or when an upstream dies.
    let stop = CancellationToken::new();
    let signal = crate::signal::shutdown();
    let stopper = stop.clone();
    let died_watch = died.clone();
    tokio::spawn(async move {
        tokio::select! {
            () = signal => tracing::info!("shutting down"),
            () = died_watch.cancelled() => linger_for_error_replies().await,
        }
        stopper.cancel();
    });
    let sessions = ProxySessions(Arc::clone(shared));
    let limits = crate::http::HttpLimits::default();
    crate::http::serve(sessions, addr, token, limits, stop).await?;
    if died.is_cancelled() {
        return Err(died_error(shared));
    }
    Ok(())
}

/// Serves one client over stdin/stdout (the server's framing: unparsable lines are answered)
/// until its input ends, a signal arrives or the upstream dies; also while the upstream's
/// handshake is still under way.
async fn serve_stdio(shared: &Arc<Shared>) -> anyhow::Result<()> {
    let died = shared.upstream_died.clone();
    let (transport, pending) = crate::stdio::transport();
    let signal = crate::signal::shutdown();
    tokio::pin!(signal);
    let serving = ProxyService::new(ProxySession::new(Arc::clone(shared))).serve(transport);
    tokio::pin!(serving);
    let running = tokio::select! {
        running = &mut serving => running,
        () = pending.stdin_closed() => match tokio::time::timeout(HANDSHAKE_AFTER_EOF, &mut serving).await {
            Ok(running) => running,
            Err(_) => {
                tracing::info!("the client left before the handshake was over");
                return Ok(());
            }
        },
        () = &mut signal => {
            tracing::info!("shutting down");
            return Ok(());
        }
        () = died.cancelled() => return Err(died_error(shared)),
    }
    .map_err(|e| anyhow::anyhow!("MCP handshake over stdio failed: {e}"))?;
    let service = running.cancellation_token();
    let waiting = running.waiting();
    tokio::pin!(waiting);
    tokio::select! {
        biased;
        _ = died.cancelled() => {
            linger_for_error_replies().await;
            return Err(died_error(shared));
        }
        result = &mut waiting => {
            result.map_err(|e| anyhow::anyhow!("stdio session ended with an error: {e}"))?;
            if died.is_cancelled() {
                return Err(died_error(shared));
            }
            return Ok(());
        }
        // rmcp would wait for running calls (an upstream that never answers) before it ends.
        () = pending.input_ended() => {}
        () = &mut signal => tracing::info!("shutting down"),
    }
    pending.wait_all_answered(REPLY_GRACE).await;
    service.cancel();
    let _ = tokio::time::timeout(Duration::from_millis(200), waiting).await;
    Ok(())
}

/// `fs-mcp-rs proxy --http`: one [`ProxySession`] (and upstream connection) per client session.
struct ProxySessions(Arc<Shared>);

impl crate::http::HttpSessions for ProxySessions {
    type Session = ProxySession;
    fn new_session(&self) -> ProxySession {
        ProxySession::new(Arc::clone(&self.0))
    }
    async fn end(&self, _grace: Duration) {
        // Nothing of the proxy's own is pending: upstream calls end with their sessions.
    }
    fn wrap_mcp(&self, mcp: axum::Router) -> axum::Router {
        mcp.layer(axum::middleware::from_fn(http_raw::keep_raw))
    }
}

/// The calls pending when the upstream died are answered with an error by their own tasks; give
/// those replies a moment to reach the client before the process ends.
async fn linger_for_error_replies() {
    tokio::time::sleep(Duration::from_millis(200)).await;
}
