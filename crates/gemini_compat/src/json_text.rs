//! Arguments the depth budget (R13) serves as JSON text, checked before a call goes out: text that
//! does not parse cannot be coerced back, and forwarded as a plain string it would make a silently
//! wrong call (or an upstream error that names a type the model was never shown).

use serde_json::Value;

use crate::merge::type_names;

/// What the description of a node cut to JSON text says (see `rewrite::depth_cut`).
pub(crate) const JSON_TEXT_NOTE: &str = "Nested deeper; give it as JSON text";
/// What every node served as JSON text says (a depth cut, or a cut once the transform's work
/// budget is spent).
pub(crate) const JSON_TEXT_MARK: &str = "give it as JSON text";

/// JSON nesting walked at most (the served schema is at most a few levels deep).
const MAX_DEPTH: usize = 64;

/// One argument whose JSON text does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MalformedJsonText {
    /// Where it is, e.g. `a.b[0].c`.
    pub location: String,
    /// The parser's message (line and column in the text).
    pub error: String,
}

impl std::fmt::Display for MalformedJsonText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "argument `{}` is not valid JSON text ({}). It is nested too deep to be described, so it is given as JSON text in a string, shaped as its description says, e.g. \"[1, 2]\" or \"{{\\\"key\\\": \\\"value\\\"}}\".",
            self.location, self.error
        )
    }
}

/// The string arguments in `args` that the (served, reference-free) `schema` asks for as JSON
/// text and that do not parse. A union that also accepts a plain string is not judged (any text
/// is valid there).
pub fn malformed_json_text(schema: &Value, args: &Value) -> Vec<MalformedJsonText> {
    let mut out = Vec::new();
    walk(schema, args, "", 0, &mut out);
    out
}

/// Whether any node of the (served) `schema` asks for JSON text: only then can a call's
/// arguments hold text [`malformed_json_text`] would report.
pub fn asks_for_json_text(schema: &Value) -> bool {
    fn any_node(value: &Value, depth: usize) -> bool {
        depth <= MAX_DEPTH
            && match value {
                Value::Object(map) => {
                    is_json_text(value) || map.values().any(|v| any_node(v, depth + 1))
                }
                Value::Array(items) => items.iter().any(|v| any_node(v, depth + 1)),
                _ => false,
            }
    }
    any_node(schema, 0)
}

fn is_json_text(schema: &Value) -> bool {
    schema
        .get("description")
        .and_then(Value::as_str)
        .is_some_and(|d| d.contains(JSON_TEXT_MARK))
        && schema
            .get("type")
            .is_some_and(|t| type_names(t).contains(&"string"))
}

fn takes_plain_string(schema: &Value) -> bool {
    !is_json_text(schema)
        && schema
            .get("type")
            .is_some_and(|t| type_names(t).contains(&"string"))
}

fn walk(schema: &Value, value: &Value, at: &str, depth: usize, out: &mut Vec<MalformedJsonText>) {
    if depth > MAX_DEPTH {
        return;
    }
    let mut variants: Vec<&Value> = vec![schema];
    if let Some(any) = schema.get("anyOf").and_then(Value::as_array) {
        variants.extend(any.iter());
    }
    match value {
        Value::String(text) => {
            if variants.iter().any(|v| is_json_text(v))
                && !variants.iter().any(|v| takes_plain_string(v))
                && let Err(e) = serde_json::from_str::<Value>(text)
            {
                out.push(MalformedJsonText {
                    location: at.to_string(),
                    error: e.to_string(),
                });
            }
        }
        Value::Object(map) => {
            for (key, child) in map {
                let child_schema = variants.iter().find_map(|v| {
                    v.get("properties")
                        .and_then(|p| p.get(key))
                        .or_else(|| v.get("additionalProperties").filter(|a| a.is_object()))
                });
                if let Some(child_schema) = child_schema {
                    let location = if at.is_empty() {
                        key.clone()
                    } else {
                        format!("{at}.{key}")
                    };
                    walk(child_schema, child, &location, depth + 1, out);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = variants.iter().find_map(|v| v.get("items")) {
                for (i, item) in items.iter().enumerate() {
                    walk(item_schema, item, &format!("{at}[{i}]"), depth + 1, out);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cut(ty: Value) -> Value {
        json!({"type": ty, "description": format!("Items. {JSON_TEXT_NOTE}: {{x: integer}}[].")})
    }

    #[test]
    fn only_unparsable_text_at_a_cut_node_is_reported() {
        let schema = json!({"type": "object", "properties": {
            "list": cut(json!("string")),
            "opt": cut(json!(["string", "null"])),
            "rows": {"type": "array", "items": {"type": "object", "properties": {"v": cut(json!("string"))}}},
            "loose": {"anyOf": [cut(json!("string")), {"type": "string"}]},
            "name": {"type": "string"},
        }});
        let args = json!({
            "list": "[1,", "opt": "not json", "rows": [{"v": "[]"}, {"v": "{"}],
            "loose": "[1,", "name": "[1,",
        });
        let found: Vec<String> = malformed_json_text(&schema, &args)
            .into_iter()
            .map(|m| m.location)
            .collect();
        assert_eq!(found, ["list", "opt", "rows[1].v"]);
        let good = json!({"list": "[1, 2]", "opt": null, "rows": [{"v": "{\"a\": 1}"}]});
        assert!(malformed_json_text(&schema, &good).is_empty());
        assert!(asks_for_json_text(&schema));
        assert!(!asks_for_json_text(
            &json!({"type": "object", "properties": {"name": {"type": "string"}}})
        ));
    }
}
