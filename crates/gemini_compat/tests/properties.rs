//! Property test over generated schemas mixing every tricky keyword: refs into a
//! generated `$defs`/`definitions` (including recursion, refs to refs, missing and
//! non-local targets), type arrays, consts, enums (integer, mixed, empty-string,
//! oversized), tuples, maps, unions, `allOf`, boolean subschemas, and property names
//! that are keywords. For every schema: no panic, the output lints clean (apart from
//! R12 names), the transform is idempotent with no changes on the second pass, and the
//! output is valid JSON Schema 2020-12.

// Test code: a panic is how a test reports failure, and clippy's allow-unwrap-in-tests
// does not reach helpers outside #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use gemini_compat::{Rule, coerce_arguments, lint, transform};
use proptest::prelude::*;
use serde_json::{Value, json};

fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[a-z]{1,6}",
        1 => prop::sample::select(vec![
            "title", "default", "const", "format", "if", "items", "enum", "type", "properties",
            "required", "anyOf", "$ref", "not", "description", "minimum", "$defs", "additionalProperties",
        ])
        .prop_map(String::from),
    ]
}

fn leaf() -> impl Strategy<Value = Value> {
    let big: Vec<i64> = (0..80).collect();
    prop::sample::select(vec![
        json!({"type": "string"}),
        json!({"type": "string", "description": "Plain."}),
        json!({"type": "integer", "format": "uint32", "minimum": 0}),
        json!({"type": ["integer", "null"], "format": "uint64"}),
        json!({"type": ["string", "null"], "default": null}),
        json!({"type": ["string", "integer", "null"], "minLength": 1, "minimum": 2}),
        json!({"const": "x"}),
        json!({"const": 3}),
        json!({"const": null}),
        json!({"const": true, "type": "boolean"}),
        json!({"enum": ["a", 1, null, ""]}),
        json!({"type": "integer", "enum": [1, 2, 3], "default": 2}),
        json!({"type": "string", "enum": ["", "utf-8"]}),
        json!({"type": "string", "enum": [""]}),
        json!({"enum": []}),
        json!({"enum": big}),
        json!({"type": "boolean", "default": false, "title": "Flag"}),
        json!({"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5}),
        json!({"type": "integer", "exclusiveMaximum": 7.5, "exclusiveMinimum": true}),
        json!({"type": "string", "format": "uri", "title": "U", "examples": ["http://x"]}),
        json!({"type": "string", "format": "date-time", "deprecated": true}),
        json!({"type": "integer", "minimum": -9007199254740991_i64, "maximum": 9007199254740991_i64}),
        json!({"nullable": true, "type": "string"}),
        json!({"description": "only a description"}),
        json!({"type": "string", "pattern": "^a+$", "minLength": 1, "maxLength": 5}),
        json!({"type": "null"}),
        json!({"type": "array"}),
        json!({"type": "object"}),
        json!({"type": "object", "properties": {}}),
        json!({"type": "widget"}),
        json!({}),
        json!(true),
        json!(false),
        json!(42),
        json!({"$ref": "#/$defs/A"}),
        json!({"$ref": "#/$defs/B", "description": "via ref", "default": {"k": 1}}),
        json!({"$ref": "#/$defs/Alias"}),
        json!({"$ref": "#/$defs/Loop1"}),
        json!({"$ref": "#/$defs/Missing"}),
        json!({"$ref": "other.json#/x"}),
        json!({"$ref": "#"}),
        json!({"$ref": "#/definitions/D"}),
        json!({"$ref": "#/$defs/Odd~1name"}),
        json!({"$ref": 7}),
        json!({"readOnly": true, "type": "string", "x-extra": 1, "$comment": "c"}),
        json!({"type": "string", "contentEncoding": "base64"}),
    ])
}

fn schema() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 40, 4, |inner| {
        prop_oneof![
            (
                prop::collection::btree_map(name(), inner.clone(), 0..4),
                prop::collection::vec(name(), 0..3),
                prop::option::of(inner.clone()),
            )
                .prop_map(|(props, required, extra)| {
                    let mut m = json!({"type": "object", "properties": props, "required": required});
                    if let Some(e) = extra {
                        m["additionalProperties"] = e;
                    }
                    m
                }),
            inner.clone().prop_map(|s| json!({"type": "array", "items": s})),
            inner.clone().prop_map(|s| json!({"type": ["array", "null"], "items": s, "uniqueItems": true})),
            prop::collection::vec(inner.clone(), 0..3)
                .prop_map(|v| json!({"type": "array", "prefixItems": v, "minItems": 1})),
            (prop::collection::vec(inner.clone(), 1..3), inner.clone())
                .prop_map(|(v, extra)| json!({"type": "array", "items": v, "additionalItems": extra})),
            prop::collection::vec(inner.clone(), 0..4)
                .prop_map(|v| json!({"anyOf": v, "description": "u", "default": 1})),
            prop::collection::vec(inner.clone(), 1..4).prop_map(|v| json!({"oneOf": v, "title": "One"})),
            prop::collection::vec(inner.clone(), 1..3).prop_map(|v| json!({"allOf": v, "title": "T"})),
            (inner.clone(), inner.clone())
                .prop_map(|(a, b)| json!({"anyOf": [a], "oneOf": [b, {"type": "null"}]})),
            inner.clone().prop_map(|s| json!({"type": "object", "additionalProperties": s,
                                               "propertyNames": {"pattern": "^[a-z]+$"}})),
            inner.clone().prop_map(|s| json!({"anyOf": [s, {"type": "null"}], "default": null})),
            inner.clone().prop_map(|s| json!({"$ref": "#/$defs/A", "description": "sib", "items": s})),
            inner.clone().prop_map(|s| json!({"not": s, "if": s, "type": "string"})),
            inner.clone().prop_map(|s| json!({
                "type": ["string", "array", "object"], "items": s, "properties": {"p": s}, "minLength": 2
            })),
            inner.clone().prop_map(|s| json!({"oneOf": [
                {"const": "a", "description": "A doc"}, {"const": "b"}, {"const": 1}, s
            ]})),
            inner.clone().prop_map(|s| json!({"type": "object", "properties": {"kind": {"const": "k"}, "v": s},
                                               "required": ["kind", "v"]})),
        ]
    })
}

