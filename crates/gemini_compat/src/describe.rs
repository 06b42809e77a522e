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

/// `text` as a sentence: a full stop added unless it already ends with punctuation.
pub(crate) fn sentence(text: String) -> String {
    if text.ends_with(['.', '!', '?', '…']) {
        text
    } else {
        text + "."
    }
}

/// Compact JSON, cut to `max` characters with an ellipsis.
pub(crate) fn json_short(value: &Value, max: usize) -> String {
    let text = serde_json::to_string(value).unwrap_or_default();
    cut(&text, max)
}

/// `text` cut to `max` characters with an ellipsis. gemini_compat's one cut, its own rather than
/// fs-mcp-text's: this crate is published for reuse and depends on none of our internal crates.
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

/// The types a schema declares, or implies by `items`/`properties` (none when it says nothing).
fn declared_types(map: &Map<String, Value>) -> Vec<&str> {
    match map.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ if map.contains_key("items") || map.contains_key("prefixItems") => vec!["array"],
        _ if map.contains_key("properties") || map.contains_key("additionalProperties") => {
            vec!["object"]
        }
        _ => vec![],
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
    let types = declared_types(map);
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

/// The enum member sent in place of `""` (Gemini and LiteLLM reject empty enum strings):
/// `(empty)`, or a variant of it that is not already a member. [`crate::coerce_arguments`]
/// computes the same value from the raw enum and maps it back to `""`.
pub(crate) fn empty_stand_in<'s>(members: impl IntoIterator<Item = &'s str> + Clone) -> String {
    let mut candidate = "(empty)".to_string();
    while members.clone().into_iter().any(|m| m == candidate) {
        candidate.insert_str(candidate.len() - 1, " string");
    }
    candidate
}

/// A compact, TypeScript-like rendering of a raw schema, cut to `max` characters:
/// `{name: string, order?: 1 | -1 | "asc"}`, `string[]`, `[integer, integer]`,
/// `{[key]: number}`. Local `$ref`s into `root` are followed a few levels, then shown by
/// name. What a description can carry of a shape the served schema cannot (map values).
pub(crate) fn shape(schema: &Value, root: &Value, max: usize) -> String {
    let mut r = Renderer::new(root, max + 1, SHAPE_DEPTH);
    r.render(schema, 0);
    cut(&r.out, max)
}

/// The shape of `schema` in at most `max` characters, as complete as fits: every property name
/// and type at every level when they fit; else nested levels are shown by their type only
/// (`{…}`, `object[]`), deepest first, so the names and types of the outer levels stay; and
/// when even the names of one level do not fit, as many as fit and how many more there are
/// ("… 12 more"). Optional properties are marked `name?`.
pub(crate) fn shape_fitted(schema: &Value, root: &Value, max: usize) -> String {
    let reserve = max.saturating_sub(MORE_NOTE).max(1);
    for levels in (0..=SHAPE_DEPTH).rev() {
        let mut r = Renderer::new(root, reserve, levels);
        r.render(schema, 0);
        if !r.truncated || levels == 0 {
            return cut(&r.out, max);
        }
    }
    shape(schema, root, max)
}

/// Room kept for the "… N more}" notes of a shape cut by its budget.
const MORE_NOTE: usize = 120;

/// Levels rendered before `…`.
const SHAPE_DEPTH: usize = 8;
/// Longest description shown beside a free-form object, in characters.
const SHAPE_NOTE: usize = 160;
/// Levels below which a `$ref` is shown by name instead of followed.
const SHAPE_REF_DEPTH: usize = 3;

struct Renderer<'a> {
    root: &'a Value,
    out: String,
    budget: usize,
    /// Levels whose content is rendered; deeper nodes are shown by their type only.
    levels: usize,
    /// Something was left out for lack of room.
    truncated: bool,
}

impl<'a> Renderer<'a> {
    fn new(root: &'a Value, budget: usize, levels: usize) -> Self {
        Renderer {
            root,
            out: String::new(),
            budget,
            levels,
            truncated: false,
        }
    }

