//! `cargo xtask dist test`: the packages in `target/dist/` as a user installs them, offline,
//! from the built files only, each into a fresh prefix under `target/dist-test/`:
//!
//! - the tarball: its SHA-256, its files, its `fs-mcp-rs --version`;
//! - the wheel: `pip install` into a fresh venv, `uv tool install` and `pipx install`, each then
//!   `fs-mcp-rs --version`, and the license files in its metadata;
//! - the npm packages: `npm install -g` into a fresh prefix, then `fs-mcp-rs --version`;
//! - then Claude Code, Gemini CLI and OpenCode end to end (`cargo xtask e2e`'s standard script:
//!   reading, querying and editing files) with the server started by the README's local `npx …`
//!   and `uvx …` command lines (`<!-- e2e: npx-local -->`, `<!-- e2e: uvx-local -->`), the file
//!   names in them pointing into `target/dist/`, npm and uv offline with empty caches.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, bail};

use super::{LISTING, npm, tarball_stem, tools};
use crate::e2e::{self, Tally, readme, script::Outcome};
use crate::util::workspace_root;

/// Each README marker of a local packaged command line, and the runs' name.
const FORMS: &[(&str, &str)] = &[("npx-local", "npx"), ("uvx-local", "uvx")];

pub fn run(args: &[String]) -> anyhow::Result<Tally> {
    if let Some(arg) = args.first() {
        bail!("unknown argument `{arg}` (usage: cargo xtask dist test)");
    }
    let out = super::dist_dir();
    let version = super::version()?;
    let target = super::host_target()?;
    tools::ensure_venv(tools::Need::All)?;
    let scratch = workspace_root().join("target/dist-test");
    if scratch.exists() {
        std::fs::remove_dir_all(&scratch)?;
    }
    std::fs::create_dir_all(&scratch)?;

    let mut outcomes = vec![
        check("tarball: SHA-256 and files, --version", || {
            tarball(&out, &version, target, &scratch)
        }),
        check("wheel: pip install into a fresh venv, --version", || {
            pip(&out, &version, &scratch)
        }),
        check("wheel: uv tool install, --version", || {
            uv_tool(&out, &version, &scratch)
        }),
        check("wheel: pipx install, --version", || {
            pipx(&out, &version, &scratch)
        }),
        check("npm: install -g into a fresh prefix, --version", || {
            npm_global(&out, &version, target, &scratch)
        }),
    ];
    print_outcomes(&outcomes);
    let mut tally = Tally {
        passed: outcomes.iter().filter(|o| o.pass).count(),
        failed: outcomes.iter().filter(|o| !o.pass).count(),
        logs: scratch.clone(),
    };
    outcomes.clear();

    let text = readme::readme_text()?;
    let snippets = readme::snippets(&text)?;
    for (marker, name) in FORMS {
        let words = match local_command(&snippets, marker, &out) {
            Ok(words) => words,
            Err(e) => {
                tally.failed += 1;
                eprintln!("xtask dist test: README `{marker}`: {e:#}");
                continue;
            }
        };
        eprintln!(
            "xtask dist test: the agent CLIs with the server started as `{}`",
            words.join(" ")
        );
        let packaged = e2e::Packaged {
            name: format!("dist-{name}"),
            words,
            programs: vec![tools::venv_bin().join("uvx"), tools::venv_bin().join("uv")],
            env: offline_env(),
        };
        let runs = e2e::run_packaged(packaged)?;
        tally.passed += runs.passed;
        tally.failed += runs.failed;
    }
    println!(
        "dist test: {} passed, {} failed",
        tally.passed, tally.failed
    );
    Ok(tally)
}

