//! JSON Pointer (RFC 6901) helpers and local `$ref` parsing.

use serde_json::Value;

/// Appends one reference token to `out`, escaped (`~` → `~0`, `/` → `~1`). In place: most
/// tokens need no escape, and paths are built for every schema node of every tool at startup.
fn push_escaped(out: &mut String, token: &str) {
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
}

/// Unescape one reference token (`~1` → `/`, then `~0` → `~`).
pub(crate) fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// `base` + `/token` with the token escaped.
pub(crate) fn child(base: &str, token: &str) -> String {
    let mut s = String::with_capacity(base.len() + token.len() + 1);
    s.push_str(base);
    s.push('/');
    push_escaped(&mut s, token);
    s
}

/// `base` + `/key/index`.
pub(crate) fn child2(base: &str, key: &str, index: usize) -> String {
    format!("{}/{}", child(base, key), index)
}

/// The JSON Pointer a `$ref` designates inside the same document, or `None` when the
/// reference is not local (another document, or a plain-name anchor such as `#foo`).
/// The URI fragment is percent-decoded first, so `#/$defs/A%20B` designates `/$defs/A B`.
pub(crate) fn local_pointer(reference: &str) -> Option<String> {
    let fragment = reference.strip_prefix('#')?;
    let decoded = percent_decode(fragment)?;
    if decoded.is_empty() || decoded.starts_with('/') {
        Some(decoded)
    } else {
        None
    }
}

fn percent_decode(s: &str) -> Option<String> {
    percent_encoding::percent_decode_str(s)
        .decode_utf8()
        .ok()
        .map(|decoded| decoded.into_owned())
}

/// Resolve a JSON Pointer against `root` (RFC 6901, as `serde_json` implements it).
pub(crate) fn resolve<'a>(root: &'a Value, pointer: &str) -> Option<&'a Value> {
    root.pointer(pointer)
}

/// The last reference token of a pointer, unescaped (`/$defs/Tree` → `Tree`).
pub(crate) fn last_token(pointer: &str) -> Option<String> {
    let (_, last) = pointer.rsplit_once('/')?;
    if last.is_empty() {
        None
    } else {
        Some(unescape(last))
    }
}

/// Whether `prefix` designates `pointer` or one of its ancestors.
pub(crate) fn is_prefix(prefix: &str, pointer: &str) -> bool {
    pointer == prefix
        || (pointer.starts_with(prefix) && pointer.as_bytes().get(prefix.len()) == Some(&b'/'))
}