    fn render(&mut self, schema: &Value, depth: usize) {
        if self.out.len() > self.budget {
            self.truncated = true;
            return;
        }
        let map = match schema {
            Value::Bool(true) => return self.out.push_str("any"),
            Value::Bool(false) => return self.out.push_str("never"),
            Value::Object(map) => map,
            _ => return self.out.push_str("any"),
        };
        if depth > self.levels {
            // Below the levels shown: the type only (`{…}` for an object with properties).
            let word = if map.contains_key("properties") {
                "{…}".to_string()
            } else {
                type_phrase(schema, 3)
            };
            return self.out.push_str(&word);
        }
        if let Some(Value::String(r)) = map.get("$ref") {
            let ptr = pointer::local_pointer(r);
            if depth < SHAPE_REF_DEPTH
                && let Some(target) = ptr.as_deref().and_then(|p| pointer::resolve(self.root, p))
            {
                return self.render(target, depth + 1);
            }
            let name = ptr
                .and_then(|p| pointer::last_token(&p))
                .unwrap_or_else(|| r.clone());
            return self.out.push_str(&name);
        }
        if let Some(c) = map.get("const") {
            return self.out.push_str(&json_short(c, 40));
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            let shown: Vec<String> = values.iter().map(|v| json_short(v, 40)).collect();
            return self.out.push_str(&shown.join(" | "));
        }
        for (key, sep) in [("anyOf", " | "), ("oneOf", " | "), ("allOf", " & ")] {
            if let Some(Value::Array(branches)) = map.get(key) {
                // Each alternative once (`A | A` says nothing more than `A`).
                let start = self.out.len();
                let mut shown: Vec<String> = Vec::new();
                for b in branches {
                    let at = self.out.len();
                    self.render(b, depth + 1);
                    let text = self.out.split_off(at);
                    if !shown.contains(&text) {
                        shown.push(text);
                    }
                    if self.out.len() + shown.iter().map(String::len).sum::<usize>() > self.budget {
                        self.truncated = true;
                        break;
                    }
                }
                self.out.truncate(start);
                self.out.push_str(&shown.join(sep));
                return;
            }
        }
        let mut types = declared_types(map);
        if types.is_empty() {
            types.push("any");
        }
        for (i, ty) in types.iter().enumerate() {
            if i > 0 {
                self.out.push_str(" | ");
            }
            match *ty {
                "object" => self.render_object(map, depth),
                "array" => self.render_array(map, depth),
                other => self.out.push_str(other),
            }
        }
    }

    fn render_object(&mut self, map: &Map<String, Value>, depth: usize) {
        let props = match map.get("properties") {
            Some(Value::Object(p)) if !p.is_empty() => Some(p),
            _ => None,
        };
        let values = map.get("additionalProperties").filter(|v| v.is_object());
        let Some(props) = props else {
            match values {
                Some(v) => {
                    self.out.push_str("{[key]: ");
                    self.render(v, depth + 1);
                    self.out.push('}');
                }
                None => {
                    self.out.push_str("object");
                    // A free-form object says nothing by its type: its description (an
                    // R7 map's value shape, an R11 "Arbitrary JSON object") does.
                    if let Some(d) = map.get("description").and_then(Value::as_str) {
                        let d = d.trim().trim_end_matches('.');
                        if !d.is_empty() {
                            self.out.push_str(" (");
                            self.out.push_str(&cut(d, SHAPE_NOTE));
                            self.out.push(')');
                        }
                    }
                }
            }
            return;
        };
        let required: Vec<&str> = match map.get("required") {
            Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let mut names: Vec<&String> = props.keys().collect();
        names.sort();
        self.out.push('{');
        let total = names.len();
        for (i, name) in names.into_iter().enumerate() {
            if self.out.len() > self.budget {
                self.truncated = true;
                self.out.push_str(&format!(", … {} more}}", total - i));
                return;
            }
            if i > 0 {
                self.out.push_str(", ");
            }
            self.out.push_str(name);
            if !required.contains(&name.as_str()) {
                self.out.push('?');
            }
            self.out.push_str(": ");
            if let Some(s) = props.get(name) {
                self.render(s, depth + 1);
            }
        }
        self.out.push('}');
    }

    fn render_array(&mut self, map: &Map<String, Value>, depth: usize) {
        let positions = match (map.get("prefixItems"), map.get("items")) {
            (Some(Value::Array(p)), _) | (_, Some(Value::Array(p))) => Some(p),
            _ => None,
        };
        if let Some(positions) = positions {
            self.out.push('[');
            for (i, p) in positions.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.render(p, depth + 1);
            }
            self.out.push(']');
            return;
        }
        match map.get("items") {
            Some(items @ Value::Object(_)) => {
                let start = self.out.len();
                self.render(items, depth + 1);
                let inner = &self.out[start..];
                if inner.starts_with("object (") {
                    // A described free-form object: `object[] (its description)`.
                    self.out.insert_str(start + "object".len(), "[]");
                } else if inner.contains(" | ") || inner.contains(" & ") || inner.contains(" (") {
                    self.out.insert(start, '(');
                    self.out.push(')');
                    self.out.push_str("[]");
                } else {
                    self.out.push_str("[]");
                }
            }
            _ => self.out.push_str("array"),
        }
    }
}
