//! From serving arguments to a sandbox and server options: shared by the MCP transports and `ui`.

use std::future::Future;
use std::process::ExitCode;
use std::time::Duration;

use fs_mcp_sandbox::Sandbox;
use tokio_util::sync::CancellationToken;

use crate::context::{ReadLimits, ServerOptions, Tier};
use crate::flags::ServeArgs;
use crate::server::check_tool_names;

/// Builds the sandbox (skipped directories warned about) and the options `args` describe.
/// `example` is the command the error for "no usable directory" suggests.
pub fn prepare(
    args: &ServeArgs,
    example: &str,
    shutdown: CancellationToken,
) -> anyhow::Result<(Sandbox, ServerOptions)> {
    let (sandbox, skipped) = Sandbox::new(args.allowed_dirs()).map_err(|e| {
        anyhow::anyhow!("{e}. Give at least one existing directory, e.g. `{example}`.")
    })?;
    for dir in skipped {
        tracing::warn!(
            "skipping allowed directory {}: {}",
            dir.path.display(),
            dir.reason
        );
    }
    check_tool_names(&args.disable_tools).map_err(|e| anyhow::anyhow!("--disable-tools: {e}"))?;
    let tier = if args.all { Tier::All } else { Tier::Core };
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
    let review = args
        .review_config()
        .map_err(|e| anyhow::anyhow!("--review-command: {e}"))?;
    let options = ServerOptions {
        tier,
        dirs_from_cli: !args.dirs.is_empty(),
        review,
        review_via: args.review_via,
        review_page_is_client: false,
        query_memory_limit: args.query_memory_mb.max(16).saturating_mul(1024 * 1024),
        read_only: args.read_only,
        disabled_tools: args.disable_tools.clone(),
        shutdown,
        read_limits: ReadLimits {
            max_reply_bytes: args.max_reply_bytes.max(fs_mcp_read::MIN_REPLY_BYTES),
            max_line_bytes: args.max_line_bytes.max(1),
        },
        schema_profile: args.schema_profile,
        index: args.index,
    };
    Ok((sandbox, options))
}

/// Runs `work` to its end on a multi-threaded runtime and turns its outcome into the exit code
/// (an error is logged). Work still running afterwards (a file read on a blocking thread) gets
/// `grace` and must not hold the exit back longer.
pub fn run_to_exit(work: impl Future<Output = anyhow::Result<()>>, grace: Duration) -> ExitCode {
    run_to_exit_on(tokio::runtime::Builder::new_multi_thread(), work, grace)
}

/// [`run_to_exit`] on the runtime `builder` describes (every driver enabled).
pub fn run_to_exit_on(
    mut builder: tokio::runtime::Builder,
    work: impl Future<Output = anyhow::Result<()>>,
    grace: Duration,
) -> ExitCode {
    let runtime = match builder.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            tracing::error!("cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(work);
    runtime.shutdown_timeout(grace);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e:#}");
            ExitCode::FAILURE
        }
    }
}
