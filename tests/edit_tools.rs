//! propose_and_review / commit_review and the --all tier writes, through the real binary.
//! A fake editor (tests/fixtures/fake_editor.py), launched as the review command, plays the human.

use crate::common;

use std::time::Duration;

use common::{StdioClient, Workspace, text_of};
use serde_json::{Value, json};

const EDITOR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/fake_editor.py");

fn start(ws: &Workspace, review_command: &str, extra: &[&str]) -> StdioClient {
    let mut args = vec!["--review-command", review_command];
    args.extend_from_slice(extra);
    ws.start(&args)
}

fn response(result: &Value) -> Value {
    serde_json::from_str(&text_of(result)).unwrap_or_else(|e| panic!("not JSON ({e}): {result}"))
}

#[test]
fn approved_proposal_is_committed_keeping_crlf_and_final_newline_state() {
    let ws = Workspace::new();
    ws.write("app.py", "def greet():\r\n    return 'hi'\r\n");
    let mut c = start(
        &ws,
        &format!("python3 {EDITOR} approve {{current}} {{future}}"),
        &[],
    );
    let result = c.call(
        "propose_and_review",
        json!({"path": "app.py", "match_text": "return 'hi'", "new_string": "return 'hello'"}),
    );
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(response(&result)["user_action"], "COMMITTED");
    assert_eq!(
        std::fs::read_to_string(ws.root.join("app.py")).unwrap(),
        "def greet():\r\n    return 'hello'\r\n"
    );
}

#[test]
fn human_edits_come_back_as_review_with_a_diff_and_commit_review_accepts_them() {
    let ws = Workspace::new();
    ws.write("notes.md", "# Notes\nold line\n");
    let mut c = start(
        &ws,
        &format!("python3 {EDITOR} edit {{current}} {{future}}"),
        &[],
    );
    let result = c.call(
        "propose_and_review",
        json!({"path": "notes.md", "match_text": "old line", "new_string": "new line"}),
    );
    let r = response(&result);
    assert_eq!(r["user_action"], "REVIEW", "{r}");
    assert!(
        r["user_feedback_diff"]
            .as_str()
            .unwrap()
            .contains("+# reviewed by a human"),
        "{r}"
    );
    let session = r["session_path"].as_str().unwrap().to_string();
    // Nothing was written yet.
    assert_eq!(
        std::fs::read_to_string(ws.root.join("notes.md")).unwrap(),
        "# Notes\nold line\n"
    );
    let out = c.call_text(
        "commit_review",
        json!({"session_path": session, "original_path": "notes.md"}),
    );
    assert!(out.to_lowercase().contains("commit"), "{out}");
    assert_eq!(
        std::fs::read_to_string(ws.root.join("notes.md")).unwrap(),
        "# Notes\nnew line\n# reviewed by a human\n"
    );
}

#[test]
fn not_found_match_text_gets_recovery_hints_from_the_sandboxed_file() {
    let ws = Workspace::new();
    ws.write("src/calc.rs", "fn compute(a: i32) -> i32 {\n    a * 2\n}\n");
    // The server's cwd (base) is not the workspace: hints must still be computed.
    let mut c = start(&ws, "none", &[]);
    let result = c.call(
        "propose_and_review",
        json!({"path": "src/calc.rs", "match_text": "fn compute(a: i64) -> i64 {", "new_string": "x"}),
    );
    assert_eq!(result["isError"], true);
    let error = text_of(&result);
    assert!(
        error.starts_with("Error: Edit preparation failed: No match found for 'match_text'."),
        "{error}"
    );
    assert!(
        error.contains("\n  lines 1-1 ("),
        "fuzzy suggestion: {error}"
    );
    assert!(
        error.contains(
            "\nRecovery steps:\n1. Call read_files with path='src/calc.rs', start_line=1, end_line=1."
        ),
        "{error}"
    );
}

