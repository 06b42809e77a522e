//! The MCP server: the tool router built once, every schema made Gemini-safe before any client
//! can list it, and argument coercion back from the transformed schema on every call.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use fs_mcp_sandbox::Sandbox;
use gemini_compat::SchemaProfile;
use rmcp::handler::server::tool::{ToolCallContext, ToolRouter};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestMethod,
    CompleteRequestParams, CompleteResult, ContentBlock, CustomRequest, CustomResult, ErrorCode,
    Implementation, InitializeRequestParams, InitializeResult, ListPromptsRequestMethod,
    ListPromptsResult, ListResourceTemplatesRequestMethod, ListResourceTemplatesResult,
    ListResourcesRequestMethod, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler, tool_handler};
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::Instrument;

use crate::client_log::{SESSION_SPAN, SessionLog};
use crate::protocol::Capability;
use crate::roots::SessionSandbox;
use crate::schemas::{self, ToolSchemaReport};

/// Which tools a server exposes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tier {
    /// The everyday set.
    #[default]
    Core,
    /// Core plus the tools that write without review or move files.
    All,
}

/// How a server is set up: its tier, where its directories came from, how reviews run.
#[derive(Clone)]
pub struct ServerOptions {
    /// Which tools are listed (`--all`).
    pub tier: Tier,
    /// The allowed directories were given on the command line, so client roots never replace them.
    pub dirs_from_cli: bool,
    /// How review sessions run: the editor command, timeouts, the session directory.
    pub review: fs_mcp_edit::ReviewConfig,
    /// `--review-via`: where the human reviews proposals.
    pub review_via: crate::flags::ReviewVia,
    /// The human already looks at this server's review page (`fs-mcp-rs ui`): a proposal waits
    /// there instead of answering with a link.
    pub review_page_is_client: bool,
    /// Memory cap of one query evaluation, in bytes.
    pub query_memory_limit: u64,
    /// List only read-only tools (the sandbox refuses writes too).
    pub read_only: bool,
    /// Tools left out of the list (names checked with [`check_tool_names`]).
    pub disabled_tools: Vec<String>,
    /// Cancelled when the process shuts down: waiting reviews answer CANCELLED at once.
    pub shutdown: CancellationToken,
    /// Caps on one read_files reply and on one line of a partial read, in bytes.
    pub read_limits: ReadLimits,
    /// Which schemas `tools/list` serves (`auto` is resolved per session from the client's name).
    pub schema_profile: SchemaProfile,
    /// `--index`: keep a grep index of the allowed directories.
    pub index: bool,
}

/// Caps on what one read_files call returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadLimits {
    /// Bytes of one reply at most; the rest is left out with a note on how to read on.
    pub max_reply_bytes: usize,
    /// Bytes of one line at most; a longer line is cut with a note.
    pub max_line_bytes: usize,
}

impl Default for ReadLimits {
    fn default() -> Self {
        ReadLimits {
            max_reply_bytes: fs_mcp_read::DEFAULT_MAX_REPLY_BYTES,
            max_line_bytes: fs_mcp_read::DEFAULT_MAX_LINE_BYTES,
        }
    }
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            tier: Tier::Core,
            dirs_from_cli: false,
            review: fs_mcp_edit::ReviewConfig::default(),
            review_via: crate::flags::ReviewVia::Auto,
            review_page_is_client: false,
            query_memory_limit: fs_mcp_query::DEFAULT_MEMORY_LIMIT_BYTES,
            read_only: false,
            disabled_tools: Vec::new(),
            shutdown: CancellationToken::new(),
            read_limits: ReadLimits::default(),
            schema_profile: SchemaProfile::GEMINI,
            index: false,
        }
    }
}

/// The tools only `--all` lists (each spec says why: `ToolSpec::tier`).
pub fn all_tier_only_names() -> Vec<&'static str> {
    crate::tools::specs()
        .into_iter()
        .filter(|spec| !spec.listed_in(Tier::Core))
        .map(|spec| spec.name)
        .collect()
}

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

