//! The workloads: what each server is asked, in its own dialect, and how each answer is checked
//! (a wrong or error answer is a failure, never a fast result).

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::{Value, json};

use super::client::McpClient;
use super::competitors::{self, JAQ_VERSION, Kind, QJ_VERSION, Server, Setup, Tool, YQ_VERSION};
use super::data::{self, Data, Format, Tree};
use super::measure::{self, CommandRun, RssSampler, Stats};

/// The workload groups selectable on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workload {
    Startup,
    Read,
    Grep,
    Query,
    Tree,
    Proxy,
}

impl Workload {
    pub const ALL: [Workload; 6] = [
        Workload::Startup,
        Workload::Read,
        Workload::Grep,
        Workload::Query,
        Workload::Tree,
        Workload::Proxy,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Workload::Startup => "startup",
            Workload::Read => "read",
            Workload::Grep => "grep",
            Workload::Query => "query",
            Workload::Tree => "tree",
            Workload::Proxy => "proxy",
        }
    }

    pub fn parse(name: &str) -> Option<Workload> {
        Workload::ALL.into_iter().find(|w| w.name() == name)
    }
}

/// The result of one (case, subject) pair.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// Wall-clock timings, the peak RSS of the process tree during the timed runs, and a
    /// description of the answer.
    Timed {
        stats: Stats,
        peak_kb: Option<u64>,
        detail: String,
    },
    /// A memory reading over several runs.
    Memory {
        median_kb: u64,
        min_kb: u64,
        max_kb: u64,
        runs: usize,
    },
    /// The subject cannot do this (no such tool, tool not installed).
    NotAvailable(String),
    /// It was tried and failed.
    Failed(String),
}

/// One line of the results.
#[derive(Debug, Clone)]
pub struct Row {
    pub workload: Workload,
    pub case: String,
    /// `fs-mcp-rs`, `fs-mcp`, `official`, or a baseline command (`rg`, `jq`, `yq`).
    pub subject: String,
    pub outcome: Outcome,
}

impl Row {
    pub fn median(&self) -> Option<Duration> {
        match &self.outcome {
            Outcome::Timed { stats, .. } => Some(stats.median),
            _ => None,
        }
    }
}

/// Names of the cases (shared with the goals in the report).
pub const CASE_INIT: &str = "spawn → initialize reply";
pub const CASE_TOOLS_LIST: &str = "tools/list";
/// What a client waits for before it can call a tool: initialize, then tools/list.
pub const CASE_FIRST_LIST: &str = "spawn → first tools/list answer";
/// The 2026-07-28 start: no initialize, `server/discover` then requests with `_meta`.
pub const CASE_DISCOVER: &str = "spawn → server/discover reply (2026-07-28)";
pub const CASE_DISCOVER_LIST: &str = "spawn → first tools/list answer (2026-07-28)";
pub const CASE_IDLE: &str = "idle RSS after initialize";
pub const SUBJECT_RG: &str = "rg";
/// rg stopped after as many matching lines as fs-mcp-rs counted.
pub const SUBJECT_RG_STOPPED: &str = "rg, stopped";
/// rg with the flags fs-mcp 1.23.2 passes (for reference, not a goal).
pub const SUBJECT_RG_AS_ORIGINAL: &str = "rg, fs-mcp's flags";
pub const SUBJECT_JQ: &str = "jq";
/// kislyuk's yq (PyPI), the YAML baseline.
pub const SUBJECT_YQ: &str = "yq";
/// qj over the JSON file (the jq language on simdjson).
pub const SUBJECT_QJ: &str = "qj";
/// jaq over the JSON file.
pub const SUBJECT_JAQ: &str = "jaq";

/// What every workload needs.
pub struct Plan<'a> {
    pub setup: &'a Setup,
    pub data: &'a Data,
    pub tree: &'a Tree,
    /// Directory for the servers' stderr logs.
    pub logs: PathBuf,
    /// Timed runs per measurement.
    pub runs: usize,
    /// Untimed runs first (warm caches, compiled bytecode).
    pub warmup: usize,
    /// Longest wait for any one reply.
    pub timeout: Duration,
}

impl Plan<'_> {
    /// The stderr log of a subject (`rg, stopped` → `rg--stopped.log`).
    fn log(&self, subject: &str) -> PathBuf {
        let name: String = subject
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        self.logs.join(format!("{name}.log"))
    }
}

/// Runs one workload for every subject.
pub fn run(plan: &Plan, workload: Workload) -> Vec<Row> {
    match workload {
        Workload::Startup => startup(plan),
        Workload::Read => read(plan),
        Workload::Grep => grep(plan),
        Workload::Query => query(plan),
        Workload::Tree => tree(plan),
        Workload::Proxy => proxy(plan),
    }
}

// ---------------------------------------------------------------------------------------------
// proxy

/// Cases of the proxy workload: fs-mcp-rs served directly, and behind `fs-mcp-rs proxy`.
pub const CASE_PROXY_INIT: &str = "spawn → initialize reply (upstream: fs-mcp-rs)";
pub const CASE_PROXY_CALL: &str = "tools/call list_allowed_directories";
pub const SUBJECT_PROXY: &str = "fs-mcp-rs proxy -- fs-mcp-rs";
/// Calls per session: per-call overhead is a sub-millisecond difference, so many samples.
const PROXY_CALLS_PER_RUN: usize = 200;

/// What the proxy adds: fs-mcp-rs (a trivial upstream for this purpose: its cheapest tool
/// answers in microseconds) timed directly and behind the proxy, sessions alternating so both
/// see the same machine load.
fn proxy(plan: &Plan) -> Vec<Row> {
    let Some(server) = plan.setup.servers.iter().find(|s| s.kind == Kind::Rust) else {
        return Vec::new();
    };
    let row = |case: &str, subject: &str, outcome| Row {
        workload: Workload::Proxy,
        case: case.to_string(),
        subject: subject.to_string(),
        outcome,
    };
    match proxy_runs(plan, server) {
        Ok([direct, proxied]) => {
            let added = |a: &[Duration], b: &[Duration]| match (Stats::of(a), Stats::of(b)) {
                (Some(a), Some(b)) => {
                    let (a, b) = (a.median.as_secs_f64(), b.median.as_secs_f64());
                    format!("{:+.3} ms median vs direct", (b - a) * 1e3)
                }
                _ => String::new(),
            };
            let init_added = added(&direct.init, &proxied.init);
            let call_added = added(&direct.calls, &proxied.calls);
            vec![
                row(
                    CASE_PROXY_INIT,
                    competitors::Kind::Rust.label(),
                    timed(&direct.init, None, "direct".into()),
                ),
                row(
                    CASE_PROXY_INIT,
                    SUBJECT_PROXY,
                    timed(&proxied.init, None, init_added),
                ),
                row(
                    CASE_PROXY_CALL,
                    competitors::Kind::Rust.label(),
                    timed(&direct.calls, None, "direct".into()),
                ),
                row(
                    CASE_PROXY_CALL,
                    SUBJECT_PROXY,
                    timed(&proxied.calls, None, call_added),
                ),
            ]
        }
        Err(e) => {
            let failed = Outcome::Failed(format!("{e:#}"));
            vec![
                row(CASE_PROXY_INIT, SUBJECT_PROXY, failed.clone()),
                row(CASE_PROXY_CALL, SUBJECT_PROXY, failed),
            ]
        }
    }
}

