//! Finds the top-level `"id"` of a JSON-RPC message that does not parse (too long, nested too
//! deep, invalid UTF-8, a number out of range), so the request it answers still gets an error
//! instead of waiting for ever. Fed in chunks, in constant memory, whatever the line holds.

use rmcp::model::RequestId;

/// The longest id text kept (a longer one names no request the proxy sent).
const MAX_ID_BYTES: usize = 64;

#[derive(Debug, Default)]
pub struct IdScanner {
    depth: u32,
    in_string: bool,
    escaped: bool,
    /// At depth 1, the next string is a member name.
    expect_key: bool,
    reading_key: bool,
    key: Vec<u8>,
    /// The member name just read is `id`; its value follows the `:`.
    key_is_id: bool,
    id_value_next: bool,
    capturing: bool,
    value: Vec<u8>,
    found: Option<Vec<u8>>,
}

impl IdScanner {
    pub fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.found.is_some() {
                return;
            }
            self.step(b);
        }
    }

    fn step(&mut self, b: u8) {
        if self.in_string {
            if self.capturing {
                push_capped(&mut self.value, b);
            }
            if self.reading_key && (b != b'"' || self.escaped) {
                push_capped(&mut self.key, b);
            }
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
                if self.reading_key {
                    self.reading_key = false;
                    self.key_is_id = self.key == b"id";
                }
                if self.capturing {
                    self.finish_capture();
                }
            }
            return;
        }
        if self.capturing {
            if matches!(b, b',' | b'}' | b']') || b.is_ascii_whitespace() {
                self.finish_capture();
            } else {
                push_capped(&mut self.value, b);
                return;
            }
        }
        match b {
            b'"' => {
                self.in_string = true;
                if self.depth == 1 && self.expect_key {
                    self.expect_key = false;
                    self.reading_key = true;
                    self.key.clear();
                } else if self.depth == 1 && self.id_value_next {
                    self.id_value_next = false;
                    self.capturing = true;
                    self.value = vec![b'"'];
                }
            }
            b'{' | b'[' => {
                self.depth = self.depth.saturating_add(1);
                self.expect_key = self.depth == 1 && b == b'{';
                self.id_value_next = false;
            }
            b'}' | b']' => self.depth = self.depth.saturating_sub(1),
            b',' if self.depth == 1 => {
                self.expect_key = true;
                self.key_is_id = false;
            }
            b':' if self.depth == 1 => {
                self.id_value_next = self.key_is_id;
                self.key_is_id = false;
            }
            b if b.is_ascii_whitespace() => {}
            _ if self.depth == 1 && self.id_value_next => {
                self.id_value_next = false;
                self.capturing = true;
                self.value = vec![b];
            }
            _ => {}
        }
    }

    fn finish_capture(&mut self) {
        self.capturing = false;
        self.found = Some(std::mem::take(&mut self.value));
    }

    /// The id found, if it is a valid JSON-RPC id (a number or a string).
    pub fn id(mut self) -> Option<RequestId> {
        if self.capturing {
            self.finish_capture();
        }
        let text = self.found?;
        serde_json::from_slice(&text).ok()
    }
}

fn push_capped(buf: &mut Vec<u8>, b: u8) {
    if buf.len() < MAX_ID_BYTES {
        buf.push(b);
    }
}

/// The id of one whole line.
pub fn id_of(line: &[u8]) -> Option<RequestId> {
    let mut scanner = IdScanner::default();
    scanner.feed(line);
    scanner.id()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(line: &str) -> Option<String> {
        id_of(line.as_bytes()).map(|id| id.to_string())
    }

    #[test]
    fn finds_the_top_level_id_wherever_it_is() {
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":7,"result":{}}"#).as_deref(),
            Some("7")
        );
        assert_eq!(
            id(r#"{"result":{"id":1,"x":[{"id":2}]}, "id" : "a\"b" }"#).as_deref(),
            Some("a\"b")
        );
        assert_eq!(id(r#"{"result":1e400,"id":3}"#).as_deref(), Some("3"));
        assert_eq!(id(r#"{"jsonrpc":"2.0","result":{}}"#), None);
        assert_eq!(id(r#"{"id":{"x":1}}"#), None);
        assert_eq!(id(r#"{"idx":4,"ids":5}"#), None);
    }

    #[test]
    fn survives_deep_nesting_and_invalid_utf8_in_chunks() {
        let mut line = b"{\"result\":".to_vec();
        line.extend(std::iter::repeat_n(b'[', 100_000));
        line.extend(std::iter::repeat_n(b']', 100_000));
        line.extend(b",\"bad\":\"\xff\xfe\",\"id\":12}");
        let mut scanner = IdScanner::default();
        for chunk in line.chunks(7) {
            scanner.feed(chunk);
        }
        assert_eq!(scanner.id().map(|i| i.to_string()).as_deref(), Some("12"));
    }
}
