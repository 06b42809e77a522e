//! Streamable HTTP transport at `/mcp`, loopback by default, guarded against DNS rebinding and
//! bounded in what a client can hold: connections, time to send a request, sessions.
//!
//! In front of rmcp's service sits one guard per request: the `Host` and `Origin` must name this
//! server exactly, the bearer token (if set) must match, and a POST body must arrive in time and
//! be one JSON-RPC message (a malformed body or a batch gets a JSON-RPC error, not rmcp's HTTP 415).
//! Connections are served by our own accept loop (axum's has no timeouts), shared with `ui`
//! ([`accept_connections`]): a request's headers must arrive within the header timeout (also the
//! idle timeout between requests); a connection counts as unauthenticated until one of its
//! requests passes the token check ([`mark_authenticated`]), unauthenticated ones may hold at most
//! half of the connection cap (the oldest makes room for a new one), and a 401 or 403 closes its
//! connection. So a flood of idle or tokenless connections cannot lock out a client with the token.
//! At the session cap, the longest-idle session (one that never got past the handshake first;
//! never one with a request running, such as a review waiting for the human) makes room for a
//! new client.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::Response;
use futures_core::Stream;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_server::session::ServerSseMessage;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, SessionConfig,
};
use rmcp::transport::streamable_http_server::{
    SessionId, SessionManager, StreamableHttpServerConfig, StreamableHttpService,
};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use tokio_util::task::{TaskTracker, task_tracker::TaskTrackerToken};

use crate::server::FsServer;

/// The `Host` names a loopback server answers to (IPv6 without brackets).
const LOOPBACK_HOSTS: &[&str] = &["localhost", "127.0.0.1", "::1"];

/// Largest POST body (as rmcp's default).
pub const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// File descriptors kept free for the tools (files, query workers) when sizing the connection cap.
const RESERVED_FDS: u64 = 128;

/// How long a shutdown waits for answers (cancelled reviews) before closing connections.
const ANSWER_GRACE: Duration = Duration::from_millis(400);
/// How long connections get to finish once the sessions are closed.
const CLOSE_GRACE: Duration = Duration::from_millis(250);

/// What one client may hold, and for how long.
#[derive(Debug, Clone)]
pub struct HttpLimits {
    /// Time to send a request's headers; also how long a connection may sit idle.
    pub header_timeout: Duration,
    /// Time to send a request's body once its headers are in.
    pub body_timeout: Duration,
    /// Open MCP sessions at most; `initialize` beyond it is refused.
    pub max_sessions: usize,
    /// A session nobody used for this long is closed.
    pub session_idle: Duration,
    /// Open connections at most (default: from the file descriptor limit).
    pub max_connections: usize,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            max_sessions: 100,
            session_idle: Duration::from_secs(300),
            max_connections: connection_cap_for_fd_limit(),
        }
    }
}

/// Connections the process can hold with some descriptors to spare (16 to 4096).
pub fn connection_cap_for_fd_limit() -> usize {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // libc: no dependency of ours wraps getrlimit safely.
        #[allow(unsafe_code)]
        // SAFETY: getrlimit writes only into the struct we pass.
        let status = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) };
        if status == 0 {
            #[allow(clippy::useless_conversion)] // rlim_t is not u64 everywhere
            let soft = u64::try_from(limit.rlim_cur).unwrap_or(u64::MAX);
            return usize::try_from(soft.saturating_sub(RESERVED_FDS).clamp(16, 4096))
                .unwrap_or(4096);
        }
    }
    1024
}