/// npm and uv from the built files only: no registry, no update check, empty caches (the CLIs'
/// fresh homes hold them).
fn offline_env() -> Vec<(String, String)> {
    [
        ("npm_config_offline", "true"),
        ("npm_config_update_notifier", "false"),
        ("npm_config_audit", "false"),
        ("npm_config_fund", "false"),
        ("UV_OFFLINE", "1"),
        ("UV_NO_CONFIG", "1"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

/// The README's local command line for `marker`, its `./FILE` words made the absolute paths of
/// those files in `target/dist/` (each must exist: the README names what `cargo xtask dist`
/// builds), cut after `fs-mcp-rs` (what follows it is the project, which each CLI's snippet
/// gives).
fn local_command(
    snippets: &std::collections::BTreeMap<String, String>,
    marker: &str,
    out: &Path,
) -> anyhow::Result<Vec<String>> {
    let snippet = snippets
        .get(marker)
        .with_context(|| format!("README has no `<!-- e2e: {marker} -->` snippet"))?;
    let commands = readme::shell_commands(snippet, &|_| None)?;
    let [words] = commands.as_slice() else {
        bail!("expected one command, got {}", commands.len());
    };
    let at = words
        .iter()
        .position(|w| w == "fs-mcp-rs")
        .context("no `fs-mcp-rs` word")?;
    let rest = &words[at + 1..];
    if rest.iter().any(|w| w != readme::PROJECT_PLACEHOLDER) {
        bail!(
            "after `fs-mcp-rs` only {} may follow, got {rest:?}",
            readme::PROJECT_PLACEHOLDER
        );
    }
    words[..=at]
        .iter()
        .map(|word| match word.strip_prefix("./") {
            Some(file) => {
                let path = out.join(file);
                if !path.is_file() {
                    bail!(
                        "`{word}` is not a file `cargo xtask dist` built (in {}: {})",
                        out.display(),
                        super::sorted_files(out).unwrap_or_default().join(", ")
                    );
                }
                Ok(path.display().to_string())
            }
            None => Ok(word.clone()),
        })
        .collect()
}

fn check(scenario: &str, run: impl FnOnce() -> anyhow::Result<String>) -> Outcome {
    eprintln!("xtask dist test: {scenario} …");
    let (pass, detail) = match run() {
        Ok(detail) => (true, detail),
        Err(e) => (false, format!("{e:#}")),
    };
    Outcome {
        scenario: scenario.to_string(),
        pass,
        detail,
    }
}

fn print_outcomes(outcomes: &[Outcome]) {
    println!();
    for o in outcomes {
        println!(
            "{:<52} {:<6} {}",
            o.scenario,
            if o.pass { "pass" } else { "FAIL" },
            o.detail
        );
    }
    println!();
}

/// `fs-mcp-rs --version` of an installed command says the workspace's version.
fn version_of(program: &Path, version: &str) -> anyhow::Result<String> {
    let output = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("run {} --version", program.display()))?;
    let said = String::from_utf8_lossy(&output.stdout).trim().to_string();
    if !output.status.success() || said != format!("fs-mcp-rs {version}") {
        bail!(
            "{} --version: {said:?}, status {}, stderr {}",
            program.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(said)
}

fn run_quiet(command: &mut Command) -> anyhow::Result<()> {
    let shown = format!("{command:?}");
    let output = command
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("cannot run {shown}"))?;
    if !output.status.success() {
        bail!(
            "{shown} failed ({}): {}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout).trim(),
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(())
}

fn tarball(
    out: &Path,
    version: &str,
    target: &super::Target,
    scratch: &Path,
) -> anyhow::Result<String> {
    let stem = tarball_stem(version, target);
    let name = format!("{stem}.tar.gz");
    let recorded = std::fs::read_to_string(out.join(format!("{name}.sha256")))
        .with_context(|| format!("no {name}.sha256"))?;
    let sum = super::sha256_file(&out.join(&name))?;
    if recorded != format!("{sum}  {name}\n") {
        bail!("{name}.sha256 says {recorded:?}, the file's is {sum}");
    }
    let dir = scratch.join("tarball");
    std::fs::create_dir_all(&dir)?;
    run_quiet(
        Command::new("tar")
            .arg("-xzf")
            .arg(out.join(&name))
            .arg("-C")
            .arg(&dir),
    )?;
    let unpacked = dir.join(&stem);
    let mut files = super::sorted_files(&unpacked)?;
    files.sort();
    let mut expected = vec![
        "CHANGELOG.md",
        "LICENSE-APACHE",
        "LICENSE-MIT",
        "README.md",
        LISTING,
        "fs-mcp-rs",
    ];
    expected.sort();
    if files != expected {
        bail!("{name} holds {files:?}, expected {expected:?}");
    }
    version_of(&unpacked.join("fs-mcp-rs"), version)
}

/// The wheel of this machine's platform in `out`.
fn wheel(out: &Path) -> anyhow::Result<PathBuf> {
    let arch = std::env::consts::ARCH;
    super::sorted_files(out)?
        .into_iter()
        .find(|f| f.ends_with(".whl") && f.contains(arch))
        .map(|f| out.join(f))
        .with_context(|| format!("no {arch} wheel in {}", out.display()))
}

fn pip(out: &Path, version: &str, scratch: &Path) -> anyhow::Result<String> {
    let wheel = wheel(out)?;
    let venv = scratch.join("venv");
    run_quiet(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
    run_quiet(
        Command::new(venv.join("bin/pip"))
            .args([
                "install",
                "--no-index",
                "--no-deps",
                "--disable-pip-version-check",
                "--quiet",
            ])
            .arg(&wheel),
    )?;
    // The license files, where the wheel's metadata keeps them.
    let site = std::fs::read_dir(venv.join("lib"))?
        .filter_map(Result::ok)
        .map(|e| e.path().join("site-packages"))
        .find(|p| p.is_dir())
        .context("no site-packages in the venv")?;
    let info = std::fs::read_dir(&site)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("fs_mcp_rs-"))
        })
        .context("no fs_mcp_rs dist-info")?;
    for file in [
        "licenses/LICENSE-MIT".to_string(),
        "licenses/LICENSE-APACHE".to_string(),
        format!("licenses/target/dist/{LISTING}"),
    ] {
        if !info.join(&file).is_file() {
            bail!("the wheel has no {file} in {}", info.display());
        }
    }
    version_of(&venv.join("bin/fs-mcp-rs"), version)
}

fn uv_tool(out: &Path, version: &str, scratch: &Path) -> anyhow::Result<String> {
    let wheel = wheel(out)?;
    let dir = scratch.join("uv");
    run_quiet(
        Command::new(tools::venv_bin().join("uv"))
            .args(["tool", "install", "--offline"])
            .arg(&wheel)
            .env("UV_TOOL_DIR", dir.join("tools"))
            .env("UV_TOOL_BIN_DIR", dir.join("bin"))
            .env("UV_CACHE_DIR", dir.join("cache"))
            .env("UV_NO_CONFIG", "1"),
    )?;
    version_of(&dir.join("bin/fs-mcp-rs"), version)
}

fn pipx(out: &Path, version: &str, scratch: &Path) -> anyhow::Result<String> {
    let wheel = wheel(out)?;
    let dir = scratch.join("pipx");
    run_quiet(
        Command::new(tools::venv_bin().join("pipx"))
            .arg("install")
            .arg(&wheel)
            .env("PIPX_HOME", dir.join("home"))
            .env("PIPX_BIN_DIR", dir.join("bin"))
            .env("PIPX_MAN_DIR", dir.join("man"))
            // Every pip pipx runs: from the wheel only.
            .env("PIP_NO_INDEX", "1"),
    )?;
    version_of(&dir.join("bin/fs-mcp-rs"), version)
}

fn npm_global(
    out: &Path,
    version: &str,
    target: &super::Target,
    scratch: &Path,
) -> anyhow::Result<String> {
    let prefix = scratch.join("npm");
    let launcher = npm::packed(out, npm::LAUNCHER, version);
    let platform = npm::packed(out, &npm::platform_name(target), version);
    run_quiet(
        Command::new("npm")
            .args(["install", "-g", "--offline", "--no-audit", "--no-fund"])
            .arg("--prefix")
            .arg(&prefix)
            .arg("--cache")
            .arg(scratch.join("npm-cache"))
            .arg(&launcher)
            .arg(&platform),
    )?;
    let package = prefix
        .join("lib/node_modules")
        .join(npm::platform_name(target));
    for file in ["LICENSE-MIT", "LICENSE-APACHE", LISTING] {
        if !package.join(file).is_file() {
            bail!("{} has no {file}", package.display());
        }
    }
    version_of(&prefix.join("bin/fs-mcp-rs"), version)
}
