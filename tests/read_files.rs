//! read_files through the real binary: modes, errors, line endings, one failure not failing the batch.

use crate::common;

use common::Workspace;
use serde_json::json;

fn setup() -> (Workspace, common::StdioClient) {
    let ws = Workspace::new();
    ws.write("lines.txt", "l1\nl2\nl3\nl4\nl5\n");
    ws.write("no-final-newline.txt", "x\ny");
    ws.write("crlf.txt", "c1\r\nc2\r\nc3\r\n");
    ws.write(
        "mod.py",
        "import os\n\nclass A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n",
    );
    ws.write("image.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR");
    std::fs::create_dir(ws.root.join("folder")).unwrap();
    let client = ws.start(&[]);
    (ws, client)
}

/// One item's reply, with its random tag replaced by `[TAG]`.
fn read(client: &mut common::StdioClient, item: serde_json::Value) -> String {
    common::untag(&client.call_text("read_files", json!({"files": [item]})))
}

#[test]
fn every_mode() {
    let (_ws, mut c) = setup();
    assert_eq!(
        read(&mut c, json!({"path": "lines.txt"})),
        "[TAG] File: lines.txt\nl1\nl2\nl3\nl4\nl5\n"
    );
    assert_eq!(
        read(&mut c, json!({"path": "lines.txt", "head": 2})),
        "[TAG] File: lines.txt\nl1\nl2\n"
    );
    assert_eq!(
        read(&mut c, json!({"path": "lines.txt", "tail": 2})),
        "[TAG] File: lines.txt\nl4\nl5\n"
    );
    assert_eq!(
        read(
            &mut c,
            json!({"path": "lines.txt", "start_line": 2, "end_line": 3})
        ),
        "[TAG] File: lines.txt\nl2\nl3\n"
    );
    assert_eq!(
        read(
            &mut c,
            json!({"path": "mod.py", "start_line": 4, "read_to_next_pattern": "^\\s*def "})
        ),
        "[TAG] File: mod.py\n    def f(self):\n        return 1\n\n"
    );
    // Fixed bug of the original: head past the end. tail=0 means "not given" (the whole file).
    assert_eq!(
        read(&mut c, json!({"path": "lines.txt", "head": 99})),
        "[TAG] File: lines.txt\nl1\nl2\nl3\nl4\nl5\n"
    );
    assert_eq!(
        read(&mut c, json!({"path": "lines.txt", "tail": 0})),
        "[TAG] File: lines.txt\nl1\nl2\nl3\nl4\nl5\n"
    );
}

#[test]
fn final_newline_and_crlf() {
    let (_ws, mut c) = setup();
    assert_eq!(
        read(&mut c, json!({"path": "no-final-newline.txt"})),
        "[TAG] File: no-final-newline.txt\nx\ny"
    );
    assert_eq!(
        read(&mut c, json!({"path": "no-final-newline.txt", "tail": 1})),
        "[TAG] File: no-final-newline.txt\ny"
    );
    assert_eq!(
        read(&mut c, json!({"path": "crlf.txt"})),
        "[TAG] File: crlf.txt\nc1\nc2\nc3\n"
    );
    assert_eq!(
        read(&mut c, json!({"path": "crlf.txt", "tail": 2})),
        "[TAG] File: crlf.txt\nc2\nc3\n"
    );
    assert_eq!(
        read(
            &mut c,
            json!({"path": "crlf.txt", "start_line": 2, "end_line": 2})
        ),
        "[TAG] File: crlf.txt\nc2\n"
    );
}

#[test]
fn every_error_case() {
    let (_ws, mut c) = setup();
    let cases = [
        (
            json!({"path": "lines.txt", "end_line": 3, "start_line": 1, "read_to_next_pattern": "x"}),
            "[TAG] Error: end_line=3 and read_to_next_pattern='x' cannot be used together. Choose one way to end the read: end_line or read_to_next_pattern.\n",
        ),
        (
            json!({"path": "lines.txt", "read_to_next_pattern": "x"}),
            "[TAG] Error: read_to_next_pattern='x' needs a start_line to know where to begin scanning. Provide a start_line.\n",
        ),
        (
            json!({"path": "lines.txt", "head": 1, "start_line": 2}),
            "[TAG] Error: Cannot mix start_line/end_line/read_to_next_pattern with head/tail. Use head or tail alone, or start_line with end_line or read_to_next_pattern.\n",
        ),
        (
            json!({"path": "lines.txt", "head": 1, "tail": 1}),
            "[TAG] Error: Cannot use head and tail together. Make two requests for the same path, one with head and one with tail.\n",
        ),
        (
            json!({"path": "lines.txt", "start_line": 9}),
            "[TAG] Error: Invalid start_line=9: lines.txt only has 5 lines. Choose a start_line between 1 and 5; grep_content finds line numbers.\n",
        ),
        (
            json!({"path": "lines.txt", "start_line": 4, "end_line": 2}),
            "[TAG] Error: end_line (2) is before start_line (4). Use an end_line of at least 4, or leave it out to read to the end of the file.\n",
        ),
        (
            json!({"path": "lines.txt", "head": -1}),
            "[TAG] Error: head=-1 is negative. Give head as a number of lines, 1 or more.\n",
        ),
        (
            json!({"path": "lines.txt", "start_line": 1, "read_to_next_pattern": "("}),
            "[TAG] Error: Invalid read_to_next_pattern",
        ),
        (
            json!({"path": "folder"}),
            "[TAG] Error: folder is a directory, not a file. Use directory_tree or list_directory_with_sizes to see what it contains, then read a file in it.\n",
        ),
        (
            json!({"path": "image.png"}),
            "[TAG] Error: image.png is a binary file (not UTF-8 text). Use read_media_file for images and audio, or get_file_info to see its type and size.\n",
        ),
        (
            json!({"path": "nope.txt"}),
            "[TAG] Error: File not found: nope.txt. Check the path; search_files or directory_tree show what exists; relative paths resolve against the first allowed directory (list_allowed_directories).\n",
        ),
    ];
    for (item, expected) in cases {
        let out = read(&mut c, item.clone());
        let path = item["path"].as_str().unwrap();
        let prefix = format!("[TAG] File: {path}\n{expected}");
        assert!(
            out.starts_with(&prefix),
            "{item}: expected {expected:?}, got:\n{out}"
        );
    }
}