#[derive(Default)]
struct ProxySamples {
    init: Vec<Duration>,
    calls: Vec<Duration>,
}

fn proxy_runs(plan: &Plan, server: &Server) -> anyhow::Result<[ProxySamples; 2]> {
    let mut samples = [ProxySamples::default(), ProxySamples::default()];
    let dir = &plan.data.dir;
    for i in 0..plan.warmup + plan.runs {
        for (which, m) in samples.iter_mut().enumerate() {
            let (subject, command) = if which == 0 {
                ("fs-mcp-rs", server.command(dir, &plan.log("proxy-direct"))?)
            } else {
                (
                    SUBJECT_PROXY,
                    server.proxied_command(server.program(), dir, &plan.log("proxy"))?,
                )
            };
            let start = Instant::now();
            let mut client = McpClient::spawn(subject, command)?;
            client.initialize(plan.timeout)?;
            let init = start.elapsed();
            // The proxy lists the upstream's tools once; a client does the same before calling.
            client.list_tools(plan.timeout)?;
            let mut calls = Vec::with_capacity(PROXY_CALLS_PER_RUN);
            for _ in 0..PROXY_CALLS_PER_RUN {
                let start = Instant::now();
                let output =
                    client.call_tool("list_allowed_directories", json!({}), plan.timeout)?;
                calls.push(start.elapsed());
                if output.is_error || !output.text.contains(&*dir.to_string_lossy()) {
                    bail!(
                        "{subject}: list_allowed_directories answered {:?}",
                        output.text
                    );
                }
            }
            client.shutdown(Duration::from_secs(10))?;
            if i >= plan.warmup {
                m.init.push(init);
                m.calls.extend(calls);
            }
        }
    }
    Ok(samples)
}

// ---------------------------------------------------------------------------------------------
// startup

fn startup(plan: &Plan) -> Vec<Row> {
    let mut rows = Vec::new();
    let servers = plan
        .setup
        .servers
        .iter()
        .map(|s| (s.kind.label(), StartCommand::Server(s)));
    let peers = plan
        .setup
        .startup_peers
        .iter()
        .map(|p| (p.label, StartCommand::Peer(p)));
    let subjects: Vec<_> = servers.chain(peers).collect();
    // Runs alternate between the subjects (one start of each, then again), so that every
    // subject sees the same load on a shared machine.
    let mut measured: Vec<anyhow::Result<StartupRuns>> = subjects
        .iter()
        .map(|_| Ok(StartupRuns::default()))
        .collect();
    for i in 0..plan.warmup + plan.runs {
        for ((subject, start), runs) in subjects.iter().zip(measured.iter_mut()) {
            if let Ok(m) = runs
                && let Err(e) = startup_run(plan, subject, start, m, i >= plan.warmup)
            {
                *runs = Err(e);
            }
        }
    }
    for ((subject, _), runs) in subjects.iter().zip(measured) {
        let row = |case: &str, outcome| Row {
            workload: Workload::Startup,
            case: case.to_string(),
            subject: subject.to_string(),
            outcome,
        };
        match runs {
            Ok(m) => {
                let tools = format!("{} tools", m.tools);
                rows.push(row(
                    CASE_INIT,
                    timed(&m.init, Some(m.peak_kb), tools.clone()),
                ));
                rows.push(row(CASE_TOOLS_LIST, timed(&m.list, None, tools.clone())));
                rows.push(row(
                    CASE_FIRST_LIST,
                    timed(&m.first_list, None, tools.clone()),
                ));
                match &m.discover {
                    Ok(d) => {
                        rows.push(row(CASE_DISCOVER, timed(&d.reply, None, tools.clone())));
                        rows.push(row(CASE_DISCOVER_LIST, timed(&d.first_list, None, tools)));
                    }
                    Err(e) => {
                        let no = Outcome::NotAvailable(format!("no 2026-07-28 start: {e}"));
                        rows.push(row(CASE_DISCOVER, no.clone()));
                        rows.push(row(CASE_DISCOVER_LIST, no));
                    }
                }
                let mut idle = m.idle_kb.clone();
                idle.sort_unstable();
                let outcome = match (idle.first(), idle.get(idle.len() / 2), idle.last()) {
                    (Some(&min_kb), Some(&median_kb), Some(&max_kb)) => Outcome::Memory {
                        median_kb,
                        min_kb,
                        max_kb,
                        runs: idle.len(),
                    },
                    _ => Outcome::Failed("no runs".into()),
                };
                rows.push(row(CASE_IDLE, outcome));
            }
            Err(e) => {
                let failed = Outcome::Failed(format!("{e:#}"));
                rows.push(row(CASE_INIT, failed.clone()));
                rows.push(row(CASE_TOOLS_LIST, failed.clone()));
                rows.push(row(CASE_FIRST_LIST, failed.clone()));
                rows.push(row(CASE_DISCOVER, failed.clone()));
                rows.push(row(CASE_DISCOVER_LIST, failed.clone()));
                rows.push(row(CASE_IDLE, failed));
            }
        }
    }
    rows
}

/// What the startup workload starts: one of the servers, or a start-up-only peer.
enum StartCommand<'a> {
    Server(&'a Server),
    Peer(&'a competitors::StartupPeer),
}

impl StartCommand<'_> {
    fn command(&self, dir: &Path, log: &Path) -> anyhow::Result<Command> {
        match self {
            StartCommand::Server(s) => s.command(dir, log),
            StartCommand::Peer(p) => p.command(dir, log),
        }
    }
}

struct StartupRuns {
    init: Vec<Duration>,
    list: Vec<Duration>,
    first_list: Vec<Duration>,
    /// The 2026-07-28 start, or why the subject has none (its first failure).
    discover: Result<DiscoverRuns, String>,
    idle_kb: Vec<u64>,
    peak_kb: u64,
    tools: usize,
}

impl Default for StartupRuns {
    fn default() -> Self {
        StartupRuns {
            init: Vec::new(),
            list: Vec::new(),
            first_list: Vec::new(),
            discover: Ok(DiscoverRuns::default()),
            idle_kb: Vec::new(),
            peak_kb: 0,
            tools: 0,
        }
    }
}

#[derive(Default)]
struct DiscoverRuns {
    reply: Vec<Duration>,
    first_list: Vec<Duration>,
}

/// One start of `subject`: spawn → `initialize` reply, `tools/list`, idle size; recorded in `m`
/// when `timed`.
fn startup_run(
    plan: &Plan,
    subject: &str,
    start: &StartCommand,
    m: &mut StartupRuns,
    timed: bool,
) -> anyhow::Result<()> {
    let command = start.command(&plan.data.dir, &plan.log(subject))?;
    let started = Instant::now();
    let mut client = McpClient::spawn(subject, command)?;
    client.initialize(plan.timeout)?;
    let init = started.elapsed();
    let listed = Instant::now();
    let tools = client.list_tools(plan.timeout)?;
    let list = listed.elapsed();
    let first_list = started.elapsed();
    // Let start-up work (threads, lazy imports) settle before reading the idle size.
    std::thread::sleep(Duration::from_millis(250));
    let idle = measure::tree_rss_kb(client.pid());
    let peak = measure::hwm_kb(client.pid()).unwrap_or(0).max(idle);
    client.shutdown(Duration::from_secs(10))?;
    if timed {
        m.init.push(init);
        m.list.push(list);
        m.first_list.push(first_list);
        m.idle_kb.push(idle);
        m.peak_kb = m.peak_kb.max(peak);
        m.tools = tools.len();
    }
    // A subject without the 2026-07-28 start is asked once, not on every run.
    if let Ok(d) = &mut m.discover {
        match discover_run(plan, subject, start) {
            Ok((reply, first_list)) if timed => {
                d.reply.push(reply);
                d.first_list.push(first_list);
            }
            Ok(_) => {}
            Err(e) => m.discover = Err(format!("{e:#}")),
        }
    }
    Ok(())
}

