//! The 32 tricky real-world patterns of `docs/GEMINI_SCHEMA_CONTRACT.md` §5, each with its
//! input and the expected output. Every output is also checked by `common::check`:
//! lint-clean, idempotent, valid JSON Schema 2020-12.

// Test code: a panic is how a test reports failure, and clippy's allow-unwrap-in-tests
// does not reach helpers outside #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{check, is_required, prop, root_with};
use gemini_compat::{Rule, transform};
use serde_json::{Value, json};

/// Transform a one-property root and return that property's output schema.
fn one(name: &str, schema: Value) -> Value {
    let out = check(&root_with(name, schema));
    prop(&out, name).clone()
}

#[test]
fn p01_pydantic_optional_int() {
    let input = json!({
        "type": "object",
        "properties": {
            "tail": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": null, "title": "Tail"}
        },
        "required": ["tail"]
    });
    let out = check(&input);
    assert_eq!(
        out,
        json!({"type": "object", "properties": {"tail": {"type": "integer"}}})
    );
    assert!(!is_required(&out, "tail"));
}

#[test]
fn p02_schemars_option_u64() {
    let input = json!({
        "type": "object",
        "properties": {"max_bytes": {"type": ["integer", "null"], "format": "uint64", "minimum": 0}},
        "required": ["max_bytes"]
    });
    assert_eq!(
        check(&input),
        json!({"type": "object", "properties": {"max_bytes": {"type": "integer", "minimum": 0}}})
    );
}

#[test]
fn p03_nullable_array_option_vec() {
    assert_eq!(
        one(
            "globs",
            json!({"type": ["array", "null"], "items": {"type": "string"}})
        ),
        json!({"type": "array", "items": {"type": "string"}})
    );
}

#[test]
fn p04_nested_model_via_defs() {
    let input = json!({
        "type": "object",
        "properties": {"edits": {"type": "array", "items": {"$ref": "#/$defs/Edit"}}},
        "required": ["edits"],
        "$defs": {"Edit": {
            "type": "object",
            "properties": {"old": {"type": "string"}, "new": {"type": "string"}},
            "required": ["old", "new"]
        }}
    });
    let t = transform(&input);
    assert!(
        t.changes
            .iter()
            .any(|c| c.rule == Rule::R1 && c.path == "/properties/edits/items")
    );
    assert_eq!(
        check(&input),
        json!({
            "type": "object",
            "properties": {"edits": {"type": "array", "items": {
                "type": "object",
                "properties": {"new": {"type": "string"}, "old": {"type": "string"}},
                "required": ["old", "new"]
            }}},
            "required": ["edits"]
        })
    );
}

#[test]
fn p05_optional_nested_model() {
    let input = json!({
        "type": "object",
        "properties": {"sel": {"anyOf": [{"$ref": "#/$defs/Sel"}, {"type": "null"}], "default": null}},
        "required": ["sel"],
        "$defs": {"Sel": {
            "type": "object", "description": "Selector.",
            "properties": {"glob": {"type": "string"}}, "required": ["glob"]
        }}
    });
    assert_eq!(
        check(&input),
        json!({"type": "object", "properties": {"sel": {
            "type": "object", "description": "Selector.",
            "properties": {"glob": {"type": "string"}}, "required": ["glob"]
        }}})
    );
}

#[test]
fn p06_ref_with_siblings() {
    let input = json!({
        "type": "object",
        "properties": {"target": {"$ref": "#/$defs/X", "description": "d", "title": "T"}},
        "$defs": {"X": {"type": "object", "title": "X", "description": "X doc",
                        "properties": {"a": {"type": "integer"}}}}
    });
    assert_eq!(
        prop(&check(&input), "target"),
        &json!({"type": "object", "description": "d", "properties": {"a": {"type": "integer"}}})
    );
}

#[test]
fn p07_recursive_model() {
    let input = json!({
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/TreeNode"}},
        "required": ["tree"],
        "$defs": {"TreeNode": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/TreeNode"}}
            },
            "required": ["name", "children"]
        }}
    });
    // Unrolled twice, the second `children` sits MAX_DEPTH (4) steps below the root: its
    // items would be one step too deep, so it is served as JSON text (R13).
    let cut = json!({"type": "string", "description":
        "Nested deeper; give it as JSON text: object[] (TreeNode (nested further; same shape))."});
    let level2 = json!({
        "type": "object",
        "properties": {"children": cut, "name": {"type": "string"}},
        "required": ["name", "children"]
    });
    let level1 = json!({
        "type": "object",
        "properties": {"children": {"type": "array", "items": level2}, "name": {"type": "string"}},
        "required": ["name", "children"]
    });
    assert_eq!(
        check(&input),
        json!({"type": "object", "properties": {"tree": level1}, "required": ["tree"]})
    );
}

