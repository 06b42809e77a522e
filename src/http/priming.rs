//! SSE priming events, only for the clients that expect them. Since 2025-11-25 a server should
//! open each SSE stream with an event carrying an id, a `retry:` hint and empty data, so a client
//! whose connection drops knows where and when to resume; rmcp sends one on every stream. Clients
//! on older revisions may take every event for a JSON-RPC message: Gemini CLI (2025-06-18) drops
//! the connection on the empty one. So a response to a client that asked for an older revision in
//! its `initialize` has its priming events taken out. The session remembers what its client asked
//! for: a request's `MCP-Protocol-Version` header decides only for a session it does not know
//! (the MCP conformance suite sends `2025-03-26` in sessions it opened on 2025-11-25).

use std::collections::{HashMap, VecDeque};
use std::pin::Pin;
use std::sync::Mutex;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::header;
use axum::response::Response;
use http_body::Frame;

/// The first revision whose clients expect priming events.
const FIRST_WITH_PRIMING: &str = "2025-11-25";

/// How long a client whose stream dropped waits before reconnecting (the priming `retry:`).
pub const RETRY: Duration = Duration::from_secs(3);

/// The protocol version an `initialize` POST asks for (its stream opens before any header can
/// say the version), put in the request's extensions by the body check.
#[derive(Debug, Clone)]
pub(super) struct InitializeVersion(pub String);

/// ISO dates compare as strings in time order.
fn primes(version: &str) -> bool {
    version >= FIRST_WITH_PRIMING
}

/// Whether each session's client takes priming events (it asked for 2025-11-25 or later in its
/// `initialize`), by session id; the oldest are forgotten beyond `cap` (closed sessions are
/// not reported here).
pub(super) struct PrimingSessions {
    known: Mutex<(HashMap<String, bool>, VecDeque<String>)>,
    cap: usize,
}

impl PrimingSessions {
    pub(super) fn new(cap: usize) -> PrimingSessions {
        PrimingSessions {
            known: Mutex::new(Default::default()),
            cap: cap.max(1),
        }
    }

    /// Whether the response to `request` keeps its priming events: for `initialize`, by the
    /// version asked for; then by what its session's client asked for; for a session not known
    /// (or none), by its `MCP-Protocol-Version` header.
    pub(super) fn takes_priming(&self, request: &Request) -> bool {
        if let Some(InitializeVersion(version)) = request.extensions().get() {
            return primes(version);
        }
        let header = |name: &str| request.headers().get(name).and_then(|v| v.to_str().ok());
        let known = header("mcp-session-id").and_then(|id| {
            let known = self.known.lock().unwrap_or_else(|e| e.into_inner());
            known.0.get(id).copied()
        });
        known.unwrap_or_else(|| header("mcp-protocol-version").is_some_and(primes))
    }

    /// Remembers the choice made for an `initialize` request, under the session id its
    /// response gives.
    pub(super) fn record(&self, request_primes: bool, response: &Response) {
        let Some(id) = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
        else {
            return;
        };
        let mut known = self.known.lock().unwrap_or_else(|e| e.into_inner());
        let (choices, order) = &mut *known;
        if choices.insert(id.to_string(), request_primes).is_none() {
            order.push_back(id.to_string());
        }
        while order.len() > self.cap {
            if let Some(oldest) = order.pop_front() {
                choices.remove(&oldest);
            }
        }
    }
}

/// `response`, with the priming events of an SSE body left out.
pub(super) fn without_priming(response: Response) -> Response {
    let is_sse = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("text/event-stream"));
    if !is_sse {
        return response;
    }
    let (parts, body) = response.into_parts();
    Response::from_parts(
        parts,
        Body::new(WithoutPriming {
            inner: body,
            partial: Vec::new(),
            ready: VecDeque::new(),
            ended: false,
        }),
    )
}

/// An SSE body without its priming events: whole events are passed on as they complete.
struct WithoutPriming {
    inner: Body,
    /// The start of an event not complete yet.
    partial: Vec<u8>,
    /// Whole events to send.
    ready: VecDeque<Bytes>,
    ended: bool,
}