#[test]
fn one_failing_file_never_fails_the_batch() {
    let (_ws, mut c) = setup();
    let result = c.call(
        "read_files",
        json!({"files": [{"path": "lines.txt", "head": 1}, {"path": "nope.txt"}, {"path": "/etc/passwd"}, {"path": "crlf.txt", "tail": 1}]}),
    );
    assert_eq!(result["isError"], false);
    let text = common::untag(&common::text_of(&result));
    let blocks: Vec<&str> = text.split("[TAG] File: ").skip(1).collect();
    assert_eq!(blocks.len(), 4, "{text}");
    assert_eq!(blocks[0], "lines.txt\nl1\n\n");
    assert!(blocks[1].starts_with("nope.txt\n[TAG] Error: File not found"));
    assert!(blocks[2].starts_with("/etc/passwd\n[TAG] Error: Access denied"));
    assert_eq!(blocks[3], "crlf.txt\nc3\n");
}

#[test]
fn lenient_integers_and_flags() {
    let (_ws, mut c) = setup();
    assert_eq!(
        read(&mut c, json!({"path": "lines.txt", "head": "1"})),
        "[TAG] File: lines.txt\nl1\n"
    );
    let out = c.call_text(
        "read_files",
        json!({"files": "[{\"path\": \"lines.txt\", \"tail\": 1}]", "large_file_passthrough": "false"}),
    );
    assert_eq!(common::untag(&out), "[TAG] File: lines.txt\nl5\n");
}

#[test]
fn large_json_is_steered_to_query_json_but_partial_reads_work() {
    let ws = Workspace::new();
    let mut json_text = String::from("{\"items\": [\n");
    for i in 0..5000 {
        json_text.push_str(&format!("  {{\"id\": {i}, \"name\": \"item {i}\"}},\n"));
    }
    json_text.push_str("  {}\n]}\n");
    ws.write("data.json", &json_text);
    let mut c = ws.start(&[]);
    let out = read(&mut c, json!({"path": "data.json"}));
    assert!(
        out.contains("is a large JSON file") && out.contains("query_json(\"data.json\""),
        "{out}"
    );
    assert_eq!(
        read(&mut c, json!({"path": "data.json", "head": 2})),
        "[TAG] File: data.json\n{\"items\": [\n  {\"id\": 0, \"name\": \"item 0\"},\n"
    );
    // Passthrough reads it whole when the reply cap allows.
    let mut roomy = ws.start(&["--max-reply-bytes", "1000000"]);
    let whole = roomy.call_text(
        "read_files",
        json!({"files": ["data.json"], "large_file_passthrough": true}),
    );
    assert_eq!(
        common::untag(&whole),
        format!("[TAG] File: data.json\n{json_text}")
    );
}

#[test]
fn a_cut_line_names_grep_content_only_when_it_is_listed() {
    let ws = Workspace::new();
    ws.write("wide.txt", format!("{}\nnext\n", "x".repeat(20_000)));
    let marker = |client: &mut common::StdioClient| {
        let reply = read(client, json!({"path": "wide.txt", "head": 2}));
        let start = reply
            .find(" [TAG] Cut: ")
            .unwrap_or_else(|| panic!("{reply}"));
        reply[start..].to_string()
    };
    let mut listed = ws.start(&[]);
    assert_eq!(
        marker(&mut listed),
        " [TAG] Cut: line 1 has 20,000 bytes; the first 16,384 are shown; large_file_passthrough=true lifts the 16,384-byte line limit (the 50,000-byte reply limit stays); grep_content finds text in it.\nnext\n"
    );
    let mut unlisted = ws.start(&["--disable-tools", "grep_content"]);
    assert_eq!(
        marker(&mut unlisted),
        " [TAG] Cut: line 1 has 20,000 bytes; the first 16,384 are shown; large_file_passthrough=true lifts the 16,384-byte line limit (the 50,000-byte reply limit stays).\nnext\n"
    );
}

/// Issue #32: 300,000 entries (one small file's name repeated) cost 32 s of CPU before an answer
/// (coercing the list checked each refused item against every earlier one). A list past the cap
/// is refused at once, saying the cap; what the call costs stays linear in what was sent.
#[test]
fn an_oversized_list_is_refused_at_once_saying_the_cap() {
    let (_ws, mut c) = setup();
    let before = common::cpu_seconds(c.pid());
    let response = c.request(
        "tools/call",
        json!({"name": "read_files", "arguments": {"files": vec!["lines.txt"; 300_000]}}),
    );
    let spent = common::cpu_seconds(c.pid()) - before;
    let text = response.to_string();
    assert!(text.contains("files: 300,000 items"), "{text:.600}");
    assert!(text.contains("at most 1,000 per call"), "{text:.600}");
    // A debug build parses and checks the list in about a second; the quadratic check took
    // nearly a minute.
    assert!(spent < 15.0, "the refusal took {spent:.1} s of CPU");
    // The server still serves.
    assert!(
        c.call_text("read_files", json!({"files": ["lines.txt"]}))
            .contains("l5")
    );
}
