//! The recorded run (#33): a fixed script of MCP calls over a fixture workspace built the same way
//! every time, run against a server binary over stdio, each answer normalized for what
//! legitimately differs between two runs (the read_files frame tag, the run's own folders, the
//! review sessions' random names, times that are not the fixture's).
//!
//! `cargo xtask replay record|check` and the integration test `tests/replay.rs` both compile this
//! one file (the test through `#[path]`), so it needs nothing but std and serde_json.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, BufRead, BufReader, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant, SystemTime};

use serde_json::{Map, Value, json};

/// How long one answer may take before the run fails.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(60);
/// Every fixture file and directory is dated so (2026-01-02T03:04:05Z), so its dates in answers
/// are kept as they are; other dates (of what the run itself writes) are normalized.
const FIXTURE_MTIME_SECS: u64 = 1_767_323_045;
const FIXTURE_DATE: &str = "2026-01-02T03:04:05Z";

/// One server process: its flags, how the client introduces itself, and the calls it gets.
pub struct Session {
    pub name: &'static str,
    /// Flags after the binary; `{run}` is replaced by the run's folder (the workspace is the
    /// server's current directory, so the default allowed directory).
    pub args: Vec<String>,
    pub client_name: &'static str,
    pub capabilities: Value,
    /// `(method, params)`, sent in order after `initialize`.
    pub calls: Vec<(String, Value)>,
}

impl Session {
    fn new(name: &'static str, args: &[&str]) -> Session {
        Session {
            name,
            args: args.iter().map(|a| a.to_string()).collect(),
            client_name: "fs-mcp-rs-replay",
            capabilities: json!({}),
            calls: Vec::new(),
        }
    }

    fn tool(&mut self, name: &str, arguments: Value) -> &mut Session {
        self.calls.push((
            "tools/call".into(),
            json!({"name": name, "arguments": arguments}),
        ));
        self
    }

    fn method(&mut self, method: &str, params: Value) -> &mut Session {
        self.calls.push((method.into(), params));
        self
    }

    fn read(&mut self, files: Value) -> &mut Session {
        self.tool("read_files", json!({ "files": files }))
    }
}

/// The script: every tool, its modes and its errors, and the protocol around them.
pub fn script() -> Vec<Session> {
    vec![
        main_session(),
        limits_session(),
        core_session(),
        read_only_session(),
        disabled_session("disabled-finders", "search_files,list_directory_with_sizes"),
        disabled_session(
            "disabled-all-finders",
            "search_files,list_directory_with_sizes,directory_tree",
        ),
        profile_session("profile-auto-codex", "auto", "codex-mcp-client"),
        profile_session("profile-auto-claude", "auto", "claude-code"),
        profile_session("profile-openai-strict", "openai-strict", "fs-mcp-rs-replay"),
        app_session(),
        app_review_session(),
    ]
}

fn main_session() -> Session {
    let mut s = Session::new("main", &["--all", "--auto-approve", ".", "{run}/extra"]);
    s.method("tools/list", json!({}));
    s.method("ping", json!({}));
    s.tool("list_allowed_directories", json!({}));
    read_calls(&mut s);
    grep_calls(&mut s);
    search_calls(&mut s);
    tree_and_listing_calls(&mut s);
    info_calls(&mut s);
    media_calls(&mut s);
    query_calls(&mut s);
    worklog_calls(&mut s);
    protocol_calls(&mut s);
    // Writes last: the reads above see the fixture as built.
    create_directory_calls(&mut s);
    edit_calls(&mut s);
    write_calls(&mut s);
    s
}

fn read_calls(s: &mut Session) {
    for path in [
        "README.md",
        "src/main.rs",
        "notes/crlf.txt",
        "notes/no_newline.txt",
        "notes/empty.txt",
        "notes/unicode.txt",
        "notes/trailing_blank.txt",
        "data/config.json",
        "data/config.yaml",
        "link_inside.md",
        "extra_link/other.txt",
    ] {
        s.read(json!([{ "path": path }]));
    }
    for head in [
        json!(1),
        json!(3),
        json!(0),
        json!(1000),
        json!("5"),
        json!(-1),
    ] {
        s.read(json!([{"path": "src/main.rs", "head": head}]));
    }
    for tail in [json!(1), json!(4), json!(0), json!(100_000), json!("2")] {
        s.read(json!([{"path": "logs/app.log", "tail": tail}]));
    }
    s.read(json!([{"path": "notes/crlf.txt", "head": 2}]));
    s.read(json!([{"path": "notes/crlf.txt", "tail": 1}]));
    s.read(json!([{"path": "notes/no_newline.txt", "tail": 1}]));
    s.read(json!([{"path": "notes/unicode.txt", "tail": 1}]));
    for (start, end) in [
        (json!(2), json!(4)),
        (json!(10), Value::Null),
        (json!(5), json!(3)),
        (json!(0), json!(3)),
        (json!(1), json!(1)),
        (json!(499), json!(600)),
        (json!(10_000), Value::Null),
        (json!("3"), json!("6")),
    ] {
        let mut item = json!({"path": "logs/app.log", "start_line": start});
        if !end.is_null() {
            item["end_line"] = end;
        }
        s.read(json!([item]));
    }
    for (start, pattern) in [
        (json!(1), "^fn "),
        (json!(4), "^fn "),
        (json!(1), "^struct "),
        (json!(1), "^nothing-matches$"),
        (json!(1), "("),
        (json!(1), ""),
    ] {
        s.read(
            json!([{"path": "src/main.rs", "start_line": start, "read_to_next_pattern": pattern}]),
        );
    }
    s.read(json!([{"path": "src/main.rs", "read_to_next_pattern": "^fn "}]));
    s.read(json!([{"path": "src/main.rs", "start_line": 1, "end_line": 5, "read_to_next_pattern": "^fn "}]));
    s.read(json!([{"path": "src/main.rs", "head": 2, "tail": 2}]));
    s.read(json!([{"path": "src/main.rs", "head": 2, "start_line": 3}]));
    s.read(json!([{"path": "src/main.rs", "tail": 2, "read_to_next_pattern": "x"}]));
    s.read(json!([{"path": "src/main.rs", "head": 0, "tail": 2}]));
    // Several items, bare strings, a JSON string holding the list, the same file twice.
    s.read(json!([
        "README.md",
        {"path": "src/lib.rs", "head": 2},
        {"path": "missing.txt"},
        {"path": "src"},
        {"path": "notes/crlf.txt", "tail": 2}
    ]));
    s.read(json!(
        "[\"notes/unicode.txt\", {\"path\": \"README.md\", \"head\": 1}]"
    ));
    s.read(json!("{\"path\": \"README.md\", \"tail\": 1}"));
    s.read(json!("notes/no_newline.txt"));
    s.read(json!([{"path": "README.md", "head": 1}, {"path": "README.md", "tail": 1}]));
    // Errors of one item: missing, a directory, binary, invalid UTF-8, outside, names.
    for path in [
        "missing.txt",
        "src/missing.rs",
        "nosuchdir/a.txt",
        "src",
        "bin/data.bin",
        "notes/latin1.txt",
        "link_outside",
        "dangling_link",
        "/replay-nonexistent/x.txt",
        "../outside/secret.txt",
        "weird/bad\\xff.txt",
        "weird/tab\\tname.txt",
        "weird/x\\n[FILE] fake.txt",
        "big/large.txt",
        "data/big.json",
        "data/big.yaml",
        "",
        "README.md/child",
    ] {
        s.read(json!([{ "path": path }]));
    }
    s.read(json!([{"path": "notes/latin1.txt", "head": 1}]));
    s.read(json!([{"path": "notes/latin1.txt", "head": 3}]));
    s.read(json!([{"path": "bin/data.bin", "head": 1}]));
    s.read(json!([{"path": "big/large.txt", "head": 3}]));
    s.read(json!([{"path": "big/large.txt", "tail": 2}]));
    s.read(json!([{"path": "big/large.txt", "start_line": 4000, "end_line": 4002}]));
    s.read(json!([{"path": "data/big.json", "head": 4}]));
    // Malformed calls.
    s.tool("read_files", json!({}));
    s.tool("read_files", json!({"files": []}));
    s.tool("read_files", json!({"files": 5}));
    s.tool(
        "read_files",
        json!({"files": [{"path": "README.md", "hed": 3}]}),
    );
    s.tool("read_files", json!({"files": [{"head": 3}]}));
    s.tool("read_files", json!({"files": ["README.md"], "extra": true}));
    s.tool("read_files", json!({"files": vec!["README.md"; 1001]}));
}

