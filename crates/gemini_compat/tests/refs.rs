//! R1 edge cases: recursion, cycles, refs to refs, missing targets, pointer escaping,
//! plus the safety caps (deep input, exponential fan-out).

// Test code: a panic is how a test reports failure, and clippy's allow-unwrap-in-tests
// does not reach helpers outside #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{check, prop};
use gemini_compat::{Rule, lint, transform};
use serde_json::{Value, json};

#[test]
fn recursion_through_root_pointer() {
    let input = json!({
        "type": "object",
        "properties": {"name": {"type": "string"}, "child": {"$ref": "#"}}
    });
    let out = check(&input);
    // The root itself, then two unrolled copies, then the stub.
    let c1 = prop(&out, "child");
    let c2 = prop(c1, "child");
    assert_eq!(prop(c2, "name"), &json!({"type": "string"}));
    assert_eq!(
        prop(c2, "child"),
        &json!({"type": "object", "description": "Root object (nested further; same shape)"})
    );
}

#[test]
fn mutual_recursion_is_unrolled_and_cut() {
    let input = json!({
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/A"}},
        "$defs": {
            "A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
            "B": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}}
        }
    });
    let out = transform(&input);
    assert!(
        out.changes
            .iter()
            .any(|c| c.rule == Rule::R1
                && c.message == "recursive $ref #/$defs/A cut after 2 levels")
    );
    // The unrolled stub (a, five steps down) is below the depth budget: the second `b`,
    // four steps down, keeps its type and describes the rest.
    let a2 = &out.schema["properties"]["a"]["properties"]["b"]["properties"]["a"];
    assert_eq!(
        a2["properties"]["b"],
        json!({"type": "object", "description": "Nested deeper; shape: {a?: object (A (nested further; same shape))}."})
    );
    assert!(!serde_json::to_string(&out.schema).unwrap().contains("$ref"));
}

#[test]
fn recursive_array_target_keeps_typed_items() {
    let input = json!({
        "type": "object",
        "properties": {"v": {"$ref": "#/$defs/Nested"}},
        "$defs": {"Nested": {"type": "array", "items": {"$ref": "#/$defs/Nested"}}}
    });
    let out = check(&input);
    let stub = &out["properties"]["v"]["items"]["items"];
    assert_eq!(
        stub,
        &json!({"type": "array", "items": {"type": "object"}, "description": "Nested (nested further; same shape)"})
    );
}

#[test]
fn ref_to_ref_and_self_loops_terminate() {
    let input = json!({
        "type": "object",
        "properties": {
            "alias": {"$ref": "#/$defs/Alias"},
            "selfish": {"$ref": "#/$defs/Self"},
            "loop": {"$ref": "#/$defs/L1"}
        },
        "$defs": {
            "Alias": {"$ref": "#/$defs/Real", "description": "Alias doc."},
            "Real": {"type": "string", "description": "Real doc."},
            "Self": {"$ref": "#/$defs/Self"},
            "L1": {"$ref": "#/$defs/L2"},
            "L2": {"allOf": [{"$ref": "#/$defs/L1"}], "type": "integer"}
        }
    });
    let out = check(&input);
    assert_eq!(
        prop(&out, "alias"),
        &json!({"type": "string", "description": "Alias doc."})
    );
    assert_eq!(
        prop(&out, "selfish"),
        &json!({"type": "object", "description": "Circular reference #/$defs/Self. Arbitrary JSON object."})
    );
    assert_eq!(
        prop(&out, "loop"),
        &json!({"type": "integer", "description": "Circular reference #/$defs/L1."})
    );
}

#[test]
fn missing_and_non_local_targets_are_described() {
    let input = json!({
        "type": "object",
        "properties": {
            "gone": {"$ref": "#/$defs/Gone", "description": "Was here."},
            "remote": {"$ref": "https://example.com/s.json#/x", "type": "string"},
            "anchor": {"$ref": "#frag"}
        }
    });
    let t = transform(&input);
    assert!(
        t.changes
            .iter()
            .any(|c| c.rule == Rule::R1 && c.path == "/properties/gone")
    );
    let out = check(&input);
    assert_eq!(
        prop(&out, "gone"),
        &json!({"type": "object", "description": "Was here. Unresolved reference #/$defs/Gone. Arbitrary JSON object."})
    );
    assert_eq!(
        prop(&out, "remote"),
        &json!({"type": "string", "description": "Unresolved reference https://example.com/s.json#/x."})
    );
    assert_eq!(prop(&out, "anchor")["type"], "object");
}

#[test]
fn siblings_win_over_the_target() {
    let input = json!({
        "type": "object",
        "properties": {"n": {"$ref": "#/$defs/N", "description": "Use site.", "maximum": 5, "default": 3}},
        "$defs": {"N": {"type": "integer", "description": "Def.", "minimum": 1, "maximum": 10, "title": "N"}}
    });
    assert_eq!(
        prop(&check(&input), "n"),
        &json!({"type": "integer", "minimum": 1, "maximum": 5, "description": "Use site. Default: 3."})
    );
}

#[test]
fn percent_encoded_and_escaped_pointers() {
    let input = json!({
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/My%20Type"}, "y": {"$ref": "#/$defs/a~0b~1c"}},
        "$defs": {"My Type": {"type": "boolean"}, "a~b/c": {"type": "number"}}
    });
    let out = check(&input);
    assert_eq!(prop(&out, "x"), &json!({"type": "boolean"}));
    assert_eq!(prop(&out, "y"), &json!({"type": "number"}));
}