#[test]
fn session_path_abuse_is_refused_and_touches_nothing() {
    let ws = Workspace::new();
    ws.write("keep/important.txt", "precious\n");
    let mut c = start(&ws, "none", &[]);
    for session in [
        ws.root.join("keep").display().to_string(),
        "../..".into(),
        "/tmp".into(),
    ] {
        let result = c.call(
            "commit_review",
            json!({"session_path": session, "original_path": "keep/important.txt"}),
        );
        assert_eq!(result["isError"], true, "{session}: {result}");
    }
    assert_eq!(
        std::fs::read_to_string(ws.root.join("keep/important.txt")).unwrap(),
        "precious\n"
    );
}

#[test]
fn review_timeout_leaves_the_file_untouched_and_says_how_to_resume() {
    let ws = Workspace::new();
    ws.write("a.txt", "one\n");
    let mut c = start(&ws, "none", &["--review-timeout", "1"]);
    let r = response(&c.call(
        "propose_and_review",
        json!({"path": "a.txt", "match_text": "one", "new_string": "two"}),
    ));
    assert_eq!(r["user_action"], "TIMEOUT", "{r}");
    assert!(r["session_path"].is_string());
    assert_eq!(
        std::fs::read_to_string(ws.root.join("a.txt")).unwrap(),
        "one\n"
    );
}

#[test]
fn auto_approve_commits_at_once_with_the_diff() {
    let ws = Workspace::new();
    ws.write("a.txt", "alpha\nbeta\n");
    let mut c = start(&ws, "none", &["--auto-approve"]);
    let r = response(&c.call(
        "propose_and_review",
        json!({"path": "a.txt", "edits": [{"match_text": "alpha", "new_string": "ALPHA"}, {"match_text": "beta", "new_string": "BETA"}]}),
    ));
    assert_eq!(r["user_action"], "COMMITTED", "{r}");
    assert!(r["diff"].as_str().unwrap().contains("+ALPHA"), "{r}");
    assert_eq!(
        std::fs::read_to_string(ws.root.join("a.txt")).unwrap(),
        "ALPHA\nBETA\n"
    );
    // The new-file sentinel, through the sandbox.
    let r = response(&c.call(
        "propose_and_review",
        json!({"path": "new/file.txt", "match_text": "", "new_string": "fresh\n"}),
    ));
    assert_eq!(r["user_action"], "COMMITTED", "{r}");
    assert_eq!(
        std::fs::read_to_string(ws.root.join("new/file.txt")).unwrap(),
        "fresh\n"
    );
    let denied = c.call(
        "propose_and_review",
        json!({"path": "../escape.txt", "match_text": "", "new_string": "x"}),
    );
    assert_eq!(denied["isError"], true);
    assert!(!ws.base.join("escape.txt").exists());
}

