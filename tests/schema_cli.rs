//! `fs-mcp-rs schema …` on our own tools and on another MCP server.

use crate::common;

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

/// The captured-tools stand-in serving `tests/fixtures/captured/NAME.json`.
fn captured(name: &str) -> [String; 2] {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
    [
        format!("{dir}/captured_tools_server.py"),
        format!("{dir}/captured/{name}.json"),
    ]
}

/// `schema check --server` (plus `extra` flags) on a captured fixture.
fn check_captured(name: &str, extra: &[&str]) -> Output {
    let [server, tools] = captured(name);
    let mut args = vec!["check"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--server", "--", "python3", &server, &tools]);
    schema(&args)
}

/// Compares `actual` with tests/golden/schema_check/FILE, or rewrites it under UPDATE_GOLDEN=1.
fn golden(file: &str, actual: &str) {
    common::assert_golden(
        &format!("schema_check/{file}"),
        actual,
        "the report",
        "schema_cli",
    );
}

const FIXTURES: [&str; 5] = [
    "notion_like",
    "properties_ref",
    "additional_properties",
    "title_default",
    "deep_nesting",
];

/// Golden text (summary and --verbose) and JSON reports for every captured fixture.
#[test]
fn reports_on_captured_servers_match_golden() {
    for name in FIXTURES {
        let text = check_captured(name, &[]);
        let verbose = check_captured(name, &["--verbose"]);
        let json = check_captured(name, &["--json"]);
        let report = json_report(&json);
        let expected_code = if report["summary"]["incompatible"] == 0 {
            0
        } else {
            1
        };
        for output in [&text, &verbose, &json] {
            assert_eq!(
                output.status.code(),
                Some(expected_code),
                "{name}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        golden(
            &format!("{name}.txt"),
            &String::from_utf8_lossy(&text.stdout),
        );
        golden(
            &format!("{name}.verbose.txt"),
            &String::from_utf8_lossy(&verbose.stdout),
        );
        golden(
            &format!("{name}.json"),
            &String::from_utf8_lossy(&json.stdout),
        );
    }
}

fn tool<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name} in {report:#}"))
}

fn issues_of(tool: &Value) -> &Vec<Value> {
    tool["issues"].as_array().unwrap()
}

#[test]
fn shared_definitions_a_tool_never_uses_are_not_reported() {
    let report = json_report(&check_captured("notion_like", &["--json"]));
    let fixture: Value =
        serde_json::from_str(&std::fs::read_to_string(&captured("notion_like")[1]).unwrap())
            .unwrap();
    let defs = fixture["tools"][0]["inputSchema"]["$defs"]
        .as_object()
        .unwrap()
        .len();
    // Uses nothing: every definition is skipped, and the $defs block alone is only low.
    let page = tool(&report, "API-retrieve-a-page");
    assert_eq!(page["status"], "COMPATIBLE");
    assert_eq!(page["unused_definitions"].as_array().unwrap().len(), defs);
    assert!(
        issues_of(page).iter().all(|i| i["severity"] == "low"),
        "{page:#}"
    );
    // Uses parentRequest → idRequest: findings there, none in the other definitions.
    let post = tool(&report, "API-post-page");
    let paths: Vec<&str> = issues_of(post)
        .iter()
        .map(|i| i["path"].as_str().unwrap())
        .collect();
    assert!(
        paths.contains(&"/$defs/idRequest/format"),
        "reached transitively: {paths:?}"
    );
    for path in &paths {
        assert!(
            !path.starts_with("/$defs/")
                || path.starts_with("/$defs/parentRequest")
                || path.starts_with("/$defs/idRequest"),
            "unused definition reported: {path}"
        );
    }
    assert_eq!(
        post["unused_definitions"].as_array().unwrap().len(),
        defs - 2
    );
    // The boolean additionalProperties crashes google-genai: critical, so INCOMPATIBLE.
    assert_eq!(post["status"], "INCOMPATIBLE");
    let ap = issues_of(post)
        .iter()
        .find(|i| i["path"] == "/properties/properties/additionalProperties")
        .expect("additionalProperties: true reported");
    assert_eq!(ap["severity"], "critical");
    let verbose = check_captured("notion_like", &["--verbose"]);
    let text = String::from_utf8_lossy(&verbose.stdout);
    assert!(
        text.contains(&format!("{defs} unused definitions ignored")),
        "{text}"
    );
}

#[test]
fn a_reference_into_properties_is_critical() {
    let report = json_report(&check_captured("properties_ref", &["--json"]));
    let batch = tool(&report, "fetch_batch");
    let issue = issues_of(batch)
        .iter()
        .find(|i| i["path"] == "/properties/fallback/$ref")
        .expect("the #/properties ref");
    assert_eq!(issue["severity"], "critical");
    assert!(issue["message"].as_str().unwrap().contains("3.0.141"));
    assert_eq!(batch["status"], "INCOMPATIBLE");
    assert_eq!(tool(&report, "fetch_one")["status"], "COMPATIBLE");
}

#[test]
fn title_and_default_alone_keep_a_tool_compatible() {
    let output = check_captured("title_default", &["--json"]);
    let report = json_report(&output);
    assert_eq!(output.status.code(), Some(0), "{report:#}");
    assert_eq!(report["summary"]["incompatible"], 0);
    assert!(report["summary"]["findings"]["low"].as_u64().unwrap() > 0);
    assert_eq!(report["summary"]["findings"]["critical"], 0);
    assert_eq!(report["summary"]["findings"]["medium"], 0);
}

#[test]
fn depth_findings_appear_in_the_summary() {
    let report = json_report(&check_captured("deep_nesting", &["--json"]));
    let nested = tool(&report, "aggregate_nested");
    assert!(
        issues_of(nested).iter().any(|i| i["rule"] == "R13"),
        "{nested:#}"
    );
    let text = check_captured("deep_nesting", &[]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.lines()
            .any(|l| l.contains("R13") && l.contains("nest")),
        "{text}"
    );
}

#[test]
fn server_mode_shows_raw_findings_once_and_the_proxied_schema_clean() {
    let report = json_report(&check_captured("additional_properties", &["--json"]));
    let verbose = check_captured("additional_properties", &["--verbose"]);
    let text = String::from_utf8_lossy(&verbose.stdout);
    for t in report["tools"].as_array().unwrap() {
        assert!(t["transformed_issues"].as_array().unwrap().is_empty());
        for issue in issues_of(t) {
            let line = format!(
                "[{} {}] {} {}",
                issue["rule"].as_str().unwrap(),
                issue["severity"].as_str().unwrap(),
                issue["path"].as_str().unwrap(),
                issue["message"].as_str().unwrap()
            );
            let times = text.matches(&line).count();
            let expected = report["tools"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(issues_of)
                .filter(|i| i == &issue)
                .count();
            assert_eq!(times, expected, "{line} shown {times} times:\n{text}");
        }
    }
    assert_eq!(
        text.matches("through `fs-mcp-rs proxy`: clean").count(),
        report["summary"]["total"].as_u64().unwrap() as usize,
        "{text}"
    );
    // Without --verbose: the summary, no per-tool finding lines.
    let summary = check_captured("additional_properties", &[]);
    let summary = String::from_utf8_lossy(&summary.stdout);
    assert!(!summary.contains("[R7 "), "{summary}");
    assert!(summary.contains("--verbose"), "{summary}");
}

#[test]
fn our_own_check_is_one_screen_with_the_served_schemas_clean() {
    let output = schema(&["check"]);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.lines().count() <= 24, "not one screen:\n{text}");
    assert!(text.contains("served schemas: all clean"), "{text}");
    assert!(text.contains("incompatible: none"), "{text}");
    // What the transform protects against is still shown.
    assert!(text.contains("critical R"), "{text}");
    let verbose = schema(&["check", "--verbose", "--tool", "read_files"]);
    let verbose = String::from_utf8_lossy(&verbose.stdout);
    assert!(
        verbose.contains("read_files  COMPATIBLE")
            && verbose.contains("served (transformed) schema: clean"),
        "{verbose}"
    );
}
