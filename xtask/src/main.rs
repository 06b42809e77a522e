//! Developer tasks: `cargo xtask <task>`.
//!
//! - `test [CARGO TEST ARGS]`: install the real MCP clients the tests drive, run every test, the
//!   agent CLIs end to end and a smoke run of the benchmarks; the last line says what passed.
//! - `bench [all|startup|read|grep|query|tree]… [--quick] …`: fs-mcp-rs side by side with the
//!   original fs-mcp, the official filesystem server, rg, jq and yq; writes docs/BENCHMARKS.md.
//! - `clients install|verify`: install the test clients; verify OpenCode, Claude Code and
//!   Gemini CLI connect to the server.
//! - `e2e [--cli NAME] [--transport stdio|http|proxy] [--scenario standard|review]`: those three CLIs call the tools against a
//!   scripted stand-in model, offline, configured as README.md shows.
//! - `schemas [--tool NAME]`: every tool's raw schemars schema next to the Gemini-safe one.
//! - `dist [--profile dist|release] [--target TRIPLE]…`: the release packages (tarball, wheel,
//!   npm) into `target/dist/`; `dist test` installs them offline and runs the agent CLIs on
//!   them; `dist licenses` checks and lists the dependencies' licenses; `dist lint` lints the
//!   release workflow.
//! - `replay record|check [--binary PATH] [--out|--against FILE]`: the recorded run (a few
//!   hundred calls over a fixture) against a server binary, written to or compared with
//!   `tests/golden/replay.jsonl`.

// A developer tool, not the server: a panic here stops a task on the developer's machine, so
// it opts out of the workspace's no-unwrap rule.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod bench;
mod clients;
mod dist;
mod docs;
mod e2e;
mod leftovers;
mod races;
mod replay;
mod schemas;
mod test;
mod util;

use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask <test [CARGO TEST ARGS] | bench [all|startup|read|grep|query|tree|proxy]... [--quick] | e2e [--cli NAME] [--transport stdio|http|proxy] [--scenario standard|review] | races [--runs N] [--load N] [--filter WORD] | replay record|check [--binary PATH] [--out|--against FILE] | clients install|verify | schemas [--tool NAME] | docs | dist [--profile P] [--target T]... | dist test|licenses|lint>
  `cargo xtask bench --help` lists the benchmark options.";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rest = args.get(1..).unwrap_or_default();
    let result = match args.first().map(String::as_str) {
        Some("bench") => bench::run(rest),
        Some("test") => return test::main(rest),
        Some("clients") => clients::run(rest),
        Some("e2e") => e2e::run(rest),
        Some("schemas") => schemas::run(rest),
        Some("docs") => docs::run(rest),
        Some("races") => races::run(rest),
        Some("replay") => replay::run(rest),
        Some("dist") => dist::run(rest),
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
