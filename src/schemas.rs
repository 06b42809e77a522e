//! Applying `gemini_compat` to a tool's schemas, and the report of what it changed.

use rmcp::model::{JsonObject, Tool};
use serde_json::Value;

/// One tool's schemas before and after the Gemini-safe transform.
#[derive(Debug, Clone)]
pub struct ToolSchemaReport {
    pub name: String,
    pub raw_input: Value,
    pub transformed_input: Value,
    pub input_changes: Vec<gemini_compat::Change>,
    pub raw_output: Option<Value>,
    pub transformed_output: Option<Value>,
    pub output_changes: Vec<gemini_compat::Change>,
}

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
