//! `cargo xtask bench build-time`: how long a from-source install of fs-mcp-rs takes next to
//! rust-mcp-filesystem's, the leanest Rust MCP filesystem server we know.
//!
//! Both are `cargo install --locked --offline` into a fresh root with a fresh target directory,
//! one right after the other, after their crates are downloaded (so the network is not timed).
//! Wall time is what a user waits; CPU time (user + sys of the build's processes) is reported
//! beside it because the machine is shared and wall time moves with the other builds on it.
//! The section it writes into docs/BENCHMARKS.md lies between [`BEGIN`] and [`END`], and
//! `cargo xtask bench` carries it over when it regenerates the rest.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, bail};

use super::competitors::RUST_MCP_FILESYSTEM_VERSION;
use super::report::{load_average, machine_line, utc_date};

pub const BEGIN: &str = "<!-- build-time:begin (written by `cargo xtask bench build-time`; kept when the report is regenerated) -->";
pub const END: &str = "<!-- build-time:end -->";

/// The goal: a from-source install at most this many times rust-mcp-filesystem's.
const GOAL_RATIO: f64 = 1.5;

const USAGE: &str = "usage: cargo xtask bench build-time [--out PATH]
  Times `cargo install --locked --offline` of rust-mcp-filesystem and of this repository, each in
  a fresh target directory, one right after the other, and writes the section of PATH (default
  docs/BENCHMARKS.md) between its build-time markers.";

/// One timed build.
struct Build {
    wall: Duration,
    cpu: Duration,
    binary_bytes: u64,
}

pub fn run(args: &[String]) -> anyhow::Result<()> {
    let root = super::workspace_root();
    let mut out = root.join("docs/BENCHMARKS.md");
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--out" => out = PathBuf::from(it.next().context(USAGE)?),
            _ => bail!("unknown argument `{arg}`\n{USAGE}"),
        }
    }
    let dir = root.join("target/bench/build-time");
    if dir.exists() {
        std::fs::remove_dir_all(&dir).with_context(|| format!("clean {}", dir.display()))?;
    }
    std::fs::create_dir_all(&dir)?;
    let peer_manifest = warm_downloads(&root, &dir)?;

    let started = SystemTime::now();
    let load_before = load_average();
    let peer_name = "rust-mcp-filesystem";
    eprintln!("bench build-time: cargo install {peer_name}@{RUST_MCP_FILESYSTEM_VERSION} …");
    let peer = timed_install(
        cargo()
            .args(["install", "--locked", "--offline", "--force", "--path"])
            .arg(
                peer_manifest
                    .parent()
                    .context("peer manifest has no folder")?,
            ),
        &dir.join("peer"),
        peer_name,
    )?;
    let load_between = load_average();
    eprintln!("bench build-time: cargo install --path . (fs-mcp-rs) …");
    let ours = timed_install(
        cargo()
            .args(["install", "--locked", "--offline", "--force", "--path"])
            .arg(&root),
        &dir.join("ours"),
        "fs-mcp-rs",
    )?;
    let load_after = load_average();

    let wall_ratio = ours.wall.as_secs_f64() / peer.wall.as_secs_f64();
    let cpu_ratio = ours.cpu.as_secs_f64() / peer.cpu.as_secs_f64();
    let mut md = String::new();
    let _ = writeln!(md, "{BEGIN}");
    let _ = writeln!(md, "## From-source build\n");
    let _ = writeln!(
        md,
        "Measured by `cargo xtask bench build-time` on {}: `cargo install --locked --offline` of \
         each, into a fresh root with a fresh target directory, one right after the other, with \
         every crate already downloaded. {}. Load average (1/5/15 min) before: {load_before}; \
         between the two builds: {load_between}; after: {load_after}. The machine is shared with \
         other builds: wall time moves with them, CPU time (user + sys of the build's processes) \
         much less.\n",
        utc_date(started),
        machine_line()
    );
    let _ = writeln!(md, "| build | wall time | CPU time | binary |");
    let _ = writeln!(md, "|---|---|---|---|");
    for (label, build) in [
        (
            format!("rust-mcp-filesystem {RUST_MCP_FILESYSTEM_VERSION} (its release profile)"),
            &peer,
        ),
        (
            "fs-mcp-rs, `cargo install --locked --path .` (release profile)".to_string(),
            &ours,
        ),
    ] {
        let _ = writeln!(
            md,
            "| {label} | {} | {} | {:.1} MB |",
            minutes(build.wall),
            minutes(build.cpu),
            build.binary_bytes as f64 / 1_048_576.0
        );
    }
    let status = if wall_ratio <= GOAL_RATIO {
        "met"
    } else {
        "**MISSED**"
    };
    let _ = writeln!(
        md,
        "\nGoal: fs-mcp-rs's from-source install at most {GOAL_RATIO}× rust-mcp-filesystem's: \
         wall time {wall_ratio:.2}× ({status}); CPU time {cpu_ratio:.2}×.\n"
    );
    let _ = writeln!(md, "{END}");
    print!("{md}");
    write_section(&out, &md)?;
    println!("written to {}", out.display());
    Ok(())
}

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo")))
}

