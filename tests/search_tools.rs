//! Search and navigation tools through the real binary: normal cases, errors, the sandbox,
//! progress notifications.

use crate::common;

use std::os::unix::fs::symlink;

use common::{Workspace, text_of};
use serde_json::json;

fn workspace() -> Workspace {
    let ws = Workspace::new();
    ws.write(
        "src/lib.rs",
        "use std::fmt;\n\npub fn alpha() -> u32 {\n    let x = 1;\n    x + 1\n}\n\npub fn beta() {\n    println!(\"needle\");\n}\n",
    );
    ws.write(
        "pkg/mod.py",
        "import os\n\n\ndef first():\n    return 'needle'\n\n\ndef second():\n    pass\n",
    );
    ws.write(
        "docs/guide.md",
        "# Guide\n\n## Install\n\nneedle here\n\n## Use\n\ntext\n",
    );
    ws.write(".gitignore", "ignored/\n");
    ws.write("ignored/skip.txt", "needle ignored\n");
    ws.write(".hidden/h.txt", "needle hidden\n");
    ws.write("data.json", "{\"items\": [1, 2, 3], \"name\": \"x\"}\n");
    ws.write("pic.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDRrest");
    std::fs::create_dir_all(ws.base.join("outside")).unwrap();
    std::fs::write(ws.base.join("outside/secret.txt"), "needle SECRET\n").unwrap();
    symlink(ws.base.join("outside"), ws.root.join("escape")).unwrap();
    ws
}

#[test]
fn grep_shows_context_and_working_section_end_hints() {
    let ws = workspace();
    let mut c = ws.start(&[]);
    let out = c.call_text("grep_content", json!({"pattern": "needle"}));
    assert!(
        out.contains("File: src/lib.rs, Line: 9 (section end hint: L10)"),
        "{out}"
    );
    assert!(out.contains("8-pub fn beta() {"), "context before: {out}");
    assert!(
        out.contains("9:    println!(\"needle\");"),
        "indentation kept: {out}"
    );
    assert!(
        out.contains("File: pkg/mod.py, Line: 5 (section end hint: L5)"),
        "{out}"
    );
    assert!(
        out.contains("File: docs/guide.md, Line: 5 (section end hint: L5)"),
        "{out}"
    );
    assert!(!out.contains("ignored") && !out.contains("hidden"), "{out}");
    assert!(
        !out.contains("SECRET"),
        "no search through the symlink: {out}"
    );
}

#[test]
fn grep_options_and_errors() {
    let ws = workspace();
    let mut c = ws.start(&[]);
    let out = c.call_text(
        "grep_content",
        json!({"pattern": "needle", "include_ignored": true, "include_hidden": true, "context_lines": 0, "section_patterns": []}),
    );
    assert!(
        out.contains("ignored/skip.txt") && out.contains(".hidden/h.txt"),
        "{out}"
    );
    assert!(
        !out.contains("section end hint"),
        "[] disables hints: {out}"
    );
    let out = c.call_text(
        "grep_content",
        json!({"pattern": "NEEDLE", "case_insensitive": true, "search_path": "docs"}),
    );
    assert!(
        out.contains("docs/guide.md") && !out.contains("src/lib.rs"),
        "{out}"
    );
    // A pattern starting with "-" is a pattern, not a flag.
    let out = c.call_text("grep_content", json!({"pattern": "-no-such-flag-xyz"}));
    assert!(out.starts_with("No matches found."), "{out}");
    ws.write("flags.txt", "use -v for verbose\n");
    let out = c.call_text("grep_content", json!({"pattern": "-v for"}));
    assert!(out.contains("flags.txt, Line: 1"), "{out}");
    let bad = c.call("grep_content", json!({"pattern": "foo("}));
    assert_eq!(bad["isError"], true);
    assert!(text_of(&bad).to_lowercase().contains("regex"), "{bad}");
    let capped = c.call_text("grep_content", json!({"pattern": "e", "max_matches": 2}));
    assert!(capped.contains("showing the first 2 of"), "{capped}");
}

#[test]
fn grep_cannot_leave_the_sandbox() {
    let ws = workspace();
    let mut c = ws.start(&[]);
    for path in [
        "/tmp",
        "..",
        "escape",
        "/etc",
        std::env::temp_dir().to_str().unwrap(),
    ] {
        let result = c.call(
            "grep_content",
            json!({"pattern": "needle", "search_path": path}),
        );
        assert_eq!(result["isError"], true, "{path}: {result}");
        assert!(
            text_of(&result).contains("Access denied"),
            "{path}: {result}"
        );
    }
}

