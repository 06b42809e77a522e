//! One error format for every tool, with next steps that name only tools the server lists.

use crate::common;

use std::collections::BTreeSet;

use common::{StdioClient, Workspace, text_of};
use serde_json::{Value, json};

/// The tools a server lists.
fn listed(client: &mut StdioClient) -> BTreeSet<String> {
    client
        .list_tools()
        .iter()
        .filter_map(|t| t["name"].as_str().map(String::from))
        .collect()
}

/// Every tool name any server can list (the `--all` tier).
fn every_tool(ws: &Workspace) -> BTreeSet<String> {
    listed(&mut ws.start(&["--all"]))
}

/// The tool names in `text` (whole words) that are not in `listed`.
fn unlisted_named(text: &str, every: &BTreeSet<String>, listed: &BTreeSet<String>) -> Vec<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|word| every.contains(*word) && !listed.contains(*word))
        .map(String::from)
        .collect()
}

fn workspace() -> Workspace {
    let ws = Workspace::new();
    ws.write("a.txt", "alpha\n");
    ws.write("data.json", "{\"a\": 1}\n");
    ws.write("bin.dat", b"\x89PNG\x00\x01\xff\xfe");
    ws.write("dir/inner.txt", "x\n");
    ws
}

/// A call that fails, as the model reads it: `isError`, one `Error: ` text.
fn failed_text(client: &mut StdioClient, tool: &str, arguments: Value) -> String {
    let result = client.call(tool, arguments.clone());
    let text = text_of(&result);
    assert_eq!(
        result["isError"], true,
        "{tool} {arguments} must fail, got {result}"
    );
    text
}

#[test]
fn a_missing_file_names_no_disabled_tool() {
    let ws = workspace();
    let every = every_tool(&ws);
    let disabled = ["search_files", "list_directory_with_sizes"];
    let mut client = ws.start(&["--disable-tools", &disabled.join(",")]);
    let listed = listed(&mut client);
    assert!(disabled.iter().all(|t| !listed.contains(*t)), "{listed:?}");

    let missing: [(&str, Value); 6] = [
        (
            "query_json",
            json!({"file_path": "nope.json", "jq_expression": "."}),
        ),
        ("get_file_info", json!({"path": "nope.txt"})),
        ("list_directory", json!({"path": "nope"})),
        ("directory_tree", json!({"path": "nope"})),
        ("read_media_file", json!({"path": "nope.png"})),
        ("analyze_gsd_work_log", json!({"file_path": "nope.md"})),
    ];
    for (tool, arguments) in missing {
        if !listed.contains(tool) {
            continue;
        }
        let text = failed_text(&mut client, tool, arguments);
        assert!(text.starts_with("Error: "), "{tool}: {text}");
        assert!(
            text.contains("directory_tree"),
            "{tool}: a listed finder is named: {text}"
        );
        assert_eq!(
            unlisted_named(&text, &every, &listed),
            Vec::<String>::new(),
            "{tool}: {text}"
        );
    }
    let text = client.call_text("read_files", json!({"files": ["nope.txt"]}));
    let error = common::untag(&text);
    assert!(
        error.starts_with("[TAG] File: nope.txt\n[TAG] Error: File not found: nope.txt. Check the path; directory_tree shows what exists;"),
        "{error}"
    );
    assert_eq!(
        unlisted_named(&text, &every, &listed),
        Vec::<String>::new(),
        "{text}"
    );

    // With every finder disabled, the next step says what to check without naming a tool.
    let mut bare = ws.start(&[
        "--disable-tools",
        "search_files,list_directory_with_sizes,directory_tree",
    ]);
    let text = failed_text(&mut bare, "get_file_info", json!({"path": "nope.txt"}));
    assert_eq!(
        text,
        "Error: nope.txt does not exist. Check the name; a relative path resolves against the first allowed directory."
    );
}

#[test]
fn a_missing_file_names_the_finders_when_they_are_listed() {
    let ws = workspace();
    let mut client = ws.start(&[]);
    let text = failed_text(
        &mut client,
        "query_json",
        json!({"file_path": "nope.json", "jq_expression": "."}),
    );
    assert_eq!(
        text,
        "Error: 'nope.json' does not exist. Check the name with search_files or list_directory_with_sizes."
    );
}

