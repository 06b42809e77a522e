//! Round trips: raw schema → transform → arguments a client sends for the transformed
//! schema → coerce_arguments → arguments that validate against the raw schema.

// Test code: a panic is how a test reports failure, and clippy's allow-unwrap-in-tests
// does not reach helpers outside #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::validates;
use gemini_compat::{coerce_arguments, coerce_arguments_reporting, transform};
use serde_json::{Value, json};

fn round_trip(raw: &Value, client: Value, expected: Value) {
    let transformed = transform(raw).schema;
    assert!(
        validates(&transformed, &client),
        "client args {client} do not fit {transformed:#}"
    );
    assert!(
        !validates(raw, &client) || client == expected,
        "test should exercise a rewrite"
    );
    let coerced = coerce_arguments(raw, client);
    assert_eq!(coerced, expected);
    assert!(
        validates(raw, &coerced),
        "coerced args {coerced} do not fit the raw schema"
    );
}

fn obj(props: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": props, "required": required})
}

#[test]
fn integer_and_number_enums_come_back_as_numbers() {
    let raw = obj(
        json!({"level": {"type": "integer", "enum": [1, 2, 3]},
                         "ratio": {"type": "number", "enum": [0.5, 1.5]}}),
        &["level"],
    );
    round_trip(
        &raw,
        json!({"level": "2", "ratio": "1.5"}),
        json!({"level": 2, "ratio": 1.5}),
    );
}

#[test]
fn mixed_and_boolean_enum_members() {
    let raw = obj(
        json!({"v": {"enum": ["a", 1, null]}, "w": {"enum": ["auto", true, false]}}),
        &["v"],
    );
    round_trip(
        &raw,
        json!({"v": "1", "w": "true"}),
        json!({"v": 1, "w": true}),
    );
    round_trip(
        &raw,
        json!({"v": "a", "w": "auto"}),
        json!({"v": "a", "w": "auto"}),
    );
}

#[test]
fn integer_consts_and_documented_integer_variants() {
    let raw = obj(
        json!({
            "version": {"const": 3},
            "mode": {"oneOf": [{"const": 1, "description": "one"}, {"const": 2, "description": "two"}]}
        }),
        &["version", "mode"],
    );
    round_trip(
        &raw,
        json!({"version": "3", "mode": "2"}),
        json!({"version": 3, "mode": 2}),
    );
}

#[test]
fn follows_refs_into_nested_arrays_and_optional_models() {
    let raw = json!({
        "type": "object",
        "properties": {
            "edits": {"type": "array", "items": {"$ref": "#/$defs/Edit"}},
            "level": {"anyOf": [{"$ref": "#/$defs/Level"}, {"type": "null"}], "default": null}
        },
        "required": ["edits"],
        "$defs": {
            "Edit": {"type": "object", "properties": {"text": {"type": "string"}, "mode": {"$ref": "#/$defs/Level"}},
                     "required": ["text", "mode"]},
            "Level": {"type": "integer", "enum": [0, 1, 2]}
        }
    });
    round_trip(
        &raw,
        json!({"edits": [{"text": "x", "mode": "1"}, {"text": "y", "mode": "0"}], "level": "2"}),
        json!({"edits": [{"text": "x", "mode": 1}, {"text": "y", "mode": 0}], "level": 2}),
    );
}

#[test]
fn discriminated_union_picks_the_matching_branch() {
    let raw = obj(
        json!({"sel": {"oneOf": [
            {"type": "object", "properties": {"kind": {"const": "a"}, "n": {"type": "string"}}, "required": ["kind", "n"]},
            {"type": "object", "properties": {"kind": {"const": "b"}, "n": {"type": "integer", "enum": [1, 2]}}, "required": ["kind", "n"]}
        ]}}),
        &["sel"],
    );
    round_trip(
        &raw,
        json!({"sel": {"kind": "b", "n": "2"}}),
        json!({"sel": {"kind": "b", "n": 2}}),
    );
    round_trip(
        &raw,
        json!({"sel": {"kind": "a", "n": "2"}}),
        json!({"sel": {"kind": "a", "n": "2"}}),
    );
}

#[test]
fn map_values_and_tuples() {
    let raw = obj(
        json!({
            "weights": {"type": "object", "additionalProperties": {"type": "integer", "enum": [1, 2]}},
            "span": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "integer"}], "minItems": 2, "maxItems": 2},
            "tagged": {"type": "array", "prefixItems": [{"type": "integer", "enum": [7, 8]}, {"type": "string"}]}
        }),
        &[],
    );
    round_trip(
        &raw,
        json!({"weights": {"a": "1", "b": "2"}, "span": [3, 4], "tagged": ["8", "x"]}),
        json!({"weights": {"a": 1, "b": 2}, "span": [3, 4], "tagged": [8, "x"]}),
    );
}

