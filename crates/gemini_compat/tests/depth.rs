//! R13 depth budget: every nesting step counts (properties, items, union branches, map
//! values, through `$ref`), the transform cuts past `MAX_DEPTH` into described leaves,
//! the linter counts the same way, and arguments for the cut parts come back intact.

// Test code: a panic is how a test reports failure, and clippy's allow-unwrap-in-tests
// does not reach helpers outside #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{check, validates};
use gemini_compat::{MAX_DEPTH, Rule, coerce_arguments, lint, transform};
use serde_json::{Value, json};

/// Shaped like MongoDB MCP's `explain`: anyOf inside items inside objects, 12 steps deep
/// with only 6 levels of objects.
fn mongodb_explain() -> Value {
    json!({
        "type": "object",
        "properties": {
            "database": {"type": "string"},
            "method": {
                "type": "array",
                "description": "The method and its arguments to run",
                "items": {"anyOf": [
                    {"type": "object", "properties": {
                        "name": {"const": "aggregate"},
                        "arguments": {"type": "object", "properties": {
                            "pipeline": {"type": "array", "description": "Aggregation stages",
                                         "items": {"type": "object", "additionalProperties": {}}},
                            "options": {"anyOf": [{"$ref": "#/$defs/Options"}, {"type": "null"}]}
                        }, "required": ["pipeline"]}
                    }, "required": ["name", "arguments"]},
                    {"type": "object", "properties": {
                        "name": {"const": "find"},
                        "arguments": {"type": "object", "properties": {
                            "filter": {"type": "object", "additionalProperties": true},
                            "sort": {"$ref": "#/$defs/Sort"},
                            "limit": {"type": "integer"}
                        }}
                    }, "required": ["name", "arguments"]}
                ]}
            },
            "verbosity": {"type": "string", "enum": ["queryPlanner", "executionStats"]}
        },
        "required": ["database", "method"],
        "$defs": {
            "Options": {"type": "object", "properties": {
                "collation": {"type": "object", "properties": {
                    "locale": {"type": "string"},
                    "custom": {"type": "array", "items": {"type": "object", "properties": {
                        "rule": {"anyOf": [
                            {"type": "string"},
                            {"type": "object", "properties": {"x": {"type": "string"}}}
                        ]}
                    }}}
                }, "required": ["locale"]}
            }},
            "Sort": {"type": "object", "additionalProperties": {
                "description": "Sort direction or a $meta expression",
                "anyOf": [
                    {"enum": [1, -1]},
                    {"enum": ["asc", "desc"]},
                    {"type": "object", "properties": {"$meta": {"type": "string"}}, "required": ["$meta"]}
                ]
            }}
        }
    })
}

/// Nesting steps of an output schema (properties, items, anyOf only).
fn steps(schema: &Value) -> usize {
    let mut children: Vec<&Value> = Vec::new();
    if let Some(props) = schema["properties"].as_object() {
        children.extend(props.values());
    }
    if schema["items"].is_object() {
        children.push(&schema["items"]);
    }
    if let Some(branches) = schema["anyOf"].as_array() {
        children.extend(branches);
    }
    children
        .into_iter()
        .map(|c| 1 + steps(c))
        .max()
        .unwrap_or(0)
}

#[test]
fn the_linter_counts_every_step_through_refs() {
    let issues = lint(&mongodb_explain());
    let depth: Vec<_> = issues.iter().filter(|i| i.rule == Rule::R13).collect();
    assert_eq!(depth.len(), 1, "{issues:#?}");
    // method → items → anyOf branch → arguments → options → anyOf branch ($ref followed)
    // → collation → custom → items → rule → anyOf branch → x
    assert!(
        depth[0].message.contains("12 levels"),
        "{}",
        depth[0].message
    );
    // Objects only nest 6 deep: an object-only count would have let it through.
    let shallow = json!({"type": "object", "properties": {"a": {"type": "array", "items": {"type": "string"}}}});
    assert!(lint(&shallow).iter().all(|i| i.rule != Rule::R13));
}

#[test]
fn deep_schemas_are_cut_at_the_budget_into_described_leaves() {
    let raw = mongodb_explain();
    let served = check(&raw);
    assert!(steps(&served) <= MAX_DEPTH, "{served:#}");
    let branches = served["properties"]["method"]["items"]["anyOf"]
        .as_array()
        .expect("method items stay a union");
    assert_eq!(branches.len(), 2);
    // `arguments` sits MAX_DEPTH steps down: an object, its shape in the description.
    let find = &branches[1]["properties"]["arguments"];
    assert_eq!(find["type"], "object");
    assert!(find.get("properties").is_none());
    let doc = find["description"].as_str().unwrap_or_default();
    assert!(doc.starts_with("Nested deeper; shape: {"), "{doc}");
    assert!(doc.contains("limit?: integer"), "{doc}");
    assert!(doc.contains("sort?: object"), "{doc}");
    let changes = transform(&raw).changes;
    assert!(
        changes.iter().any(|c| c.rule == Rule::R13
            && c.path == "/properties/method/items/anyOf/1/properties/arguments"),
        "{changes:#?}"
    );
}

#[test]
fn arguments_below_the_cut_still_reach_the_raw_types() {
    let raw = mongodb_explain();
    let served = transform(&raw).schema;
    let client = json!({"database": "db", "method": [
        {"name": "find", "arguments": {"filter": {"a": 1}, "sort": {"score": "-1", "t": "asc"}, "limit": "5"}}
    ]});
    assert!(validates(&served, &client));
    let coerced = coerce_arguments(&raw, client);
    assert_eq!(
        coerced,
        json!({"database": "db", "method": [
            {"name": "find", "arguments": {"filter": {"a": 1}, "sort": {"score": -1, "t": "asc"}, "limit": 5}}
        ]})
    );
    assert!(validates(&raw, &coerced));
}

