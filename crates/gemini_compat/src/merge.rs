//! Conjunction of two raw schema objects: how `allOf` branches and `$ref` siblings are
//! merged. The left side wins for annotations (`description`, `default`, `format`…);
//! constraints are combined so the result accepts what both sides accept:
//! `properties` are merged (a property on both sides becomes an `allOf` of the two,
//! resolved later), `required` is unioned in order, `type` and `enum` are intersected,
//! lower bounds take the larger value and upper bounds the smaller.

use crate::canon;
use serde_json::{Map, Value, json};
use std::collections::HashSet;

type Obj = Map<String, Value>;

/// Largest cross product built when both sides carry a union.
const MAX_CROSS: usize = 16;

/// Merge `b` into `a`. The flag is `false` when the two sides cannot both hold
/// (disjoint types or enums); the map is still usable, with `a`'s choice kept.
pub(crate) fn conj(a: &Obj, b: &Obj) -> (Obj, bool) {
    let mut out = a.clone();
    let mut satisfiable = true;
    for (key, vb) in b {
        let Some(va) = a.get(key) else {
            if !(key == "const" && a.contains_key("enum")
                || key == "enum" && a.contains_key("const"))
            {
                out.insert(key.clone(), vb.clone());
            }
            continue;
        };
        match key.as_str() {
            "type" => match intersect_types(va, vb) {
                Some(t) => {
                    out.insert(key.clone(), t);
                }
                None => satisfiable = false,
            },
            "properties" => {
                if let (Value::Object(pa), Value::Object(pb)) = (va, vb) {
                    let mut merged = pa.clone();
                    for (name, sb) in pb {
                        match pa.get(name) {
                            Some(sa) if sa != sb => {
                                merged.insert(name.clone(), json!({ "allOf": [sa, sb] }));
                            }
                            Some(_) => {}
                            None => {
                                merged.insert(name.clone(), sb.clone());
                            }
                        }
                    }
                    out.insert(key.clone(), Value::Object(merged));
                }
            }
            "required" => {
                if let (Value::Array(ra), Value::Array(rb)) = (va, vb) {
                    let mut merged = ra.clone();
                    let mut seen: HashSet<String> = ra.iter().map(canon::key).collect();
                    for r in rb {
                        if seen.insert(canon::key(r)) {
                            merged.push(r.clone());
                        }
                    }
                    out.insert(key.clone(), Value::Array(merged));
                }
            }
            "minimum" | "minLength" | "minItems" | "minProperties" | "minContains"
            | "exclusiveMinimum" => {
                if let (Some(x), Some(y)) = (va.as_f64(), vb.as_f64())
                    && y > x
                {
                    out.insert(key.clone(), vb.clone());
                }
            }
            "maximum" | "maxLength" | "maxItems" | "maxProperties" | "maxContains"
            | "exclusiveMaximum" => {
                if let (Some(x), Some(y)) = (va.as_f64(), vb.as_f64())
                    && y < x
                {
                    out.insert(key.clone(), vb.clone());
                }
            }
            "items" if va.is_object() && vb.is_object() && va != vb => {
                out.insert(key.clone(), json!({ "allOf": [va, vb] }));
            }
            "uniqueItems" if vb == &Value::Bool(true) => {
                out.insert(key.clone(), Value::Bool(true));
            }
            "additionalProperties" if vb == &Value::Bool(false) => {
                out.insert(key.clone(), Value::Bool(false));
            }
            "anyOf" | "oneOf" => {
                if let (Value::Array(xs), Value::Array(ys)) = (va, vb) {
                    out.insert(key.clone(), cross(xs, ys));
                }
            }
            _ => {}
        }
    }
    // `enum`/`const` on both sides: intersect the allowed values.
    if let (Some(xs), Some(ys)) = (allowed_values(a), allowed_values(b)) {
        let allowed: HashSet<String> = ys.iter().map(canon::key).collect();
        let both: Vec<Value> = xs
            .iter()
            .filter(|v| allowed.contains(&canon::key(v)))
            .cloned()
            .collect();
        if both.is_empty() {
            satisfiable = false;
        } else {
            out.remove("const");
            out.insert("enum".into(), Value::Array(both));
        }
    }
    (out, satisfiable)
}

/// Keys `conj(a, b)` cannot combine although both sides constrain them differently (two
/// `pattern`s, two `multipleOf`s, two `not`s…): `a`'s is kept and `b`'s is lost. Annotations
/// (`description`, `default`…) are not constraints: `a`'s simply wins.
pub(crate) fn lost_in_conj(a: &Obj, b: &Obj) -> Vec<String> {
    const COMBINED: [&str; 21] = [
        "type",
        "properties",
        "required",
        "minimum",
        "minLength",
        "minItems",
        "minProperties",
        "minContains",
        "exclusiveMinimum",
        "maximum",
        "maxLength",
        "maxItems",
        "maxProperties",
        "maxContains",
        "exclusiveMaximum",
        "items",
        "uniqueItems",
        "anyOf",
        "oneOf",
        "enum",
        "const",
    ];
    const ANNOTATIONS: [&str; 12] = [
        "description",
        "title",
        "default",
        "examples",
        "example",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$comment",
        "$id",
        "$schema",
        "$anchor",
    ];
    let mut lost: Vec<String> = b
        .iter()
        .filter(|(k, vb)| {
            let k = k.as_str();
            // `additionalProperties: false` on either side is kept (conj closes the object).
            let combined = COMBINED.contains(&k)
                || (k == "additionalProperties" && **vb == Value::Bool(false));
            let differs = a.get(k).is_some_and(|va| va != *vb);
            differs && !combined && !ANNOTATIONS.contains(&k)
        })
        .map(|(k, _)| k.clone())
        .collect();
    lost.sort();
    lost
}

/// The union lists `xs` and `ys` both apply: their cross product, or `xs` alone when
/// the product would be too large.
pub(crate) fn cross(xs: &[Value], ys: &[Value]) -> Value {
    if xs.len().saturating_mul(ys.len()) > MAX_CROSS {
        return Value::Array(xs.to_vec());
    }
    let mut out = Vec::new();
    for x in xs {
        for y in ys {
            out.push(json!({ "allOf": [x, y] }));
        }
    }
    Value::Array(out)
}

fn allowed_values(map: &Obj) -> Option<Vec<Value>> {
    if let Some(c) = map.get("const") {
        return Some(vec![c.clone()]);
    }
    match map.get("enum") {
        Some(Value::Array(values)) => Some(values.clone()),
        _ => None,
    }
}

/// The type names a `type` keyword allows.
pub(crate) fn type_names(v: &Value) -> Vec<&str> {
    match v {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn intersect_types(a: &Value, b: &Value) -> Option<Value> {
    let (ta, tb) = (type_names(a), type_names(b));
    let mut out: Vec<&str> = Vec::new();
    for t in &ta {
        let hit = if tb.contains(t) {
            Some(*t)
        } else if (*t == "integer" && tb.contains(&"number"))
            || (*t == "number" && tb.contains(&"integer"))
        {
            Some("integer")
        } else {
            None
        };
        if let Some(h) = hit
            && !out.contains(&h)
        {
            out.push(h);
        }
    }
    match out.len() {
        0 => None,
        1 => Some(Value::String(out[0].to_string())),
        _ => Some(Value::Array(
            out.into_iter()
                .map(|t| Value::String(t.to_string()))
                .collect(),
        )),
    }
}
