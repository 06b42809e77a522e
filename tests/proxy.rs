//! `fs-mcp-rs proxy` in front of a real server on the official Python SDK with pydantic models
//! (tests/fixtures/pydantic_server.py), driven over stdio like an MCP client.
//!
//! The Python SDK comes from `cargo xtask clients install` (target/clients/venv, or
//! FS_MCP_CLIENTS_DIR). Without it these tests skip with a note, unless FS_MCP_REQUIRE_CLIENTS=1.

use crate::common;

use std::path::Path;

use common::StdioClient;
use serde_json::{Value, json};

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/pydantic_server.py"
);

/// The proxy in front of the pydantic fixture, handshake done.
fn start_proxy(python: &Path, cwd: &Path) -> StdioClient {
    let python = python.to_str().expect("utf8 path");
    StdioClient::start(cwd, &["proxy", "--", python, FIXTURE])
}

fn tool<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    tools
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name} in {tools:?}"))
}

/// Sends pings until `done` holds for the notifications seen so far (they are collected while
/// waiting for each answer).
fn poll_notifications(client: &mut StdioClient, done: impl Fn(&[Value]) -> bool) {
    for _ in 0..500 {
        if done(&client.notifications) {
            return;
        }
        let pong = client.request("ping", json!({}));
        assert!(pong.get("result").is_some(), "ping failed: {pong}");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!(
        "expected notifications never arrived: {:?}",
        client.notifications
    );
}

fn progress_for(notifications: &[Value], token: &str) -> Vec<Value> {
    notifications
        .iter()
        .filter(|n| {
            n["method"] == "notifications/progress" && n["params"]["progressToken"] == token
        })
        .cloned()
        .collect()
}

#[test]
fn served_schemas_lint_clean_and_calls_reach_the_upstream_with_raw_types() {
    let Some(python) = common::sdk_python() else {
        return;
    };
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut client = start_proxy(&python, tmp.path());
    assert_eq!(
        client.initialize_result["serverInfo"]["name"], "pydantic-fixture",
        "the client sees the upstream's identity: {}",
        client.initialize_result
    );
    let tools = client.list_tools();
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(
        names,
        ["echo_order", "slow", "grow", "ask_roots", "crash", "hang"]
    );
    // The outputSchema is the upstream's own (#23): clients validate results against it, so it
    // must accept every result the upstream's schema does; only input schemas are transformed.
    for t in &tools {
        for key in ["inputSchema"] {
            if let Some(schema) = t.get(key) {
                let issues = gemini_compat::lint(schema);
                assert!(
                    issues.is_empty(),
                    "{} {key} is not Gemini-safe: {issues:?}\n{schema:#}",
                    t["name"]
                );
            }
        }
    }

    // Arguments written against the served schema, as a Gemini client would.
    let served = &tool(&tools, "echo_order")["inputSchema"]["properties"];
    let priority_enum = served["priority"]["enum"]
        .as_array()
        .unwrap_or_else(|| panic!("served priority has no enum: {}", served["priority"]));
    assert!(
        priority_enum.iter().all(Value::is_string),
        "Gemini takes string enums only; the integer enum must be served as strings: {priority_enum:?}"
    );
    let high = priority_enum
        .iter()
        .find(|v| *v == "3")
        .expect("priority 3 is offered")
        .clone();
    let result = client.call(
        "echo_order",
        json!({
            "customer": {"name": "Ada", "address": {"street": "1 Main St", "city": "Paris"}},
            "items": [{"sku": "A-1", "quantity": 2, "unit": "kg"}],
            "priority": high,
            "location": [48.85, 2.35],
            "tags": {"env": "prod"},
            "channel": "phone"
        }),
    );
    assert_ne!(
        result["isError"],
        json!(true),
        "echo_order failed: {result}"
    );
    let echoed: Value = serde_json::from_str(&common::text_of(&result))
        .unwrap_or_else(|e| panic!("echo is not JSON ({e}): {result}"));
    // What arrived on the wire, before pydantic's lax validation could turn "3" into 3.
    let raw = &echoed["raw"];
    assert_eq!(
        raw["priority"],
        json!(3),
        "the string enum is mapped back to the integer: {raw}"
    );
    assert_eq!(raw["location"], json!([48.85, 2.35]), "{raw}");
    assert_eq!(raw["tags"], json!({"env": "prod"}), "{raw}");
    let received = &echoed["received"];
    assert_eq!(received["priority"], json!(3), "{received}");
    assert_eq!(received["priority_type"], "int", "{received}");
    assert_eq!(received["location"], json!([48.85, 2.35]), "{received}");
    assert_eq!(received["items"][0]["unit"], "kg");
    assert_eq!(received["items"][0]["quantity"], json!(2));
    assert_eq!(received["customer"]["address"]["city"], "Paris");
    assert_eq!(received["channel"], "phone");
    // "$ref" keys in structured results are escaped as fs-mcp-rs's own results are (R14).
    if let Some(structured) = result.get("structuredContent") {
        assert!(
            !gemini_compat::has_output_refs(structured),
            "a $ref key reached the client: {structured}"
        );
    }
    let status = client.finish();
    assert!(status.success(), "proxy exit status: {status}");
}

/// The proxy's upstream tools pass the server's guard too (one argument guard, `src/schemas.rs`):
/// a misspelt optional argument is refused with the valid names instead of reaching an upstream
/// that would drop it silently; map keys (`tags`) stay free.
#[test]
fn a_misspelt_argument_is_refused_before_it_reaches_the_upstream() {
    let Some(python) = common::sdk_python() else {
        return;
    };
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut client = start_proxy(&python, tmp.path());
    let arguments = |misspelt: bool| {
        let mut args = json!({
            "customer": {"name": "Ada", "address": {"street": "1 Main St", "city": "Paris"}},
            "items": [{"sku": "A-1", "quantity": 2}],
            "priority": "3",
            "location": [48.85, 2.35],
            "tags": {"any key": "is fine"}
        });
        args[if misspelt { "chanel" } else { "channel" }] = json!("phone");
        args
    };
    let refused = client.call("echo_order", arguments(true));
    assert_eq!(refused["isError"], json!(true), "{refused}");
    let text = common::text_of(&refused);
    assert!(text.contains("unknown argument `chanel`"), "{text}");
    assert!(text.contains("did you mean `channel`?"), "{text}");
    assert!(
        text.contains("Nothing was done; call echo_order again"),
        "{text}"
    );
    let passed = client.call("echo_order", arguments(false));
    assert_ne!(passed["isError"], json!(true), "{passed}");
    let echoed: Value = serde_json::from_str(&common::text_of(&passed)).expect("echo is JSON");
    assert_eq!(echoed["received"]["channel"], "phone", "{echoed}");
    let status = client.finish();
    assert!(status.success(), "proxy exit status: {status}");
}

#[test]
fn progress_and_cancellation_pass_through() {
    let Some(python) = common::sdk_python() else {
        return;
    };
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut client = start_proxy(&python, tmp.path());

    // Progress reaches the client under the client's own token, then the result.
    let gate = tmp.path().join("gate");
    let gate_str = gate.to_str().expect("utf8").to_string();
    client.send(&json!({
        "jsonrpc": "2.0", "id": 900, "method": "tools/call",
        "params": {"name": "slow", "arguments": {"gate": gate_str}, "_meta": {"progressToken": "tok-1"}}
    }));
    poll_notifications(&mut client, |n| progress_for(n, "tok-1").len() >= 2);
    let progress = progress_for(&client.notifications, "tok-1");
    assert_eq!(progress[0]["params"]["progress"], json!(1.0));
    assert_eq!(progress[1]["params"]["message"], "halfway");
    std::fs::write(&gate, "open").expect("open gate");
    let done = client.wait_for(900);
    assert_eq!(
        common::text_of(&done["result"]),
        "done",
        "slow did not finish: {done}"
    );

    // A cancelled call is cancelled upstream too.
    let gate2 = tmp.path().join("gate2");
    let gate2_str = gate2.to_str().expect("utf8").to_string();
    client.send(&json!({
        "jsonrpc": "2.0", "id": 901, "method": "tools/call",
        "params": {"name": "slow", "arguments": {"gate": gate2_str}, "_meta": {"progressToken": "tok-2"}}
    }));
    poll_notifications(&mut client, |n| progress_for(n, "tok-2").len() >= 2);
    client.notify(
        "notifications/cancelled",
        json!({"requestId": 901, "reason": "test"}),
    );
    let marker = tmp.path().join("gate2.cancelled");
    for _ in 0..1000 {
        if marker.exists() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(
        marker.exists(),
        "the upstream never saw the cancellation; stderr:\n{}",
        client.stderr.lock().map(|s| s.clone()).unwrap_or_default()
    );
    let status = client.finish();
    assert!(status.success(), "proxy exit status: {status}");
}

#[test]
fn an_upstream_tool_list_change_refreshes_the_served_list() {
    let Some(python) = common::sdk_python() else {
        return;
    };
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut client = start_proxy(&python, tmp.path());
    let before = client.list_tools();
    assert!(before.iter().all(|t| t["name"] != "extra_tool"));
    let grown = client.call("grow", json!({}));
    assert_eq!(common::text_of(&grown), "grown", "{grown}");
    poll_notifications(&mut client, |n| {
        n.iter()
            .any(|n| n["method"] == "notifications/tools/list_changed")
    });
    let after = client.list_tools();
    let extra = tool(&after, "extra_tool");
    assert!(
        gemini_compat::lint(&extra["inputSchema"]).is_empty(),
        "the new tool is served transformed too: {extra}"
    );
    let result = client.call("extra_tool", json!({"level": "2"}));
    assert_eq!(common::text_of(&result), "level 2", "{result}");
}

#[test]
fn resources_prompts_and_roots_pass_through() {
    let Some(python) = common::sdk_python() else {
        return;
    };
    let tmp = tempfile::tempdir().expect("tempdir");
    let python = python.to_str().expect("utf8 path");
    let mut client = StdioClient::start_with_roots(
        tmp.path(),
        &["proxy", "--", python, FIXTURE],
        Some(vec!["file:///srv/project-a".into()]),
    );
    let caps = &client.initialize_result["capabilities"];
    assert!(
        caps.get("resources").is_some() && caps.get("prompts").is_some(),
        "the upstream's capabilities are served: {caps}"
    );
    let resources = client.request("resources/list", json!({}));
    assert_eq!(
        resources["result"]["resources"][0]["uri"], "fixture://greeting",
        "{resources}"
    );
    let read = client.request("resources/read", json!({"uri": "fixture://greeting"}));
    assert_eq!(
        read["result"]["contents"][0]["text"], "hello from the fixture",
        "{read}"
    );
    let prompt = client.request(
        "prompts/get",
        json!({"name": "review", "arguments": {"language": "Rust"}}),
    );
    assert_eq!(
        prompt["result"]["messages"][0]["content"]["text"], "Review this Rust code.",
        "{prompt}"
    );
    // roots/list from the upstream reaches this client, which answers it.
    let roots = client.call("ask_roots", json!({}));
    assert_eq!(common::text_of(&roots), "file:///srv/project-a", "{roots}");
}

#[test]
fn an_upstream_crash_fails_the_pending_call_and_the_proxy_exits() {
    let Some(python) = common::sdk_python() else {
        return;
    };
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut client = start_proxy(&python, tmp.path());
    client.list_tools();
    let response = client.request("tools/call", json!({"name": "crash", "arguments": {}}));
    let message = response["error"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("a crash must fail the call with an error: {response}"));
    assert!(
        message.contains("exited") && message.contains("pydantic_server.py"),
        "the error says the upstream died and names it: {message}"
    );
    let status = client.finish();
    assert_eq!(
        status.code(),
        Some(1),
        "the proxy exits with status 1 after its upstream died"
    );
}

#[test]
fn a_missing_upstream_command_is_a_clear_error() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut client = StdioClient::spawn(
        tmp.path(),
        &["proxy", "--", "/nonexistent/fs-mcp-rs-upstream"],
    );
    let response = client.request(
        "initialize",
        json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "fs-mcp-rs-tests", "version": "1"}
        }),
    );
    let message = response["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("cannot start the upstream") && message.contains("PATH"),
        "{response}"
    );
}

