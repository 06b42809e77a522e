//! `fs-mcp-rs schema …` on our own tools and on another MCP server.

mod common;

use std::process::{Command, Output};

use serde_json::{Value, json};

fn schema(args: &[&str]) -> Output {
    Command::new(common::BIN)
        .arg("schema")
        .args(args)
        .output()
        .expect("run fs-mcp-rs schema")
}

fn json_report(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not a JSON report ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

#[test]
fn our_tools_are_all_compatible_and_their_raw_schemas_show_what_the_transform_fixes() {
    let output = schema(&["check", "--json"]);
    let report = json_report(&output);
    assert_eq!(output.status.code(), Some(0), "{report:#}");
    let total = report["summary"]["total"].as_u64().unwrap();
    assert!(total >= 2);
    assert_eq!(report["summary"]["compatible"], total);
    assert_eq!(report["summary"]["incompatible"], 0);
    let read = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "read_files")
        .expect("read_files in report");
    assert_eq!(read["status"], "COMPATIBLE");
    // The raw schemars schema is linted, not the transformed one: its $ref and type arrays show.
    let rules: Vec<&str> = read["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["rule"].as_str().unwrap())
        .collect();
    assert!(
        rules.contains(&"R1"),
        "raw $ref must be reported: {rules:?}"
    );
    assert!(
        rules.contains(&"R2"),
        "raw type arrays must be reported: {rules:?}"
    );
    assert!(!read["changes"].as_array().unwrap().is_empty());
    assert!(read["original"]["$defs"].is_object());
    assert!(read["transformed"].get("$defs").is_none());
}

#[test]
fn text_report_ends_with_a_summary_and_has_no_colour_when_piped() {
    let output = schema(&["check"]);
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(!text.contains('\x1b'), "no ANSI colours on a pipe");
    let last = text.lines().last().unwrap();
    assert!(last.contains("compatible, 0 incompatible"), "{last}");
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(
        schema(&["check", "--tool", "no_such_tool"]).status.code(),
        Some(2)
    );
    assert_eq!(schema(&["check", "--bogus"]).status.code(), Some(2));
    assert_eq!(schema(&["diff"]).status.code(), Some(2));
}

#[test]
fn diff_shows_raw_against_transformed() {
    let output = schema(&["diff", "read_files"]);
    assert!(output.status.success());
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("--- read_files (raw)") && text.contains("+++ read_files (transformed)"));
    assert!(text.contains("-  \"$defs\": {"), "{text}");
}

#[test]
fn transform_reads_a_schema_or_a_tools_list_from_stdin() {
    use std::io::Write;
    let run = |input: &Value| -> Value {
        let mut child = Command::new(common::BIN)
            .args(["schema", "transform", "-"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.to_string().as_bytes())
            .unwrap();
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success());
        serde_json::from_slice(&output.stdout).unwrap()
    };
    let schema = json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {"type": "string"}}});
    let out = run(&schema);
    assert_eq!(out["properties"]["a"]["type"], "string");
    assert!(out.get("$defs").is_none() && out.get("$schema").is_none());
    let listing = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "t", "inputSchema": schema}]}});
    let out = run(&listing);
    assert_eq!(
        out["result"]["tools"][0]["inputSchema"]["properties"]["a"]["type"],
        "string"
    );
}

#[test]
fn another_server_with_tricky_schemas_is_reported_and_the_transform_fixes_each_problem() {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/tricky_server.py"
    );
    let output = schema(&["check", "--json", "--server", "--", "python3", fixture]);
    let report = json_report(&output);
    assert_eq!(output.status.code(), Some(1), "{report:#}");
    assert_eq!(report["summary"]["total"], 3);
    assert_eq!(report["summary"]["incompatible"], 3);
    let tools = report["tools"].as_array().unwrap();
    let rules_of = |name: &str| -> Vec<String> {
        let tool = tools.iter().find(|t| t["name"] == name).unwrap();
        tool["issues"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["rule"].as_str().unwrap().to_string())
            .collect()
    };
    let edit = rules_of("edit_file");
    assert!(edit.contains(&"R1".into()), "$ref: {edit:?}");
    assert!(edit.contains(&"R4".into()), "integer enum: {edit:?}");
    assert!(edit.contains(&"R9".into()), "$schema/title: {edit:?}");
    let tree = rules_of("tree");
    assert!(tree.contains(&"R1".into()), "recursive $ref: {tree:?}");
    let weather = rules_of("weather");
    for (rule, what) in [("R3", "oneOf"), ("R5", "tuple"), ("R7", "map")] {
        assert!(weather.contains(&rule.into()), "{what}: {weather:?}");
    }
    assert!(
        weather.contains(&"R2".into()) || weather.contains(&"R3".into()),
        "anyOf with null: {weather:?}"
    );
    for tool in tools {
        let issues = gemini_compat::lint(&tool["transformed"]);
        assert!(
            issues.is_empty(),
            "{}: transform left {issues:?}",
            tool["name"]
        );
    }
}
