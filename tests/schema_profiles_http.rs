//! `--schema-profile auto` over streamable HTTP: two sessions at once, one a Codex client and one
//! Gemini CLI, each get their own listing (no leak from one session to the other), and every tool
//! with optional parameters works when the strict client sends `null` for all of them, answering
//! as the Gemini client's call without them does.

use crate::common;

use common::{HttpServer, Workspace};
use serde_json::{Value, json};

const EDITOR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/fake_editor.py");
const WORK_LOG: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/gsd_work_log.md"
);

/// One MCP session over streamable HTTP.
struct Session {
    http: reqwest::Client,
    url: String,
    session_id: Option<String>,
    next_id: u64,
}

impl Session {
    async fn open(url: &str, client_name: &str) -> Session {
        let mut s = Session {
            http: reqwest::Client::new(),
            url: url.to_string(),
            session_id: None,
            next_id: 1,
        };
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": client_name, "version": "1"}}});
        let response = s.post(&init).send().await.expect("send initialize");
        assert!(response.status().is_success(), "{}", response.status());
        s.session_id = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(String::from);
        assert!(s.session_id.is_some(), "the server gave a session id");
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let response = s.post(&note).send().await.expect("send initialized");
        assert!(response.status().is_success(), "{}", response.status());
        s
    }

    fn post(&self, body: &Value) -> reqwest::RequestBuilder {
        let mut r = self
            .http
            .post(&self.url)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .header("MCP-Protocol-Version", "2025-06-18")
            .body(body.to_string());
        if let Some(id) = &self.session_id {
            r = r.header("mcp-session-id", id);
        }
        r
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let response = self.post(&body).send().await.expect("send");
        assert!(response.status().is_success(), "{}", response.status());
        common::parse_body(&response.text().await.expect("body"))
    }

    async fn list_tools(&mut self) -> Vec<Value> {
        let response = self.request("tools/list", json!({})).await;
        response["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("tools/list failed: {response}"))
            .clone()
    }

    /// The result of a call that must succeed.
    async fn call_ok(&mut self, tool: &str, arguments: Value) -> Value {
        let response = self
            .request(
                "tools/call",
                json!({"name": tool, "arguments": arguments.clone()}),
            )
            .await;
        let result = &response["result"];
        assert_eq!(
            result["isError"],
            json!(false),
            "{tool} {arguments} failed: {response}"
        );
        result.clone()
    }
}

fn is_strict(tools: &[Value]) -> bool {
    tools.iter().all(|t| {
        !t["inputSchema"]["properties"].is_object()
            || t["inputSchema"]["additionalProperties"] == json!(false)
    })
}

fn nullable(prop: &Value) -> bool {
    match &prop["type"] {
        Value::Array(types) => types.contains(&json!("null")),
        _ => prop["anyOf"]
            .as_array()
            .is_some_and(|b| b.contains(&json!({"type": "null"}))),
    }
}

/// `given` as the strict client sends it: every property it leaves out is `null` (nested objects
/// of arrays too).
fn with_nulls(schema: &Value, given: &Value) -> Value {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return given.clone();
    };
    let mut out = serde_json::Map::new();
    for (name, prop) in props {
        let value = match given.get(name) {
            Some(Value::Array(items)) => Value::Array(
                items
                    .iter()
                    .map(|i| with_nulls(&prop["items"], i))
                    .collect(),
            ),
            Some(v) => with_nulls(prop, v),
            None => {
                assert!(nullable(prop), "{name} is required: give it in the test");
                Value::Null
            }
        };
        out.insert(name.clone(), value);
    }
    Value::Object(out)
}