fn grep_calls(s: &mut Session) {
    for args in [
        json!({"pattern": "TODO"}),
        json!({"pattern": "fn \\w+", "search_path": "src"}),
        json!({"pattern": "todo", "case_insensitive": true}),
        json!({"pattern": "TODO", "context_lines": 0}),
        json!({"pattern": "TODO", "context_lines": 5, "search_path": "src"}),
        json!({"pattern": "TODO", "context_lines": 25}),
        json!({"pattern": "TODO", "context_lines": -1}),
        json!({"pattern": "line", "search_path": "logs", "max_matches": 0}),
        json!({"pattern": "line", "search_path": "logs", "max_matches": 1}),
        json!({"pattern": "line", "search_path": "logs", "max_matches": 3}),
        json!({"pattern": "line", "search_path": "logs", "max_matches": "2"}),
        json!({"pattern": "ERROR", "search_path": "logs", "max_matches": 1001}),
        json!({"pattern": "ERROR", "search_path": "logs/app.log"}),
        json!({"pattern": "secret"}),
        json!({"pattern": "secret", "include_hidden": true}),
        json!({"pattern": "TODO", "include_ignored": true}),
        json!({"pattern": "TODO", "include_hidden": true, "include_ignored": true}),
        json!({"pattern": "("}),
        json!({"pattern": "a{100000}"}),
        json!({"pattern": ""}),
        json!({"pattern": "two", "search_path": "notes"}),
        json!({"pattern": "caf", "search_path": "notes"}),
        json!({"pattern": "日本", "search_path": "notes"}),
        json!({"pattern": "bad name", "search_path": "weird"}),
        json!({"pattern": "x", "search_path": "notes/long_line.txt", "max_matches": 1}),
        json!({"pattern": "PAYLOAD", "search_path": "bin"}),
        json!({"pattern": "TODO", "search_path": "missing"}),
        json!({"pattern": "TODO", "search_path": "../outside"}),
        json!({"pattern": "TODO", "search_path": "link_outside"}),
        json!({"pattern": "helper", "search_path": "src", "section_patterns": []}),
        json!({"pattern": "helper", "search_path": "src"}),
        json!({"pattern": "retry", "search_path": "src", "section_patterns": ["^impl "]}),
        json!({"pattern": "retry", "search_path": "src", "section_patterns": ["("]}),
        json!({"pattern": "TODO", "timeout": 301}),
        json!({"pattern": "TODO", "search_path": "{root}"}),
        json!({"pattern": "other", "search_path": "{run}/extra"}),
        json!({"pattern": "version", "search_path": "data"}),
        json!({"pattern": "TODO", "max_results": 3}),
        json!({"search_path": "src"}),
    ] {
        s.tool("grep_content", args);
    }
}

fn search_calls(s: &mut Session) {
    for args in [
        json!({"pattern": "*.rs"}),
        json!({"pattern": "main"}),
        json!({"pattern": "**/*.json"}),
        json!({"pattern": "*.json", "path": "data"}),
        json!({"pattern": ".env"}),
        json!({"pattern": ".env", "include_hidden": true}),
        json!({"pattern": "*.tmp"}),
        json!({"pattern": "*.tmp", "include_ignored": true}),
        json!({"pattern": "*.txt", "path": "weird"}),
        json!({"pattern": "bad"}),
        json!({"pattern": "nothing-is-called-this"}),
        json!({"pattern": "*.rs", "path": "missing"}),
        json!({"pattern": "*", "path": "../outside"}),
        json!({"pattern": "*", "path": "README.md"}),
        json!({"pattern": "["}),
        json!({"pattern": ""}),
        json!({"pattern": "index.js"}),
        json!({"pattern": "*.txt", "path": "{run}/extra"}),
        json!({"path": "src"}),
    ] {
        s.tool("search_files", args);
    }
}

fn tree_and_listing_calls(s: &mut Session) {
    for args in [
        json!({}),
        json!({"max_depth": 1}),
        json!({"max_depth": 0}),
        json!({"max_depth": 10, "path": "deep"}),
        json!({"max_depth": "2", "path": "src"}),
        json!({"exclude_dirs": []}),
        json!({"exclude_dirs": ["src", "data"], "max_depth": 1}),
        json!({"path": "README.md"}),
        json!({"path": "missing"}),
        json!({"path": "../outside"}),
        json!({"path": "weird"}),
        json!({"max_depth": -1}),
    ] {
        s.tool("directory_tree", args);
    }
    for path in [
        ".",
        "src",
        "weird",
        "notes",
        "media",
        "README.md",
        "missing",
        "../outside",
        "deep/a",
        "{run}/extra",
    ] {
        s.tool("list_directory", json!({ "path": path }));
        s.tool("list_directory_with_sizes", json!({ "path": path }));
    }
    s.tool("list_directory", json!({}));
    s.tool("list_directory_with_sizes", json!({"path": "big"}));
}

fn info_calls(s: &mut Session) {
    for path in [
        "README.md",
        "src/main.rs",
        "data/big.json",
        "data/items.json",
        "data/config.json",
        "data/table.csv",
        "data/bad.json",
        "logs/app.log",
        "big/large.txt",
        "notes/empty.txt",
        "notes/crlf.txt",
        "notes/latin1.txt",
        "media/pixel.png",
        "bin/data.bin",
        "src",
        "missing.txt",
        "link_inside.md",
        "link_outside",
        "weird/bad\\xff.txt",
        "notes/long_line.txt",
    ] {
        s.tool("get_file_info", json!({ "path": path }));
    }
    s.tool(
        "get_file_info",
        json!({"paths": ["README.md", "missing.txt", "data/table.csv"]}),
    );
    s.tool(
        "get_file_info",
        json!({"paths": ["missing.txt", "../outside/secret.txt"]}),
    );
    s.tool(
        "get_file_info",
        json!({"path": "README.md", "paths": ["notes/crlf.txt"]}),
    );
    s.tool(
        "get_file_info",
        json!({"paths": "[\"notes/empty.txt\", \"src/lib.rs\"]"}),
    );
    let many: Vec<String> = (0..23).map(|i| format!("many/f{i:02}.txt")).collect();
    s.tool("get_file_info", json!({ "paths": many }));
    s.tool("get_file_info", json!({}));
    s.tool("get_file_info", json!({"paths": []}));
}

