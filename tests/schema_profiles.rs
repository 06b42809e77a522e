//! `--schema-profile` on the server itself: what `tools/list` serves per profile, `auto` deciding
//! per session by the client's `clientInfo.name`, and calls written for the strict schema (null for
//! every optional property) working.

use crate::common;

use common::{StdioClient, Workspace};
use serde_json::{Value, json};

/// Starts the server on `ws` with `args` and performs the handshake as `client_name`.
fn start_as(ws: &Workspace, args: &[&str], client_name: &str) -> StdioClient {
    let root = ws.root.to_str().expect("utf8 path");
    let mut all: Vec<&str> = args.to_vec();
    all.push(root);
    let mut client = StdioClient::spawn(&ws.base, &all);
    let init = client.request(
        "initialize",
        json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": client_name, "version": "1"}
        }),
    );
    assert!(init.get("result").is_some(), "{init}");
    client.notify("notifications/initialized", json!({}));
    client
}

fn tool<'a>(tools: &'a [Value], name: &str) -> &'a Value {
    tools
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

fn is_strict_listing(tools: &[Value]) -> bool {
    tools.iter().any(|t| {
        t["inputSchema"]["properties"].is_object()
            && t["inputSchema"]["additionalProperties"] == json!(false)
    })
}

#[test]
fn openai_strict_serves_strict_input_schemas_and_keeps_the_rest() {
    let ws = Workspace::new();
    let gemini = ws.start(&["--all"]).list_tools();
    let strict = ws
        .start(&["--all", "--schema-profile", "openai-strict"])
        .list_tools();
    assert_eq!(gemini.len(), strict.len());
    for (g, s) in gemini.iter().zip(&strict) {
        let name = s["name"].as_str().unwrap_or_default();
        assert_eq!(g["name"], s["name"], "same tools in the same order");
        common::assert_openai_strict(&s["inputSchema"], name);
        assert!(
            s["description"]
                .as_str()
                .unwrap_or_default()
                .chars()
                .count()
                <= gemini_compat::profile::MAX_DESCRIPTION_CHARS,
            "{name}: description longer than OpenAI's limit"
        );
        // Results are validated against outputSchema: it must not demand the optional fields.
        assert_eq!(g["outputSchema"], s["outputSchema"], "{name}");
        assert_eq!(g["annotations"], s["annotations"], "{name}");
        // The strict schema is the Gemini-safe one made strict, nothing else.
        assert_eq!(
            gemini_compat::openai_strict(&g["inputSchema"]),
            s["inputSchema"],
            "{name}"
        );
    }
    // An optional property accepts null; a required one does not.
    let read = &tool(&strict, "read_files")["inputSchema"];
    let item = &read["properties"]["files"]["items"];
    assert_eq!(
        item["properties"]["head"]["type"],
        json!(["integer", "null"])
    );
    assert_eq!(item["properties"]["path"]["type"], json!("string"));
}

#[test]
fn auto_decides_per_client_name() {
    let ws = Workspace::new();
    let default = ws.start(&[]).list_tools();
    assert!(!is_strict_listing(&default));

    let codex = start_as(&ws, &["--schema-profile", "auto"], "codex").list_tools();
    assert!(is_strict_listing(&codex));
    for t in &codex {
        common::assert_openai_strict(&t["inputSchema"], t["name"].as_str().unwrap_or_default());
    }

    let gemini_cli = start_as(&ws, &["--schema-profile", "auto"], "gemini-cli").list_tools();
    assert_eq!(
        gemini_cli, default,
        "a non-OpenAI client gets the default schemas"
    );

    // An explicit profile does not look at the name.
    let pinned = start_as(&ws, &["--schema-profile", "gemini"], "codex").list_tools();
    assert_eq!(pinned, default);
}

/// Arguments as a strict model writes them: `given` plus `null` for every optional property
/// (nullable in the strict schema) that `given` leaves out, at every level.
fn strict_arguments(schema: &Value, given: &Value) -> Value {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return given.clone();
    };
    let mut out = serde_json::Map::new();
    for (name, prop) in props {
        match given.get(name) {
            Some(Value::Array(items)) => {
                let item_schema = &prop["items"];
                let filled = items
                    .iter()
                    .map(|i| strict_arguments(item_schema, i))
                    .collect();
                out.insert(name.clone(), Value::Array(filled));
            }
            Some(v) => {
                out.insert(name.clone(), strict_arguments(prop, v));
            }
            None => {
                let nullable = match &prop["type"] {
                    Value::Array(types) => types.contains(&json!("null")),
                    _ => prop["anyOf"]
                        .as_array()
                        .is_some_and(|b| b.contains(&json!({"type": "null"}))),
                };
                assert!(nullable, "{name} is required: give it in the test");
                out.insert(name.clone(), Value::Null);
            }
        }
    }
    Value::Object(out)
}

