//! Hostile and lossy tool schemas through the real binary (#23 items 5, 6, 10, 11, 12b):
//! `fs-mcp-rs schema check --server` and `fs-mcp-rs proxy` in front of
//! tests/fixtures/captured_tools_server.py serving tools written here into a temporary file.
//! No timing assertions; the clients' own timeouts keep a regression from hanging the suite.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::StdioClient;
use serde_json::{Map, Value, json};

const SERVER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/captured_tools_server.py"
);

fn chain(combinator: &str) -> Value {
    let mut defs = Map::new();
    for i in 0..30 {
        let next = format!("#/$defs/A{}", i + 1);
        defs.insert(
            format!("A{i}"),
            json!({ combinator: [{"$ref": next}, {"$ref": next}] }),
        );
    }
    defs.insert(
        "A30".into(),
        json!({"type": "object", "properties": {"leaf": {"type": "string"}}}),
    );
    json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/A0"}}, "$defs": defs})
}

fn wide_below_the_cut() -> Value {
    let mut props = Map::new();
    for i in 0..513 {
        props.insert(format!("field_{i:03}"), json!({"type": "integer"}));
    }
    json!({"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "object",
        "properties": {"c": {"type": "object", "properties": {"wide": {"type": "object", "properties": props}}}}}}}}})
}

/// The hostile tools; the proxy test serves one chain only (each chain spends the transform's
/// whole work budget, which a debug build takes seconds for; `schema check` covers all three).
fn tools(all_chains: bool) -> Value {
    let values: Vec<String> = (0..100_000).map(|i| format!("v{i}")).collect();
    let chains: &[&str] = if all_chains {
        &["anyOf", "allOf", "oneOf"]
    } else {
        &["anyOf"]
    };
    let mut tools: Vec<Value> = chains
        .iter()
        .map(|c| json!({"name": format!("chain_{}", &c[..3].to_lowercase()), "inputSchema": chain(c)}))
        .collect();
    tools.extend(json!([
        {"name": "big_enum", "inputSchema": {"type": "object", "properties": {"pick": {"type": "string", "enum": values}}}},
        {"name": "kiali_get_resource_details", "inputSchema": {"type": "object",
            "properties": {"resourceName": {"type": "string"}, "namespaces": {"type": "string"}},
            "dependentRequired": {"resourceName": ["namespaces"]}}},
        {"name": "wide", "inputSchema": wide_below_the_cut()},
        {"name": "recursive", "inputSchema": {"type": "object", "properties": {"x": {"$ref": "#/$defs/A"}},
            "$defs": {"A": {"type": "integer", "anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/A"}]}}}},
        {"name": "strict", "inputSchema": {"type": "object", "properties": {
            "o": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false}}}},
    ])
    .as_array()
    .cloned()
    .unwrap_or_default());
    json!({ "tools": tools })
}

fn write_tools(dir: &Path, all_chains: bool) -> String {
    let path = dir.join("hostile.json");
    let tools = tools(all_chains);
    std::fs::write(&path, serde_json::to_vec(&tools).expect("json")).expect("write tools");
    path.to_str().expect("utf8 path").to_string()
}

fn by_name<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    tools
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no {name}"))
}

#[test]
fn schema_check_bounds_hostile_schemas_and_describes_every_loss() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let tools_file = write_tools(tmp.path(), true);
    let output = Command::new(common::BIN)
        .args([
            "schema",
            "check",
            "--json",
            "--server",
            "--",
            "python3",
            SERVER,
            &tools_file,
        ])
        .output()
        .expect("run fs-mcp-rs schema check");
    let report: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not a JSON report ({e}): {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    let tools = report["tools"].as_array().expect("tools");
    for name in ["chain_any", "chain_all", "chain_one"] {
        let t = by_name(tools, name);
        let served = serde_json::to_string(&t["transformed"]).expect("json");
        assert!(
            served.len() < 64 * 1024,
            "{name}: {} bytes served",
            served.len()
        );
        assert!(
            gemini_compat::lint(&t["transformed"]).is_empty(),
            "{name}: {served:.500}"
        );
    }
    let big = by_name(tools, "big_enum");
    let pick = &big["transformed"]["properties"]["pick"];
    assert!(
        pick["description"]
            .as_str()
            .unwrap_or_default()
            .starts_with("One of: v0, v1"),
        "{pick}"
    );
    // dependentRequired: described for the model, reported as a change.
    let kiali = by_name(tools, "kiali_get_resource_details");
    assert_eq!(
        kiali["transformed"]["description"],
        "If resourceName is given, namespaces is required too.",
        "{kiali:#}"
    );
    assert!(
        kiali["changes"]
            .to_string()
            .contains("dependentRequired moved into the description"),
        "{kiali:#}"
    );
    // Every one of the 513 properties below the depth cut is named, with its type.
    let wide = by_name(tools, "wide");
    let cut = &wide["transformed"]["properties"]["a"]["properties"]["b"]["properties"]["c"]["properties"]
        ["wide"];
    let doc = cut["description"].as_str().unwrap_or_default();
    for i in 0..513 {
        assert!(
            doc.contains(&format!("field_{i:03}?: integer")),
            "field_{i:03} missing: {doc:.300}"
        );
    }
}

/// The upstream's echo of what it received.
fn echoed(result: &Value) -> Value {
    let text = common::text_of(result);
    serde_json::from_str::<Value>(&text)
        .unwrap_or_else(|e| panic!("echo is not JSON ({e}): {text}"))["arguments"]
        .clone()
}

#[test]
fn the_proxy_never_hangs_on_coercion_and_never_forwards_content_the_schema_refuses() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let tools_file = write_tools(tmp.path(), false);
    let mut client = StdioClient::start(
        tmp.path(),
        &[
            "proxy",
            "--schema-profile",
            "openai-strict",
            "--",
            "python3",
            SERVER,
            &tools_file,
        ],
    );
    let tools = client.list_tools();
    assert_eq!(tools.len(), 6);
    // A recursive anyOf that accepts no string: refused naming the argument, never a pinned
    // worker (twice: both workers stay free).
    for _ in 0..2 {
        let result = client.call("recursive", json!({"x": "hello"}));
        assert_eq!(result["isError"], json!(true), "{result}");
        assert!(common::text_of(&result).contains("`x`"), "{result}");
    }
    assert_eq!(
        echoed(&client.call("recursive", json!({"x": "7"}))),
        json!({"x": 7})
    );
    // JSON text for an object with additionalProperties: false may not smuggle `admin` in.
    let sent = "{\"a\":\"v\",\"admin\":true}";
    // The proxy refuses it, naming the property, and sends nothing.
    let result = client.call("strict", json!({"o": sent}));
    assert_eq!(result["isError"], json!(true), "{result}");
    let text = common::text_of(&result);
    assert!(text.contains("o.admin"), "{text}");
    assert!(text.contains("Nothing was sent to strict"), "{text}");
    // What the raw schema accepts is still parsed.
    assert_eq!(
        echoed(&client.call("strict", json!({"o": "{\"a\":\"v\"}"}))),
        json!({"o": {"a": "v"}})
    );
    client.finish();
}