fn media_calls(s: &mut Session) {
    for path in [
        "media/pixel.png",
        "media/sound.wav",
        "media/noext",
        "media/blob.bin",
        "README.md",
        "data/config.json",
        "missing.png",
        "media",
        "../outside/secret.txt",
        "bin/data.bin",
    ] {
        s.tool("read_media_file", json!({ "path": path }));
    }
    s.tool("read_media_file", json!({}));
}

fn query_calls(s: &mut Session) {
    for (file, expression) in [
        ("data/config.json", "."),
        ("data/config.json", ".name"),
        ("data/config.json", ".server.ports | length"),
        ("data/config.json", ".server | keys"),
        ("data/items.json", ".[0:2]"),
        ("data/items.json", "map(.id)"),
        (
            "data/items.json",
            ".[] | select(.tags | index(\"b\")) | .name",
        ),
        ("data/items.json", "length"),
        ("data/items.json", ".["),
        ("data/items.json", ".[0].name | tonumber"),
        ("data/items.json", "nosuchfunction(1)"),
        ("data/items.json", "[.[] | .id] | add"),
        ("data/items.json", ".[0] | debug | .id"),
        ("data/big.json", ".items | length"),
        ("data/big.json", ".items[0:2]"),
        ("data/big.json", ".items[] | .id"),
        ("data/big.json", ".meta"),
        ("data/bad.json", "."),
        ("data/config.yaml", "."),
        ("missing.json", "."),
        ("../outside/secret.txt", "."),
        ("src", "."),
        ("notes/empty.txt", "."),
        ("data/lines.jsonl", "."),
    ] {
        s.tool(
            "query_json",
            json!({"file_path": file, "jq_expression": expression}),
        );
    }
    s.tool(
        "query_json",
        json!({"file_path": "data/config.json", "jq_expression": ".name", "timeout": "5"}),
    );
    s.tool(
        "query_json",
        json!({"file_path": "data/config.json", "jq_expression": ".name", "timeout": 601}),
    );
    s.tool("query_json", json!({"file_path": "data/config.json"}));
    for (file, expression) in [
        ("data/config.yaml", "."),
        ("data/config.yaml", ".server.port"),
        ("data/config.yaml", ".server.hosts[]"),
        ("data/multi.yaml", "."),
        ("data/multi.yaml", ".kind"),
        ("data/multi.yaml", "[., input] | length"),
        ("data/bad.yaml", "."),
        ("data/config.json", ".name"),
        ("data/config.yaml", ".server |"),
        ("data/big.yaml", ".items | length"),
        ("missing.yaml", "."),
        ("notes/unicode.txt", "."),
    ] {
        s.tool(
            "query_yaml",
            json!({"file_path": file, "yq_expression": expression}),
        );
    }
}

fn worklog_calls(s: &mut Session) {
    for args in [
        json!({}),
        json!({"output_format": "table"}),
        json!({"file_path": "gsd-lite/WORK.md", "output_format": "json"}),
        json!({"file_path": "missing.md"}),
        json!({"file_path": "README.md", "output_format": "table"}),
        json!({"output_format": "xml"}),
        json!({"file_path": "../outside/secret.txt"}),
    ] {
        s.tool("analyze_gsd_work_log", args);
    }
}

fn protocol_calls(s: &mut Session) {
    s.tool("no_such_tool", json!({}));
    s.tool("list_allowed_directories", json!({"unexpected": 1}));
    s.method("tools/call", json!({"arguments": {}}));
    s.method(
        "tools/call",
        json!({"name": "read_files", "arguments": "not an object"}),
    );
    s.method("tools/list", json!({"cursor": "abc"}));
    s.method("no/such/method", json!({}));
    s.method("resources/list", json!({}));
    s.method("prompts/list", json!({}));
}

fn create_directory_calls(s: &mut Session) {
    for path in [
        "new/dir/deep",
        "new/dir",
        "src",
        "README.md",
        "README.md/child",
        "../outside/new",
        "link_outside/x",
        "",
    ] {
        s.tool("create_directory", json!({ "path": path }));
    }
    s.tool("list_directory", json!({"path": "new/dir"}));
}

fn edit_calls(s: &mut Session) {
    let p = |s: &mut Session, args: Value| {
        s.tool("propose_and_review", args);
    };
    p(
        s,
        json!({"path": "edit/app.py", "match_text": "return a + b", "new_string": "return b + a"}),
    );
    s.read(json!(["edit/app.py"]));
    p(
        s,
        json!({"path": "edit/app.py", "match_text": "return a + b", "new_string": "x"}),
    );
    p(
        s,
        json!({"path": "edit/app.py", "match_text": "def  add(a, b):", "new_string": "def add2(a, b):"}),
    );
    p(
        s,
        json!({"path": "edit/app.py", "match_text": "    return   b + a", "new_string": "    return 0"}),
    );
    p(
        s,
        json!({"path": "edit/app.py", "match_text": "def ADD(a, b):", "new_string": "def add(a, b):"}),
    );
    p(
        s,
        json!({"path": "edit/dup.txt", "match_text": "same line", "new_string": "changed line"}),
    );
    p(
        s,
        json!({"path": "edit/dup.txt", "match_text": "same line", "new_string": "changed line", "expected_replacements": 2}),
    );
    p(
        s,
        json!({"path": "edit/dup.txt", "match_text": "same line", "new_string": "changed line", "expected_replacements": 3}),
    );
    p(
        s,
        json!({"path": "edit/dup.txt", "match_text": "same line", "new_string": "changed line", "expected_replacements": 0}),
    );
    s.read(json!(["edit/dup.txt"]));
    p(
        s,
        json!({"path": "edit/created.txt", "match_text": "", "new_string": "brand new\n"}),
    );
    p(
        s,
        json!({"path": "edit/created.txt", "match_text": "", "new_string": "again\n"}),
    );
    p(
        s,
        json!({"path": "edit/created.txt", "match_text": "OVERWRITE_FILE", "new_string": "overwritten\n"}),
    );
    p(
        s,
        json!({"path": "edit/created.txt", "match_text": "APPEND_TO_FILE", "new_string": "appended\n"}),
    );
    p(
        s,
        json!({"path": "edit/nested/new/file.txt", "match_text": "", "new_string": "deep\n"}),
    );
    s.read(json!(["edit/created.txt", "edit/nested/new/file.txt"]));
    p(
        s,
        json!({"path": "edit/crlf.txt", "match_text": "second", "new_string": "2nd\nand more"}),
    );
    s.tool("get_file_info", json!({"path": "edit/crlf.txt"}));
    s.read(json!(["edit/crlf.txt"]));
    p(
        s,
        json!({"path": "edit/app.py", "edits": [
            {"match_text": "def sub(a, b):", "new_string": "def subtract(a, b):"},
            {"match_text": "return a - b", "new_string": "return a - b  # checked"}
        ]}),
    );
    p(
        s,
        json!({"path": "edit/app.py", "edits": [
            {"match_text": "def subtract(a, b):", "new_string": "def sub(a, b):"},
            {"match_text": "not in the file", "new_string": "x"}
        ]}),
    );
    p(
        s,
        json!({"path": "edit/multi_a.txt", "edits": [
            {"match_text": "alpha", "new_string": "ALPHA"},
            {"path": "edit/multi_b.txt", "match_text": "beta", "new_string": "BETA"}
        ]}),
    );
    s.read(json!(["edit/multi_a.txt", "edit/multi_b.txt"]));
    p(
        s,
        json!({"path": "edit/multi_a.txt", "edits": [
            {"match_text": "ALPHA", "new_string": "alpha"},
            {"path": "edit/multi_b.txt", "match_text": "gamma-missing", "new_string": "x"}
        ]}),
    );
    p(
        s,
        json!({"path": "edit/multi_a.txt", "edits": [
            {"match_text": "ALPHA", "new_string": "alpha"},
            {"path": "../outside/secret.txt", "match_text": "secret", "new_string": "x"}
        ]}),
    );
    p(
        s,
        json!({"path": "edit/multi_a.txt", "edits": [
            {"match_text": "ALPHA", "new_string": "alpha"},
            {"path": "edit/missing.txt", "match_text": "x", "new_string": "y"}
        ]}),
    );
    p(s, json!({"path": "edit/multi_a.txt", "edits": []}));
    p(
        s,
        json!({"path": "edit/app.py", "match_text": "x", "new_string": "y", "edits": [{"match_text": "a", "new_string": "b"}]}),
    );
    p(
        s,
        json!({"path": "edit/app.py", "match_text": "def add", "new_string": "def add"}),
    );
    p(
        s,
        json!({"path": "edit/app.py", "match_text": "a".repeat(2001), "new_string": "b"}),
    );
    p(
        s,
        json!({"path": "edit/app.py", "match_text": "a".repeat(2001), "new_string": "b", "bypass_match_text_limit": true}),
    );
    p(
        s,
        json!({"path": "edit/missing.py", "match_text": "x", "new_string": "y"}),
    );
    p(
        s,
        json!({"path": "../outside/secret.txt", "match_text": "secret", "new_string": "x"}),
    );
    p(
        s,
        json!({"path": "link_outside", "match_text": "secret", "new_string": "x"}),
    );
    p(
        s,
        json!({"path": "bin/data.bin", "match_text": "PAYLOAD", "new_string": "x"}),
    );
    p(
        s,
        json!({"path": "edit", "match_text": "x", "new_string": "y"}),
    );
    p(s, json!({"path": "edit/app.py", "match_text": "def add"}));
    p(s, json!({"path": "edit/app.py"}));
    p(
        s,
        json!({"path": "edit/app.py", "session_path": "/tmp/not-a-session"}),
    );
    p(
        s,
        json!({"path": "edit/app.py", "session_path": "/tmp/not-a-session", "match_text": "a", "new_string": "b"}),
    );
    p(
        s,
        json!({"path": "edit/near.py", "match_text": "if x:\n  return 1", "new_string": "if x:\n    return 2"}),
    );
    p(
        s,
        json!({"path": "edit/near.py", "match_text": "if  y :", "new_string": "if y:"}),
    );
    p(
        s,
        json!({"path": "edit/app.py", "match_text": "x", "new_string": "y", "expected_replacements": "1"}),
    );
    p(s, json!({"match_text": "x", "new_string": "y"}));
    s.tool(
        "commit_review",
        json!({"session_path": "/tmp/not-a-session", "original_path": "edit/app.py"}),
    );
    s.tool(
        "commit_review",
        json!({"session_path": "{run}/tmp/nothing", "original_path": "edit/app.py"}),
    );
    s.tool("commit_review", json!({"original_path": "edit/app.py"}));
    s.tool("commit_review", json!({}));
    s.read(json!(["edit/app.py", "edit/near.py"]));
}

