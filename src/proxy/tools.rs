//! The upstream's tools as served: input schemas transformed, raw input schemas kept for
//! coercion, every other field (outputSchema, execution, annotations, icons, `_meta`, fields
//! newer than this proxy) exactly as the upstream wrote it.

use std::collections::HashMap;

use serde_json::Value;

use gemini_compat::SchemaProfile;

use crate::schemas;

/// One listing of the upstream's tools.
#[derive(Debug, Default)]
pub struct ToolCache {
    /// The tools as the client sees them, in the upstream's order.
    pub served: Vec<Value>,
    /// Untransformed input schemas by tool name: what the upstream really expects.
    pub raw_inputs: HashMap<String, Value>,
    /// What of the upstream's listing was left out (caps), if anything.
    pub cut: Option<String>,
}

impl ToolCache {
    /// `upstream_tools` as the upstream wrote them; `profile` is resolved (never `Auto`).
    ///
    /// The served `outputSchema` is the upstream's own: clients validate `structuredContent`
    /// against it, and the proxy passes `structuredContent` on as the upstream wrote it, so any
    /// narrower schema would reject results the upstream's schema allows (`null` in an
    /// `anyOf [string, null]`). Gemini takes an output schema as `responseJsonSchema`, which
    /// accepts unions, references and nullable fields.
    pub fn new(upstream_tools: Vec<Value>, profile: SchemaProfile) -> ToolCache {
        let mut served = Vec::with_capacity(upstream_tools.len());
        let mut raw_inputs = HashMap::with_capacity(upstream_tools.len());
        for mut tool in upstream_tools {
            let Some(fields) = tool.as_object_mut() else {
                tracing::warn!("the upstream listed a tool that is not an object; left out");
                continue;
            };
            let Some(name) = fields.get("name").and_then(Value::as_str).map(String::from) else {
                tracing::warn!("the upstream listed a tool without a name; left out");
                continue;
            };
            if let Some(issue) = gemini_compat::lint_tool_name(&name) {
                // Renaming would need a second mapping on every call; say so instead.
                tracing::warn!("upstream tool name {name:?}: {issue:?}");
            }
            let raw_input = match fields.get("inputSchema") {
                Some(schema @ Value::Object(_)) => schema.clone(),
                _ => serde_json::json!({"type": "object"}),
            };
            let mut input = gemini_compat::transform(&raw_input).schema;
            let mut description = fields
                .get("description")
                .and_then(Value::as_str)
                .map(String::from);
            gemini_compat::profile::apply_to_tool(profile, &mut input, description.as_mut());
            let input = Value::Object(schemas::as_object(&input));
            fields.insert("inputSchema".into(), input);
            if let Some(description) = description {
                fields.insert("description".into(), Value::String(description));
            }
            raw_inputs.insert(name, raw_input);
            served.push(tool);
        }
        ToolCache {
            served,
            raw_inputs,
            cut: None,
        }
    }

    /// Maps arguments written for the served schema back to the upstream's raw schema, or says
    /// what it refuses to send (coercion changes how a value is written, never what it holds):
    /// JSON text that does not parse or whose content the raw schema refuses, and arguments too
    /// costly to map.
    pub fn coerce(
        &self,
        tool: &str,
        arguments: rmcp::model::JsonObject,
    ) -> Result<rmcp::model::JsonObject, String> {
        let Some(raw) = self.raw_inputs.get(tool) else {
            return Ok(arguments);
        };
        match gemini_compat::coerce_arguments_checked(raw, Value::Object(arguments)) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(_) => Ok(rmcp::model::JsonObject::new()),
            Err(refused) => {
                let lines: Vec<String> = refused.iter().map(ToString::to_string).collect();
                Err(format!(
                    "{}\nNothing was sent to {tool}; call it again with arguments its schema accepts.",
                    lines.join("\n")
                ))
            }
        }
    }
}
