//! `read_media_file`: an image or audio file as image/audio content.

use base64::Engine;
use fs_mcp_read::MediaKind;
use rmcp::handler::server::router::tool::ToolRoute;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ErrorData, tool};

use crate::params::PathParams;
use crate::context::FsServer;
use crate::tools::spec::ToolSpec;
use crate::render;
use crate::tools::reply::blocking;

/// The largest media file returned, in bytes.
const MEDIA_LIMIT_BYTES: u64 = fs_mcp_read::DEFAULT_MAX_MEDIA_BYTES;

/// What the server says about `read_media_file`.
pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "read_media_file",
        format!(
            "An image or audio file as image/audio content, at most {} MB.",
            MEDIA_LIMIT_BYTES / (1024 * 1024)
        ),
    )
}

pub(crate) fn route() -> ToolRoute<FsServer> {
    spec().route(FsServer::read_media_file_tool_attr(), FsServer::read_media_file)
}

impl FsServer {
    #[tool]
    async fn read_media_file(
        &self,
        Parameters(p): Parameters<PathParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let sandbox = self.sandbox();
        let path = p.path.clone();
        let media =
            blocking(move || fs_mcp_read::read_media(&sandbox, &p.path, Some(MEDIA_LIMIT_BYTES)))
                .await?;
        let listed = self.listed_tools();
        let media = match media {
            Ok(media) => media,
            Err(e) => {
                return Ok(CallToolResult::error(vec![ContentBlock::text(
                    render::read::media_error(&e, listed),
                )]));
            }
        };
        let data = base64::engine::general_purpose::STANDARD.encode(&media.data);
        let content = match media.kind {
            MediaKind::Image => ContentBlock::image(data, media.mime_type),
            MediaKind::Audio => ContentBlock::audio(data, media.mime_type),
            MediaKind::Text => {
                let shown = fs_mcp_sandbox::escape_os(path.as_ref());
                let step = listed.any_of(&["read_files"]).map(|tool| {
                    format!(
                        "Read it with {tool}: {{\"files\": [{{\"path\": {}}}]}}",
                        serde_json::Value::String(shown.to_string())
                    )
                });
                return Ok(render::failure(
                    format!(
                        "{shown} is a text file ({}), not an image or audio file",
                        media.mime_type
                    ),
                    step.as_deref(),
                ));
            }
            MediaKind::Other => {
                let step = match (listed.has("get_file_info"), listed.has("read_files")) {
                    (true, true) => {
                        Some("Use get_file_info to inspect it, or read_files if it is text")
                    }
                    (true, false) => Some("Use get_file_info to inspect it"),
                    (false, true) => Some("Use read_files if it is text"),
                    (false, false) => None,
                };
                return Ok(render::failure(
                    format!(
                        "{} is {}, not an image or audio file",
                        fs_mcp_sandbox::escape_os(path.as_ref()),
                        media.mime_type
                    ),
                    step,
                ));
            }
        };
        Ok(CallToolResult::success(vec![content]))
    }
}
