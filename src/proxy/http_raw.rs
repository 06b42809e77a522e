//! `proxy --http`: what rmcp's typed HTTP service would lose, kept. rmcp serves a
//! `ServerHandler`, whose `tools/list` answer is rmcp's `Tool` (fields it does not know, such as
//! `execution`, are dropped) and whose `tools/call` arguments are parsed into `f64` where an
//! integer is beyond 2^64. This layer on `/mcp` gives the session the client's argument text
//! ([`RawArguments`], as over stdio) and replaces the tools of a `tools/list` answer by the
//! session's served raw tools, which the session leaves in the request's [`ServedToolsSlot`].

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{Method, header};
use axum::middleware::Next;
use axum::response::Response;
use http_body_util::BodyExt;
use serde_json::Value;

use super::tools::ToolCache;

/// `tools/list` answers rewritten at most this big (the listing cap is 32 MiB); a larger one is
/// passed on as rmcp wrote it.
const MAX_LISTING_ANSWER_BYTES: usize = 64 * 1024 * 1024;

/// Where the session leaves the listing a `tools/list` request was answered with.
#[derive(Clone, Default)]
pub struct ServedToolsSlot(Arc<Mutex<Option<Arc<ToolCache>>>>);

impl ServedToolsSlot {
    pub fn fill(&self, cache: Arc<ToolCache>) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(cache);
    }

    fn take(&self) -> Option<Arc<ToolCache>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// The [`ServedToolsSlot`] of the HTTP request a handler serves, if any (rmcp puts the request's
/// `Parts` into the context's extensions).
pub fn served_tools_slot(extensions: &rmcp::model::Extensions) -> Option<ServedToolsSlot> {
    extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<ServedToolsSlot>())
        .cloned()
}

/// The client's argument text of the call a handler serves: over stdio in the request's own
/// extensions, over HTTP in those of its HTTP request.
pub fn raw_arguments(extensions: &rmcp::model::Extensions) -> Option<crate::stdio::RawArguments> {
    extensions
        .get::<crate::stdio::RawArguments>()
        .or_else(|| {
            extensions
                .get::<axum::http::request::Parts>()
                .and_then(|parts| parts.extensions.get::<crate::stdio::RawArguments>())
        })
        .cloned()
}

/// The middleware: see the module's documentation.
pub async fn keep_raw(request: Request, next: Next) -> Response {
    let is_json = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|ct| ct.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"));
    // Only a JSON POST's body has been read by the guard (in time); others are rmcp's to refuse.
    if request.method() != Method::POST || !is_json {
        return next.run(request).await;
    }
    let (mut parts, body) = request.into_parts();
    // The guard has read and checked the body already (bounded); this is its copy in memory.
    let bytes = match axum::body::to_bytes(body, crate::http::MAX_BODY_BYTES).await {
        Ok(bytes) => bytes,
        Err(e) => {
            let mut response = Response::new(Body::from(format!("cannot read the body: {e}")));
            *response.status_mut() = axum::http::StatusCode::BAD_REQUEST;
            return response;
        }
    };
    let message: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    let listing = match message.get("method").and_then(Value::as_str) {
        Some("tools/list") => message.get("id").cloned().map(|id| {
            let slot = ServedToolsSlot::default();
            parts.extensions.insert(slot.clone());
            (id, slot)
        }),
        Some("tools/call") => {
            if let Some(raw) = crate::stdio::raw_arguments(&bytes, &message) {
                parts.extensions.insert(raw);
            }
            None
        }
        _ => None,
    };
    let response = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    match listing {
        Some((id, slot)) => with_served_tools(response, &id, &slot).await,
        None => response,
    }
}

/// `response` with the tools of the answer to request `id` replaced by the served raw tools.
async fn with_served_tools(response: Response, id: &Value, slot: &ServedToolsSlot) -> Response {
    let (mut parts, mut body) = response.into_parts();
    let mut read = Vec::new();
    let mut size = 0usize;
    while let Some(frame) = body.frame().await {
        let Ok(frame) = frame else {
            // The answer broke off: pass on what came.
            return Response::from_parts(parts, Body::from(read.concat()));
        };
        let Ok(data) = frame.into_data() else {
            continue;
        };
        size += data.len();
        read.push(data);
        if size > MAX_LISTING_ANSWER_BYTES {
            tracing::warn!(
                "a tools/list answer over {} MiB is passed on as rmcp wrote it (fields rmcp does not know are lost)",
                MAX_LISTING_ANSWER_BYTES / (1024 * 1024)
            );
            let prefixed = Prefixed {
                prefix: Some(Bytes::from(read.concat())),
                rest: body,
            };
            return Response::from_parts(parts, Body::new(prefixed));
        }
    }
    let text = read.concat();
    let Some(cache) = slot.take() else {
        return Response::from_parts(parts, Body::from(text));
    };
    let is_sse = parts
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.trim_start().starts_with("text/event-stream"));
    let rewritten = if is_sse {
        std::str::from_utf8(&text)
            .ok()
            .and_then(|events| rewrite_sse(events, id, &cache))
            .map(String::into_bytes)
    } else {
        rewrite_message(&text, id, &cache)
    };
    let Some(rewritten) = rewritten else {
        return Response::from_parts(parts, Body::from(text));
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(rewritten))
}