/// An event whose data fields are all empty (and at least one): a priming event. Comments
/// (keep-alives) and events with data stay.
fn is_priming(event: &[u8]) -> bool {
    let mut data_lines = 0;
    for line in event.split(|b| *b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let Some(value) = line.strip_prefix(b"data") else {
            continue;
        };
        let Some(value) = value
            .strip_prefix(b":")
            .or(value.is_empty().then_some(value))
        else {
            continue; // another field whose name starts with "data"
        };
        if !value.iter().all(|b| *b == b' ') {
            return false;
        }
        data_lines += 1;
    }
    data_lines > 0
}

impl WithoutPriming {
    /// Moves every complete event of `partial` to `ready`, priming events aside.
    fn take_events(&mut self) {
        let mut start = 0;
        let mut kept = Vec::new();
        while let Some(at) = self.partial[start..]
            .windows(2)
            .position(|pair| pair == b"\n\n")
        {
            let end = start + at + 2;
            let event = &self.partial[start..end];
            if !is_priming(event) {
                kept.extend_from_slice(event);
            }
            start = end;
        }
        self.partial.drain(..start);
        if !kept.is_empty() {
            self.ready.push_back(Bytes::from(kept));
        }
    }
}

impl http_body::Body for WithoutPriming {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let this = self.get_mut();
        loop {
            if let Some(bytes) = this.ready.pop_front() {
                return Poll::Ready(Some(Ok(Frame::data(bytes))));
            }
            if this.ended {
                return Poll::Ready(None);
            }
            match Pin::new(&mut this.inner).poll_frame(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
                    Ok(data) => {
                        this.partial.extend_from_slice(&data);
                        this.take_events();
                    }
                    Err(other) => return Poll::Ready(Some(Ok(other))),
                },
                Poll::Ready(Some(Err(e))) => return Poll::Ready(Some(Err(e))),
                Poll::Ready(None) => {
                    this.ended = true;
                    // What follows the last complete event passes on as it is, unless it primes.
                    let rest = std::mem::take(&mut this.partial);
                    if !rest.is_empty() && !is_priming(&rest) {
                        this.ready.push_back(Bytes::from(rest));
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priming_events_are_told_from_messages_and_comments() {
        assert!(is_priming(b"data: \nid: 0\nretry: 3000\n\n"));
        assert!(is_priming(b"data:\nretry: 3000\n\n"));
        assert!(!is_priming(b"data: {\"jsonrpc\":\"2.0\"}\nid: 1\n\n"));
        assert!(!is_priming(b":\n\n"));
        assert!(!is_priming(b"id: 4\n\n"));
    }

    #[tokio::test]
    async fn priming_is_left_out_across_chunk_boundaries() {
        use http_body_util::BodyExt;
        let chunks: Vec<Result<Bytes, std::io::Error>> = vec![
            Ok(Bytes::from_static(b"data: \nid: 0\nre")),
            Ok(Bytes::from_static(
                b"try: 3000\n\ndata: {\"a\":1}\nid: 1\n\n:\n",
            )),
            Ok(Bytes::from_static(b"\n")),
        ];
        let body = Body::from_stream(stream_of(chunks));
        let response = Response::builder()
            .header(header::CONTENT_TYPE, "text/event-stream")
            .body(body)
            .unwrap();
        let text = without_priming(response)
            .into_body()
            .collect()
            .await
            .unwrap()
            .to_bytes();
        assert_eq!(&text[..], b"data: {\"a\":1}\nid: 1\n\n:\n\n");
    }

    /// A stream of the given items (no futures-util dependency for one test).
    fn stream_of<T: Unpin + Send + 'static>(
        items: Vec<T>,
    ) -> impl futures_core::Stream<Item = T> + Send {
        struct Items<T>(std::vec::IntoIter<T>);
        impl<T: Unpin> futures_core::Stream for Items<T> {
            type Item = T;
            fn poll_next(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<T>> {
                Poll::Ready(self.0.next())
            }
        }
        Items(items.into_iter())
    }
}
