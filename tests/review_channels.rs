//! Where the human reviews a proposal (issue 21): the review page when the client has no form
//! and no review command is installed (the call answers at once with a link), the client's own
//! form through MCP elicitation (Python SDK, 2025-11-25) and MRTR (rmcp client, 2026-07-28), and
//! the same verdicts on every channel.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{StdioClient, Workspace, text_of};
use serde_json::{Value, json};

fn response(result: &Value) -> Value {
    serde_json::from_str(&text_of(result)).unwrap_or_else(|e| panic!("not JSON ({e}): {result}"))
}

/// A PATH with no `code` on it (nor anything else).
fn empty_path(ws: &Workspace) -> PathBuf {
    let dir = ws.base.join("empty-bin");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The page link in a PENDING answer: (base URL, token).
fn link_of(message: &str) -> (String, String) {
    let start = message
        .find("http://127.0.0.1:")
        .unwrap_or_else(|| panic!("no link in {message}"));
    let url: String = message[start..]
        .chars()
        .take_while(|c| !c.is_whitespace())
        .collect();
    let (base, token) = url
        .split_once("/?token=")
        .unwrap_or_else(|| panic!("no token in {url}"));
    (base.to_string(), token.to_string())
}

fn start_without_editor(ws: &Workspace, extra: &[&str]) -> StdioClient {
    let root = ws.root.to_str().unwrap().to_string();
    let mut args: Vec<&str> = extra.to_vec();
    args.push(&root);
    let path = empty_path(ws);
    StdioClient::start_with_env(&ws.base, &args, &[("PATH", path.as_path())])
}

async fn page_decide(base: &str, token: &str, body: Value) -> reqwest::StatusCode {
    let http = reqwest::Client::new();
    let listed: Value = http
        .get(format!("{base}/api/reviews"))
        .header("x-fs-mcp-token", token)
        .send()
        .await
        .expect("list reviews")
        .json()
        .await
        .expect("JSON list");
    assert!(
        listed["reviews"]
            .as_array()
            .is_some_and(|r| r.iter().any(|r| r["session_path"] == body["session_path"])),
        "{listed}"
    );
    let no_token = http
        .post(format!("{base}/api/reviews/decide"))
        .json(&body)
        .send()
        .await
        .expect("decide without token");
    assert_eq!(no_token.status(), reqwest::StatusCode::UNAUTHORIZED);
    http.post(format!("{base}/api/reviews/decide"))
        .header("x-fs-mcp-token", token)
        .json(&body)
        .send()
        .await
        .expect("decide")
        .status()
}

#[tokio::test]
async fn without_editor_or_form_the_call_answers_at_once_with_a_link_and_the_page_commits() {
    let ws = Workspace::new();
    ws.write("a.txt", "one\ntwo\n");
    let mut c = start_without_editor(&ws, &[]);
    let started = Instant::now();
    let first = response(&c.call(
        "propose_and_review",
        json!({"path": "a.txt", "match_text": "two", "new_string": "TWO"}),
    ));
    let took = started.elapsed();
    // The old behaviour waited the whole review timeout (600 s) for a window never opened.
    assert!(took < Duration::from_secs(10), "took {took:?}: {first}");
    assert_eq!(first["user_action"], "PENDING", "{first}");
    assert!(first["diff"].as_str().unwrap().contains("+TWO"), "{first}");
    let session = first["session_path"].as_str().unwrap().to_string();
    let (base, token) = link_of(first["message"].as_str().unwrap());
    assert_eq!(
        std::fs::read_to_string(ws.root.join("a.txt")).unwrap(),
        "one\ntwo\n"
    );

    let status = page_decide(&base, &token, json!({"session_path": session})).await;
    assert_eq!(status, reqwest::StatusCode::OK);
    let verdict = response(&c.call(
        "propose_and_review",
        json!({"path": "a.txt", "session_path": session}),
    ));
    assert_eq!(verdict["user_action"], "COMMITTED", "{verdict}");
    assert_eq!(
        std::fs::read_to_string(ws.root.join("a.txt")).unwrap(),
        "one\nTWO\n"
    );
}

#[tokio::test]
async fn the_collecting_call_waits_and_a_rejection_in_the_page_writes_nothing() {
    let ws = Workspace::new();
    ws.write("b.txt", "keep\n");
    let mut c = start_without_editor(&ws, &[]);
    let first = response(&c.call(
        "propose_and_review",
        json!({"path": "b.txt", "match_text": "keep", "new_string": "drop"}),
    ));
    assert_eq!(first["user_action"], "PENDING", "{first}");
    let session = first["session_path"].as_str().unwrap().to_string();
    let (base, token) = link_of(first["message"].as_str().unwrap());
    // The collecting call is in flight (waiting) when the human decides.
    let id = c.send_request(
        "tools/call",
        json!({"name": "propose_and_review", "arguments": {"path": "b.txt", "session_path": session}}),
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let status = page_decide(
        &base,
        &token,
        json!({"session_path": session, "reject": true, "comment": "keep it as it is"}),
    )
    .await;
    assert_eq!(status, reqwest::StatusCode::OK);
    let answer = c.wait_for(id);
    let verdict = response(&answer["result"]);
    assert_eq!(verdict["user_action"], "REJECTED", "{verdict}");
    assert_eq!(verdict["user_comment"], "keep it as it is", "{verdict}");
    assert!(verdict.get("session_path").is_none(), "{verdict}");
    assert_eq!(
        std::fs::read_to_string(ws.root.join("b.txt")).unwrap(),
        "keep\n"
    );
}

#[test]
fn auto_approve_answers_with_the_diff_and_one_short_line() {
    let ws = Workspace::new();
    ws.write("c.txt", "alpha\n");
    let mut c = ws.start(&["--auto-approve"]);
    let r = response(&c.call(
        "propose_and_review",
        json!({"path": "c.txt", "match_text": "alpha", "new_string": "beta"}),
    ));
    assert_eq!(r["user_action"], "COMMITTED");
    assert_eq!(r["message"], "Committed 'c.txt' (auto-approve).");
    assert_eq!(
        r["diff"],
        "--- a/c.txt\n+++ b/c.txt\n@@ -1 +1 @@\n-alpha\n+beta\n"
    );
}

#[allow(dead_code)]
fn unused(_: &Path) {}
