//! `cargo xtask dist`: every package users install without a Rust toolchain, from one build of
//! the binary per target, into `target/dist/`:
//!
//! - `fs-mcp-rs-VERSION-TRIPLE.tar.gz` (+ `.sha256`): the binary, LICENSE-MIT, LICENSE-APACHE,
//!   THIRD-PARTY-LICENSES.md, README.md, CHANGELOG.md;
//! - a Python wheel whose script is the binary (maturin's `bin` bindings; on Linux linked with
//!   zig against glibc 2.17, tagged manylinux2014), for `uvx`, `pipx` and `pip`;
//! - npm packages in the optional-dependency model: `@fs-mcp-rs/<os>-<cpu>` holds the binary,
//!   `fs-mcp-rs` is a small launcher that depends on every platform package optionally, so npm
//!   installs only the one for the machine (no install script, nothing downloaded);
//! - THIRD-PARTY-LICENSES.md (cargo-about, from Cargo.lock) and SHA256SUMS.
//!
//! ```text
//! cargo xtask dist [--profile dist|release] [--target TRIPLE]...   build the packages
//! cargo xtask dist test       install each package offline into a fresh prefix, run it, and run
//!                             Claude Code, Gemini CLI and OpenCode on it end to end
//! cargo xtask dist licenses   the license check and listing alone
//! cargo xtask dist lint       actionlint on .github/workflows
//! ```
//!
//! The `dist` profile (fat LTO, one codegen unit) is what releases ship; `--profile release`
//! builds the same packages in a third of the time (CI, which tests the packaging, not the
//! profile).

mod check;
mod npm;
pub mod tools;

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};
use sha2::{Digest, Sha256};

use crate::util::{status, workspace_root};

/// A target the release workflow builds (.github/workflows/release.yml lists the same).
pub struct Target {
    pub triple: &'static str,
    /// npm's `os` and `cpu` names, which also name the platform package: `@fs-mcp-rs/linux-x64`.
    pub npm_os: &'static str,
    pub npm_cpu: &'static str,
}

impl Target {
    pub fn npm_suffix(&self) -> String {
        format!("{}-{}", self.npm_os, self.npm_cpu)
    }

    fn linux(&self) -> bool {
        self.npm_os == "linux"
    }
}

pub const TARGETS: &[Target] = &[
    Target {
        triple: "x86_64-unknown-linux-gnu",
        npm_os: "linux",
        npm_cpu: "x64",
    },
    Target {
        triple: "aarch64-unknown-linux-gnu",
        npm_os: "linux",
        npm_cpu: "arm64",
    },
    Target {
        triple: "x86_64-apple-darwin",
        npm_os: "darwin",
        npm_cpu: "x64",
    },
    Target {
        triple: "aarch64-apple-darwin",
        npm_os: "darwin",
        npm_cpu: "arm64",
    },
];

/// The listing of the crates in the binary, generated into `target/dist/` (pyproject.toml's
/// `license-files` names this path, so the wheel carries it).
pub const LISTING: &str = "THIRD-PARTY-LICENSES.md";

const USAGE: &str = "usage: cargo xtask dist [--profile dist|release] [--target TRIPLE]...
       cargo xtask dist test | licenses | lint";

/// Always under the workspace's `target/`: pyproject.toml names the listing's path there.
pub fn dist_dir() -> PathBuf {
    workspace_root().join("target/dist")
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"))
}

pub fn run(args: &[String]) -> anyhow::Result<()> {
    match args.first().map(String::as_str) {
        Some("test") => check::run(&args[1..]).and_then(|tally| tally.check()),
        Some("licenses") => {
            tools::license_listing(&dist_dir().join(LISTING))?;
            println!(
                "every crate's license is accepted by about.toml; listing in {}",
                dist_dir().join(LISTING).display()
            );
            Ok(())
        }
        Some("lint") => lint(),
        _ => build(&Options::parse(args)?).map(|_| ()),
    }
}

pub struct Options {
    pub profile: String,
    pub targets: Vec<&'static Target>,
}

impl Options {
    fn parse(args: &[String]) -> anyhow::Result<Options> {
        let mut profile = "dist".to_string();
        let mut targets = Vec::new();
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            match arg.as_str() {
                "--profile" => profile = it.next().context(USAGE)?.clone(),
                "--target" => {
                    let triple = it.next().context(USAGE)?;
                    let target =
                        TARGETS
                            .iter()
                            .find(|t| t.triple == triple)
                            .with_context(|| {
                                format!(
                                    "`{triple}` is not a release target ({})",
                                    TARGETS
                                        .iter()
                                        .map(|t| t.triple)
                                        .collect::<Vec<_>>()
                                        .join(", ")
                                )
                            })?;
                    targets.push(target);
                }
                _ => bail!("unknown argument `{arg}`\n{USAGE}"),
            }
        }
        if targets.is_empty() {
            targets.push(host_target()?);
        }
        Ok(Options { profile, targets })
    }

    pub fn host(profile: &str) -> anyhow::Result<Options> {
        Ok(Options {
            profile: profile.to_string(),
            targets: vec![host_target()?],
        })
    }
}

