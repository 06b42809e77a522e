//! `cargo xtask e2e [--cli NAME] [--transport stdio|http|proxy]`: the real agent CLIs (Gemini CLI,
//! Claude Code, OpenCode) drive fs-mcp-rs, configured as README.md shows, against a scripted
//! stand-in model on 127.0.0.1, offline, over stdio, streamable HTTP, and stdio through
//! `fs-mcp-rs proxy` (`proxy`); and the AI SDK harness (`--cli ai-sdk`, see `ai_sdk.rs`) drives
//! the proxy in front of a pydantic server.
//!
//! Each CLI × transport is one headless session in which the stand-in asks for every scenario in
//! turn (see `script.rs`); a scenario passes when the tool's result, with the expected content,
//! reaches the model's next request. Everything of a run (project, home, the model's request log,
//! the CLI's output, the HTTP server's log) stays in `target/e2e/<cli>-<transport>/`.
//!
//! `--scenario review` (also in the default run) reviews a proposal without `--auto-approve`:
//! Claude Code's own form driven under tmux, Gemini CLI's review page link (see `review.rs`);
//! those runs are in `target/e2e/<cli>-review-*/`.

pub mod agents;
pub mod ai_sdk;
pub mod exchange;
pub mod model;
pub mod readme;
pub mod review;
pub mod script;
#[cfg(test)]
mod tests;

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use agents::{Cli, Session, Transport};
use model::StandIn;
use script::{Outcome, RunEnd, Script};

use crate::util;

const USAGE: &str = "usage: cargo xtask e2e [--cli gemini|claude|opencode|ai-sdk]... \
[--transport stdio|http|proxy] [--scenario standard|review] [--server-bin PATH] [--no-install] \
[--timeout SECONDS]";

/// Which sessions run: the standard script (each CLI × transport, with `--auto-approve`), and
/// the review scenarios (see review.rs: Claude Code's form under tmux, Gemini CLI's page link).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scenario {
    Standard,
    Review,
}

impl Scenario {
    fn parse(name: &str) -> anyhow::Result<Scenario> {
        match name.to_ascii_lowercase().as_str() {
            "standard" => Ok(Scenario::Standard),
            "review" => Ok(Scenario::Review),
            _ => bail!("unknown scenario `{name}` (standard, review)"),
        }
    }
}

struct Options {
    clis: Vec<Cli>,
    scenarios: Vec<Scenario>,
    /// Run the AI SDK harness (`--cli ai-sdk`, or no `--cli`).
    ai_sdk: bool,
    transports: Vec<Transport>,
    server_bin: Option<PathBuf>,
    install: bool,
    timeout: Duration,
    /// A packaged server (`cargo xtask dist test`); `None`: the binary at `server_bin`.
    packaged: Option<Packaged>,
}

/// A packaged command line the stdio runs start instead of the README's `fs-mcp-rs`.
pub struct Packaged {
    /// Names the runs' folder: `target/e2e-<name>/`.
    pub name: String,
    /// The command line that replaces `fs-mcp-rs` (ending with `fs-mcp-rs`).
    pub words: Vec<String>,
    /// Programs it needs on the CLIs' `PATH` (e.g. `uvx`), linked into the runs' `bin/`.
    pub programs: Vec<PathBuf>,
    /// Environment for the CLIs and what they start (offline package managers).
    pub env: Vec<(String, String)>,
}