fn write_calls(s: &mut Session) {
    s.tool(
        "write_file",
        json!({"path": "w/new.txt", "content": "one\ntwo\n"}),
    );
    s.tool(
        "write_file",
        json!({"path": "w/new.txt", "content": "replaced"}),
    );
    s.tool("write_file", json!({"path": "w/a/b/c.txt", "content": ""}));
    s.tool(
        "write_file",
        json!({"path": "../outside/w.txt", "content": "x"}),
    );
    s.tool("write_file", json!({"path": "src", "content": "x"}));
    s.tool("write_file", json!({"path": "w/new.txt"}));
    s.tool(
        "append_text",
        json!({"path": "w/new.txt", "content": "appended"}),
    );
    s.tool(
        "append_text",
        json!({"path": "w/new.txt", "content": "again\n"}),
    );
    s.tool(
        "append_text",
        json!({"path": "w/fresh.txt", "content": "first"}),
    );
    s.tool(
        "append_text",
        json!({"path": "../outside/secret.txt", "content": "x"}),
    );
    s.tool("append_text", json!({"path": "src", "content": "x"}));
    s.read(json!(["w/new.txt", "w/fresh.txt", "w/a/b/c.txt"]));
    s.tool(
        "move_file",
        json!({"source": "w/fresh.txt", "destination": "w/moved.txt"}),
    );
    s.tool(
        "move_file",
        json!({"source": "w/fresh.txt", "destination": "w/moved2.txt"}),
    );
    s.tool(
        "move_file",
        json!({"source": "w/moved.txt", "destination": "w/new.txt"}),
    );
    s.tool(
        "move_file",
        json!({"source": "w/moved.txt", "destination": "w/sub/dir/moved.txt"}),
    );
    s.tool("move_file", json!({"source": "w/a", "destination": "w/a2"}));
    s.tool(
        "move_file",
        json!({"source": "w/new.txt", "destination": "../outside/new.txt"}),
    );
    s.tool(
        "move_file",
        json!({"source": "../outside/secret.txt", "destination": "w/secret.txt"}),
    );
    s.tool(
        "move_file",
        json!({"source": "w/new.txt", "destination": "w/new.txt"}),
    );
    s.tool("move_file", json!({"source": "w/new.txt"}));
    s.tool("directory_tree", json!({"path": "w"}));
    s.tool("list_directory_with_sizes", json!({"path": "w"}));
    s.tool("search_files", json!({"pattern": "*.txt", "path": "w"}));
    s.tool(
        "grep_content",
        json!({"pattern": "appended|replaced", "search_path": "w"}),
    );
    s.tool("get_file_info", json!({"path": "w/new.txt"}));
}

/// Small caps, so what is cut and the notes that say so show in few bytes.
fn limits_session() -> Session {
    let mut s = Session::new(
        "limits",
        &["--max-reply-bytes", "4096", "--max-line-bytes", "256"],
    );
    s.read(json!([{"path": "big/large.txt", "head": 500}]));
    s.read(json!([{"path": "big/large.txt", "tail": 300}]));
    s.read(json!([{"path": "big/large.txt", "start_line": 10, "end_line": 400}]));
    s.read(json!([{"path": "big/large.txt", "start_line": 10, "read_to_next_pattern": "^never$"}]));
    s.read(json!([{"path": "notes/long_line.txt", "head": 2}]));
    s.read(json!([{"path": "notes/long_line.txt", "tail": 2}]));
    s.read(json!([{"path": "notes/long_line.txt", "start_line": 1, "end_line": 1}]));
    s.read(json!([{"path": "notes/long_line.txt"}]));
    s.tool(
        "read_files",
        json!({"files": [{"path": "notes/long_line.txt", "head": 2}], "large_file_passthrough": true}),
    );
    s.tool(
        "read_files",
        json!({"files": [{"path": "data/big.json", "head": 3}], "large_file_passthrough": true}),
    );
    s.tool(
        "read_files",
        json!({"files": ["data/big.json"], "large_file_passthrough": true}),
    );
    s.tool("read_files", json!({"files": ["big/large.txt"]}));
    let many: Vec<Value> = (0..30)
        .map(|i| json!({"path": format!("many/f{:02}.txt", i % 23)}))
        .collect();
    s.read(json!(many));
    s.read(json!([{"path": "logs/app.log"}, {"path": "big/large.txt", "head": 200}, "README.md"]));
    s.tool(
        "grep_content",
        json!({"pattern": "x", "search_path": "notes/long_line.txt"}),
    );
    s
}

