//! The server side of the proxy: one client session, its upstream connection, and every MCP
//! method either handled here (tools) or passed on.

#![expect(deprecated)] // logging/subscribe are legacy in rmcp's newest protocol, still in use.

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, OnceLock};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientConfig, ClientRequest,
    CompleteRequestParams, CompleteResult, ContentBlock, CustomNotification, CustomRequest,
    CustomResult, GetPromptRequestParams, GetPromptResponse, InitializeRequestParams,
    InitializeResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ProtocolVersion,
    ReadResourceRequestParams, ReadResourceResponse, Request, RequestId, RequestOptionalParam,
    ServerCapabilities, ServerConfig, ServerResult, SetLevelRequestParams, SubscribeRequestParams,
    UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler, Service};
use serde_json::Value;

use crate::stdio::RawArguments;

use super::http_raw;

use super::tools::ToolCache;
use super::upstream::{self, Upstream, forward, upstream_error};
use super::{SchemaProfile, Shared};

/// One client session of the proxy.
#[derive(Clone)]
pub struct ProxySession {
    shared: Arc<Shared>,
    state: Arc<SessionState>,
}

#[derive(Default)]
struct SessionState {
    upstream: tokio::sync::OnceCell<Upstream>,
    /// The upstream's `initialize` answer as served (for `get_info`).
    info: OnceLock<ServerConfig>,
    /// The protocol version the upstream agreed to in this session's `initialize`: the only one
    /// the proxy may agree to with its client ([`ServerHandler::supported_protocol_versions`]).
    agreed_version: OnceLock<ProtocolVersion>,
    /// The schema profile for this client (`auto` resolved by its name).
    profile: OnceLock<SchemaProfile>,
    /// The listing each `tools/list` request is answered with, from `list_tools` to
    /// [`ProxyService`], which serves its raw tools.
    listings: Mutex<HashMap<RequestId, Arc<ToolCache>>>,
    /// Served through [`ProxyService`] (stdio); over HTTP rmcp needs a `ServerHandler`, and
    /// `http_raw` puts the raw tools into rmcp's answer.
    serves_raw_tools: std::sync::atomic::AtomicBool,
}

/// Pages of the upstream's `tools/list` followed at most.
const MAX_TOOL_PAGES: usize = 100;
/// Tools served at most.
const MAX_TOOLS: usize = 2000;
/// Bytes of `tools/list` answers read at most.
const MAX_TOOL_LIST_BYTES: usize = 32 * 1024 * 1024;
/// The `_meta` key of the served `tools/list` that says what was left out.
const CUT_META_KEY: &str = "io.github.fs-mcp-rs/toolsLeftOut";

impl ProxySession {
    /// A new client session of this proxy (its upstream connects on first use).
    pub fn new(shared: Arc<Shared>) -> ProxySession {
        ProxySession {
            shared,
            state: Arc::new(SessionState::default()),
        }
    }

    /// The session's upstream, connected on first use with the client's capabilities (from its
    /// `initialize`, or none for a client that skipped it).
    async fn upstream(
        &self,
        params: Option<&InitializeRequestParams>,
        context: &RequestContext<RoleServer>,
    ) -> Result<&Upstream, ErrorData> {
        self.state
            .upstream
            .get_or_try_init(|| async {
                let from_client = params
                    .cloned()
                    .or_else(|| context.peer.peer_info().map(|p| (*p).clone()));
                // A 2026-07-28 client names itself in each request's `_meta` instead.
                let client_name = from_client
                    .as_ref()
                    .map(|p| p.client_info.name.clone())
                    .or_else(|| context.client_info().map(|i| i.name));
                let profile = self.shared.profile.resolve(client_name.as_deref());
                let _ = self.state.profile.set(profile);
                let config = upstream_client_config(from_client);
                let up = Upstream::connect(&self.shared, config, context.peer.clone()).await?;
                if let Some(info) = up.peer.peer_info() {
                    let mut served = ServerConfig::new(served_capabilities(&info.capabilities));
                    served.protocol_version = info.protocol_version.clone();
                    if let Some(server_info) = &info.server_info {
                        served.server_info = server_info.clone();
                    }
                    served.instructions = info.instructions.clone();
                    let _ = self.state.info.set(served);
                }
                Ok(up)
            })
            .await
            .inspect(|up| {
                // A request after `initialize`: the client's handshake is over.
                if params.is_none() {
                    up.links.release_early();
                }
            })
    }

