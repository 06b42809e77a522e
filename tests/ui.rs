//! `fs-mcp-rs ui`: the guard (token, Host, Origin) over plain HTTP, and the page itself in
//! Debian's Chromium driven by Playwright for Python (tests/ui/browser_test.py).
//!
//! Chromium (`/usr/bin/chromium`, or FS_MCP_CHROMIUM) and Playwright (in `target/clients/venv`)
//! are installed by `cargo xtask clients install`. Under `FS_MCP_REQUIRE_CLIENTS=1` (set by
//! `cargo xtask test`) their absence fails the browser test; a plain `cargo test` skips it with
//! a note.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{UiPage, Workspace};
use serde_json::Value;

/// `fs-mcp-rs ui` on `dir`, its reviews waiting up to 120 s.
fn start_ui(dir: &Path) -> UiPage {
    let ui = UiPage::start(dir, &["--review-timeout", "120"]);
    assert!(
        ui.base.starts_with("http://127.0.0.1:"),
        "not loopback: {}",
        ui.url
    );
    assert_eq!(
        ui.token.len(),
        32,
        "token should be 128 bits of hex: {}",
        ui.url
    );
    ui
}

fn core_tools() -> Vec<String> {
    fs_mcp_rs::server::all_tool_names()
        .into_iter()
        .filter(|n| !fs_mcp_rs::server::all_tier_only_names().contains(&n.as_str()))
        .collect()
}

#[tokio::test]
async fn token_host_and_origin_are_enforced() {
    let ws = Workspace::new();
    ws.write("hello.txt", "hi\n");
    let ui = start_ui(&ws.root);
    let http = reqwest::Client::new();
    let tools = format!("{}/api/tools", ui.base);

    let no_token = http.get(&tools).send().await.expect("request");
    assert_eq!(no_token.status(), reqwest::StatusCode::UNAUTHORIZED);
    let wrong = http
        .get(&tools)
        .header("x-fs-mcp-token", "0".repeat(32))
        .send()
        .await
        .expect("request");
    assert_eq!(wrong.status(), reqwest::StatusCode::UNAUTHORIZED);
    let page_without_token = http
        .get(format!("{}/", ui.base))
        .send()
        .await
        .expect("request");
    assert_eq!(
        page_without_token.status(),
        reqwest::StatusCode::UNAUTHORIZED
    );

    let foreign_origin = http
        .post(format!("{}/api/call", ui.base))
        .header("x-fs-mcp-token", &ui.token)
        .header("origin", "http://evil.example")
        .json(&serde_json::json!({"name": "read_files", "arguments": {"files": [{"path": "hello.txt"}]}}))
        .send()
        .await
        .expect("request");
    assert_eq!(foreign_origin.status(), reqwest::StatusCode::FORBIDDEN);
    let foreign_host = http
        .get(&tools)
        .header("x-fs-mcp-token", &ui.token)
        .header("host", "evil.example")
        .send()
        .await
        .expect("request");
    assert_eq!(foreign_host.status(), reqwest::StatusCode::FORBIDDEN);

    let page = http.get(&ui.url).send().await.expect("request");
    assert_eq!(page.status(), reqwest::StatusCode::OK);
    assert!(
        page.text()
            .await
            .expect("body")
            .contains("fs-mcp-rs playground")
    );

    let own_origin = http
        .get(&tools)
        .header("x-fs-mcp-token", &ui.token)
        .header("origin", &ui.base)
        .send()
        .await
        .expect("request");
    assert_eq!(own_origin.status(), reqwest::StatusCode::OK);
    let listed: Value = own_origin.json().await.expect("json");
    let mut names: Vec<String> = listed["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().unwrap_or_default().to_string())
        .collect();
    names.sort();
    assert_eq!(names, core_tools());
}

#[tokio::test]
async fn call_and_transform_endpoints_answer_like_an_mcp_client() {
    let ws = Workspace::new();
    ws.write("hello.txt", "hello over the api\n");
    let ui = start_ui(&ws.root);
    let http = reqwest::Client::new();
    let call: Value = http
        .post(format!("{}/api/call", ui.base))
        .header("x-fs-mcp-token", &ui.token)
        .json(&serde_json::json!({"name": "read_files", "arguments": {"files": [{"path": "hello.txt"}]}}))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    let text = call["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("hello over the api"), "{call}");

    let lab: Value = http
        .post(format!("{}/api/transform", ui.base))
        .header("x-fs-mcp-token", &ui.token)
        .json(&serde_json::json!({"input": {"type": "object", "properties": {"n": {"type": "integer", "enum": [1, 2]}}}}))
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    assert_eq!(
        lab["output"]["properties"]["n"]["enum"],
        serde_json::json!(["1", "2"]),
        "{lab}"
    );
    assert!(
        !lab["reports"][0]["changes"]
            .as_array()
            .expect("changes")
            .is_empty(),
        "{lab}"
    );
}

/// The Python with Playwright and the Chromium binary, if both are installed.
fn browser() -> Option<(PathBuf, PathBuf)> {
    let clients = std::env::var_os("FS_MCP_CLIENTS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/clients"));
    let python = clients.join("venv/bin/python");
    let chromium = std::env::var_os("FS_MCP_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    let has_playwright = python.exists()
        && Command::new(&python)
            .args(["-c", "import playwright.sync_api"])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
    if has_playwright && chromium.exists() {
        return Some((python, chromium));
    }
    let missing = format!(
        "{}{}",
        if has_playwright {
            ""
        } else {
            "Playwright (target/clients/venv) "
        },
        if chromium.exists() {
            String::new()
        } else {
            format!("Chromium ({}) ", chromium.display())
        }
    );
    // Without root `cargo xtask clients install` cannot install Chromium: say every way.
    let how = "install the test clients with `cargo xtask clients install` (as root it also installs \
               Debian's chromium); without root, install Chromium yourself (`sudo apt-get install -y \
               chromium`) or set FS_MCP_CHROMIUM to a Chromium binary";
    if std::env::var("FS_MCP_REQUIRE_CLIENTS").as_deref() == Ok("1") {
        panic!("the browser test needs {missing}which is missing: {how}");
    }
    eprintln!("skipping the browser test: {missing}not installed: {how}");
    None
}

#[test]
fn the_page_works_in_chromium() {
    let Some((python, chromium)) = browser() else {
        return;
    };
    let ws = Workspace::new();
    ws.write("hello.txt", "hello from the browser test\n");
    ws.write("src/lib.rs", "pub fn answer() -> u32 { 42 }\n");
    let ui = start_ui(&ws.root);
    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/ui-screenshots");
    let output = Command::new(python)
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/ui/browser_test.py"
        ))
        .arg(&ui.url)
        .arg(&ws.root)
        .arg(&shots)
        .arg(core_tools().join(","))
        .env("FS_MCP_CHROMIUM", chromium)
        .output()
        .expect("run the browser test");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "browser test failed (screenshots in {}):\n{stdout}\n{stderr}",
        shots.display()
    );
    assert!(stdout.contains("browser test passed"), "{stdout}\n{stderr}");
}