#[test]
fn an_array_at_the_budget_is_served_as_json_text_and_parsed_back() {
    let raw = json!({"type": "object", "properties": {"a": {"type": "object", "properties": {
        "b": {"type": "object", "properties": {"c": {"type": "object", "properties": {
            "tags": {"type": "array", "items": {"type": "integer"}, "description": "Tag ids"}
        }}}}
    }}}});
    let served = check(&raw);
    let tags =
        &served["properties"]["a"]["properties"]["b"]["properties"]["c"]["properties"]["tags"];
    assert_eq!(
        tags,
        &json!({"type": "string", "description": "Tag ids. Nested deeper; give it as JSON text: integer[]."})
    );
    let client = json!({"a": {"b": {"c": {"tags": "[1, \"2\"]"}}}});
    assert!(validates(&served, &client));
    let coerced = coerce_arguments(&raw, client);
    assert_eq!(coerced, json!({"a": {"b": {"c": {"tags": [1, 2]}}}}));
    assert!(validates(&raw, &coerced));
}

#[test]
fn map_values_keep_their_shape_and_description() {
    let served = check(
        &json!({"type": "object", "properties": {"sort": {"$ref": "#/$defs/Sort"}},
        "$defs": mongodb_explain()["$defs"].clone()}),
    );
    assert_eq!(
        served["properties"]["sort"],
        json!({"type": "object", "description":
            "Map of name → 1 | -1 | \"asc\" | \"desc\" | {$meta: string} value. Values: Sort direction or a $meta expression."})
    );
    // A value given by reference brings the definition's description.
    let served = check(
        &json!({"type": "object", "properties": {"env": {"type": "object",
        "additionalProperties": {"$ref": "#/$defs/Var"}}},
        "$defs": {"Var": {"type": "string", "description": "Value of the variable"}}}),
    );
    assert_eq!(
        served["properties"]["env"]["description"],
        "Map of name → string value. Values: Value of the variable."
    );
    // Pattern keys carry their value shape too, and the rendering is bounded.
    let long: Vec<String> = (0..200).map(|i| format!("value{i}")).collect();
    let served = check(
        &json!({"type": "object", "properties": {"m": {"type": "object",
        "patternProperties": {"^x-": {"type": "array", "items": {"type": "string", "enum": long}}}}}}),
    );
    let doc = served["properties"]["m"]["description"]
        .as_str()
        .unwrap_or_default();
    assert!(
        doc.starts_with("Keys matching ^x-: (\"value0\" | \"value1\" | "),
        "{doc}"
    );
    assert!(doc.chars().count() < 400, "{doc}");
}

/// An object `levels` steps below the root holding `count` properties, each an object with two
/// typed properties of its own (so the cut has nested detail to give up first).
fn wide_below_the_cut(count: usize) -> Value {
    let mut props = serde_json::Map::new();
    for i in 0..count {
        props.insert(
            format!("field_{i:04}"),
            json!({"type": "object", "properties": {"id": {"type": "integer"}, "label": {"type": "string"}},
                   "required": ["id"]}),
        );
    }
    let wide = json!({"type": "object", "properties": props, "required": ["field_0000"]});
    json!({"type": "object", "properties": {"a": {"type": "object", "properties": {"b": {"type": "object",
        "properties": {"c": {"type": "object", "properties": {"wide": wide}}}}}}}})
}

fn cut_description(out: &Value) -> String {
    let wide = &out["properties"]["a"]["properties"]["b"]["properties"]["c"]["properties"]["wide"];
    assert_eq!(wide["type"], "object", "{wide:#}");
    assert!(
        wide.get("properties").is_none(),
        "cut at the budget: {wide:#}"
    );
    wide["description"].as_str().unwrap_or_default().to_string()
}

#[test]
fn every_property_name_and_type_below_a_cut_is_in_its_description() {
    // 513 properties below the cut (kubernetes-mcp-server-like): all named, with their type,
    // the required one unmarked and the optional ones marked `?`, within the stated bound (16 000 characters).
    let out = check(&wide_below_the_cut(513));
    let doc = cut_description(&out);
    assert!(
        doc.chars().count() <= 16_200,
        "{} characters",
        doc.chars().count()
    );
    assert!(
        doc.contains("field_0000: {…}") || doc.contains("field_0000: {id: integer"),
        "{doc:.300}"
    );
    for i in 1..513 {
        let name = format!("field_{i:04}?: ");
        assert!(
            doc.contains(&name),
            "{name} missing from the cut's description"
        );
    }
    // A small cut keeps the nested detail.
    let small = check(&wide_below_the_cut(3));
    let doc = cut_description(&small);
    assert!(
        doc.contains("field_0001?: {id: integer, label?: string}"),
        "{doc}"
    );
}

#[test]
fn a_cut_too_wide_to_list_says_how_many_properties_are_not_shown() {
    let out = check(&wide_below_the_cut(3_000));
    let doc = cut_description(&out);
    assert!(
        doc.chars().count() <= 16_200,
        "{} characters",
        doc.chars().count()
    );
    assert!(doc.contains("field_0000: {…}"), "{doc:.300}");
    let listed = (0..3000)
        .filter(|i| doc.contains(&format!("field_{i:04}")))
        .count();
    let more = format!("… {} more}}", 3000 - listed);
    assert!(
        doc.contains(&more),
        "says {more}: {}",
        &doc[doc.len().saturating_sub(200)..]
    );
    assert!(listed > 300, "{listed}");
}