    /// The upstream's tools as served; listed (all pages, within [`MAX_TOOL_PAGES`],
    /// [`MAX_TOOLS`] and [`MAX_TOOL_LIST_BYTES`]) when not cached.
    async fn tools(&self, up: &Upstream) -> Result<Arc<ToolCache>, ErrorData> {
        if let Some(cache) = up.links.tools.read().await.as_ref() {
            return Ok(Arc::clone(cache));
        }
        let generation = up.links.tools_generation.load(Ordering::SeqCst);
        let mut tools: Vec<Value> = Vec::new();
        let mut cursor = None;
        let (mut pages, mut bytes) = (0usize, 0usize);
        let cut = loop {
            let request = ClientRequest::ListToolsRequest(optional(Some(
                PaginatedRequestParams::default().with_cursor(cursor),
            )));
            let handle = up
                .peer
                .send_request_with_option(request, PeerRequestOptions::no_options())
                .await
                .map_err(|e| upstream_error(&self.shared, e))?;
            let id = handle.id.clone();
            let result = handle
                .await_response()
                .await
                .map_err(|e| upstream_error(&self.shared, e))?;
            let ServerResult::ListToolsResult(page) = result else {
                return Err(unexpected("tools/list", &result));
            };
            // The tools as the upstream wrote them; rmcp's `Tool` drops fields it does not know.
            let (page_tools, page_bytes) = match up.raw_pages.as_ref().and_then(|p| p.take(&id)) {
                Some(raw) => (raw.tools, raw.bytes),
                None => {
                    let page_tools: Vec<Value> = page
                        .tools
                        .iter()
                        .filter_map(|t| serde_json::to_value(t).ok())
                        .collect();
                    let page_bytes = page_tools.iter().map(|t| t.to_string().len()).sum();
                    (page_tools, page_bytes)
                }
            };
            pages += 1;
            bytes += page_bytes;
            tools.extend(page_tools);
            cursor = page.next_cursor;
            if tools.len() > MAX_TOOLS {
                tools.truncate(MAX_TOOLS);
                break Some(format!(
                    "the upstream lists more than {MAX_TOOLS} tools; the first {MAX_TOOLS} are served"
                ));
            }
            if bytes > MAX_TOOL_LIST_BYTES {
                break Some(format!(
                    "the upstream's tools/list answers exceed {} MiB after {pages} pages; the {} tools read so far are served",
                    MAX_TOOL_LIST_BYTES / (1024 * 1024),
                    tools.len()
                ));
            }
            if cursor.is_none() {
                break None;
            }
            if pages >= MAX_TOOL_PAGES {
                break Some(format!(
                    "the upstream's tools/list still had a next page after {MAX_TOOL_PAGES} pages; the {} tools of those pages are served",
                    tools.len()
                ));
            }
        };
        if let Some(cut) = &cut {
            tracing::warn!("{cut}");
        }
        let profile = self.state.profile.get().copied().unwrap_or_default();
        let mut cache = ToolCache::new(tools, profile);
        cache.cut = cut;
        let cache = Arc::new(cache);
        let mut slot = up.links.tools.write().await;
        // A list_changed arrived while listing: serve this listing once, but do not keep it.
        if up.links.tools_generation.load(Ordering::SeqCst) == generation {
            *slot = Some(Arc::clone(&cache));
        }
        Ok(cache)
    }

