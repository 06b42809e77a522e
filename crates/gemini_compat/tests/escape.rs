//! R14: `$ref` keys in tool results.

// Test code: a panic is how a test reports failure, and clippy's allow-unwrap-in-tests
// does not reach helpers outside #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use gemini_compat::{escape_output_refs, has_output_refs, unescape_output_refs};
use serde_json::{Value, json};

#[test]
fn ref_keys_gain_one_dollar_and_come_back() {
    let original = json!({
        "$ref": "#/$defs/A",
        "$defs": {"A": {"type": "object", "properties": {"$ref": {"type": "string"}}}},
        "list": [{"$ref": "x"}, {"$$ref": "already"}, "$ref"],
        "ref": 1,
        "$refs": 2,
        "value": "#/$defs/A"
    });
    let mut v = original.clone();
    assert!(has_output_refs(&v));
    escape_output_refs(&mut v);
    assert_eq!(
        v,
        json!({
            "$$ref": "#/$defs/A",
            "$defs": {"A": {"type": "object", "properties": {"$$ref": {"type": "string"}}}},
            "list": [{"$$ref": "x"}, {"$$$ref": "already"}, "$ref"],
            "ref": 1,
            "$refs": 2,
            "value": "#/$defs/A"
        })
    );
    assert!(!has_output_refs(&v));
    unescape_output_refs(&mut v);
    assert_eq!(v, original);
}

#[test]
fn deep_values_are_walked_without_recursion() {
    let mut v = json!({"$ref": "leaf"});
    for _ in 0..100_000 {
        let mut m = serde_json::Map::new();
        m.insert("$ref".into(), json!("#"));
        m.insert("next".into(), Value::Array(vec![v]));
        v = Value::Object(m);
    }
    escape_output_refs(&mut v);
    assert!(!has_output_refs(&v));
    unescape_output_refs(&mut v);
    assert!(has_output_refs(&v));
    // serde_json's Drop recurses; do not drop 100 000 levels on a test thread.
    std::mem::forget(v);
}