#[test]
fn p08_ref_to_arbitrary_pointer() {
    let input = json!({
        "type": "object",
        "properties": {
            "headers": {"type": "object", "properties": {"k": {"type": "string"}}},
            "more": {"type": "array", "items": {"$ref": "#/properties/headers"}},
            "a/b~c": {"type": "integer"},
            "escaped": {"$ref": "#/properties/a~1b~0c"}
        }
    });
    let out = check(&input);
    assert_eq!(
        prop(&out, "more")["items"],
        json!({"type": "object", "properties": {"k": {"type": "string"}}})
    );
    assert_eq!(prop(&out, "escaped"), &json!({"type": "integer"}));
}

#[test]
fn p09_draft07_definitions() {
    let input = json!({
        "type": "object",
        "properties": {"x": {"$ref": "#/definitions/X"}},
        "definitions": {"X": {"type": "string", "minLength": 1}}
    });
    assert_eq!(
        check(&input),
        json!({"type": "object", "properties": {"x": {"type": "string", "minLength": 1}}})
    );
}

#[test]
fn p10_literal_const() {
    assert_eq!(
        one("mode", json!({"const": "dry-run", "type": "string"})),
        json!({"type": "string", "enum": ["dry-run"]})
    );
}

#[test]
fn p11_documented_unit_enum() {
    let input = json!({"oneOf": [
        {"const": "a", "description": "A doc"},
        {"const": "b", "description": "B doc"}
    ]});
    assert_eq!(
        one("mode", input),
        json!({"type": "string", "enum": ["a", "b"], "description": "a: A doc; b: B doc"})
    );
    // schemars shape: typed branches, an undocumented group, the enum's own doc on the $ref site.
    let schemars = json!({
        "type": "object",
        "properties": {"mode": {"$ref": "#/$defs/Mode", "description": "How to apply."}},
        "$defs": {"Mode": {"description": "Mode.", "oneOf": [
            {"type": "string", "enum": ["c", "d"]},
            {"type": "string", "const": "a", "description": "A doc."},
            {"type": "string", "const": "b", "description": "B doc."}
        ]}}
    });
    assert_eq!(
        prop(&check(&schemars), "mode"),
        &json!({"type": "string", "enum": ["c", "d", "a", "b"], "description": "How to apply. a: A doc; b: B doc"})
    );
}

#[test]
fn p12_integer_enum() {
    let input = root_with("level", json!({"type": "integer", "enum": [1, 2, 3]}));
    let out = check(&input);
    assert_eq!(
        prop(&out, "level"),
        &json!({"type": "string", "enum": ["1", "2", "3"]})
    );
    let args = gemini_compat::coerce_arguments(&input, json!({"level": "2"}));
    assert_eq!(args, json!({"level": 2}));
}

#[test]
fn p13_mixed_nullable_enum() {
    let input =
        json!({"type": "object", "properties": {"v": {"enum": ["a", 1, null]}}, "required": ["v"]});
    assert_eq!(
        check(&input),
        json!({"type": "object", "properties": {"v": {"type": "string", "enum": ["a", "1"]}}})
    );
}

#[test]
fn p14_enum_with_empty_string() {
    let input = json!({"type": "object", "properties": {"enc": {"type": "string", "enum": ["", "utf-8"]}}, "required": ["enc"]});
    assert_eq!(
        check(&input),
        json!({"type": "object", "properties": {"enc": {
            "type": "string", "enum": ["(empty)", "utf-8"],
            "description": "\"(empty)\" stands for \"\" (the empty string)."
        }}, "required": ["enc"]})
    );
    assert_eq!(
        gemini_compat::coerce_arguments(&input, json!({"enc": "(empty)"})),
        json!({"enc": ""})
    );
}

#[test]
fn p15_discriminated_union() {
    let union = json!({
        "oneOf": [
            {"properties": {"kind": {"const": "lines"}, "start": {"type": "integer"}}, "required": ["kind", "start"]},
            {"properties": {"kind": {"const": "regex"}, "pattern": {"type": "string"}}, "required": ["kind", "pattern"]}
        ],
        "discriminator": {"propertyName": "kind"},
        "description": "Selector."
    });
    assert_eq!(
        one("sel", union.clone()),
        json!({"anyOf": [
            {"type": "object", "description": "Selector.",
             "properties": {"kind": {"type": "string", "enum": ["lines"]}, "start": {"type": "integer"}},
             "required": ["kind", "start"]},
            {"type": "object", "description": "Selector.",
             "properties": {"kind": {"type": "string", "enum": ["regex"]}, "pattern": {"type": "string"}},
             "required": ["kind", "pattern"]}
        ]})
    );
    // The same union as the whole argument object is collapsed (R10).
    assert_eq!(
        check(&union),
        json!({
            "type": "object",
            "description": "Selector. Give the properties of one variant: (1) kind, start; (2) kind, pattern.",
            "properties": {
                "kind": {"type": "string", "enum": ["lines", "regex"]},
                "pattern": {"type": "string"},
                "start": {"type": "integer"}
            },
            "required": ["kind"]
        })
    );
}

