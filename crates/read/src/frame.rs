//! The framing of a `read_files` reply, which no file content or name can imitate.
//!
//! Every line the server adds starts with the reply's tag, `[` + 8 hex digits + `]`, drawn at
//! random for each reply (so file content, written before the reply existed, cannot contain it):
//!
//! ```text
//! [TAG] File: {name}        starts the block of one requested item; its body is the file text
//! [TAG] Error: {message}    the item failed (the caller renders the error, in its format)
//! [TAG] Note: {text}        a note on the block (or, last, on the whole reply)
//! ```
//!
//! A frame line ends with `\n`. A non-empty body is followed by one more `\n` before the next
//! frame line, which is framing, not text: so a body's final newline (or its absence) is exact
//! and an empty body adds nothing. The last body runs to the end of the reply.

use std::hash::{BuildHasher, Hasher, RandomState};
use std::sync::atomic::{AtomicU64, Ordering};

/// The reply under construction: frame lines and bodies, in one buffer.
pub(crate) struct Reply {
    pub(crate) buf: Vec<u8>,
    tag: String,
    /// Where the body after the last frame line starts.
    body_start: usize,
}

impl Reply {
    pub(crate) fn new(tag: &str) -> Reply {
        Reply {
            buf: Vec::new(),
            tag: format!("[{tag}]"),
            body_start: 0,
        }
    }

    /// `[TAG]`, as shown at the start of every frame line.
    pub(crate) fn tag(&self) -> &str {
        &self.tag
    }

    /// Starts a frame line `[TAG] {kind}: {text}`; `text` must not hold a newline (callers pass
    /// escaped names and one-line messages; a newline is replaced to keep the line whole).
    pub(crate) fn frame(&mut self, kind: &str, text: &str) {
        self.line(&format!("{kind}: {text}"));
    }

    /// Starts a frame line `[TAG] {text}` (a newline in `text` is replaced).
    fn line(&mut self, text: &str) {
        if self.buf.len() > self.body_start {
            self.buf.push(b'\n');
        }
        self.buf.extend_from_slice(self.tag.as_bytes());
        self.buf.push(b' ');
        if text.contains(['\n', '\r']) {
            self.buf
                .extend_from_slice(text.replace(['\n', '\r'], " ").as_bytes());
        } else {
            self.buf.extend_from_slice(text.as_bytes());
        }
        self.buf.push(b'\n');
        self.body_start = self.buf.len();
    }

    /// A server message in the caller's format (an error starting `Error: `): its first line on
    /// a frame line after the tag, the rest as the body.
    pub(crate) fn message(&mut self, message: &str) {
        let (first, rest) = message.split_once('\n').unwrap_or((message, ""));
        self.line(first);
        self.buf.extend_from_slice(rest.as_bytes());
    }

    /// Where the current body starts.
    pub(crate) fn body_start(&self) -> usize {
        self.body_start
    }

    pub(crate) fn len(&self) -> usize {
        self.buf.len()
    }

    pub(crate) fn into_string(self) -> String {
        // Bodies are validated as UTF-8 when written; a lossy decode is only a safety net.
        String::from_utf8(self.buf)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
}

/// A fresh tag for one reply: 8 hex digits from SipHash keyed with the process's random keys
/// (std's `RandomState`, seeded by the OS), over a counter and the time, so no two replies share
/// one and none can be predicted from earlier ones.
pub(crate) fn new_tag() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    hasher.write_u128(nanos);
    format!("{:08x}", hasher.finish() as u32)
}
