//! Every JSON Schema 2020-12 keyword (and the draft-07 ones still met) is kept, described or at
//! least reported by the transform: nothing is dropped without a word (#23 item 5).

// Test code: a panic is how a test reports failure, and clippy's allow-unwrap-in-tests
// does not reach helpers outside #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use gemini_compat::transform;
use serde_json::{Value, json};

/// What the transform must at least do with a keyword.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Least {
    /// In the output, or its meaning in the description.
    Described,
    /// In the output, in the description, or named in a change.
    Reported,
}

use Least::{Described, Reported};

fn cases() -> Vec<(&'static str, Value, Least)> {
    vec![
        // core
        (
            "$schema",
            json!({"type": "string", "$schema": "https://json-schema.org/draft/2020-12/schema"}),
            Reported,
        ),
        ("$id", json!({"type": "string", "$id": "urn:x"}), Reported),
        (
            "$anchor",
            json!({"type": "string", "$anchor": "a"}),
            Reported,
        ),
        (
            "$dynamicRef",
            json!({"type": "string", "$dynamicRef": "#a"}),
            Reported,
        ),
        (
            "$dynamicAnchor",
            json!({"type": "string", "$dynamicAnchor": "a"}),
            Reported,
        ),
        (
            "$vocabulary",
            json!({"type": "string", "$vocabulary": {}}),
            Reported,
        ),
        (
            "$comment",
            json!({"type": "string", "$comment": "c"}),
            Reported,
        ),
        (
            "$defs",
            json!({"type": "string", "$defs": {"X": {"type": "string"}}}),
            Reported,
        ),
        ("$ref", json!({"$ref": "#/$defs/X"}), Reported),
        // applicator
        (
            "prefixItems",
            json!({"type": "array", "prefixItems": [{"type": "integer"}]}),
            Described,
        ),
        (
            "items",
            json!({"type": "array", "items": {"type": "integer"}}),
            Described,
        ),
        (
            "contains",
            json!({"type": "array", "items": {"type": "integer"}, "contains": {"const": 1}}),
            Reported,
        ),
        (
            "additionalProperties",
            json!({"type": "object", "additionalProperties": {"type": "integer"}}),
            Described,
        ),
        (
            "properties",
            json!({"type": "object", "properties": {"a": {"type": "string"}}}),
            Described,
        ),
        (
            "patternProperties",
            json!({"type": "object", "patternProperties": {"^a": {"type": "string"}}}),
            Described,
        ),
        (
            "dependentSchemas",
            json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "dependentSchemas": {"a": {"required": ["b"]}}}),
            Described,
        ),
        (
            "propertyNames",
            json!({"type": "object", "propertyNames": {"pattern": "^a"}}),
            Described,
        ),
        (
            "if",
            json!({"type": "string", "if": {"minLength": 1}}),
            Reported,
        ),
        (
            "then",
            json!({"type": "string", "then": {"minLength": 1}}),
            Reported,
        ),
        (
            "else",
            json!({"type": "string", "else": {"minLength": 1}}),
            Reported,
        ),
        ("allOf", json!({"allOf": [{"type": "string"}]}), Reported),
        (
            "anyOf",
            json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
            Described,
        ),
        (
            "oneOf",
            json!({"oneOf": [{"type": "string"}, {"type": "integer"}]}),
            Reported,
        ),
        (
            "not",
            json!({"type": "string", "not": {"const": "x"}}),
            Reported,
        ),
        // unevaluated
        (
            "unevaluatedItems",
            json!({"type": "array", "items": {"type": "string"}, "unevaluatedItems": false}),
            Reported,
        ),
        (
            "unevaluatedProperties",
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "unevaluatedProperties": false}),
            Reported,
        ),
        // validation
        ("type", json!({"type": "string"}), Described),
        ("const", json!({"const": "x"}), Described),
        ("enum", json!({"enum": ["x", "y"]}), Described),
        (
            "multipleOf",
            json!({"type": "integer", "multipleOf": 5}),
            Described,
        ),
        (
            "maximum",
            json!({"type": "integer", "maximum": 5}),
            Described,
        ),
        (
            "exclusiveMaximum",
            json!({"type": "number", "exclusiveMaximum": 5}),
            Described,
        ),
        (
            "minimum",
            json!({"type": "integer", "minimum": 5}),
            Described,
        ),
        (
            "exclusiveMinimum",
            json!({"type": "number", "exclusiveMinimum": 5}),
            Described,
        ),
        (
            "maxLength",
            json!({"type": "string", "maxLength": 5}),
            Described,
        ),
        (
            "minLength",
            json!({"type": "string", "minLength": 5}),
            Described,
        ),
        (
            "pattern",
            json!({"type": "string", "pattern": "^a"}),
            Described,
        ),
        (
            "maxItems",
            json!({"type": "array", "items": {"type": "string"}, "maxItems": 5}),
            Described,
        ),
        (
            "minItems",
            json!({"type": "array", "items": {"type": "string"}, "minItems": 5}),
            Described,
        ),
        (
            "uniqueItems",
            json!({"type": "array", "items": {"type": "string"}, "uniqueItems": true}),
            Described,
        ),
        (
            "maxContains",
            json!({"type": "array", "items": {"type": "string"}, "contains": {"const": "a"}, "maxContains": 2}),
            Reported,
        ),
        (
            "minContains",
            json!({"type": "array", "items": {"type": "string"}, "contains": {"const": "a"}, "minContains": 2}),
            Reported,
        ),
        (
            "maxProperties",
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "maxProperties": 5}),
            Described,
        ),
        (
            "minProperties",
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "minProperties": 1}),
            Described,
        ),
        (
            "required",
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}),
            Described,
        ),
        (
            "dependentRequired",
            json!({"type": "object", "properties": {"resourceName": {"type": "string"}, "namespaces": {"type": "string"}}, "dependentRequired": {"resourceName": ["namespaces"]}}),
            Described,
        ),
        // meta-data
        (
            "title",
            json!({"type": "string", "title": "A title"}),
            Reported,
        ),
        (
            "description",
            json!({"type": "string", "description": "Doc."}),
            Described,
        ),
        (
            "default",
            json!({"type": "string", "default": "d"}),
            Described,
        ),
        (
            "deprecated",
            json!({"type": "string", "deprecated": true}),
            Described,
        ),
        (
            "readOnly",
            json!({"type": "string", "readOnly": true}),
            Reported,
        ),
        (
            "writeOnly",
            json!({"type": "string", "writeOnly": true}),
            Reported,
        ),
        (
            "examples",
            json!({"type": "string", "examples": ["e"]}),
            Described,
        ),
        // format annotation, content
        (
            "format",
            json!({"type": "string", "format": "uri"}),
            Described,
        ),
        (
            "contentEncoding",
            json!({"type": "string", "contentEncoding": "base64"}),
            Described,
        ),
        (
            "contentMediaType",
            json!({"type": "string", "contentMediaType": "text/html"}),
            Described,
        ),
        (
            "contentSchema",
            json!({"type": "string", "contentMediaType": "application/json", "contentSchema": {"type": "object"}}),
            Reported,
        ),
        // draft-07 forms still met
        (
            "dependencies",
            json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}, "dependencies": {"a": ["b"]}}),
            Described,
        ),
        (
            "definitions",
            json!({"type": "string", "definitions": {"X": {"type": "string"}}}),
            Reported,
        ),
        (
            "additionalItems",
            json!({"type": "array", "items": [{"type": "string"}], "additionalItems": false}),
            Reported,
        ),
        (
            "nullable",
            json!({"type": "string", "nullable": true}),
            Reported,
        ),
    ]
}