#[test]
fn p16_untagged_primitive_union() {
    assert_eq!(
        one(
            "id",
            json!({"anyOf": [{"type": "string"}, {"type": "integer"}], "description": "id"})
        ),
        json!({"anyOf": [{"type": "string", "description": "id"}, {"type": "integer", "description": "id"}]})
    );
}

#[test]
fn p17_root_combinator_at_least_one() {
    let input = json!({
        "type": "object",
        "properties": {"route": {"type": "string"}, "file": {"type": "string"}},
        "anyOf": [{"required": ["route"]}, {"required": ["file"]}]
    });
    assert_eq!(
        check(&input),
        json!({
            "type": "object",
            "properties": {"file": {"type": "string"}, "route": {"type": "string"}},
            "description": "Provide route or file."
        })
    );
}

#[test]
fn p18_string_map() {
    assert_eq!(
        one(
            "env",
            json!({"type": "object", "additionalProperties": {"type": "string"}})
        ),
        json!({"type": "object", "description": "Map of name → string value."})
    );
}

#[test]
fn p19_zod_record() {
    let input = json!({"type": "object", "propertyNames": {"type": "string"}, "additionalProperties": {"type": "integer"}});
    assert_eq!(
        one("labels", input),
        json!({"type": "object", "description": "Map of name → integer value."})
    );
}

#[test]
fn p20_tuple_prefix_items() {
    let input = json!({"type": "array", "prefixItems": [{"type": "integer"}, {"type": "integer"}], "minItems": 2, "maxItems": 2});
    assert_eq!(
        one("span", input),
        json!({"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2,
               "description": "Tuple: [integer, integer]."})
    );
}

#[test]
fn p21_draft07_tuple_items_array() {
    assert_eq!(
        one(
            "pair",
            json!({"type": "array", "items": [{"type": "string"}, {"type": "number"}]})
        ),
        json!({"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "number"}]},
               "description": "Tuple: [string, number]."})
    );
    let closed = json!({"type": "array", "items": [{"type": "string", "title": "name"}, {"type": "number"}], "additionalItems": false});
    assert_eq!(
        one("pair", closed),
        json!({"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "number"}]}, "maxItems": 2,
               "description": "Tuple: [name (string), number]."})
    );
}

