//! `cargo xtask bench`: fs-mcp-rs against fs-mcp 1.23.2 (the original, PyPI), the official
//! `@modelcontextprotocol/server-filesystem` (npm), `rg`, `jq` and `yq` (PyPI, over YAML), each
//! server driven over stdio as an MCP client drives it.
//!
//! ```text
//! cargo xtask bench [all|startup|read|grep|query|tree|proxy]... [--quick] [--runs N] [--out PATH]
//!                   [--install | --no-install] [--server-bin PATH]
//! ```
//!
//! * Builds `fs-mcp-rs` with the `dist` profile (the packaged binary) with the invoking cargo (honouring `CARGO_TARGET_DIR`)
//!   unless `--server-bin` names a binary.
//! * Installs the competitors into `target/bench/` (`venv/`, `npm/`) on full runs; `--quick`
//!   uses only what is already installed (no network) unless `--install`.
//! * Generates its inputs under `target/bench/data/` once and reuses them.
//! * Prints a table and writes a Markdown report: `docs/BENCHMARKS.md` by default, or
//!   `target/bench/quick.md` for `--quick`.
//!
//! Modules: [`client`] (the JSON-RPC client), [`competitors`] (build, install, locate),
//! [`data`] (generators), [`workloads`], [`measure`] (timing and RSS), [`report`].

mod build_time;
mod client;
mod competitors;
mod data;
mod measure;
mod report;
mod workloads;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, bail};

use workloads::{Outcome, Plan, Workload};