/// How long a server may take to answer `server/discover` before it counts as not knowing it.
const DISCOVER_TIMEOUT: Duration = Duration::from_secs(10);

/// One 2026-07-28 start of `subject`: spawn → `server/discover` reply, and spawn → the answer
/// of the `tools/list` sent next.
fn discover_run(
    plan: &Plan,
    subject: &str,
    start: &StartCommand,
) -> anyhow::Result<(Duration, Duration)> {
    let command = start.command(&plan.data.dir, &plan.log(subject))?;
    let started = Instant::now();
    let mut client = McpClient::spawn(subject, command)?;
    // A server of an older protocol may leave the request unanswered: do not wait the
    // workload's whole timeout for that.
    client.discover(DISCOVER_TIMEOUT.min(plan.timeout))?;
    let reply = started.elapsed();
    client.list_tools(plan.timeout)?;
    let first_list = started.elapsed();
    client.shutdown(Duration::from_secs(10))?;
    Ok((reply, first_list))
}

fn timed(samples: &[Duration], peak_kb: Option<u64>, detail: String) -> Outcome {
    match Stats::of(samples) {
        Some(stats) => Outcome::Timed {
            stats,
            peak_kb,
            detail,
        },
        None => Outcome::Failed("no runs".into()),
    }
}

// ---------------------------------------------------------------------------------------------
// MCP sessions and cases

/// A tool call in one server's dialect.
struct Call {
    tool: &'static str,
    args: Value,
}

type CallFor<'a> = Box<dyn Fn(Kind) -> Result<Call, String> + 'a>;
type Check<'a> = Box<dyn Fn(Kind, &str) -> anyhow::Result<String> + 'a>;

/// One thing every server is asked.
struct Case<'a> {
    name: String,
    /// The call for a server, or why that server has none.
    call: CallFor<'a>,
    /// Checks an answer's text and describes it for the report.
    check: Check<'a>,
    /// Baselines (rg, jq, yq) timed alternately with fs-mcp-rs's calls of this case.
    companions: Vec<Companion<'a>>,
}

/// What of an external command's stdout is kept: lines starting with `prefix` are counted,
/// the first `keep` bytes kept.
struct Capture {
    prefix: &'static [u8],
    keep: usize,
    /// Stop reading (and kill the command) after this many prefixed lines.
    stop_after: Option<u64>,
}

type MakeCommand<'a> = Box<dyn Fn() -> Option<(Command, Capture)> + 'a>;
type CheckRun<'a> = Box<dyn Fn(&CommandRun) -> anyhow::Result<String> + 'a>;

/// An external command (rg, jq, yq) that fs-mcp-rs is compared with. Its runs alternate with
/// fs-mcp-rs's calls of the same case (a call, then the command, and so on), so both see the
/// same load on a shared machine; it runs on its own when fs-mcp-rs did not run the case.
struct Companion<'a> {
    subject: &'static str,
    /// The command and what to keep of its output, or `None` to skip it (nothing to compare).
    make: MakeCommand<'a>,
    /// Checks a run and describes it for the report.
    check: CheckRun<'a>,
    state: RefCell<CompanionState>,
}

#[derive(Default)]
struct CompanionState {
    samples: Vec<Duration>,
    peak_kb: u64,
    detail: String,
    error: Option<String>,
    ran: bool,
}

impl Companion<'_> {
    fn new<'a>(
        subject: &'static str,
        make: impl Fn() -> Option<(Command, Capture)> + 'a,
        check: impl Fn(&CommandRun) -> anyhow::Result<String> + 'a,
    ) -> Companion<'a> {
        Companion {
            subject,
            make: Box::new(make),
            check: Box::new(check),
            state: RefCell::new(CompanionState::default()),
        }
    }

    /// One run, recorded if `timed`; a failure is kept for the row, not raised.
    fn run_once(&self, plan: &Plan, timed: bool) {
        let mut state = self.state.borrow_mut();
        if state.error.is_some() {
            return;
        }
        let Some((mut command, capture)) = (self.make)() else {
            return;
        };
        state.ran = true;
        let result = measure::run_command(
            &mut command,
            capture.prefix,
            capture.keep,
            capture.stop_after,
            &plan.log(self.subject),
        )
        .and_then(|run| Ok(((self.check)(&run)?, run)));
        match result {
            Ok((detail, run)) => {
                state.detail = detail;
                if timed {
                    state.samples.push(run.elapsed);
                    state.peak_kb = state.peak_kb.max(run.peak_kb);
                }
            }
            Err(e) => state.error = Some(format!("{e:#}")),
        }
    }

    /// Its row for `case`, running it on its own first if the alternation did not complete.
    fn row(&self, plan: &Plan, workload: Workload, case: &str) -> Option<Row> {
        let complete = {
            let state = self.state.borrow();
            state.error.is_some() || state.samples.len() >= plan.runs
        };
        if !complete {
            *self.state.borrow_mut() = CompanionState::default();
            for i in 0..plan.warmup + plan.runs {
                self.run_once(plan, i >= plan.warmup);
            }
        }
        let state = self.state.borrow();
        let outcome = match &state.error {
            Some(e) => Outcome::Failed(e.clone()),
            None if !state.ran => return None,
            None => timed(&state.samples, Some(state.peak_kb), state.detail.clone()),
        };
        Some(Row {
            workload,
            case: case.to_string(),
            subject: self.subject.to_string(),
            outcome,
        })
    }
}

/// The companions' rows of `cases`, after the servers ran.
fn companion_rows(plan: &Plan, workload: Workload, cases: &[Case]) -> Vec<Row> {
    cases
        .iter()
        .flat_map(|case| {
            case.companions
                .iter()
                .filter_map(|c| c.row(plan, workload, &case.name))
        })
        .collect()
}

/// The row of a baseline that cannot run (its command is missing).
fn missing(workload: Workload, case: &str, subject: &str, why: &str) -> Row {
    Row {
        workload,
        case: case.to_string(),
        subject: subject.to_string(),
        outcome: Outcome::NotAvailable(why.to_string()),
    }
}

/// A server started and initialized, with its memory sampled.
struct Session {
    client: McpClient,
    sampler: RssSampler,
    tools: Vec<String>,
}

impl Session {
    fn start(plan: &Plan, server: &Server, dir: &Path) -> anyhow::Result<Session> {
        let subject = server.kind.label();
        let mut client = McpClient::spawn(subject, server.command(dir, &plan.log(subject))?)?;
        client.initialize(plan.timeout)?;
        let tools = client.list_tools(plan.timeout)?;
        let sampler = RssSampler::start(client.pid(), Duration::from_millis(5))?;
        Ok(Session {
            client,
            sampler,
            tools,
        })
    }

