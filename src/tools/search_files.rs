//! `search_files`: find files by glob.

use fs_mcp_search::FindOptions;
use rmcp::handler::server::router::tool::ToolRoute;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::lenient;
use crate::params::{dot, lean_schema};
use crate::render;
use crate::context::FsServer;
use crate::tools::reply::blocking;
use crate::tools::search::structured_answer;
use crate::tools::spec::ToolSpec;

/// What the server says about `search_files`.
pub fn spec() -> ToolSpec {
    ToolSpec::new(
        "search_files",
        "Find files by glob: \"*.rs\" at any depth; with \"/\" it matches the path relative to `path` (\"src/**/test_*.py\"). Results are relative to the first allowed directory. Skips .gitignored and hidden files (counted at the end).",
    )
}

pub(crate) fn route() -> ToolRoute<FsServer> {
    spec().route(FsServer::search_files_tool_attr(), FsServer::search_files)
}

#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = lean_schema)]
pub(crate) struct SearchFilesParams {
    #[serde(default = "dot")]
    pub path: String,
    pub pattern: String,
    #[serde(default, deserialize_with = "lenient::bool_or_default")]
    pub include_hidden: bool,
    #[serde(default, deserialize_with = "lenient::bool_or_default")]
    pub include_ignored: bool,
}

impl FsServer {
    #[tool]
    async fn search_files(
        &self,
        Parameters(p): Parameters<SearchFilesParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let (sandbox, index) = (self.sandbox(), self.search_index());
        let options = FindOptions {
            include_hidden: p.include_hidden,
            include_ignored: p.include_ignored,
            ..FindOptions::default()
        };
        let found = blocking(move || {
            // `--index`: the walk's listing, kept fresh; a scan when the index cannot promise it.
            let source = index.and_then(|index| index.listing_source(&sandbox));
            let source = source.as_ref().map(|s| s as &dyn fs_mcp_search::ListingSource);
            fs_mcp_search::find_files_with(&sandbox, &p.path, &p.pattern, &options, source)
        })
        .await?;
        Ok(structured_answer(
            found.map(render::search::Found::from),
            render::search::Found::text,
            self.listed_tools(),
        ))
    }
}
