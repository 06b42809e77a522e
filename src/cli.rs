//! Command-line interface: the top-level command and its subcommands. The serving flags shared
//! with `ui` and `proxy` live in [`crate::flags`], below every command that uses them.

use clap::{Parser, Subcommand};

use crate::flags::ServeArgs;
use crate::schema_cli::SchemaCommand;

/// A sandboxed MCP filesystem server: read, search, query and review edits of the given directories.
///
/// Speaks MCP over stdio by default (for clients that start it), or streamable HTTP at /mcp with --http.
#[derive(Debug, Parser)]
#[command(
    name = "fs-mcp-rs",
    version,
    about,
    long_about = None,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// A subcommand, or none to serve.
    #[command(subcommand)]
    pub command: Option<Command>,

    /// The serving flags.
    #[command(flatten)]
    pub serve: ServeArgs,
}

impl Cli {
    /// Parses the process's arguments, with `--http DIR` read as `--http` then `DIR` (see
    /// [`crate::flags::normalize_http_args`]).
    pub fn parse_args() -> Cli {
        Cli::parse_from(crate::flags::normalize_http_args(std::env::args_os()))
    }
}

/// The commands besides serving (the default).
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check, diff and transform tool schemas against the Gemini-safe contract.
    #[command(subcommand)]
    Schema(SchemaCommand),
    /// Open a local web playground: try every tool, review proposals, see what Gemini is served.
    // The page has its own port and token: the HTTP transport's flags (refused) are not listed.
    #[command(
        mut_arg("http", |a| a.hide(true)),
        mut_arg("http_token", |a| a.hide(true)),
        mut_arg("http_max_sessions", |a| a.hide(true)),
        mut_arg("http_session_timeout", |a| a.hide(true))
    )]
    Ui(crate::ui::UiArgs),
    /// Serve another MCP server's tools with Gemini-safe schemas (arguments mapped back on every
    /// call); everything else passes through. `fs-mcp-rs proxy -- CMD [ARGS...]` or `--url URL`.
    Proxy(crate::proxy::ProxyArgs),
}
