//! `cargo xtask test`: the project's test command. Installs the real MCP clients the integration
//! tests drive, runs the whole workspace's tests with those clients required, then the agent CLIs
//! end to end (`cargo xtask e2e`) and one smoke run of the benchmark harness against the binary
//! just tested (a debug build on small inputs: no speed goal is judged), so neither harness can
//! rot; then the release packages (`cargo xtask dist`): built, installed offline, run by the
//! agent CLIs, and the release workflow linted. Each step says what it does as it starts; the
//! last line is the verdict, `cargo xtask test: N passed, M failed` (cargo's tests, the
//! end-to-end checks, the smoke run and the package checks).

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use crate::{bench, clients, dist, e2e, leftovers, util};

/// What passed and failed so far.
#[derive(Default)]
struct Verdict {
    passed: usize,
    failed: usize,
    /// Why steps failed, repeated just before the verdict.
    errors: Vec<String>,
}

impl Verdict {
    fn error(&mut self, what: String) {
        self.failed += 1;
        self.errors.push(what);
    }
}

pub fn main(args: &[String]) -> ExitCode {
    let mark = leftovers::mark_run();
    let started = Instant::now();
    let mut verdict = Verdict::default();
    run(args, &mut verdict, started);
    if leftovers::interrupted() {
        verdict.error("interrupted".into());
    }
    let survivors = leftovers::end_marked(&mark);
    if !survivors.is_empty() {
        verdict.error(format!(
            "{} processes the tests started were still running after them (now killed): {}",
            survivors.len(),
            survivors.join("; ")
        ));
    }
    for error in &verdict.errors {
        eprintln!("xtask: {error}");
    }
    // The last line, and the one CI reads.
    println!(
        "cargo xtask test: {} passed, {} failed",
        verdict.passed, verdict.failed
    );
    if verdict.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn step(started: Instant, what: &str) {
    let seconds = started.elapsed().as_secs();
    eprintln!(
        "\n== cargo xtask test [{}m{:02}s]: {what}",
        seconds / 60,
        seconds % 60
    );
}

fn run(args: &[String], verdict: &mut Verdict, started: Instant) {
    step(
        started,
        "installing the test clients into target/clients and target/agents (README: Prerequisites)",
    );
    if let Err(e) = clients::install() {
        verdict.error(format!("installing the test clients failed: {e:#}"));
        return;
    }
    step(started, "cargo test --workspace");
    match cargo_test(args) {
        Ok(tally) => {
            verdict.passed += tally.passed;
            verdict.failed += tally.failed;
            if !tally.finished {
                verdict.error("cargo test did not finish (see its output above)".into());
            }
            if tally.failed > 0 || !tally.finished {
                return;
            }
        }
        Err(e) => {
            verdict.error(format!("cannot run cargo test: {e:#}"));
            return;
        }
    }
    if leftovers::interrupted() {
        return;
    }
    let server = target_dir().join("debug/fs-mcp-rs");
    step(
        started,
        &format!("cargo xtask e2e --server-bin {}", server.display()),
    );
    match e2e::run_for_tests(&server) {
        Ok(tally) => {
            verdict.passed += tally.passed;
            verdict.failed += tally.failed;
            if let Err(e) = tally.check() {
                verdict.errors.push(format!("{e:#}"));
            }
        }
        Err(e) => verdict.error(format!("cargo xtask e2e: {e:#}")),
    }
    if leftovers::interrupted() {
        return;
    }
    let smoke: Vec<String> = ["--quick", "--no-install", "--server-bin"]
        .into_iter()
        .map(String::from)
        .chain([server.display().to_string()])
        .collect();
    step(
        started,
        &format!(
            "cargo xtask bench {} (a smoke run of the harness on the debug build)",
            smoke.join(" ")
        ),
    );
    match bench::run(&smoke) {
        Ok(()) => verdict.passed += 1,
        Err(e) => verdict.error(format!("the benchmark smoke run failed: {e:#}")),
    }
    if leftovers::interrupted() {
        return;
    }
    packages(verdict, started);
    step(started, "done");
}

/// The release packages: built (`cargo xtask dist --profile release`: the packaging is under
/// test, not the dist profile's fat LTO, which would add ten minutes), the license check
/// with them; installed offline and run end to end by the agent CLIs (`cargo xtask dist test`);
/// the release workflow linted (`cargo xtask dist lint`).
fn packages(verdict: &mut Verdict, started: Instant) {
    step(
        started,
        "cargo xtask dist --profile release (tarball, wheel, npm packages; license check)",
    );
    let built = dist::Options::host("release").and_then(|options| dist::build(&options));
    match built {
        Ok(_) => verdict.passed += 1,
        Err(e) => {
            verdict.error(format!("cargo xtask dist: {e:#}"));
            return;
        }
    }
    step(
        started,
        "cargo xtask dist test (each package installed offline; the agent CLIs on npx and uvx)",
    );
    match dist::test() {
        Ok(tally) => {
            verdict.passed += tally.passed;
            verdict.failed += tally.failed;
            if let Err(e) = tally.check() {
                verdict.errors.push(format!("cargo xtask dist test: {e:#}"));
            }
        }
        Err(e) => verdict.error(format!("cargo xtask dist test: {e:#}")),
    }
    step(
        started,
        "cargo xtask dist lint (actionlint on the release workflow)",
    );
    match dist::lint() {
        Ok(()) => verdict.passed += 1,
        Err(e) => verdict.error(format!("cargo xtask dist lint: {e:#}")),
    }
}

/// How many tests cargo reported passed and failed, and whether it ran to the end.
struct CargoTally {
    passed: usize,
    failed: usize,
    finished: bool,
}

/// Runs `cargo test --workspace ARGS` with the clients required, passing its output through and
/// adding up its `test result:` lines.
fn cargo_test(args: &[String]) -> anyhow::Result<CargoTally> {
    let mut child = Command::new("cargo")
        .args(["test", "--workspace"])
        .args(args)
        .current_dir(util::workspace_root())
        .env("FS_MCP_REQUIRE_CLIENTS", "1")
        .env("FS_MCP_CLIENTS_DIR", clients::clients_dir())
        .stdout(Stdio::piped())
        .spawn()?;
    let mut tally = CargoTally {
        passed: 0,
        failed: 0,
        finished: false,
    };
    if let Some(stdout) = child.stdout.take() {
        let mut out = std::io::stdout();
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = writeln!(out, "{line}");
            if let Some((passed, failed)) = test_result(&line) {
                tally.passed += passed;
                tally.failed += failed;
            }
        }
    }
    tally.finished = child.wait()?.success();
    Ok(tally)
}

/// The counts of a libtest summary: `test result: ok. 12 passed; 0 failed; 1 ignored; …`.
fn test_result(line: &str) -> Option<(usize, usize)> {
    let rest = line.strip_prefix("test result: ")?;
    let count = |word: &str| {
        rest.split(';')
            .find_map(|part| {
                part.trim()
                    .trim_start_matches(|c: char| !c.is_ascii_digit())
                    .strip_suffix(word)
            })
            .and_then(|n| n.trim().parse().ok())
    };
    Some((count("passed")?, count("failed")?))
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| util::workspace_root().join("target"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libtest_summaries_are_counted() {
        assert_eq!(
            test_result(
                "test result: ok. 12 passed; 0 failed; 1 ignored; 0 measured; 3 filtered out; finished in 0.5s"
            ),
            Some((12, 0))
        );
        assert_eq!(
            test_result(
                "test result: FAILED. 14 passed; 2 failed; 0 ignored; 0 measured; 142 filtered out; finished in 5.01s"
            ),
            Some((14, 2))
        );
        assert_eq!(test_result("running 3 tests"), None);
    }
}