#[test]
fn every_keyword_is_kept_described_or_reported() {
    let mut failures = Vec::new();
    for (keyword, node, least) in cases() {
        let raw = json!({"type": "object", "properties": {"p": node},
            "$defs": {"X": {"type": "string"}}});
        let out = transform(&raw);
        let served = &out.schema["properties"]["p"];
        let plain = transform(&json!({"type": "object", "properties": {"p": {"type": "string"}}}));
        let served_text = serde_json::to_string(served).unwrap_or_default();
        // Kept, possibly in its Gemini spelling (a const is a one-value enum).
        let spelled = match keyword {
            "const" => "enum",
            "oneOf" => "anyOf",
            k => k,
        };
        let kept = served_text.contains(&format!("\"{spelled}\""));
        let described = served.get("description").is_some()
            && served.get("description") != plain.schema["properties"]["p"].get("description");
        let reported = out.changes.iter().any(|c| c.message.contains(keyword))
            || out.changes.iter().any(|c| {
                c.path.contains(keyword.trim_start_matches('$'))
                    || c.message.contains(keyword.trim_start_matches('$'))
            });
        let ok = match least {
            Described => kept || described,
            Reported => kept || described || reported,
        };
        if !ok {
            failures.push(format!(
                "{keyword} ({least:?}): served {served_text}; changes {:?}",
                out.changes
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn dependent_required_is_described_and_reported() {
    let raw = json!({"type": "object", "properties": {
        "resourceName": {"type": "string"}, "namespaces": {"type": "string"}, "kind": {"type": "string"}},
        "dependentRequired": {"resourceName": ["namespaces", "kind"]},
        "dependentSchemas": {"kind": {"properties": {"namespaces": {"minLength": 1}}, "required": ["namespaces"]}}});
    let out = transform(&raw);
    let d = out.schema["description"].as_str().unwrap_or_default();
    assert!(
        d.contains("If resourceName is given, namespaces and kind are required too."),
        "{d}"
    );
    assert!(
        d.contains("If kind is given, the object must also match"),
        "{d}"
    );
    for key in ["dependentRequired", "dependentSchemas"] {
        assert!(
            out.changes
                .iter()
                .any(|c| c.message == format!("{key} moved into the description")),
            "{key}: {:#?}",
            out.changes
        );
        assert!(
            gemini_compat::lint(&raw)
                .iter()
                .any(|i| i.path.ends_with(key)),
            "lint names {key}"
        );
    }
}

#[test]
fn constraints_all_of_cannot_combine_are_reported() {
    let raw = json!({"type": "object", "properties": {"p": {"allOf": [
        {"type": "string", "pattern": "^a"},
        {"pattern": "b$", "description": "B."},
        {"type": "string", "not": {"const": "x"}},
        {"not": {"const": "y"}},
    ]}}});
    let out = transform(&raw);
    for key in ["pattern", "not"] {
        assert!(
            out.changes
                .iter()
                .any(|c| c.message
                    == format!("allOf branches both set `{key}`; the first one is kept")),
            "{key}: {:#?}",
            out.changes
        );
    }
    assert!(
        !out.changes
            .iter()
            .any(|c| c.message.contains("`description`")),
        "annotations are not constraints"
    );
}