/// One client session's view of the server: the process-wide state plus the session's sandbox
/// (which the client's roots may replace).
#[derive(Clone)]
pub struct FsServer {
    inner: Arc<Inner>,
    session: Arc<SessionSandbox>,
    /// The client's `logging/setLevel` subscription.
    log: Arc<SessionLog>,
    /// This client session, among every session of the process: its reviews are its own.
    client: u64,
    /// Ends this client session's open reviews when its last handle goes (the session ended).
    _client_reviews: Arc<ClientReviews>,
    /// Made for an HTTP client: on 2026-07-28 each request gets a server of its own (no
    /// session), so its reviews are reached by their handle instead of by this session.
    over_http: bool,
}

/// The next client session's number (see [`FsServer::review_owner`]).
fn next_client() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// A client session's hold on its reviews, shared by every handle of its server. rmcp drops the
/// session's server however the session ends (an HTTP DELETE, the idle expiry, an eviction to
/// make room, stdin closed), once its last call is answered: then nobody can collect or commit
/// its reviews any more, so they end with it (cancelled, files removed, gone from the review
/// page) rather than wait for an approval that could never be written.
struct ClientReviews {
    client: u64,
    reviews: Arc<fs_mcp_edit::ReviewManager>,
}

impl ClientReviews {
    fn new(client: u64, reviews: &Arc<fs_mcp_edit::ReviewManager>) -> Arc<ClientReviews> {
        Arc::new(ClientReviews {
            client,
            reviews: Arc::clone(reviews),
        })
    }
}

impl Drop for ClientReviews {
    fn drop(&mut self) {
        let ended = self.reviews.end_client(
            self.client,
            "the MCP session of the client that proposed it ended (closed, expired or replaced), so its approval could never be collected",
        );
        if ended > 0 {
            tracing::info!("a client session ended: its {ended} open review(s) were cancelled");
        }
    }
}

/// State shared by every session of the process.
struct Inner {
    /// The sandbox a new session starts with.
    base_sandbox: Arc<Sandbox>,
    /// The allowed directories came from the command line, so client roots are ignored.
    dirs_from_cli: bool,
    /// The tools as served, built on first need ([`FsServer::tools`]): the `initialize` reply
    /// does not wait for every schema to be generated and transformed.
    tools: OnceLock<ServedTools>,
    /// What decides the tools (tier, `--read-only`, `--disable-tools`, the read caps).
    tool_options: ServerOptions,
    /// Review sessions of every client, in one private directory this process owns.
    reviews: Arc<fs_mcp_edit::ReviewManager>,
    query_memory_limit: u64,
    read_limits: ReadLimits,
    shutdown: CancellationToken,
    /// `--schema-profile`, resolved per session in `tools/list`.
    schema_profile: SchemaProfile,
    /// The tools as a client of each profile that rewrites them sees them, by profile name,
    /// built on its first `tools/list`.
    profile_tools: std::sync::Mutex<HashMap<&'static str, Vec<Tool>>>,
    /// `propose_and_review` calls in progress, so a shutdown can wait for their answers.
    reviews_in_progress: TaskTracker,
    review_via: crate::flags::ReviewVia,
    review_page_is_client: bool,
    /// The review page, started on the first proposal that needs it.
    review_page: tokio::sync::OnceCell<crate::ui::ReviewPage>,
    /// `--index`: the grep index.
    search_index: Option<Arc<crate::index::SearchIndex>>,
}

/// The tool router of a server, every schema transformed, and what calls are checked against.
struct ServedTools {
    router: ToolRouter<FsServer>,
    /// Each tool's raw and served input schemas: the guards every call passes.
    argument_guard: schemas::ArgumentGuard,
    /// The tools this server lists: next steps in messages name only these.
    listed_tools: crate::render::ListedTools,
}

