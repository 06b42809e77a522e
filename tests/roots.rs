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
