//! Every edit tool's failure as the model reads it: an `isError` result whose text is the one
//! error format (`Error: <what>. <next step>.`), and whose next steps name only tools the
//! server lists (core tier, `--all`, `--disable-tools`).

use crate::common;

use std::collections::BTreeSet;

use common::{StdioClient, Workspace, text_of};
use serde_json::{Value, json};

fn listed(c: &mut StdioClient) -> BTreeSet<String> {
    c.list_tools()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

/// Whether `name` occurs in `text` as a whole word (not inside `read_files_x`).
fn names_tool(text: &str, name: &str) -> bool {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        !before.is_some_and(word) && !after.is_some_and(word)
    })
}

/// The call failed in the one error format, naming no tool outside `listed`; its text.
fn failure(c: &mut StdioClient, listed: &BTreeSet<String>, tool: &str, args: Value) -> String {
    let result = c.call(tool, args.clone());
    let text = text_of(&result);
    assert_eq!(result["isError"], true, "{tool} {args}: {text}");
    assert!(text.starts_with("Error: "), "{tool} {args}: {text}");
    for name in fs_mcp_rs::server::all_tool_names() {
        if !listed.contains(name.as_str()) {
            assert!(
                !names_tool(&text, &name),
                "{tool} {args} names the unlisted {name}: {text}"
            );
        }
    }
    text
}

fn workspace() -> Workspace {
    let ws = Workspace::new();
    ws.write("a.py", "def hello():\n    return 'world'\n");
    ws.write("file.txt", "x\n");
    ws.write("linked.txt", "shared\n");
    std::fs::hard_link(ws.root.join("linked.txt"), ws.root.join("other-name.txt")).unwrap();
    ws
}

/// The failures every tier shares (propose_and_review, commit_review, create_directory).
fn shared_failures(c: &mut StdioClient, tools: &BTreeSet<String>) -> Vec<String> {
    vec![
        // Not found: recovery hints with steps.
        failure(
            c,
            tools,
            "propose_and_review",
            json!({"path": "a.py", "match_text": "return \"world\"", "new_string": "x"}),
        ),
        // Nothing similar: outline and search keywords.
        failure(
            c,
            tools,
            "propose_and_review",
            json!({"path": "a.py", "match_text": "class Unrelated:\n    total_value = 1", "new_string": "x"}),
        ),
        failure(
            c,
            tools,
            "propose_and_review",
            json!({"path": "a.py", "match_text": "", "new_string": "x"}),
        ),
        failure(
            c,
            tools,
            "propose_and_review",
            json!({"path": "a.py", "match_text": "y".repeat(2001), "new_string": "x"}),
        ),
        failure(
            c,
            tools,
            "propose_and_review",
            json!({"path": "missing.py", "match_text": "a", "new_string": "b"}),
        ),
        failure(
            c,
            tools,
            "propose_and_review",
            json!({"path": "a.py", "match_text": "hello", "new_string": "hi", "session_path": "/tmp/no-such-session"}),
        ),
        failure(
            c,
            tools,
            "commit_review",
            json!({"session_path": "/tmp/no-such-session", "original_path": "a.py"}),
        ),
        failure(c, tools, "create_directory", json!({"path": "file.txt"})),
    ]
}

#[test]
fn core_tier_failures_are_one_format_and_name_only_listed_tools() {
    let ws = workspace();
    let mut c = ws.start(&["--review-command", "none"]);
    let tools = listed(&mut c);
    assert!(!tools.contains("write_file"), "core lists no direct writer");
    let texts = shared_failures(&mut c, &tools);
    // The hints name the reading tools the core tier lists.
    assert!(
        texts[0].contains("\nRecovery steps:\n1. Call read_files with path='a.py'"),
        "{}",
        texts[0]
    );
    assert!(
        texts[1].contains("Call grep_content with pattern="),
        "{}",
        texts[1]
    );
    assert!(
        texts[2].starts_with("Error: match_text is empty but the file has content.")
            && texts[2].contains("read_files or grep_content")
            && texts[2].contains("OVERWRITE_FILE"),
        "{}",
        texts[2]
    );
}

#[test]
fn disabled_tools_are_never_a_next_step() {
    let ws = workspace();
    let mut c = ws.start(&[
        "--all",
        "--review-command",
        "none",
        "--disable-tools",
        "read_files,grep_content,write_file",
    ]);
    let tools = listed(&mut c);
    assert!(tools.contains("append_text") && !tools.contains("write_file"));
    let texts = shared_failures(&mut c, &tools);
    assert!(
        texts[0].contains("1. Read lines 2-2 of 'a.py'."),
        "{}",
        texts[0]
    );
    assert!(
        texts[2].contains("Read the current content first"),
        "{}",
        texts[2]
    );

    // An append to a file with another name: the whole-content write is offered through the
    // listed tool.
    let append = failure(
        &mut c,
        &tools,
        "append_text",
        json!({"path": "linked.txt", "content": "more"}),
    );
    assert!(
        append.contains("hard links") && append.contains("match_text='OVERWRITE_FILE'"),
        "{append}"
    );
    failure(
        &mut c,
        &tools,
        "move_file",
        json!({"source": "nope.txt", "destination": "b.txt"}),
    );
    failure(
        &mut c,
        &tools,
        "move_file",
        json!({"source": "a.py", "destination": "file.txt"}),
    );
    assert_eq!(
        std::fs::read_to_string(ws.root.join("linked.txt")).unwrap(),
        "shared\n"
    );
}

#[test]
fn the_all_tier_names_write_file_for_a_hard_linked_append() {
    let ws = workspace();
    let mut c = ws.start(&["--all", "--review-command", "none"]);
    let tools = listed(&mut c);
    let append = failure(
        &mut c,
        &tools,
        "append_text",
        json!({"path": "linked.txt", "content": "more"}),
    );
    assert!(
        append.contains("write the whole new content with write_file"),
        "{append}"
    );
}

/// A path the sandbox refuses gets the sandbox's next step from an edit tool too, the same words
/// every tool gives (the edit crate wraps the sandbox's error; the binary words it once).
#[test]
fn a_refused_path_gets_the_sandboxs_next_step() {
    let ws = workspace();
    let mut c = ws.start(&["--review-command", "none"]);
    let tools = listed(&mut c);
    let outside = failure(
        &mut c,
        &tools,
        "propose_and_review",
        json!({"path": "/etc/hostname", "new_string": "x", "match_text": "y"}),
    );
    assert!(outside.contains("Use a path inside them"), "{outside}");
    let directory = failure(
        &mut c,
        &tools,
        "create_directory",
        json!({"path": "a.py/sub"}),
    );
    assert!(directory.starts_with("Error: "), "{directory}");
}