/// The release target this machine is.
pub fn host_target() -> anyhow::Result<&'static Target> {
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        other => other,
    };
    let cpu = match std::env::consts::ARCH {
        "x86_64" => "x64",
        "aarch64" => "arm64",
        other => other,
    };
    TARGETS
        .iter()
        .find(|t| t.npm_os == os && t.npm_cpu == cpu)
        .with_context(|| format!("no release target for this machine ({os} {cpu})"))
}

/// The version every package gets: the workspace's.
pub fn version() -> anyhow::Result<String> {
    let manifest = std::fs::read_to_string(workspace_root().join("Cargo.toml"))?;
    let mut in_workspace_package = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_workspace_package = line == "[workspace.package]";
        } else if in_workspace_package
            && let Some(value) = line.strip_prefix("version")
            && let Some(value) = value.trim_start().strip_prefix('=')
        {
            return Ok(value.trim().trim_matches('"').to_string());
        }
    }
    bail!("no version in [workspace.package] of Cargo.toml")
}

/// Builds every package for the targets into `target/dist/` (emptied first); returns it.
pub fn build(options: &Options) -> anyhow::Result<PathBuf> {
    let version = version()?;
    let out = dist_dir();
    if out.exists() {
        std::fs::remove_dir_all(&out).with_context(|| format!("clean {}", out.display()))?;
    }
    std::fs::create_dir_all(&out)?;
    tools::ensure_venv(tools::Need::Build)?;
    eprintln!("xtask dist: third-party license listing and check (cargo-about)");
    tools::license_listing(&out.join(LISTING))?;
    for target in &options.targets {
        let binary = build_wheel(target, &options.profile, &out)?;
        if host_target().is_ok_and(|h| h.triple == target.triple) {
            smoke(&binary, &version)?;
        }
        tarball(&version, target, &binary, &out)?;
        npm::platform_package(&version, target, &binary, &out)?;
    }
    npm::launcher(&version, &out)?;
    checksums(&out)?;
    println!("packages in {}:", out.display());
    for name in sorted_files(&out)? {
        println!("  {name}");
    }
    Ok(out)
}

/// `maturin build` of the wheel, which builds the binary (with cargo, or cargo-zigbuild's zig
/// linker on Linux); returns the binary the tarball and the npm package take.
fn build_wheel(target: &Target, profile: &str, out: &Path) -> anyhow::Result<PathBuf> {
    eprintln!(
        "xtask dist: maturin build --profile {profile} --target {}",
        target.triple
    );
    let mut command = tools::venv_command("maturin");
    command
        .args(["build", "--locked", "--profile", profile, "--target"])
        .arg(target.triple)
        .arg("--out")
        .arg(out)
        .current_dir(workspace_root());
    if target.linux() {
        command.args(["--zig", "--compatibility", "manylinux2014"]);
    }
    status(&mut command)?;
    let profile_dir = if profile == "dev" { "debug" } else { profile };
    let binary = target_dir()
        .join(target.triple)
        .join(profile_dir)
        .join("fs-mcp-rs");
    if !binary.exists() {
        bail!("maturin left no binary at {}", binary.display());
    }
    Ok(binary)
}

/// The binary built for this machine answers `--version` with the workspace's version.
fn smoke(binary: &Path, version: &str) -> anyhow::Result<()> {
    let output = Command::new(binary)
        .arg("--version")
        .output()
        .with_context(|| format!("run {} --version", binary.display()))?;
    let said = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() || said.trim() != format!("fs-mcp-rs {version}") {
        bail!(
            "{} --version said {said:?} (status {})",
            binary.display(),
            output.status
        );
    }
    Ok(())
}

/// The files every package carries beside the binary.
pub fn license_files(out: &Path) -> Vec<(PathBuf, &'static str)> {
    let root = workspace_root();
    vec![
        (root.join("LICENSE-MIT"), "LICENSE-MIT"),
        (root.join("LICENSE-APACHE"), "LICENSE-APACHE"),
        (out.join(LISTING), LISTING),
    ]
}

/// The tarball's name without `.tar.gz`, which is also its top folder.
pub fn tarball_stem(version: &str, target: &Target) -> String {
    format!("fs-mcp-rs-{version}-{}", target.triple)
}

fn tarball(version: &str, target: &Target, binary: &Path, out: &Path) -> anyhow::Result<()> {
    let stem = tarball_stem(version, target);
    let staging = out.join(&stem);
    std::fs::create_dir_all(&staging)?;
    copy_executable(binary, &staging.join("fs-mcp-rs"))?;
    let root = workspace_root();
    let mut files = license_files(out);
    files.push((root.join("README.md"), "README.md"));
    files.push((root.join("CHANGELOG.md"), "CHANGELOG.md"));
    for (from, name) in files {
        std::fs::copy(&from, staging.join(name))
            .with_context(|| format!("copy {}", from.display()))?;
    }
    let name = format!("{stem}.tar.gz");
    status(
        Command::new("tar")
            .arg("-czf")
            .arg(out.join(&name))
            .arg("-C")
            .arg(out)
            .arg(&stem),
    )?;
    std::fs::remove_dir_all(&staging)?;
    let sum = sha256_file(&out.join(&name))?;
    std::fs::write(
        out.join(format!("{name}.sha256")),
        format!("{sum}  {name}\n"),
    )?;
    Ok(())
}

