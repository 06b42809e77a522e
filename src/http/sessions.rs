//! The session cap: rmcp's in-memory sessions, at most so many open; at the cap the longest-idle
//! session (one that never got past the handshake first; never one with a request running, such
//! as a review waiting for the human) makes room for a new client.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures_core::Stream;
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_server::session::ServerSseMessage;
use rmcp::transport::streamable_http_server::session::local::{
    LocalSessionManager, LocalSessionManagerError, SessionConfig,
};
use rmcp::transport::streamable_http_server::{SessionId, SessionManager};

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
    /// rmcp's own session manager failed.
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
    pub(super) fn new(max: usize, idle: Duration) -> CappedSessions {
        let mut inner = LocalSessionManager::default();
        let mut config = SessionConfig::default();
        config.keep_alive = Some(idle);
        // Each request's stream opens with a priming event (2025-11-25), left out again for
        // older clients (`priming`).
        config.sse_retry = Some(super::priming::RETRY);
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
            let _ = tokio::task::spawn_blocking(crate::memory::release_free_memory).await;
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
