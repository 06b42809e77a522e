//! `cargo xtask test`: the project's test command. Installs the real MCP clients the integration
//! tests drive, then runs the whole workspace's tests with those clients required.

use std::process::Command;

use anyhow::bail;

use crate::clients;

pub fn run(args: &[String]) -> anyhow::Result<()> {
    clients::install()?;
    let status = Command::new("cargo")
        .args(["test", "--workspace"])
        .args(args)
        .current_dir(clients::workspace_root())
        .env("FS_MCP_REQUIRE_CLIENTS", "1")
        .env("FS_MCP_CLIENTS_DIR", clients::clients_dir())
        .status()?;
    if !status.success() {
        bail!("tests failed ({status})");
    }
    Ok(())
}
