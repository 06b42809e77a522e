//! The MCP server: the tool router built once, every schema made Gemini-safe before any client
//! can list it, and argument coercion back from the transformed schema on every call.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use fs_mcp_sandbox::Sandbox;
use gemini_compat::SchemaProfile;
use rmcp::handler::server::tool::{ToolCallContext, ToolRouter};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestMethod,
    CompleteRequestParams, CompleteResult, ContentBlock, CustomRequest, CustomResult,
    DiscoverResult, ErrorCode, Implementation, InitializeRequestParams, InitializeResult,
    ListPromptsRequestMethod, ListPromptsResult, ListResourceTemplatesRequestMethod,
    ListResourceTemplatesResult, ListResourcesRequestMethod, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ReadResourceRequestMethod, ReadResourceRequestParams,
    ReadResourceResponse, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler, tool_handler};
use serde_json::Value;
use tracing::Instrument;

use crate::client_log::SESSION_SPAN;
use crate::context::{FsServer, ServedTools, ServerOptions, Tier};
use crate::http::HttpSessions;
use crate::protocol::Capability;
use crate::schemas::{self, ToolSchemaReport};

/// The tools only `--all` lists (each spec says why: `ToolSpec::tier`).
pub fn all_tier_only_names() -> Vec<&'static str> {
    crate::tools::specs()
        .into_iter()
        .filter(|spec| !spec.listed_in(Tier::Core))
        .map(|spec| spec.name)
        .collect()
}

/// The tool a review view belongs to.
const PROPOSE_AND_REVIEW: &str = "propose_and_review";

/// The name this server gives in `initialize` (`serverInfo.name`).
pub const SERVER_NAME: &str = "fs-mcp-rs";

/// How long a client may keep `tools/list` (2026-07-28 `ttlMs`). The list is built once at
/// startup from the flags and never changes while the process runs (roots change the sandbox,
/// not the tools, and no `list_changed` is sent); the hour only bounds how long a cache could
/// outlive a restart with other flags, whose calls then fail with a clear error.
pub const TOOLS_LIST_TTL_MS: u64 = 60 * 60 * 1000;

const INSTRUCTIONS: &str = "Filesystem tools sandboxed to the allowed directories (list_allowed_directories). \
Save tokens: find code with grep_content, whose matches carry a section end hint, then read just that block with \
read_files (start_line + end_line, or start_line + read_to_next_pattern) instead of whole files. \
Query large JSON/YAML with query_json/query_yaml instead of reading them.";

/// The tools a server of `options` serves: the router, its argument guards, the listed names.
fn build_tools(options: &ServerOptions) -> ServedTools {
    {
        let (router, reports) = prepared_router(options);
        let listed_tools = crate::render::ListedTools::new(reports.iter().map(|r| r.name.clone()));
        // The tools' parameters read the documented lenient forms themselves.
        let mut argument_guard = schemas::ArgumentGuard::new(true);
        for report in reports {
            argument_guard.insert(report.name, report.raw_input, report.transformed_input);
        }
        ServedTools {
            router,
            argument_guard,
            listed_tools,
        }
    }
}

/// A server on `sandbox` and its review session directory; the tools are built on first need.
pub fn new_server(sandbox: Sandbox, options: ServerOptions) -> std::io::Result<FsServer> {
    FsServer::with_tools(sandbox, options, build_tools)
}

/// Every tool the router of this tier holds, raw and transformed (for `schema check` and xtask).
pub fn schema_reports(tier: Tier) -> Vec<ToolSchemaReport> {
    prepared_router(&ServerOptions {
        tier,
        ..ServerOptions::default()
    })
    .1
}

impl FsServer {
    fn router(&self) -> &ToolRouter<FsServer> {
        &self.tools().router
    }

