//! The linter reports only what a tool can reach, with severities from the one table in
//! `Check` (mirrored in docs/GEMINI_SCHEMA_COMPAT.md).

// Test code: a panic is how a test reports failure, and clippy's allow-unwrap-in-tests
// does not reach helpers outside #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;

use gemini_compat::{Check, Issue, Rule, Severity, lint, lint_report};
use serde_json::{Value, json};

fn at<'a>(issues: &'a [Issue], path: &str) -> &'a Issue {
    issues
        .iter()
        .find(|i| i.path == path)
        .unwrap_or_else(|| panic!("no issue at {path}: {issues:#?}"))
}

/// Notion attaches every definition to every tool; this tool uses one of them.
fn shared_defs_tool() -> Value {
    json!({
        "type": "object",
        "properties": {
            "page_id": {"type": "string"},
            "parent": {"$ref": "#/$defs/parentRequest"}
        },
        "required": ["page_id"],
        "$defs": {
            "parentRequest": {"type": "object", "properties": {"page_id": {"$ref": "#/$defs/idRequest"}}},
            "idRequest": {"type": "string", "format": "uuid"},
            "richTextRequest": {"type": "object", "properties": {"text": {"const": "x"}}, "additionalProperties": true},
            "blockRequest": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "sortRequest": {"type": ["string", "null"]}
        }
    })
}

#[test]
fn unused_definitions_produce_no_findings_and_are_listed() {
    let report = lint_report(&shared_defs_tool());
    let paths: Vec<&str> = report.issues.iter().map(|i| i.path.as_str()).collect();
    assert!(
        paths
            .iter()
            .all(|p| !p.starts_with("/$defs/richTextRequest")
                && !p.starts_with("/$defs/blockRequest")
                && !p.starts_with("/$defs/sortRequest")),
        "{paths:?}"
    );
    // Reached transitively: parent → parentRequest → idRequest (its format is an R8 finding).
    assert_eq!(at(&report.issues, "/$defs/idRequest/format").rule, Rule::R8);
    assert_eq!(
        at(
            &report.issues,
            "/$defs/parentRequest/properties/page_id/$ref"
        )
        .rule,
        Rule::R1
    );
    assert_eq!(
        report.unused_definitions,
        vec![
            "/$defs/blockRequest",
            "/$defs/richTextRequest",
            "/$defs/sortRequest"
        ]
    );
    // The block alone is low: converters inline what is used and drop it.
    assert_eq!(at(&report.issues, "/$defs").severity, Severity::Low);
    assert_eq!(lint(&shared_defs_tool()), report.issues);
}

#[test]
fn a_definition_used_only_by_an_unused_one_is_unused_too() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "$defs": {"X": {"$ref": "#/$defs/Y"}, "Y": {"type": "string", "title": "Y"}}
    });
    let report = lint_report(&schema);
    assert_eq!(report.unused_definitions, vec!["/$defs/X", "/$defs/Y"]);
    assert!(
        report.issues.iter().all(|i| !i.path.starts_with("/$defs/")),
        "{:#?}",
        report.issues
    );
}

#[test]
fn a_pointer_into_properties_is_critical_because_ai_sdk_6_throws() {
    let schema = json!({
        "type": "object",
        "properties": {
            "headers": {"type": "object", "properties": {"name": {"type": "string"}}},
            "more": {"type": "array", "items": {"$ref": "#/properties/headers"}}
        }
    });
    let issue = at(&lint(&schema), "/properties/more/items/$ref").clone();
    assert_eq!((issue.rule, issue.severity), (Rule::R1, Severity::Critical));
    assert!(
        issue.message.contains("3.0.141") && issue.message.contains("whole request"),
        "{}",
        issue.message
    );
}

#[test]
fn a_definitions_reference_names_google_genai_keyerror() {
    let schema = json!({
        "type": "object",
        "properties": {"a": {"$ref": "#/definitions/A"}},
        "definitions": {"A": {"type": "string"}}
    });
    let issue = at(&lint(&schema), "/properties/a/$ref").clone();
    assert_eq!(issue.severity, Severity::Critical);
    assert!(issue.message.contains("KeyError"), "{}", issue.message);
}

#[test]
fn boolean_additional_properties_is_critical_either_way() {
    for b in [true, false] {
        let schema = json!({"type": "object", "properties": {"m": {"type": "object", "additionalProperties": b}}});
        let issue = at(&lint(&schema), "/properties/m/additionalProperties").clone();
        assert_eq!((issue.rule, issue.severity), (Rule::R7, Severity::Critical));
        assert!(issue.message.contains("google-genai"), "{}", issue.message);
    }
}

#[test]
fn title_and_default_alone_are_only_low() {
    let schema = json!({
        "type": "object",
        "title": "SearchArgs",
        "properties": {
            "query": {"type": "string", "title": "Query"},
            "limit": {"type": "integer", "title": "Limit", "default": 10}
        }
    });
    let issues = lint(&schema);
    assert!(!issues.is_empty());
    assert!(
        issues.iter().all(|i| i.severity == Severity::Low),
        "{issues:#?}"
    );
}

#[test]
fn check_ids_are_unique_and_each_row_is_consistent() {
    let mut ids = HashSet::new();
    for check in Check::ALL {
        assert!(ids.insert(check.id()), "duplicate id {}", check.id());
        assert!(
            check
                .id()
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '-'),
            "{}",
            check.id()
        );
    }
    assert_eq!(
        Check::AdditionalPropertiesBoolean.severity(),
        Severity::Critical
    );
    assert_eq!(Check::RefOtherPointer.severity(), Severity::Critical);
    assert_eq!(Check::Title.severity(), Severity::Low);
    assert_eq!(Check::Default.severity(), Severity::Low);
}

/// The severity table in the docs is the table in the code.
#[test]
fn the_documented_severity_table_matches_the_code() {
    let doc = include_str!("../../../docs/GEMINI_SCHEMA_COMPAT.md");
    let rows: Vec<(String, String, String)> = doc
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let id = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
            let rule = cells.get(2)?;
            let severity = cells.get(3)?;
            let is_rule = rule
                .strip_prefix('R')
                .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
            is_rule.then(|| (id.to_string(), rule.to_string(), severity.to_string()))
        })
        .collect();
    for check in Check::ALL {
        let expected = (
            check.id().to_string(),
            check.rule().to_string(),
            check.severity().to_string(),
        );
        assert!(
            rows.contains(&expected),
            "docs/GEMINI_SCHEMA_COMPAT.md lacks the row | `{}` | {} | {} |",
            expected.0,
            expected.1,
            expected.2
        );
    }
    assert_eq!(
        rows.len(),
        Check::ALL.len(),
        "the docs table has rows no check has"
    );
}

/// The depth finding (computed outside the table's helper) carries the table's severity.
#[test]
fn the_depth_finding_has_the_tables_severity() {
    let mut schema = json!({"type": "string"});
    for _ in 0..10 {
        schema = json!({"type": "object", "properties": {"n": schema}});
    }
    let issue = lint(&schema)
        .into_iter()
        .find(|i| i.rule == Rule::R13)
        .expect("a depth finding");
    assert_eq!(issue.severity, Check::NestingDepth.severity());
}