    async fn pass(
        &self,
        request: ClientRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<ServerResult, ErrorData> {
        let up = self.upstream(None, &context).await?;
        forward(&self.shared, up, request, context).await
    }
}

/// [`ProxySession`] as rmcp serves it, except that `tools/list` is answered with the upstream's
/// tools as it wrote them (transformed input schemas aside): rmcp's `Tool` has no place for
/// fields it does not know (`execution`, newer ones), and everything the proxy need not change
/// passes through untouched.
#[derive(Clone)]
pub struct ProxyService(ProxySession);

impl ProxyService {
    /// Wraps one client session for rmcp.
    pub fn new(session: ProxySession) -> ProxyService {
        session
            .state
            .serves_raw_tools
            .store(true, Ordering::Relaxed);
        ProxyService(session)
    }
}

impl Service<RoleServer> for ProxyService {
    async fn handle_request(
        &self,
        request: ClientRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<ServerResult, ErrorData> {
        let listing =
            matches!(request, ClientRequest::ListToolsRequest(_)).then(|| context.id.clone());
        let result = Service::<RoleServer>::handle_request(&self.0, request, context).await;
        let Some(id) = listing else {
            return result;
        };
        let cache = self
            .0
            .state
            .listings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id);
        let (Ok(ServerResult::ListToolsResult(page)), Some(cache)) = (&result, cache) else {
            return result;
        };
        // rmcp's own shaping of the result (resultType, cache hints) stays; the tools are raw.
        let mut value = serde_json::to_value(page)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        if let Value::Object(fields) = &mut value {
            fields.insert("tools".into(), Value::Array(cache.served.clone()));
            if let Some(cut) = &cache.cut {
                let meta = fields
                    .entry("_meta")
                    .or_insert_with(|| Value::Object(Default::default()));
                if let Value::Object(meta) = meta {
                    meta.insert(CUT_META_KEY.into(), Value::String(cut.clone()));
                }
            }
        }
        Ok(ServerResult::CustomResult(CustomResult(value)))
    }

    async fn handle_notification(
        &self,
        notification: rmcp::model::ClientNotification,
        context: NotificationContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Service::<RoleServer>::handle_notification(&self.0, notification, context).await
    }

    fn get_info(&self) -> ServerConfig {
        Service::<RoleServer>::get_info(&self.0)
    }

    fn supported_protocol_versions(
        &self,
    ) -> std::borrow::Cow<'static, [rmcp::model::ProtocolVersion]> {
        Service::<RoleServer>::supported_protocol_versions(&self.0)
    }
}

/// What the proxy tells the upstream about itself: the client's capabilities and identity,
/// without the extensions (tasks, skills) the proxy does not relay.
fn upstream_client_config(from_client: Option<InitializeRequestParams>) -> ClientConfig {
    match from_client {
        Some(mut params) => {
            params.capabilities.extensions = None;
            params.meta = None;
            // Never 2025-03-26 (batches, which the proxy's transports refuse): the version the
            // proxy would agree to itself, which the client also speaks.
            params.protocol_version = crate::protocol::answer_version(
                &params.protocol_version,
                &crate::protocol::supported_versions(),
            );
            params
        }
        None => ClientConfig::new(
            Default::default(),
            rmcp::model::Implementation::new("fs-mcp-rs-proxy", env!("CARGO_PKG_VERSION")),
        ),
    }
}

/// The upstream's capabilities, less the extensions (tasks, skills) the proxy does not relay.
fn served_capabilities(upstream: &ServerCapabilities) -> ServerCapabilities {
    let mut caps = upstream.clone();
    caps.extensions = None;
    caps
}

fn unexpected(method: &str, result: &ServerResult) -> ErrorData {
    ErrorData::internal_error(
        format!("the upstream answered {method} with an unexpected result: {result:?}"),
        None,
    )
}

macro_rules! expect_result {
    ($result:expr, $method:literal, $($variant:ident)|+ => $into:expr) => {
        match $result {
            $(ServerResult::$variant(r) => Ok($into(r)),)+
            other => Err(unexpected($method, &other)),
        }
    };
}

impl ServerHandler for ProxySession {
    fn get_info(&self) -> ServerConfig {
        self.state.info.get().cloned().unwrap_or_else(|| {
            ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
        })
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        self.upstream(Some(&request), &context).await?;
        // The client speaks with the upstream: it must learn the upstream's version, not its own
        // echoed back (rmcp echoes any requested version found in the supported list).
        if let Some(version) = self
            .state
            .info
            .get()
            .map(|info| info.protocol_version.clone())
            .filter(ProtocolVersion::has_initialize)
        {
            let _ = self.state.agreed_version.set(version);
        }
        self.negotiate_initialize(&request)
    }

