//! Applying `gemini_compat` to a tool's schemas, and the report of what it changed.

use std::collections::HashMap;

use rmcp::model::{JsonObject, Tool};
use serde_json::Value;

/// One tool's schemas before and after the Gemini-safe transform.
#[derive(Debug, Clone)]
pub struct ToolSchemaReport {
    /// The tool's name.
    pub name: String,
    /// The input schema as the parameters' types declare it.
    pub raw_input: Value,
    /// The Gemini-safe input schema every client is served (before a profile).
    pub transformed_input: Value,
    /// What the transform changed in the input schema, rule by rule.
    pub input_changes: Vec<gemini_compat::Change>,
    /// The output schema as declared, if the tool has one.
    pub raw_output: Option<Value>,
    /// The Gemini-safe output schema served.
    pub transformed_output: Option<Value>,
    /// What the transform changed in the output schema.
    pub output_changes: Vec<gemini_compat::Change>,
}

/// A tool's schemas through the Gemini-safe transform, with what it changed.
pub fn transform_tool(tool: &Tool) -> ToolSchemaReport {
    let raw_input = Value::Object((*tool.input_schema).clone());
    let input = gemini_compat::transform(&raw_input);
    let raw_output = tool
        .output_schema
        .as_ref()
        .map(|s| Value::Object((**s).clone()));
    let output = raw_output.as_ref().map(gemini_compat::transform);
    let (transformed_output, output_changes) = match output {
        Some(t) => (Some(t.schema), t.changes),
        None => (None, Vec::new()),
    };
    ToolSchemaReport {
        name: tool.name.to_string(),
        raw_input,
        transformed_input: input.schema,
        input_changes: input.changes,
        raw_output,
        transformed_output,
        output_changes,
    }
}

/// The transform always returns an object schema (R10); anything else becomes an empty object schema.
pub fn as_object(schema: &Value) -> JsonObject {
    match schema {
        Value::Object(map) => map.clone(),
        _ => {
            let mut map = JsonObject::new();
            map.insert("type".into(), Value::String("object".into()));
            map
        }
    }
}

/// A tool's input schema as a client of the resolved `profile` is served it, from the
/// Gemini-safe `transformed` schema ([`transform_tool`]); `description` is rewritten in place
/// where the profile asks (openai-strict cuts it to 1024 characters). The one place the
/// transform → profile step runs, for the server's tools and the proxy's upstream tools alike.
pub fn served_input(
    transformed: &Value,
    profile: gemini_compat::SchemaProfile,
    description: Option<&mut String>,
) -> JsonObject {
    let mut input = transformed.clone();
    gemini_compat::profile::apply_to_tool(profile, &mut input, description);
    as_object(&input)
}

/// What a tool's arguments are checked against and mapped back to.
#[derive(Debug, Clone)]
struct ToolInputs {
    /// As transformed for every client (before a profile): the argument names a call may use.
    served: Value,
    /// As the tool wrote it: what its parameters really take.
    raw: Value,
}

/// The guards every call passes before its tool runs, the same for the server's tools and the
/// proxy's upstream tools: argument names the served schema does not know are refused (a
/// misspelt optional argument would otherwise be dropped silently), then the arguments written
/// for the served schema are mapped back to the raw one (`gemini_compat::coerce_arguments`:
/// a stringified integer enum back to an integer, openai-strict's `null` for a left-out
/// argument removed…), refusing what only changes content, never representation (JSON text the
/// raw schema refuses, arguments too costly to map).
/// (The default is the proxy's: strings the raw schema refuses are refused.)
#[derive(Debug, Clone, Default)]
pub struct ArgumentGuard {
    tools: HashMap<String, ToolInputs>,
    /// A string left where the raw schema takes none is passed on, for the tool's own reader to
    /// judge: the server's parameters read documented lenient forms (`files: "a.md"` for a list)
    /// and refuse the rest with their own message. An upstream behind the proxy has no such
    /// reader, so the proxy refuses those strings here.
    tools_read_lenient_forms: bool,
}

impl ArgumentGuard {
    /// A guard for the server's own tools (which read lenient forms) or, with `false`, for an
    /// upstream's.
    pub fn new(tools_read_lenient_forms: bool) -> ArgumentGuard {
        ArgumentGuard {
            tools: HashMap::new(),
            tools_read_lenient_forms,
        }
    }

    /// Records a tool's raw input schema and the Gemini-safe one it is served (before a profile).
    pub fn insert(&mut self, tool: String, raw: Value, served: Value) {
        self.tools.insert(tool, ToolInputs { served, raw });
    }

    /// The arguments a client wrote for `tool`'s served schema, checked and mapped back to its raw
    /// schema; `Err` is the message for the model (nothing was done). A tool it does not know
    /// gets its arguments as they are (the router answers for an unknown tool).
    pub fn check(&self, tool: &str, arguments: JsonObject) -> Result<JsonObject, String> {
        let Some(inputs) = self.tools.get(tool) else {
            return Ok(arguments);
        };
        // One of our tools that takes no argument: any name is unknown (a served `{"type":
        // "object"}` alone would read as "anything goes", as it does for an upstream's tool).
        if self.tools_read_lenient_forms
            && !arguments.is_empty()
            && inputs
                .raw
                .get("properties")
                .and_then(Value::as_object)
                .is_none_or(|p| p.is_empty())
        {
            let mut names: Vec<&str> = arguments.keys().map(String::as_str).collect();
            names.sort_unstable();
            return Err(format!(
                "unknown argument{} `{}`: {tool} takes no arguments.\nNothing was done; call {tool} again with {{}}.",
                if names.len() == 1 { "" } else { "s" },
                names.join("`, `")
            ));
        }
        let arguments = Value::Object(arguments);
        let unknown = gemini_compat::unknown_arguments(&inputs.served, &arguments);
        if !unknown.is_empty() {
            let lines: Vec<String> = unknown.iter().map(ToString::to_string).collect();
            return Err(format!(
                "{}\nNothing was done; call {tool} again without it.",
                lines.join("\n")
            ));
        }
        let coerced = if self.tools_read_lenient_forms {
            gemini_compat::coerce_arguments(&inputs.raw, arguments)
        } else {
            gemini_compat::coerce_arguments_checked(&inputs.raw, arguments).map_err(|refused| {
                let lines: Vec<String> = refused.iter().map(ToString::to_string).collect();
                format!(
                    "{}\nNothing was sent to {tool}; call it again with arguments its schema accepts.",
                    lines.join("\n")
                )
            })?
        };
        Ok(match coerced {
            Value::Object(map) => map,
            _ => JsonObject::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> JsonObject {
        match value {
            Value::Object(map) => map,
            _ => JsonObject::new(),
        }
    }

    #[test]
    fn our_tool_without_parameters_refuses_any_argument_an_upstreams_takes_them() {
        let raw = json!({"type": "object", "properties": {}});
        let served = json!({"type": "object"});
        let mut ours = ArgumentGuard::new(true);
        ours.insert("none".into(), raw.clone(), served.clone());
        assert!(ours.check("none", JsonObject::new()).is_ok());
        let refused = ours
            .check("none", object(json!({"unexpected": 1})))
            .unwrap_err();
        assert_eq!(
            refused,
            "unknown argument `unexpected`: none takes no arguments.\nNothing was done; call none again with {}."
        );
        let mut upstream = ArgumentGuard::new(false);
        upstream.insert("free".into(), json!({"type": "object"}), served);
        assert!(upstream.check("free", object(json!({"any": 1}))).is_ok());
    }
}