pub fn copy_executable(from: &Path, to: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::copy(from, to).with_context(|| format!("copy {}", from.display()))?;
    std::fs::set_permissions(to, std::fs::Permissions::from_mode(0o755))?;
    Ok(())
}

pub fn sha256_file(path: &Path) -> anyhow::Result<String> {
    let bytes = std::fs::read(path).with_context(|| format!("read {}", path.display()))?;
    Ok(Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// `SHA256SUMS` of every package in `out`, in `sha256sum -c`'s format.
fn checksums(out: &Path) -> anyhow::Result<()> {
    let mut sums = String::new();
    for name in sorted_files(out)? {
        if name.ends_with(".sha256") || name == "SHA256SUMS" {
            continue;
        }
        sums.push_str(&format!("{}  {name}\n", sha256_file(&out.join(&name))?));
    }
    std::fs::write(out.join("SHA256SUMS"), sums)?;
    Ok(())
}

/// The names of the regular files directly in `dir`, sorted.
pub fn sorted_files(dir: &Path) -> anyhow::Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("list {}", dir.display()))? {
        let entry = entry?;
        if entry.file_type()?.is_file() {
            names.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    names.sort();
    Ok(names)
}

/// `cargo xtask dist test` (check.rs).
pub fn test() -> anyhow::Result<crate::e2e::Tally> {
    check::run(&[])
}

/// actionlint on the workflows in `.github/workflows` (the release workflow cannot run here).
pub fn lint() -> anyhow::Result<()> {
    tools::ensure_venv(tools::Need::All)?;
    let root = workspace_root();
    let workflows: Vec<PathBuf> = std::fs::read_dir(root.join(".github/workflows"))
        .context("no .github/workflows")?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "yml" || e == "yaml"))
        .collect();
    if workflows.is_empty() {
        bail!("no workflow in .github/workflows");
    }
    status(
        tools::venv_command("actionlint")
            .arg("-no-color")
            .args(&workflows)
            .current_dir(&root),
    )?;
    println!("actionlint: {} workflow(s) clean", workflows.len());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_release_workflow_builds_every_target_and_calls_dist() {
        let workflow =
            std::fs::read_to_string(workspace_root().join(".github/workflows/release.yml"))
                .unwrap();
        for target in TARGETS {
            assert!(
                workflow.contains(&format!("target: {}", target.triple)),
                "release.yml does not build {}",
                target.triple
            );
        }
        assert!(workflow.contains("cargo xtask dist --target"));
    }

    /// The house rule: say "the Rust registry", "the npm registry", "PyPI", never their hosts.
    /// Cargo.lock is cargo's (its sources name the index).
    #[test]
    fn no_tracked_file_names_a_registry_host() {
        let hosts = [
            ["crates", "io"].join("."),
            ["npmjs", "com"].join("."),
            ["npmjs", "org"].join("."),
            ["pypi", "org"].join("."),
            ["pythonhosted", "org"].join("."),
        ];
        let root = workspace_root();
        let listed = Command::new("git")
            .args(["ls-files", "-z"])
            .current_dir(&root)
            .output()
            .unwrap();
        assert!(listed.status.success(), "git ls-files failed");
        let mut found = Vec::new();
        for path in listed.stdout.split(|&b| b == 0).filter(|p| !p.is_empty()) {
            let path = String::from_utf8_lossy(path).into_owned();
            if path == "Cargo.lock" {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(root.join(&path)) else {
                continue;
            };
            for (number, line) in text.lines().enumerate() {
                let lower = line.to_ascii_lowercase();
                if let Some(host) = hosts.iter().find(|h| lower.contains(h.as_str())) {
                    found.push(format!("{path}:{}: {host}", number + 1));
                }
            }
        }
        assert!(
            found.is_empty(),
            "say \"the Rust registry\", \"the npm registry\" or \"PyPI\" instead:\n{}",
            found.join("\n")
        );
    }

    #[test]
    fn the_version_is_the_workspace_one() {
        let version = version().unwrap();
        assert_eq!(version.split('.').count(), 3, "{version}");
        assert!(version.chars().next().unwrap().is_ascii_digit());
    }

    #[test]
    fn pyproject_ships_the_listing_dist_writes() {
        let pyproject = std::fs::read_to_string(workspace_root().join("pyproject.toml")).unwrap();
        assert!(
            pyproject.contains(&format!("\"target/dist/{LISTING}\"")),
            "pyproject.toml's license-files must name target/dist/{LISTING}"
        );
    }
}
