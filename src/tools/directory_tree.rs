//! `directory_tree`: a directory tree as compact JSON.

use fs_mcp_search::TreeOptions;
use rmcp::handler::server::router::tool::ToolRoute;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;
use rmcp::{ErrorData, tool};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::lenient;
use crate::params::{bounded, dot, lean_schema};
use crate::render::listing::TreeAnswer;
use crate::context::FsServer;
use crate::tools::reply::blocking;
use crate::tools::search::structured_answer;
use crate::tools::spec::{ResultBudget, ToolSpec};

/// The deepest tree a call may ask for.
const MAX_DEPTH_LIMIT: i64 = 64;

/// What the server says about `directory_tree`.
pub fn spec() -> ToolSpec {
    ToolSpec {
        result_budget: ResultBudget::ReplyCap,
        ..ToolSpec::new(
            "directory_tree",
            "Directory tree as compact JSON {name, type, children}; VCS and build directories \"excluded\", max_depth cuts \"truncated\".",
        )
    }
}

pub(crate) fn route() -> ToolRoute<FsServer> {
    spec().route(FsServer::directory_tree_tool_attr(), FsServer::directory_tree)
}

#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = lean_schema)]
pub(crate) struct DirectoryTreeParams {
    #[serde(default = "dot")]
    pub path: String,
    #[schemars(description = format!("Default {}.", TreeOptions::DEFAULT_MAX_DEPTH))]
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub max_depth: Option<i64>,
    // At most `TreeOptions::MAX_EXCLUDE_DIRS` (said by the refusal: the listed text is paid on
    // every model request, and no real call comes near it).
    /// Names not to expand (default .git, node_modules, target…; [] none).
    #[serde(default, deserialize_with = "exclude_list")]
    pub exclude_dirs: Option<Vec<String>>,
}

/// `exclude_dirs`, leniently, refused past [`TreeOptions::MAX_EXCLUDE_DIRS`] names.
fn exclude_list<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    lenient::opt_list_at_most(d, TreeOptions::MAX_EXCLUDE_DIRS, "exclude_dirs")
}

impl FsServer {
    #[tool]
    async fn directory_tree(
        &self,
        Parameters(p): Parameters<DirectoryTreeParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let sandbox = self.sandbox();
        let options = TreeOptions {
            max_depth: bounded(p.max_depth, TreeOptions::DEFAULT_MAX_DEPTH as i64, 0, MAX_DEPTH_LIMIT) as usize,
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