#[test]
fn p22_vec_u8() {
    let input = json!({"type": "array", "items": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255}});
    assert_eq!(
        one("bytes", input),
        json!({"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 255}})
    );
}

#[test]
fn p23_schemars_numeric_formats() {
    let input = json!({"type": "object", "properties": {
        "a": {"type": "integer", "format": "uint", "minimum": 0},
        "b": {"type": "integer", "format": "uint32"},
        "c": {"type": "number", "format": "double"},
        "d": {"type": "integer", "format": "int64"},
        "e": {"type": "number", "format": "float"},
        "f": {"type": "integer", "format": "int16"}
    }});
    assert_eq!(
        check(&input)["properties"],
        json!({
            "a": {"type": "integer", "minimum": 0},
            "b": {"type": "integer", "minimum": 0},
            "c": {"type": "number", "format": "double"},
            "d": {"type": "integer", "format": "int64"},
            "e": {"type": "number", "format": "float"},
            "f": {"type": "integer"}
        })
    );
}

#[test]
fn p24_string_formats() {
    let input = json!({"type": "object", "properties": {
        "url": {"type": "string", "format": "uri", "minLength": 1, "maxLength": 2083},
        "mail": {"type": "string", "format": "email", "description": "Contact"},
        "when": {"type": "string", "format": "date-time"}
    }});
    assert_eq!(
        check(&input)["properties"],
        json!({
            "url": {"type": "string", "minLength": 1, "maxLength": 2083, "description": "Format: uri."},
            "mail": {"type": "string", "description": "Contact. Format: email."},
            "when": {"type": "string", "format": "date-time"}
        })
    );
}

#[test]
fn p25_exclusive_bounds() {
    let input = json!({"type": "object", "properties": {
        "n": {"type": "integer", "exclusiveMinimum": 0},
        "m": {"type": "integer", "exclusiveMaximum": 10, "maximum": 100},
        "x": {"type": "number", "exclusiveMinimum": 0},
        "old": {"type": "integer", "minimum": 5, "exclusiveMinimum": true}
    }});
    assert_eq!(
        check(&input)["properties"],
        json!({
            "n": {"type": "integer", "minimum": 1},
            "m": {"type": "integer", "maximum": 9},
            "x": {"type": "number", "minimum": 0, "description": "Must be greater than 0."},
            "old": {"type": "integer", "minimum": 6}
        })
    );
}

#[test]
fn p26_zod_safe_integer_bounds() {
    let input = json!({"type": "integer", "minimum": -9007199254740991_i64, "maximum": 9007199254740991_i64});
    assert_eq!(one("n", input), json!({"type": "integer"}));
}

#[test]
fn p27_unique_items() {
    let input = json!({"type": "array", "items": {"type": "string"}, "uniqueItems": true});
    assert_eq!(
        one("tags", input),
        json!({"type": "array", "items": {"type": "string"}, "description": "Unique values."})
    );
}

#[test]
fn p28_empty_args_tool() {
    assert_eq!(
        check(&json!({"type": "object", "properties": {}})),
        json!({"type": "object"})
    );
}

#[test]
fn p29_free_form_value() {
    let input = json!({"type": "object", "properties": {"meta": {}, "value": true, "opts": {"description": "Options"}}});
    assert_eq!(
        check(&input)["properties"],
        json!({
            "meta": {"type": "object", "description": "Arbitrary JSON object."},
            "value": {"type": "object", "description": "Arbitrary JSON object."},
            "opts": {"type": "object", "description": "Options. Arbitrary JSON object."}
        })
    );
}

#[test]
fn p30_required_names_missing_property() {
    let input = json!({"properties": {"text": {}}, "required": ["ref", "text"]});
    assert_eq!(
        check(&input),
        json!({"type": "object", "properties": {"text": {"type": "object", "description": "Arbitrary JSON object."}},
               "required": ["text"]})
    );
    assert_eq!(
        one("s", json!({"type": "string", "required": ["x"]})),
        json!({"type": "string"})
    );
}

#[test]
fn p31_titles_and_schema_header() {
    let input = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Args",
        "type": "object",
        "properties": {
            "x": {"title": "X", "type": "string"},
            "title": {"type": "string", "title": "Title"},
            "q": {"type": "string", "title": "Search query"}
        },
        "required": ["title"]
    });
    assert_eq!(
        check(&input),
        json!({
            "type": "object",
            "properties": {
                "q": {"type": "string", "description": "Search query"},
                "title": {"type": "string"},
                "x": {"type": "string"}
            },
            "required": ["title"]
        })
    );
}

#[test]
fn p32_huge_enum_and_deep_nesting() {
    let values: Vec<String> = (0..500).map(|i| format!("lang{i:03}")).collect();
    let out = one("language", json!({"type": "string", "enum": values}));
    assert_eq!(out["type"], "string");
    assert!(out.get("enum").is_none());
    let d = out["description"].as_str().unwrap();
    assert!(d.starts_with("One of: lang000, lang001, "), "{d}");
    assert!(d.ends_with("more)."), "{d}");
    // An integer enum that overflows keeps its integer type (nothing to coerce).
    let ints: Vec<i64> = (0..100).collect();
    assert_eq!(
        one("n", json!({"type": "integer", "enum": ints}))["type"],
        "integer"
    );
    // Eight levels of objects: l6..l4 are kept, l3 (four steps below the root) keeps its
    // type and carries the rest of the shape as prose.
    let mut s = json!({"type": "object", "properties": {"leaf": {"type": "string"}}});
    for i in 0..7 {
        s = json!({"type": "object", "properties": {format!("l{i}"): s}});
    }
    let out = check(&s);
    let mut node = &out;
    for i in (0..7).rev().take(4) {
        node = &node["properties"][format!("l{i}")];
    }
    assert_eq!(
        node,
        &json!({"type": "object", "description": "Nested deeper; shape: {l2?: {l1?: {l0?: {leaf?: string}}}}."})
    );
}

#[test]
fn a_default_the_description_states_is_not_said_twice() {
    let stated = one(
        "ignore_case",
        json!({"type": "boolean", "default": false, "description": "Match case-insensitively. Default false."}),
    );
    assert_eq!(
        stated["description"],
        "Match case-insensitively. Default false."
    );
    let unstated = one(
        "ignore_case",
        json!({"type": "boolean", "default": false, "description": "Match case-insensitively."}),
    );
    assert_eq!(
        unstated["description"],
        "Match case-insensitively. Default: false."
    );
}