/// Builds the transport configuration for a bind address. Requests whose `Origin` names another
/// site are refused (MCP spec: servers must validate Origin); requests without `Origin` (non-browser
/// clients) pass. The guard checks the same more strictly (exact ports); this is the second line.
pub fn http_config(addr: SocketAddr, shutdown: CancellationToken) -> StreamableHttpServerConfig {
    let rule = HostRule::new(addr);
    let mut origins = Vec::new();
    for host in &rule.hosts {
        let host = if host.contains(':') {
            format!("[{host}]")
        } else {
            host.clone()
        };
        origins.push(format!("http://{host}:*"));
        origins.push(format!("https://{host}:*"));
    }
    let config = StreamableHttpServerConfig::default()
        .with_cancellation_token(shutdown)
        // No SSE "priming" events: their empty `data:` is not JSON, and clients on protocol
        // 2025-06-18 (Gemini CLI) parse every event as a JSON-RPC message and drop the connection.
        .with_sse_retry(None)
        .with_allowed_origins(origins)
        .enforce_origin_validation();
    if addr.ip().is_unspecified() {
        // Bound to every interface: any Host may arrive; Origin is still checked.
        config.disable_allowed_hosts()
    } else {
        config.with_allowed_hosts(rule.hosts)
    }
}

/// Which `Host` and `Origin` values name this server.
#[derive(Debug, Clone)]
struct HostRule {
    /// Lowercase host names and IPs (IPv6 without brackets).
    hosts: Vec<String>,
    port: u16,
    /// Bound to every interface: any `Host` (the `Origin` is still checked).
    any_host: bool,
}

impl HostRule {
    fn new(addr: SocketAddr) -> HostRule {
        let mut hosts: Vec<String> = LOOPBACK_HOSTS.iter().map(|h| h.to_string()).collect();
        if !addr.ip().is_loopback() && !addr.ip().is_unspecified() {
            hosts.push(addr.ip().to_string().to_ascii_lowercase());
        }
        HostRule {
            hosts,
            port: addr.port(),
            any_host: addr.ip().is_unspecified(),
        }
    }

    fn names_us(&self, host: &str) -> bool {
        self.hosts.iter().any(|h| h == host)
    }

    /// `Host: name` or `Host: name:port`, with exactly our name and port.
    fn host_allowed(&self, value: &str) -> bool {
        if self.any_host {
            return true;
        }
        parse_authority(value)
            .is_some_and(|(host, port)| self.names_us(&host) && port.is_none_or(|p| p == self.port))
    }

    /// `Origin: http(s)://name[:port]` with one of our names (a page on another local port, such
    /// as the Inspector's, is the same machine); `null` and anything else are refused.
    fn origin_allowed(&self, value: &str) -> bool {
        let Some((scheme, rest)) = value.split_once("://") else {
            return false;
        };
        (scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https"))
            && parse_authority(rest).is_some_and(|(host, _)| self.names_us(&host))
    }
}

/// Splits `host[:port]` / `[v6][:port]` into a lowercase host and a port, refusing anything else:
/// user info, paths, empty or extra parts, a port that is not a number.
fn parse_authority(value: &str) -> Option<(String, Option<u16>)> {
    let (host, port) = if let Some(rest) = value.strip_prefix('[') {
        let (v6, after) = rest.split_once(']')?;
        v6.parse::<std::net::Ipv6Addr>().ok()?;
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':')?),
        };
        (v6.to_string(), port)
    } else {
        match value.split_once(':') {
            Some((host, port)) => (host.to_string(), Some(port)),
            None => (value.to_string(), None),
        }
    };
    let name_ok = !host.is_empty()
        && (value.starts_with('[')
            || host
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-'));
    if !name_ok {
        return None;
    }
    let port = match port {
        None => None,
        Some(p) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => Some(p.parse().ok()?),
        Some(_) => return None,
    };
    Some((host.to_ascii_lowercase(), port))
}

/// When a session was last used, and whether it was ever used beyond the handshake.
#[derive(Debug, Clone)]
struct SessionUse {
    last: Instant,
    /// It made a request after `initialize` (or opened a stream): a client at work.
    past_handshake: bool,
    /// Its requests whose answers are still under way (a review may wait minutes).
    in_flight: Arc<AtomicUsize>,
}

