//! The upstream's tools as served: schemas transformed, raw input schemas kept for coercion.

use std::collections::HashMap;
use std::sync::Arc;

use rmcp::model::Tool;
use serde_json::Value;

use gemini_compat::SchemaProfile;

use crate::schemas;

/// One listing of the upstream's tools.
#[derive(Debug, Default)]
pub struct ToolCache {
    /// The tools as the client sees them, in the upstream's order.
    pub served: Vec<Tool>,
    /// Untransformed input schemas by tool name: what the upstream really expects.
    pub raw_inputs: HashMap<String, Value>,
    /// Input schemas as served, by tool name, of the tools that ask for JSON text somewhere
    /// (where the schema nests too deep): only their arguments are checked for text that
    /// does not parse.
    pub json_text_inputs: HashMap<String, Value>,
}

impl ToolCache {
    /// `profile` is resolved (never `Auto`).
    pub fn new(upstream_tools: Vec<Tool>, profile: SchemaProfile) -> ToolCache {
        let mut served = Vec::with_capacity(upstream_tools.len());
        let mut raw_inputs = HashMap::with_capacity(upstream_tools.len());
        let mut json_text_inputs = HashMap::new();
        for mut tool in upstream_tools {
            let report = schemas::transform_tool(&tool);
            if let Some(issue) = gemini_compat::lint_tool_name(&tool.name) {
                // Renaming would need a second mapping on every call; say so instead.
                tracing::warn!("upstream tool name {:?}: {issue:?}", tool.name);
            }
            let mut input = report.transformed_input;
            let mut description = tool.description.as_ref().map(|d| d.to_string());
            gemini_compat::profile::apply_to_tool(profile, &mut input, description.as_mut());
            tool.input_schema = Arc::new(schemas::as_object(&input));
            if gemini_compat::asks_for_json_text(&input) {
                json_text_inputs.insert(report.name.clone(), input);
            }
            tool.output_schema = report
                .transformed_output
                .as_ref()
                .map(|s| Arc::new(schemas::as_object(s)));
            tool.description = description.map(Into::into);
            raw_inputs.insert(report.name, report.raw_input);
            served.push(tool);
        }
        ToolCache {
            served,
            raw_inputs,
            json_text_inputs,
        }
    }

    /// Maps arguments written for the served schema back to the upstream's raw schema, or says
    /// which JSON text (asked for where the schema nests too deep) does not parse and is not a
    /// string the upstream takes: forwarded as a string, it would make a wrong call.
    pub fn coerce(
        &self,
        tool: &str,
        arguments: rmcp::model::JsonObject,
    ) -> Result<rmcp::model::JsonObject, String> {
        let Some(raw) = self.raw_inputs.get(tool) else {
            return Ok(arguments);
        };
        // Only a tool that asks for JSON text pays for a copy of its arguments.
        let json_text = self
            .json_text_inputs
            .get(tool)
            .map(|served| (served, Value::Object(arguments.clone())));
        let (coerced, refused) =
            gemini_compat::coerce_arguments_reporting(raw, Value::Object(arguments));
        if let Some((served, original)) = json_text
            && !refused.is_empty()
        {
            let lines: Vec<String> = gemini_compat::malformed_json_text(served, &original)
                .iter()
                .filter(|m| refused.contains(&m.location))
                .map(ToString::to_string)
                .collect();
            if !lines.is_empty() {
                return Err(format!(
                    "{}\nNothing was sent to {tool}; call it again with valid JSON text.",
                    lines.join("\n")
                ));
            }
        }
        Ok(match coerced {
            Value::Object(map) => map,
            _ => rmcp::model::JsonObject::new(),
        })
    }
}
