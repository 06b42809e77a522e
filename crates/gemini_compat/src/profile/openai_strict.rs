//! `openai-strict`: Gemini-safe plus what OpenAI Structured Outputs (`strict: true`) demands.
//!
//! Arguments written for a strict schema carry `null` for every optional property the model left
//! out; [`crate::coerce_arguments`] removes a `null` the raw schema does not accept, so the same
//! coercion serves every profile.

use serde_json::{Map, Value, json};

use super::Profile;

/// The profile, as the registry ([`super::PROFILES`]) lists it.
pub(super) const PROFILE: Profile = Profile {
    name: "openai-strict",
    summary: "also OpenAI strict mode, for Codex: every property required (optional ones accept null, read as left out), additionalProperties false, descriptions cut to 1024 characters",
    served,
    arguments_back: "the `null` a strict model sends for what it would leave out is removed where the raw schema does not accept `null`, so the server (our typed parameters, or the upstream) sees the property absent and its default applies",
    auto_for_clients: &["codex", "openai"],
    rewrite: Some(rewrite),
};

/// The served schema, for the docs' profile table.
fn served() -> String {
    format!(
        "Gemini-safe, then: every object with `properties` gets `additionalProperties: false` and lists every property in `required`; a property that was optional becomes nullable (`\"type\": [T, \"null\"]`, `null` added to its `enum`, or a `{{\"type\": \"null\"}}` branch in its `anyOf`); a `format` outside strict mode's list ({}) is dropped, as strict mode refuses it (`int32`/`int64`/`float`/`double`/`enum` are only annotations); every input-schema description and the tool's own description is cut to {MAX_DESCRIPTION_CHARS} characters (\"…\"), as Codex truncates. `outputSchema` stays Gemini-safe: clients validate results against it, and the strict form would make every optional result field mandatory",
        OPENAI_FORMATS.join(", ")
    )
}

/// The tool as an openai-strict client sees it: output schemas are left alone (a client
/// validates results against them, and the strict form would make every optional result field
/// mandatory).
fn rewrite(input: &mut Value, description: Option<&mut String>) {
    *input = openai_strict(input);
    if let Some(text) = description {
        cut(text);
    }
}

/// Codex truncates longer descriptions; OpenAI's limit for a function description.
pub const MAX_DESCRIPTION_CHARS: usize = 1024;

