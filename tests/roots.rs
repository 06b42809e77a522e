//! MCP roots: used when no directories are given on the command line; the command line wins.

use crate::common;

use common::{StdioClient, Workspace};
use serde_json::json;

fn uri(path: &std::path::Path) -> String {
    format!("file://{}", path.display().to_string().replace(' ', "%20"))
}

#[test]
fn client_roots_replace_the_current_directory_and_follow_list_changed() {
    let ws = Workspace::new();
    ws.write("in-root.txt", "from the root\n");
    let second = ws.base.join("second dir");
    std::fs::create_dir(&second).unwrap();
    std::fs::write(second.join("two.txt"), "second\n").unwrap();
    // Started in `base` with no directories: the cwd is the default until roots arrive.
    let mut client = StdioClient::start_with_roots(&ws.base, &[], Some(vec![uri(&ws.root)]));
    assert_eq!(
        client.call_text("list_allowed_directories", json!({})),
        ws.root.display().to_string()
    );
    assert_eq!(
        common::untag(&client.call_text("read_files", json!({"files": ["in-root.txt"]}))),
        "[TAG] File: in-root.txt\nfrom the root\n"
    );

    client.roots = Some(vec![uri(&second), uri(&ws.root)]);
    client.notify("notifications/roots/list_changed", json!({}));
    // rmcp handles notifications on their own task, so the change may land a call later.
    let expected = format!("{}\n{}", second.display(), ws.root.display());
    let mut dirs = String::new();
    for _ in 0..100 {
        dirs = client.call_text("list_allowed_directories", json!({}));
        if dirs == expected {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(dirs, expected);
    assert_eq!(
        common::untag(&client.call_text("read_files", json!({"files": ["two.txt"]}))),
        "[TAG] File: two.txt\nsecond\n"
    );
}

#[test]
fn directories_on_the_command_line_win_over_roots() {
    let ws = Workspace::new();
    let other = ws.base.join("other");
    std::fs::create_dir(&other).unwrap();
    let root = ws.root.display().to_string();
    let mut client = StdioClient::start_with_roots(&ws.base, &[&root], Some(vec![uri(&other)]));
    assert_eq!(
        client.call_text("list_allowed_directories", json!({})),
        root
    );
}

#[test]
fn without_roots_support_the_current_directory_is_used() {
    let ws = Workspace::new();
    let mut client = StdioClient::start(&ws.root, &[]);
    assert_eq!(
        client.call_text("list_allowed_directories", json!({})),
        ws.root.display().to_string()
    );
}

#[test]
fn unusable_roots_keep_the_current_directory() {
    let ws = Workspace::new();
    let mut client = StdioClient::start_with_roots(
        &ws.root,
        &[],
        Some(vec![
            "file:///does/not/exist".into(),
            "https://example.com/x".into(),
        ]),
    );
    assert_eq!(
        client.call_text("list_allowed_directories", json!({})),
        ws.root.display().to_string()
    );
}

/// The JSON answer of a `propose_and_review` call.
fn review_answer(result: &serde_json::Value) -> serde_json::Value {
    let text = common::text_of(result);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// A review is its client session's, not its roots': when the client's roots change, its open
/// review whose file is still inside them stays its own (listed in its page link, decided there
/// and collected as before), and the review whose file left them ends, cancelled with nothing
/// written, its path telling why. (It used to be bound to the roots it was made on: the client
/// lost both.)
#[tokio::test]
async fn a_roots_change_keeps_the_clients_reviews_inside_them_and_ends_the_others() {
    let ws = Workspace::new();
    ws.write("a.txt", "alpha\n");
    let second = ws.base.join("second");
    std::fs::create_dir(&second).unwrap();
    let b_file = second.join("b.txt");
    std::fs::write(&b_file, "beta\n").unwrap();
    let b_path = b_file.display().to_string();
    let mut client = StdioClient::start_with_roots(
        &ws.base,
        &["--review-via", "page"],
        Some(vec![uri(&ws.root), uri(&second)]),
    );
    let a = review_answer(&client.call(
        "propose_and_review",
        json!({"path": "a.txt", "match_text": "alpha", "new_string": "ALPHA"}),
    ));
    let b = review_answer(&client.call(
        "propose_and_review",
        json!({"path": b_path, "match_text": "beta", "new_string": "BETA"}),
    ));
    assert_eq!(a["user_action"], "PENDING", "{a}");
    assert_eq!(b["user_action"], "PENDING", "{b}");
    let session_a = a["session_path"].as_str().unwrap().to_string();
    let session_b = b["session_path"].as_str().unwrap().to_string();
    let (base, token) = common::review_link(a["message"].as_str().unwrap());

    client.roots = Some(vec![uri(&ws.root)]);
    client.notify("notifications/roots/list_changed", json!({}));
    let expected = ws.root.display().to_string();
    let mut dirs = String::new();
    for _ in 0..100 {
        dirs = client.call_text("list_allowed_directories", json!({}));
        if dirs == expected {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(dirs, expected);

    let listed: Vec<String> = common::page_reviews(&base, &token).await["reviews"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["session_path"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(listed, vec![session_a.clone()]);
    let gone = client.call(
        "propose_and_review",
        json!({"path": b_path, "session_path": session_b}),
    );
    let text = common::text_of(&gone);
    assert_eq!(gone["isError"], true, "{text}");
    assert!(
        text.contains("roots") && text.contains("no longer inside"),
        "{text}"
    );
    assert!(!std::path::Path::new(&session_b).exists(), "{session_b}");

    let status =
        common::page_post_decision(&base, Some(&token), &json!({"session_path": session_a})).await;
    assert_eq!(status, reqwest::StatusCode::OK);
    let collected = review_answer(&client.call(
        "propose_and_review",
        json!({"path": "a.txt", "session_path": session_a}),
    ));
    assert_eq!(collected["user_action"], "COMMITTED", "{collected}");
    assert_eq!(
        std::fs::read_to_string(ws.root.join("a.txt")).unwrap(),
        "ALPHA\n"
    );
    assert_eq!(std::fs::read_to_string(&b_file).unwrap(), "beta\n");
}