/// The default tiers: the next steps name only the tools listed here.
fn core_session() -> Session {
    let mut s = Session::new("core", &[]);
    s.method("tools/list", json!({}));
    s.read(json!(["missing.txt"]));
    s.read(json!(["data/big.json"]));
    s.read(json!(["big/large.txt"]));
    s.tool("get_file_info", json!({"path": "logs/app.log"}));
    s.tool("get_file_info", json!({"path": "missing.txt"}));
    s.tool("read_media_file", json!({"path": "missing.png"}));
    s.tool("read_media_file", json!({"path": "README.md"}));
    s.tool("write_file", json!({"path": "w.txt", "content": "x"}));
    s.tool("list_directory", json!({"path": "."}));
    s.tool(
        "grep_content",
        json!({"pattern": "TODO", "search_path": "missing"}),
    );
    s.tool(
        "query_json",
        json!({"file_path": "missing.json", "jq_expression": "."}),
    );
    // No form, no review program: the review page's link, at once.
    s.tool(
        "propose_and_review",
        json!({"path": "edit/page.txt", "match_text": "", "new_string": "for the page\n"}),
    );
    s.tool(
        "propose_and_review",
        json!({"path": "page/one.txt", "match_text": "old", "new_string": "new"}),
    );
    s.tool(
        "commit_review",
        json!({"session_path": "/tmp/not-a-session", "original_path": "edit/app.py"}),
    );
    s
}

fn read_only_session() -> Session {
    let mut s = Session::new("read-only", &["--read-only"]);
    s.method("tools/list", json!({}));
    s.tool("create_directory", json!({"path": "ro"}));
    s.tool(
        "propose_and_review",
        json!({"path": "README.md", "match_text": "Fixture", "new_string": "x"}),
    );
    s.tool("write_file", json!({"path": "ro.txt", "content": "x"}));
    s.read(json!(["missing.txt", "data/big.json"]));
    s.tool("get_file_info", json!({"path": "logs/app.log"}));
    s
}

fn disabled_session(name: &'static str, tools: &'static str) -> Session {
    let mut s = Session::new(name, &["--disable-tools", tools]);
    s.method("tools/list", json!({}));
    s.read(json!(["missing.txt"]));
    s.tool("read_media_file", json!({"path": "missing.png"}));
    s.tool("read_media_file", json!({"path": "media/blob.bin"}));
    s.tool("get_file_info", json!({"path": "missing.txt"}));
    s.tool("get_file_info", json!({"path": "logs/app.log"}));
    s.tool(
        "query_json",
        json!({"file_path": "missing.json", "jq_expression": "."}),
    );
    s.tool("analyze_gsd_work_log", json!({"file_path": "missing.md"}));
    s.tool(
        "propose_and_review",
        json!({"path": "missing.py", "match_text": "x", "new_string": "y"}),
    );
    s.tool("list_directory_with_sizes", json!({"path": "missing"}));
    s.tool("directory_tree", json!({"path": "missing"}));
    s
}

fn profile_session(name: &'static str, profile: &str, client: &'static str) -> Session {
    let mut s = Session::new(name, &["--schema-profile", profile]);
    s.client_name = client;
    s.method("tools/list", json!({}));
    s.tool(
        "read_files",
        json!({"files": [{"path": "README.md", "head": 1}]}),
    );
    s
}

/// A client that declares MCP Apps (#34).
fn app_session() -> Session {
    let mut s = Session::new("app", &["--auto-approve"]);
    s.capabilities = json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}});
    s.method("tools/list", json!({}));
    s.method("resources/list", json!({}));
    s.tool("propose_and_review", json!({"path": "edit/app_view.txt", "match_text": "", "new_string": "made in the app session\n"}));
    s.method(
        "resources/read",
        json!({"uri": "ui://fs-mcp-rs/review.html"}),
    );
    s.method(
        "resources/read",
        json!({"uri": "ui://fs-mcp-rs/nothing.html"}),
    );
    s.tool(
        "submit_review_verdict",
        json!({"review": "0123", "action": "approve"}),
    );
    s.tool(
        "submit_review_verdict",
        json!({"token": "0123", "verdict": "approve"}),
    );
    s
}

/// A client that declares MCP Apps, without --auto-approve: the proposal waits in the view.
fn app_review_session() -> Session {
    let mut s = Session::new("app-review", &[]);
    s.capabilities = json!({"extensions": {"io.modelcontextprotocol/ui": {}}});
    s.tool(
        "propose_and_review",
        json!({"path": "view/one.txt", "match_text": "old", "new_string": "new"}),
    );
    s.tool(
        "propose_and_review",
        json!({"path": "view/a.txt", "edits": [
            {"match_text": "alpha", "new_string": "ALPHA"},
            {"path": "view/b.txt", "match_text": "beta", "new_string": "BETA"}
        ]}),
    );
    s.tool(
        "submit_review_verdict",
        json!({"review": "ffffffffffffffffffffffffffffffff", "action": "reject", "comment": "no"}),
    );
    s
}

// ---------------------------------------------------------------------------------------------
// The fixture

