//! The server side of the proxy: one client session, its upstream connection, and every MCP
//! method either handled here (tools) or passed on.

#![expect(deprecated)] // logging/subscribe are legacy in rmcp's newest protocol, still in use.

use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientConfig, ClientRequest,
    CompleteRequestParams, CompleteResult, ContentBlock, CustomNotification, CustomRequest,
    CustomResult, GetPromptRequestParams, GetPromptResponse, InitializeRequestParams,
    InitializeResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ReadResourceRequestParams,
    ReadResourceResponse, Request, RequestOptionalParam, ServerCapabilities, ServerConfig,
    ServerResult, SetLevelRequestParams, SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};

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
    /// The schema profile for this client (`auto` resolved by its name).
    profile: OnceLock<SchemaProfile>,
}

impl ProxySession {
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
    }

    /// The upstream's tools as served; listed (all pages) when not cached.
    async fn tools(&self, up: &Upstream) -> Result<Arc<ToolCache>, ErrorData> {
        if let Some(cache) = up.links.tools.read().await.as_ref() {
            return Ok(Arc::clone(cache));
        }
        let generation = up.links.tools_generation.load(Ordering::SeqCst);
        let mut tools = Vec::new();
        let mut cursor = None;
        loop {
            let page = up
                .peer
                .list_tools(Some(PaginatedRequestParams::default().with_cursor(cursor)))
                .await
                .map_err(|e| upstream_error(&self.shared, e))?;
            tools.extend(page.tools);
            cursor = page.next_cursor;
            if cursor.is_none() {
                break;
            }
        }
        let profile = self.state.profile.get().copied().unwrap_or_default();
        let cache = Arc::new(ToolCache::new(tools, profile));
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

/// What the proxy tells the upstream about itself: the client's capabilities and identity,
/// without the extensions (tasks, skills) the proxy does not relay.
fn upstream_client_config(from_client: Option<InitializeRequestParams>) -> ClientConfig {
    match from_client {
        Some(mut params) => {
            params.capabilities.extensions = None;
            params.meta = None;
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
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let up = self.upstream(None, &context).await?;
        let cache = self.tools(up).await?;
        // One page with every tool: the upstream's pages are already followed.
        Ok(ListToolsResult::with_all_items(cache.served.clone()))
    }

    async fn call_tool(
        &self,
        mut request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let up = self.upstream(None, &context).await?;
        let cache = self.tools(up).await?;
        if let Some(arguments) = request.arguments.take() {
            match cache.coerce(&request.name, arguments) {
                Ok(coerced) => request.arguments = Some(coerced),
                Err(message) => {
                    return Ok(CallToolResponse::Complete(CallToolResult::error(vec![
                        ContentBlock::text(message),
                    ])));
                }
            }
        }
        let result = forward(
            &self.shared,
            up,
            ClientRequest::CallToolRequest(Request::new(request)),
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
        // The proxy sent its own `initialized` to the upstream in the handshake.
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

fn optional<M: Default>(
    params: Option<PaginatedRequestParams>,
) -> RequestOptionalParam<M, PaginatedRequestParams> {
    RequestOptionalParam {
        method: Default::default(),
        params,
        extensions: Default::default(),
    }
}
