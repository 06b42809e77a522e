//! `cargo xtask test`: the project's test command. Installs the real MCP clients the integration
//! tests drive, runs the whole workspace's tests with those clients required, then the agent CLIs
//! end to end (`cargo xtask e2e`) and one quick benchmark run against the binary just tested, so
//! neither harness can rot.

use std::path::PathBuf;
use std::process::Command;

use anyhow::bail;

use crate::{bench, clients, e2e, util};

pub fn run(args: &[String]) -> anyhow::Result<()> {
    clients::install()?;
    let status = Command::new("cargo")
        .args(["test", "--workspace"])
        .args(args)
        .current_dir(util::workspace_root())
        .env("FS_MCP_REQUIRE_CLIENTS", "1")
        .env("FS_MCP_CLIENTS_DIR", clients::clients_dir())
        .status()?;
    if !status.success() {
        bail!("tests failed ({status})");
    }
    let server = target_dir().join("debug/fs-mcp-rs");
    eprintln!("xtask: cargo xtask e2e --server-bin {}", server.display());
    e2e::run_for_tests(&server)?;
    let quick: Vec<String> = ["--quick", "--no-install", "--server-bin"]
        .into_iter()
        .map(String::from)
        .chain([server.display().to_string()])
        .collect();
    eprintln!("xtask: cargo xtask bench {}", quick.join(" "));
    bench::run(&quick)
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| util::workspace_root().join("target"))
}