/// Downloads every crate both builds need, so neither build times the network: ours with
/// `cargo fetch`, rust-mcp-filesystem's through a scratch package that depends on it (which
/// brings its published source, with its Cargo.lock) and then `cargo fetch --locked` in that
/// source. Returns the peer's manifest.
fn warm_downloads(root: &Path, dir: &Path) -> anyhow::Result<PathBuf> {
    crate::util::status(
        cargo()
            .args(["fetch", "--locked", "--manifest-path"])
            .arg(root.join("Cargo.toml")),
    )?;
    let scratch = dir.join("peer-source");
    std::fs::create_dir_all(scratch.join("src"))?;
    std::fs::write(
        scratch.join("Cargo.toml"),
        format!(
            "[package]\nname = \"peer-source\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n\
             [workspace]\n\n[dependencies]\nrust-mcp-filesystem = \"={RUST_MCP_FILESYSTEM_VERSION}\"\n"
        ),
    )?;
    std::fs::write(scratch.join("src/lib.rs"), "")?;
    let metadata = cargo()
        .args(["metadata", "--format-version", "1", "--manifest-path"])
        .arg(scratch.join("Cargo.toml"))
        .output()
        .context("cargo metadata")?;
    if !metadata.status.success() {
        bail!(
            "cargo metadata for rust-mcp-filesystem failed: {}",
            String::from_utf8_lossy(&metadata.stderr)
        );
    }
    let metadata: serde_json::Value = serde_json::from_slice(&metadata.stdout)?;
    let manifest = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == "rust-mcp-filesystem")
        .and_then(|p| p["manifest_path"].as_str())
        .map(PathBuf::from)
        .context("rust-mcp-filesystem is not in the scratch package's metadata")?;
    crate::util::status(
        cargo()
            .args(["fetch", "--locked", "--manifest-path"])
            .arg(&manifest),
    )?;
    Ok(manifest)
}

/// Runs a `cargo install` into `dir/root` with the target directory `dir/target` (both fresh),
/// timing its wall clock and the CPU time of its processes.
fn timed_install(command: &mut Command, dir: &Path, binary: &str) -> anyhow::Result<Build> {
    let install_root = dir.join("root");
    command
        .arg("--root")
        .arg(&install_root)
        .arg("--target-dir")
        .arg(dir.join("target"))
        .env_remove("CARGO_TARGET_DIR")
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_BUILD_RUSTFLAGS");
    let cpu_before = children_cpu();
    let clock = Instant::now();
    crate::util::status(command)?;
    let wall = clock.elapsed();
    let cpu = children_cpu().saturating_sub(cpu_before);
    let path = install_root.join("bin").join(binary);
    let binary_bytes = std::fs::metadata(&path)
        .with_context(|| format!("no {} after the install", path.display()))?
        .len();
    eprintln!(
        "bench build-time: {binary}: {} wall, {} CPU",
        minutes(wall),
        minutes(cpu)
    );
    Ok(Build {
        wall,
        cpu,
        binary_bytes,
    })
}

/// User + system CPU time of every child process waited for so far (and of their children).
fn children_cpu() -> Duration {
    // libc: std has no getrusage.
    #[allow(unsafe_code)]
    // SAFETY: getrusage writes one rusage struct into the zeroed value it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64)
    };
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// `7 min 41 s`.
fn minutes(d: Duration) -> String {
    let secs = d.as_secs();
    format!("{} min {:02} s", secs / 60, secs % 60)
}

/// Replaces the section between the markers in `path` (or, without one, inserts it before
/// "## Reproducing", or at the end).
fn write_section(path: &Path, section: &str) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let text = without_section(&text);
    let updated = insert_section(&text, section);
    std::fs::write(path, updated).with_context(|| format!("write {}", path.display()))
}

/// The section of a report (markers included), if it has one.
pub fn preserved(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let start = text.find(BEGIN)?;
    let end = text[start..].find(END)? + start + END.len();
    Some(format!("{}\n", &text[start..end]))
}

fn without_section(text: &str) -> String {
    match (text.find(BEGIN), text.find(END)) {
        (Some(start), Some(end)) if end > start => {
            let after = text[end + END.len()..].trim_start_matches('\n');
            format!("{}{after}", &text[..start])
        }
        _ => text.to_string(),
    }
}

/// The report with the section before "## Reproducing" (or at its end).
pub fn insert_section(report: &str, section: &str) -> String {
    match report.find("\n## Reproducing") {
        Some(at) => format!("{}\n{section}{}", &report[..=at], &report[at + 1..]),
        None => format!("{}\n\n{section}", report.trim_end()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_section_replaces_its_old_self_before_reproducing() {
        let section = format!("{BEGIN}\n## From-source build\n\nnew\n{END}\n");
        let report = format!(
            "# B\n\n## Goals\n\nx\n\n{BEGIN}\n## From-source build\n\nold\n{END}\n\n## Reproducing\n\nsh\n"
        );
        let updated = insert_section(&without_section(&report), &section);
        assert!(
            updated.contains("new") && !updated.contains("old"),
            "{updated}"
        );
        assert_eq!(updated.matches(BEGIN).count(), 1);
        assert!(updated.find("new").unwrap() < updated.find("## Reproducing").unwrap());
        let fresh = insert_section("# B\n\n## Reproducing\n\nsh\n", &section);
        assert!(fresh.find(BEGIN).unwrap() < fresh.find("## Reproducing").unwrap());
    }
}
