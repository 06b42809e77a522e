//! The client side of the proxy: one connection to the upstream server, and the handler that
//! passes the upstream's own requests and notifications on to the proxy's client.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::model::{
    CancelledNotification, CancelledNotificationParam, ClientConfig, ClientNotification,
    ClientRequest, ClientResult, GetExtensions, GetMeta, JsonRpcMessage, ProgressNotificationParam,
    ProgressToken, RequestId, ServerNotification, ServerRequest,
};
use rmcp::service::{
    NotificationContext, Peer, PeerRequestOptions, RequestContext, RunningService, ServiceError,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::{IntoTransport, Transport};
use rmcp::{ErrorData, RoleClient, RoleServer, Service, ServiceExt};
use tokio_util::sync::CancellationToken;

use super::child::RawToolPages;
use super::tools::ToolCache;
use super::{Shared, UpstreamSpec};

/// Upstream notifications and requests handled at once; the next waits for one to finish, so a
/// flood waits in the upstream's pipe (backpressure) rather than in the proxy's memory.
const MAX_IN_FLIGHT_FROM_UPSTREAM: usize = 256;

/// Notifications the upstream sends before the client's handshake is over, kept to send after
/// it; beyond this many they are dropped, with a note in the log.
const MAX_EARLY_NOTIFICATIONS: usize = 64;

/// Held by a message from the upstream until its handler is done.
#[derive(Clone)]
struct InFlight(#[allow(dead_code)] Arc<tokio::sync::OwnedSemaphorePermit>);

/// Progress tokens of forwarded requests: the token the proxy sent on → the one the sender gave.
#[derive(Default)]
pub struct ProgressMap(Mutex<HashMap<ProgressToken, ProgressToken>>);

impl ProgressMap {
    pub fn insert(&self, ours: ProgressToken, theirs: ProgressToken) {
        if let Ok(mut map) = self.0.lock() {
            map.insert(ours, theirs);
        }
    }
    pub fn remove(&self, ours: &ProgressToken) {
        if let Ok(mut map) = self.0.lock() {
            map.remove(ours);
        }
    }
    pub fn get(&self, ours: &ProgressToken) -> Option<ProgressToken> {
        self.0.lock().ok().and_then(|map| map.get(ours).cloned())
    }
}

/// Arrival number of an upstream progress notification, stamped by [`Sequenced`]: rmcp handles
/// each notification in a task of its own, so without it two progress updates can reach the
/// client swapped.
#[derive(Debug, Clone, Copy)]
struct ProgressSeq(u64);

/// The upstream transport, stamping each incoming progress notification with its arrival order
/// and bounding the messages handled at once ([`MAX_IN_FLIGHT_FROM_UPSTREAM`]).
struct Sequenced<T> {
    inner: T,
    next: u64,
    in_flight: Arc<tokio::sync::Semaphore>,
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Sequenced<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let permit = Arc::clone(&self.in_flight).acquire_owned().await.ok()?;
        let mut message = self.inner.receive().await?;
        let held = InFlight(Arc::new(permit));
        match &mut message {
            JsonRpcMessage::Notification(n) => {
                if let ServerNotification::ProgressNotification(progress) = &mut n.notification {
                    progress.extensions.insert(ProgressSeq(self.next));
                    self.next += 1;
                }
                n.notification.extensions_mut().insert(held);
            }
            JsonRpcMessage::Request(r) => {
                r.request.extensions_mut().insert(held);
            }
            _ => {}
        }
        Some(message)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

fn sequenced<T, E, A>(transport: T) -> Sequenced<impl Transport<RoleClient, Error = E>>
where
    T: IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    Sequenced {
        inner: transport.into_transport(),
        next: 0,
        in_flight: Arc::new(tokio::sync::Semaphore::new(MAX_IN_FLIGHT_FROM_UPSTREAM)),
    }
}

/// Progress notifications waiting for an earlier one, so the client gets them in arrival order.
#[derive(Default)]
struct ProgressOrder {
    next: u64,
    /// By arrival number; None: nothing to send (no client token), but the number is used up.
    waiting: BTreeMap<u64, Option<ServerNotification>>,
}

/// More out-of-order progress than this means a number went missing: send what is held.
const MAX_HELD_PROGRESS: usize = 64;

/// What the session and the upstream handler both reach.
pub struct Links {
    /// The proxy's client.
    pub downstream: Peer<RoleServer>,
    /// The upstream's tools; None until listed, and again after `tools/list_changed`.
    pub tools: tokio::sync::RwLock<Option<Arc<ToolCache>>>,
    /// Bumped by every `tools/list_changed`, so a listing that raced one is not cached.
    pub tools_generation: AtomicU64,
    /// Client → upstream requests: the upstream reports progress with our token.
    pub progress_to_client: ProgressMap,
    /// Upstream → client requests (sampling, elicitation): the client reports with our token.
    pub progress_to_upstream: ProgressMap,
    /// The upstream peer, set once connected (for progress the client sends back).
    pub upstream: std::sync::OnceLock<Peer<RoleClient>>,
    progress_order: tokio::sync::Mutex<ProgressOrder>,
    /// Notifications held until the client's handshake is over (None once it is), and how many
    /// were dropped beyond [`MAX_EARLY_NOTIFICATIONS`].
    early: Mutex<Option<(VecDeque<ServerNotification>, usize)>>,
}

impl Links {
    /// The client's handshake is over: send what the upstream said before it, in order.
    pub fn release_early(self: &Arc<Self>) {
        let held = self.early.lock().unwrap_or_else(|e| e.into_inner()).take();
        let Some((notifications, dropped)) = held else {
            return;
        };
        if dropped > 0 {
            tracing::warn!(
                "the upstream sent {} notifications before the handshake was over; the first {MAX_EARLY_NOTIFICATIONS} are passed on, {dropped} were dropped",
                notifications.len() + dropped
            );
        }
        if notifications.is_empty() {
            return;
        }
        let links = Arc::clone(self);
        tokio::spawn(async move {
            for n in notifications {
                let _ = links.downstream.send_notification(n).await;
            }
        });
    }

    /// Holds `notification` if the client's handshake is not over; gives it back otherwise.
    fn hold_early(&self, notification: ServerNotification) -> Option<ServerNotification> {
        let mut early = self.early.lock().unwrap_or_else(|e| e.into_inner());
        match early.as_mut() {
            None => Some(notification),
            Some((held, dropped)) => {
                if held.len() < MAX_EARLY_NOTIFICATIONS {
                    held.push_back(notification);
                } else {
                    *dropped += 1;
                }
                None
            }
        }
    }
}

/// A live upstream connection of one session.
pub struct Upstream {
    pub peer: Peer<RoleClient>,
    pub links: Arc<Links>,
    /// The raw `tools/list` answers (a command upstream; None for a URL).
    pub raw_pages: Option<Arc<RawToolPages>>,
    /// Set when the session ends, so the connection closing is not taken for a crash.
    closing: Arc<AtomicBool>,
    stop: CancellationToken,
}

impl Drop for Upstream {
    fn drop(&mut self) {
        self.closing.store(true, Ordering::SeqCst);
        self.stop.cancel();
    }
}

impl Upstream {
    /// Starts (or connects to) the upstream and runs the MCP handshake as `config` (the client's
    /// own capabilities and identity).
    pub async fn connect(
        shared: &Arc<Shared>,
        config: ClientConfig,
        downstream: Peer<RoleServer>,
    ) -> Result<Upstream, ErrorData> {
        let links = Arc::new(Links {
            downstream,
            tools: tokio::sync::RwLock::new(None),
            tools_generation: AtomicU64::new(0),
            progress_to_client: ProgressMap::default(),
            progress_to_upstream: ProgressMap::default(),
            upstream: std::sync::OnceLock::new(),
            progress_order: tokio::sync::Mutex::new(ProgressOrder::default()),
            early: Mutex::new(Some((VecDeque::new(), 0))),
        });
        let handler = UpstreamHandler {
            links: Arc::clone(&links),
            config,
        };
        let describe = shared.upstream.describe();
        let mut raw_pages = None;
        let running: RunningService<RoleClient, UpstreamHandler> = match &shared.upstream {
            UpstreamSpec::Command { program, args } => {
                let (transport, child, pages) = super::child::spawn(program, args).map_err(|e| {
                    ErrorData::internal_error(
                        format!(
                            "cannot start the upstream MCP server `{describe}`: {e}. Check the command after `--` (is it installed and on PATH?)."
                        ),
                        None,
                    )
                })?;
                shared.register(child);
                raw_pages = Some(pages);
                handler.serve(sequenced(transport)).await.map_err(|e| {
                    ErrorData::internal_error(
                        format!(
                            "the upstream MCP server `{describe}` failed the MCP handshake: {e}"
                        ),
                        None,
                    )
                })?
            }
            UpstreamSpec::Url(url) => {
                let transport =
                    rmcp::transport::StreamableHttpClientTransport::from_uri(url.as_str());
                handler.serve(sequenced(transport)).await.map_err(|e| {
                    ErrorData::internal_error(
                        format!("cannot connect to the upstream MCP server at {describe}: {e}"),
                        None,
                    )
                })?
            }
        };
        let peer = running.peer().clone();
        let _ = links.upstream.set(peer.clone());
        let closing = Arc::new(AtomicBool::new(false));
        let stop = CancellationToken::new();
        tokio::spawn(watch(
            running,
            Arc::clone(shared),
            Arc::clone(&closing),
            stop.clone(),
        ));
        Ok(Upstream {
            peer,
            links,
            raw_pages,
            closing,
            stop,
        })
    }
}

/// Waits for the upstream connection to end: asked to (session over) or not (a crash).
async fn watch(
    running: RunningService<RoleClient, UpstreamHandler>,
    shared: Arc<Shared>,
    closing: Arc<AtomicBool>,
    stop: CancellationToken,
) {
    let token = running.cancellation_token();
    let stopper = tokio::spawn(async move {
        stop.cancelled().await;
        token.cancel();
    });
    let reason = running.waiting().await;
    stopper.abort();
    if !closing.load(Ordering::SeqCst) && !shared.stopping.load(Ordering::SeqCst) {
        tracing::error!(
            "the upstream MCP server ({}) closed the connection ({reason:?}); it exited or crashed, see its stderr above",
            shared.upstream.describe()
        );
        shared.upstream_died.cancel();
    }
}

/// The error a client gets for a request the upstream can no longer answer, or any other
/// failure to reach it.
pub fn upstream_error(shared: &Shared, error: ServiceError) -> ErrorData {
    match error {
        ServiceError::McpError(e) => e,
        ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
            // A session's upstream lives as long as its requests: a closed transport while one
            // is pending is a death, even if the watcher has not seen it yet.
            shared.upstream_died.cancel();
            ErrorData::internal_error(
                format!(
                    "the upstream MCP server ({}) exited or closed the connection before answering; the proxy stops too. Check the upstream's stderr, then restart the proxy.",
                    shared.upstream.describe()
                ),
                None,
            )
        }
        other => ErrorData::internal_error(
            format!(
                "upstream MCP server ({}): {other}",
                shared.upstream.describe()
            ),
            None,
        ),
    }
}

/// Cancels request `id` on `peer` (a request the proxy forwarded whose sender gave up).
pub async fn send_cancel<R: rmcp::service::ServiceRole>(peer: &Peer<R>, id: RequestId)
where
    R::Not: From<CancelledNotification>,
{
    let notification = CancelledNotification::new(CancelledNotificationParam::new(
        Some(id),
        Some("cancelled by the client of fs-mcp-rs proxy".into()),
    ));
    let _ = peer.send_notification(notification.into()).await;
}

/// Handles what the upstream sends the proxy as its client.
pub struct UpstreamHandler {
    links: Arc<Links>,
    config: ClientConfig,
}

impl Service<RoleClient> for UpstreamHandler {
    async fn handle_request(
        &self,
        request: ServerRequest,
        context: RequestContext<RoleClient>,
    ) -> Result<ClientResult, ErrorData> {
        if matches!(request, ServerRequest::PingRequest(_)) {
            return Ok(ClientResult::empty(()));
        }
        // Sampling, roots, elicitation and custom requests: the client answers.
        let mut options = PeerRequestOptions::no_options();
        let theirs = context.meta.get_progress_token();
        options.meta = Some(context.meta.clone());
        let handle = self
            .links
            .downstream
            .send_request_with_option(request, options)
            .await
            .map_err(|e| {
                ErrorData::internal_error(format!("cannot reach the client: {e}"), None)
            })?;
        let ours = handle.progress_token.clone();
        if let Some(theirs) = theirs {
            self.links.progress_to_upstream.insert(ours.clone(), theirs);
        }
        let id = handle.id.clone();
        let result = tokio::select! {
            result = handle.await_response() => result.map_err(|e| match e {
                ServiceError::McpError(e) => e,
                other => ErrorData::internal_error(format!("the client did not answer: {other}"), None),
            }),
            _ = context.ct.cancelled() => {
                send_cancel(&self.links.downstream, id).await;
                Err(ErrorData::internal_error("cancelled by the upstream", None))
            }
        };
        self.links.progress_to_upstream.remove(&ours);
        result
    }

    async fn handle_notification(
        &self,
        notification: ServerNotification,
        context: NotificationContext<RoleClient>,
    ) -> Result<(), ErrorData> {
        if let ServerNotification::ProgressNotification(mut progress) = notification {
            let seq = context.extensions.get::<ProgressSeq>().copied();
            // None: the client asked for no progress on this request (or it is over).
            let to_send = self
                .links
                .progress_to_client
                .get(&progress.params.progress_token)
                .map(|theirs| {
                    progress.params.progress_token = theirs;
                    let mut n = ServerNotification::ProgressNotification(progress);
                    *n.get_meta_mut() = context.meta;
                    n
                });
            match seq {
                Some(ProgressSeq(seq)) => self.send_progress_in_order(seq, to_send).await,
                None => {
                    if let Some(n) = to_send {
                        let _ = self.links.downstream.send_notification(n).await;
                    }
                }
            }
            return Ok(());
        }
        let mut notification = notification;
        match &mut notification {
            // rmcp already cancelled the matching request handler.
            ServerNotification::CancelledNotification(_) => return Ok(()),
            ServerNotification::ToolListChangedNotification(_) => {
                self.links.tools_generation.fetch_add(1, Ordering::SeqCst);
                *self.links.tools.write().await = None;
            }
            _ => {}
        }
        *notification.get_meta_mut() = context.meta;
        // Before the client's handshake is over nothing reaches it: hold, never wait.
        let Some(notification) = self.links.hold_early(notification) else {
            return Ok(());
        };
        if let Err(e) = self.links.downstream.send_notification(notification).await {
            tracing::debug!("cannot pass an upstream notification on: {e}");
        }
        Ok(())
    }

    fn get_info(&self) -> ClientConfig {
        self.config.clone()
    }
}

impl UpstreamHandler {
    /// Sends progress notification number `seq` once every earlier one is out (or dropped).
    async fn send_progress_in_order(&self, seq: u64, notification: Option<ServerNotification>) {
        let mut order = self.links.progress_order.lock().await;
        order.waiting.insert(seq, notification);
        loop {
            let next = order.next;
            let ready = match order.waiting.remove(&next) {
                Some(ready) => Some(ready),
                None if order.waiting.len() > MAX_HELD_PROGRESS => {
                    order.waiting.pop_first().map(|(seq, n)| {
                        order.next = seq;
                        n
                    })
                }
                None => None,
            };
            let Some(ready) = ready else { break };
            order.next += 1;
            if let Some(n) = ready {
                // Sent while holding the lock: the channel to the client keeps this order.
                let _ = self.links.downstream.send_notification(n).await;
            }
        }
    }
}

/// Passes a progress notification the client sent (for an upstream → client request) back to
/// the upstream with the upstream's own token.
pub async fn progress_to_upstream(links: &Links, mut params: ProgressNotificationParam) {
    let (Some(theirs), Some(peer)) = (
        links.progress_to_upstream.get(&params.progress_token),
        links.upstream.get(),
    ) else {
        return;
    };
    params.progress_token = theirs;
    let _ = peer
        .send_notification(ClientNotification::ProgressNotification(
            rmcp::model::ProgressNotification::new(params),
        ))
        .await;
}

/// Forwards one client request to the upstream with its `_meta`, maps progress back, and cancels
/// the upstream request if the client cancels.
/// The `_meta` keys of the per-request client envelope (SEP-2575).
const CLIENT_ENVELOPE_PREFIX: &str = "io.modelcontextprotocol/";

pub async fn forward(
    shared: &Shared,
    upstream: &Upstream,
    request: ClientRequest,
    context: RequestContext<RoleServer>,
) -> Result<rmcp::model::ServerResult, ErrorData> {
    let theirs = context.meta.get_progress_token();
    let mut options = PeerRequestOptions::no_options();
    let mut meta = context.meta.clone();
    // A 2026-07-28 client sends its protocol version, identity and capabilities in every
    // request's `_meta` (SEP-2575). The upstream connection is the proxy's own, opened with the
    // `initialize` handshake, and an upstream refuses that envelope on it; the rest of `_meta`
    // (progress token, trace context, extension keys) goes on.
    meta.retain(|key, _| !key.starts_with(CLIENT_ENVELOPE_PREFIX));
    options.meta = Some(meta);
    let handle = upstream
        .peer
        .send_request_with_option(request, options)
        .await
        .map_err(|e| upstream_error(shared, e))?;
    let ours = handle.progress_token.clone();
    if let Some(theirs) = theirs {
        upstream
            .links
            .progress_to_client
            .insert(ours.clone(), theirs);
    }
    let id = handle.id.clone();
    let result = tokio::select! {
        result = handle.await_response() => result.map_err(|e| upstream_error(shared, e)),
        _ = context.ct.cancelled() => {
            send_cancel(&upstream.peer, id).await;
            Err(ErrorData::internal_error("cancelled by the client", None))
        }
        _ = shared.upstream_died.cancelled() => Err(upstream_error(shared, ServiceError::TransportClosed)),
    };
    upstream.links.progress_to_client.remove(&ours);
    result.map(|mut result| {
        mark_complete(&mut result);
        result
    })
}

/// A 2026-07-28 client needs `resultType` on every result (SEP-2322) and an upstream on the
/// handshake era sends none: absent means "complete" there, so say so. rmcp strips it again for
/// a client on an older protocol version.
fn mark_complete(result: &mut rmcp::model::ServerResult) {
    use rmcp::model::{ResultType, ServerResult};
    let result_type = match result {
        ServerResult::CompleteResult(r) => &mut r.result_type,
        ServerResult::GetPromptResult(r) => &mut r.result_type,
        ServerResult::ListPromptsResult(r) => &mut r.result_type,
        ServerResult::ListResourcesResult(r) => &mut r.result_type,
        ServerResult::ListResourceTemplatesResult(r) => &mut r.result_type,
        ServerResult::ReadResourceResult(r) => &mut r.result_type,
        ServerResult::ListToolsResult(r) => &mut r.result_type,
        ServerResult::CallToolResult(r) => &mut r.result_type,
        _ => return,
    };
    result_type.get_or_insert(ResultType::COMPLETE);
}
