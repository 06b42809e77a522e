//! The upstream's tools as served: input schemas transformed, raw input schemas kept for
//! coercion, every other field (outputSchema, execution, annotations, icons, `_meta`, fields
//! newer than this proxy) exactly as the upstream wrote it.

use serde_json::Value;

use gemini_compat::SchemaProfile;

use crate::schemas;

/// One listing of the upstream's tools.
#[derive(Debug, Default)]
pub struct ToolCache {
    /// The tools as the client sees them, in the upstream's order.
    pub served: Vec<Value>,
    /// Each tool's raw and served input schemas: the guards every call passes.
    pub arguments: schemas::ArgumentGuard,
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
        // An upstream has no reader for lenient forms: strings its schema refuses are refused here.
        let mut arguments = schemas::ArgumentGuard::new(false);
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
            let transformed = gemini_compat::transform(&raw_input).schema;
            let mut description = fields
                .get("description")
                .and_then(Value::as_str)
                .map(String::from);
            let input = schemas::served_input(&transformed, profile, description.as_mut());
            fields.insert("inputSchema".into(), Value::Object(input));
            if let Some(description) = description {
                fields.insert("description".into(), Value::String(description));
            }
            arguments.insert(name, raw_input, transformed);
            served.push(tool);
        }
        ToolCache {
            served,
            arguments,
            cut: None,
        }
    }

    /// The arguments written for `tool`'s served schema, checked and mapped back to the upstream's
    /// raw schema, or the message saying what was refused ([`schemas::ArgumentGuard`]).
    pub fn coerce(
        &self,
        tool: &str,
        arguments: rmcp::model::JsonObject,
    ) -> Result<rmcp::model::JsonObject, String> {
        self.arguments.check(tool, arguments)
    }
}