/// Builds the run's folders: `ws/` (the workspace, the server's current directory), `extra/` (a
/// second allowed directory), `outside/` (never allowed), `tmp/` (the servers' TMPDIR).
pub fn build_fixture(run: &Path) -> io::Result<()> {
    let ws = run.join("ws");
    for dir in ["ws", "extra", "outside", "tmp"] {
        fs::create_dir_all(run.join(dir))?;
    }
    let file = |rel: &str, bytes: &[u8]| -> io::Result<()> {
        let path = ws.join(rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::write(path, bytes)
    };
    file(
        "README.md",
        b"# Fixture\n\nA workspace for the recorded run.\n\nTODO: nothing.\n",
    )?;
    file("src/main.rs", MAIN_RS.as_bytes())?;
    file("src/lib.rs", LIB_RS.as_bytes())?;
    file(
        "src/util/strings.rs",
        b"pub fn shout(s: &str) -> String {\n    s.to_uppercase() // TODO: locale\n}\n",
    )?;
    file("notes/crlf.txt", b"one\r\ntwo\r\nthree\r\n")?;
    file(
        "notes/no_newline.txt",
        b"first\nlast line without a newline",
    )?;
    file("notes/empty.txt", b"")?;
    file(
        "notes/unicode.txt",
        "héllo wörld\n日本語のテキスト\nemoji 🎉 end\n".as_bytes(),
    )?;
    file("notes/trailing_blank.txt", b"a\n\n\n")?;
    file(
        "notes/latin1.txt",
        b"caf\xe9 au lait\nline two\nline three\n",
    )?;
    let mut long = "x".repeat(20_000);
    long.push_str("\nshort line\n");
    file("notes/long_line.txt", long.as_bytes())?;
    let mut log = String::new();
    for i in 1..=500 {
        let level = if i % 50 == 0 { "ERROR" } else { "INFO" };
        log.push_str(&format!("line {i:04} {level} request {} served\n", i * 7));
    }
    file("logs/app.log", log.as_bytes())?;
    let mut large = String::new();
    for i in 1..=6000 {
        large.push_str(&format!(
            "large file line {i:05} with some filler text to pad it\n"
        ));
    }
    file("big/large.txt", large.as_bytes())?;
    file("data/config.json", br#"{"name": "replay", "version": 3, "server": {"ports": [80, 443], "tls": true}, "tags": ["a", "b"]}
"#)?;
    let items: Vec<Value> = (1..=12)
        .map(|i| json!({"id": i, "name": format!("item-{i}"), "tags": if i % 3 == 0 { json!(["a", "b"]) } else { json!(["a"]) }}))
        .collect();
    file(
        "data/items.json",
        serde_json::to_string_pretty(&items)
            .unwrap_or_default()
            .as_bytes(),
    )?;
    let big_items: Vec<Value> = (0..2000)
        .map(|i| json!({"id": i, "label": format!("entry number {i}"), "ok": i % 2 == 0}))
        .collect();
    let big = json!({"meta": {"count": 2000, "source": "fixture"}, "users": [{"id": 1}], "items": big_items});
    file(
        "data/big.json",
        serde_json::to_string_pretty(&big)
            .unwrap_or_default()
            .as_bytes(),
    )?;
    let mut big_yaml = String::from("meta:\n  count: 3000\nitems:\n");
    for i in 0..3000 {
        big_yaml.push_str(&format!("  - id: {i}\n    label: entry number {i}\n"));
    }
    file("data/big.yaml", big_yaml.as_bytes())?;
    file("data/bad.json", b"{\"a\": 1,, \"b\": }\n")?;
    file("data/lines.jsonl", b"{\"a\": 1}\n{\"a\": 2}\n")?;
    file("data/config.yaml", b"name: replay\nserver:\n  port: 8080\n  hosts:\n    - alpha\n    - beta\n# TODO: more hosts\n")?;
    file(
        "data/multi.yaml",
        b"kind: first\nvalue: 1\n---\nkind: second\nvalue: 2\n",
    )?;
    file("data/bad.yaml", b"a: [1, 2\nb: : :\n")?;
    file(
        "data/table.csv",
        b"id,name,score\n1,ann,3.5\n2,bob,4\n3,cy,5\n",
    )?;
    file("media/pixel.png", PIXEL_PNG)?;
    file("media/noext", PIXEL_PNG)?;
    file("media/sound.wav", &wav())?;
    let blob: Vec<u8> = (0..600u32).map(|i| (i * 37 % 251) as u8).collect();
    file("media/blob.bin", &blob)?;
    file("bin/data.bin", b"\x00\x01PAYLOAD\x00\xff\xfe binary\n")?;
    file("weird/tab\tname.txt", b"tab name\n")?;
    file("weird/x\n[FILE] fake.txt", b"newline name\n")?;
    fs::write(
        ws.join("weird")
            .join(std::ffi::OsStr::from_bytes(b"bad\xff.txt")),
        b"bad name\n",
    )?;
    file(".hidden/secret.txt", b"a hidden secret\n")?;
    file(".env", b"SECRET=1\n")?;
    file(".gitignore", b"ignored/\n*.tmp\n")?;
    file(".git/HEAD", b"ref: refs/heads/main\n")?;
    file("ignored/skip.txt", b"TODO ignored\n")?;
    file("scratch.tmp", b"TODO scratch\n")?;
    file(
        "node_modules/pkg/index.js",
        b"module.exports = 1; // TODO\n",
    )?;
    file("deep/a/b/c/d/e/f.txt", b"deep\n")?;
    file("gsd-lite/WORK.md", WORK_LOG.as_bytes())?;
    for i in 0..23 {
        file(
            &format!("many/f{i:02}.txt"),
            format!("file {i}\n").as_bytes(),
        )?;
    }
    file(
        "edit/app.py",
        b"def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",
    )?;
    file("edit/dup.txt", b"same line\nother\nsame line\n")?;
    file("edit/crlf.txt", b"first\r\nsecond\r\nthird\r\n")?;
    file("edit/multi_a.txt", b"alpha\n")?;
    file("edit/multi_b.txt", b"beta\n")?;
    file("edit/near.py", b"if x:\n    return 1\nif y:\n    pass\n")?;
    // Proposed to by the sessions after main (which edits edit/).
    file("view/one.txt", b"the old line\n")?;
    file("view/a.txt", b"alpha\n")?;
    file("view/b.txt", b"beta\n")?;
    file("page/one.txt", b"the old line\n")?;
    fs::write(run.join("outside/secret.txt"), b"outside secret TODO\n")?;
    fs::write(run.join("extra/other.txt"), b"other allowed dir\n")?;
    std::os::unix::fs::symlink("README.md", ws.join("link_inside.md"))?;
    std::os::unix::fs::symlink(run.join("outside/secret.txt"), ws.join("link_outside"))?;
    std::os::unix::fs::symlink("nowhere.txt", ws.join("dangling_link"))?;
    std::os::unix::fs::symlink(run.join("extra"), ws.join("extra_link"))?;
    for dir in ["ws", "extra", "outside"] {
        date_tree(&run.join(dir))?;
    }
    Ok(())
}

/// Dates every file and directory under `dir` (children first, so a directory's date stays).
fn date_tree(dir: &Path) -> io::Result<()> {
    let at = SystemTime::UNIX_EPOCH + Duration::from_secs(FIXTURE_MTIME_SECS);
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        if kind.is_dir() {
            date_tree(&entry.path())?;
        } else if kind.is_file() {
            fs::File::options()
                .write(true)
                .open(entry.path())?
                .set_modified(at)?;
        }
    }
    fs::File::open(dir)?.set_times(fs::FileTimes::new().set_modified(at).set_accessed(at))
}

const MAIN_RS: &str = "use std::env;

// TODO: parse flags properly
fn main() {
    let args: Vec<String> = env::args().collect();
    println!(\"{}\", greet(&args));
}

fn greet(args: &[String]) -> String {
    format!(\"hello {}\", args.len())
}

struct Config {
    retries: u32,
}

impl Config {
    fn retry(&self) -> u32 {
        self.retries // TODO: backoff
    }
}
";

const LIB_RS: &str = "//! A small library.

pub fn helper(x: i32) -> i32 {
    x * 2
}

pub fn other_helper(x: i32) -> i32 {
    helper(x) + 1
}
";

const WORK_LOG: &str = include_str!("../../../tests/fixtures/gsd_work_log.md");

/// A 1x1 PNG.
const PIXEL_PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0xf8, 0xcf, 0xc0, 0xf0,
    0x1f, 0x00, 0x05, 0x00, 0x01, 0xff, 0x89, 0x99, 0x3d, 0x1d, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45,
    0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// A short silent WAV (8 kHz, 8-bit mono, 16 samples).
fn wav() -> Vec<u8> {
    let samples = [128u8; 16];
    let mut out = Vec::new();
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + samples.len() as u32).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&8000u32.to_le_bytes());
    out.extend_from_slice(&8000u32.to_le_bytes());
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&8u16.to_le_bytes());
    out.extend_from_slice(b"data");
    out.extend_from_slice(&(samples.len() as u32).to_le_bytes());
    out.extend_from_slice(&samples);
    out
}

// ---------------------------------------------------------------------------------------------
// Running it

/// Runs the whole script against `binary` in a fresh fixture and returns one record per call:
/// `{"session", "call", "request", "answer"}`, the answer normalized.
pub fn run(binary: &Path) -> Result<Vec<Value>, String> {
    // The servers run in the workspace: a relative path would name another file there.
    let binary = fs::canonicalize(binary)
        .map_err(|e| format!("cannot find the binary {}: {e}", binary.display()))?;
    let binary = binary.as_path();
    let run_dir = fresh_run_dir().map_err(|e| format!("cannot make the run's folder: {e}"))?;
    let result = run_in(binary, &run_dir);
    let _ = fs::remove_dir_all(&run_dir);
    result
}

