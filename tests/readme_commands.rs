//! Every `fs-mcp-rs …` command line in README.md's shell blocks, run as written: through `sh`,
//! with the built binary first on `PATH` (its install location), `/path/to/project` and
//! `~/project` existing (the placeholders a user fills in), in the environment the block's
//! `export` lines make (evaluated by `sh` as written, once, so the check's client sees the same
//! token). Synopses (```text blocks, with `CMD`/`[ADDR]` placeholders) are not commands.
//! `tests/fixtures/readme_command.py` checks the server each one starts answers. In a private
//! network namespace (`unshare -rn`) where the system allows it, so the default ports are free.

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::Workspace;

/// The README's placeholder for the user's project.
const PROJECT_PLACEHOLDER: &str = "/path/to/project";

/// One command line of a README shell block, with the block's `export` lines before it.
#[derive(Debug)]
struct ReadmeCommand {
    exports: Vec<String>,
    line: String,
}

/// The `fs-mcp-rs …` commands of the README's ```sh blocks (`a && b` split; `\` lines joined).
fn readme_commands(readme: &str) -> Vec<ReadmeCommand> {
    let mut found = Vec::new();
    let mut in_sh = false;
    let mut exports = Vec::new();
    let mut pending = String::new();
    for line in readme.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            in_sh = !in_sh && trimmed.trim_start_matches('`').trim() == "sh";
            exports.clear();
            continue;
        }
        if !in_sh {
            continue;
        }
        if let Some(head) = line.strip_suffix('\\') {
            pending.push_str(head);
            continue;
        }
        pending.push_str(line);
        let logical = std::mem::take(&mut pending);
        let logical = logical.trim();
        if logical.starts_with("export ") {
            exports.push(logical.to_string());
            continue;
        }
        for part in logical.split("&&").map(str::trim) {
            if part.split_whitespace().next() == Some("fs-mcp-rs") {
                found.push(ReadmeCommand {
                    exports: exports.clone(),
                    line: part.to_string(),
                });
            }
        }
    }
    found
}

/// What the command starts: the playground, an HTTP server or a stdio server.
fn mode(line: &str) -> &'static str {
    let words: Vec<&str> = line
        .split('#')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    if words.get(1) == Some(&"ui") {
        "ui"
    } else if words.contains(&"--http") {
        "http"
    } else {
        "stdio"
    }
}

/// `export NAME=VALUE` evaluated by `sh` as written: the name and the value it gets.
fn evaluate_export(export: &str) -> (String, String) {
    let name = export
        .trim_start_matches("export ")
        .split('=')
        .next()
        .unwrap_or_default()
        .trim()
        .to_string();
    let output = Command::new("sh")
        .arg("-c")
        .arg(format!("{export} && printf %s \"${name}\""))
        .output()
        .expect("run sh");
    let value = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success() && !value.is_empty(),
        "`{export}` gives no value: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    (name, value)
}

fn private_network() -> bool {
    Command::new("unshare")
        .args(["-rn", "true"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn the_readme_shows_the_commands_a_newcomer_runs() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let lines: Vec<String> = readme_commands(&readme)
        .into_iter()
        .map(|c| c.line)
        .collect();
    for expected in [
        "fs-mcp-rs .",
        "fs-mcp-rs ui .",
        "fs-mcp-rs --http /path/to/project",
        "fs-mcp-rs --http ~/project",
    ] {
        assert!(
            lines.iter().any(|l| l.starts_with(expected)),
            "`{expected}` not found among {lines:?}"
        );
    }
}

#[test]
fn every_fs_mcp_rs_command_in_the_readme_runs_as_written() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let ws = Workspace::new();
    ws.write("project/hello.txt", "hello\n");
    let home = ws.base.join("home");
    std::fs::create_dir_all(home.join("project")).expect("~/project");
    let project = ws.root.join("project");
    let bin_dir = Path::new(common::BIN)
        .parent()
        .expect("the binary's directory");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let harness = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/readme_command.py");
    let private = private_network();
    let mark = common::ProcessMark::new("readme-commands");
    let mut failures = Vec::new();
    for command in readme_commands(&readme) {
        let exported: Vec<(String, String)> = command
            .exports
            .iter()
            .map(|export| evaluate_export(export))
            .collect();
        let script = command
            .line
            .replace(PROJECT_PLACEHOLDER, &project.display().to_string());
        let mode = mode(&command.line);
        let mut run = if private {
            let mut c = Command::new("unshare");
            c.args(["-rn", "python3"]);
            c
        } else {
            Command::new("python3")
        };
        let mut child = mark
            .apply(&mut run)
            .arg(&harness)
            .arg(mode)
            .arg(&script)
            .current_dir(&project)
            .env("PATH", &path)
            .env("HOME", &home)
            .env_remove("FS_MCP_HTTP_TOKEN")
            .env_remove("RUST_LOG")
            .envs(exported)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run python3 (a prerequisite of the tests)");
        let status = common::wait_child(&mut child, Duration::from_secs(90));
        if status.is_none() {
            let _ = child.kill();
        }
        let output = child.wait_with_output().expect("output");
        let report = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        if !status.is_some_and(|s| s.success()) {
            failures.push(format!("`{}` ({mode}):\n{report}", command.line));
        }
    }
    // Every process a command started has ended (a compound line's server is the shell's
    // child: ending only the shell left it running, and holding the README's port).
    let survivors = mark.end_survivors();
    assert!(
        failures.is_empty() && survivors.is_empty(),
        "README commands that do not work as written (private network: {private}):\n{}\n\
         processes the commands started that were still running after the check: {survivors:?}",
        failures.join("\n")
    );
}

#[test]
fn commands_are_found_in_sh_blocks_only_with_their_exports() {
    let text = "```sh\nexport T=1\ncargo install --locked --path . && fs-mcp-rs .\nfs-mcp-rs ui .   # note\n```\n\
                ```text\nfs-mcp-rs [OPTIONS]\n```\n```sh\nfs-mcp-rs \\\n  --http /p\n```\n";
    let found = readme_commands(text);
    let lines: Vec<&str> = found.iter().map(|c| c.line.as_str()).collect();
    assert_eq!(
        lines,
        [
            "fs-mcp-rs .",
            "fs-mcp-rs ui .   # note",
            "fs-mcp-rs   --http /p"
        ]
    );
    assert_eq!(found[0].exports, ["export T=1"]);
    assert!(found[2].exports.is_empty());
    assert_eq!(mode(&found[1].line), "ui");
    assert_eq!(mode(&found[2].line), "http");
    assert_eq!(mode(&found[0].line), "stdio");
}