#[test]
fn every_tool_fails_in_the_one_format() {
    let ws = workspace();
    let every = every_tool(&ws);
    for extra in [
        &[][..],
        &["--disable-tools", "search_files,read_files,get_file_info"][..],
    ] {
        let mut client = ws.start(extra);
        let listed = listed(&mut client);
        let calls: Vec<(&str, Value)> = vec![
            ("grep_content", json!({"pattern": "("})),
            (
                "grep_content",
                json!({"pattern": "x", "search_path": "nope"}),
            ),
            ("search_files", json!({"path": "nope", "pattern": "*.rs"})),
            ("search_files", json!({"pattern": "[a"})),
            ("directory_tree", json!({"path": "nope"})),
            ("list_directory", json!({"path": "../outside"})),
            ("list_directory_with_sizes", json!({"path": "a.txt"})),
            ("get_file_info", json!({"path": "nope.txt"})),
            ("get_file_info", json!({})),
            (
                "get_file_info",
                json!({"paths": ["nope1.txt", "nope2.txt"]}),
            ),
            ("read_media_file", json!({"path": "a.txt"})),
            ("read_media_file", json!({"path": "dir"})),
            (
                "query_json",
                json!({"file_path": "data.json", "jq_expression": ".["}),
            ),
            (
                "query_json",
                json!({"file_path": "a.txt", "jq_expression": "."}),
            ),
            (
                "query_yaml",
                json!({"file_path": "dir", "yq_expression": "."}),
            ),
            ("analyze_gsd_work_log", json!({"file_path": "bin.dat"})),
            ("analyze_gsd_work_log", json!({"file_path": "dir"})),
        ];
        for (tool, arguments) in calls {
            if !listed.contains(tool) {
                continue;
            }
            let text = failed_text(&mut client, tool, arguments.clone());
            assert!(text.starts_with("Error: "), "{tool} {arguments}: {text}");
            assert!(
                !text.starts_with("Error: Error") && !text.contains("\n\nFix:"),
                "{tool} {arguments}: {text}"
            );
            assert_eq!(
                unlisted_named(&text, &every, &listed),
                Vec::<String>::new(),
                "{tool} {arguments} with {extra:?}: {text}"
            );
        }
        // A failed item of a framed reply: the frame's prefix, then the same format.
        if listed.contains("read_files") {
            for item in [
                json!("nope.txt"),
                json!("dir"),
                json!({"path": "a.txt", "head": -1}),
            ] {
                let text = client.call_text("read_files", json!({"files": [item]}));
                let error = common::untag(&text);
                let line = error.lines().nth(1).unwrap_or_default();
                assert!(line.starts_with("[TAG] Error: "), "{item}: {error}");
                assert_eq!(
                    unlisted_named(&text, &every, &listed),
                    Vec::<String>::new(),
                    "{item}: {text}"
                );
            }
        }
    }
}

#[test]
fn advice_in_answers_names_only_listed_tools() {
    let ws = workspace();
    let every = every_tool(&ws);
    ws.write("big.log", ("x".repeat(79) + "\n").repeat(5_000));
    ws.write("wide.txt", format!("{}\nnext\n", "y".repeat(40_000)));
    let mut client = ws.start(&["--disable-tools", "read_files,grep_content"]);
    let listed_of = listed;
    let listed = listed_of(&mut client);
    let text = client.call_text("get_file_info", json!({"path": "big.log"}));
    assert!(
        text.contains("1. Sample the start: {\"path\": \"big.log\", \"head\": 50}\n"),
        "{text}"
    );
    assert_eq!(
        unlisted_named(&text, &every, &listed),
        Vec::<String>::new(),
        "{text}"
    );

    let mut client = ws.start(&["--disable-tools", "grep_content"]);
    let listed = listed_of(&mut client);
    let text = client.call_text(
        "read_files",
        json!({"files": [{"path": "wide.txt", "head": 2}]}),
    );
    assert!(text.contains(" Cut: line 1 has 40,000 bytes"), "{text}");
    assert_eq!(
        unlisted_named(&text, &every, &listed),
        Vec::<String>::new(),
        "{text}"
    );
    // With both listed, the advice names them.
    let mut client = ws.start(&[]);
    let text = client.call_text("get_file_info", json!({"path": "big.log"}));
    assert!(
        text.contains("read_files(files=[{\"path\": \"big.log\", \"head\": 50}])")
            && text.contains("grep_content(pattern="),
        "{text}"
    );
}