fn fresh_run_dir() -> io::Result<PathBuf> {
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or_default();
    let dir = std::env::temp_dir().join(format!("fs-mcp-replay-{}-{nanos}", std::process::id()));
    fs::create_dir_all(&dir)?;
    fs::canonicalize(&dir)
}

fn run_in(binary: &Path, run_dir: &Path) -> Result<Vec<Value>, String> {
    build_fixture(run_dir).map_err(|e| format!("cannot build the fixture: {e}"))?;
    let normalizer = Normalizer::new(run_dir);
    let run_text = run_dir.to_string_lossy().into_owned();
    let fill = |value: &Value| -> Value { fill_placeholders(value, &run_text) };
    let mut records = Vec::new();
    for session in script() {
        let args: Vec<String> = session
            .args
            .iter()
            .map(|a| a.replace("{run}", &run_text))
            .collect();
        let mut client = Client::start(binary, &run_dir.join("ws"), &args, &run_dir.join("tmp"))
            .map_err(|e| {
                format!(
                    "session {}: cannot start {}: {e}",
                    session.name,
                    binary.display()
                )
            })?;
        let initialize = json!({
            "protocolVersion": "2025-06-18",
            "capabilities": session.capabilities,
            "clientInfo": {"name": session.client_name, "version": "1"},
        });
        let answer = client
            .request("initialize", initialize.clone())
            .map_err(|e| format!("session {}: initialize: {e}", session.name))?;
        records.push(record(
            session.name,
            0,
            json!({"method": "initialize", "params": initialize, "args": session.args}),
            normalizer.answer(&answer),
        ));
        client
            .notify("notifications/initialized")
            .map_err(|e| format!("session {}: {e}", session.name))?;
        for (n, (method, params)) in session.calls.iter().enumerate() {
            let answer = client
                .request(method, fill(params))
                .map_err(|e| format!("session {} call {}: {method}: {e}", session.name, n + 1))?;
            records.push(record(
                session.name,
                n + 1,
                json!({"method": method, "params": params}),
                normalizer.answer(&answer),
            ));
        }
        client.finish();
    }
    Ok(records)
}

fn record(session: &str, call: usize, request: Value, answer: Value) -> Value {
    json!({"session": session, "call": call, "request": request, "answer": answer})
}

/// `{root}` and `{run}` in the script's strings, as the run's folders.
fn fill_placeholders(value: &Value, run: &str) -> Value {
    match value {
        Value::String(s) => Value::String(
            s.replace("{root}", &format!("{run}/ws"))
                .replace("{run}", run),
        ),
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| fill_placeholders(v, run)).collect())
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), fill_placeholders(v, run)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// A stdio MCP client: one JSON message a line; requests from the server are answered so it
/// never waits on us.
struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: u64,
}

impl Client {
    fn start(binary: &Path, cwd: &Path, args: &[String], tmp: &Path) -> io::Result<Client> {
        let mut child = Command::new(binary)
            .args(args)
            .current_dir(cwd)
            .env("TMPDIR", tmp)
            // No review program (`code`) is found: a proposal without --auto-approve gets the
            // review page, on every machine.
            .env("PATH", tmp)
            .env_remove("RUST_LOG")
            .env_remove("FS_MCP_HTTP_TOKEN")
            .env_remove("FS_MCP_QUERY_PLANNER")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| io::Error::other("no stdout pipe"))?;
        let stdin = child.stdin.take();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Client {
            child,
            stdin,
            lines: rx,
            next_id: 1,
        })
    }

    fn send(&mut self, message: &Value) -> Result<(), String> {
        let stdin = self.stdin.as_mut().ok_or("stdin closed")?;
        writeln!(stdin, "{message}")
            .and_then(|()| stdin.flush())
            .map_err(|e| format!("cannot write to the server: {e}"))
    }

    fn notify(&mut self, method: &str) -> Result<(), String> {
        self.send(&json!({"jsonrpc": "2.0", "method": method}))
    }

    /// The reply to a request without `jsonrpc` and `id`: `{"result": …}` or `{"error": …}`.
    fn request(&mut self, method: &str, params: Value) -> Result<Value, String> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        let deadline = Instant::now() + ANSWER_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => return Err("no answer in time".into()),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err("the server closed stdout".into());
                }
            };
            let message: Value = serde_json::from_str(&line)
                .map_err(|e| format!("stdout line is not JSON ({e}): {line}"))?;
            let is_request = message.get("method").is_some();
            match (message.get("id"), is_request) {
                (Some(got), false) if got == &json!(id) => {
                    let mut answer = message;
                    if let Some(fields) = answer.as_object_mut() {
                        fields.remove("jsonrpc");
                        fields.remove("id");
                    }
                    return Ok(answer);
                }
                (Some(request_id), true) => {
                    let reply = if message["method"] == "ping" {
                        json!({"jsonrpc": "2.0", "id": request_id, "result": {}})
                    } else {
                        json!({"jsonrpc": "2.0", "id": request_id,
                            "error": {"code": -32601, "message": "not supported by the replay client"}})
                    };
                    self.send(&reply)?;
                }
                // Notifications and stale replies.
                _ => {}
            }
        }
    }

    fn finish(mut self) {
        self.stdin = None;
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Normalizing

/// What legitimately differs between two runs, and nothing else: the read_files frame tag, the
/// run's folders, the review sessions' random names and tokens, and dates other than the
/// fixture's.
pub struct Normalizer {
    run: String,
}

impl Normalizer {
    /// The normalizer of a run in the folder `run`.
    pub fn new(run: &Path) -> Normalizer {
        Normalizer {
            run: run.to_string_lossy().into_owned(),
        }
    }

    /// The answer with every string normalized, its keys in sorted order.
    pub fn answer(&self, answer: &Value) -> Value {
        let tags = frame_tags(answer);
        self.walk(answer, &tags)
    }

    fn walk(&self, value: &Value, tags: &[String]) -> Value {
        match value {
            Value::String(s) => Value::String(self.text(s, tags)),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.walk(v, tags)).collect()),
            Value::Object(map) => {
                let sorted: BTreeMap<&String, &Value> = map.iter().collect();
                let mut out = Map::new();
                for (k, v) in sorted {
                    out.insert(k.clone(), self.walk(v, tags));
                }
                Value::Object(out)
            }
            other => other.clone(),
        }
    }

    fn text(&self, s: &str, tags: &[String]) -> String {
        let mut out = s.replace(&format!("{}/ws", self.run), "<ROOT>");
        out = out.replace(&self.run, "<RUN>");
        for tag in tags {
            out = out.replace(tag.as_str(), "[TAG]");
        }
        out = replace_after(&out, "fs-mcp-rs-reviews-", 8, is_alnum, "<R>");
        out = replace_after(&out, "/s-", 32, is_hex, "<SESSION>");
        out = replace_hex_runs(&out, 32, "<HEX>");
        out = replace_port(&out);
        replace_dates(&out)
    }
}

/// The frame tags of a read_files reply: `[` 8 lowercase hex digits `]` opening a text.
fn frame_tags(answer: &Value) -> Vec<String> {
    let mut tags = Vec::new();
    let Some(content) = answer.pointer("/result/content").and_then(Value::as_array) else {
        return tags;
    };
    for item in content {
        if let Some(text) = item.get("text").and_then(Value::as_str)
            && let Some(tag) = text.get(..10)
            && tag.starts_with('[')
            && tag.ends_with(']')
            && tag[1..9]
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            && !tags.iter().any(|t| t == tag)
        {
            tags.push(tag.to_string());
        }
    }
    tags
}

