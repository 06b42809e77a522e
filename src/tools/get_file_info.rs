//! `get_file_info`: size, dates, lines, tokens and reading advice for one or several files.

use fs_mcp_search::{InfoItem, InfoOptions, MAX_INFO_PATHS};
use rmcp::handler::server::router::tool::ToolRoute;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::{self, Deserializer};
use serde_json::Value;

use crate::lenient;
use crate::render::{self, ListedTools};
use crate::context::FsServer;
use crate::tools::spec::{ToolSpec, output_schema};
use crate::tools::reply::{blocking, failure, structured};

/// What the server says about `get_file_info`.
pub fn spec() -> ToolSpec {
    ToolSpec {
        // `{"files": [fs_mcp_search::InfoItem]}`, one item per path asked. Only the properties:
        // what is always there needs no `required` (tokens: the default listing's budget).
        output_schema: output_schema(serde_json::json!({
            "type": "object",
            "properties": {
                "files": {"type": "array", "items": {
                    "type": "object",
                    "properties": {
                        "path": {"type": "string"},
                        "type": {"type": "string"},
                        "size": {"type": "integer"},
                        "modified": {"type": "string"},
                        "lines": {"type": "integer"},
                        "details": {"type": "string"},
                        "error": {"type": "string"}
                    }
                }}
            }
        })),
        ..ToolSpec::new(
            "get_file_info",
            "Size, mtime, lines, tokens and chunked-read advice per file; JSON keys, CSV columns.",
        )
    }
}

/// The structured content: every file's facts (or error) under `files`, one path or several.
#[derive(serde::Serialize)]
struct Described {
    files: Vec<render::info::Facts>,
}

impl Described {
    fn of(items: &[InfoItem], listed: &ListedTools) -> Described {
        Described {
            files: items
                .iter()
                .map(|item| render::info::facts(item, listed))
                .collect(),
        }
    }
}

pub(crate) fn route() -> ToolRoute<FsServer> {
    spec().route(FsServer::get_file_info_tool_attr(), FsServer::get_file_info)
}

// `get_file_info`'s files: `path`, `paths`, or both (`path` first).
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct FileInfoParams {
    #[serde(default)]
    pub path: Option<String>,
    #[schemars(description = format!("Several files, at most {MAX_INFO_PATHS}."))]
    #[serde(default, deserialize_with = "path_list")]
    pub paths: Option<Vec<String>>,
}

/// `paths` as a list, a lone string, or a JSON string holding the list (see [`lenient::list_of`]).
fn path_list<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(v) => lenient::list_of(v).map(Some).map_err(de::Error::custom),
    }
}

impl FsServer {
    #[tool]
    async fn get_file_info(
        &self,
        Parameters(p): Parameters<FileInfoParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let paths: Vec<String> = p
            .path
            .into_iter()
            .chain(p.paths.unwrap_or_default())
            .collect();
        let sandbox = self.sandbox();
        let options = InfoOptions::default();
        let listed = self.listed_tools();
        match <[String; 1]>::try_from(paths) {
            // One file: its answer, or its error as the call's.
            Ok([path]) => {
                let info =
                    blocking(move || fs_mcp_search::file_info(&sandbox, &path, &options)).await?;
                Ok(match info {
                    Ok(info) => {
                        let text = render::info::file_text(&info, listed);
                        let item = InfoItem::Described(info);
                        structured(text, &Described::of(std::slice::from_ref(&item), listed))
                    }
                    Err(e) => render::search::failure(&e, listed),
                })
            }
            Err(paths) if paths.is_empty() => Ok(render::failure(
                "no file given",
                Some("Give {\"path\": \"src/main.rs\"} or {\"paths\": [\"a.md\", \"b.md\"]}"),
            )),
            Err(paths) => {
                let batch =
                    blocking(move || fs_mcp_search::get_files_info(&sandbox, &paths, &options))
                        .await?;
                let text = render::info::batch_text(&batch, listed);
                Ok(if batch.all_failed() {
                    // The call failed as a whole: the one error format first, each file's
                    // error after it.
                    let what = render::error_text("none of the files could be described", None);
                    failure(format!("{what}\n\n{text}"))
                } else {
                    structured(text, &Described::of(&batch.files, listed))
                })
            }
        }
    }
}
