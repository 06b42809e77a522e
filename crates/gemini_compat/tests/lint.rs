//! The linter: the verbatim schemars schema, one sample per rule, severities, tool names.

// Test code: a panic is how a test reports failure, and clippy's allow-unwrap-in-tests
// does not reach helpers outside #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use gemini_compat::{Issue, Rule, Severity, lint, lint_tool_name, transform};
use serde_json::{Value, json};

/// Verbatim `tools/list` inputSchema from rmcp 3.9.0 + schemars 1.2.3 (captured from the real server).
const SCHEMARS: &str = r##"{"$defs":{"Edit":{"description":"One edit to apply.","properties":{"count":{"description":"Count, usize.","format":"uint","minimum":0,"type":["integer","null"]},"line":{"description":"1-based line hint.","format":"uint32","minimum":0,"type":["integer","null"]},"new_text":{"description":"Replacement text.","type":"string"},"old_text":{"description":"Text to find.","type":"string"},"replace_all":{"description":"Replace all occurrences.","type":["boolean","null"]}},"required":["old_text","new_text"],"type":"object"}},"$schema":"https://json-schema.org/draft/2020-12/schema","properties":{"dry_run":{"default":false,"description":"Dry run.","type":"boolean"},"edits":{"description":"Edits to apply in order.","items":{"$ref":"#/$defs/Edit"},"type":"array"},"offset":{"description":"Signed offset.","format":"int64","type":["integer","null"]},"path":{"description":"Path of the file.","type":"string"}},"required":["path","edits"],"type":"object"}"##;

fn found(issues: &[Issue]) -> Vec<(&str, Rule, Severity)> {
    issues
        .iter()
        .map(|i| (i.path.as_str(), i.rule, i.severity))
        .collect()
}

#[test]
fn realistic_schemars_schema_reports_the_expected_issues() {
    let raw: Value = serde_json::from_str(SCHEMARS).unwrap();
    let issues = lint(&raw);
    use Rule::*;
    use Severity::*;
    assert_eq!(
        found(&issues),
        vec![
            ("/$defs/Edit/properties/count/type", R2, Critical),
            ("/$defs/Edit/properties/line/type", R2, Critical),
            ("/$defs/Edit/properties/replace_all/type", R2, Critical),
            ("/properties/edits/items/$ref", R1, Critical),
            ("/properties/offset/type", R2, Critical),
            ("/$defs/Edit/properties/count/format", R8, Medium),
            ("/$defs/Edit/properties/line/format", R8, Medium),
            ("/$schema", R9, Medium),
            // The block itself breaks no measured client; the $ref using it is critical.
            ("/$defs", R1, Low),
            ("/properties/dry_run/default", R9, Low),
        ]
    );
    let type_array = &issues[0].message;
    assert!(
        type_array.contains("LangChain") && type_array.contains("400"),
        "{type_array}"
    );
    // ... and its transform lints clean and keeps the argument shapes.
    let out = common::check(&raw);
    assert!(lint(&out).is_empty());
    assert_eq!(
        out["properties"]["edits"]["items"]["required"],
        json!(["old_text", "new_text"])
    );
    assert_eq!(
        out["properties"]["dry_run"]["description"],
        "Dry run. Default: false."
    );
    assert!(!transform(&raw).changes.is_empty());
}

fn issue_at(schema: Value, path: &str) -> Issue {
    let issues = lint(&schema);
    issues
        .iter()
        .find(|i| i.path == path)
        .cloned()
        .unwrap_or_else(|| panic!("no issue at {path}: {issues:#?}"))
}

fn on_prop(schema: Value) -> Value {
    json!({"type": "object", "properties": {"x": schema}})
}