const USAGE: &str = "usage: cargo xtask bench [all|startup|read|grep|query|tree|proxy]... [--quick] [--runs N] [--out PATH] [--install|--no-install] [--server-bin PATH]
       cargo xtask bench build-time [--out PATH]   (from-source install time next to rust-mcp-filesystem's)

  all (default)   every workload
  --quick         one run of each workload on small inputs; competitors only if already installed
  --runs N        timed runs per measurement (default 5; 1 with --quick)
  --out PATH      report path (default docs/BENCHMARKS.md; target/bench/quick.md with --quick)
  --install       install missing competitors even with --quick
  --no-install    never install competitors (use what target/bench/ has)
  --server-bin P  benchmark this fs-mcp-rs binary instead of building the dist-profile one";

/// Command-line options.
#[derive(Debug)]
struct Options {
    workloads: Vec<Workload>,
    quick: bool,
    runs: usize,
    out: Option<PathBuf>,
    install: bool,
    server_bin: Option<PathBuf>,
}

impl Options {
    fn parse(args: &[String]) -> anyhow::Result<Options> {
        let mut workloads = Vec::new();
        let (mut quick, mut runs, mut out, mut install, mut server_bin) =
            (false, None, None, None, None);
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let mut value = |flag: &str| {
                it.next()
                    .cloned()
                    .with_context(|| format!("{flag} needs a value\n{USAGE}"))
            };
            match arg.as_str() {
                "all" => workloads.extend(Workload::ALL),
                "--quick" => quick = true,
                "--runs" => {
                    let n: usize = value("--runs")?
                        .parse()
                        .context("--runs needs a positive number")?;
                    if n == 0 {
                        bail!("--runs needs a positive number");
                    }
                    runs = Some(n);
                }
                "--out" => out = Some(PathBuf::from(value("--out")?)),
                "--install" => install = Some(true),
                "--no-install" => install = Some(false),
                "--server-bin" => server_bin = Some(PathBuf::from(value("--server-bin")?)),
                "-h" | "--help" => {
                    println!("{USAGE}");
                    std::process::exit(0);
                }
                other => match Workload::parse(other) {
                    Some(w) => workloads.push(w),
                    None => bail!("unknown argument {other:?}\n{USAGE}"),
                },
            }
        }
        if workloads.is_empty() {
            workloads.extend(Workload::ALL);
        }
        let mut unique = Vec::new();
        for w in workloads {
            if !unique.contains(&w) {
                unique.push(w);
            }
        }
        Ok(Options {
            workloads: unique,
            quick,
            runs: runs.unwrap_or(if quick { 1 } else { 5 }),
            out,
            install: install.unwrap_or(!quick),
            server_bin,
        })
    }
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

pub fn run(args: &[String]) -> anyhow::Result<()> {
    if args.first().map(String::as_str) == Some("build-time") {
        return build_time::run(&args[1..]);
    }
    let options = Options::parse(args)?;
    let started = SystemTime::now();
    let clock = Instant::now();
    let root = workspace_root();
    let bench_dir = root.join("target/bench");
    let logs = bench_dir.join("logs");
    std::fs::create_dir_all(&logs).with_context(|| format!("cannot create {}", logs.display()))?;
    // Each run starts with empty logs.
    for entry in std::fs::read_dir(&logs)
        .with_context(|| format!("cannot list {}", logs.display()))?
        .flatten()
    {
        if entry.path().extension().is_some_and(|e| e == "log") {
            std::fs::remove_file(entry.path())
                .with_context(|| format!("cannot remove {}", entry.path().display()))?;
        }
    }
    let out = match &options.out {
        Some(p) if p.is_absolute() => p.clone(),
        Some(p) => std::env::current_dir()
            .context("no current directory")?
            .join(p),
        None if options.quick => bench_dir.join("quick.md"),
        None => root.join("docs/BENCHMARKS.md"),
    };

    let binary = match &options.server_bin {
        Some(p) => p
            .canonicalize()
            .with_context(|| format!("--server-bin {}", p.display()))?,
        None => competitors::build_server(&root)?,
    };
    let rust = competitors::rust_server(&binary)?;
    let setup = competitors::locate(&bench_dir, options.install, rust);
    for note in &setup.notes {
        eprintln!("bench: {note}");
    }

    let data = data::prepare(&bench_dir.join("data"), data::Sizes::new(options.quick))?;
    let tree = if options.quick {
        data::quick_tree(&bench_dir.join("data/quick-tree"))?
    } else {
        data::registry_tree()?
    };

    let load_before = report::load_average();
    let plan = Plan {
        setup: &setup,
        data: &data,
        tree: &tree,
        logs,
        runs: options.runs,
        warmup: usize::from(!options.quick),
        timeout: Duration::from_secs(if options.quick { 60 } else { 600 }),
    };
    let mut rows = Vec::new();
    for &workload in &options.workloads {
        eprintln!("bench: {} …", workload.name());
        let workload_rows = workloads::run(&plan, workload);
        for r in &workload_rows {
            if let Outcome::Failed(e) = &r.outcome {
                eprintln!(
                    "bench: {} / {} / {}: FAILED: {e}",
                    workload.name(),
                    r.case,
                    r.subject
                );
            }
        }
        rows.extend(workload_rows);
    }

    // Speed goals are judged on full runs only: a quick run is a smoke test of the harness.
    let goals = if options.quick {
        Vec::new()
    } else {
        report::goals(&rows, &data)
    };
    report::print_console(&rows, &goals);

    let command_line = {
        let mut c = String::from("cargo xtask bench");
        for a in args {
            c.push(' ');
            c.push_str(a);
        }
        c
    };
    let context = report::Context {
        command_line,
        started,
        elapsed: clock.elapsed(),
        quick: options.quick,
        runs: plan.runs,
        warmup: plan.warmup,
        setup: &setup,
        rust_commit: competitors::git_commit(&root),
        rust_binary: &binary,
        data: &data,
        tree: &tree,
        load_before,
        load_after: report::load_average(),
    };
    let analysis = report::preserved_analysis(&out);
    let mut markdown = report::markdown(&context, &rows, &goals, analysis.as_deref());
    if let Some(section) = build_time::preserved(&out) {
        markdown = build_time::insert_section(&markdown, &section);
    }
    if let Some(parent) = out.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    std::fs::write(&out, markdown).with_context(|| format!("cannot write {}", out.display()))?;
    println!("\nreport written to {}", out.display());

    // fs-mcp-rs must answer every workload it has the tool for; competitors may fail (noted).
    let ours_failed: Vec<String> = rows
        .iter()
        .filter(|r| r.subject == competitors::Kind::Rust.label())
        .filter_map(|r| match &r.outcome {
            Outcome::Failed(e) => Some(format!("{} / {}: {e}", r.workload.name(), r.case)),
            _ => None,
        })
        .collect();
    if !ours_failed.is_empty() {
        bail!("fs-mcp-rs failed:\n  {}", ours_failed.join("\n  "));
    }
    Ok(())
}
