//! Shared test helpers.
#![allow(dead_code)]

use gemini_compat::{Issue, Rule, lint, transform};
use serde_json::Value;

/// Meta-schema validity (draft 2020-12).
pub fn assert_meta_valid(schema: &Value) {
    if let Err(e) = jsonschema::draft202012::meta::validate(schema) {
        panic!("not a valid 2020-12 schema: {e}\n{schema:#}");
    }
}

/// Lint issues other than R12 (property names are left alone on purpose).
pub fn contract_issues(schema: &Value) -> Vec<Issue> {
    lint(schema)
        .into_iter()
        .filter(|i| i.rule != Rule::R12)
        .collect()
}

/// Transform and check every output guarantee; return the output schema.
pub fn check(input: &Value) -> Value {
    let first = transform(input);
    let issues = contract_issues(&first.schema);
    assert!(
        issues.is_empty(),
        "output does not lint clean: {issues:#?}\n{:#}",
        first.schema
    );
    let second = transform(&first.schema);
    assert_eq!(second.schema, first.schema, "not idempotent");
    assert!(
        second.changes.is_empty(),
        "second pass changed things: {:#?}",
        second.changes
    );
    assert_meta_valid(&first.schema);
    first.schema
}

/// The schema at a property of the root.
pub fn prop<'a>(schema: &'a Value, name: &str) -> &'a Value {
    &schema["properties"][name]
}

/// Whether the output's `required` lists `name`.
pub fn is_required(schema: &Value, name: &str) -> bool {
    schema["required"]
        .as_array()
        .is_some_and(|r| r.iter().any(|x| x == name))
}

/// Wrap a property schema into a root object.
pub fn root_with(name: &str, schema: Value) -> Value {
    serde_json::json!({ "type": "object", "properties": { name: schema } })
}

/// Validate an instance against a schema (2020-12).
pub fn validates(schema: &Value, instance: &Value) -> bool {
    jsonschema::draft202012::new(schema)
        .unwrap_or_else(|e| panic!("schema does not compile: {e}\n{schema:#}"))
        .is_valid(instance)
}