impl Options {
    fn parse(args: &[String]) -> anyhow::Result<Options> {
        let mut options = Options {
            clis: Vec::new(),
            scenarios: Vec::new(),
            ai_sdk: false,
            transports: Vec::new(),
            server_bin: None,
            install: true,
            timeout: Duration::from_secs(120),
            packaged: None,
        };
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            let mut value = || {
                args.next()
                    .with_context(|| format!("{arg} needs a value\n{USAGE}"))
            };
            match arg.as_str() {
                "--cli" => {
                    for name in value()?.split(',') {
                        if name.eq_ignore_ascii_case(AI_SDK_KEY) {
                            options.ai_sdk = true;
                        } else {
                            options.clis.push(Cli::parse(name)?);
                        }
                    }
                }
                "--transport" => {
                    for name in value()?.split(',') {
                        options.transports.push(Transport::parse(name)?);
                    }
                }
                "--scenario" => {
                    for name in value()?.split(',') {
                        options.scenarios.push(Scenario::parse(name)?);
                    }
                }
                "--server-bin" => options.server_bin = Some(PathBuf::from(value()?)),
                "--no-install" => options.install = false,
                "--timeout" => {
                    let secs: u64 = value()?.parse().context("--timeout takes seconds")?;
                    options.timeout = Duration::from_secs(secs.max(1));
                }
                _ => bail!("unknown argument `{arg}`\n{USAGE}"),
            }
        }
        let only_review =
            !options.scenarios.is_empty() && !options.scenarios.contains(&Scenario::Standard);
        if options.clis.is_empty() && !options.ai_sdk {
            options.clis = Cli::ALL.to_vec();
            // The AI SDK harness is part of the standard sessions.
            options.ai_sdk = !only_review;
        }
        if only_review {
            options.ai_sdk = false;
        }
        if options.scenarios.is_empty() {
            options.scenarios = vec![Scenario::Standard, Scenario::Review];
        }
        if options.transports.is_empty() {
            options.transports = Transport::ALL.to_vec();
        }
        Ok(options)
    }
}

pub fn run(args: &[String]) -> anyhow::Result<()> {
    let options = Options::parse(args)?;
    let server = match &options.server_bin {
        Some(path) => path.clone(),
        None => build_server()?,
    };
    if options.install {
        crate::clients::agents::install()?;
        if options.ai_sdk && !ai_sdk::installed() {
            crate::clients::install()?;
        }
        if options.review_in_tmux() {
            crate::clients::install_tmux()?;
        }
    }
    let tally = run_sessions(&options, Some(&server))?;
    tally.check()
}

/// `cargo xtask dist test`'s part: Claude Code, Gemini CLI and OpenCode over stdio, the
/// standard script, each starting the server with a packaged command line.
pub fn run_packaged(packaged: Packaged) -> anyhow::Result<Tally> {
    crate::clients::agents::install()?;
    let mut options = Options::parse(&["--scenario".into(), "standard".into()])?;
    options.transports = vec![Transport::Stdio];
    options.ai_sdk = false;
    options.packaged = Some(packaged);
    run_sessions(&options, None)
}

/// How many end-to-end checks passed and failed, and where their logs are.
pub struct Tally {
    pub passed: usize,
    pub failed: usize,
    pub logs: PathBuf,
}

impl Tally {
    /// An error naming the failures, if any.
    pub fn check(&self) -> anyhow::Result<()> {
        if self.failed > 0 {
            bail!(
                "{} of {} end-to-end checks failed; each run's requests to the model, CLI output and server log are in {}",
                self.failed,
                self.passed + self.failed,
                self.logs.display()
            );
        }
        Ok(())
    }
}

/// `cargo xtask test`'s part: the harness against the binary the tests just used. When the CLIs
/// cannot be installed it skips, loudly, unless `FS_MCP_REQUIRE_CLIENTS=1` (as in CI).
pub fn run_for_tests(server: &Path) -> anyhow::Result<Tally> {
    if let Err(e) = crate::clients::agents::install() {
        if std::env::var("FS_MCP_REQUIRE_CLIENTS").as_deref() == Ok("1") {
            return Err(e.context("installing the agent CLIs for `cargo xtask e2e`"));
        }
        eprintln!(
            "\n################################################################\n\
             xtask: SKIPPING the agent CLI end-to-end tests (cargo xtask e2e):\n\
             the CLIs could not be installed: {e:#}\n\
             Set FS_MCP_REQUIRE_CLIENTS=1 to make this an error.\n\
             ################################################################\n"
        );
        return Ok(Tally {
            passed: 0,
            failed: 0,
            logs: target_dir().join("e2e"),
        });
    }
    let options = Options::parse(&[])?;
    if options.review_in_tmux()
        && let Err(e) = crate::clients::install_tmux()
    {
        // The Claude Code review run then fails its setup check, saying why.
        eprintln!("xtask: tmux for the Claude Code review scenario: {e:#}");
    }
    run_sessions(&options, Some(server))
}

impl Options {
    /// Whether a review scenario drives Claude Code under tmux.
    fn review_in_tmux(&self) -> bool {
        self.scenarios.contains(&Scenario::Review) && self.clis.contains(&Cli::Claude)
    }
}

