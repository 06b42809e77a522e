//! The bearer token: every request must carry it when one is set, compared in constant time.

use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;

use super::text_response;

/// Checks `Authorization: Bearer {token}` against `expected` (the whole header value): the 401
/// to answer when it does not match.
pub(super) fn bearer_refusal(expected: &str, headers: &HeaderMap) -> Option<Response> {
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    if same_secret(given.as_bytes(), expected.as_bytes()) {
        return None;
    }
    let mut response = text_response(
        StatusCode::UNAUTHORIZED,
        "missing or wrong bearer token: send Authorization: Bearer <token>",
    );
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        header::HeaderValue::from_static("Bearer"),
    );
    Some(response)
}

/// Compares without an early exit, so the time taken does not reveal how much of a guess matched.
/// (The length is not hidden: tokens are random and of one length.)
pub(crate) fn same_secret(given: &[u8], expected: &[u8]) -> bool {
    given.len() == expected.len()
        && given
            .iter()
            .zip(expected)
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_same_bytes_pass() {
        assert!(same_secret(b"Bearer abc", b"Bearer abc"));
        assert!(!same_secret(b"Bearer abd", b"Bearer abc"));
        assert!(!same_secret(b"Bearer ab", b"Bearer abc"));
        assert!(!same_secret(b"", b"x"));
        assert!(same_secret(b"", b""));
    }
}