/// Two reviews wait at once while other calls keep being answered.
#[test]
fn two_reviews_wait_at_once_while_read_files_answers() {
    let ws = Workspace::new();
    ws.write("one.txt", "first\n");
    ws.write("two.txt", "second\n");
    let record = ws.base.join("opened.txt");
    let command = format!(
        "python3 {EDITOR} record {} {{current}} {{future}}",
        record.display()
    );
    let mut c = start(&ws, &command, &[]);
    c.send(&json!({"jsonrpc": "2.0", "id": 101, "method": "tools/call", "params": {
        "name": "propose_and_review", "arguments": {"path": "one.txt", "match_text": "first", "new_string": "FIRST"}}}));
    c.send(&json!({"jsonrpc": "2.0", "id": 102, "method": "tools/call", "params": {
        "name": "propose_and_review", "arguments": {"path": "two.txt", "match_text": "second", "new_string": "SECOND"}}}));
    // Both editors opened: both reviews are waiting.
    let mut futures = Vec::new();
    for _ in 0..500 {
        futures = std::fs::read_to_string(&record)
            .unwrap_or_default()
            .lines()
            .map(String::from)
            .collect();
        if futures.len() == 2 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(futures.len(), 2, "two review windows opened");
    assert_eq!(
        common::untag(&c.call_text("read_files", json!({"files": ["one.txt"]}))),
        "[TAG] File: one.txt\nfirst\n"
    );
    // The human approves one (saves it unchanged) and edits the other.
    let (one, two) = if futures[0].ends_with("one.txt") {
        (&futures[0], &futures[1])
    } else {
        (&futures[1], &futures[0])
    };
    let proposal = std::fs::read_to_string(one).unwrap();
    std::fs::write(one, proposal).unwrap();
    std::fs::write(two, "SECOND, but better\n").unwrap();
    let first = response(&c.wait_for(101)["result"]);
    let second = response(&c.wait_for(102)["result"]);
    assert_eq!(first["user_action"], "COMMITTED", "{first}");
    assert_eq!(second["user_action"], "REVIEW", "{second}");
    assert_eq!(
        std::fs::read_to_string(ws.root.join("one.txt")).unwrap(),
        "FIRST\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.root.join("two.txt")).unwrap(),
        "second\n"
    );
}

#[test]
fn all_tier_writes_are_sandboxed_and_keep_style() {
    let ws = Workspace::new();
    ws.write("log.txt", "a\r\nb\r\n");
    let mut c = ws.start(&["--all"]);
    let out = c.call_text("append_text", json!({"path": "log.txt", "content": "c"}));
    assert!(out.contains("log.txt"), "{out}");
    assert_eq!(
        std::fs::read_to_string(ws.root.join("log.txt")).unwrap(),
        "a\r\nb\r\nc"
    );
    c.call_text(
        "write_file",
        json!({"path": "dir/new.txt", "content": "hello\n"}),
    );
    assert_eq!(
        std::fs::read_to_string(ws.root.join("dir/new.txt")).unwrap(),
        "hello\n"
    );
    c.call_text(
        "move_file",
        json!({"source": "dir/new.txt", "destination": "moved.txt"}),
    );
    assert!(ws.root.join("moved.txt").exists() && !ws.root.join("dir/new.txt").exists());
    let refused = c.call(
        "move_file",
        json!({"source": "moved.txt", "destination": "log.txt"}),
    );
    assert_eq!(refused["isError"], true);
    let outside = c.call(
        "write_file",
        json!({"path": "/tmp/fs-mcp-rs-escape.txt", "content": "x"}),
    );
    assert_eq!(outside["isError"], true);
    assert!(!std::path::Path::new("/tmp/fs-mcp-rs-escape.txt").exists());
    // The core tier does not have them.
    let mut core = ws.start(&[]);
    let unknown = core.request(
        "tools/call",
        json!({"name": "write_file", "arguments": {"path": "x", "content": "y"}}),
    );
    assert!(
        unknown.get("error").is_some() || unknown["result"]["isError"] == true,
        "{unknown}"
    );
}

#[test]
fn cancelling_a_waiting_review_leaves_the_file_untouched_and_the_server_serving() {
    let ws = Workspace::new();
    ws.write("c.txt", "keep me\n");
    let record = ws.base.join("opened.txt");
    let command = format!(
        "python3 {EDITOR} record {} {{current}} {{future}}",
        record.display()
    );
    let mut c = start(&ws, &command, &[]);
    c.send(&json!({"jsonrpc": "2.0", "id": 301, "method": "tools/call", "params": {
        "name": "propose_and_review", "arguments": {"path": "c.txt", "match_text": "keep me", "new_string": "changed"}}}));
    // The editor has written the whole line (not only created the file).
    let recorded = || std::fs::read_to_string(&record).is_ok_and(|r| r.ends_with('\n'));
    for _ in 0..500 {
        if recorded() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(recorded(), "the review started");
    c.notify(
        "notifications/cancelled",
        json!({"requestId": 301, "reason": "user pressed stop"}),
    );
    // The server keeps serving, and the human saving later does not write the file.
    assert_eq!(
        common::untag(&c.call_text("read_files", json!({"files": ["c.txt"]}))),
        "[TAG] File: c.txt\nkeep me\n"
    );
    let future = std::fs::read_to_string(&record).unwrap().trim().to_string();
    std::fs::write(&future, "changed\n").unwrap();
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        common::untag(&c.call_text("read_files", json!({"files": ["c.txt"]}))),
        "[TAG] File: c.txt\nkeep me\n"
    );
}