/// One request in flight in a session, until dropped.
struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    fn new(count: Arc<AtomicUsize>) -> InFlight {
        count.fetch_add(1, Ordering::Relaxed);
        InFlight(count)
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A request's answer stream: while it lives, its session is not closed to make room.
struct Answering<S> {
    inner: Pin<Box<S>>,
    _in_flight: InFlight,
}

impl<S: Stream> Stream for Answering<S> {
    type Item = S::Item;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        self.get_mut().inner.as_mut().poll_next(cx)
    }
}

/// rmcp's in-memory sessions, with a cap on how many may be open: at the cap, the longest-idle
/// session is closed to make room (sessions that never got past the handshake first; never one
/// with a request running). Only when every session has a request running is a new one refused.
pub struct CappedSessions {
    inner: LocalSessionManager,
    max: usize,
    creating: tokio::sync::Mutex<()>,
    uses: Mutex<HashMap<SessionId, SessionUse>>,
    /// A return of freed memory to the system is scheduled.
    trim_scheduled: Arc<AtomicBool>,
}

/// Why a session operation failed.
#[derive(Debug)]
pub enum SessionsError {
    Local(LocalSessionManagerError),
    /// The cap (the number given) is reached.
    Full(usize),
}

impl std::error::Error for SessionsError {}

impl std::fmt::Display for SessionsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionsError::Local(e) => e.fmt(f),
            SessionsError::Full(max) => write!(f, "{}", too_many_sessions(*max)),
        }
    }
}

impl From<LocalSessionManagerError> for SessionsError {
    fn from(e: LocalSessionManagerError) -> Self {
        SessionsError::Local(e)
    }
}

fn too_many_sessions(max: usize) -> String {
    format!(
        "Too many open MCP sessions ({max}, the --http-max-sessions limit), each with a request running, so none can make room. Retry when one finishes, or start the server with a higher --http-max-sessions."
    )
}

impl CappedSessions {
    fn new(max: usize, idle: Duration) -> CappedSessions {
        let mut inner = LocalSessionManager::default();
        let mut config = SessionConfig::default();
        config.keep_alive = Some(idle);
        // See `http_config`: no empty priming events on any stream.
        config.sse_retry = None;
        inner.session_config = config;
        CappedSessions {
            inner,
            max: max.max(1),
            creating: tokio::sync::Mutex::new(()),
            uses: Mutex::new(HashMap::new()),
            trim_scheduled: Arc::new(AtomicBool::new(false)),
        }
    }

    /// After sessions close, hands the freed memory back to the system (once per burst of
    /// closes): glibc keeps freed heap pages of its per-thread arenas otherwise, so the process
    /// would stay at its peak after every DELETE.
    fn schedule_trim(&self) {
        if self.trim_scheduled.swap(true, Ordering::AcqRel) {
            return;
        }
        let scheduled = Arc::clone(&self.trim_scheduled);
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(500)).await;
            scheduled.store(false, Ordering::Release);
            let _ = tokio::task::spawn_blocking(release_free_memory).await;
        });
    }

    /// How many sessions are open.
    pub async fn open(&self) -> usize {
        self.inner.sessions.read().await.len()
    }

    fn full(&self, open: usize) -> bool {
        open >= self.max
    }

    fn uses(&self) -> std::sync::MutexGuard<'_, HashMap<SessionId, SessionUse>> {
        self.uses.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records a use of a session (`past_handshake`: a request or a stream, not the handshake);
    /// returns its count of requests in flight.
    fn touch(&self, id: &SessionId, past_handshake: bool) -> Arc<AtomicUsize> {
        match self.uses().get_mut(id) {
            Some(used) => {
                used.last = Instant::now();
                used.past_handshake |= past_handshake;
                Arc::clone(&used.in_flight)
            }
            None => Arc::default(),
        }
    }

    /// The session to close to make room: never past the handshake first, then the longest idle;
    /// never one with a request in flight.
    async fn longest_idle(&self) -> Option<SessionId> {
        let open = self.inner.sessions.read().await;
        let mut uses = self.uses();
        // Sessions rmcp ended on its own (idle timeout) are forgotten here too.
        uses.retain(|id, _| open.contains_key(id));
        uses.iter()
            .filter(|(_, used)| used.in_flight.load(Ordering::Relaxed) == 0)
            .min_by_key(|(_, used)| (used.past_handshake, used.last))
            .map(|(id, _)| id.clone())
    }
}