/// The HTTP side and the HTTP upstream: `proxy --url` (stdio) in front of `proxy --http` in front
/// of the fixture. The schemas stay lint-clean through both and the call still maps back.
#[test]
fn http_serving_and_an_http_upstream_chain() {
    let Some(python) = common::sdk_python() else {
        return;
    };
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut command = std::process::Command::new(common::BIN);
    command
        .args(["proxy", "--http", "127.0.0.1:0", "--"])
        .arg(&python)
        .arg(FIXTURE);
    let (server, url, _) = common::start_announcing_url(&mut command);
    let _server = common::KillOnDrop(server);
    let url = url.expect("proxy --http printed its URL");
    let mut client = StdioClient::start(tmp.path(), &["proxy", "--url", &url]);
    let tools = client.list_tools();
    for t in &tools {
        let issues = gemini_compat::lint(&t["inputSchema"]);
        assert!(issues.is_empty(), "{}: {issues:?}", t["name"]);
    }
    let result = client.call(
        "echo_order",
        json!({
            "customer": {"name": "Bo", "address": {"street": "2 Side St", "city": "Oslo"}},
            "items": [{"sku": "B-2", "quantity": 1}],
            "priority": "1",
            "location": [59.9, 10.7]
        }),
    );
    let echoed: Value = serde_json::from_str(&common::text_of(&result)).expect("echo is JSON");
    assert_eq!(echoed["raw"]["priority"], json!(1), "{echoed}");
}

