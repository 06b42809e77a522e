//! Short, deterministic prose for what the rewrite moves out of the schema
//! (defaults, formats, map value types, tuple positions, variant docs…).

use crate::pointer;
use serde_json::{Map, Value};

/// Join description parts into sentences. A part is separated from the previous one by
/// `". "`, or by `" "` when the previous part already ends with punctuation. A single
/// part is returned verbatim, so a description the transform does not touch is kept
/// byte for byte (this keeps the transform idempotent).
pub(crate) fn join<'s>(parts: impl IntoIterator<Item = &'s str>) -> String {
    let parts: Vec<&str> = parts.into_iter().filter(|p| !p.trim().is_empty()).collect();
    if parts.len() == 1 {
        return parts[0].to_string();
    }
    let mut out = String::new();
    for part in parts {
        let part = part.trim();
        if !out.is_empty() {
            if !out.ends_with(['.', '!', '?', ':', ';']) {
                out.push('.');
            }
            out.push(' ');
        }
        out.push_str(part);
    }
    out
}

/// Compact JSON, cut to `max` characters with an ellipsis.
pub(crate) fn json_short(value: &Value, max: usize) -> String {
    let text = serde_json::to_string(value).unwrap_or_default();
    cut(&text, max)
}

/// `text` cut to `max` characters with an ellipsis.
pub(crate) fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(max).collect();
        s.push('…');
        s
    }
}

/// The string an enum member is sent as: strings verbatim, everything else as JSON.
pub(crate) fn enum_string(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => serde_json::to_string(other).unwrap_or_default(),
    }
}

/// A short phrase naming the type a raw subschema accepts ("string", "array of integer",
/// "Edit", "one of a, b"). Used for map value types and tuple positions.
pub(crate) fn type_phrase(schema: &Value, depth: usize) -> String {
    let map = match schema {
        Value::Bool(true) => return "any".into(),
        Value::Bool(false) => return "nothing".into(),
        Value::Object(map) => map,
        _ => return "any".into(),
    };
    if depth > 3 {
        return "value".into();
    }
    if let Some(Value::String(r)) = map.get("$ref") {
        return pointer::local_pointer(r)
            .and_then(|p| pointer::last_token(&p))
            .unwrap_or_else(|| r.clone());
    }
    if let Some(c) = map.get("const") {
        return json_short(c, 40);
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        return if values.len() <= 5 {
            let shown: Vec<String> = values.iter().map(|v| json_short(v, 30)).collect();
            format!("one of {}", shown.join(", "))
        } else {
            format!("one of {} values", values.len())
        };
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get(key) {
            return alternatives(branches.iter().map(|b| type_phrase(b, depth + 1)));
        }
    }
    if let Some(Value::Array(branches)) = map.get("allOf")
        && let Some(first) = branches.first()
    {
        return type_phrase(first, depth + 1);
    }
    let types: Vec<&str> = match map.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ if map.contains_key("items") || map.contains_key("prefixItems") => vec!["array"],
        _ if map.contains_key("properties") || map.contains_key("additionalProperties") => {
            vec!["object"]
        }
        _ => vec![],
    };
    if types.is_empty() {
        return "any".into();
    }
    alternatives(types.into_iter().map(|t| typed_phrase(t, map, depth)))
}

fn typed_phrase(ty: &str, map: &Map<String, Value>, depth: usize) -> String {
    match ty {
        "array" => match map.get("items") {
            Some(items @ Value::Object(_)) => format!("array of {}", type_phrase(items, depth + 1)),
            _ => "array".into(),
        },
        "object" => match map.get("additionalProperties") {
            Some(values @ Value::Object(_)) if !map.contains_key("properties") => {
                format!("map of {}", type_phrase(values, depth + 1))
            }
            _ => "object".into(),
        },
        other => other.into(),
    }
}

fn alternatives(phrases: impl Iterator<Item = String>) -> String {
    let mut seen: Vec<String> = Vec::new();
    for p in phrases {
        if !seen.contains(&p) {
            seen.push(p);
        }
    }
    if seen.is_empty() {
        return "any".into();
    }
    if seen.len() > 4 {
        let n = seen.len();
        seen.truncate(4);
        return format!("{} or {} more", seen.join(" or "), n - 4);
    }
    seen.join(" or ")
}

/// A label for one tuple position: its title or description and its type.
pub(crate) fn position_label(schema: &Value) -> String {
    let phrase = type_phrase(schema, 0);
    let label = schema
        .as_object()
        .and_then(|m| m.get("title").or_else(|| m.get("description")))
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|l| !l.is_empty());
    match label {
        Some(l) => format!("{} ({phrase})", cut(l.trim_end_matches('.'), 40)),
        None => phrase,
    }
}

/// Values listed as prose, cut after roughly `max_chars` characters.
pub(crate) fn list_values(values: &[String], max_chars: usize) -> String {
    let mut out = String::new();
    for (i, v) in values.iter().enumerate() {
        if !out.is_empty() && out.len() + v.len() > max_chars {
            out.push_str(&format!(", … ({} more)", values.len() - i));
            return out;
        }
        if !out.is_empty() {
            out.push_str(", ");
        }
        out.push_str(v);
    }
    out
}

/// A name normalised for comparison: lower-case letters and digits only.
pub(crate) fn norm_name(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// True when a description already says its default ("Default false.", "default: 30"), so the
/// transform does not say it a second time.
pub(crate) fn states_default(description: &str) -> bool {
    description
        .to_ascii_lowercase()
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|word| word == "default" || word == "defaults")
}
