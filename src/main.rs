//! The `fs-mcp-rs` binary: parse the CLI, set up stderr logging, build the sandbox and serve.

use std::process::ExitCode;

use clap::Parser;
use fs_mcp_rs::cli::{Cli, Command, ServeArgs};
use fs_mcp_rs::{FsServer, ServerOptions, Tier};
use fs_mcp_sandbox::Sandbox;
use rmcp::ServiceExt;
use tracing_subscriber::EnvFilter;

fn main() -> ExitCode {
    // A query worker evaluates one jq query and exits: before the CLI, the runtime or any output.
    if std::env::args().nth(1).as_deref() == Some(fs_mcp_rs::tools::query::WORKER_SUBCOMMAND) {
        return ExitCode::from(u8::try_from(fs_mcp_query::worker_main()).unwrap_or(1));
    }
    let cli = Cli::parse();
    if let Some(command) = cli.command {
        return match command {
            Command::Schema(schema) => fs_mcp_rs::schema_cli::run(schema),
            Command::Proxy(proxy) => {
                init_logging(proxy.log_level.as_deref());
                fs_mcp_rs::proxy::main(proxy)
            }
        };
    }
    let cli = cli.serve;
    init_logging(cli.log_level.as_deref());
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            tracing::error!("cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Logs go to stderr only: in stdio mode stdout is the JSON-RPC channel.
fn init_logging(level: Option<&str>) {
    const DEFAULT: &str = "warn,fs_mcp_rs=info";
    let filter = EnvFilter::try_from_default_env()
        .or_else(|_| EnvFilter::try_new(level.unwrap_or(DEFAULT)))
        .unwrap_or_else(|_| EnvFilter::new(DEFAULT));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
}

async fn run(cli: ServeArgs) -> anyhow::Result<()> {
    let (sandbox, skipped) = Sandbox::new(cli.allowed_dirs()).map_err(|e| {
        anyhow::anyhow!(
            "{e}. Give at least one existing directory, e.g. `fs-mcp-rs /path/to/project`."
        )
    })?;
    for dir in skipped {
        tracing::warn!(
            "skipping allowed directory {}: {}",
            dir.path.display(),
            dir.reason
        );
    }
    fs_mcp_rs::server::check_tool_names(&cli.disable_tools)
        .map_err(|e| anyhow::anyhow!("--disable-tools: {e}"))?;
    let tier = if cli.all { Tier::All } else { Tier::Core };
    let roots: Vec<String> = sandbox
        .roots()
        .iter()
        .map(|r| r.display().to_string())
        .collect();
    tracing::info!(
        "fs-mcp-rs {} ({:?} tier) allowed directories: {}",
        env!("CARGO_PKG_VERSION"),
        tier,
        roots.join(", ")
    );
    let review = cli
        .review_config()
        .map_err(|e| anyhow::anyhow!("--review-command: {e}"))?;
    let options = ServerOptions {
        tier,
        dirs_from_cli: !cli.dirs.is_empty(),
        review,
        query_memory_limit: cli.query_memory_mb.max(16).saturating_mul(1024 * 1024),
        read_only: cli.read_only,
        disabled_tools: cli.disable_tools.clone(),
    };
    let server = FsServer::new(sandbox, options)
        .map_err(|e| anyhow::anyhow!("cannot create the review session directory: {e}"))?;
    match cli.http {
        Some(addr) => fs_mcp_rs::http::serve(server, addr, cli.http_token.clone()).await,
        None => {
            let running = server
                .serve(rmcp::transport::stdio())
                .await
                .map_err(|e| anyhow::anyhow!("MCP handshake over stdio failed: {e}"))?;
            tokio::select! {
                result = running.waiting() => { result.map_err(|e| anyhow::anyhow!("stdio session ended with an error: {e}"))?; }
                _ = fs_mcp_rs::http::wait_for_signal() => { tracing::info!("shutting down"); }
            }
            Ok(())
        }
    }
}
