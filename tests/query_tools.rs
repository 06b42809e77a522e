//! query_json / query_yaml through the real binary, including queries that would take a server
//! down if they ran in its process.

use crate::common;

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
        "[\"zeta\",\"alpha\",\"items\"]\n(1 result)"
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
        "2\n(1 result)"
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
        "{\"b\":1}\n(1 result)"
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

/// Gemini CLI takes a text result that parses as JSON for structured content and refuses it
/// unless it is an object: no query output may be a bare number, string, array or null.
#[test]
fn no_query_output_is_a_bare_json_value_other_than_an_object() {
    let ws = workspace();
    let mut c = ws.start(&[]);
    let queries = [
        ("query_json", "data.json", ".items | length"),
        ("query_json", "data.json", "keys"),
        ("query_json", "data.json", ".items[0].tag"),
        ("query_json", "data.json", ".items[0]"),
        ("query_json", "data.json", "[.items[].id]"),
        ("query_json", "data.json", ".zeta > 0"),
        ("query_json", "data.json", ".items[] | .id"),
        ("query_json", "data.json", ".missing"),
        ("query_yaml", "conf.yaml", "select(.web) | .web.host"),
        ("query_yaml", "conf.yaml", "select(.web) | .web | keys"),
    ];
    for (tool, file, query) in queries {
        let key = if tool == "query_json" {
            "jq_expression"
        } else {
            "yq_expression"
        };
        let text = c.call_text(tool, json!({"file_path": file, key: query}));
        if let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) {
            assert!(
                value.is_object(),
                "{tool} {query:?} gave a bare JSON value: {text:?}"
            );
        }
    }
    // The count line says what it is.
    assert_eq!(
        c.call_text(
            "query_json",
            json!({"file_path": "data.json", "jq_expression": ".items | length"})
        ),
        "2\n(1 result)"
    );
    assert_eq!(
        c.call_text(
            "query_json",
            json!({"file_path": "data.json", "jq_expression": ".items[0].tag"})
        ),
        "\"x\"\n(1 result)"
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
        "80\n(1 result)"
    );
    assert_eq!(
        c.call_text(
            "query_yaml",
            json!({"file_path": "conf.yaml", "yq_expression": ".second // empty"})
        ),
        "\"doc\"\n(1 result)"
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

/// A query's hints, notes and next steps name a tool only when the server lists it: with
/// query_yaml disabled, YAML given to query_json says it looks like YAML and names no tool, and no
/// truncation note, syntax hint or runtime error names one either.
#[test]
fn query_hints_name_only_listed_tools() {
    let ws = workspace();
    let mut c = ws.start(&["--disable-tools", "query_yaml"]);
    let listed: Vec<String> = c
        .list_tools()
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect();
    assert!(!listed.iter().any(|t| t == "query_yaml"), "{listed:?}");
    let mut all = ws.start(&["--all"]);
    let every_tool: Vec<String> = all
        .list_tools()
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect();
    let unlisted: Vec<&String> = every_tool.iter().filter(|t| !listed.contains(t)).collect();
    assert!(unlisted.iter().any(|t| *t == "query_yaml"), "{unlisted:?}");

    let yaml_as_json = c.call(
        "query_json",
        json!({"file_path": "conf.yaml", "jq_expression": "."}),
    );
    assert_eq!(yaml_as_json["isError"], true);
    let text = text_of(&yaml_as_json);
    assert!(text.contains("It looks like YAML."), "{text}");
    let mut texts = vec![text];
    for (file, expression) in [
        ("many.json", ".[]"),
        (
            "many.json",
            "[.[] | tostring] | join(\",\") | [range(3000) as $i | .] | .[]",
        ),
        ("data.json", ".items[ | .id"),
        ("data.json", ".zeta = = 1"),
        ("data.json", ".name == 'x'"),
        (
            "data.json",
            ".items[] | if .id == 2 then error(\"bad\") else . end",
        ),
        ("data.json", "error(\"boom\")"),
        ("data.json", "debug | .zeta"),
    ] {
        let reply = c.call(
            "query_json",
            json!({"file_path": file, "jq_expression": expression}),
        );
        texts.push(text_of(&reply));
    }
    assert!(
        texts[1].contains("--- Truncated. Showing 100 of 251 results. ---"),
        "{}",
        texts[1]
    );
    assert!(texts[3].contains("\nHint: "), "{}", texts[3]);
    for text in &texts {
        for tool in &unlisted {
            assert!(
                !text.contains(tool.as_str()),
                "{text:?} names {tool}, which is not listed"
            );
        }
    }
}

/// A query that must load a file larger than half the memory limit is refused before it reads
/// a byte, saying which queries read any size (a sparse file: nothing is written to disk).
#[test]
fn a_file_too_large_to_load_names_the_streaming_way() {
    let ws = workspace();
    let big = ws.write("big.json", "");
    std::fs::OpenOptions::new()
        .write(true)
        .open(big)
        .and_then(|f| f.set_len(200 << 20))
        .unwrap();
    let mut c = ws.start(&["--query-memory-mb", "256"]);
    let refused = c.call(
        "query_json",
        json!({"file_path": "big.json", "jq_expression": "keys"}),
    );
    assert_eq!(refused["isError"], true);
    assert_eq!(
        text_of(&refused),
        "Error: The file is 200 MB, too large to query whole within the memory limit of 256 MB. \
         Only queries that stream an array, such as `.items[] | …`, read a file of any size; \
         write the query that way, or narrow it to such a stream."
    );
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
        "1\n(1 result)"
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
        "1\n(1 result)"
    );

    let hog = c.call("query_json", json!({"file_path": "data.json", "jq_expression": "[range(1e10)] | length", "timeout": 120}));
    assert_eq!(hog["isError"], true);
    assert!(text_of(&hog).contains("memory limit of 256"), "{hog}");
    assert_eq!(
        c.call_text(
            "query_json",
            json!({"file_path": "data.json", "jq_expression": ".zeta"})
        ),
        "1\n(1 result)"
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
        "1\n(1 result)"
    );
}