    fn close(self) {
        drop(self.sampler);
        let _ = self.client.shutdown(Duration::from_secs(10));
    }
}

/// Runs `cases` against one server (started in `dir`), one row per case.
fn server_cases(
    plan: &Plan,
    workload: Workload,
    server: &Server,
    dir: &Path,
    cases: &[Case],
) -> Vec<Row> {
    let subject = server.kind.label();
    let mut rows = Vec::new();
    let mut session: Option<Session> = None;
    for case in cases {
        let outcome = match (case.call)(server.kind) {
            Err(reason) => Outcome::NotAvailable(reason),
            Ok(call) => {
                if session.is_none() {
                    match Session::start(plan, server, dir) {
                        Ok(s) => session = Some(s),
                        Err(e) => {
                            rows.push(Row {
                                workload,
                                case: case.name.clone(),
                                subject: subject.to_string(),
                                outcome: Outcome::Failed(format!("{e:#}")),
                            });
                            continue;
                        }
                    }
                }
                match session.as_mut() {
                    None => Outcome::Failed("no session".into()),
                    Some(s) if !s.tools.iter().any(|t| t == call.tool) => {
                        Outcome::NotAvailable(format!("`{}` is not in its tools/list", call.tool))
                    }
                    Some(s) => {
                        let companions: &[Companion] = if server.kind == Kind::Rust {
                            &case.companions
                        } else {
                            &[]
                        };
                        match timed_calls(plan, s, &call, companions, |text| {
                            (case.check)(server.kind, text)
                        }) {
                            Ok(outcome) => outcome,
                            Err(e) => {
                                // The server may be stuck on the failed call: start afresh.
                                if let Some(s) = session.take() {
                                    s.close();
                                }
                                Outcome::Failed(format!("{e:#}"))
                            }
                        }
                    }
                }
            }
        };
        rows.push(Row {
            workload,
            case: case.name.clone(),
            subject: subject.to_string(),
            outcome,
        });
    }
    if let Some(s) = session {
        s.close();
    }
    rows
}

/// Warm-up calls, then the timed calls, each answer checked, each followed by one run of every
/// companion.
fn timed_calls(
    plan: &Plan,
    session: &mut Session,
    call: &Call,
    companions: &[Companion],
    check: impl Fn(&str) -> anyhow::Result<String>,
) -> anyhow::Result<Outcome> {
    let mut samples = Vec::new();
    let mut detail = String::new();
    for i in 0..plan.warmup + plan.runs {
        if i == plan.warmup {
            session.sampler.begin();
        }
        let start = Instant::now();
        let output = session
            .client
            .call_tool(call.tool, call.args.clone(), plan.timeout)?;
        let elapsed = start.elapsed();
        if output.is_error {
            bail!(
                "{} returned an error: {}",
                call.tool,
                excerpt(&output.text, 300)
            );
        }
        detail = check(&output.text).with_context(|| {
            format!(
                "unexpected {} answer: {}",
                call.tool,
                excerpt(&output.text, 300)
            )
        })?;
        if i >= plan.warmup {
            samples.push(elapsed);
        }
        // Companions are the harness's children, not the server's: they do not count in its peak.
        for companion in companions {
            companion.run_once(plan, i >= plan.warmup);
        }
    }
    Ok(timed(&samples, Some(session.sampler.peak_kb()), detail))
}

fn excerpt(text: &str, max: usize) -> String {
    let one_line = text.replace('\n', "⏎");
    fs_mcp_text::truncate(
        &one_line,
        fs_mcp_text::Keep::Chars(max),
        fs_mcp_text::Marker::Ellipsis,
    )
    .into_owned()
}

/// `1 line`, `3 lines`.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn size(bytes: usize) -> String {
    if bytes < 10 * 1024 {
        format!("{bytes} B")
    } else if bytes < 10 * 1024 * 1024 {
        format!("{:.0} KB", bytes as f64 / 1024.0)
    } else {
        format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
    }
}

fn path_str(path: &Path) -> String {
    path.display().to_string()
}

