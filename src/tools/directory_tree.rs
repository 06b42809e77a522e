//! `directory_tree`: a directory tree as compact JSON.

use fs_mcp_search::TreeOptions;
use rmcp::handler::server::router::tool::ToolRoute;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::context::FsServer;
use crate::lenient;
use crate::params::{EXCLUDE_DIRS, MAX_DEPTH, Param, dot, lean_schema};
use crate::render::listing::TreeAnswer;
use crate::tools::reply::blocking;
use crate::tools::search::structured_answer;
use crate::tools::spec::{ResultBudget, ToolSpec};

/// What the server says about `directory_tree`.
pub fn spec() -> ToolSpec {
    ToolSpec {
        result_budget: ResultBudget::ReplyCap,
        params: &[Param::Int(&MAX_DEPTH), Param::List(&EXCLUDE_DIRS)],
        ..ToolSpec::new(
            "directory_tree",
            "Directory tree as compact JSON {name, type, children}; VCS and build directories \"excluded\", max_depth cuts \"truncated\".",
        )
    }
}

pub(crate) fn route() -> ToolRoute<FsServer> {
    spec().route(
        FsServer::directory_tree_tool_attr(),
        FsServer::directory_tree,
    )
}

#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = lean_schema)]
pub(crate) struct DirectoryTreeParams {
    #[serde(default = "dot")]
    pub path: String,
    #[schemars(description = MAX_DEPTH.description())]
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub max_depth: Option<i64>,
    #[schemars(description = EXCLUDE_DIRS.description())]
    #[serde(default, deserialize_with = "exclude_list")]
    pub exclude_dirs: Option<Vec<String>>,
}

fn exclude_list<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    EXCLUDE_DIRS.deserialize_opt(d)
}

impl FsServer {
    #[tool]
    async fn directory_tree(
        &self,
        Parameters(p): Parameters<DirectoryTreeParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let sandbox = self.sandbox();
        let options = TreeOptions {
            max_depth: MAX_DEPTH.clamp_usize(p.max_depth),
            exclude_dirs: p.exclude_dirs,
            ..TreeOptions::default()
        };
        let tree = blocking(move || fs_mcp_search::tree(&sandbox, &p.path, &options)).await?;
        Ok(structured_answer(
            tree.map(TreeAnswer::from),
            TreeAnswer::text,
            self.listed_tools(),
        ))
    }
}