fn is_alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

fn is_hex(b: u8) -> bool {
    b.is_ascii_hexdigit()
}

/// Replaces the `len` characters after each `marker` when all of them pass `keep`.
fn replace_after(s: &str, marker: &str, len: usize, keep: fn(u8) -> bool, with: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find(marker) {
        let after = at + marker.len();
        out.push_str(&rest[..after]);
        rest = &rest[after..];
        let bytes = rest.as_bytes();
        if bytes.len() >= len && bytes[..len].iter().all(|&b| keep(b)) {
            out.push_str(with);
            rest = &rest[len..];
        }
    }
    out.push_str(rest);
    out
}

/// The review page's port (a free one, drawn by the system): `http://127.0.0.1:<PORT>`.
fn replace_port(s: &str) -> String {
    const MARKER: &str = "http://127.0.0.1:";
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find(MARKER) {
        let after = at + MARKER.len();
        out.push_str(&rest[..after]);
        rest = &rest[after..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 {
            out.push_str("<PORT>");
            rest = &rest[digits..];
        }
    }
    out.push_str(rest);
    out
}

/// Replaces each run of exactly `len` lowercase hex digits (a random token) with `with`.
fn replace_hex_runs(s: &str, len: usize, with: &str) -> String {
    let bytes = s.as_bytes();
    let is_lower_hex = |b: u8| b.is_ascii_digit() || (b'a'..=b'f').contains(&b);
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    let mut copied = 0;
    while i < bytes.len() {
        if is_lower_hex(bytes[i]) {
            let start = i;
            while i < bytes.len() && is_lower_hex(bytes[i]) {
                i += 1;
            }
            if i - start == len {
                out.push_str(&s[copied..start]);
                out.push_str(with);
                copied = i;
            }
        } else {
            i += 1;
        }
    }
    out.push_str(&s[copied..]);
    out
}

/// Replaces each RFC 3339 UTC date (`2026-11-28T23:01:02Z`, fractions allowed) other than the
/// fixture's with `<DATE>`.
fn replace_dates(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut copied = 0;
    let mut i = 0;
    while i + 20 <= bytes.len() {
        if let Some(len) = date_at(&bytes[i..]) {
            if &s[i..i + len] != FIXTURE_DATE {
                out.push_str(&s[copied..i]);
                out.push_str("<DATE>");
                copied = i + len;
            }
            i += len;
        } else {
            i += 1;
        }
    }
    out.push_str(&s[copied..]);
    out
}

/// The length of the date starting at `b`, if one does.
fn date_at(b: &[u8]) -> Option<usize> {
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    let shape = digits(0..4)
        && b.get(4) == Some(&b'-')
        && digits(5..7)
        && b.get(7) == Some(&b'-')
        && digits(8..10)
        && b.get(10) == Some(&b'T')
        && digits(11..13)
        && b.get(13) == Some(&b':')
        && digits(14..16)
        && b.get(16) == Some(&b':')
        && digits(17..19);
    if !shape {
        return None;
    }
    let mut end = 19;
    if b.get(end) == Some(&b'.') {
        end += 1;
        while b.get(end).is_some_and(u8::is_ascii_digit) {
            end += 1;
        }
    }
    match b.get(end) {
        Some(b'Z') => Some(end + 1),
        Some(b'+') if b.get(end + 1..end + 6) == Some(b"00:00") => Some(end + 6),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// The recording and comparing with it

/// The records as JSON lines.
pub fn to_jsonl(records: &[Value]) -> String {
    let mut out = String::new();
    for record in records {
        out.push_str(&record.to_string());
        out.push('\n');
    }
    out
}

/// Reads a recording.
pub fn parse_jsonl(text: &str) -> Result<Vec<Value>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(n, line)| {
            serde_json::from_str(line).map_err(|e| format!("line {} of the recording: {e}", n + 1))
        })
        .collect()
}

/// How the run differs from the recording: one readable entry per differing call (at most
/// `show` of them in full), empty when the two agree.
pub fn compare(recorded: &[Value], now: &[Value], show: usize) -> Vec<String> {
    let mut diffs = Vec::new();
    if recorded.len() != now.len() {
        diffs.push(format!(
            "the recording has {} calls, this run {}: the script changed, record it again (cargo xtask replay record)",
            recorded.len(),
            now.len()
        ));
    }
    for (old, new) in recorded.iter().zip(now) {
        let label = format!(
            "{} call {}",
            old["session"].as_str().unwrap_or("?"),
            old["call"]
        );
        if old["session"] != new["session"] || old["request"] != new["request"] {
            diffs.push(format!(
                "{label}: the request differs: the script changed, record it again (cargo xtask replay record)\n  recorded: {}\n  now:      {}",
                old["request"], new["request"]
            ));
            continue;
        }
        if old["answer"] != new["answer"] {
            if diffs.len() >= show {
                diffs.push(format!("{label}: {} differs", describe(&old["request"])));
                continue;
            }
            diffs.push(format!(
                "{label}: {} differs\n{}",
                describe(&old["request"]),
                line_diff(&readable(&old["answer"]), &readable(&new["answer"]))
            ));
        }
    }
    diffs
}

fn describe(request: &Value) -> String {
    match request["method"].as_str() {
        Some("tools/call") => format!(
            "tools/call {} {}",
            request["params"]["name"].as_str().unwrap_or("?"),
            request["params"]["arguments"]
        ),
        Some(method) => format!("{method} {}", request["params"]),
        None => request.to_string(),
    }
}

/// The answer as lines `path: value`, a string's lines each on a line of its own, so a diff
/// points at the line of text that changed.
pub fn readable(value: &Value) -> Vec<String> {
    let mut lines = Vec::new();
    flatten("", value, &mut lines);
    lines
}

fn flatten(path: &str, value: &Value, lines: &mut Vec<String>) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (k, v) in map {
                flatten(&format!("{path}.{k}"), v, lines);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for (i, v) in items.iter().enumerate() {
                flatten(&format!("{path}[{i}]"), v, lines);
            }
        }
        Value::Object(map) if map.is_empty() => lines.push(format!("{path}: {{}}")),
        Value::Array(items) if items.is_empty() => lines.push(format!("{path}: []")),
        Value::String(s) if s.contains('\n') => {
            for line in s.split('\n') {
                lines.push(format!("{path} | {line}"));
            }
        }
        other => lines.push(format!("{path}: {other}")),
    }
}

/// The lines that differ, with two lines of context (a plain longest-common-subsequence diff;
/// answers are short).
fn line_diff(old: &[String], new: &[String]) -> String {
    let (n, m) = (old.len(), new.len());
    if n * m > 4_000_000 {
        return format!("  (too long to diff: {n} and {m} lines)");
    }
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if old[i] == new[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut ops: Vec<(char, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && old[i] == new[j] {
            ops.push((' ', &old[i]));
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            ops.push(('+', &new[j]));
            j += 1;
        } else {
            ops.push(('-', &old[i]));
            i += 1;
        }
    }
    let near = |k: usize| {
        ops[k.saturating_sub(2)..(k + 3).min(ops.len())]
            .iter()
            .any(|(op, _)| *op != ' ')
    };
    let mut out = String::new();
    let mut skipped = false;
    for (k, (op, line)) in ops.iter().enumerate() {
        if near(k) {
            if skipped {
                out.push_str("  …\n");
                skipped = false;
            }
            let shown: String = line.chars().take(300).collect();
            out.push_str(&format!("  {op} {shown}\n"));
        } else {
            skipped = true;
        }
    }
    out
}