/// Fails on the error texts the Python server returns as ordinary (non-isError) results.
fn reject_error_text(text: &str) -> anyhow::Result<()> {
    let t = text.trim_start();
    if t.starts_with("Error")
        || t.starts_with("jq syntax error")
        || t.starts_with("yq syntax error")
    {
        bail!("the answer is an error message");
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// read

fn read(plan: &Plan) -> Vec<Row> {
    let data = plan.data;
    let big = path_str(&data.big_file);
    let last = data.big_lines;
    let mid = data.big_lines / 2;
    let small: Vec<String> = data.small_files.iter().map(|p| path_str(p)).collect();
    let n_small = small.len();
    let cases = vec![
        Case {
            name: format!("{n_small} small files in one call"),
            call: Box::new({
                let small = small.clone();
                move |kind| {
                    Ok(match kind {
                        Kind::Rust | Kind::Original => Call {
                            tool: "read_files",
                            args: json!({"files": small.iter().map(|p| json!({"path": p})).collect::<Vec<_>>()}),
                        },
                        Kind::Official => Call {
                            tool: "read_multiple_files",
                            args: json!({ "paths": small }),
                        },
                    })
                }
            }),
            check: Box::new(move |_, text| {
                reject_error_text(text)?;
                let last_file = format!("file {:03} line 040", n_small - 1);
                if !text.contains("file 000 line 001") || !text.contains(&last_file) {
                    bail!("missing the first or last file's text");
                }
                Ok(size(text.len()))
            }),
            companions: Vec::new(),
        },
        Case {
            name: format!("tail 50 lines of a {} file", file_size(&data.big_file)),
            call: Box::new({
                let big = big.clone();
                move |kind| {
                    Ok(match kind {
                        Kind::Rust | Kind::Original => Call {
                            tool: "read_files",
                            args: json!({"files": [{"path": big, "tail": 50}]}),
                        },
                        Kind::Official => Call {
                            tool: "read_text_file",
                            args: json!({"path": big, "tail": 50}),
                        },
                    })
                }
            }),
            check: Box::new(move |_, text| {
                reject_error_text(text)?;
                // The official server counts the empty string after the final newline as a
                // line, so it answers 49 lines: accept that, and say so.
                let present = (last - 49..=last)
                    .filter(|&n| text.contains(&data::big_line_marker(n)))
                    .count();
                if !text.contains(&data::big_line_marker(last)) || present < 45 {
                    bail!("the last lines are missing");
                }
                if text.contains(&data::big_line_marker(last - 50)) {
                    bail!("more than 50 lines");
                }
                Ok(format!("{present} lines, {}", size(text.len())))
            }),
            companions: Vec::new(),
        },
        Case {
            name: format!(
                "lines {}–{} (middle) of a {} file",
                mid,
                mid + 199,
                file_size(&data.big_file)
            ),
            call: Box::new(move |kind| match kind {
                Kind::Rust | Kind::Original => Ok(Call {
                    tool: "read_files",
                    args: json!({"files": [{"path": big, "start_line": mid, "end_line": mid + 199}]}),
                }),
                Kind::Official => {
                    Err("no line-range read (read_text_file has head/tail only)".into())
                }
            }),
            check: Box::new(move |_, text| {
                reject_error_text(text)?;
                for n in [mid, mid + 199] {
                    if !text.contains(&data::big_line_marker(n)) {
                        bail!("line {n} missing");
                    }
                }
                if text.contains(&data::big_line_marker(mid + 200)) {
                    bail!("more than 200 lines");
                }
                Ok(size(text.len()))
            }),
            companions: Vec::new(),
        },
    ];
    plan.setup
        .servers
        .iter()
        .flat_map(|s| server_cases(plan, Workload::Read, s, &data.dir, &cases))
        .collect()
}

fn file_size(path: &Path) -> String {
    let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0) as f64;
    if bytes >= 1e9 {
        format!("{:.2} GB", bytes / 1e9)
    } else if bytes >= 1e6 {
        format!("{:.1} MB", bytes / 1e6)
    } else {
        format!("{:.0} KB", bytes / 1e3)
    }
}

// ---------------------------------------------------------------------------------------------
// grep

fn grep(plan: &Plan) -> Vec<Row> {
    let tree = plan.tree;
    let root = path_str(&tree.root);
    let has_rg = plan.setup.rg.is_some();
    let has_original = plan.setup.servers.iter().any(|s| s.kind == Kind::Original);
    let patterns = [
        ("rare", tree.rare_pattern.clone()),
        ("common", tree.common_pattern.clone()),
    ];
    let case_name = |label: &str, pattern: &str| format!("{label} pattern \"{pattern}\"");
    // Per pattern: how many matching lines fs-mcp-rs counted before it stopped counting, if it did.
    let stopped_at: Vec<Cell<Option<u64>>> = patterns.iter().map(|_| Cell::new(None)).collect();
    let mut rows = Vec::new();

    let cases: Vec<Case> = patterns
        .iter()
        .zip(&stopped_at)
        .map(|((label, pattern), stopped_at)| {
            let name = case_name(label, pattern);
            let call_pattern = pattern.clone();
            let root = root.clone();
            // The floor: rg --json over the same tree with fs-mcp-rs's ignore rules, every match;
            // where fs-mcp-rs stopped counting, rg stopped after as many matching lines; and, for
            // reference, rg with the flags fs-mcp passes (fs-mcp's own floor).
            let mut companions = Vec::new();
            match &plan.setup.rg {
                None => rows.push(missing(
                    Workload::Grep,
                    &name,
                    SUBJECT_RG,
                    "rg not found on PATH",
                )),
                Some(rg) => {
                    let rg_command = move |flags: &[&str]| {
                        let mut c = Command::new(&rg.path);
                        c.args(flags).arg("-e").arg(pattern).arg(&tree.root);
                        c
                    };
                    let matches: &'static [u8] = b"{\"type\":\"match\"";
                    companions.push(Companion::new(
                        SUBJECT_RG,
                        move || {
                            Some((
                                rg_command(&["--json", "--no-require-git"]),
                                Capture {
                                    prefix: matches,
                                    keep: 0,
                                    stop_after: None,
                                },
                            ))
                        },
                        rg_detail,
                    ));
                    companions.push(Companion::new(
                        SUBJECT_RG_STOPPED,
                        move || {
                            let n = stopped_at.get()?;
                            Some((
                                rg_command(&["--json", "--no-require-git"]),
                                Capture {
                                    prefix: matches,
                                    keep: 0,
                                    stop_after: Some(n),
                                },
                            ))
                        },
                        rg_detail,
                    ));
                    if has_original {
                        companions.push(Companion::new(
                            SUBJECT_RG_AS_ORIGINAL,
                            move || {
                                Some((
                                    rg_command(&["--json", "--max-count=100", "--context=2"]),
                                    Capture {
                                        prefix: matches,
                                        keep: 0,
                                        stop_after: None,
                                    },
                                ))
                            },
                            rg_detail,
                        ));
                    }
                }
            }
            Case {
                name,
                call: Box::new(move |kind| match kind {
                    Kind::Rust => Ok(Call {
                        tool: "grep_content",
                        args: json!({"pattern": call_pattern, "search_path": root}),
                    }),
                    Kind::Original if has_rg => Ok(Call {
                        tool: "grep_content",
                        args: json!({"pattern": call_pattern, "search_path": root}),
                    }),
                    Kind::Original => Err("its grep_content needs rg on PATH".into()),
                    Kind::Official => Err("no content-search tool".into()),
                }),
                check: Box::new(move |kind, text| {
                    reject_error_text(text)?;
                    let (detail, lower_bound) = grep_detail(kind, text);
                    if kind == Kind::Rust {
                        stopped_at.set(lower_bound);
                    }
                    Ok(detail)
                }),
                companions,
            }
        })
        .collect();
    for server in &plan.setup.servers {
        rows.extend(server_cases(
            plan,
            Workload::Grep,
            server,
            &tree.root,
            &cases,
        ));
    }
    rows.extend(companion_rows(plan, Workload::Grep, &cases));
    if let Some(server) = plan.setup.servers.iter().find(|s| s.kind == Kind::Rust) {
        for (i, (label, pattern)) in patterns.iter().enumerate() {
            rows.extend(grep_first_and_indexed(
                plan,
                server,
                &case_name(label, pattern),
                pattern,
                i == 0,
            ));
        }
        rows.extend(search_files_repeated(plan, server));
    }
    rows
}

/// The subject of `rg --files | grep -c` (no `|` in the name: it is a Markdown table cell), the
/// listing a user would pick instead of `search_files`.
pub const SUBJECT_RG_FILES: &str = "rg --files → grep";
/// The subject of `fd` (when on PATH), the other listing a user would pick.
pub const SUBJECT_FD: &str = "fd";
/// The case of a repeated `search_files` over the grep tree.
pub const CASE_SEARCH_FILES: &str = "search_files \"*.rs\", repeated";

/// A repeated `search_files` for `*.rs` over the tree: scanning, from the index (`--index`,
/// once built), and the file-listing tools a user would pick instead (`rg --files | grep`,
/// `fd`), timed the same number of runs.
fn search_files_repeated(plan: &Plan, server: &Server) -> Vec<Row> {
    let root = &plan.tree.root;
    let call = Call {
        tool: "search_files",
        args: json!({"pattern": "*.rs", "path": path_str(root)}),
    };
    let detail = |text: &str| -> anyhow::Result<String> {
        reject_error_text(text)?;
        let note = text.split_once("\n\n").map_or("", |(_, note)| note);
        Ok(excerpt(note, 120))
    };
    let row = |subject: &str, outcome| Row {
        workload: Workload::Grep,
        case: CASE_SEARCH_FILES.to_string(),
        subject: subject.to_string(),
        outcome,
    };
    let mut rows = Vec::new();
    let scanned = Session::start(plan, server, root).and_then(|mut session| {
        let outcome = timed_calls(plan, &mut session, &call, &[], detail);
        session.close();
        outcome
    });
    rows.push(row(
        server.kind.label(),
        scanned.unwrap_or_else(|e| Outcome::Failed(format!("{e:#}"))),
    ));
    let indexed = server.with_args(&["--index", "--log-level", "fs_mcp_index=info"]);
    let outcome = indexed_calls(plan, &indexed, &call, detail)
        .map(|(outcome, _)| outcome)
        .unwrap_or_else(|e| Outcome::Failed(format!("{e:#}")));
    rows.push(row(SUBJECT_RUST_INDEXED, outcome));
    let root = path_str(root);
    let listers: [(&str, String); 2] = [
        (
            SUBJECT_RG_FILES,
            format!("rg --files --no-require-git '{root}' | grep -c '\\.rs$'"),
        ),
        (
            SUBJECT_FD,
            format!("fd --no-require-git -t f -g '*.rs' '{root}' | wc -l"),
        ),
    ];
    for (subject, script) in listers {
        let tool = subject.split(' ').next().unwrap_or(subject);
        if !Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .is_ok_and(|o| o.status.success())
        {
            rows.push(missing(
                Workload::Grep,
                CASE_SEARCH_FILES,
                subject,
                "not found on PATH",
            ));
            continue;
        }
        let mut samples = Vec::new();
        let mut listed = String::new();
        for i in 0..plan.warmup + plan.runs {
            let start = Instant::now();
            let output = Command::new("sh").args(["-c", &script]).output();
            let elapsed = start.elapsed();
            if let Ok(output) = output {
                listed = String::from_utf8_lossy(&output.stdout).trim().to_string();
            }
            if i >= plan.warmup {
                samples.push(elapsed);
            }
        }
        rows.push(row(
            subject,
            timed(&samples, None, format!("{listed} files")),
        ));
    }
    rows
}

/// The subject of fs-mcp-rs with `--index`.
pub const SUBJECT_RUST_INDEXED: &str = "fs-mcp-rs --index";
/// The subject of a fresh server's first call, index off.
pub const SUBJECT_RUST_FIRST: &str = "fs-mcp-rs, first call";
/// The subject of a fresh server's first call with `--index` (it starts the build and scans).
pub const SUBJECT_RUST_INDEXED_FIRST: &str = "fs-mcp-rs --index, first call";
/// The case of the index's build time.
pub const CASE_INDEX_BUILD: &str = "index build (background)";
/// The case of the index's memory.
pub const CASE_INDEX_MEMORY: &str = "index memory";
/// The case of the text the index covers.
pub const CASE_INDEX_TEXT: &str = "text indexed";
/// The line the server logs when its index is ready.
const INDEX_READY: &str = "index: ready in ";

/// A grep case's first call in fresh servers (index off and on), then, with `--index`, the
/// repeated call once the index is built, plus (for the first case) the build's time and size.
/// `with_build`: also the rows of the build (the first case's).
fn grep_first_and_indexed(
    plan: &Plan,
    server: &Server,
    case: &str,
    pattern: &str,
    with_build: bool,
) -> Vec<Row> {
    let indexed = server.with_args(&["--index", "--log-level", "fs_mcp_index=info"]);
    let call = Call {
        tool: "grep_content",
        args: json!({"pattern": pattern, "search_path": path_str(&plan.tree.root)}),
    };
    let row = |subject: &str, case: &str, outcome| Row {
        workload: Workload::Grep,
        case: case.to_string(),
        subject: subject.to_string(),
        outcome,
    };
    let mut rows = Vec::new();
    for (subject, server) in [
        (SUBJECT_RUST_FIRST, server),
        (SUBJECT_RUST_INDEXED_FIRST, &indexed),
    ] {
        let outcome = first_calls(plan, server, subject, &call)
            .unwrap_or_else(|e| Outcome::Failed(format!("{e:#}")));
        rows.push(row(subject, case, outcome));
    }
    let detail = |text: &str| -> anyhow::Result<String> {
        reject_error_text(text)?;
        Ok(grep_detail(Kind::Rust, text).0)
    };
    match indexed_calls(plan, &indexed, &call, detail) {
        Ok((outcome, build)) => {
            rows.push(row(SUBJECT_RUST_INDEXED, case, outcome));
            if let Some(build) = build.filter(|_| with_build) {
                let detail = format!(
                    "{} files, {} of text, index {}",
                    build.files,
                    size(build.text_bytes as usize),
                    size(build.index_bytes as usize)
                );
                rows.push(row(
                    SUBJECT_RUST_INDEXED,
                    CASE_INDEX_BUILD,
                    timed(&[build.time], None, detail),
                ));
                let memory = |bytes: u64| Outcome::Memory {
                    median_kb: bytes / 1024,
                    min_kb: bytes / 1024,
                    max_kb: bytes / 1024,
                    runs: 1,
                };
                rows.push(row(
                    SUBJECT_RUST_INDEXED,
                    CASE_INDEX_MEMORY,
                    memory(build.index_bytes),
                ));
                rows.push(row(
                    SUBJECT_RUST_INDEXED,
                    CASE_INDEX_TEXT,
                    memory(build.text_bytes),
                ));
            }
        }
        Err(e) => rows.push(row(
            SUBJECT_RUST_INDEXED,
            case,
            Outcome::Failed(format!("{e:#}")),
        )),
    }
    rows
}

/// The first call of `runs` fresh servers (after `warmup` untimed ones).
fn first_calls(
    plan: &Plan,
    server: &Server,
    subject: &str,
    call: &Call,
) -> anyhow::Result<Outcome> {
    let mut samples = Vec::new();
    let mut peak = 0;
    for i in 0..plan.warmup + plan.runs {
        let mut client = McpClient::spawn(
            subject,
            server.command(&plan.tree.root, &plan.log(subject))?,
        )?;
        client.initialize(plan.timeout)?;
        let sampler = RssSampler::start(client.pid(), Duration::from_millis(5))?;
        let start = Instant::now();
        let output = client.call_tool(call.tool, call.args.clone(), plan.timeout)?;
        let elapsed = start.elapsed();
        if output.is_error {
            bail!(
                "grep_content returned an error: {}",
                excerpt(&output.text, 300)
            );
        }
        if i >= plan.warmup {
            samples.push(elapsed);
            peak = peak.max(sampler.peak_kb());
        }
        drop(sampler);
        let _ = client.shutdown(Duration::from_secs(10));
    }
    Ok(timed(
        &samples,
        Some(peak),
        "a fresh server's first call".into(),
    ))
}

/// What the server logged about its index build.
struct IndexBuild {
    time: Duration,
    files: u64,
    text_bytes: u64,
    index_bytes: u64,
}

/// Parses `index: ready in N ms: F files, T bytes of text in I bytes`.
fn parse_index_ready(line: &str) -> Option<IndexBuild> {
    let rest = &line[line.find(INDEX_READY)? + INDEX_READY.len()..];
    let numbers: Vec<u64> = rest
        .split(|c: char| !c.is_ascii_digit())
        .filter(|w| !w.is_empty())
        .filter_map(|w| w.parse().ok())
        .collect();
    match numbers[..] {
        [ms, files, text, index, ..] => Some(IndexBuild {
            time: Duration::from_millis(ms),
            files,
            text_bytes: text,
            index_bytes: index,
        }),
        _ => None,
    }
}

/// With `--index`: a first call (which starts the build), a wait for the build, then the timed
/// repeated calls; the build as the server logged it.
fn indexed_calls(
    plan: &Plan,
    server: &Server,
    call: &Call,
    detail: impl Fn(&str) -> anyhow::Result<String>,
) -> anyhow::Result<(Outcome, Option<IndexBuild>)> {
    // A session logs under its kind's label.
    let log = plan.log(server.kind.label());
    let logged_before = std::fs::metadata(&log).map_or(0, |m| m.len() as usize);
    let mut session = Session::start(plan, server, &plan.tree.root)?;
    session
        .client
        .call_tool(call.tool, call.args.clone(), plan.timeout)?;
    let deadline = Instant::now() + plan.timeout;
    let build = loop {
        let text = std::fs::read(&log).unwrap_or_default();
        let new =
            String::from_utf8_lossy(text.get(logged_before..).unwrap_or_default()).into_owned();
        if let Some(build) = new.lines().find_map(parse_index_ready) {
            break Some(build);
        }
        if new.contains("index: not usable") || Instant::now() >= deadline {
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let outcome = timed_calls(plan, &mut session, call, &[], detail);
    session.close();
    Ok((outcome?, build))
}

/// Describes an rg run.
fn rg_detail(run: &CommandRun) -> anyhow::Result<String> {
    if run.stopped {
        return Ok(format!(
            "stopped after {} matching lines (as many as fs-mcp-rs counted), {} JSON",
            run.prefixed_lines,
            size(run.stdout_bytes as usize)
        ));
    }
    if run.exit.code.is_some_and(|c| c > 1) {
        bail!("rg exited with {:?}", run.exit.code);
    }
    Ok(format!(
        "{} matching lines, {} JSON",
        run.prefixed_lines,
        size(run.stdout_bytes as usize)
    ))
}

/// Describes a grep_content answer; for fs-mcp-rs also returns the count at which it stopped
/// counting (its total is then "at least N").
fn grep_detail(kind: Kind, text: &str) -> (String, Option<u64>) {
    if text.trim_start().starts_with("No matches") {
        return ("0 matching lines".into(), None);
    }
    match kind {
        Kind::Rust => {
            // `n:` marks a matching line, `n-` a context line.
            let shown = text
                .lines()
                .filter(|l| {
                    l.split_once(':').is_some_and(|(n, _)| {
                        !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())
                    })
                })
                .count();
            // "Note: showing the first 100 of 2,345 matching lines (…" or
            // "Note: showing 100 of at least 2,020 matching lines (counting stopped; …".
            let total = text.lines().rev().find_map(|l| {
                let rest = l.strip_prefix("Note: showing ")?;
                let (_, rest) = rest.split_once(" of ")?;
                let (rest, lower_bound) = match rest.strip_prefix("at least ") {
                    Some(r) => (r, true),
                    None => (rest, false),
                };
                let (n, _) = rest.split_once(' ')?;
                Some((n.replace(',', "").parse::<u64>().ok()?, lower_bound))
            });
            match total {
                Some((n, true)) => (
                    format!(
                        "≥ {n} matching lines (counting stopped there), {shown} shown, {}",
                        size(text.len())
                    ),
                    Some(n),
                ),
                Some((n, false)) => (
                    format!(
                        "{n} matching lines counted, {shown} shown, {}",
                        size(text.len())
                    ),
                    None,
                ),
                None => (
                    format!("{shown} matching lines, {}", size(text.len())),
                    None,
                ),
            }
        }
        _ => {
            let shown = text.lines().filter(|l| l.starts_with("File: ")).count();
            (
                format!(
                    "{shown} matching lines (≤ 100 per file), {}",
                    size(text.len())
                ),
                None,
            )
        }
    }
}

// ---------------------------------------------------------------------------------------------
// query

/// One query language as each subject speaks it: jq over JSON, or yq over YAML.
struct QueryLanguage<'a> {
    format: Format,
    /// The servers' tool and its expression parameter.
    tool: &'static str,
    expression_arg: &'static str,
    /// The baseline command (`jq`, `yq`), or why it cannot run.
    baseline_subject: &'static str,
    baseline: Result<&'a Tool, String>,
    /// Faster tools of the same language, timed alongside (qj, jaq over JSON), or why not.
    rivals: Vec<(&'static str, Result<&'a Tool, String>)>,
    /// Whether fs-mcp can run the tool, or why not.
    original: Result<(), String>,
    queries: Vec<(&'static str, &'static str)>,
}

fn query(plan: &Plan) -> Vec<Row> {
    let setup = plan.setup;
    let json = QueryLanguage {
        format: Format::Json,
        tool: "query_json",
        expression_arg: "jq_expression",
        baseline_subject: SUBJECT_JQ,
        baseline: setup
            .jq
            .as_ref()
            .ok_or_else(|| "jq not found on PATH".into()),
        original: match setup.jq {
            Some(_) => Ok(()),
            None => Err("its query_json needs jq on PATH".into()),
        },
        queries: data::queries(),
        rivals: vec![
            (
                SUBJECT_QJ,
                setup.qj.as_ref().ok_or_else(|| {
                    format!(
                        "qj {QJ_VERSION} is not installed in target/bench/cargo (pass --install)"
                    )
                }),
            ),
            (
                SUBJECT_JAQ,
                setup.jaq.as_ref().ok_or_else(|| {
                    format!(
                        "jaq {JAQ_VERSION} is not installed in target/bench/venv (pass --install)"
                    )
                }),
            ),
        ],
    };
    let yaml = QueryLanguage {
        format: Format::Yaml,
        tool: "query_yaml",
        expression_arg: "yq_expression",
        baseline_subject: SUBJECT_YQ,
        baseline: match (&setup.jq, &setup.yq) {
            (None, _) => Err("jq not found on PATH (yq runs it)".into()),
            (Some(_), None) => Err(format!(
                "yq {YQ_VERSION} is not installed in target/bench/venv (pass --install)"
            )),
            (Some(_), Some(yq)) => Ok(yq),
        },
        original: original_query_yaml(setup),
        queries: data::yaml_queries(),
        rivals: Vec::new(),
    };
    let mut rows = Vec::new();
    let mut cases = query_cases(plan, &json, &mut rows);
    cases.extend(query_cases(plan, &yaml, &mut rows));
    for server in &setup.servers {
        rows.extend(server_cases(
            plan,
            Workload::Query,
            server,
            &plan.data.dir,
            &cases,
        ));
    }
    rows.extend(companion_rows(plan, Workload::Query, &cases));
    rows
}

/// Whether fs-mcp 1.23.2's `query_yaml` can run here. It runs `yq -o json -I 0 --from-file`,
/// which only mikefarah's yq v4 understands; its start-up check accepts any `yq` on PATH, and
/// the Python wrapper then fails on every call (`-o` is not one of its options).
fn original_query_yaml(setup: &Setup) -> Result<(), String> {
    match &setup.path_yq {
        Some(yq) if competitors::is_mikefarah_v4(yq) => Ok(()),
        Some(yq) => Err(format!(
            "its query_yaml needs mikefarah's yq v4 (`yq -o json -I 0 --from-file`); the yq on PATH ({}) is `{}`",
            yq.path.display(),
            yq.version
        )),
        None => Err("its query_yaml needs mikefarah's yq v4 on PATH".into()),
    }
}

/// The cases of one query language: every expression through the servers' tool, with the
/// baseline command timed alongside fs-mcp-rs and its output as the expected answer. A missing
/// baseline gets its row in `rows`.
fn query_cases<'a>(
    plan: &Plan<'a>,
    language: &QueryLanguage<'a>,
    rows: &mut Vec<Row>,
) -> Vec<Case<'a>> {
    let data: &'a Data = plan.data;
    let (file, _) = data.query_file(language.format);
    let subject = language.baseline_subject;
    language
        .queries
        .iter()
        .map(|&(label, expression)| {
            let mut companions = Vec::new();
            let mut reference = None;
            match &language.baseline {
                Err(why) => rows.push(missing(Workload::Query, label, subject, why)),
                Ok(tool) => {
                    let tool: &'a Tool = tool;
                    let command = move || {
                        let mut c = Command::new(&tool.path);
                        c.arg("-c").arg(expression).arg(file);
                        c
                    };
                    reference = reference_output(plan, subject, &mut command());
                    companions.push(Companion::new(
                        subject,
                        move || {
                            Some((
                                command(),
                                Capture {
                                    prefix: b"",
                                    keep: 1 << 20,
                                    stop_after: None,
                                },
                            ))
                        },
                        move |run| baseline_detail(subject, run),
                    ));
                }
            }
            for (rival, found) in &language.rivals {
                let rival: &'static str = rival;
                match found {
                    Err(why) => rows.push(missing(Workload::Query, label, rival, why)),
                    Ok(tool) => {
                        let tool: &'a Tool = tool;
                        companions.push(Companion::new(
                            rival,
                            move || {
                                let mut c = Command::new(&tool.path);
                                c.arg("-c").arg(expression).arg(file);
                                Some((
                                    c,
                                    Capture {
                                        prefix: b"",
                                        keep: 1 << 20,
                                        stop_after: None,
                                    },
                                ))
                            },
                            move |run| baseline_detail(rival, run),
                        ));
                    }
                }
            }
            let file = path_str(file);
            let (tool, argument) = (language.tool, language.expression_arg);
            let original = language.original.clone();
            Case {
                name: label.to_string(),
                call: Box::new(move |kind| {
                    let call = Call {
                        tool,
                        args: json!({"file_path": file, argument: expression}),
                    };
                    match kind {
                        Kind::Rust => Ok(call),
                        Kind::Original => original.clone().map(|()| call),
                        Kind::Official => Err("no query tool".into()),
                    }
                }),
                check: Box::new(move |_, text| query_detail(text, reference.as_deref(), subject)),
                companions,
            }
        })
        .collect()
}