#[test]
fn the_openai_strict_profile_serves_strict_schemas_and_maps_nulls_back() {
    let Some(python) = common::sdk_python() else {
        return;
    };
    let tmp = tempfile::tempdir().expect("tempdir");
    let python = python.to_str().expect("utf8 path");
    // `auto` picks openai-strict for a client that calls itself Codex.
    let mut client = StdioClient::spawn(
        tmp.path(),
        &["proxy", "--schema-profile", "auto", "--", python, FIXTURE],
    );
    let init = client.request(
        "initialize",
        json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "codex-mcp-client", "version": "1"}
        }),
    );
    assert!(init.get("result").is_some(), "{init}");
    client.notify("notifications/initialized", json!({}));
    let tools = client.list_tools();
    let echo = &tool(&tools, "echo_order")["inputSchema"];
    common::assert_openai_strict(echo, "echo_order");
    assert_eq!(
        echo["properties"]["note"]["type"],
        json!(["string", "null"])
    );
    // A strict model sends null for what it would leave out; the upstream sees it absent.
    let result = client.call(
        "echo_order",
        json!({
            "customer": {"name": "Cy", "address": {"street": "3 Ave", "city": "Rome", "zip_code": null}, "billing": null},
            "items": [{"sku": "C-3", "quantity": 1, "unit": null}],
            "priority": "2",
            "location": [41.9, 12.5],
            "tags": null,
            "note": null,
            "channel": null
        }),
    );
    assert_ne!(result["isError"], json!(true), "{result}");
    let echoed: Value = serde_json::from_str(&common::text_of(&result)).expect("echo is JSON");
    let raw = &echoed["raw"];
    assert_eq!(raw["priority"], json!(2), "{raw}");
    assert!(
        raw.get("tags").is_none() && raw.get("channel").is_none(),
        "{raw}"
    );
    assert!(raw["items"][0].get("unit").is_none(), "{raw}");
    assert_eq!(
        echoed["received"]["channel"], "web",
        "the default applies: {echoed}"
    );

    // The default profile stays Gemini-safe for the same client name.
    let mut gemini = StdioClient::start(tmp.path(), &["proxy", "--", python, FIXTURE]);
    let tools = gemini.list_tools();
    assert!(gemini_compat::lint(&tool(&tools, "echo_order")["inputSchema"]).is_empty());
}

