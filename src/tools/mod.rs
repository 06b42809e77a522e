//! One file per tool (`src/tools/<tool_name>.rs`): its parameters, its [`spec::ToolSpec`] and its
//! handler. [`tools!`] below lists them: the router, the tiers and the generated docs come from
//! that list. Modules without a tool of their own hold what several tools share.

pub mod edit;
pub mod query;
mod review;
pub mod search;
pub mod spec;

use rmcp::ErrorData;
use rmcp::handler::server::router::tool::ToolRoute;
use rmcp::model::{CallToolResult, ContentBlock};

use crate::server::FsServer;
use spec::ToolSpec;

/// Declares each tool's module and lists them for the router: one line per tool, in the order
/// of the docs.
macro_rules! tools {
    ($($tool:ident),* $(,)?) => {
        $(pub mod $tool;)*

        /// The tools' module names: each is the tool's name (`src/tools/<tool_name>.rs`).
        #[cfg(test)]
        const MODULES: &[&str] = &[$(stringify!($tool)),*];

        /// Every tool's spec, whatever the tier.
        pub fn specs() -> Vec<ToolSpec> {
            vec![$($tool::spec()),*]
        }

        /// Every tool's route, whatever the tier.
        pub(crate) fn routes() -> Vec<ToolRoute<FsServer>> {
            routes_where(|_| true)
        }

        /// The routes of the tools whose spec `keep` accepts. Only these build their schemas,
        /// the most of what building the tools costs (the first `tools/list` waits for it).
        pub(crate) fn routes_where(keep: impl Fn(&ToolSpec) -> bool) -> Vec<ToolRoute<FsServer>> {
            let mut routes = Vec::new();
            $(if keep(&$tool::spec()) {
                routes.push($tool::route());
            })*
            routes
        }
    };
}

tools! {
    list_allowed_directories,
    read_files,
    grep_content,
    search_files,
    directory_tree,
    list_directory,
    list_directory_with_sizes,
    get_file_info,
    read_media_file,
    query_json,
    query_yaml,
    analyze_gsd_work_log,
    create_directory,
    propose_and_review,
    commit_review,
    write_file,
    append_text,
    move_file,
}

/// A successful text result.
pub fn text(body: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(body)])
}

/// A successful result carrying data: `data` as `structuredContent` (for clients that read it,
/// checked against the tool's output schema) and `body`, its text rendering, as the content
/// models read.
///
/// A `"$ref"` key in the data (a query result holding a JSON Schema) is escaped (`"$$ref"`) as
/// Gemini needs (rule R14 of docs/GEMINI_SCHEMA_CONTRACT.md); the text keeps it as it is.
pub fn structured(body: impl Into<String>, data: &impl serde::Serialize) -> CallToolResult {
    let mut result = text(body);
    result.structured_content = serde_json::to_value(data).ok().map(|mut value| {
        gemini_compat::escape_output_refs(&mut value);
        value
    });
    result
}

/// A failed call whose message the model reads (isError: true), e.g. a refused path.
pub fn failure(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

/// Runs blocking filesystem work off the async runtime, so other calls keep being served.
pub async fn blocking<T, F>(work: F) -> Result<T, ErrorData>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ErrorData::internal_error(format!("tool task failed: {e}"), None))
}

/// The `_meta` key where Claude Code reads how long (in characters) a tool's result may be before
/// it saves the result to a file and shows the model a 2 KB preview instead.
pub const RESULT_SIZE_KEY: &str = "anthropic/maxResultSizeChars";
/// What Claude Code keeps inline when a tool says nothing: saying it again would change nothing
/// and cost tokens on every request.
pub const CLIENT_DEFAULT_RESULT_CHARS: usize = 50_000;
/// The most Claude Code honours for [`RESULT_SIZE_KEY`].
pub const RESULT_SIZE_CEILING: usize = 500_000;
/// The tool's `_meta` with its result budget, if it has one.
pub fn result_budget_meta(
    spec: &ToolSpec,
    read_limits: crate::server::ReadLimits,
) -> Option<rmcp::model::MetaObject> {
    let budget = spec.result_budget(read_limits)?;
    let mut meta = rmcp::model::JsonObject::new();
    meta.insert(RESULT_SIZE_KEY.into(), budget.into());
    Some(rmcp::model::MetaObject(meta))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_tool_file_holds_the_spec_and_route_of_the_tool_it_is_named_after() {
        let specs: Vec<&str> = specs().iter().map(|spec| spec.name).collect();
        assert_eq!(specs, MODULES);
        let routes: Vec<String> = routes().iter().map(|r| r.name().to_string()).collect();
        assert_eq!(routes, MODULES);
        let mut unique = specs.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(
            unique.len(),
            specs.len(),
            "two tools share a name: {specs:?}"
        );
    }

    /// The server adds its routes without rmcp's `add_route` (see `server::prepared_router`),
    /// so the names get rmcp's check here instead.
    #[test]
    fn each_tool_name_follows_the_mcp_naming_rules() {
        use rmcp::handler::server::tool_name_validation::validate_and_warn_tool_name;
        for spec in specs() {
            assert!(
                validate_and_warn_tool_name(spec.name),
                "{} breaks the MCP tool naming rules",
                spec.name
            );
        }
    }
}