/// The review view as an MCP App (issue 34) in a test host built on the official SDK's
/// app-bridge (tests/ui/app_view_test.py): approve, reject with a comment, a three-file change,
/// forged verdicts; screenshots kept in target/ui-screenshots.
#[test]
fn the_review_view_works_in_an_mcp_apps_host() {
    let Some((python, chromium)) = browser() else {
        return;
    };
    let clients = std::env::var_os("FS_MCP_CLIENTS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/clients"));
    let node_modules = clients.join("npm/node_modules");
    if !node_modules
        .join("@modelcontextprotocol/ext-apps/dist/src/app-bridge.js")
        .exists()
    {
        let how = "install the test clients with `cargo xtask clients install`";
        if std::env::var("FS_MCP_REQUIRE_CLIENTS").as_deref() == Ok("1") {
            panic!("the MCP Apps test needs @modelcontextprotocol/ext-apps: {how}");
        }
        eprintln!(
            "skipping the MCP Apps test: @modelcontextprotocol/ext-apps is not installed: {how}"
        );
        return;
    }
    let ws = Workspace::new();
    std::fs::create_dir_all(ws.root.join("src")).unwrap();
    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/ui-screenshots");
    let output = Command::new(python)
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/ui/app_view_test.py"
        ))
        .arg(env!("CARGO_BIN_EXE_fs-mcp-rs"))
        .arg(&ws.root)
        .arg(&shots)
        .arg(&node_modules)
        .env("FS_MCP_CHROMIUM", chromium)
        .output()
        .expect("run the MCP Apps test");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "MCP Apps test failed (screenshots in {}):\n{stdout}\n{stderr}",
        shots.display()
    );
    assert!(
        stdout.contains("app view test passed"),
        "{stdout}\n{stderr}"
    );
}