/// The `format` values strict mode knows (contract §3); it refuses a schema with another one, so
/// the Gemini-safe `int32`/`int64`/`float`/`double`/`enum` annotations are dropped.
const OPENAI_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Rewrites a Gemini-safe schema (the transform's output) for OpenAI strict mode. Optional
/// properties become required and nullable; `coerce_arguments` removes the `null` a model then
/// sends for them, so the upstream sees them absent as before.
///
/// An object without `properties` (a map or free-form object, R7/R11) cannot be expressed in
/// strict mode (it would only accept `{}`); it is left as it is.
pub fn openai_strict(schema: &Value) -> Value {
    let mut out = schema.clone();
    let mut stack: Vec<&mut Value> = vec![&mut out];
    while let Some(node) = stack.pop() {
        match node {
            Value::Object(map) => {
                cut_description(map);
                if map
                    .get("format")
                    .and_then(Value::as_str)
                    .is_some_and(|f| !OPENAI_FORMATS.contains(&f))
                {
                    map.remove("format");
                }
                if let Some(Value::Object(props)) = map.get("properties") {
                    let required: Vec<String> = match map.get("required") {
                        Some(Value::Array(names)) => names
                            .iter()
                            .filter_map(|n| n.as_str().map(str::to_string))
                            .collect(),
                        _ => Vec::new(),
                    };
                    let all: Vec<Value> = props.keys().map(|k| json!(k)).collect();
                    if let Some(Value::Object(props)) = map.get_mut("properties") {
                        for (name, prop) in props.iter_mut() {
                            if !required.iter().any(|r| r == name) {
                                make_nullable(prop);
                            }
                        }
                    }
                    map.insert("required".into(), Value::Array(all));
                    map.insert("additionalProperties".into(), Value::Bool(false));
                }
                // Walk every subschema; property maps hold names, not keywords, so go through them.
                for (key, child) in map.iter_mut() {
                    match key.as_str() {
                        "properties" => {
                            if let Value::Object(props) = child {
                                stack.extend(props.values_mut());
                            }
                        }
                        "items" | "anyOf" => stack.push(child),
                        _ => {}
                    }
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            _ => {}
        }
    }
    out
}

/// Lets a property also be `null` (how strict mode spells "optional").
fn make_nullable(prop: &mut Value) {
    let Value::Object(map) = prop else { return };
    if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
        if !branches
            .iter()
            .any(|b| b.get("type") == Some(&json!("null")))
        {
            branches.push(json!({"type": "null"}));
        }
        return;
    }
    if let Some(Value::String(t)) = map.get("type") {
        let t = t.clone();
        map.insert("type".into(), json!([t, "null"]));
    }
    if let Some(Value::Array(members)) = map.get_mut("enum")
        && !members.contains(&Value::Null)
    {
        members.push(Value::Null);
    }
}

fn cut_description(map: &mut Map<String, Value>) {
    if let Some(Value::String(d)) = map.get_mut("description") {
        cut(d);
    }
}

/// Cuts `text` to [`MAX_DESCRIPTION_CHARS`] characters, marking the cut with "…".
pub fn cut(text: &mut String) {
    if text.chars().count() > MAX_DESCRIPTION_CHARS {
        *text = crate::describe::cut(text, MAX_DESCRIPTION_CHARS - 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_properties_become_required_and_nullable() {
        let served = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "level": {"type": "string", "enum": ["1", "2"]},
                "where": {"type": "object", "properties": {"x": {"type": "number"}}},
                "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "tags": {"type": "object", "description": "Map of name → string value."}
            },
            "required": ["name"]
        });
        let strict = openai_strict(&served);
        assert_eq!(
            strict["required"],
            json!(["either", "level", "name", "tags", "where"])
        );
        assert_eq!(strict["additionalProperties"], json!(false));
        assert_eq!(strict["properties"]["name"]["type"], json!("string"));
        assert_eq!(
            strict["properties"]["level"]["type"],
            json!(["string", "null"])
        );
        assert_eq!(
            strict["properties"]["level"]["enum"],
            json!(["1", "2", null])
        );
        assert_eq!(
            strict["properties"]["either"]["anyOf"][2],
            json!({"type": "null"})
        );
        let nested = &strict["properties"]["where"];
        assert_eq!(nested["type"], json!(["object", "null"]));
        assert_eq!(nested["required"], json!(["x"]));
        assert_eq!(nested["additionalProperties"], json!(false));
        assert_eq!(nested["properties"]["x"]["type"], json!(["number", "null"]));
        // A map cannot be strict; it is left alone rather than made to accept only {}.
        assert!(
            strict["properties"]["tags"]
                .get("additionalProperties")
                .is_none()
        );
    }

    #[test]
    fn items_of_arrays_are_made_strict_too() {
        let served = json!({"type": "object", "properties": {"list": {"type": "array",
            "items": {"type": "object", "properties": {"a": {"type": "string"}}}}},
            "required": ["list"]});
        let strict = openai_strict(&served);
        let item = &strict["properties"]["list"]["items"];
        assert_eq!(item["required"], json!(["a"]));
        assert_eq!(item["additionalProperties"], json!(false));
    }

    #[test]
    fn formats_strict_mode_does_not_know_are_dropped() {
        let served = json!({"type": "object", "properties": {
            "n": {"type": "integer", "format": "int64"},
            "level": {"type": "string", "enum": ["1", "2"], "format": "enum"},
            "at": {"type": "string", "format": "date-time"}}, "required": ["n", "level", "at"]});
        let strict = openai_strict(&served);
        assert!(strict["properties"]["n"].get("format").is_none());
        assert!(strict["properties"]["level"].get("format").is_none());
        assert_eq!(strict["properties"]["at"]["format"], json!("date-time"));
    }

    #[test]
    fn long_descriptions_are_cut() {
        let long = "x".repeat(3000);
        let strict = openai_strict(&json!({"type": "object", "description": long}));
        let d = strict["description"].as_str().unwrap_or_default();
        assert_eq!(d.chars().count(), MAX_DESCRIPTION_CHARS);
        assert!(d.ends_with('…'));
    }
}