#[test]
fn one_sample_per_rule() {
    use Rule::*;
    use Severity::*;
    let cases: Vec<(Value, &str, Rule, Severity)> = vec![
        (
            on_prop(json!({"$ref": "#/$defs/Missing"})),
            "/properties/x/$ref",
            R1,
            Critical,
        ),
        (
            on_prop(json!({"type": ["string", "null"]})),
            "/properties/x/type",
            R2,
            Critical,
        ),
        (
            on_prop(json!({"type": "null"})),
            "/properties/x/type",
            R2,
            Medium,
        ),
        (
            on_prop(json!({"type": "string", "nullable": true})),
            "/properties/x/nullable",
            R2,
            Low,
        ),
        (
            on_prop(json!({"oneOf": [{"type": "string"}]})),
            "/properties/x/oneOf",
            R3,
            Critical,
        ),
        (
            on_prop(json!({"allOf": [{"type": "string"}]})),
            "/properties/x/allOf",
            R3,
            Critical,
        ),
        (
            on_prop(json!({"anyOf": [{"type": "string"}], "description": "d"})),
            "/properties/x",
            R3,
            Medium,
        ),
        (
            on_prop(json!({"const": "a"})),
            "/properties/x/const",
            R4,
            Medium,
        ),
        (
            on_prop(json!({"type": "integer", "enum": [1, 2]})),
            "/properties/x/enum",
            R4,
            Critical,
        ),
        (
            on_prop(json!({"type": "array"})),
            "/properties/x",
            R5,
            Critical,
        ),
        (
            on_prop(json!({"type": "array", "prefixItems": [{"type": "string"}]})),
            "/properties/x/prefixItems",
            R5,
            Critical,
        ),
        (
            on_prop(json!({"type": "string", "items": {"type": "string"}})),
            "/properties/x/items",
            R5,
            Medium,
        ),
        (
            json!({"type": "object", "properties": {}, "required": ["gone"]}),
            "/required/0",
            R6,
            Medium,
        ),
        (
            on_prop(json!({"type": "object", "additionalProperties": {"type": "string"}})),
            "/properties/x/additionalProperties",
            R7,
            Medium,
        ),
        (
            on_prop(json!({"type": "object", "additionalProperties": false})),
            "/properties/x/additionalProperties",
            R7,
            Critical,
        ),
        (
            on_prop(json!({"type": "string", "format": "uri"})),
            "/properties/x/format",
            R8,
            Medium,
        ),
        (
            on_prop(json!({"type": "integer", "exclusiveMinimum": 0})),
            "/properties/x/exclusiveMinimum",
            R9,
            Medium,
        ),
        (
            on_prop(json!({"type": "string", "title": "X"})),
            "/properties/x/title",
            R9,
            Low,
        ),
        (
            on_prop(json!({"type": "string", "examples": ["a"]})),
            "/properties/x/examples",
            R9,
            Low,
        ),
        (
            on_prop(json!({"type": "array", "items": {"type": "string"}, "uniqueItems": true})),
            "/properties/x/uniqueItems",
            R9,
            Low,
        ),
        (
            on_prop(json!({"type": "string", "x-vendor": 1})),
            "/properties/x/x-vendor",
            R9,
            Medium,
        ),
        (
            json!({"type": "object", "anyOf": [{"required": ["a"]}]}),
            "/anyOf",
            R10,
            Critical,
        ),
        (json!({"type": "string"}), "", R10, Critical),
        (
            json!({"type": "object", "properties": {}}),
            "/properties",
            R10,
            Low,
        ),
        (on_prop(json!(true)), "/properties/x", R11, Critical),
        (
            on_prop(json!({"description": "untyped"})),
            "/properties/x",
            R11,
            Medium,
        ),
        (
            json!({"type": "object", "properties": {"my-prop": {"type": "string"}}}),
            "/properties/my-prop",
            R12,
            Medium,
        ),
        (
            on_prop(
                json!({"type": "string", "enum": (0..65).map(|i| i.to_string()).collect::<Vec<_>>()}),
            ),
            "/properties/x/enum",
            R13,
            Medium,
        ),
    ];
    for (schema, path, rule, severity) in cases {
        let issues = lint(&schema);
        assert!(
            issues
                .iter()
                .any(|i| i.path == path && i.rule == rule && i.severity == severity),
            "expected {rule} {severity} at {path:?}: {issues:#?}"
        );
        // Whatever the input, its transform lints clean.
        assert!(common::contract_issues(&transform(&schema).schema).is_empty());
    }
}

