//! Tool parameters. Their doc comments become the schema descriptions a model reads.

use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::{self, Deserializer};
use serde_json::Value;

use crate::lenient;

// The one definition of a read request's fields on the wire (the doc comments are the schema a
// model reads); it converts into `fs_mcp_read::ReadRequest`, which the read crate validates. A
// bare path string is accepted as an item too (see `file_list`).
/// One file to read. Give `path` alone for the whole file, or pick ONE way to read part of it:
/// `head`, `tail`, `start_line` (+ `end_line`), or `start_line` + `read_to_next_pattern`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, JsonSchema)]
pub struct FileReadRequest {
    /// Path of the file, relative to the first allowed directory or absolute inside an allowed directory.
    pub path: String,
    /// Read only the first N lines. 0 means not given.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub head: Option<i64>,
    /// Read only the last N lines. 0 means not given.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub tail: Option<i64>,
    /// First line to read (1-based, inclusive). Use the line numbers grep_content reports.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub start_line: Option<i64>,
    /// Last line to read (1-based, inclusive). Leave out to read to the end of the file. Not with read_to_next_pattern.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub end_line: Option<i64>,
    /// Regex (Rust syntax). With start_line: read from start_line up to, not including, the next line that matches, e.g. "^def " or "^## " to read one function or section.
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
pub struct ReadFilesParams {
    /// The files to read, each an object with at least "path", e.g. [{"path": "src/main.rs"}, {"path": "README.md", "head": 40}].
    #[serde(deserialize_with = "file_list")]
    pub files: Vec<FileReadRequest>,
    /// Read a whole JSON/YAML or other large file even though it is big, and show long lines whole (the reply cap still holds). Prefer query_json/query_yaml or a partial read.
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
