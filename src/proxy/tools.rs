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
}

impl ToolCache {
    /// `profile` is resolved (never `Auto`).
    pub fn new(upstream_tools: Vec<Tool>, profile: SchemaProfile) -> ToolCache {
        let mut served = Vec::with_capacity(upstream_tools.len());
        let mut raw_inputs = HashMap::with_capacity(upstream_tools.len());
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
            tool.output_schema = report
                .transformed_output
                .as_ref()
                .map(|s| Arc::new(schemas::as_object(s)));
            tool.description = description.map(Into::into);
            raw_inputs.insert(report.name, report.raw_input);
            served.push(tool);
        }
        ToolCache { served, raw_inputs }
    }

    /// Maps arguments written for the served schema back to the upstream's raw schema.
    pub fn coerce(
        &self,
        tool: &str,
        arguments: rmcp::model::JsonObject,
    ) -> rmcp::model::JsonObject {
        match self.raw_inputs.get(tool) {
            Some(raw) => match gemini_compat::coerce_arguments(raw, Value::Object(arguments)) {
                Value::Object(map) => map,
                _ => rmcp::model::JsonObject::new(),
            },
            None => arguments,
        }
    }
}