#[test]
fn explicit_null_is_removed_where_the_raw_schema_refuses_it() {
    let raw = obj(
        json!({
            "dry_run": {"type": "boolean", "default": false},
            "offset": {"type": ["integer", "null"]},
            "anything": {}
        }),
        &[],
    );
    let coerced = coerce_arguments(
        &raw,
        json!({"dry_run": null, "offset": null, "anything": null}),
    );
    assert_eq!(coerced, json!({"offset": null, "anything": null}));
    assert!(validates(&raw, &coerced));
}

#[test]
fn empty_string_enum_member_comes_back_from_its_stand_in() {
    let raw = obj(
        json!({"enc": {"type": "string", "enum": ["", "utf-8"]}}),
        &["enc"],
    );
    round_trip(&raw, json!({"enc": "(empty)"}), json!({"enc": ""}));
    round_trip(&raw, json!({"enc": "utf-8"}), json!({"enc": "utf-8"}));
    // Schemas served before the stand-in asked to omit the value: still understood.
    assert_eq!(coerce_arguments(&raw, json!({})), json!({"enc": ""}));
}

#[test]
fn empty_string_stand_in_avoids_a_real_member_and_survives_unions() {
    // excel's text_qualifier: leaving it out means `"`, so "" must stay reachable.
    let raw = obj(
        json!({"text_qualifier": {"enum": ["\"", "'", ""], "default": "\""},
               "sep": {"anyOf": [{"type": "string", "enum": ["", "(empty)"]}, {"type": "integer"}]}}),
        &[],
    );
    let served = transform(&raw).schema;
    assert_eq!(
        served["properties"]["text_qualifier"]["enum"],
        json!(["\"", "'", "(empty)"])
    );
    let doc = served["properties"]["text_qualifier"]["description"]
        .as_str()
        .unwrap_or_default();
    assert!(doc.contains("\"(empty)\" stands for \"\""), "{doc}");
    assert!(doc.contains("Default: \"\\\"\"."), "{doc}");
    // "(empty)" is a real member of `sep`, so "" is sent as another stand-in.
    let sep = &served["properties"]["sep"]["anyOf"][0];
    assert_eq!(sep["enum"], json!(["(empty string)", "(empty)"]));
    round_trip(
        &raw,
        json!({"text_qualifier": "(empty)", "sep": "(empty string)"}),
        json!({"text_qualifier": "", "sep": ""}),
    );
    round_trip(
        &raw,
        json!({"text_qualifier": "'", "sep": "(empty)"}),
        json!({"text_qualifier": "'", "sep": "(empty)"}),
    );
}

#[test]
fn strings_that_are_valid_stay_strings_and_unknowns_pass_through() {
    let raw = obj(
        json!({"id": {"anyOf": [{"type": "string"}, {"type": "integer"}]}, "flag": {"const": true}}),
        &[],
    );
    round_trip(
        &raw,
        json!({"id": "5", "flag": true}),
        json!({"id": "5", "flag": true}),
    );
    let args = json!({"extra": {"deep": ["1", null]}, "id": 3});
    assert_eq!(coerce_arguments(&raw, args.clone()), args);
    assert_eq!(coerce_arguments(&json!(true), json!("x")), json!("x"));
    assert_eq!(
        coerce_arguments(&json!({"$ref": "#/nowhere"}), json!({"a": null})),
        json!({"a": null})
    );
}

#[test]
fn strings_left_where_no_string_is_accepted_are_reported_by_location() {
    let raw = obj(
        json!({
            "list": {"type": "array", "items": {"type": "integer"}},
            "either": {"anyOf": [{"type": "array"}, {"type": "null"}]},
            "text_or_list": {"anyOf": [{"type": "array"}, {"type": "string"}]},
            "rows": {"type": "array", "items": {"type": "object", "properties": {"v": {"type": "object"}}}},
            "n": {"type": "integer"},
        }),
        &[],
    );
    let (coerced, refused) = coerce_arguments_reporting(
        &raw,
        json!({"list": "[1,", "either": "{", "text_or_list": "[1,", "rows": [{"v": "{}"}, {"v": "x"}], "n": "7"}),
    );
    assert_eq!(refused, ["either", "list", "rows[1].v"]);
    assert_eq!(coerced["rows"][0]["v"], json!({}));
    assert_eq!(coerced["n"], json!(7));
    assert_eq!(coerced["text_or_list"], "[1,");
}
