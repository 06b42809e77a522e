//! Tool parameters. Their doc comments become the schema descriptions a model reads.

use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::{self, Deserializer};
use serde_json::Value;

use crate::lenient;

// The one definition of a read request's fields on the wire (the doc comments are the schema a
// model reads; the modes are explained once, in read_files' description); it converts into
// `fs_mcp_read::ReadRequest`, which the read crate validates. A bare path string is accepted as
// an item too (see `file_list`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[schemars(transform = lean_schema)]
pub struct FileReadRequest {
    pub path: String,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub head: Option<i64>,
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub tail: Option<i64>,
    /// 1-based.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub start_line: Option<i64>,
    /// Inclusive.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub end_line: Option<i64>,
    /// Regex; with start_line, read up to the next matching line ("^def ").
    #[serde(default)]
    pub read_to_next_pattern: Option<String>,
}

impl From<FileReadRequest> for fs_mcp_read::ReadRequest {
    fn from(r: FileReadRequest) -> Self {
        fs_mcp_read::ReadRequest {
            path: r.path,
            head: r.head,
            tail: r.tail,
            start_line: r.start_line,
            end_line: r.end_line,
            read_to_next_pattern: r.read_to_next_pattern,
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = lean_schema)]
pub struct ReadFilesParams {
    /// E.g. [{"path": "a.md", "head": 40}].
    #[serde(deserialize_with = "file_list")]
    pub files: Vec<FileReadRequest>,
    /// Read big JSON/YAML whole, long lines uncut.
    #[serde(default, deserialize_with = "lenient::bool_or_default")]
    pub large_file_passthrough: bool,
}

/// The `files` list, leniently (see [`lenient::list_of`]); an item may also be a bare path
/// string (what Gemini sends when a converter degraded the item schema to STRING).
fn file_list<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<FileReadRequest>, D::Error> {
    let value = Value::deserialize(deserializer)?;
    let items: Vec<Value> = lenient::list_of(value).map_err(de::Error::custom)?;
    items
        .into_iter()
        .map(|item| match item {
            Value::String(path) => Ok(FileReadRequest {
                path,
                ..Default::default()
            }),
            object @ Value::Object(_) => serde_json::from_value(object).map_err(de::Error::custom),
            other => Err(de::Error::custom(format!(
                "expected a file request such as {{\"path\": \"src/main.rs\"}}, got {}",
                lenient::short(&other)
            ))),
        })
        .collect()
}

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
pub struct NoParams {}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn files_accept_objects_strings_and_stringified_lists() {
        let p: ReadFilesParams =
            serde_json::from_value(json!({"files": [{"path": "a", "head": "3"}, "b"]})).unwrap();
        assert_eq!(p.files[0].head, Some(3));
        assert_eq!(p.files[1].path, "b");
        let p: ReadFilesParams =
            serde_json::from_value(json!({"files": "[{\"path\": \"a\", \"tail\": 2.0}]"})).unwrap();
        assert_eq!(p.files[0].tail, Some(2));
        let p: ReadFilesParams = serde_json::from_value(json!({"files": "a.md"})).unwrap();
        assert_eq!(p.files[0].path, "a.md");
        let p: ReadFilesParams =
            serde_json::from_value(json!({"files": [], "large_file_passthrough": "true"})).unwrap();
        assert!(p.large_file_passthrough && p.files.is_empty());
    }

    #[test]
    fn bad_items_say_what_was_expected() {
        let e = serde_json::from_value::<ReadFilesParams>(json!({"files": [42]})).unwrap_err();
        assert!(e.to_string().contains("{\"path\": \"src/main.rs\"}"), "{e}");
        let e =
            serde_json::from_value::<ReadFilesParams>(json!({"files": [{"head": 1}]})).unwrap_err();
        assert!(e.to_string().contains("path"), "{e}");
        let e = serde_json::from_value::<ReadFilesParams>(
            json!({"files": [{"path": "a", "head": "x"}]}),
        )
        .unwrap_err();
        assert!(e.to_string().contains("expected an integer"), "{e}");
    }
}
