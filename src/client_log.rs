//! MCP logging: once a client sends `logging/setLevel`, log events at or above that level reach it
//! as `notifications/message`.
//!
//! Events raised while serving a client's request (inside its `mcp_session` span) go to that
//! client only; the server's own events outside any request (from this crate, e.g. a refused HTTP
//! request) go to every client that asked. Nothing is sent to a client that never asked, and each client gets a bounded
//! queue: a flood of log events drops messages rather than memory.

#![allow(deprecated)] // MCP logging is deprecated by SEP-2577 but still what clients use today.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, OnceLock, Weak};

use rmcp::RoleServer;
use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam};
use rmcp::service::Peer;
use serde_json::Value;
use tokio::sync::mpsc;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing::subscriber::Interest;
use tracing::{Event, Level, Metadata, Subscriber};
use tracing_subscriber::layer::{Context, Filter, Layer};
use tracing_subscriber::registry::LookupSpan;

/// The name of the span a request runs in; its `session` field routes events to one client.
pub const SESSION_SPAN: &str = "mcp_session";

/// Messages queued for one client before new ones are dropped.
const QUEUE: usize = 256;

/// "Off": the client has not asked for log messages.
const OFF: u8 = u8::MAX;

/// MCP severities, lowest first (RFC 5424 order).
fn rank(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

fn mcp_level(level: &Level) -> LoggingLevel {
    match *level {
        Level::ERROR => LoggingLevel::Error,
        Level::WARN => LoggingLevel::Warning,
        Level::INFO => LoggingLevel::Info,
        _ => LoggingLevel::Debug,
    }
}

/// One client's log subscription.
pub struct SessionLog {
    id: u64,
    /// The lowest rank the client wants, or [`OFF`].
    threshold: AtomicU8,
    queue: OnceLock<mpsc::Sender<LoggingMessageNotificationParam>>,
}

impl SessionLog {
    /// A new client session, known to the logging layer but silent until `set_level`.
    pub fn register() -> Arc<SessionLog> {
        static NEXT_ID: AtomicU64 = AtomicU64::new(1);
        let log = Arc::new(SessionLog {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            threshold: AtomicU8::new(OFF),
            queue: OnceLock::new(),
        });
        let mut sessions = HUB.lock();
        sessions.retain(|s| s.strong_count() > 0);
        sessions.push(Arc::downgrade(&log));
        log
    }

    /// The value of the `session` field of this client's request spans.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// `logging/setLevel`: from now on, events at `level` or above go to `peer`.
    pub fn set_level(&self, level: LoggingLevel, peer: &Peer<RoleServer>) {
        self.queue.get_or_init(|| {
            let (tx, mut rx) = mpsc::channel::<LoggingMessageNotificationParam>(QUEUE);
            let peer = peer.clone();
            // Ends when this session is dropped (the sender with it) or the client is gone.
            tokio::spawn(async move {
                while let Some(message) = rx.recv().await {
                    if peer.notify_logging_message(message).await.is_err() {
                        break;
                    }
                }
            });
            tx
        });
        self.threshold.store(rank(level), Ordering::Relaxed);
        HUB.recompute();
    }

    fn wants(&self, level: u8) -> bool {
        level >= self.threshold.load(Ordering::Relaxed)
    }

    fn send(&self, message: LoggingMessageNotificationParam) {
        if let Some(queue) = self.queue.get() {
            let _ = queue.try_send(message);
        }
    }
}

/// Every client session, and the lowest threshold among them (a cheap "is anyone listening?").
struct Hub {
    sessions: Mutex<Vec<Weak<SessionLog>>>,
    lowest: AtomicU8,
}

static HUB: LazyLock<Hub> = LazyLock::new(|| Hub {
    sessions: Mutex::new(Vec::new()),
    lowest: AtomicU8::new(OFF),
});

impl Hub {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Weak<SessionLog>>> {
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn recompute(&self) {
        let lowest = self
            .lock()
            .iter()
            .filter_map(Weak::upgrade)
            .map(|s| s.threshold.load(Ordering::Relaxed))
            .min()
            .unwrap_or(OFF);
        self.lowest.store(lowest, Ordering::Relaxed);
    }

    fn listening(&self) -> bool {
        self.lowest.load(Ordering::Relaxed) != OFF
    }

    fn live(&self) -> Vec<Arc<SessionLog>> {
        self.lock().iter().filter_map(Weak::upgrade).collect()
    }
}

/// The session id stored on an `mcp_session` span.
struct SessionTag(u64);

/// The tracing layer that forwards events to clients (install with [`layer`]).
pub struct ClientLogLayer;

/// Decides, cheaply and per event, whether any client could want it.
pub struct ClientLogFilter;

/// The layer with its filter, to add to the subscriber next to the stderr layer.
pub fn layer<S>() -> tracing_subscriber::filter::Filtered<ClientLogLayer, ClientLogFilter, S>
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    ClientLogLayer.with_filter(ClientLogFilter)
}

impl<S: Subscriber> Filter<S> for ClientLogFilter {
    fn enabled(&self, meta: &Metadata<'_>, _: &Context<'_, S>) -> bool {
        if meta.is_span() {
            // Always recorded, so that a client that asks for logs mid-request never receives
            // another client's events as if they were the server's own.
            return meta.name() == SESSION_SPAN;
        }
        HUB.listening() && rank(mcp_level(meta.level())) >= HUB.lowest.load(Ordering::Relaxed)
    }

    fn callsite_enabled(&self, _: &'static Metadata<'static>) -> Interest {
        // Clients change their level at run time: decide per event.
        Interest::sometimes()
    }

    fn max_level_hint(&self) -> Option<tracing::level_filters::LevelFilter> {
        Some(tracing::level_filters::LevelFilter::DEBUG)
    }
}

/// Collects an event's message and fields as one line.
#[derive(Default)]
struct Text {
    message: String,
    fields: String,
    session: Option<u64>,
}

impl Visit for Text {
    fn record_u64(&mut self, field: &Field, value: u64) {
        if field.name() == "session" {
            self.session = Some(value);
        } else {
            self.record_debug(field, &value);
        }
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.message.push_str(value);
        } else {
            let _ = write!(self.fields, " {}={value}", field.name());
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            let _ = write!(self.message, "{value:?}");
        } else {
            let _ = write!(self.fields, " {}={value:?}", field.name());
        }
    }
}