#[test]
fn grep_sends_progress_when_asked() {
    let ws = workspace();
    for i in 0..200 {
        ws.write(&format!("many/f{i}.txt"), "needle\n");
    }
    let mut c = ws.start(&[]);
    let response = c.request(
        "tools/call",
        json!({"name": "grep_content", "arguments": {"pattern": "needle"}, "_meta": {"progressToken": "tok-1"}}),
    );
    assert_eq!(response["result"]["isError"], false);
    let progress: Vec<_> = c
        .notifications
        .iter()
        .filter(|n| n["method"] == "notifications/progress")
        .collect();
    assert!(
        !progress.is_empty(),
        "at least the final progress notification"
    );
    assert!(
        progress
            .iter()
            .all(|n| n["params"]["progressToken"] == "tok-1")
    );
}

#[test]
fn search_files_and_tree() {
    let ws = workspace();
    let mut c = ws.start(&[]);
    let out = c.call_text("search_files", json!({"pattern": "*.rs"}));
    assert_eq!(out.trim(), "src/lib.rs");
    let out = c.call_text("search_files", json!({"path": ".", "pattern": "**/*.py"}));
    assert!(out.contains("pkg/mod.py"), "{out}");
    let none = c.call_text("search_files", json!({"pattern": "*.nothing"}));
    assert!(none.starts_with("No matches found."), "{none}");
    let denied = c.call("search_files", json!({"path": "..", "pattern": "*"}));
    assert_eq!(denied["isError"], true);

    let tree: serde_json::Value =
        serde_json::from_str(&c.call_text("directory_tree", json!({"path": "."}))).unwrap();
    assert_eq!(tree["type"], "directory");
    let names: Vec<&str> = tree["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"src") && names.contains(&"pkg"),
        "{names:?}"
    );
    let missing = c.call("directory_tree", json!({"path": "no/such/dir"}));
    assert_eq!(missing["isError"], true);
    let denied = c.call("directory_tree", json!({"path": "/"}));
    assert_eq!(denied["isError"], true);
}

#[test]
fn listings_info_mkdir_and_media() {
    let ws = workspace();
    let mut c = ws.start(&["--all"]);
    let out = c.call_text("list_directory", json!({"path": "."}));
    assert!(
        out.contains("[DIR] src") && out.contains("[FILE] data.json"),
        "{out}"
    );
    let out = c.call_text("list_directory_with_sizes", json!({"path": "src"}));
    assert!(out.contains("lib.rs"), "{out}");
    let not_dir = c.call("list_directory_with_sizes", json!({"path": "data.json"}));
    assert_eq!(not_dir["isError"], true);

    let info = c.call_text("get_file_info", json!({"path": "data.json"}));
    assert!(info.contains("items"), "JSON preview: {info}");
    let info = c.call_text("get_file_info", json!({"path": "src/lib.rs"}));
    assert!(info.contains("Lines") || info.contains("lines"), "{info}");

    let made = c.call_text("create_directory", json!({"path": "new/deep/dir"}));
    assert!(made.contains("new/deep/dir"), "{made}");
    assert!(ws.root.join("new/deep/dir").is_dir());
    let refused = c.call("create_directory", json!({"path": "escape/made-outside"}));
    assert_eq!(refused["isError"], true);
    assert!(!ws.base.join("outside/made-outside").exists());

    let media = c.call("read_media_file", json!({"path": "pic.png"}));
    assert_eq!(media["isError"], false, "{media}");
    assert_eq!(media["content"][0]["type"], "image");
    assert_eq!(media["content"][0]["mimeType"], "image/png");
    let not_media = c.call("read_media_file", json!({"path": "data.json"}));
    assert_eq!(not_media["isError"], true);
}

/// get_file_info's advice is worded by the server from the crate's data: it names a tool only
/// when the server lists it, and keeps the rest of the advice when one is disabled.
#[test]
fn get_file_info_advice_names_only_listed_tools() {
    let ws = workspace();
    ws.write("logs/big.log", ("x".repeat(79) + "\n").repeat(5_000));
    ws.write("pic.bin", b"\x00\x01binary");
    let mut all = ws.start(&["--all"]);
    let text = all.call_text("get_file_info", json!({"path": "logs/big.log"}));
    assert!(
        text.contains("1. Sample the start: read_files(files=[{\"path\": \"logs/big.log\", \"head\": 50}])")
            && text.contains("3. Or find the part you need first: grep_content(pattern=\"...\", search_path=\"logs/big.log\")"),
        "{text}"
    );
    let mut without = ws.start(&["--disable-tools", "read_files,grep_content,read_media_file"]);
    let text = without.call_text("get_file_info", json!({"path": "logs/big.log"}));
    assert!(
        !text.contains("read_files") && !text.contains("grep_content"),
        "{text}"
    );
    assert!(
        text.contains("1. Sample the start: {\"path\": \"logs/big.log\", \"head\": 50}\n")
            && text.contains("2. Then chunks of ~500 lines (~10 chunks), e.g."),
        "{text}"
    );
    let text = without.call_text("get_file_info", json!({"path": "pic.bin"}));
    assert!(
        text.ends_with("Note: this is not a text file.") && !text.contains("read_media_file"),
        "{text}"
    );
}
