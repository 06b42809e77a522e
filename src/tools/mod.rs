//! One file per tool (`src/tools/<tool_name>.rs`): its parameters, its [`spec::ToolSpec`] and its
//! handler. [`tools!`] below lists them: the router, the tiers and the generated docs come from
//! that list. Modules without a tool of their own hold what several tools share.

pub mod edit;
pub mod query;
pub mod reply;
mod review;
pub mod search;
pub mod spec;

use rmcp::handler::server::router::tool::ToolRoute;

use crate::context::FsServer;
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

    /// Each declared parameter (`ToolSpec::params`, from `src/params.rs`) is a parameter of its
    /// tool whose listed description is the declaration's; and every integer parameter of a
    /// tool is declared, so a default or a bound cannot be written anywhere else.
    #[test]
    fn each_declared_parameter_is_its_tools_parameter_and_every_integer_is_declared() {
        let specs = specs();
        for route in routes() {
            let tool = route.name().to_string();
            let spec = specs
                .iter()
                .find(|s| s.name == tool)
                .expect("a spec per route");
            let schema = serde_json::Value::Object((*route.attr.input_schema).clone());
            let properties = schema["properties"]
                .as_object()
                .cloned()
                .unwrap_or_default();
            for param in spec.params {
                let property = properties
                    .get(param.name())
                    .unwrap_or_else(|| panic!("{tool} declares {}, no parameter", param.name()));
                assert_eq!(
                    property.get("description").and_then(|d| d.as_str()),
                    Some(param.description().as_str()),
                    "{tool}'s {}",
                    param.name()
                );
            }
            for (name, property) in &properties {
                let integer = match &property["type"] {
                    serde_json::Value::String(t) => t == "integer",
                    serde_json::Value::Array(types) => types.iter().any(|t| t == "integer"),
                    _ => false,
                };
                assert!(
                    !integer || spec.params.iter().any(|p| p.name() == name),
                    "{tool}'s integer parameter {name} has no declaration in src/params.rs"
                );
            }
        }
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