/// The baseline's output for a query (one untimed run up front), to check the servers' answers
/// against; `None` (with a message) if it fails.
fn reference_output(plan: &Plan, subject: &str, command: &mut Command) -> Option<String> {
    match measure::run_command(command, b"", 1 << 20, None, &plan.log(subject)) {
        Ok(run) if run.exit.code == Some(0) => {
            Some(String::from_utf8_lossy(&run.head).into_owned())
        }
        Ok(run) => {
            eprintln!("bench: {command:?} exited with {:?}", run.exit.code);
            None
        }
        Err(e) => {
            eprintln!("bench: {command:?}: {e:#}");
            None
        }
    }
}

/// Describes a run of the baseline (`jq`, `yq`).
fn baseline_detail(subject: &str, run: &CommandRun) -> anyhow::Result<String> {
    if run.exit.code != Some(0) {
        bail!("{subject} exited with {:?}", run.exit.code);
    }
    let text = String::from_utf8_lossy(&run.head);
    Ok(format!(
        "{}, {}",
        count(text.lines().count(), "result line", "result lines"),
        size(run.stdout_bytes as usize)
    ))
}

/// Checks a server's query answer and describes it, saying whether it agrees with the
/// baseline's output (`reference`), when there is one.
fn query_detail(text: &str, reference: Option<&str>, baseline: &str) -> anyhow::Result<String> {
    reject_error_text(text)?;
    if text.trim().is_empty() || text.trim() == "No results found." {
        bail!("no results");
    }
    let agreement = match reference {
        Some(expected) if same_results(expected, text) => format!(", same results as {baseline}"),
        Some(_) => format!(", DIFFERS from {baseline}"),
        None => String::new(),
    };
    Ok(format!(
        "{}, {}{agreement}",
        count(text.lines().count(), "line", "lines"),
        size(text.len())
    ))
}

