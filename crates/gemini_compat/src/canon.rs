//! Canonical key order: every object of the output is rebuilt with its keys sorted, so
//! the result is byte-identical whether or not serde_json's `preserve_order` feature is
//! enabled somewhere in the final build.

use serde_json::{Map, Value};

/// Rebuild `value` with sorted object keys (output schemas are shallow: at most a few
/// hundred levels, bounded by the transform's depth caps).
pub(crate) fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            let mut out = Map::new();
            for (k, v) in entries {
                out.insert(k, sorted(v));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

/// Nesting depth of a JSON value (arrays and objects), computed without recursion.
pub(crate) fn json_depth(value: &Value) -> usize {
    let mut max = 0;
    let mut stack: Vec<(&Value, usize)> = vec![(value, 1)];
    while let Some((v, d)) = stack.pop() {
        match v {
            Value::Object(map) => {
                max = max.max(d);
                stack.extend(map.values().map(|c| (c, d + 1)));
            }
            Value::Array(items) => {
                max = max.max(d);
                stack.extend(items.iter().map(|c| (c, d + 1)));
            }
            _ => {}
        }
    }
    max
}

/// A copy of `value` whose containers below `max` levels are replaced by `{}`.
/// Recursion is bounded by `max`.
pub(crate) fn truncated(value: &Value, max: usize) -> Value {
    match value {
        Value::Object(_) | Value::Array(_) if max == 0 => Value::Object(Map::new()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), truncated(v, max - 1)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(|v| truncated(v, max - 1)).collect()),
        other => other.clone(),
    }
}

/// JSON values in `value` (itself included), counted up to `cap`: what copying it costs.
pub(crate) fn size_capped(value: &Value, cap: usize) -> usize {
    let mut count = 0;
    let mut stack: Vec<&Value> = vec![value];
    while let Some(v) = stack.pop() {
        count += 1;
        if count >= cap {
            return cap;
        }
        match v {
            Value::Object(map) => stack.extend(map.values()),
            Value::Array(items) => stack.extend(items.iter()),
            _ => {}
        }
    }
    count
}

/// A string that is equal for equal JSON values (object keys sorted), to deduplicate with a
/// hash set in linear time where `Vec::contains` would be quadratic.
pub(crate) fn key(value: &Value) -> String {
    match value {
        Value::Object(_) => serde_json::to_string(&sorted(value.clone())).unwrap_or_default(),
        Value::Array(items) if items.iter().any(|i| i.is_object() || i.is_array()) => {
            serde_json::to_string(&sorted(value.clone())).unwrap_or_default()
        }
        other => serde_json::to_string(other).unwrap_or_default(),
    }
}
