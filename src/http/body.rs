//! The body of a POST to `/mcp`: it must arrive in time, stay under the size cap and be one
//! JSON-RPC message; otherwise the client gets a JSON-RPC error (not rmcp's HTTP 415).

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use rmcp::model::ClientJsonRpcMessage;
use serde_json::{Value, json};

/// Largest POST body (as rmcp's default).
pub const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// The request says its body is JSON (`Content-Type: application/json`, parameters aside).
pub(super) fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| {
            ct.split(';')
                .next()
                .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
        })
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

/// Reads the POST body (in time, bounded) and refuses what is not one JSON-RPC message.
pub(super) async fn check_body(
    request: Request,
    body_timeout: Duration,
) -> Result<Request, Response> {
    let (mut parts, body) = request.into_parts();
    let read =
        tokio::time::timeout(body_timeout, Limited::new(body, MAX_BODY_BYTES).collect()).await;
    let bytes: Bytes = match read {
        Err(_) => {
            return Err(jsonrpc_error(
                StatusCode::REQUEST_TIMEOUT,
                Value::Null,
                -32600,
                &format!(
                    "Invalid Request: the body did not arrive within {} s.",
                    body_timeout.as_secs()
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
    if value.get("method").and_then(Value::as_str) == Some("initialize")
        && let Some(version) = value
            .get("params")
            .and_then(|p| p.get("protocolVersion"))
            .and_then(Value::as_str)
    {
        parts
            .extensions
            .insert(super::priming::InitializeVersion(version.to_string()));
    }
    // At the session cap a new session closes the longest-idle one (`CappedSessions`).
    serde_json::from_value::<ClientJsonRpcMessage>(value).map_err(|e| {
        jsonrpc_error(
            StatusCode::BAD_REQUEST,
            id,
            -32600,
            &format!("Invalid Request: {e}"),
        )
    })?;
    Ok(Request::from_parts(parts, Body::from(bytes)))
}