impl ServedTools {
    fn new(options: &ServerOptions) -> ServedTools {
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

impl FsServer {
    /// The server and its review session directory; the tools are built on first need.
    pub fn new(sandbox: Sandbox, options: ServerOptions) -> std::io::Result<FsServer> {
        let tool_options = options.clone();
        let reviews = Arc::new(fs_mcp_edit::ReviewManager::new(options.review)?);
        // The review files are the server's own, even when the temp dir is inside an allowed
        // directory (or a client's root): no tool reads, lists or writes them.
        fs_mcp_sandbox::never_serve(reviews.sessions_dir());
        let base_sandbox = Arc::new(sandbox.with_read_only(options.read_only));
        let client = next_client();
        let client_reviews = ClientReviews::new(client, &reviews);
        Ok(FsServer {
            session: Arc::new(SessionSandbox::new(
                Arc::clone(&base_sandbox),
                options.dirs_from_cli,
            )),
            inner: Arc::new(Inner {
                base_sandbox,
                dirs_from_cli: options.dirs_from_cli,
                tools: OnceLock::new(),
                tool_options,
                reviews,
                query_memory_limit: options.query_memory_limit,
                read_limits: options.read_limits,
                shutdown: options.shutdown,
                schema_profile: options.schema_profile,
                profile_tools: Default::default(),
                reviews_in_progress: TaskTracker::new(),
                review_via: options.review_via,
                review_page_is_client: options.review_page_is_client,
                review_page: tokio::sync::OnceCell::new(),
                search_index: options.index.then(Arc::default),
            }),
            log: SessionLog::register(),
            client,
            _client_reviews: client_reviews,
            over_http: false,
        })
    }

    /// A server for a new client session (HTTP): shared tools, a sandbox of its own.
    pub fn new_session(&self) -> FsServer {
        let client = next_client();
        FsServer {
            inner: Arc::clone(&self.inner),
            session: Arc::new(SessionSandbox::new(
                Arc::clone(&self.inner.base_sandbox),
                self.inner.dirs_from_cli,
            )),
            log: SessionLog::register(),
            client,
            _client_reviews: ClientReviews::new(client, &self.inner.reviews),
            over_http: true,
        }
    }

    /// Who this call's reviews belong to: this client session on its allowed directories, or,
    /// for a stateless client (2026-07-28 over HTTP, a server per request), whoever holds the
    /// review's handle on the same allowed directories.
    pub fn review_owner(&self, context: &RequestContext<RoleServer>) -> fs_mcp_edit::ReviewOwner {
        let stateless = self.over_http
            && context
                .protocol_version()
                .is_some_and(|v| v >= rmcp::model::ProtocolVersion::V_2026_07_28);
        let sandbox = self.sandbox();
        if stateless {
            fs_mcp_edit::ReviewOwner::stateless(&sandbox)
        } else {
            fs_mcp_edit::ReviewOwner::client(self.client, &sandbox)
        }
    }

    /// The sandbox in force for this call.
    pub fn sandbox(&self) -> Arc<Sandbox> {
        self.session.get()
    }

    /// The grep index (`--index`).
    pub fn search_index(&self) -> Option<Arc<crate::index::SearchIndex>> {
        self.inner.search_index.clone()
    }

    /// The tools this server lists (for next steps in messages).
    pub fn listed_tools(&self) -> &crate::render::ListedTools {
        &self.tools().listed_tools
    }

    /// Builds the tools now if no call has yet (stdio does it right after the `initialize`
    /// reply, while the client reads it).
    pub fn prepare_tools(&self) {
        self.tools();
    }

    fn tools(&self) -> &ServedTools {
        self.inner
            .tools
            .get_or_init(|| ServedTools::new(&self.inner.tool_options))
    }

    /// The review sessions (shared by every client session).
    pub fn reviews(&self) -> Arc<fs_mcp_edit::ReviewManager> {
        Arc::clone(&self.inner.reviews)
    }

    /// `--review-via`, and whether the human already looks at the review page (`ui`).
    pub fn review_via(&self) -> (crate::flags::ReviewVia, bool) {
        (self.inner.review_via, self.inner.review_page_is_client)
    }

    /// The review page's link for the reviews of `scope` (the link's token shows and decides
    /// those alone), starting the page on 127.0.0.1 on first use.
    pub async fn review_page_url(
        &self,
        scope: &fs_mcp_edit::ReviewScope,
    ) -> std::io::Result<String> {
        let reviews = self.reviews();
        let page = self
            .inner
            .review_page
            .get_or_try_init(|| crate::ui::ReviewPage::start(reviews))
            .await?;
        page.url_for(scope)
    }

    /// Cancelled when the process shuts down.
    pub fn shutdown_token(&self) -> &CancellationToken {
        &self.inner.shutdown
    }

    /// Reviews in progress: hold a token of it for as long as a review waits.
    pub fn reviews_in_progress(&self) -> &TaskTracker {
        &self.inner.reviews_in_progress
    }

    /// Answers waiting reviews with CANCELLED, waits (at most `limit`) for those answers, and
    /// removes every review file. The first step of a shutdown.
    pub async fn end_reviews(&self, limit: std::time::Duration) {
        self.inner.shutdown.cancel();
        let tracker = &self.inner.reviews_in_progress;
        tracker.close();
        let _ = tokio::time::timeout(limit, tracker.wait()).await;
        let dir = self.inner.reviews.sessions_dir();
        if let Err(e) = std::fs::remove_dir_all(dir)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!(
                "could not remove the review files in {}: {e}",
                dir.display()
            );
        }
    }

    /// Memory cap of one query evaluation, in bytes.
    pub fn query_memory_limit(&self) -> u64 {
        self.inner.query_memory_limit
    }

    /// Caps on one read_files reply.
    pub fn read_limits(&self) -> ReadLimits {
        self.inner.read_limits
    }

    fn router(&self) -> &ToolRouter<FsServer> {
        &self.tools().router
    }

    /// The tools a client of `profile` (resolved) is served.
    fn served_tools(&self, profile: SchemaProfile) -> Vec<Tool> {
        if profile.serves_as_transformed() {
            return self.router().list_all();
        }
        let mut built = self
            .inner
            .profile_tools
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

    /// Every tool the router of this tier holds, raw and transformed (for `schema check` and xtask).
    pub fn schema_reports(tier: Tier) -> Vec<ToolSchemaReport> {
        prepared_router(&ServerOptions {
            tier,
            ..ServerOptions::default()
        })
        .1
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
            .and_then(|spec| crate::tools::result_budget_meta(spec, options.read_limits));
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
        info.protocol_version = crate::protocol::answer_version(
            &request.protocol_version,
            &self.supported_protocol_versions(),
        );
        Ok(info)
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

    // Resources, prompts and completions: served only when `get_info` declares them.

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.require_declared::<ListResourcesRequestMethod>(Capability::Resources)?;
        Ok(ListResourcesResult::default())
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.require_declared::<ListResourceTemplatesRequestMethod>(Capability::Resources)?;
        Ok(ListResourceTemplatesResult::default())
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
        let span = tracing::info_span!(SESSION_SPAN, session = self.log.id());
        async move {
            if let Some(sandbox) = self.session.refresh_from_roots(&context.peer).await {
                // The reviews whose files left the new roots end now, with the reason.
                self.reviews().roots_changed(self.client, &sandbox).await;
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
        let profile = self.inner.schema_profile.resolve(client_name.as_deref());
        let mut result = ListToolsResult::with_all_items(self.served_tools(profile));
        // As rmcp's generated handler does: cache hints only for clients that know them.
        if context
            .protocol_version()
            .is_some_and(|v| v >= rmcp::model::ProtocolVersion::V_2026_07_28)
        {
            // Under `auto` the listing depends on who asks: no shared cache may hand it on.
            let scope = if self.inner.schema_profile == SchemaProfile::Auto {
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
        self.log.set_level(request.level, &context.peer);
        Ok(())
    }

    async fn on_roots_list_changed(&self, _context: NotificationContext<RoleServer>) {
        self.session.mark_stale();
    }
}