#[test]
fn recursive_and_missing_refs_are_told_apart() {
    let schema = json!({
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/T"}, "gone": {"$ref": "#/$defs/Gone"}},
        "$defs": {"T": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/T"}}}}}
    });
    assert!(
        issue_at(schema.clone(), "/properties/gone/$ref")
            .message
            .contains("no target")
    );
    assert!(
        issue_at(schema.clone(), "/properties/tree/$ref")
            .message
            .contains("recursive")
    );
    assert!(
        issue_at(schema, "/$defs/T/properties/kids/items/$ref")
            .message
            .contains("recursive")
    );
    // Indirect recursion through a second definition.
    let mutual = json!({
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A"}},
        "$defs": {"A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
                  "B": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}}}
    });
    assert!(
        issue_at(mutual, "/$defs/B/properties/a/$ref")
            .message
            .contains("recursive")
    );
}

#[test]
fn deep_objects_are_reported_through_refs() {
    let mut defs = serde_json::Map::new();
    for i in 0..8 {
        defs.insert(
            format!("L{i}"),
            json!({"type": "object", "properties": {"n": {"$ref": format!("#/$defs/L{}", i + 1)}}}),
        );
    }
    defs.insert("L8".into(), json!({"type": "string"}));
    let schema =
        json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/L0"}}, "$defs": defs});
    let issue = issue_at(schema.clone(), "");
    assert_eq!((issue.rule, issue.severity), (Rule::R13, Severity::Medium));
    assert!(issue.message.contains("9 levels"), "{}", issue.message);
    assert!(common::contract_issues(&transform(&schema).schema).is_empty());
}

#[test]
fn issues_are_sorted_by_severity_then_path() {
    let schema = json!({"type": "object", "title": "T", "properties": {"a": {"const": 1}, "b": {"oneOf": [{"type": "string"}]}}});
    let issues = lint(&schema);
    let severities: Vec<Severity> = issues.iter().map(|i| i.severity).collect();
    let mut sorted = severities.clone();
    sorted.sort();
    assert_eq!(severities, sorted);
    assert_eq!(issues[0].severity, Severity::Critical);
}

#[test]
fn tool_names() {
    for ok in ["read_files", "_x", "a.b:c-d", &"a".repeat(64)] {
        assert_eq!(lint_tool_name(ok), None, "{ok}");
    }
    for bad in ["", "1abc", "has space", "dollar$", &"a".repeat(65), "é"] {
        let issue = lint_tool_name(bad).unwrap_or_else(|| panic!("{bad:?} should be flagged"));
        assert_eq!(
            (issue.rule, issue.severity),
            (Rule::R12, Severity::Critical)
        );
    }
}

#[test]
fn ids_display_and_serialize() {
    assert_eq!(Rule::R1.to_string(), "R1");
    assert_eq!(Rule::R14.as_str(), "R14");
    assert_eq!(Severity::Critical.to_string(), "critical");
    assert_eq!(Severity::Low.as_str(), "low");
    let issue = lint_tool_name("1x").unwrap();
    let v = serde_json::to_value(&issue).unwrap();
    assert_eq!(v["rule"], "R12");
    assert_eq!(v["severity"], "critical");
    let t = transform(&json!({"type": "object", "title": "T"}));
    let v = serde_json::to_value(&t).unwrap();
    assert_eq!(
        v["changes"][0],
        json!({"path": "", "rule": "R9", "message": "dropped title"})
    );
}
