//! `fs-mcp-rs proxy` in front of an upstream whose arrays and unions sit past the depth budget
//! (R13): served as JSON text, they must reach the upstream as the raw array or object, and JSON
//! text that does not parse must be refused with a clear error, not forwarded as a string.
//! The upstream is tests/fixtures/captured_tools_server.py (system python3), which echoes what it
//! received.

use crate::common;

use common::StdioClient;
use serde_json::{Value, json};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");

fn start_proxy(cwd: &std::path::Path) -> StdioClient {
    let server = format!("{DIR}/captured_tools_server.py");
    let tools = format!("{DIR}/captured/deep_arrays.json");
    StdioClient::start(cwd, &["proxy", "--", "python3", &server, &tools])
}

/// The arguments the upstream received.
fn echoed(result: &Value) -> Value {
    assert_ne!(result["isError"], json!(true), "the call failed: {result}");
    let text = common::text_of(result);
    let echo: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("echo is not JSON ({e}): {text}"));
    echo["arguments"].clone()
}

#[test]
fn json_text_past_the_depth_budget_reaches_the_upstream_as_raw_values() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut client = start_proxy(tmp.path());
    let tools = client.list_tools();
    let c = &tools[0]["inputSchema"]["properties"]["a"]["properties"]["b"]["properties"]["c"];
    eprintln!("served c: {c:#}");
    for cut in ["list", "either"] {
        assert_eq!(
            c["properties"][cut]["type"], "string",
            "{cut} past the budget is served as a string: {c:#}"
        );
    }
    let sent = json!({"a": {"b": {"c": {
        "list": "[{\"x\": 1}, {\"x\": \"2\"}]",
        "either": "{\"k\": \"v\"}",
        "maybe": "[\"m\"]",
    }}}});
    let received = echoed(&client.call("deep", sent));
    let c = &received["a"]["b"]["c"];
    assert_eq!(c["list"], json!([{"x": 1}, {"x": 2}]), "{received}");
    assert_eq!(c["either"], json!({"k": "v"}), "{received}");
    assert_eq!(c["maybe"], json!(["m"]), "{received}");
    let received = echoed(&client.call("deep", json!({"a": {"b": {"c": {"either": "[1, 2]"}}}})));
    assert_eq!(
        received["a"]["b"]["c"]["either"],
        json!([1, 2]),
        "{received}"
    );
    // A union that accepts a plain string keeps one.
    let received = echoed(&client.call(
        "deep",
        json!({"a": {"b": {"c": {"text_or_list": "plain"}}}}),
    ));
    assert_eq!(
        received["a"]["b"]["c"]["text_or_list"], "plain",
        "{received}"
    );
    client.finish();
}

#[test]
fn malformed_json_text_is_refused_with_a_clear_error() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut client = start_proxy(tmp.path());
    client.list_tools();
    for (field, bad) in [
        ("list", "[{\"x\": 1},"),
        ("list", "not json"),
        ("either", "[1, 2"),
        ("maybe", "[\"m\""),
    ] {
        let result = client.call("deep", json!({"a": {"b": {"c": {field: bad}}}}));
        let text = common::text_of(&result);
        assert_eq!(
            result["isError"],
            json!(true),
            "{field}={bad:?} reached the upstream as a string: {text}"
        );
        assert!(
            text.contains(&format!("a.b.c.{field}")) && text.contains("JSON"),
            "{field}={bad:?}: the error names the argument and says what to send: {text}"
        );
        assert!(!text.contains("\"arguments\""), "{text}");
    }
    // The session is still usable.
    let received = echoed(&client.call("deep", json!({"a": {"b": {"c": {"list": "[]"}}}})));
    assert_eq!(received["a"]["b"]["c"]["list"], json!([]));
    client.finish();
}