impl SessionManager for CappedSessions {
    type Error = SessionsError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        // Count and insert under one lock, so concurrent initializes cannot pass the cap together.
        let _creating = self.creating.lock().await;
        if self.full(self.open().await) {
            // A new client gets in; the longest-idle one initializes again when it comes back
            // (its session id is then unknown: 404, as after the idle timeout).
            let Some(idle) = self.longest_idle().await else {
                return Err(SessionsError::Full(self.max));
            };
            tracing::info!(
                "{} MCP sessions open (--http-max-sessions): closed the longest idle one to make room",
                self.max
            );
            self.close_session(&idle).await?;
        }
        let (id, transport) = self.inner.create_session().await?;
        self.uses().insert(
            id.clone(),
            SessionUse {
                last: Instant::now(),
                past_handshake: false,
                in_flight: Arc::default(),
            },
        );
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<rmcp::model::ServerJsonRpcMessage, Self::Error> {
        self.touch(id, false);
        Ok(self.inner.initialize_session(id, message).await?)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.inner.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.uses().remove(id);
        self.inner.close_session(id).await?;
        self.schedule_trim();
        Ok(())
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let in_flight = InFlight::new(self.touch(id, true));
        let answer = self.inner.create_stream(id, message).await?;
        Ok(Answering {
            inner: Box::pin(answer),
            _in_flight: in_flight,
        })
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        self.touch(id, false);
        Ok(self.inner.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id, true);
        Ok(self.inner.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id, true);
        Ok(self.inner.resume(id, last_event_id).await?)
    }
}

/// Returns freed heap memory to the system (glibc only; other allocators do it themselves).
fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // glibc's malloc_trim exists only as an FFI call.
    #[allow(unsafe_code)]
    // SAFETY: malloc_trim only walks the allocator's own free lists.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// What every request is checked against before rmcp sees it.
struct Guard {
    hosts: HostRule,
    /// `Bearer {token}`, when a token is required.
    bearer: Option<Arc<str>>,
    body_timeout: Duration,
}

