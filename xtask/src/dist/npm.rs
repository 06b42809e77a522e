//! The npm packages, in the optional-dependency model esbuild and biome use: one package per
//! platform holding the binary (npm's `os`/`cpu`/`libc` fields make npm install only the one
//! that fits), and the `fs-mcp-rs` launcher that depends on all of them optionally and starts
//! the installed one (packaging/npm/fs-mcp-rs.js). No install script: nothing is downloaded.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail};
use serde_json::{Value, json};

use super::{TARGETS, Target, copy_executable, license_files};
use crate::util::workspace_root;

/// The launcher's package name (not taken on the npm registry when checked; see README).
pub const LAUNCHER: &str = "fs-mcp-rs";
/// The scope of the platform packages: `@fs-mcp-rs/linux-x64`.
pub const SCOPE: &str = "@fs-mcp-rs";

pub fn platform_name(target: &Target) -> String {
    format!("{SCOPE}/{}", target.npm_suffix())
}

/// The file `npm pack` writes for a package: `@scope/name` → `scope-name-VERSION.tgz`.
pub fn tarball_name(package: &str, version: &str) -> String {
    format!(
        "{}-{version}.tgz",
        package.trim_start_matches('@').replace('/', "-")
    )
}

fn common_fields(name: &str, version: &str, description: &str) -> Value {
    json!({
        "name": name,
        "version": version,
        "description": description,
        "license": "MIT OR Apache-2.0",
        "repository": {"type": "git", "url": "git+https://github.com/fs-mcp-rs/fs-mcp-rs.git"},
        "homepage": "https://github.com/fs-mcp-rs/fs-mcp-rs",
        "keywords": ["mcp", "filesystem", "gemini", "llm", "agent"],
    })
}

/// `@fs-mcp-rs/<os>-<cpu>`: the binary and the license files.
pub fn platform_package(
    version: &str,
    target: &Target,
    binary: &Path,
    out: &Path,
) -> anyhow::Result<()> {
    let name = platform_name(target);
    let dir = out.join("npm").join(target.npm_suffix());
    std::fs::create_dir_all(dir.join("bin"))?;
    copy_executable(binary, &dir.join("bin/fs-mcp-rs"))?;
    for (from, file) in license_files(out) {
        std::fs::copy(&from, dir.join(file)).with_context(|| format!("copy {}", from.display()))?;
    }
    std::fs::write(
        dir.join("README.md"),
        format!(
            "# {name}\n\nThe fs-mcp-rs binary for {} {}: install the `{LAUNCHER}` package, which \
             uses this one on this platform.\n",
            target.npm_os, target.npm_cpu
        ),
    )?;
    let mut manifest = common_fields(
        &name,
        version,
        &format!(
            "The fs-mcp-rs MCP filesystem server binary for {} {}",
            target.npm_os, target.npm_cpu
        ),
    );
    manifest["os"] = json!([target.npm_os]);
    manifest["cpu"] = json!([target.npm_cpu]);
    if target.npm_os == "linux" {
        manifest["libc"] = json!(["glibc"]);
    }
    manifest["files"] = json!([
        "bin/fs-mcp-rs",
        "LICENSE-MIT",
        "LICENSE-APACHE",
        super::LISTING
    ]);
    // Yarn's Plug'n'Play must unpack it: a binary cannot run from inside a zip.
    manifest["preferUnplugged"] = json!(true);
    write_manifest(&dir, &manifest)?;
    pack(&dir, out)
}

/// `fs-mcp-rs`: the launcher, with every release target's package as an optional dependency.
pub fn launcher(version: &str, out: &Path) -> anyhow::Result<()> {
    let dir = out.join("npm").join(LAUNCHER);
    std::fs::create_dir_all(dir.join("bin"))?;
    let packages: serde_json::Map<String, Value> = TARGETS
        .iter()
        .map(|t| {
            (
                // npm's os/cpu names are Node's process.platform/arch for these targets.
                format!("{} {}", t.npm_os, t.npm_cpu),
                Value::from(platform_name(t)),
            )
        })
        .collect();
    let script = std::fs::read_to_string(workspace_root().join("packaging/npm/fs-mcp-rs.js"))?;
    let Some(script) = script.contains("__PLATFORM_PACKAGES__").then(|| {
        script.replace(
            "__PLATFORM_PACKAGES__",
            &Value::Object(packages).to_string(),
        )
    }) else {
        bail!("packaging/npm/fs-mcp-rs.js has no __PLATFORM_PACKAGES__ to fill in");
    };
    let launcher = dir.join("bin/fs-mcp-rs.js");
    std::fs::write(&launcher, script)?;
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&launcher, std::fs::Permissions::from_mode(0o755))?;
    }
    let root = workspace_root();
    for file in ["README.md", "LICENSE-MIT", "LICENSE-APACHE"] {
        std::fs::copy(root.join(file), dir.join(file))?;
    }
    let mut manifest = common_fields(
        LAUNCHER,
        version,
        "A fast, sandboxed MCP filesystem server (read, grep, query, human-reviewed edits) whose tool schemas work with Gemini, Claude and GPT alike",
    );
    manifest["bin"] = json!({"fs-mcp-rs": "bin/fs-mcp-rs.js"});
    manifest["files"] = json!(["bin/fs-mcp-rs.js", "LICENSE-MIT", "LICENSE-APACHE"]);
    manifest["engines"] = json!({"node": ">=18"});
    manifest["os"] = json!(
        TARGETS
            .iter()
            .map(|t| t.npm_os)
            .fold(Vec::new(), |mut v, os| {
                if !v.contains(&os) {
                    v.push(os);
                }
                v
            })
    );
    manifest["optionalDependencies"] = Value::Object(
        TARGETS
            .iter()
            .map(|t| (platform_name(t), Value::from(version)))
            .collect(),
    );
    write_manifest(&dir, &manifest)?;
    pack(&dir, out)
}

fn write_manifest(dir: &Path, manifest: &Value) -> anyhow::Result<()> {
    std::fs::write(
        dir.join("package.json"),
        serde_json::to_string_pretty(manifest)? + "\n",
    )?;
    Ok(())
}

/// `npm pack` of a package folder into `out`.
fn pack(dir: &Path, out: &Path) -> anyhow::Result<()> {
    let output = Command::new("npm")
        .args(["pack", "--silent", "--pack-destination"])
        .arg(out)
        .arg(dir)
        .output()
        .context("cannot run npm pack (is npm installed?)")?;
    if !output.status.success() {
        bail!(
            "npm pack {} failed: {}",
            dir.display(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(())
}

/// Where `npm pack` put a package of `out`.
pub fn packed(out: &Path, package: &str, version: &str) -> PathBuf {
    out.join(tarball_name(package, version))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn npm_pack_names_scoped_packages_without_the_at() {
        assert_eq!(
            tarball_name("@fs-mcp-rs/linux-x64", "1.2.3"),
            "fs-mcp-rs-linux-x64-1.2.3.tgz"
        );
        assert_eq!(tarball_name("fs-mcp-rs", "1.2.3"), "fs-mcp-rs-1.2.3.tgz");
    }

    #[test]
    fn the_launcher_script_has_the_placeholder_dist_fills_in() {
        let script =
            std::fs::read_to_string(workspace_root().join("packaging/npm/fs-mcp-rs.js")).unwrap();
        assert_eq!(script.matches("__PLATFORM_PACKAGES__").count(), 1);
        assert!(!script.contains("console.log"), "stdout is the server's");
    }
}
