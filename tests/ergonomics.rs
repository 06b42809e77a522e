//! Details of what the model reads that cost agents calls or tokens, checked on the real binary.

use crate::common;

use common::Workspace;

#[test]
fn no_listed_description_says_its_default_twice() {
    let ws = Workspace::new();
    let mut c = ws.start(&["--all"]);
    let mut descriptions = Vec::new();
    for tool in c.list_tools() {
        collect_descriptions(&tool["inputSchema"], &mut descriptions);
    }
    assert!(!descriptions.is_empty());
    for d in descriptions {
        let count = d.to_ascii_lowercase().matches("default").count();
        assert!(count <= 1, "default said {count} times: {d}");
    }
}

fn collect_descriptions(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                match (k.as_str(), v) {
                    ("description", serde_json::Value::String(s)) => out.push(s.clone()),
                    _ => collect_descriptions(v, out),
                }
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| collect_descriptions(v, out)),
        _ => {}
    }
}

#[test]
fn unknown_argument_names_are_refused_with_the_closest_valid_one() {
    let ws = Workspace::new();
    ws.write("a.md", "one\ntwo\n");
    let mut c = ws.start(&[]);
    let result = c.call(
        "read_files",
        serde_json::json!({"files": [{"path": "a.md"}], "large_file_pasthrough": true}),
    );
    assert_eq!(result["isError"], true, "{result}");
    let text = common::text_of(&result);
    assert!(
        text.contains(
            "unknown argument `large_file_pasthrough`; did you mean `large_file_passthrough`?"
        ),
        "{text}"
    );
    let nested = c.call(
        "read_files",
        serde_json::json!({"files": [{"path": "a.md", "hed": 1}]}),
    );
    assert!(
        common::text_of(&nested).contains("`files[0].hed`; did you mean `head`?"),
        "{nested}"
    );
    // The lenient forms stay accepted.
    let plain = c.call_text("read_files", serde_json::json!({"files": ["a.md"]}));
    assert!(plain.contains("one\ntwo"), "{plain}");
    let stringified = c.call_text("read_files", serde_json::json!({"files": "[\"a.md\"]"}));
    assert!(stringified.contains("one\ntwo"), "{stringified}");
}

#[test]
fn search_files_always_says_what_it_skipped_and_shows_paths_from_the_first_allowed_directory() {
    let ws = Workspace::new();
    ws.write(".gitignore", "build/\ncache/\n");
    ws.write("a.txt", "");
    ws.write("docs/b.txt", "");
    ws.write("build/c.txt", "");
    ws.write("cache/d.txt", "");
    ws.write(".private/e.txt", "");
    ws.write("web/src/index.ts", "");
    ws.write("web/src/deep/inner.ts", "");
    let mut c = ws.start(&[]);
    let out = c.call_text("search_files", serde_json::json!({"pattern": "*.txt"}));
    assert_eq!(
        out,
        "a.txt\ndocs/b.txt\n\nSkipped: 1 matching file under hidden names (include_hidden=true lists them); 2 matching files excluded by .gitignore/.ignore rules or inside VCS directories (include_ignored=true lists them)."
    );
    let all = c.call_text(
        "search_files",
        serde_json::json!({"pattern": "*.txt", "include_ignored": true, "include_hidden": true}),
    );
    assert_eq!(
        all,
        ".private/e.txt\na.txt\nbuild/c.txt\ncache/d.txt\ndocs/b.txt"
    );
    // One rule: the pattern matches the path relative to `path`, results are shown relative to
    // the first allowed directory.
    let out = c.call_text(
        "search_files",
        serde_json::json!({"path": "web", "pattern": "src/*.ts"}),
    );
    assert_eq!(out, "web/src/index.ts");
    let tools = c.list_tools();
    let search = tools
        .iter()
        .find(|t| t["name"] == "search_files")
        .expect("search_files is listed");
    let described = search.to_string();
    assert!(
        described.contains("relative to the first allowed directory")
            && described.contains("relative to `path`"),
        "{described}"
    );
}

