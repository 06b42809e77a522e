//! The real binary over stdio: handshake, tool schemas as Gemini needs them, stdout hygiene.

use crate::common;

use common::{StdioClient, Workspace, all_keys, text_of};
use serde_json::{Value, json};

#[test]
fn server_info_names_this_server_and_version() {
    let ws = Workspace::new();
    let client = ws.start(&[]);
    assert_eq!(client.initialize_result["serverInfo"]["name"], "fs-mcp-rs");
    assert_eq!(
        client.initialize_result["serverInfo"]["version"],
        env!("CARGO_PKG_VERSION")
    );
    assert!(client.initialize_result["capabilities"]["tools"].is_object());
}

/// The regression users asked for: Gemini must receive `files.items` as a complete object.
#[test]
fn read_files_schema_has_an_inline_object_item_and_no_refs_anywhere() {
    let ws = Workspace::new();
    let mut client = ws.start(&["--all"]);
    let tools = client.list_tools();
    let read = tools
        .iter()
        .find(|t| t["name"] == "read_files")
        .expect("read_files listed");
    let files = &read["inputSchema"]["properties"]["files"];
    assert_eq!(files["type"], "array");
    let items = &files["items"];
    assert_eq!(items["type"], "object", "items: {items}");
    assert_eq!(items["properties"]["path"]["type"], "string");
    for mode in ["head", "tail", "start_line", "end_line"] {
        assert_eq!(items["properties"][mode]["type"], "integer", "{mode}");
    }
    assert_eq!(
        items["properties"]["read_to_next_pattern"]["type"],
        "string"
    );
    assert!(
        items["required"]
            .as_array()
            .is_some_and(|r| r.contains(&json!("path")))
    );
    assert_eq!(read["inputSchema"]["required"], json!(["files"]));

    for tool in &tools {
        let mut keys = Vec::new();
        all_keys(&tool["inputSchema"], &mut keys);
        if let Some(output) = tool.get("outputSchema") {
            all_keys(output, &mut keys);
        }
        for banned in ["$ref", "$defs", "definitions", "$schema", "title"] {
            assert!(
                !keys.iter().any(|k| k == banned),
                "tool {} still has {banned}: {}",
                tool["name"],
                tool["inputSchema"]
            );
        }
        assert_eq!(tool["inputSchema"]["type"], "object", "{}", tool["name"]);
        // No type arrays (R2): every `type` is a single string.
        fn no_type_arrays(v: &Value, tool: &Value) {
            match v {
                Value::Object(map) => {
                    if let Some(t) = map.get("type") {
                        assert!(
                            t.is_string() || t.is_object(),
                            "type array in {}",
                            tool["name"]
                        );
                    }
                    map.values().for_each(|c| no_type_arrays(c, tool));
                }
                Value::Array(items) => items.iter().for_each(|c| no_type_arrays(c, tool)),
                _ => {}
            }
        }
        no_type_arrays(&tool["inputSchema"], tool);
    }
}

/// The exact failure from the seeds: Gemini sent plain strings after losing the item schema.
#[test]
fn files_as_plain_strings_are_read() {
    let ws = Workspace::new();
    ws.write("x.txt", "content of x\n");
    ws.write("docs/y.md", "# y\n");
    let mut client = ws.start(&[]);
    let out = client.call_text("read_files", json!({"files": ["x.txt", "docs/y.md"]}));
    assert_eq!(
        common::untag(&out),
        "[TAG] File: x.txt\ncontent of x\n\n[TAG] File: docs/y.md\n# y\n"
    );
}

#[test]
fn list_allowed_directories_shows_canonical_roots() {
    let ws = Workspace::new();
    let other = ws.base.join("other");
    std::fs::create_dir(&other).unwrap();
    let mut client = StdioClient::start(
        &ws.base,
        &[ws.root.to_str().unwrap(), "other", "missing-dir"],
    );
    let out = client.call_text("list_allowed_directories", json!({}));
    assert_eq!(out, format!("{}\n{}", ws.root.display(), other.display()));
    let stderr = client.stderr.lock().unwrap().clone();
    assert!(stderr.contains("missing-dir"), "warning expected: {stderr}");
}

#[test]
fn tiers_expose_different_tool_sets() {
    let ws = Workspace::new();
    let core: Vec<String> = ws
        .start(&[])
        .list_tools()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    let all: Vec<String> = ws
        .start(&["--all"])
        .list_tools()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert!(core.contains(&"read_files".to_string()));
    assert!(core.contains(&"list_allowed_directories".to_string()));
    for name in fs_mcp_rs::server::all_tier_only_names() {
        assert!(
            !core.iter().any(|c| c == name),
            "{name} must not be in core"
        );
    }
    assert!(all.len() >= core.len());
}

#[test]
fn bad_arguments_get_a_clear_error_and_the_server_keeps_serving() {
    let ws = Workspace::new();
    ws.write("a.txt", "a\n");
    let mut client = ws.start(&[]);
    let result = client.call("read_files", json!({"files": 42}));
    assert_eq!(result["isError"], true, "{result}");
    let result = client.call("read_files", json!({"files": [{"head": 3}]}));
    assert_eq!(result["isError"], true);
    assert!(text_of(&result).contains("path"), "{result}");
    let unknown = client.request(
        "tools/call",
        json!({"name": "no_such_tool", "arguments": {}}),
    );
    assert!(unknown.get("error").is_some() || unknown["result"]["isError"] == true);
    // Still serving.
    assert_eq!(
        common::untag(&client.call_text("read_files", json!({"files": [{"path": "a.txt"}]}))),
        "[TAG] File: a.txt\na\n"
    );
}