/// Whether the leading result lines of a server's answer equal the baseline's (as JSON values,
/// so spacing and key order do not matter). Servers show at most 100 results and may append a
/// note, so only the leading lines that parse are compared, and there must be at least one.
fn same_results(baseline: &str, server: &str) -> bool {
    let parse = |text: &str| -> Vec<Value> {
        text.lines()
            .take(100)
            .map_while(|l| serde_json::from_str::<Value>(l.trim()).ok())
            .collect()
    };
    let (expected, got) = (parse(baseline), parse(server));
    !got.is_empty() && got.len() <= expected.len() && expected[..got.len()] == got[..]
}

// ---------------------------------------------------------------------------------------------
// tree

fn tree(plan: &Plan) -> Vec<Row> {
    let tree = plan.tree;
    let root = path_str(&tree.root);
    let sub = path_str(&tree.subtree);
    let sub_name = tree
        .subtree
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let find = tree.find_pattern.clone();
    let cases = vec![
        Case {
            name: "directory_tree, whole tree, each server's defaults".into(),
            call: Box::new({
                let root = root.clone();
                move |_| {
                    Ok(Call {
                        tool: "directory_tree",
                        args: json!({ "path": root }),
                    })
                }
            }),
            check: Box::new(|_, text| {
                reject_error_text(text)?;
                Ok(tree_detail(text))
            }),
            companions: Vec::new(),
        },
        Case {
            name: format!(
                "directory_tree, complete listing of {sub_name} ({} entries)",
                tree.subtree_entries
            ),
            call: Box::new(move |kind| {
                Ok(Call {
                    tool: "directory_tree",
                    args: match kind {
                        Kind::Rust | Kind::Original => {
                            json!({"path": sub, "max_depth": 64, "exclude_dirs": []})
                        }
                        Kind::Official => json!({ "path": sub }),
                    },
                })
            }),
            check: Box::new(|_, text| {
                reject_error_text(text)?;
                Ok(tree_detail(text))
            }),
            companions: Vec::new(),
        },
        Case {
            name: format!("search_files \"{find}\", whole tree"),
            call: Box::new(move |_| {
                Ok(Call {
                    tool: "search_files",
                    args: json!({"path": root, "pattern": find}),
                })
            }),
            check: Box::new(|_, text| {
                reject_error_text(text)?;
                let paths = text
                    .lines()
                    .filter(|l| {
                        let l = l.trim();
                        !l.is_empty() && !l.starts_with("Note") && !l.starts_with("No ")
                    })
                    .count();
                Ok(format!("{paths} paths, {}", size(text.len())))
            }),
            companions: Vec::new(),
        },
    ];
    plan.setup
        .servers
        .iter()
        .flat_map(|s| server_cases(plan, Workload::Tree, s, &tree.root, &cases))
        .collect()
}

fn tree_detail(text: &str) -> String {
    let nodes = text.matches("\"name\"").count();
    format!("{nodes} nodes, {}", size(text.len()))
}