#[test]
fn nested_defs_are_removed_and_resolvable() {
    let input = json!({
        "type": "object",
        "properties": {"p": {"type": "object", "$defs": {"Inner": {"type": "string"}},
                             "properties": {"q": {"$ref": "#/properties/p/$defs/Inner"}}}}
    });
    assert_eq!(
        prop(&check(&input), "p"),
        &json!({"type": "object", "properties": {"q": {"type": "string"}}})
    );
}

#[test]
fn all_of_is_merged_not_last_writer_wins() {
    let input = json!({
        "type": "object",
        "properties": {"m": {
            "description": "Outer.",
            "allOf": [
                {"$ref": "#/$defs/Base"},
                {"type": "object", "description": "Inner.", "properties": {"b": {"type": "integer", "maximum": 9}, "shared": {"maxLength": 3}},
                 "required": ["b", "shared"]}
            ]
        }},
        "$defs": {"Base": {"type": "object", "properties": {"a": {"type": "string"}, "shared": {"type": "string", "minLength": 1}},
                           "required": ["a"]}}
    });
    assert_eq!(
        prop(&check(&input), "m"),
        &json!({
            "type": "object",
            "description": "Outer.",
            "properties": {
                "a": {"type": "string"},
                "b": {"type": "integer", "maximum": 9},
                "shared": {"type": "string", "minLength": 1, "maxLength": 3}
            },
            "required": ["a", "b", "shared"]
        })
    );
}

/// The deepest documents serde_json parses (128 levels), on the default 2 MiB test thread.
#[test]
fn deepest_parsable_input_is_safe() {
    let shapes: [(&str, &str, usize); 6] = [
        (r#"{"type":"array","items":"#, "}", 1),
        (r#"{"anyOf":[{"type":"integer"},"#, "]}", 2),
        (r#"{"allOf":["#, "]}", 2),
        (r#"{"oneOf":["#, "]}", 2),
        (r#"{"type":"object","properties":{"p":"#, "}}", 2),
        (r#"{"type":"string","not":"#, "}", 1),
    ];
    for (open, close, levels) in shapes {
        let n = 124 / levels;
        let text = format!(
            r#"{{"type":"object","properties":{{"deep":{}{{"type":"string"}}{}}}}}"#,
            open.repeat(n),
            close.repeat(n)
        );
        let input: Value = serde_json::from_str(&text).expect("parsable");
        let out = check(&input);
        assert!(out.is_object());
        let _ = lint(&input);
        let _ = gemini_compat::coerce_arguments(&input, json!({"deep": [[["x"]]]}));
    }
}

fn wrap(key: &str, inner: Value, extra: Option<(&str, Value)>) -> Value {
    // Built by hand: `json!` would serialize (deep-copy) its argument recursively.
    let mut m = serde_json::Map::new();
    m.insert(key.to_string(), inner);
    if let Some((k, v)) = extra {
        m.insert(k.to_string(), v);
    }
    Value::Object(m)
}

/// Values built in code can be nested far deeper; they are cut before anything recurses.
#[test]
fn programmatic_deep_input_is_safe() {
    for shape in 0..3 {
        let mut v = json!({"type": "string"});
        for _ in 0..20_000 {
            v = match shape {
                0 => wrap("items", v, Some(("type", json!("array")))),
                1 => wrap("anyOf", Value::Array(vec![v]), None),
                _ => wrap(
                    "properties",
                    wrap("p", v, None),
                    Some(("default", json!({"k": [1]}))),
                ),
            };
        }
        let t = transform(&v);
        assert!(t.changes.iter().any(|c| c.rule == Rule::R13));
        assert!(lint(&t.schema).is_empty());
        let _ = lint(&v);
        let _ = gemini_compat::coerce_arguments(&v, json!({"p": {"p": null}}));
        let mut args = json!(1);
        for _ in 0..20_000 {
            args = wrap("p", args, None);
        }
        let coerced = gemini_compat::coerce_arguments(&v, args);
        // Dropping 20 000 levels would recurse in serde_json's own Drop: leak them instead.
        std::mem::forget(coerced);
        std::mem::forget(v);
    }
}

#[test]
fn exponential_ref_fan_out_is_bounded() {
    let mut defs = serde_json::Map::new();
    for i in 0..40 {
        let next = format!("#/$defs/D{}", i + 1);
        defs.insert(
            format!("D{i}"),
            json!({"anyOf": [{"$ref": next}, {"type": "array", "items": {"$ref": next}}]}),
        );
    }
    defs.insert("D40".into(), json!({"type": "string"}));
    let input =
        json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/D0"}}, "$defs": defs});
    // Terminating at all is the point: the expansion is capped (R13), not exponential.
    let t = transform(&input);
    assert!(t.changes.iter().any(|c| c.rule == Rule::R13));
    assert!(lint(&t.schema).is_empty());
}

#[test]
fn any_json_root_is_accepted() {
    for v in [
        json!(null),
        json!(1),
        json!("s"),
        json!([]),
        json!(true),
        json!(false),
        json!({"type": "string"}),
    ] {
        let out = check(&v);
        assert_eq!(out["type"], "object");
    }
}