/// `--cli ai-sdk`: the AI SDK harness (see ai_sdk.rs).
const AI_SDK_KEY: &str = "ai-sdk";

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| util::workspace_root().join("target"))
}

fn build_server() -> anyhow::Result<PathBuf> {
    let status = Command::new("cargo")
        .args(["build", "--quiet", "-p", "fs-mcp-rs"])
        .current_dir(util::workspace_root())
        .status()
        .context("cargo build")?;
    if !status.success() {
        bail!("cargo build -p fs-mcp-rs failed ({status})");
    }
    Ok(target_dir().join("debug/fs-mcp-rs"))
}

fn run_sessions(options: &Options, server: Option<&Path>) -> anyhow::Result<Tally> {
    let server = match server {
        Some(server) => server
            .canonicalize()
            .with_context(|| format!("no server binary at {}", server.display()))?,
        None => PathBuf::from("fs-mcp-rs"),
    };
    let snippets = readme::snippets(&readme::readme_text()?)?;
    let out = target_dir().join(match &options.packaged {
        Some(packaged) => format!("e2e-{}", packaged.name),
        None => "e2e".to_string(),
    });
    if out.exists() {
        std::fs::remove_dir_all(&out).with_context(|| format!("clean {}", out.display()))?;
    }
    let server_dir = out.join("bin");
    std::fs::create_dir_all(&server_dir)?;
    match &options.packaged {
        // The binary as `fs-mcp-rs` on PATH, as `cargo install` leaves it.
        None => std::os::unix::fs::symlink(&server, server_dir.join("fs-mcp-rs"))?,
        // No `fs-mcp-rs` on PATH: the package must bring it.
        Some(packaged) => {
            for program in &packaged.programs {
                let name = program.file_name().context("a program without a name")?;
                std::os::unix::fs::symlink(program, server_dir.join(name))?;
            }
        }
    }

    let mut rows: Vec<(&str, &str, Vec<Outcome>)> = Vec::new();
    let standard = options.scenarios.contains(&Scenario::Standard);
    for &cli in options.clis.iter().filter(|_| standard) {
        for &transport in &options.transports {
            eprintln!("xtask e2e: {} over {} …", cli.label(), transport.key());
            let started = Instant::now();
            let dir = out.join(format!("{}-{}", cli.key(), transport.key()));
            let outcomes = run_session(
                cli,
                transport,
                &dir,
                &server,
                &server_dir,
                &snippets,
                options,
            )
            .unwrap_or_else(setup_failed);
            report_run(
                &format!("{} over {}", cli.label(), transport.key()),
                &outcomes,
                started,
                &dir,
            );
            rows.push((cli.label(), transport.key(), outcomes));
        }
    }
    if options.scenarios.contains(&Scenario::Review) {
        run_reviews(options, &out, &server_dir, &snippets, &mut rows);
    }
    if options.ai_sdk {
        eprintln!("xtask e2e: AI SDK over fs-mcp-rs proxy …");
        let dir = out.join(AI_SDK_KEY);
        let started = Instant::now();
        let outcomes = ai_sdk::run(&dir, &server, options.timeout).unwrap_or_else(setup_failed);
        report_run("AI SDK over proxy", &outcomes, started, &dir);
        rows.push(("AI SDK", "proxy", outcomes));
    }
    print_table(&rows);
    let total: usize = rows.iter().map(|(_, _, o)| o.len()).sum();
    let failed: usize = rows
        .iter()
        .map(|(_, _, o)| o.iter().filter(|o| !o.pass).count())
        .sum();
    println!("e2e: {} passed, {failed} failed", total - failed);
    Ok(Tally {
        passed: total - failed,
        failed,
        logs: out,
    })
}

