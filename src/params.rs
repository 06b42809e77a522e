//! What tool parameters share: the lean schema transform, the no-argument and one-path
//! parameters, defaults and bounds. Each tool's own parameters are in its file (src/tools/).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// Drops from a parameter schema what tells a model nothing, since every listed token is paid on
/// each model request: the `"format": "int64"` schemars writes on every integer ("integer" says
/// enough, and the lenient deserializers take any integer or a string holding one), and a
/// `default` of `false` or `""` (what leaving an optional flag or text out means anyway; the
/// Gemini-safe transform would otherwise spell each one out as "Default: false.").
pub fn lean_schema(schema: &mut schemars::Schema) {
    fn is_type(map: &serde_json::Map<String, Value>, wanted: &str) -> bool {
        match map.get("type") {
            Some(Value::String(t)) => t == wanted,
            Some(Value::Array(types)) => types.iter().any(|t| t == wanted),
            _ => false,
        }
    }
    fn walk(value: &mut Value) {
        match value {
            Value::Object(map) => {
                if is_type(map, "integer") {
                    map.remove("format");
                }
                if matches!(map.get("default"), Some(Value::Bool(false)))
                    || map.get("default").and_then(Value::as_str) == Some("")
                {
                    map.remove("default");
                }
                map.values_mut().for_each(walk);
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    if let Some(map) = schema.as_object_mut() {
        map.values_mut().for_each(walk);
    }
}

/// For tools that take no arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub(crate) struct NoParams {}

/// For tools that take one path.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct PathParams {
    pub path: String,
}

/// The default of a path parameter: the first allowed directory.
pub fn dot() -> String {
    ".".to_string()
}

/// A numeric parameter: `default` when absent, kept within `min..=max`.
pub fn bounded(value: Option<i64>, default: i64, min: i64, max: i64) -> i64 {
    value.unwrap_or(default).clamp(min, max)
}
