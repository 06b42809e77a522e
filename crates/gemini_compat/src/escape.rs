//! R14: escaping `$ref` keys in tool *results*.
//!
//! Gemini 3 rejects a `functionResponse` whose JSON contains a `"$ref"` key ("The
//! referenced name `#/$defs/X` in function_response.response does not match …"), which
//! a filesystem server produces whenever it returns a JSON Schema file as structured
//! content.
//!
//! Spelling: every object key made of one or more `$` followed by `ref` gains one more
//! `$` (`"$ref"` → `"$$ref"`, `"$$ref"` → `"$$$ref"`). Why this one:
//! * it is plain ASCII, survives every JSON and proto-JSON layer, and a model still
//!   reads it as "a reference";
//! * it is reversible and collision-free: keys that already look escaped are shifted
//!   too, so [`unescape_output_refs`] restores the exact original;
//! * values are untouched (a string `"#/$defs/X"` is not what Gemini trips on).
//!
//! Both functions walk the value with an explicit stack: no recursion, no stack
//! overflow on deeply nested documents.

use serde_json::{Map, Value};

fn is_ref_key(key: &str, min_dollars: usize) -> bool {
    let dollars = key.len() - key.trim_start_matches('$').len();
    dollars >= min_dollars && &key[dollars..] == "ref"
}

fn rename_keys(value: &mut Value, rename: &dyn Fn(&str) -> Option<String>) {
    let mut stack: Vec<&mut Value> = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(map) => {
                if map.keys().any(|k| rename(k).is_some()) {
                    let old = std::mem::take(map);
                    let mut fresh = Map::new();
                    for (k, child) in old {
                        let key = rename(&k).unwrap_or(k);
                        fresh.insert(key, child);
                    }
                    *map = fresh;
                }
                stack.extend(map.values_mut());
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
}

/// Rename every object key `"$ref"` (and already-escaped `"$$ref"`, `"$$$ref"`, …) by
/// adding one `$`, anywhere inside `value`. See the module docs for the spelling.
pub fn escape_output_refs(value: &mut Value) {
    rename_keys(value, &|k| is_ref_key(k, 1).then(|| format!("${k}")));
}

/// Undo [`escape_output_refs`]: remove one `$` from every key `"$$ref"`, `"$$$ref"`, ….
pub fn unescape_output_refs(value: &mut Value) {
    rename_keys(value, &|k| is_ref_key(k, 2).then(|| k[1..].to_string()));
}

/// Whether `value` contains a `"$ref"` key anywhere (what Gemini 3 rejects).
pub fn has_output_refs(value: &Value) -> bool {
    let mut stack: Vec<&Value> = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(map) => {
                if map.contains_key("$ref") {
                    return true;
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items.iter()),
            _ => {}
        }
    }
    false
}
