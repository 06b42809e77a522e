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
    #[command(subcommand)]
    pub command: Option<Command>,

    #[command(flatten)]
    pub serve: ServeArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check, diff and transform tool schemas against the Gemini-safe contract.
    #[command(subcommand)]
    Schema(SchemaCommand),
    /// Open a local web playground: try every tool, review proposals, see what Gemini is served.
    Ui(crate::ui::UiArgs),
    /// Serve another MCP server's tools with Gemini-safe schemas (arguments mapped back on every
    /// call); everything else passes through. `fs-mcp-rs proxy -- CMD [ARGS...]` or `--url URL`.
    Proxy(crate::proxy::ProxyArgs),
}