    /// The tools a client of `profile` (resolved) is served.
    fn served_tools(&self, profile: SchemaProfile) -> Vec<Tool> {
        if profile.serves_as_transformed() {
            return self.router().list_all();
        }
        let mut built = self
            .profile_tools()
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        built
            .entry(profile.name())
            .or_insert_with(|| {
                self.router()
                    .list_all()
                    .into_iter()
                    .map(|mut tool| {
                        let transformed = Value::Object((*tool.input_schema).clone());
                        let mut description = tool.description.as_ref().map(|d| d.to_string());
                        let input =
                            schemas::served_input(&transformed, profile, description.as_mut());
                        tool.input_schema = Arc::new(input);
                        tool.description = description.map(Into::into);
                        tool
                    })
                    .collect()
            })
            .clone()
    }

    /// This call's client renders MCP Apps and this server reviews proposals (not
    /// `--read-only`, `propose_and_review` not disabled): the review view and its verdict tool
    /// are served.
    fn serves_app(&self, context: &RequestContext<RoleServer>) -> bool {
        crate::app::declared(context) && self.router().map.contains_key(PROPOSE_AND_REVIEW)
    }

    /// -32601 for method `M` unless `get_info` declares `capability`: declaring a capability
    /// there is what makes its methods answer.
    fn require_declared<M: rmcp::model::ConstString>(
        &self,
        capability: Capability,
    ) -> Result<(), ErrorData> {
        crate::protocol::require_declared::<M>(&self.get_info().capabilities, capability)
    }

    /// All tools, one route per tool file (`crate::tools::routes`).
    fn full_router() -> ToolRouter<FsServer> {
        let mut router = ToolRouter::new();
        for route in crate::tools::routes() {
            router.add_route(route);
        }
        router
    }
}

/// The client speaks 2026-07-28 or later (results carry cache hints).
fn newest_protocol(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28)
}

/// Declares what a client that renders MCP Apps is served: the extension, and resources (the
/// review view).
fn with_app(capabilities: &mut ServerCapabilities) {
    capabilities.resources.get_or_insert_default();
    capabilities
        .extensions
        .get_or_insert_default()
        .insert(crate::app::EXTENSION.to_string(), Default::default());
}

/// Every tool name the server has, in any tier.
pub fn all_tool_names() -> Vec<String> {
    let mut names: Vec<String> = FsServer::full_router()
        .map
        .keys()
        .map(|k| k.to_string())
        .collect();
    names.sort();
    names
}

/// Refuses names that are not tools (`--disable-tools`), listing the valid ones.
pub fn check_tool_names(names: &[String]) -> Result<(), String> {
    // Nothing to check: building the router for its names would only delay startup.
    if names.is_empty() {
        return Ok(());
    }
    let known = all_tool_names();
    let unknown: Vec<&str> = names
        .iter()
        .map(String::as_str)
        .filter(|n| !known.iter().any(|k| k == n))
        .collect();
    if unknown.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "unknown tool name(s): {}. Tools: {}",
            unknown.join(", "),
            known.join(", ")
        ))
    }
}

/// Builds the router of a server once and transforms every schema in it. This is the only place a
/// router is built for serving, so no code path can list an untransformed schema.
fn prepared_router(options: &ServerOptions) -> (ToolRouter<FsServer>, Vec<ToolSchemaReport>) {
    let served = |spec: &crate::tools::spec::ToolSpec| {
        spec.listed_in(options.tier)
            && !options.disabled_tools.iter().any(|name| name == spec.name)
            && (!options.read_only || spec.effect == crate::tools::spec::Effect::ReadOnly)
    };
    let mut router = ToolRouter::new();
    for route in crate::tools::routes_where(served) {
        // Not `add_route`: it checks the name against rmcp's naming rules by building a set of
        // the allowed characters for each tool, a tenth of the first `tools/list`. Our names are
        // constants, checked by a test (tools::tests).
        router.map.insert(route.attr.name.clone(), route);
    }
    let specs: HashMap<&str, crate::tools::spec::ToolSpec> = crate::tools::specs()
        .into_iter()
        .map(|spec| (spec.name, spec))
        .collect();
    let mut reports = Vec::with_capacity(router.map.len());
    for route in router.map.values_mut() {
        route.attr.meta = specs
            .get(route.attr.name.as_ref())
            .and_then(|spec| crate::tools::spec::result_budget_meta(spec, options.read_limits));
        let report = schemas::transform_tool(&route.attr);
        route.attr.input_schema = Arc::new(schemas::as_object(&report.transformed_input));
        route.attr.output_schema = report
            .transformed_output
            .as_ref()
            .map(|s| Arc::new(schemas::as_object(s)));
        reports.push(report);
    }
    reports.sort_by(|a, b| a.name.cmp(&b.name));
    (router, reports)
}

