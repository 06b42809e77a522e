//! The guard of every page this binary serves on 127.0.0.1 (the playground, the review page):
//! its own Host and Origin only, then a token the page gave; and the answers both pages share.

use axum::Json;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::host::{HostRule, Refused};

/// The header a page's scripts send their token in (a query `token=` works too, for the page
/// itself).
pub const TOKEN_HEADER: &str = "x-fs-mcp-token";

/// The token a request carries (header or `?token=`).
pub(crate) fn given_token(request: &Request) -> Option<String> {
    let query_token = request.uri().query().and_then(|q| {
        q.split('&')
            .find_map(|pair| pair.strip_prefix("token="))
            .map(str::to_string)
    });
    header_str(request.headers(), TOKEN_HEADER)
        .map(str::to_string)
        .or(query_token)
}

/// The guard of every page this binary serves on 127.0.0.1 (the playground, the review page):
/// its own Host and Origin only, then the token (`accepted`: the request's token is one the
/// page gave); `wrong_token` says where the link with the token came from. A request that
/// passes marks its connection authenticated.
pub(crate) async fn guard_page(
    port: u16,
    accepted: bool,
    wrong_token: &'static str,
    request: Request,
    next: Next,
) -> Response {
    // The same Host/Origin rule as `/mcp`, with calls only from the page's own port.
    if let Err(refused) = HostRule::own_page(port).check(&request) {
        let message = match refused {
            Refused::Host => {
                "this page answers only to its own address (Host 127.0.0.1 or localhost with its port)"
            }
            Refused::Origin => "requests from other sites are refused (Origin is not this page)",
        };
        return refuse(StatusCode::FORBIDDEN, message);
    }
    if !accepted {
        return refuse(StatusCode::UNAUTHORIZED, wrong_token);
    }
    // Its connection no longer counts among the unauthenticated ones (see crate::http).
    super::mark_authenticated(&request);
    let mut response = next.run(request).await;
    harden(response.headers_mut());
    response
}

/// Headers every guarded answer carries.
pub(crate) fn harden(headers: &mut HeaderMap) {
    // The token is in the page URL: never send it anywhere in a Referer.
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
}

pub(crate) fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

pub(crate) fn refuse(status: StatusCode, message: &str) -> Response {
    (status, Json(json!({ "error": message }))).into_response()
}

/// 128 random bits as hex, from the kernel's generator.
pub(crate) fn random_token() -> std::io::Result<String> {
    use std::io::Read;
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}
