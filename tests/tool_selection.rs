//! Which tools a server lists: tiers, `--read-only`, `--disable-tools`; and that docs name them all.

use crate::common;

use std::collections::BTreeSet;

use common::{BIN, Workspace};
use serde_json::json;

fn names(ws: &Workspace, args: &[&str]) -> BTreeSet<String> {
    let mut c = ws.start(args);
    c.list_tools()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_all_tier_adds_exactly_the_all_tier_only_tools() {
    let ws = Workspace::new();
    let core = names(&ws, &[]);
    let all = names(&ws, &["--all"]);
    let added: BTreeSet<String> = all.difference(&core).cloned().collect();
    let expected: BTreeSet<String> = fs_mcp_rs::server::all_tier_only_names()
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(
        added, expected,
        "--all must add exactly the tools whose ToolSpec tier is AllOnly"
    );
    assert!(core.is_subset(&all));
    assert_eq!(
        all.iter().cloned().collect::<Vec<_>>(),
        fs_mcp_rs::server::all_tool_names()
    );
    let docs =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/tools.md")).unwrap();
    for name in &all {
        assert!(
            docs.contains(&format!("`{name}`")),
            "docs/tools.md does not name {name}"
        );
    }
}

#[test]
fn read_only_lists_only_read_only_tools_and_refuses_writes() {
    let ws = Workspace::new();
    ws.write("a.txt", "a\n");
    let mut c = ws.start(&["--read-only", "--all", "--auto-approve"]);
    let tools = c.list_tools();
    assert!(!tools.is_empty());
    for tool in &tools {
        assert_eq!(tool["annotations"]["readOnlyHint"], true, "{tool}");
    }
    let listed: BTreeSet<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    for writer in [
        "propose_and_review",
        "commit_review",
        "create_directory",
        "write_file",
        "append_text",
        "move_file",
    ] {
        assert!(!listed.contains(writer), "{writer} listed in --read-only");
    }
    assert!(listed.contains("read_files") && listed.contains("grep_content"));
    // A writer called by name anyway is not run.
    let refused = c.request(
        "tools/call",
        json!({"name": "write_file", "arguments": {"path": "b.txt", "content": "x"}}),
    );
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(!ws.root.join("b.txt").exists());
    assert_eq!(
        std::fs::read_to_string(ws.root.join("a.txt")).unwrap(),
        "a\n"
    );
}

#[test]
fn disabled_tools_are_not_listed_and_unknown_names_stop_the_start() {
    let ws = Workspace::new();
    let listed = names(&ws, &["--disable-tools", "grep_content,directory_tree"]);
    assert!(!listed.contains("grep_content") && !listed.contains("directory_tree"));
    assert!(listed.contains("read_files"));
    let out = std::process::Command::new(BIN)
        .args(["--disable-tools", "grep_contnet", "."])
        .current_dir(&ws.root)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("unknown tool name(s): grep_contnet") && stderr.contains("grep_content"),
        "{stderr}"
    );
}