fn text_response(status: StatusCode, message: &str) -> Response {
    let mut response = Response::new(Body::from(message.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// A JSON-RPC error as an HTTP response (the body is what a JSON-RPC client reads).
fn jsonrpc_error(status: StatusCode, id: Value, code: i64, message: &str) -> Response {
    let body = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    response
}

fn header_str(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

impl Guard {
    async fn check(
        &self,
        request: axum::extract::Request,
    ) -> Result<axum::extract::Request, Response> {
        let headers = request.headers();
        // HTTP/1.1 requires Host; HTTP/1.0 may omit it, and then the URI's authority counts.
        let host = header_str(headers, header::HOST)
            .map(str::to_string)
            .or_else(|| request.uri().authority().map(|a| a.to_string()));
        if !host.as_deref().is_some_and(|h| self.hosts.host_allowed(h)) {
            tracing::warn!(host = ?host, "refused a request for another Host (DNS rebinding?)");
            return Err(text_response(
                StatusCode::FORBIDDEN,
                "Forbidden: the Host header does not name this server",
            ));
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let allowed = origin.to_str().is_ok_and(|o| self.hosts.origin_allowed(o));
            if !allowed {
                tracing::warn!(origin = ?origin, "refused a request from another site's page");
                return Err(text_response(
                    StatusCode::FORBIDDEN,
                    "Forbidden: the Origin header names another site",
                ));
            }
        }
        if let Some(expected) = &self.bearer {
            let given = header_str(headers, header::AUTHORIZATION).unwrap_or_default();
            if !constant_time_eq(given.as_bytes(), expected.as_bytes()) {
                let mut response = text_response(
                    StatusCode::UNAUTHORIZED,
                    "missing or wrong bearer token: send Authorization: Bearer <token>",
                );
                response.headers_mut().insert(
                    header::WWW_AUTHENTICATE,
                    header::HeaderValue::from_static("Bearer"),
                );
                return Err(response);
            }
        }
        mark_authenticated(&request);
        let is_json = header_str(headers, header::CONTENT_TYPE).is_some_and(|ct| {
            ct.split(';')
                .next()
                .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
        });
        if request.method() != Method::POST || !is_json {
            // Other methods carry no body; a wrong Content-Type is rmcp's 415 to explain.
            return Ok(request);
        }
        self.check_body(request).await
    }

    /// Reads the POST body (in time, bounded) and refuses what is not one JSON-RPC message.
    async fn check_body(
        &self,
        request: axum::extract::Request,
    ) -> Result<axum::extract::Request, Response> {
        let (parts, body) = request.into_parts();
        let read = tokio::time::timeout(
            self.body_timeout,
            Limited::new(body, MAX_BODY_BYTES).collect(),
        )
        .await;
        let bytes: Bytes = match read {
            Err(_) => {
                return Err(jsonrpc_error(
                    StatusCode::REQUEST_TIMEOUT,
                    Value::Null,
                    -32600,
                    &format!(
                        "Invalid Request: the body did not arrive within {} s.",
                        self.body_timeout.as_secs()
                    ),
                ));
            }
            Ok(Err(e)) if e.is::<LengthLimitError>() => {
                return Err(jsonrpc_error(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    Value::Null,
                    -32600,
                    &format!(
                        "Invalid Request: the body is larger than {} MiB.",
                        MAX_BODY_BYTES / (1024 * 1024)
                    ),
                ));
            }
            Ok(Err(e)) => {
                return Err(jsonrpc_error(
                    StatusCode::BAD_REQUEST,
                    Value::Null,
                    -32600,
                    &format!("Invalid Request: cannot read the body ({e})."),
                ));
            }
            Ok(Ok(collected)) => collected.to_bytes(),
        };
        let value: Value = serde_json::from_slice(&bytes).map_err(|e| {
            jsonrpc_error(
                StatusCode::BAD_REQUEST,
                Value::Null,
                -32700,
                &format!("Parse error: the body is not JSON ({e})."),
            )
        })?;
        if value.is_array() {
            return Err(jsonrpc_error(
                StatusCode::BAD_REQUEST,
                Value::Null,
                -32600,
                "Invalid Request: JSON-RPC batches are not supported in this protocol version; send one message per request.",
            ));
        }
        let id = match value.get("id") {
            Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
            _ => Value::Null,
        };
        // At the session cap a new session closes the longest-idle one (`CappedSessions`).
        serde_json::from_value::<ClientJsonRpcMessage>(value).map_err(|e| {
            jsonrpc_error(
                StatusCode::BAD_REQUEST,
                id,
                -32600,
                &format!("Invalid Request: {e}"),
            )
        })?;
        Ok(axum::extract::Request::from_parts(parts, Body::from(bytes)))
    }
}

/// Compares without an early exit, so the time taken does not reveal how much of a guess matched.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// One open connection.
struct Conn {
    opened: Instant,
    /// One of its requests passed the token check (or no token is needed and it passed the
    /// Host/Origin checks): a real client, no longer subject to the unauthenticated share.
    authenticated: AtomicBool,
    /// Cancelled to drop the connection at once (to make room at the cap).
    evict: CancellationToken,
}

impl Conn {
    fn authenticated(&self) -> bool {
        self.authenticated.load(Ordering::Relaxed)
    }
}

/// The connection a request arrived on, in the request's extensions: the token check marks it
/// authenticated with [`mark_authenticated`].
#[derive(Clone)]
struct ConnectionOf(Arc<Conn>);

/// Marks the connection `request` arrived on as authenticated: call it once the request passed
/// the token check. (A no-op for requests that did not come through [`accept_connections`].)
pub fn mark_authenticated(request: &axum::extract::Request) {
    if let Some(ConnectionOf(conn)) = request.extensions().get::<ConnectionOf>() {
        conn.authenticated.store(true, Ordering::Relaxed);
    }
}

/// The open connections, bounded: at most `max`, of which at most `max_unauthenticated` not
/// (yet) authenticated.
struct Conns {
    open: Mutex<HashMap<u64, Arc<Conn>>>,
    next_id: AtomicU64,
    max: usize,
    max_unauthenticated: usize,
}

impl Conns {
    /// Half the cap for connections that have not shown the token: the other half is reserved
    /// for clients that have.
    fn new(max: usize) -> Conns {
        let max = max.max(2);
        Conns {
            open: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(0),
            max,
            max_unauthenticated: max / 2,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Conn>>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers a new (unauthenticated) connection. At the cap, or at the unauthenticated share,
    /// the oldest unauthenticated connection makes room; `None` when every open connection is an
    /// authenticated client's.
    fn admit(&self) -> Option<(u64, Arc<Conn>)> {
        let mut open = self.lock();
        let unauthenticated = open.values().filter(|c| !c.authenticated()).count();
        if open.len() >= self.max || unauthenticated >= self.max_unauthenticated {
            let oldest = open
                .iter()
                .filter(|(_, c)| !c.authenticated())
                .min_by_key(|(_, c)| c.opened)
                .map(|(id, _)| *id)?;
            if let Some(evicted) = open.remove(&oldest) {
                evicted.evict.cancel();
            }
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let conn = Arc::new(Conn {
            opened: Instant::now(),
            authenticated: AtomicBool::new(false),
            evict: CancellationToken::new(),
        });
        open.insert(id, Arc::clone(&conn));
        Some((id, conn))
    }

    fn remove(&self, id: u64) {
        self.lock().remove(&id);
    }
}

/// A response body that holds a token of the in-flight POST answers until it is sent (or dropped).
struct TrackedBody {
    inner: Body,
    _answer: Option<TaskTrackerToken>,
}

impl http_body::Body for TrackedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.get_mut().inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// What [`serve`] needs of a server: a handler for each client session, and a last word before
/// the sessions end at shutdown. `FsServer` and `fs-mcp-rs proxy` both serve through it.
pub trait HttpSessions: Send + Sync + 'static {
    type Session: rmcp::ServerHandler + Send + 'static;
    /// A handler for a new client session.
    fn new_session(&self) -> Self::Session;
    /// At shutdown, answers what is still pending within `grace` (fs-mcp-rs: reviews, CANCELLED).
    fn end(&self, grace: Duration) -> impl Future<Output = ()> + Send;
    /// Layers of its own around the `/mcp` route, inside the guard (the body is read and checked).
    fn wrap_mcp(&self, mcp: axum::Router) -> axum::Router {
        mcp
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

/// Serves until `stop` is cancelled (then answers pending reviews with CANCELLED, ends the sessions
/// and connections, all within about a second). With a `token`, every request must carry
/// `Authorization: Bearer {token}`.
pub async fn serve<S: HttpSessions>(
    server: S,
    addr: SocketAddr,
    token: Option<String>,
    limits: HttpLimits,
    stop: CancellationToken,
) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("cannot listen on {addr}"))?;
    let local = listener.local_addr().unwrap_or(addr);
    let sessions_end = CancellationToken::new();
    let sessions = Arc::new(CappedSessions::new(
        limits.max_sessions,
        limits.session_idle,
    ));
    let server = Arc::new(server);
    let factory_server = Arc::clone(&server);
    let service = StreamableHttpService::new(
        move || Ok(factory_server.new_session()),
        Arc::clone(&sessions),
        http_config(local, sessions_end.clone()),
    );
    let guard = Arc::new(Guard {
        hosts: HostRule::new(local),
        bearer: token
            .filter(|t| !t.is_empty())
            .map(|t| Arc::from(format!("Bearer {t}"))),
        body_timeout: limits.body_timeout,
    });
    let app = server
        .wrap_mcp(axum::Router::new().nest_service("/mcp", service))
        .layer(axum::middleware::from_fn(
            move |request: axum::extract::Request, next: axum::middleware::Next| {
                let guard = Arc::clone(&guard);
                async move {
                    match guard.check(request).await {
                        Ok(request) => next.run(request).await,
                        Err(response) => response,
                    }
                }
            },
        ));
    if !addr.ip().is_loopback() {
        tracing::warn!(
            "listening on {local}, reachable from other machines; anyone who can reach it can use these tools"
        );
    }
    tracing::info!("serving MCP over streamable HTTP at http://{local}/mcp");

    let answers = TaskTracker::new();
    let open = accept_connections(listener, app, &limits, &stop, &answers).await;
    // Pending reviews answer CANCELLED; give those answers (and other replies already under way)
    // a moment to reach their clients, then end the sessions and the connections.
    let started = Instant::now();
    server.end(ANSWER_GRACE).await;
    answers.close();
    let _ = tokio::time::timeout(
        ANSWER_GRACE.saturating_sub(started.elapsed()),
        answers.wait(),
    )
    .await;
    sessions_end.cancel();
    open.close().await;
    Ok(())
}

/// The connections [`accept_connections`] left open when it stopped accepting.
pub struct OpenConnections {
    tasks: TaskTracker,
    closing: CancellationToken,
}

impl OpenConnections {
    /// Asks every connection to finish its response and close, and waits a moment for them.
    pub async fn close(self) {
        self.closing.cancel();
        self.tasks.close();
        let _ =
            tokio::time::timeout(CLOSE_GRACE + Duration::from_millis(50), self.tasks.wait()).await;
    }
}

/// Serves `app` on every connection `listener` accepts until `stop`, bounded by `limits`: the
/// header timeout (also the idle timeout), and the connection cap of which unauthenticated
/// connections hold at most half (see [`Conns`]). A 401 or 403 answer closes its connection. The
/// answer to a POST holds a token of `answers` until it is sent (shutdown waits for those).
pub async fn accept_connections(
    listener: tokio::net::TcpListener,
    app: axum::Router,
    limits: &HttpLimits,
    stop: &CancellationToken,
    answers: &TaskTracker,
) -> OpenConnections {
    let conns = Arc::new(Conns::new(limits.max_connections));
    let mut http1 = hyper::server::conn::http1::Builder::new();
    http1
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true);
    let http1 = Arc::new(http1);
    let connections = TaskTracker::new();
    let closing = CancellationToken::new();
    loop {
        let (stream, _peer) = tokio::select! {
            () = stop.cancelled() => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of descriptors (or similar): the pending connection stays queued; the
                    // timeouts free descriptors soon.
                    tracing::debug!("accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
        };
        let Some((id, conn)) = conns.admit() else {
            tracing::debug!(
                "connection cap reached and every connection is an authenticated client's: refused one"
            );
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let app = app.clone();
        let answers = answers.clone();
        let this = ConnectionOf(Arc::clone(&conn));
        let service = hyper::service::service_fn(
            move |mut request: hyper::Request<hyper::body::Incoming>| {
                request.extensions_mut().insert(this.clone());
                // A POST's answer may be a cancelled review's: shutdown waits for it to be sent.
                let answer = (request.method() == Method::POST).then(|| answers.token());
                let app = TowerToHyperService::new(app.clone());
                async move {
                    let mut response = hyper::service::Service::call(&app, request).await?;
                    // A client without the token (or for another host) gets one answer, not a
                    // connection to keep re-asking on.
                    if matches!(
                        response.status(),
                        StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN
                    ) {
                        response.headers_mut().insert(
                            header::CONNECTION,
                            header::HeaderValue::from_static("close"),
                        );
                    }
                    Ok::<_, std::convert::Infallible>(response.map(|inner| TrackedBody {
                        inner,
                        _answer: answer,
                    }))
                }
            },
        );
        let http1 = Arc::clone(&http1);
        let closing = closing.clone();
        let conns = Arc::clone(&conns);
        connections.spawn(async move {
            let connection = http1.serve_connection(TokioIo::new(stream), service);
            tokio::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                () = conn.evict.cancelled() => {}
                () = closing.cancelled() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = tokio::time::timeout(CLOSE_GRACE, connection).await;
                }
            }
            conns.remove(id);
        });
    }
    drop(listener);
    OpenConnections {
        tasks: connections,
        closing,
    }
}

/// Resolves on Ctrl-C (SIGINT) or SIGTERM. Installs the handlers at once, so call it before
/// anything else can receive a signal.
pub fn signal() -> impl Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let term = signal(SignalKind::terminate());
        let int = signal(SignalKind::interrupt());
        async move {
            match (term, int) {
                (Ok(mut term), Ok(mut int)) => {
                    tokio::select! {
                        _ = term.recv() => {}
                        _ = int.recv() => {}
                    }
                }
                (Err(e), _) | (_, Err(e)) => {
                    tracing::warn!(
                        "cannot watch for SIGTERM/SIGINT ({e}); stop the server by closing its input or killing it"
                    );
                    std::future::pending::<()>().await;
                }
            }
        }
    }
    #[cfg(not(unix))]
    {
        async move {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule() -> HostRule {
        HostRule::new("127.0.0.1:8124".parse().unwrap())
    }

    #[test]
    fn only_exact_loopback_hosts_on_our_port_pass() {
        let r = rule();
        for ok in [
            "localhost",
            "localhost:8124",
            "127.0.0.1:8124",
            "[::1]:8124",
            "[::1]",
            "LOCALHOST:8124",
        ] {
            assert!(r.host_allowed(ok), "{ok}");
        }
        for bad in [
            "localhost.evil.com",
            "127.0.0.1.nip.io",
            "localhost:8125",
            "localhost:",
            "localhost:80x",
            "evil@localhost",
            "localhost:8124/x",
            "localhost.",
            "[::1",
            "::1",
            "",
        ] {
            assert!(!r.host_allowed(bad), "{bad}");
        }
    }

    #[test]
    fn origins_need_a_loopback_host_and_a_web_scheme() {
        let r = rule();
        for ok in [
            "http://localhost:3000",
            "https://127.0.0.1",
            "http://[::1]:6274",
        ] {
            assert!(r.origin_allowed(ok), "{ok}");
        }
        for bad in [
            "null",
            "http://localhost.evil.com",
            "http://127.0.0.1.nip.io:8124",
            "file://localhost",
            "http://evil.example",
            "http://localhost:3000/path",
            "localhost:3000",
        ] {
            assert!(!r.origin_allowed(bad), "{bad}");
        }
    }

    #[test]
    fn unauthenticated_connections_make_room_and_never_crowd_out_authenticated_ones() {
        let conns = Conns::new(4);
        let (_, client) = conns.admit().unwrap();
        client.authenticated.store(true, Ordering::Relaxed);
        let (_, idle) = conns.admit().unwrap();
        let (_, newer) = conns.admit().unwrap();
        // At the unauthenticated share (2 of 4), the oldest unauthenticated one makes room.
        let (_, newest) = conns.admit().unwrap();
        assert!(idle.evict.is_cancelled() && !client.evict.is_cancelled());
        assert!(!newer.evict.is_cancelled() && !newest.evict.is_cancelled());
        for conn in [&newer, &newest] {
            conn.authenticated.store(true, Ordering::Relaxed);
        }
        let (_, last) = conns.admit().unwrap();
        last.authenticated.store(true, Ordering::Relaxed);
        assert!(
            conns.admit().is_none(),
            "every connection is an authenticated client's"
        );
    }
}