    /// Once the upstream agreed to a version in this session's handshake, that version alone:
    /// rmcp answers `initialize` with the client's version whenever it is in this list, both in
    /// [`ServerHandler::negotiate_initialize`] and again in its service loop.
    fn supported_protocol_versions(&self) -> std::borrow::Cow<'static, [ProtocolVersion]> {
        match self.state.agreed_version.get() {
            Some(version) => std::borrow::Cow::Owned(vec![version.clone()]),
            None => crate::protocol::supported_versions(),
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let up = self.upstream(None, &context).await?;
        let cache = self.tools(up).await?;
        // One page with every tool (the upstream's pages are already followed), filled in by
        // [`ProxyService`] with the tools as the upstream wrote them.
        if self.state.serves_raw_tools.load(Ordering::Relaxed) {
            self.state
                .listings
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(context.id.clone(), cache);
            return Ok(ListToolsResult::with_all_items(Vec::new()));
        }
        if let Some(slot) = http_raw::served_tools_slot(&context.extensions) {
            slot.fill(Arc::clone(&cache));
        }
        let tools = cache
            .served
            .iter()
            .filter_map(|t| serde_json::from_value(t.clone()).ok())
            .collect();
        let mut result = ListToolsResult::with_all_items(tools);
        if let Some(cut) = &cache.cut {
            let mut meta = rmcp::model::JsonObject::new();
            meta.insert(CUT_META_KEY.into(), Value::String(cut.clone()));
            result.meta = Some(rmcp::model::MetaObject(meta));
        }
        Ok(result)
    }

    async fn call_tool(
        &self,
        mut request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let up = self.upstream(None, &context).await?;
        let cache = self.tools(up).await?;
        let raw = http_raw::raw_arguments(&context.extensions);
        let mut unchanged_raw = None;
        if let Some(arguments) = request.arguments.take() {
            let original = raw.as_ref().map(|_| arguments.clone());
            match cache.coerce(&request.name, arguments) {
                Ok(coerced) => {
                    if let (Some(RawArguments(raw)), Some(original)) = (&raw, original) {
                        unchanged_raw = Some(raw_where_unchanged(raw, &original, &coerced));
                    }
                    request.arguments = Some(coerced);
                }
                Err(message) => {
                    return Ok(CallToolResponse::Complete(CallToolResult::error(vec![
                        ContentBlock::text(message),
                    ])));
                }
            }
        }
        let mut call = Request::new(request);
        if let Some(raw) = unchanged_raw {
            call.extensions.insert(raw);
        }
        let result = forward(
            &self.shared,
            up,
            ClientRequest::CallToolRequest(call),
            context,
        )
        .await?;
        match result {
            ServerResult::CallToolResult(mut result) => {
                // Gemini 3 rejects "$ref" keys in a function response (R14).
                if let Some(structured) = result.structured_content.as_mut() {
                    gemini_compat::escape_output_refs(structured);
                }
                Ok(CallToolResponse::Complete(result))
            }
            ServerResult::InputRequiredResult(r) => Ok(CallToolResponse::InputRequired(r)),
            other => Err(unexpected("tools/call", &other)),
        }
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let result = self
            .pass(
                ClientRequest::CompleteRequest(Request::new(request)),
                context,
            )
            .await?;
        expect_result!(result, "completion/complete", CompleteResult => std::convert::identity)
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.pass(
            ClientRequest::SetLevelRequest(Request::new(request)),
            context,
        )
        .await
        .map(|_| ())
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let result = self
            .pass(
                ClientRequest::GetPromptRequest(Request::new(request)),
                context,
            )
            .await?;
        match result {
            ServerResult::GetPromptResult(r) => Ok(GetPromptResponse::Complete(r)),
            ServerResult::InputRequiredResult(r) => Ok(GetPromptResponse::InputRequired(r)),
            other => Err(unexpected("prompts/get", &other)),
        }
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let result = self
            .pass(
                ClientRequest::ListPromptsRequest(optional(request)),
                context,
            )
            .await?;
        expect_result!(result, "prompts/list", ListPromptsResult => std::convert::identity)
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let result = self
            .pass(
                ClientRequest::ListResourcesRequest(optional(request)),
                context,
            )
            .await?;
        expect_result!(result, "resources/list", ListResourcesResult => std::convert::identity)
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let result = self
            .pass(
                ClientRequest::ListResourceTemplatesRequest(optional(request)),
                context,
            )
            .await?;
        expect_result!(result, "resources/templates/list", ListResourceTemplatesResult => std::convert::identity)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let result = self
            .pass(
                ClientRequest::ReadResourceRequest(Request::new(request)),
                context,
            )
            .await?;
        match result {
            ServerResult::ReadResourceResult(r) => Ok(ReadResourceResponse::Complete(r)),
            ServerResult::InputRequiredResult(r) => Ok(ReadResourceResponse::InputRequired(r)),
            other => Err(unexpected("resources/read", &other)),
        }
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.pass(
            ClientRequest::SubscribeRequest(Request::new(request)),
            context,
        )
        .await
        .map(|_| ())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.pass(
            ClientRequest::UnsubscribeRequest(Request::new(request)),
            context,
        )
        .await
        .map(|_| ())
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        // A method MCP defines whose params did not parse: -32602 here, as fs-mcp-rs answers.
        if let Some(error) = crate::protocol::invalid_params(&request) {
            return Err(error);
        }
        let result = self
            .pass(ClientRequest::CustomRequest(request), context)
            .await?;
        match result {
            ServerResult::CustomResult(r) => Ok(r),
            other => serde_json::to_value(&other)
                .map(CustomResult)
                .map_err(|e| ErrorData::internal_error(e.to_string(), None)),
        }
    }

