//! Keyword-aware traversal: properties named like keywords are names, not keywords.

// Test code: a panic is how a test reports failure, and clippy's allow-unwrap-in-tests
// does not reach helpers outside #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::check;
use gemini_compat::{Rule, lint};
use serde_json::{Value, json};

const NAMES: [&str; 20] = [
    "title",
    "default",
    "const",
    "format",
    "if",
    "then",
    "else",
    "not",
    "$ref",
    "items",
    "enum",
    "type",
    "properties",
    "required",
    "anyOf",
    "oneOf",
    "allOf",
    "$defs",
    "description",
    "examples",
];

fn schema() -> Value {
    let mut props = serde_json::Map::new();
    for n in NAMES {
        props.insert(
            n.to_string(),
            json!({"type": "string", "description": format!("The {n} field.")}),
        );
    }
    json!({"type": "object", "properties": props, "required": NAMES})
}

#[test]
fn keyword_named_properties_survive_and_stay_required() {
    let out = check(&schema());
    let props = out["properties"].as_object().unwrap();
    assert_eq!(props.len(), NAMES.len());
    for n in NAMES {
        assert_eq!(
            props[n],
            json!({"type": "string", "description": format!("The {n} field.")}),
            "{n}"
        );
    }
    let required: Vec<&str> = out["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(required, NAMES.to_vec());
}

#[test]
fn keyword_named_properties_are_not_lint_issues() {
    let issues = lint(&schema());
    // Only the names that break Gemini's name rule (`$ref`, `$defs`) are reported, as R12.
    assert_eq!(issues.len(), 2, "{issues:#?}");
    assert!(issues.iter().all(|i| i.rule == Rule::R12));
    assert_eq!(issues[0].path, "/properties/$defs");
    assert_eq!(issues[1].path, "/properties/$ref");
}

#[test]
fn keyword_named_properties_inside_refs_and_unions() {
    let input = json!({
        "type": "object",
        "properties": {"x": {"anyOf": [{"$ref": "#/$defs/K"}, {"type": "null"}]}},
        "$defs": {"K": {"type": "object", "properties": {"title": {"type": "integer"}, "default": {"const": "d"}},
                        "required": ["title", "default"]}}
    });
    assert_eq!(
        check(&input)["properties"]["x"],
        json!({"type": "object",
               "properties": {"default": {"type": "string", "enum": ["d"]}, "title": {"type": "integer"}},
               "required": ["title", "default"]})
    );
}
