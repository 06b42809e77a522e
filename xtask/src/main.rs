//! Developer tasks: `cargo xtask <task>`.
//!
//! - `test [CARGO TEST ARGS]`: install the real MCP clients the tests drive, then run every test.
//! - `clients install|verify`: install the test clients; verify OpenCode, Claude Code and
//!   Gemini CLI connect to the server.
//! - `schemas [--tool NAME]`: every tool's raw schemars schema next to the Gemini-safe one.

mod clients;
mod schemas;
mod test;

use std::process::ExitCode;

const USAGE: &str =
    "usage: cargo xtask <test [ARGS] | clients install|verify | schemas [--tool NAME]>";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rest = args.get(1..).unwrap_or_default();
    let result = match args.first().map(String::as_str) {
        Some("test") => test::run(rest),
        Some("clients") => clients::run(rest),
        Some("schemas") => schemas::run(rest),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e:#}");
            ExitCode::FAILURE
        }
    }
}