/// The review scenarios (review.rs), over stdio: Claude Code approves and rejects in its own
/// form under tmux; Gemini CLI gets the review page's link. OpenCode has none yet.
fn run_reviews(
    options: &Options,
    out: &Path,
    server_dir: &Path,
    snippets: &std::collections::BTreeMap<String, String>,
    rows: &mut Vec<(&str, &str, Vec<Outcome>)>,
) {
    for &cli in &options.clis {
        if cli == Cli::Claude
            && !Path::new(crate::clients::TMUX).exists()
            && std::env::var("FS_MCP_REQUIRE_CLIENTS").as_deref() != Ok("1")
        {
            eprintln!(
                "xtask e2e: SKIPPING the Claude Code review scenario: {} is missing (`sudo apt-get install -y tmux`; FS_MCP_REQUIRE_CLIENTS=1 makes this an error)",
                crate::clients::TMUX
            );
            continue;
        }
        let runs: Vec<Option<script::FormAnswer>> = match cli {
            Cli::Claude => script::FormAnswer::ALL.into_iter().map(Some).collect(),
            Cli::Gemini => vec![None],
            Cli::OpenCode => Vec::new(),
        };
        for form in runs {
            let how = form.map_or("page", |f| f.key());
            let label = format!("{} review ({how})", cli.label());
            eprintln!("xtask e2e: {label} …");
            let started = Instant::now();
            let dir = out.join(format!("{}-review-{how}", cli.key()));
            let outcomes = match form {
                Some(answer) => {
                    review::claude_form(answer, &dir, server_dir, snippets, options.timeout)
                }
                None => review::gemini_page(&dir, server_dir, snippets, options.timeout),
            }
            .unwrap_or_else(setup_failed);
            report_run(&label, &outcomes, started, &dir);
            // Rows of the approving and the rejecting run told apart.
            let outcomes = outcomes
                .into_iter()
                .map(|mut o| {
                    if cli == Cli::Claude {
                        o.scenario = format!("{how}: {}", o.scenario);
                    }
                    o
                })
                .collect();
            rows.push((cli.label(), "stdio", outcomes));
        }
    }
}

/// A run that could not even start is one failed "setup" check saying why.
fn setup_failed(e: anyhow::Error) -> Vec<Outcome> {
    vec![Outcome {
        scenario: "setup".into(),
        pass: false,
        detail: format!("{e:#}"),
    }]
}

/// One line on stderr per run: how many checks passed, how long it took, where the logs are.
fn report_run(label: &str, outcomes: &[Outcome], started: Instant, dir: &Path) {
    let failed = outcomes.iter().filter(|o| !o.pass).count();
    eprintln!(
        "xtask e2e: {label}: {} of {} passed in {:.1}s (logs: {})",
        outcomes.len() - failed,
        outcomes.len(),
        started.elapsed().as_secs_f64(),
        dir.display()
    );
}

fn print_table(rows: &[(&str, &str, Vec<Outcome>)]) {
    let scenario_width = rows
        .iter()
        .flat_map(|(_, _, o)| o.iter().map(|o| o.scenario.chars().count()))
        .max()
        .unwrap_or(8);
    println!(
        "\n{:<12} {:<9} {:<scenario_width$} {:<6} detail",
        "CLI", "transport", "scenario", "result"
    );
    for (cli, transport, outcomes) in rows {
        for o in outcomes {
            println!(
                "{:<12} {:<9} {:<scenario_width$} {:<6} {}",
                cli,
                transport,
                o.scenario,
                if o.pass { "pass" } else { "FAIL" },
                o.detail
            );
        }
    }
    println!();
}

/// A run's project with the fixtures (a git repository of its own: the CLIs then do not scan
/// the one around target/, which OpenCode snapshots), and a fresh home.
fn prepare_project(dir: &Path) -> anyhow::Result<(PathBuf, PathBuf)> {
    let project = dir.join("project");
    let home = dir.join("home");
    for (path, content) in script::fixtures() {
        write(&project.join(path), &content)?;
    }
    std::fs::create_dir_all(&home)?;
    let project = project.canonicalize()?;
    let _ = Command::new("git")
        .args(["init", "--quiet"])
        .current_dir(&project)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    Ok((project, home))
}

