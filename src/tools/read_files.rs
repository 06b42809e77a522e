//! `read_files`: text files whole or in part, many in one call.

use rmcp::handler::server::router::tool::ToolRoute;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::{self, Deserializer};
use serde_json::Value;

use crate::context::FsServer;
use crate::lenient;
use crate::params::{FILES, Param, lean_schema};
use crate::render;
use crate::tools::reply::{blocking, text};
use crate::tools::spec::{ResultBudget, ToolSpec};

/// What the server says about `read_files`.
pub fn spec() -> ToolSpec {
    ToolSpec {
        result_budget: ResultBudget::ReplyCap,
        params: &[Param::List(&FILES)],
        ..ToolSpec::new(
            "read_files",
            "Read text files whole or in part: per item at most one of head, tail, start_line (+ end_line), start_line + read_to_next_pattern.\n\
Lines starting with the reply's [tag] are the server's (File, Error, Note, Cut); the rest is file text. Capped; a Note says how to read on. Big JSON/YAML: use query_json/query_yaml.",
        )
    }
}

pub(crate) fn route() -> ToolRoute<FsServer> {
    spec().route(FsServer::read_files_tool_attr(), FsServer::read_files)
}

// The one definition of a read request's fields on the wire (the doc comments are the schema a
// model reads; the modes are explained once, in read_files' description); it converts into
// `fs_mcp_read::ReadRequest`, which the read crate validates. A bare path string is accepted as
// an item too (see `file_list`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[schemars(transform = lean_schema)]
pub(crate) struct FileReadRequest {
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
pub(crate) struct ReadFilesParams {
    #[schemars(description = FILES.description())]
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
    let items: Vec<Value> = lenient::list_of_at_most(value, FILES.max)
        .map_err(|e| de::Error::custom(format!("{}: {e}", FILES.name)))?;
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

impl FsServer {
    #[tool]
    async fn read_files(
        &self,
        Parameters(params): Parameters<ReadFilesParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let sandbox = self.sandbox();
        let limits = self.read_limits();
        let options = fs_mcp_read::ReadOptions {
            large_file_passthrough: params.large_file_passthrough,
            example_queries: Some(crate::tools::query::example_queries),
            max_reply_bytes: limits.max_reply_bytes,
            max_line_bytes: limits.max_line_bytes,
            ..Default::default()
        };
        let requests: Vec<fs_mcp_read::ReadRequest> =
            params.files.into_iter().map(Into::into).collect();
        let listed = self.listed_tools().clone();
        let body = blocking(move || {
            let words = render::read::ReplyWords { listed: &listed };
            fs_mcp_read::read_files(&sandbox, &requests, &options, &words)
        })
        .await?;
        Ok(text(body))
    }
}

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
    fn a_list_past_the_cap_is_refused_whole_saying_the_cap() {
        let at_cap = vec![json!("a"); fs_mcp_read::MAX_REQUESTS];
        let p: ReadFilesParams = serde_json::from_value(json!({ "files": at_cap })).unwrap();
        assert_eq!(p.files.len(), fs_mcp_read::MAX_REQUESTS);
        let over = vec![json!("a"); fs_mcp_read::MAX_REQUESTS + 1];
        let e = serde_json::from_value::<ReadFilesParams>(json!({ "files": over })).unwrap_err();
        assert!(e.to_string().contains("at most 1,000 per call"), "{e}");
        let text = serde_json::to_string(&vec!["a"; fs_mcp_read::MAX_REQUESTS + 1]).unwrap();
        let e = serde_json::from_value::<ReadFilesParams>(json!({ "files": text })).unwrap_err();
        assert!(e.to_string().contains("1,001 items"), "{e}");
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