/// A 2026-07-28 client (the AI SDK 7's MCP client) skips `initialize` and sends its protocol
/// version, identity and capabilities in every request's `_meta`. The proxy's upstream connection
/// is on the handshake era: the envelope must not reach it, and the upstream's results (which
/// carry no `resultType`) must reach the client marked complete.
#[test]
fn a_client_without_initialize_gets_calls_through() {
    let Some(python) = common::sdk_python() else {
        return;
    };
    let tmp = tempfile::tempdir().expect("tempdir");
    let python = python.to_str().expect("utf8 path");
    let mut client = StdioClient::spawn(
        tmp.path(),
        &["proxy", "--schema-profile", "auto", "--", python, FIXTURE],
    );
    let meta = |name: &str| {
        json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": name, "version": "1"}
        })
    };
    let discover = client.request("server/discover", json!({"_meta": meta("ai-sdk-app")}));
    assert!(discover.get("result").is_some(), "{discover}");
    let listed = client.request("tools/list", json!({"_meta": meta("ai-sdk-app")}));
    let tools = listed["result"]["tools"].as_array().expect("tools").clone();
    // `auto` reads the name from `_meta`: not an OpenAI client, so Gemini-safe.
    assert!(gemini_compat::lint(&tool(&tools, "echo_order")["inputSchema"]).is_empty());
    let call = client.request(
        "tools/call",
        json!({
            "name": "echo_order",
            "arguments": {
                "customer": {"name": "Di", "address": {"street": "4 Quay", "city": "Cork"}},
                "items": [{"sku": "D-4", "quantity": 1}],
                "priority": "3",
                "location": [51.9, -8.5]
            },
            "_meta": meta("ai-sdk-app")
        }),
    );
    let result = &call["result"];
    assert_eq!(result["resultType"], json!("complete"), "{call}");
    assert_ne!(result["isError"], json!(true), "{call}");
    let echoed: Value = serde_json::from_str(&common::text_of(result)).expect("echo is JSON");
    assert_eq!(echoed["raw"]["priority"], json!(3), "{echoed}");
}