fn document() -> impl Strategy<Value = Value> {
    (
        prop::collection::btree_map(name(), schema(), 0..5),
        prop::collection::vec(name(), 0..4),
        schema(),
        schema(),
        schema(),
        0..4u8,
    )
        .prop_map(|(props, required, a, b, d, root_kind)| {
            let defs = json!({
                "A": a,
                "B": {"type": "object", "properties": {"next": {"$ref": "#/$defs/A"}, "b": b}},
                "Alias": {"$ref": "#/$defs/B"},
                "Loop1": {"$ref": "#/$defs/Loop2"},
                "Loop2": {"allOf": [{"$ref": "#/$defs/Loop1"}], "description": "loop"},
                "Odd/name": {"type": "integer"}
            });
            let mut root = json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": props,
                "required": required,
                "$defs": defs,
                "definitions": {"D": d}
            });
            match root_kind {
                1 => root["anyOf"] = json!([{"required": ["a"]}, {"required": ["b"]}]),
                2 => root["oneOf"] = json!([{"$ref": "#/$defs/B"}, {"type": "object", "properties": {"z": {"type": "string"}}}]),
                3 => root["type"] = json!(["object", "null"]),
                _ => {}
            }
            root
        })
}

proptest! {
    // PROPTEST_CASES overrides the count (e.g. PROPTEST_CASES=20000 for a long run).
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(400),
        ..ProptestConfig::default()
    })]

    #[test]
    fn transform_output_is_clean_idempotent_and_valid(doc in document()) {
        let first = transform(&doc);
        let issues: Vec<_> = lint(&first.schema).into_iter().filter(|i| i.rule != Rule::R12).collect();
        prop_assert!(issues.is_empty(), "issues: {:#?}\noutput: {:#}", issues, first.schema);
        let second = transform(&first.schema);
        prop_assert_eq!(&second.schema, &first.schema);
        prop_assert!(second.changes.is_empty(), "second pass: {:#?}\noutput: {:#}", second.changes, first.schema);
        common::assert_meta_valid(&first.schema);
        // lint and coerce never panic on anything either.
        let _ = lint(&doc);
        let _ = coerce_arguments(&doc, json!({"a": "1", "b": null, "title": [1, "2"]}));
    }

    #[test]
    fn any_subschema_as_root_is_safe(s in schema()) {
        let first = transform(&s);
        let issues: Vec<_> = lint(&first.schema).into_iter().filter(|i| i.rule != Rule::R12).collect();
        prop_assert!(issues.is_empty(), "issues: {:#?}\noutput: {:#}", issues, first.schema);
        let second = transform(&first.schema);
        prop_assert_eq!(&second.schema, &first.schema);
        prop_assert!(second.changes.is_empty(), "second pass: {:#?}", second.changes);
        common::assert_meta_valid(&first.schema);
    }
}