    async fn on_progress(
        &self,
        notification: ProgressNotificationParam,
        _context: NotificationContext<RoleServer>,
    ) {
        if let Some(up) = self.state.upstream.get() {
            upstream::progress_to_upstream(&up.links, notification).await;
        }
    }

    async fn on_initialized(&self, _context: NotificationContext<RoleServer>) {
        // The proxy sent its own `initialized` to the upstream in the handshake. What the
        // upstream said before the client's handshake was over can reach the client now.
        if let Some(up) = self.state.upstream.get() {
            up.links.release_early();
        }
    }

    async fn on_roots_list_changed(&self, _context: NotificationContext<RoleServer>) {
        if let Some(up) = self.state.upstream.get() {
            let _ = up
                .peer
                .send_notification(
                    rmcp::model::RootsListChangedNotification {
                        method: Default::default(),
                        extensions: Default::default(),
                    }
                    .into(),
                )
                .await;
        }
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        _context: NotificationContext<RoleServer>,
    ) {
        if let Some(up) = self.state.upstream.get() {
            let _ = up.peer.send_notification(notification.into()).await;
        }
    }
}

/// The client's text of each argument coercion left as it was: sent on instead of its parsed
/// value, whose numbers may have lost digits (an integer beyond 2^64 parsed as a float).
/// Coercion may change a value's representation, never its content.
fn raw_where_unchanged(
    raw: &HashMap<String, Box<serde_json::value::RawValue>>,
    original: &rmcp::model::JsonObject,
    coerced: &rmcp::model::JsonObject,
) -> RawArguments {
    let kept = raw
        .iter()
        .filter(|(key, _)| {
            original.get(key.as_str()).is_some()
                && original.get(key.as_str()) == coerced.get(key.as_str())
        })
        .map(|(key, text)| (key.clone(), text.clone()))
        .collect();
    RawArguments(Arc::new(kept))
}

fn optional<M: Default>(
    params: Option<PaginatedRequestParams>,
) -> RequestOptionalParam<M, PaginatedRequestParams> {
    RequestOptionalParam {
        method: Default::default(),
        params,
        extensions: Default::default(),
    }
}