#[test]
fn json_file_info_keeps_the_files_key_order_and_the_guard_suggests_the_largest_array() {
    let ws = Workspace::new();
    let users: Vec<_> = (0..50).map(|i| serde_json::json!({"id": i})).collect();
    let items: Vec<_> = (0..17_000).map(|i| serde_json::json!({"n": i})).collect();
    // Written by hand so that the key order is the file's, not serde_json's sorted one.
    let text = format!(
        "{{\"zeta\": 1, \"users\": {}, \"items\": {}, \"alpha\": true}}",
        serde_json::Value::Array(users),
        serde_json::Value::Array(items)
    );
    ws.write("big.json", &text);
    let mut c = ws.start(&[]);
    let info = c.call_text("get_file_info", serde_json::json!({"path": "big.json"}));
    assert!(
        info.contains("Top-level keys (4): zeta, users, items, alpha"),
        "{info}"
    );
    let guard = c.call(
        "read_files",
        serde_json::json!({"files": [{"path": "big.json"}]}),
    );
    let guard = common::text_of(&guard);
    assert!(guard.contains(".items[0:5]"), "{guard}");
    assert!(!guard.contains(".users["), "{guard}");
}

#[test]
fn read_media_file_names_a_text_files_real_type_and_points_to_read_files() {
    let ws = Workspace::new();
    ws.write("notes.md", "# Notes\n");
    ws.write("LICENSE", "Permission is granted\n");
    ws.write("data.json", "{\"a\": 1}\n");
    let mut c = ws.start(&[]);
    for (path, mime) in [
        ("notes.md", "text/markdown"),
        ("LICENSE", "text/plain"),
        ("data.json", "application/json"),
    ] {
        let result = c.call("read_media_file", serde_json::json!({"path": path}));
        assert_eq!(result["isError"], true, "{result}");
        let text = common::text_of(&result);
        assert!(
            text.contains(&format!("{path} is a text file ({mime})"))
                && text.contains("read_files")
                && !text.contains("octet-stream"),
            "{text}"
        );
    }
}

#[test]
fn head_and_tail_of_zero_mean_not_given_and_negative_stays_an_error() {
    let ws = Workspace::new();
    ws.write("five.txt", "1\n2\n3\n4\n5\n");
    let mut c = ws.start(&[]);
    let body = |text: &str| text.split_once('\n').map(|(_, rest)| rest.to_string());
    for zero in [
        serde_json::json!({"path": "five.txt", "head": 0}),
        serde_json::json!({"path": "five.txt", "tail": 0}),
        serde_json::json!({"path": "five.txt", "head": 0, "tail": 0, "start_line": 0, "end_line": 0}),
    ] {
        let text = c.call_text("read_files", serde_json::json!({"files": [zero]}));
        assert_eq!(
            body(&text).as_deref(),
            Some("1\n2\n3\n4\n5\n"),
            "{zero}: {text}"
        );
    }
    // A 0 next to a real mode is not a second mode.
    let text = c.call_text(
        "read_files",
        serde_json::json!({"files": [{"path": "five.txt", "head": 0, "tail": 2}]}),
    );
    assert_eq!(body(&text).as_deref(), Some("4\n5\n"), "{text}");
    let text = c.call_text(
        "read_files",
        serde_json::json!({"files": [{"path": "five.txt", "tail": 0, "start_line": 2, "end_line": 3}]}),
    );
    assert_eq!(body(&text).as_deref(), Some("2\n3\n"), "{text}");
    let negative = common::text_of(&c.call(
        "read_files",
        serde_json::json!({"files": [{"path": "five.txt", "head": -1}]}),
    ));
    assert!(negative.contains("head=-1 is negative."), "{negative}");
}

#[test]
fn a_custom_section_hint_is_the_blocks_last_line_as_described() {
    let ws = Workspace::new();
    ws.write(
        "notes.txt",
        "== one\nalpha\nneedle here\nomega\n\n== two\nbeta\n",
    );
    let mut c = ws.start(&[]);
    let tools = c.list_tools();
    let grep = tools
        .iter()
        .find(|t| t["name"] == "grep_content")
        .expect("grep_content is listed");
    let described = grep["inputSchema"]["properties"]["section_patterns"]["description"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        described.contains("last line of the block") && described.contains("end_line"),
        "{described}"
    );
    let out = c.call_text(
        "grep_content",
        serde_json::json!({"pattern": "needle", "search_path": "notes.txt", "section_patterns": ["^== "]}),
    );
    let hint = out
        .split("section end hint: L")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .and_then(|n| n.parse::<u64>().ok());
    assert_eq!(hint, Some(4), "{out}");
    // read_files with end_line = hint reads exactly the block.
    let text = c.call_text(
        "read_files",
        serde_json::json!({"files": [{"path": "notes.txt", "start_line": 1, "end_line": 4}]}),
    );
    assert!(
        text.ends_with("\n== one\nalpha\nneedle here\nomega\n"),
        "{text}"
    );
}