/// The answer's text with what differs between two equal calls (the read tag) taken out.
fn comparable(tool: &str, result: &Value) -> String {
    let text = common::text_of(result);
    match tool {
        "read_files" => common::untag(&text),
        // Two files were edited (one per session): compare what the reviewer did.
        "propose_and_review" => {
            let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
            v["user_action"].to_string()
        }
        _ => text,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_over_http_lists_per_session_and_strict_nulls_work_on_every_tool() {
    let ws = Workspace::new();
    ws.write("notes/a.txt", "alpha\nneedle here\nomega\n");
    ws.write("data.json", r#"{"a": [1, 2], "b": "x"}"#);
    ws.write("data.yaml", "a:\n  - 1\n  - 2\nb: x\n");
    ws.write("gsd-lite/WORK.md", std::fs::read(WORK_LOG).unwrap());
    ws.write("codex.txt", "one\n");
    ws.write("gemini.txt", "one\n");
    let review = format!("python3 {EDITOR} approve {{current}} {{future}}");
    let server = HttpServer::start(
        &ws,
        &[
            "--all",
            "--schema-profile",
            "auto",
            "--review-command",
            &review,
        ],
    );
    let (mut codex, mut gemini) = tokio::join!(
        Session::open(&server.url, "codex-mcp-client"),
        Session::open(&server.url, "gemini-cli-mcp-client"),
    );

    // Listings asked for at the same time, in both orders, never cross.
    let (strict, gemini_tools) = tokio::join!(codex.list_tools(), gemini.list_tools());
    assert!(is_strict(&strict), "codex got a non-strict listing");
    assert!(
        !is_strict(&gemini_tools),
        "gemini-cli got the strict listing"
    );
    for _ in 0..5 {
        let (g, s) = tokio::join!(gemini.list_tools(), codex.list_tools());
        assert_eq!(s, strict, "codex's listing changed");
        assert_eq!(g, gemini_tools, "gemini-cli's listing changed");
    }
    // The same listings as the profiles pinned on the command line.
    let pinned = |profile: &str| {
        ws.start(&[
            "--all",
            "--schema-profile",
            profile,
            "--review-command",
            &review,
        ])
        .list_tools()
    };
    assert_eq!(strict, pinned("openai-strict"));
    assert_eq!(gemini_tools, pinned("gemini"));

    // Each call as the Gemini client writes it (optional parameters left out).
    let calls = [
        ("analyze_gsd_work_log", json!({})),
        ("directory_tree", json!({})),
        (
            "get_file_info",
            json!({"paths": ["notes/a.txt", "data.json"]}),
        ),
        ("grep_content", json!({"pattern": "needle"})),
        (
            "propose_and_review",
            json!({"path": "FILE", "match_text": "one", "new_string": "two"}),
        ),
        (
            "query_json",
            json!({"file_path": "data.json", "jq_expression": ".a"}),
        ),
        (
            "query_yaml",
            json!({"file_path": "data.yaml", "yq_expression": ".a"}),
        ),
        ("read_files", json!({"files": [{"path": "notes/a.txt"}]})),
        ("search_files", json!({"pattern": "*.txt"})),
    ];
    // Every tool with an optional parameter is called.
    for tool in &strict {
        let name = tool["name"].as_str().unwrap_or_default();
        let props = tool["inputSchema"]["properties"].as_object();
        if props.is_some_and(|p| p.values().any(nullable)) {
            assert!(
                calls.iter().any(|(n, _)| *n == name),
                "{name} has optional parameters: add a call to this test"
            );
        }
    }
    for (name, given) in calls {
        let schema = &strict
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("no tool {name}"))["inputSchema"];
        let mut strict_args = with_nulls(schema, &given);
        let mut gemini_args = given.clone();
        if name == "propose_and_review" {
            strict_args["path"] = json!("codex.txt");
            gemini_args["path"] = json!("gemini.txt");
        }
        let (s, g) = tokio::join!(
            codex.call_ok(name, strict_args.clone()),
            gemini.call_ok(name, gemini_args),
        );
        assert_eq!(
            comparable(name, &s),
            comparable(name, &g),
            "{name}: null for every optional parameter ({strict_args}) answers as leaving them out"
        );
    }
    assert_eq!(
        std::fs::read_to_string(ws.root.join("codex.txt")).unwrap(),
        "two\n"
    );
}
