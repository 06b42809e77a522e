//! Output does not depend on key insertion order (run also with
//! `--features serde_json/preserve_order`, where maps keep insertion order).

// Test code: a panic is how a test reports failure, and clippy's allow-unwrap-in-tests
// does not reach helpers outside #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use gemini_compat::{lint, transform};
use serde_json::{Map, Value, json};

/// Rebuild every object with its keys inserted in reverse order.
fn reversed(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut entries: Vec<(&String, &Value)> = m.iter().collect();
            entries.sort_by(|a, b| b.0.cmp(a.0));
            let mut out = Map::new();
            for (k, v) in entries {
                out.insert(k.clone(), reversed(v));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(reversed).collect()),
        other => other.clone(),
    }
}

fn keys_sorted(v: &Value) -> bool {
    match v {
        Value::Object(m) => {
            let keys: Vec<&String> = m.keys().collect();
            keys.windows(2).all(|w| w[0] <= w[1]) && m.values().all(keys_sorted)
        }
        Value::Array(items) => items.iter().all(keys_sorted),
        _ => true,
    }
}

#[test]
fn same_output_whatever_the_key_order() {
    let input = json!({
        "type": "object",
        "title": "Args",
        "properties": {
            "zeta": {"type": ["string", "null"], "format": "uri"},
            "alpha": {"oneOf": [{"const": "b", "description": "B"}, {"const": "a", "description": "A"}]},
            "mid": {"type": "object", "additionalProperties": {"type": "integer"}},
            "tree": {"$ref": "#/$defs/T"}
        },
        "required": ["zeta", "alpha", "tree"],
        "anyOf": [{"required": ["zeta"]}, {"required": ["mid"]}],
        "$defs": {"T": {"type": "object", "properties": {"k": {"type": "array", "items": {"$ref": "#/$defs/T"}}, "b": {"type": "boolean"}}}}
    });
    let a = transform(&input);
    let b = transform(&reversed(&input));
    assert_eq!(
        serde_json::to_string(&a.schema).unwrap(),
        serde_json::to_string(&b.schema).unwrap()
    );
    assert_eq!(a.changes, b.changes);
    assert!(keys_sorted(&a.schema));
    assert_eq!(lint(&input), lint(&reversed(&input)));
}