#[tool_handler(router = self.router())]
impl ServerHandler for FsServer {
    #[allow(deprecated)] // logging: deprecated by SEP-2577, still what clients use.
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_logging()
                .enable_tools()
                .build(),
        )
        .with_server_info(Implementation::new(SERVER_NAME, env!("CARGO_PKG_VERSION")))
        .with_instructions(INSTRUCTIONS)
    }

    /// The version answered is the client's if this server agrees to it, otherwise the one
    /// [`crate::protocol::answer_version`] picks (rmcp would fall back to its newest).
    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        let mut info = self.get_info();
        if crate::app::declared_in(Some(&request.capabilities)) {
            with_app(&mut info.capabilities);
        }
        info.protocol_version = crate::protocol::answer_version(
            &request.protocol_version,
            &self.supported_protocol_versions(),
        );
        Ok(info)
    }

    /// 2026-07-28 discovery: the resources capability (the review view) for a client that
    /// renders MCP Apps, as `initialize` answers it.
    async fn discover(
        &self,
        context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, ErrorData> {
        let mut info = self.get_info();
        if crate::app::declared(&context) {
            with_app(&mut info.capabilities);
        }
        Ok(DiscoverResult::from_server_info(
            self.supported_protocol_versions().into_owned(),
            info,
        ))
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        crate::protocol::supported_versions()
    }

    /// A method MCP defines whose params did not parse arrives here: -32602, not -32601.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        Err(crate::protocol::invalid_params(&request)
            .unwrap_or_else(|| ErrorData::new(ErrorCode::METHOD_NOT_FOUND, request.method, None)))
    }

    // Resources, prompts and completions: served only when declared. Resources are declared
    // (and served) for a client that renders MCP Apps: the review view is one.

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        if crate::app::declared(&context) {
            let mut list = crate::app::list();
            // The view never changes while the process runs; only clients with the extension
            // get it, so no shared cache may hand it on.
            if newest_protocol(&context) {
                list = list
                    .with_ttl_ms(TOOLS_LIST_TTL_MS)
                    .with_cache_scope(rmcp::model::CacheScope::Private);
            }
            return Ok(list);
        }
        self.require_declared::<ListResourcesRequestMethod>(Capability::Resources)?;
        Ok(ListResourcesResult::default())
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        if crate::app::declared(&context) {
            return Ok(ListResourceTemplatesResult::default());
        }
        self.require_declared::<ListResourceTemplatesRequestMethod>(Capability::Resources)?;
        Ok(ListResourceTemplatesResult::default())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if !crate::app::declared(&context) {
            self.require_declared::<ReadResourceRequestMethod>(Capability::Resources)?;
        }
        match crate::app::read(&request.uri) {
            Some(mut result) if crate::app::declared(&context) => {
                if newest_protocol(&context) {
                    result = result
                        .with_ttl_ms(TOOLS_LIST_TTL_MS)
                        .with_cache_scope(rmcp::model::CacheScope::Private);
                }
                Ok(result.into())
            }
            _ => Err(ErrorData::resource_not_found(
                format!(
                    "No resource {}: this server serves only {} (to clients that render MCP Apps).",
                    request.uri,
                    crate::app::VIEW_URI
                ),
                None,
            )),
        }
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.require_declared::<ListPromptsRequestMethod>(Capability::Prompts)?;
        Ok(ListPromptsResult::default())
    }

    async fn complete(
        &self,
        _request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.require_declared::<CompleteRequestMethod>(Capability::Completions)?;
        Ok(CompleteResult::default())
    }

    /// Maps arguments written for the transformed schema back to what the typed parameters
    /// expect (e.g. a stringified integer enum), then dispatches.
    async fn call_tool(
        &self,
        mut request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // Everything the call logs belongs to this client (see client_log).
        let span = tracing::info_span!(SESSION_SPAN, session = self.session_log().id());
        async move {
            if let Some(sandbox) = self
                .session_sandbox()
                .refresh_from_roots(&context.peer)
                .await
            {
                // The reviews whose files left the new roots end now, with the reason.
                self.reviews_follow_roots(&sandbox).await;
            }
            // The review view's verdict: a tool of clients that render MCP Apps only (for
            // any other client it does not exist, as the router answers).
            if request.name == crate::app::VERDICT_TOOL && self.serves_app(&context) {
                return Ok(CallToolResponse::from(crate::app::submit(
                    self,
                    &context,
                    request.arguments,
                )));
            }
            if let Some(arguments) = request.arguments.take() {
                match self.tools().argument_guard.check(&request.name, arguments) {
                    Ok(arguments) => request.arguments = Some(arguments),
                    Err(message) => {
                        return Ok(CallToolResponse::from(CallToolResult::error(vec![
                            ContentBlock::text(message),
                        ])));
                    }
                }
            }
            // An MRTR retry (2026-07-28): the tool finds the client's answers in the context.
            let mut context = context;
            if let Some(state) = request.request_state.take() {
                context.extensions.insert(crate::tools::edit::InputRetry {
                    request_state: state,
                    input_responses: request.input_responses.take().unwrap_or_default(),
                });
            }
            let call = ToolCallContext::new(self, request, context);
            self.router().call(call).await
        }
        .instrument(span)
        .await
    }

    /// Every tool fits one page, so any cursor is one this server never gave out.
    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        if let Some(cursor) = request.and_then(|r| r.cursor) {
            return Err(ErrorData::invalid_params(
                format!(
                    "Invalid cursor {cursor:?}: tools/list returns every tool on one page and gives out no cursors; call it without a cursor."
                ),
                None,
            ));
        }
        // `auto` is decided by the client's name: from its `initialize` (per session), or from
        // the request's `_meta` for a 2026-07-28 client that skipped the handshake.
        let client_name = context.client_info().map(|i| i.name);
        let profile = self.schema_profile().resolve(client_name.as_deref());
        let app = self.serves_app(&context);
        let mut tools = self.served_tools(profile);
        if app {
            for tool in &mut tools {
                if tool.name == PROPOSE_AND_REVIEW {
                    tool.meta = Some(crate::app::with_view(tool.meta.take()));
                }
            }
            // Gemini-safe like every other tool (it is plain already; the rule holds for all).
            tools.extend(crate::app::verdict_tool().map(|mut tool| {
                let report = schemas::transform_tool(&tool);
                tool.input_schema = Arc::new(schemas::as_object(&report.transformed_input));
                tool
            }));
        }
        let mut result = ListToolsResult::with_all_items(tools);
        // As rmcp's generated handler does: cache hints only for clients that know them.
        if context
            .protocol_version()
            .is_some_and(|v| v >= rmcp::model::ProtocolVersion::V_2026_07_28)
        {
            // Under `auto` the listing depends on who asks: no shared cache may hand it on.
            let scope = if self.schema_profile() == SchemaProfile::Auto || app {
                rmcp::model::CacheScope::Private
            } else {
                rmcp::model::CacheScope::Public
            };
            result = result
                .with_ttl_ms(TOOLS_LIST_TTL_MS)
                .with_cache_scope(scope);
        }
        Ok(result)
    }

    #[allow(deprecated)] // logging: deprecated by SEP-2577, still what clients use.
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.session_log().set_level(request.level, &context.peer);
        Ok(())
    }

    async fn on_roots_list_changed(&self, _context: NotificationContext<RoleServer>) {
        self.session_sandbox().mark_stale();
    }
}

impl HttpSessions for FsServer {
    type Session = FsServer;
    fn new_session(&self) -> FsServer {
        FsServer::new_session(self)
    }
    async fn end(&self, grace: Duration) {
        self.end_reviews(grace).await;
    }
}