/// The JSON-RPC message `text` with its `result.tools` replaced, if it answers `id` with tools.
fn rewrite_message(text: &[u8], id: &Value, cache: &ToolCache) -> Option<Vec<u8>> {
    let mut message: Value = serde_json::from_slice(text).ok()?;
    if message.get("id") != Some(id) {
        return None;
    }
    let tools = message.get_mut("result")?.get_mut("tools")?;
    *tools = Value::Array(cache.served.clone());
    serde_json::to_vec(&message).ok()
}

/// The SSE stream `events` with the event answering `id` rewritten; every other event (and
/// every other line of that one) as it was.
fn rewrite_sse(events: &str, id: &Value, cache: &ToolCache) -> Option<String> {
    let newline = if events.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let separator = format!("{newline}{newline}");
    let mut out = String::with_capacity(events.len());
    let mut done = false;
    for (index, event) in events.split(separator.as_str()).enumerate() {
        if index > 0 {
            out.push_str(&separator);
        }
        if done {
            out.push_str(event);
            continue;
        }
        let data: Vec<&str> = event
            .split(newline)
            .filter_map(|line| line.strip_prefix("data:"))
            .map(|d| d.strip_prefix(' ').unwrap_or(d))
            .collect();
        let rewritten = (!data.is_empty())
            .then(|| rewrite_message(data.join("\n").as_bytes(), id, cache))
            .flatten()
            .and_then(|json| String::from_utf8(json).ok());
        let Some(json) = rewritten else {
            out.push_str(event);
            continue;
        };
        // The other fields of the event (id, event, retry, comments) stay; one data line.
        let mut lines: Vec<String> = Vec::new();
        let mut placed = false;
        for line in event.split(newline) {
            if line.starts_with("data:") {
                if !placed {
                    lines.push(format!("data: {json}"));
                    placed = true;
                }
            } else {
                lines.push(line.to_string());
            }
        }
        out.push_str(&lines.join(newline));
        done = true;
    }
    done.then_some(out)
}

/// A body that sends `prefix` (already read) and then the rest of the original.
struct Prefixed {
    prefix: Option<Bytes>,
    rest: Body,
}

impl http_body::Body for Prefixed {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        let this = self.get_mut();
        if let Some(prefix) = this.prefix.take() {
            return Poll::Ready(Some(Ok(http_body::Frame::data(prefix))));
        }
        Pin::new(&mut this.rest).poll_frame(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cache() -> ToolCache {
        ToolCache {
            served: vec![json!({"name": "t", "execution": {"taskSupport": "required"}})],
            ..ToolCache::default()
        }
    }

    #[test]
    fn the_answer_event_gets_the_raw_tools_and_other_events_stay() {
        let events = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\nid: 0/1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"tools\":[{\"name\":\"t\"}],\"nextCursor\":\"c\"}}\n\n";
        let out = rewrite_sse(events, &json!(2), &cache()).expect("rewritten");
        let parts: Vec<&str> = out.split("\n\n").collect();
        assert_eq!(parts[0], events.split("\n\n").next().unwrap_or_default());
        assert!(
            parts[1].starts_with("id: 0/1\nevent: message\ndata: "),
            "{out}"
        );
        let data: Value = serde_json::from_str(
            parts[1]
                .rsplit_once("data: ")
                .map(|(_, d)| d)
                .unwrap_or_default(),
        )
        .expect("json");
        assert_eq!(
            data["result"]["tools"][0]["execution"]["taskSupport"],
            "required"
        );
        assert_eq!(data["result"]["nextCursor"], "c");
        assert!(out.ends_with("\n\n"));
        assert!(rewrite_sse(events, &json!(3), &cache()).is_none());
    }
}
