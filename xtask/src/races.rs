//! `cargo xtask races [--runs N] [--load N] [--filter WORD]…`: every race test of the workspace
//! (its name says swap, race, parallel, exchange or concurrent), run again and again, with `--load`
//! busy threads beside it: the way a test that fails one run in five is found before CI finds it.
//! Builds the tests once, then runs each test binary's race tests `--runs` times (default 100),
//! and says how many runs of which binary failed, with the first failure's output.

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use anyhow::{Context, bail};

use crate::util;

/// Words that name a race test.
const RACE_WORDS: &[&str] = &["swap", "race", "parallel", "exchange", "concurren"];

pub fn run(args: &[String]) -> anyhow::Result<()> {
    let mut runs = 100usize;
    let mut load = 0usize;
    let mut words: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .with_context(|| format!("{name} takes a value"))
                .cloned()
        };
        match arg.as_str() {
            "--runs" => runs = value("--runs")?.parse().context("--runs takes a number")?,
            "--load" => load = value("--load")?.parse().context("--load takes a number")?,
            "--filter" => words.push(value("--filter")?),
            other => bail!(
                "unknown argument {other}: cargo xtask races [--runs N] [--load N] [--filter WORD]"
            ),
        }
    }
    if words.is_empty() {
        words = RACE_WORDS.iter().map(|w| w.to_string()).collect();
    }
    let binaries = test_binaries()?;
    let mut plan: Vec<(PathBuf, Vec<String>)> = Vec::new();
    for binary in binaries {
        let tests = race_tests(&binary, &words)?;
        if !tests.is_empty() {
            plan.push((binary, tests));
        }
    }
    if plan.is_empty() {
        bail!("no test name holds any of {words:?}");
    }
    for (binary, tests) in &plan {
        eprintln!("xtask races: {} ({} tests)", binary.display(), tests.len());
    }
    let stop = Arc::new(AtomicBool::new(false));
    let spinners: Vec<_> = (0..load)
        .map(|_| {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                let mut x = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                }
            })
        })
        .collect();
    let started = Instant::now();
    let mut failures: Vec<(PathBuf, usize, String)> = Vec::new();
    for run in 1..=runs {
        for (binary, tests) in &plan {
            let output = Command::new(binary)
                .args(tests)
                .args(["--exact", "--quiet"])
                .current_dir(util::workspace_root())
                .stdin(Stdio::null())
                .output()
                .with_context(|| format!("cannot run {}", binary.display()))?;
            if !output.status.success() {
                let text = format!(
                    "{}{}",
                    String::from_utf8_lossy(&output.stdout),
                    String::from_utf8_lossy(&output.stderr)
                );
                eprintln!("xtask races: run {run}: {} FAILED", binary.display());
                failures.push((binary.clone(), run, text));
            }
        }
        if run % 10 == 0 {
            eprintln!("xtask races: {run} runs in {:?}", started.elapsed());
        }
    }
    stop.store(true, Ordering::Relaxed);
    for spinner in spinners {
        let _ = spinner.join();
    }
    println!(
        "xtask races: {} runs of {} binaries, {} failed",
        runs,
        plan.len(),
        failures.len()
    );
    if let Some((binary, run, text)) = failures.first() {
        bail!(
            "{} failing runs; the first, run {run} of {}:\n{text}",
            failures.len(),
            binary.display()
        );
    }
    Ok(())
}

/// Every test executable of the workspace, built now.
fn test_binaries() -> anyhow::Result<Vec<PathBuf>> {
    let output = Command::new("cargo")
        .args(["test", "--workspace", "--no-run", "--message-format=json"])
        .current_dir(util::workspace_root())
        .stderr(Stdio::inherit())
        .output()
        .context("cannot run cargo test --no-run")?;
    if !output.status.success() {
        bail!("cargo test --no-run failed");
    }
    let mut binaries = Vec::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if message["profile"]["test"] == true
            && let Some(path) = message["executable"].as_str()
        {
            binaries.push(PathBuf::from(path));
        }
    }
    Ok(binaries)
}

/// The tests of `binary` whose names hold one of `words`.
fn race_tests(binary: &PathBuf, words: &[String]) -> anyhow::Result<Vec<String>> {
    let output = Command::new(binary)
        .args(["--list", "--format", "terse"])
        .current_dir(util::workspace_root())
        .stderr(Stdio::null())
        .output()
        .with_context(|| format!("cannot list the tests of {}", binary.display()))?;
    Ok(String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.strip_suffix(": test"))
        .filter(|name| words.iter().any(|w| name.contains(w.as_str())))
        .map(str::to_string)
        .collect())
}
