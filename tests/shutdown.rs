//! SIGTERM, SIGINT, SIGHUP, SIGQUIT and the end of stdin stop the server promptly, also with a client connected
//! and a review waiting: the review is answered CANCELLED and its files are removed.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{HttpServer, StdioClient, Workspace, send_signal};
use serde_json::{Value, json};

/// Generous for a loaded machine, still far below "never" (the bug: the server kept running).
const EXIT_WITHIN: Duration = Duration::from_secs(2);

/// A private temp dir for the server, where its review sessions live.
fn server_tmp(ws: &Workspace) -> PathBuf {
    let dir = ws.base.join("server-tmp");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Review session directories (`fs-mcp-rs-reviews-*/s-*`) under `tmp`.
fn review_sessions(tmp: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for root in std::fs::read_dir(tmp).into_iter().flatten().flatten() {
        if root
            .file_name()
            .to_string_lossy()
            .starts_with("fs-mcp-rs-reviews-")
        {
            found.extend(
                std::fs::read_dir(root.path())
                    .into_iter()
                    .flatten()
                    .flatten()
                    .map(|e| e.path()),
            );
        }
    }
    found
}

/// Anything the server left in its temp dir.
fn leftovers(tmp: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(tmp)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect()
}

fn wait_until(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    done()
}

const REVIEW_ARGS: &[&str] = &["--review-command", "none", "--review-timeout", "600"];

fn stdio_server(ws: &Workspace, tmp: &Path) -> StdioClient {
    let root = ws.root.to_str().unwrap().to_string();
    let mut args: Vec<&str> = REVIEW_ARGS.to_vec();
    args.push(&root);
    StdioClient::start_with_env(&ws.base, &args, &[("TMPDIR", tmp)])
}

/// Starts a review that waits for the human, and returns its request id once its files exist.
fn start_review(client: &mut StdioClient, tmp: &Path) -> u64 {
    let id = client.send_request(
        "tools/call",
        json!({"name": "propose_and_review", "arguments": {
            "path": "notes.txt", "match_text": "old", "new_string": "new"}}),
    );
    assert!(
        wait_until(Duration::from_secs(20), || !review_sessions(tmp).is_empty()),
        "the review never started; stderr:\n{}",
        client.stderr.lock().unwrap()
    );
    id
}

fn stdio_signal_ends_the_server(signal: &str) {
    let ws = Workspace::new();
    let tmp = server_tmp(&ws);
    let mut client = stdio_server(&ws, &tmp);
    // A client that connected and made calls: the case that used to hang.
    assert!(client.list_tools().len() > 5);
    send_signal(client.pid(), signal);
    let started = Instant::now();
    let status = client.wait_exit(EXIT_WITHIN);
    assert!(
        status.is_some(),
        "still running {EXIT_WITHIN:?} after SIG{signal}; stderr:\n{}",
        client.stderr.lock().unwrap()
    );
    assert!(
        status.unwrap().success(),
        "{status:?} after {:?}",
        started.elapsed()
    );
    assert_eq!(leftovers(&tmp), Vec::<PathBuf>::new());
}

#[test]
fn sigterm_ends_a_connected_stdio_server() {
    stdio_signal_ends_the_server("TERM");
}

#[test]
fn sigint_ends_a_connected_stdio_server() {
    stdio_signal_ends_the_server("INT");
}

fn stdio_signal_cancels_a_waiting_review(signal: &str) {
    let ws = Workspace::new();
    ws.write("notes.txt", "old text\n");
    let tmp = server_tmp(&ws);
    let mut client = stdio_server(&ws, &tmp);
    let review = start_review(&mut client, &tmp);
    send_signal(client.pid(), signal);
    let reply = client.try_wait_for(review, EXIT_WITHIN);
    let status = client.wait_exit(EXIT_WITHIN);
    assert!(status.is_some_and(|s| s.success()), "{status:?}");
    // The client learns what happened to its proposal.
    let reply = reply.expect("the waiting review was answered before the exit");
    let text = reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    let answer: Value = serde_json::from_str(text).unwrap_or_else(|_| panic!("{reply}"));
    assert_eq!(answer["user_action"], "CANCELLED", "{answer}");
    assert!(answer.get("session_path").is_none(), "{answer}");
    assert_eq!(
        std::fs::read_to_string(ws.root.join("notes.txt")).unwrap(),
        "old text\n"
    );
    assert_eq!(
        leftovers(&tmp),
        Vec::<PathBuf>::new(),
        "review files left behind"
    );
}

#[test]
fn sigterm_answers_a_waiting_review_and_removes_its_files() {
    stdio_signal_cancels_a_waiting_review("TERM");
}

#[test]
fn sigint_answers_a_waiting_review_and_removes_its_files() {
    stdio_signal_cancels_a_waiting_review("INT");
}

#[test]
fn sighup_answers_a_waiting_review_and_removes_its_files() {
    stdio_signal_cancels_a_waiting_review("HUP");
}

#[test]
fn sigquit_answers_a_waiting_review_and_removes_its_files() {
    stdio_signal_cancels_a_waiting_review("QUIT");
}

/// Claude Code starts each stdio server in the terminal's foreground process group: when Claude
/// Code is killed or its terminal closes, the whole group gets SIGHUP. The server, a group of its
/// own here (`setsid`, which execs it in place), is hung up as a group.
#[test]
fn a_hangup_of_the_clients_process_group_cleans_up_like_sigterm() {
    let ws = Workspace::new();
    ws.write("notes.txt", "old text\n");
    let tmp = server_tmp(&ws);
    let root = ws.root.to_str().unwrap().to_string();
    let mut args: Vec<&str> = REVIEW_ARGS.to_vec();
    args.push(&root);
    let mut client = StdioClient::handshake(StdioClient::spawn_full(
        &ws.base,
        &["setsid"],
        &args,
        &[("TMPDIR", &tmp)],
    ));
    let review = start_review(&mut client, &tmp);
    let group = format!("-{}", client.pid());
    let status = std::process::Command::new("kill")
        .args(["-HUP", "--", &group])
        .status()
        .unwrap();
    assert!(status.success(), "kill -HUP -- {group}");
    let reply = client.try_wait_for(review, EXIT_WITHIN);
    let status = client.wait_exit(EXIT_WITHIN);
    assert!(
        status.is_some_and(|s| s.success()),
        "{status:?}; stderr:\n{}",
        client.stderr.lock().unwrap()
    );
    let reply = reply.expect("the waiting review was answered before the exit");
    assert!(reply.to_string().contains("CANCELLED"), "{reply}");
    assert_eq!(
        leftovers(&tmp),
        Vec::<PathBuf>::new(),
        "review files left behind"
    );
}

#[test]
fn end_of_stdin_ends_the_server_and_removes_a_waiting_review() {
    let ws = Workspace::new();
    ws.write("notes.txt", "old text\n");
    let tmp = server_tmp(&ws);
    let mut client = stdio_server(&ws, &tmp);
    start_review(&mut client, &tmp);
    client.close_stdin();
    let status = client.wait_exit(EXIT_WITHIN);
    assert!(
        status.is_some_and(|s| s.success()),
        "{status:?}; stderr:\n{}",
        client.stderr.lock().unwrap()
    );
    assert_eq!(
        leftovers(&tmp),
        Vec::<PathBuf>::new(),
        "review files left behind"
    );
}

#[test]
fn a_signal_before_the_handshake_ends_the_server_too() {
    let ws = Workspace::new();
    let tmp = server_tmp(&ws);
    let root = ws.root.to_str().unwrap();
    let mut client = StdioClient::spawn_with_env(&ws.base, &[root], &[("TMPDIR", &tmp)]);
    // Give it time to install its handlers; a signal before that would kill it (also an end).
    std::thread::sleep(Duration::from_millis(300));
    send_signal(client.pid(), "TERM");
    let status = client.wait_exit(EXIT_WITHIN);
    assert!(status.is_some(), "still running after SIGTERM");
    assert_eq!(leftovers(&tmp), Vec::<PathBuf>::new());
}

fn http_signal_ends_the_server(signal: &str) {
    let ws = Workspace::new();
    ws.write("notes.txt", "old text\n");
    let tmp = server_tmp(&ws);
    let mut server = HttpServer::start_with(&ws, REVIEW_ARGS, &[("TMPDIR", &tmp)], None);
    let url = server.url.clone();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let http = reqwest::Client::new();
    let post = |session: Option<String>, body: Value| {
        let mut r = http
            .post(&url)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .header("MCP-Protocol-Version", "2025-06-18")
            .body(body.to_string());
        if let Some(s) = session {
            r = r.header("mcp-session-id", s);
        }
        r.send()
    };
    let session = runtime.block_on(async {
        let init = post(
            None,
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}}),
        )
        .await
        .unwrap();
        let session = init.headers()["mcp-session-id"]
            .to_str()
            .unwrap()
            .to_string();
        init.text().await.unwrap();
        post(
            Some(session.clone()),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        )
        .await
        .unwrap();
        session
    });
    let review = runtime.spawn(post(
        Some(session),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
                "name": "propose_and_review",
                "arguments": {"path": "notes.txt", "match_text": "old", "new_string": "new"}}}),
    ));
    assert!(
        wait_until(Duration::from_secs(20), || !review_sessions(&tmp)
            .is_empty()),
        "the review never started"
    );
    send_signal(server.pid(), signal);
    let status = server.wait_exit(EXIT_WITHIN);
    assert!(
        status.is_some_and(|s| s.success()),
        "{status:?}; stderr:\n{}",
        server.stderr.lock().unwrap()
    );
    let body = runtime.block_on(async {
        match review.await.unwrap() {
            Ok(response) => response.text().await.unwrap_or_default(),
            Err(e) => panic!("the review request failed instead of being answered: {e}"),
        }
    });
    assert!(body.contains("CANCELLED"), "{body}");
    assert_eq!(
        leftovers(&tmp),
        Vec::<PathBuf>::new(),
        "review files left behind"
    );
    assert_eq!(
        std::fs::read_to_string(ws.root.join("notes.txt")).unwrap(),
        "old text\n"
    );
}

#[test]
fn sigterm_ends_an_http_server_answering_a_waiting_review() {
    http_signal_ends_the_server("TERM");
}

#[test]
fn sigint_ends_an_http_server_answering_a_waiting_review() {
    http_signal_ends_the_server("INT");
}