impl<S> Layer<S> for ClientLogLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        if attrs.metadata().name() != SESSION_SPAN {
            return;
        }
        let mut text = Text::default();
        attrs.record(&mut text);
        if let (Some(session), Some(span)) = (text.session, ctx.span(id)) {
            span.extensions_mut().insert(SessionTag(session));
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let meta = event.metadata();
        let level = mcp_level(meta.level());
        let session = ctx.event_scope(event).and_then(|scope| {
            scope
                .into_iter()
                .find_map(|span| span.extensions().get::<SessionTag>().map(|t| t.0))
        });
        // Outside a request only the server's own events are news to every client; the tool
        // crates log outside a request only from background threads working for one client
        // (a review's file watcher), which must not reach the others.
        if session.is_none() && !meta.target().starts_with("fs_mcp_rs") {
            return;
        }
        let targets: Vec<Arc<SessionLog>> = HUB
            .live()
            .into_iter()
            .filter(|s| session.is_none_or(|id| s.id == id) && s.wants(rank(level)))
            .collect();
        if targets.is_empty() {
            return;
        }
        let mut text = Text::default();
        event.record(&mut text);
        let line = format!("{}{}", text.message, text.fields);
        for target in targets {
            target.send(
                LoggingMessageNotificationParam::new(level, Value::String(line.clone()))
                    .with_logger(meta.target()),
            );
        }
    }
}