/// stdout carries only JSON-RPC: every line parses as a JSON-RPC 2.0 message.
#[test]
fn stdout_carries_only_json_rpc() {
    let ws = Workspace::new();
    ws.write("a.txt", "a\n");
    let mut client = ws.start(&["--all", "--log-level", "trace"]);
    client.list_tools();
    client.call_text("read_files", json!({"files": ["a.txt", "missing"]}));
    client.call("read_files", json!({"files": "not a list"}));
    let transcript = client.transcript.lock().unwrap().clone();
    assert!(transcript.len() >= 4);
    for line in &transcript {
        let message: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
    }
    // Logs went to stderr instead.
    assert!(!client.stderr.lock().unwrap().is_empty());
    let status = client.finish();
    assert!(status.success(), "{status:?}");
}

#[test]
fn no_usable_directory_exits_non_zero_with_a_clear_message() {
    let ws = Workspace::new();
    let output = std::process::Command::new(common::BIN)
        .arg(ws.base.join("does-not-exist"))
        .current_dir(&ws.base)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(output.stdout.is_empty(), "nothing on stdout");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("does-not-exist") && stderr.contains("no usable allowed directory"),
        "{stderr}"
    );
}

#[test]
fn version_flag_prints_the_version() {
    let output = std::process::Command::new(common::BIN)
        .arg("--version")
        .output()
        .unwrap();
    assert!(output.status.success());
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        format!("fs-mcp-rs {}", env!("CARGO_PKG_VERSION"))
    );
}

/// The next stdout line that is not a notification.
fn next_reply(client: &mut StdioClient) -> Value {
    client
        .try_wait_for_any(std::time::Duration::from_secs(30))
        .expect("a reply")
}

#[test]
fn a_malformed_line_gets_a_parse_error_and_the_server_keeps_serving() {
    let ws = Workspace::new();
    ws.write("a.txt", "a\n");
    let mut client = ws.start(&[]);
    for (line, code) in [
        ("{not json", -32700),
        ("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\"", -32700),
        (r#"[{"jsonrpc":"2.0","id":2,"method":"ping"}]"#, -32600),
    ] {
        client.send_raw(line);
        let reply = next_reply(&mut client);
        assert_eq!(reply["error"]["code"], code, "{line}: {reply}");
        assert_eq!(reply["id"], Value::Null, "{reply}");
        assert!(reply.as_object().unwrap().contains_key("id"), "{reply}");
    }
    // A well-formed request of the wrong shape is answered with its id.
    client.send_raw(r#"{"jsonrpc":"2.0","id":77,"method":"tools/call","params":"x"}"#);
    let reply = next_reply(&mut client);
    assert_eq!(
        (reply["id"].clone(), reply["error"]["code"].clone()),
        (json!(77), json!(-32600))
    );
    assert_eq!(
        common::untag(&client.call_text("read_files", json!({"files": ["a.txt"]}))),
        "[TAG] File: a.txt\na\n"
    );
}

#[test]
fn a_bogus_pagination_cursor_is_invalid_params() {
    let ws = Workspace::new();
    let mut client = ws.start(&[]);
    let reply = client.request("tools/list", json!({"cursor": "bogus"}));
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("cursor"),
        "{reply}"
    );
    let listed = client.request("tools/list", json!({}));
    assert!(listed["result"]["nextCursor"].is_null(), "{listed}");
}

#[test]
fn a_normal_start_prints_nothing_on_stderr_unless_asked() {
    let ws = Workspace::new();
    ws.write("a.txt", "a\n");
    let mut quiet = ws.start(&[]);
    quiet.call_text("read_files", json!({"files": ["a.txt"]}));
    let stderr = quiet.stderr.clone();
    assert!(quiet.finish().success());
    assert_eq!(stderr.lock().unwrap().as_str(), "");

    let mut verbose = ws.start(&["--log-level", "info"]);
    verbose.list_tools();
    let stderr = verbose.stderr.clone();
    assert!(verbose.finish().success());
    let stderr = stderr.lock().unwrap().clone();
    assert!(
        stderr.contains("INFO") && stderr.contains("allowed directories"),
        "{stderr}"
    );
}

#[test]
fn logging_set_level_sends_log_messages_at_or_above_the_level() {
    let ws = Workspace::new();
    ws.write("notes.txt", "old\n");
    let mut client = ws.start(&["--review-command", "none", "--review-timeout", "1"]);
    assert!(client.initialize_result["capabilities"]["logging"].is_object());
    // Warnings only: the review's "waiting" messages (info) are not sent.
    let set = client.request("logging/setLevel", json!({"level": "warning"}));
    assert_eq!(set["result"], json!({}), "{set}");
    let propose = json!({"path": "notes.txt", "match_text": "old", "new_string": "new"});
    client.call_text("propose_and_review", propose.clone());
    let logs = |client: &StdioClient| -> Vec<Value> {
        client
            .notifications
            .iter()
            .filter(|n| n["method"] == "notifications/message")
            .cloned()
            .collect()
    };
    assert_eq!(logs(&client), Vec::<Value>::new());
    // Info: now they are, as notifications/message with the level and the text.
    client.request("logging/setLevel", json!({"level": "info"}));
    let out = client.call_text("propose_and_review", propose);
    assert!(out.contains("TIMEOUT"), "{out}");
    let infos = logs(&client);
    assert!(
        infos.iter().any(|n| n["params"]["level"] == "info"
            && n["params"]["data"]
                .as_str()
                .is_some_and(|d| d.contains("notes.txt"))),
        "{infos:?}"
    );
    assert!(infos.iter().all(|n| n["params"]["logger"].is_string()));
    let bad = client.request("logging/setLevel", json!({"level": "loud"}));
    assert!(bad.get("error").is_some(), "{bad}");
}