fn run_session(
    cli: Cli,
    transport: Transport,
    dir: &Path,
    server: &Path,
    server_dir: &Path,
    snippets: &std::collections::BTreeMap<String, String>,
    options: &Options,
) -> anyhow::Result<Vec<Outcome>> {
    let limit = options.timeout;
    let (project, home) = prepare_project(dir)?;
    write(&dir.join(script::OUTSIDE.0), script::OUTSIDE.1)?;

    let script = Script::standard();
    let model = StandIn::start(Script::standard(), &model::log_path(dir))?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let token = format!("e2e-{}-{nanos:x}", std::process::id());
    let mut http = None;
    let http_addr = if transport == Transport::Http {
        let addr = free_port()?;
        http = Some(HttpServer::start(server, &addr, &project, &token, dir)?);
        Some(addr.to_string())
    } else {
        None
    };
    let session = Session {
        cli,
        transport,
        dir: dir.to_path_buf(),
        project: project.clone(),
        home,
        server_dir: server_dir.to_path_buf(),
        model_url: model.base_url(),
        http_addr,
        token,
        review: false,
        server_command: options.packaged.as_ref().map(|p| p.words.clone()),
        env: options
            .packaged
            .as_ref()
            .map(|p| p.env.clone())
            .unwrap_or_default(),
    };
    session.configure(snippets)?;

    let started = Instant::now();
    let output = util::output_within(&mut session.run_command(), limit)
        .with_context(|| format!("run {}", cli.label()))?;
    let elapsed = started.elapsed();
    std::fs::write(dir.join("cli.stdout"), &output.stdout)?;
    std::fs::write(dir.join("cli.stderr"), &output.stderr)?;
    drop(http);
    drop(model);

    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    let timed_out = elapsed >= limit && output.status.signal() == Some(libc::SIGKILL);
    let mut summary = if timed_out {
        format!(
            "{} killed at the {}s time limit",
            cli.label(),
            limit.as_secs()
        )
    } else {
        format!(
            "{} exited {} after {:.1}s",
            cli.label(),
            output.status,
            elapsed.as_secs_f64()
        )
    };
    if !output.status.success() && !stderr.trim().is_empty() {
        let tail: Vec<&str> = stderr
            .lines()
            .rev()
            .filter(|l| !l.trim().is_empty())
            .take(3)
            .collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        summary.push_str(&format!(
            "; stderr ends: {}",
            script::excerpt(&tail.join("\n"), 300)
        ));
    }
    let log = exchange::read_log(&model::log_path(dir))?;
    let end = RunEnd {
        exited_ok: output.status.success(),
        summary,
        stdout,
        mcp_errors: mcp_errors(&stderr),
    };
    Ok(script::evaluate(&script, &log, &project, &end))
}

/// The first few distinct lines a CLI logged about MCP failing (stack frames left out).
fn mcp_errors(stderr: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for line in stderr.lines() {
        let lower = line.to_lowercase();
        let about_mcp = lower.contains("mcp");
        let failing = ["error", "fail", "disconnect", "not connected"]
            .iter()
            .any(|w| lower.contains(w));
        if about_mcp && failing && !line.trim_start().starts_with("at ") {
            let line = script::excerpt(line.trim(), 200);
            if !found.contains(&line) {
                found.push(line);
            }
        }
        if found.len() == 3 {
            break;
        }
    }
    found
}

fn write(path: &Path, content: &str) -> anyhow::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, content).with_context(|| format!("write {}", path.display()))
}

fn free_port() -> anyhow::Result<SocketAddr> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?)
}

/// `fs-mcp-rs --http` started by the harness, as the README tells users to start it.
struct HttpServer {
    child: Child,
}

impl HttpServer {
    fn start(
        server: &Path,
        addr: &SocketAddr,
        project: &Path,
        token: &str,
        dir: &Path,
    ) -> anyhow::Result<HttpServer> {
        let log = std::fs::File::create(dir.join("server.log"))?;
        let mut child = Command::new(server)
            .arg("--http")
            .arg(addr.to_string())
            .args(agents::SERVER_FLAGS)
            .arg(project)
            .env("FS_MCP_HTTP_TOKEN", token)
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .process_group(0)
            .spawn()
            .with_context(|| format!("start {}", server.display()))?;
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect_timeout(addr, Duration::from_millis(200)).is_err() {
            if let Some(status) = child.try_wait()? {
                bail!(
                    "fs-mcp-rs --http exited at once ({status}); see {}",
                    dir.join("server.log").display()
                );
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                bail!("fs-mcp-rs --http did not listen on {addr} within 10s");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(HttpServer { child })
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        // Its process group, by its id: whatever it started goes with it.
        // libc: std signals only the child itself, not its process group.
        #[allow(unsafe_code)]
        // SAFETY: kill(2) with a negative pid signals that process group only.
        unsafe {
            libc::kill(-(self.child.id() as libc::pid_t), libc::SIGKILL);
        }
        let _ = self.child.wait();
    }
}
