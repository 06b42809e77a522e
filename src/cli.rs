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
        let args = crate::flags::normalize_http_args(std::env::args_os());
        // Serving, the start every client makes, is parsed without building the subcommands'
        // arguments (most of clap's work before the first reply). Anything else (a subcommand,
        // --help, --version, a mistake) goes through the whole command, so its output is the same.
        let may_name_a_subcommand = args
            .iter()
            .skip(1)
            .any(|arg| SUBCOMMAND_NAMES.iter().any(|name| arg == name));
        if !may_name_a_subcommand && let Ok(serving) = Serving::try_parse_from(&args) {
            return Cli {
                command: None,
                serve: serving.serve,
            };
        }
        Cli::parse_from(args)
    }
}

/// Every word that names a subcommand of [`Cli`] (clap's own `help` too); a test checks the list
/// against the command.
const SUBCOMMAND_NAMES: &[&str] = &["schema", "ui", "proxy", "help"];

/// The serving command alone: [`Cli`] without its subcommands.
#[derive(Debug, Parser)]
#[command(name = "fs-mcp-rs")]
struct Serving {
    #[command(flatten)]
    serve: ServeArgs,
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

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn the_subcommand_names_are_the_commands() {
        let command = Cli::command();
        let mut names: Vec<&str> = command
            .get_subcommands()
            .flat_map(|c| std::iter::once(c.get_name()).chain(c.get_all_aliases()))
            .collect();
        names.push("help");
        names.sort_unstable();
        let mut listed = SUBCOMMAND_NAMES.to_vec();
        listed.sort_unstable();
        assert_eq!(names, listed);
    }

    #[test]
    fn serving_parses_as_the_whole_command_does() {
        for args in [
            &["fs-mcp-rs"][..],
            &["fs-mcp-rs", "a", "b"],
            &["fs-mcp-rs", "--all", "--read-only", "."],
            &[
                "fs-mcp-rs",
                "--review-command",
                "none",
                "--max-reply-bytes",
                "100",
                "d",
            ],
            &["fs-mcp-rs", "--http", "9000", "d"],
        ] {
            let whole = Cli::try_parse_from(args).expect("parses");
            let serving = Serving::try_parse_from(args).expect("parses");
            assert!(whole.command.is_none());
            assert_eq!(format!("{:?}", whole.serve), format!("{:?}", serving.serve));
        }
    }
}