#[test]
fn calls_with_null_for_every_optional_property_succeed() {
    let ws = Workspace::new();
    ws.write("notes/a.txt", "alpha\nneedle here\nomega\n");
    let mut client = start_as(&ws, &["--schema-profile", "auto"], "codex-mcp-client");
    let tools = client.list_tools();
    let calls = [
        (
            "read_files",
            json!({"files": [{"path": "notes/a.txt"}]}),
            "needle here",
        ),
        ("grep_content", json!({"pattern": "needle"}), "a.txt"),
        ("search_files", json!({"pattern": "*.txt"}), "a.txt"),
        ("directory_tree", json!({}), "notes"),
    ];
    for (name, given, expect) in calls {
        let arguments = strict_arguments(&tool(&tools, name)["inputSchema"], &given);
        assert!(
            has_null(&arguments),
            "{name}: the test sends at least one null: {arguments}"
        );
        let text = client.call_text(name, arguments.clone());
        assert!(
            text.contains(expect),
            "{name} with {arguments}: expected {expect:?} in {text}"
        );
    }
}

fn has_null(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Array(items) => items.iter().any(has_null),
        Value::Object(map) => map.values().any(has_null),
        _ => false,
    }
}

#[test]
fn auto_reads_the_name_of_a_client_that_skips_initialize() {
    let ws = Workspace::new();
    let root = ws.root.to_str().expect("utf8 path");
    let mut client = StdioClient::spawn(&ws.base, &["--schema-profile", "auto", root]);
    let list_as = |client: &mut StdioClient, name: &str| {
        let meta = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": name, "version": "1"}
        });
        let listed = client.request("tools/list", json!({"_meta": meta}));
        assert_eq!(
            listed["result"]["cacheScope"],
            json!("private"),
            "a listing that depends on the client must not be shared: {listed}"
        );
        listed["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("tools/list failed: {listed}"))
            .clone()
    };
    let discover = client.request(
        "server/discover",
        json!({"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "codex", "version": "1"}
        }}),
    );
    assert!(discover.get("result").is_some(), "{discover}");
    assert!(is_strict_listing(&list_as(&mut client, "codex")));
    // Each request names its client: the same connection, another name, the default schemas.
    assert!(!is_strict_listing(&list_as(&mut client, "ai-sdk-app")));
}

/// Every profile of the registry: `--help` offers it, the docs' profile table has its row, and
/// the server serves exactly the registry's rewrite of the Gemini-safe listing (`auto` resolves
/// by the client name, here `codex`). A new profile needs nothing else to be tested here.
#[test]
fn every_registered_profile_is_offered_documented_and_served_as_registered() {
    use gemini_compat::SchemaProfile;
    let help = std::process::Command::new(common::BIN)
        .arg("--help")
        .output()
        .expect("run --help");
    let help = String::from_utf8_lossy(&help.stdout);
    let docs = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/GEMINI_SCHEMA_COMPAT.md"),
    )
    .expect("read docs/GEMINI_SCHEMA_COMPAT.md");
    let ws = Workspace::new();
    let gemini = start_as(&ws, &["--all", "--schema-profile", "gemini"], "codex").list_tools();
    for (name, _) in SchemaProfile::choices() {
        assert!(
            help.contains(&format!("- {name}:")),
            "--help lacks {name}:\n{help}"
        );
        assert!(
            docs.contains(&format!("| `{name}`")),
            "docs/GEMINI_SCHEMA_COMPAT.md has no row for the profile {name}"
        );
        let profile = SchemaProfile::by_name(name)
            .expect("a listed name")
            .resolve(Some("codex"));
        let served = start_as(&ws, &["--all", "--schema-profile", name], "codex").list_tools();
        assert_eq!(served.len(), gemini.len(), "{name}");
        for (floor, tool) in gemini.iter().zip(&served) {
            let mut input = floor["inputSchema"].clone();
            let mut description = floor["description"].as_str().map(str::to_string);
            gemini_compat::profile::apply_to_tool(profile, &mut input, description.as_mut());
            assert_eq!(tool["inputSchema"], input, "{name}: {}", tool["name"]);
            assert_eq!(
                tool["description"].as_str(),
                description.as_deref(),
                "{name}: {}",
                tool["name"]
            );
        }
    }
}
