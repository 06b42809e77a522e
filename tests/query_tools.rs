//! query_json / query_yaml through the real binary, including queries that would take a server
//! down if they ran in its process.

mod common;

use common::{Workspace, text_of};
use serde_json::json;

fn workspace() -> Workspace {
    let ws = Workspace::new();
    ws.write("data.json", r#"{"zeta": 1, "alpha": {"b": [1, 2, 3]}, "items": [{"id": 1, "tag": "x"}, {"id": 2, "tag": "y"}]}"#);
    ws.write(
        "conf.yaml",
        "country: no\nbase: &b {port: 80}\nweb:\n  <<: *b\n  host: example\n---\nsecond: doc\n",
    );
    let mut many = String::from("[");
    for i in 0..250 {
        many.push_str(&format!("{i},"));
    }
    many.push_str("250]");
    ws.write("many.json", many);
    ws
}

#[test]
fn json_queries_keep_key_order_and_print_compact_lines() {
    let ws = workspace();
    let mut c = ws.start(&[]);
    assert_eq!(
        c.call_text(
            "query_json",
            json!({"file_path": "data.json", "jq_expression": "keys_unsorted"})
        ),
        r#"["zeta","alpha","items"]"#
    );
    assert_eq!(
        c.call_text(
            "query_json",
            json!({"file_path": "data.json", "jq_expression": ".items[] | .id"})
        ),
        "1\n2"
    );
    let multi = "# ids of tagged items\n.items[]\n| select(.tag == \"y\") # only y\n| .id";
    assert_eq!(
        c.call_text(
            "query_json",
            json!({"file_path": "data.json", "jq_expression": multi})
        ),
        "2"
    );
    assert_eq!(
        c.call_text(
            "query_json",
            json!({"file_path": "data.json", "jq_expression": ".missing"})
        ),
        "No results found."
    );
    assert_eq!(
        c.call_text(
            "query_json",
            json!({"file_path": "data.json", "jq_expression": ".a.b = 1 | .a"})
        ),
        r#"{"b":1}"#
    );
    let capped = c.call_text(
        "query_json",
        json!({"file_path": "many.json", "jq_expression": ".[]"}),
    );
    assert!(capped.contains("Showing 100 of 251 results"), "{capped}");
    assert!(
        capped.contains(".items[100:200]") || capped.contains("[100:200]"),
        "{capped}"
    );
}

#[test]
fn yaml_is_yaml_1_2_with_merge_keys_and_documents() {
    let ws = workspace();
    let mut c = ws.start(&[]);
    // Each document is one input: the second has no "country".
    assert_eq!(
        c.call_text(
            "query_yaml",
            json!({"file_path": "conf.yaml", "yq_expression": ".country"})
        ),
        "\"no\"\nnull"
    );
    assert_eq!(
        c.call_text(
            "query_yaml",
            json!({"file_path": "conf.yaml", "yq_expression": "select(.web) | .web.port"})
        ),
        "80"
    );
    assert_eq!(
        c.call_text(
            "query_yaml",
            json!({"file_path": "conf.yaml", "yq_expression": ".second // empty"})
        ),
        "\"doc\""
    );
}

#[test]
fn errors_are_short_and_say_what_to_do() {
    let ws = workspace();
    ws.write("broken.json", "{\"a\": [1, 2,\n");
    let mut c = ws.start(&[]);
    let syntax = c.call(
        "query_json",
        json!({"file_path": "data.json", "jq_expression": ".items[ | .id"}),
    );
    assert_eq!(syntax["isError"], true);
    assert!(
        text_of(&syntax).to_lowercase().contains("syntax"),
        "{syntax}"
    );
    let parse = c.call(
        "query_json",
        json!({"file_path": "broken.json", "jq_expression": "."}),
    );
    assert_eq!(parse["isError"], true);
    assert!(text_of(&parse).contains("line"), "{parse}");
    let yaml_as_json = c.call(
        "query_json",
        json!({"file_path": "conf.yaml", "jq_expression": "."}),
    );
    assert!(
        text_of(&yaml_as_json).contains("query_yaml"),
        "{yaml_as_json}"
    );
    let outside = c.call(
        "query_json",
        json!({"file_path": "/etc/passwd", "jq_expression": "."}),
    );
    assert!(text_of(&outside).contains("Access denied"), "{outside}");
}

/// Unbounded recursion, an endless loop and unbounded allocation each fail only their own call.
#[test]
fn runaway_queries_cost_only_their_own_call() {
    let ws = workspace();
    let mut c = ws.start(&["--query-memory-mb", "256"]);
    let crash = c.call(
        "query_json",
        json!({"file_path": "data.json", "jq_expression": "def f: 1 + f; f"}),
    );
    assert_eq!(crash["isError"], true);
    assert!(text_of(&crash).contains("crash"), "{crash}");
    assert_eq!(
        c.call_text(
            "query_json",
            json!({"file_path": "data.json", "jq_expression": ".zeta"})
        ),
        "1"
    );

    let hang = c.call(
        "query_json",
        json!({"file_path": "data.json", "jq_expression": "last(range(1e12))", "timeout": 2}),
    );
    assert_eq!(hang["isError"], true);
    assert!(
        text_of(&hang).contains("timed out after 2 seconds"),
        "{hang}"
    );
    assert_eq!(
        c.call_text(
            "query_json",
            json!({"file_path": "data.json", "jq_expression": ".zeta"})
        ),
        "1"
    );

    let hog = c.call("query_json", json!({"file_path": "data.json", "jq_expression": "[range(1e10)] | length", "timeout": 120}));
    assert_eq!(hog["isError"], true);
    assert!(text_of(&hog).contains("memory limit of 256"), "{hog}");
    assert_eq!(
        c.call_text(
            "query_json",
            json!({"file_path": "data.json", "jq_expression": ".zeta"})
        ),
        "1"
    );
}

#[test]
fn the_read_guard_offers_queries_for_this_file() {
    let ws = Workspace::new();
    let mut big = String::from("{\"records\": [");
    for i in 0..5000 {
        big.push_str(&format!(
            "{{\"id\": {i}, \"name\": \"record number {i}\"}},"
        ));
    }
    big.push_str("{}]}");
    ws.write("big.json", big);
    let mut c = ws.start(&[]);
    let out = c.call_text("read_files", json!({"files": ["big.json"]}));
    assert!(out.contains("query_json(\"big.json\""), "{out}");
    assert!(
        out.contains(".records"),
        "examples use the file's own key: {out}"
    );
}

/// Processes whose parent is `pid`, from /proc.
fn children_of(pid: u32) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(child) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{child}/stat")) else {
            continue;
        };
        // Fields after the command name (which may hold spaces) start after the last ')'.
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map(|(_, r)| r)
            .unwrap_or("")
            .split_whitespace()
            .collect();
        if fields.get(1).and_then(|p| p.parse::<u32>().ok()) == Some(pid) {
            found.push(child);
        }
    }
    found
}

#[test]
fn cancelling_a_query_kills_its_worker() {
    let ws = workspace();
    let mut c = ws.start(&[]);
    c.send(&json!({"jsonrpc": "2.0", "id": 77, "method": "tools/call", "params": {
        "name": "query_json", "arguments": {"file_path": "data.json", "jq_expression": "last(range(1e12))", "timeout": 600}}}));
    let mut running = false;
    for _ in 0..500 {
        if !children_of(c.pid()).is_empty() {
            running = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(running, "the query worker started");
    c.notify("notifications/cancelled", json!({"requestId": 77}));
    let mut gone = false;
    for _ in 0..500 {
        if children_of(c.pid()).is_empty() {
            gone = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(gone, "the worker is killed on cancellation");
    assert_eq!(
        c.call_text(
            "query_json",
            json!({"file_path": "data.json", "jq_expression": ".zeta"})
        ),
        "1"
    );
}
