//! Developer tasks: `cargo xtask <task>`.
//!
//! - `schemas [--tool NAME]`: every tool's raw schemars schema next to the Gemini-safe one.

mod schemas;

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("schemas") => schemas::run(&args[1..]),
        _ => {
            eprintln!("usage: cargo xtask schemas [--tool NAME]");
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
