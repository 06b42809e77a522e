//! Connection accounting and the accept loop shared by `/mcp` and the ui's pages: header and
//! idle timeouts, and a connection cap of which connections that have not shown the token hold
//! at most half (the oldest of them makes room), so idle or tokenless connections cannot lock
//! out a client with the token. A 401 or 403 answer closes its connection.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::http::{Method, StatusCode, header};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio_util::sync::CancellationToken;
use tokio_util::task::{TaskTracker, task_tracker::TaskTrackerToken};

use super::HttpLimits;

/// How long connections get to finish once the sessions are closed.
const CLOSE_GRACE: Duration = Duration::from_millis(250);

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

#[cfg(test)]
mod tests {
    use super::*;

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
