//! Passing over JSON values without building them, several times faster than
//! hifijson's byte-at-a-time lexer: strings are scanned eight bytes at a time
//! and containers without recursion.
//!
//! [`Skipper::value`] accepts exactly the language of
//! `hifijson::ignore::parse` (the projected reader relied on it before): the
//! projected reader then gives up on exactly the same files, and the ordinary
//! reader still produces every error message.

/// The skipped text is not a value hifijson would accept.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Invalid;

/// Skips values; keeps its stack of open containers between calls.
#[derive(Default)]
pub(crate) struct Skipper {
    /// Whether each open container is an object (else an array).
    open: Vec<bool>,
    /// Whether the last refusal was for nesting deeper than [`MAX_JSON_DEPTH`]: that is
    /// final, whatever follows (reading more cannot make the value acceptable).
    pub(crate) too_deep: bool,
}

/// Bytes that end the plain run of a string: `"`, `\` and control characters.
const fn string_stops() -> [bool; 256] {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = true;
        b += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
}
const STRING_STOP: [bool; 256] = string_stops();

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Whether any of the eight bytes of `w` is `"`, `\` or below 0x20.
#[inline]
fn has_string_stop(w: u64) -> bool {
    let zero_byte = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    let quote = zero_byte(w ^ (ONES * u64::from(b'"')));
    let backslash = zero_byte(w ^ (ONES * u64::from(b'\\')));
    let control = w.wrapping_sub(ONES * 0x20) & !w & HIGHS;
    quote | backslash | control != 0
}

/// Whether any of the eight bytes of `w` is `"` or `\`.
#[inline]
fn has_quote_or_backslash(w: u64) -> bool {
    let zero_byte = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
    zero_byte(w ^ (ONES * u64::from(b'"'))) | zero_byte(w ^ (ONES * u64::from(b'\\'))) != 0
}

/// The index of the first `"` or `\\` at or after `i`, or a later index
/// past the end.
#[inline]
fn quote_or_backslash(bytes: &[u8], mut i: usize) -> usize {
    while let Some(chunk) = bytes.get(i..i + 8) {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        if has_quote_or_backslash(u64::from_le_bytes(word)) {
            break;
        }
        i += 8;
    }
    while bytes.get(i).is_some_and(|&b| b != b'"' && b != b'\\') {
        i += 1;
    }
    i
}

/// The end of the string whose body starts at `i` (just after the opening
/// quote): the index after the closing quote.
pub(crate) fn string_end(bytes: &[u8], mut i: usize) -> Result<usize, Invalid> {
    loop {
        while let Some(chunk) = bytes.get(i..i + 8) {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            if has_string_stop(u64::from_le_bytes(word)) {
                break;
            }
            i += 8;
        }
        while bytes.get(i).is_some_and(|&b| !STRING_STOP[usize::from(b)]) {
            i += 1;
        }
        match bytes.get(i) {
            Some(b'"') => return Ok(i + 1),
            Some(b'\\') => match bytes.get(i + 1) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 2,
                Some(b'u') => {
                    let hex = bytes.get(i + 2..i + 6).ok_or(Invalid)?;
                    if !hex.iter().all(u8::is_ascii_hexdigit) {
                        return Err(Invalid);
                    }
                    i += 6;
                }
                _ => return Err(Invalid),
            },
            // a control character, or the end of the input
            _ => return Err(Invalid),
        }
    }
}

/// jq refuses JSON nested deeper than this; so do we, before a recursive
/// parser could exhaust the stack.
pub(crate) const MAX_JSON_DEPTH: usize = 10_000;

/// How deeply a JSON text nests arrays and objects, fed in pieces (strings
/// are passed over, unchecked; the depth never goes below zero).
#[derive(Default)]
pub(crate) struct DepthScan {
    depth: usize,
    /// Inside a string, and whether the last byte fed was its `\`.
    in_string: bool,
    escaped: bool,
}

impl DepthScan {
    /// Scan the next piece: the offset in it of the first `[` or `{` that
    /// nests more than [`MAX_JSON_DEPTH`] levels, if one does.
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> Option<usize> {
        if bytes.is_empty() {
            return None;
        }
        let mut i = 0;
        if self.in_string {
            if self.escaped {
                i = 1;
                self.escaped = false;
            }
            i = self.string_rest(bytes, i)?;
        }
        while let Some(&b) = bytes.get(i) {
            match b {
                b'"' => {
                    self.in_string = true;
                    i = self.string_rest(bytes, i + 1)?;
                    continue;
                }
                b'[' | b'{' => {
                    self.depth += 1;
                    if self.depth > MAX_JSON_DEPTH {
                        return Some(i);
                    }
                }
                b']' | b'}' => self.depth = self.depth.saturating_sub(1),
                _ => {}
            }
            i += 1;
        }
        None
    }

    /// Pass over the rest of a string from `i`: the index after its closing
    /// quote, or `None` (still inside it) at the end of the piece.
    fn string_rest(&mut self, bytes: &[u8], mut i: usize) -> Option<usize> {
        loop {
            i = quote_or_backslash(bytes, i);
            match bytes.get(i) {
                None => return None,
                Some(b'"') => {
                    self.in_string = false;
                    return Some(i + 1);
                }
                // `\`: the next byte is escaped, perhaps in the next piece
                Some(_) if i + 1 == bytes.len() => {
                    self.escaped = true;
                    return None;
                }
                Some(_) => i += 2,
            }
        }
    }
}

/// The index of the first byte at or after `i` that is not JSON whitespace.
#[inline]
fn ws(bytes: &[u8], mut i: usize) -> usize {
    while matches!(bytes.get(i), Some(b' ' | b'\t' | b'\r' | b'\n')) {
        i += 1;
    }
    i
}

/// The end of the number starting at `i`, with hifijson's number grammar.
fn number_end(bytes: &[u8], i: usize) -> Result<usize, Invalid> {
    use hifijson::num::Lex as _;
    let rest = bytes.get(i..).ok_or(Invalid)?;
    let mut lexer = hifijson::SliceLexer::new(rest);
    lexer.num_ignore().validate().map_err(|_| Invalid)?;
    Ok(bytes.len() - lexer.as_slice().len())
}

impl Skipper {
    /// The end of the value that starts at `start` (its first byte, not
    /// whitespace), inside `depth` open arrays and objects: a value that
    /// nests them deeper than [`MAX_JSON_DEPTH`] in all is refused (and
    /// [`Skipper::too_deep`] set), so that a reader that skips or checks
    /// every value with this needs no separate depth scan.
    pub(crate) fn value(
        &mut self,
        bytes: &[u8],
        start: usize,
        depth: usize,
    ) -> Result<usize, Invalid> {
        self.open.clear();
        self.too_deep = false;
        let mut i = start;
        loop {
            // a value starts at `i`
            match bytes.get(i).copied().ok_or(Invalid)? {
                b'"' => i = string_end(bytes, i + 1)?,
                b'[' | b'{' if depth + self.open.len() >= MAX_JSON_DEPTH => {
                    self.too_deep = true;
                    return Err(Invalid);
                }
                b'[' => {
                    i = ws(bytes, i + 1);
                    if bytes.get(i) == Some(&b']') {
                        i += 1;
                    } else {
                        self.open.push(false);
                        continue;
                    }
                }
                b'{' => {
                    i = ws(bytes, i + 1);
                    if bytes.get(i) == Some(&b'}') {
                        i += 1;
                    } else {
                        self.open.push(true);
                        i = member_value(bytes, i)?;
                        continue;
                    }
                }
                b'n' => i = literal(bytes, i, b"null")?,
                b't' => i = literal(bytes, i, b"true")?,
                b'f' => i = literal(bytes, i, b"false")?,
                b'0'..=b'9' | b'-' => i = number_end(bytes, i)?,
                _ => return Err(Invalid),
            }
            // after a value: a comma, or the ends of containers
            loop {
                let Some(&object) = self.open.last() else {
                    return Ok(i);
                };
                i = ws(bytes, i);
                match bytes.get(i) {
                    Some(b',') => {
                        i = ws(bytes, i + 1);
                        if object {
                            i = member_value(bytes, i)?;
                        }
                        break;
                    }
                    Some(b']') if !object => {
                        self.open.pop();
                        i += 1;
                    }
                    Some(b'}') if object => {
                        self.open.pop();
                        i += 1;
                    }
                    _ => return Err(Invalid),
                }
            }
        }
    }
}

/// `"key": ` starting at `i`: the index of the member's value.
fn member_value(bytes: &[u8], i: usize) -> Result<usize, Invalid> {
    if bytes.get(i) != Some(&b'"') {
        return Err(Invalid);
    }
    let i = ws(bytes, string_end(bytes, i + 1)?);
    if bytes.get(i) != Some(&b':') {
        return Err(Invalid);
    }
    Ok(ws(bytes, i + 1))
}

fn literal(bytes: &[u8], i: usize, word: &[u8]) -> Result<usize, Invalid> {
    match bytes.get(i..i + word.len()) {
        Some(found) if found == word => Ok(i + word.len()),
        _ => Err(Invalid),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hifijson::token::Lex as _;

    /// What hifijson's ignore accepts, and where it stops.
    fn hifijson_end(text: &[u8]) -> Option<usize> {
        let mut lexer = hifijson::SliceLexer::new(text);
        let next = lexer.ws_peek()?;
        let start = text.len() - lexer.as_slice().len();
        hifijson::ignore::parse(next, &mut lexer).ok()?;
        Some(text.len() - lexer.as_slice().len()).filter(|_| start == 0)
    }

    fn ours(text: &[u8]) -> Option<usize> {
        Skipper::default().value(text, 0, 0).ok()
    }

    /// The depth the skipper refuses is the depth scan's, counting the
    /// containers the value starts in.
    #[test]
    fn refuses_what_the_depth_scan_refuses() {
        for (outer, inner) in [
            (0, MAX_JSON_DEPTH),
            (0, MAX_JSON_DEPTH + 1),
            (7, MAX_JSON_DEPTH - 7),
            (7, MAX_JSON_DEPTH - 6),
        ] {
            for body in [
                format!("{}{}", "[".repeat(inner), "]".repeat(inner)),
                format!("{}{{}}{}", "[".repeat(inner - 1), "]".repeat(inner - 1)),
                format!(
                    "{}1{}",
                    "[{\"k\": ".repeat(inner / 2),
                    "}]".repeat(inner / 2)
                ),
            ] {
                let whole = format!("{}{body}{}", "[".repeat(outer), "]".repeat(outer));
                let scan = DepthScan::default().feed(whole.as_bytes());
                let mut skipper = Skipper::default();
                let skipped = skipper.value(body.as_bytes(), 0, outer);
                assert_eq!(skipped.is_err(), scan.is_some(), "{outer} + {inner}");
                assert_eq!(skipper.too_deep, scan.is_some(), "{outer} + {inner}");
            }
        }
    }

    #[test]
    fn accepts_what_hifijson_accepts() {
        let cases: &[&[u8]] = &[
            br#"{"a": [1, 2.5e-3, -0, true, false, null, "x\"y\\u00e9\n"], "b": {}}"#,
            br#"[[], {}, [[[]]], {"k": {"k": []}}] trailing"#,
            br#""a long string without any escape at all, longer than eight bytes" 1"#,
            br#""tab	inside""#,
            b"\"ctl\x01\"",
            br#""bad \x escape""#,
            br#""\u12G4""#,
            br#""\u12""#,
            br#""unterminated"#,
            br#"[1,]"#,
            br#"[1 2]"#,
            br#"{"a" 1}"#,
            br#"{"a": 1,}"#,
            br#"{1: 2}"#,
            br#"{"a": 1]"#,
            br#"[1}"#,
            b"nul",
            b"nulls",
            b"tru",
            b"-",
            b"01",
            b"1.",
            b"1.5e",
            b"1e+5",
            b"-0.0e-0,",
            b"NaN",
            b"[1, # comment\n 2]",
            b"[  \t\r\n 1 \n]",
            b"{\"\xC3\xA9\xFF\": \"\xFF\"}",
            b"[",
            b"{",
            b"{\"a\":",
        ];
        for text in cases {
            assert_eq!(
                ours(text),
                hifijson_end(text),
                "{}",
                String::from_utf8_lossy(text)
            );
        }
    }

    #[test]
    fn every_prefix_and_byte_flip_agrees() {
        let text = br#"{"id": 12, "name": "item-000000012", "tags": ["a\"b", "\u0041"], "o": {"x": [true, null, -1.5E+2]}}"#;
        for end in 0..=text.len() {
            assert_eq!(
                ours(&text[..end]),
                hifijson_end(&text[..end]),
                "prefix {end}"
            );
        }
        for at in 0..text.len() {
            for flip in [b'"', b'\\', b',', b':', b'}', b']', b' ', 0x01, b'u'] {
                let mut t = text.to_vec();
                t[at] = flip;
                assert_eq!(
                    ours(&t),
                    hifijson_end(&t),
                    "{}",
                    String::from_utf8_lossy(&t)
                );
            }
        }
    }

    /// The depth scan finds the same place fed whole, in two pieces split
    /// anywhere, or a byte at a time (strings with escapes across pieces).
    #[test]
    fn depth_scan_in_pieces_agrees() {
        let deep = |n: usize| {
            let mut t = String::from(r#"{"s": "a \" [[[ \\", "k\\": ["#);
            t.push_str(&"[".repeat(n));
            t.push_str(r#""\"]]]""#);
            t
        };
        for n in [MAX_JSON_DEPTH - 3, MAX_JSON_DEPTH - 2, MAX_JSON_DEPTH + 5] {
            let text = deep(n);
            let bytes = text.as_bytes();
            let whole = DepthScan::default().feed(bytes);
            assert_eq!(whole.is_some(), n + 2 > MAX_JSON_DEPTH, "{n}");
            let pieces = |cuts: &[usize]| {
                let mut scan = DepthScan::default();
                let mut from = 0;
                for &cut in cuts.iter().chain([bytes.len()].iter()) {
                    if let Some(at) = scan.feed(&bytes[from..cut]) {
                        return Some(from + at);
                    }
                    from = cut;
                }
                None
            };
            for cut in (0..40).chain(bytes.len() - 40..bytes.len()) {
                assert_eq!(pieces(&[cut]), whole, "cut at {cut}");
            }
            let every: Vec<usize> = (1..bytes.len()).collect();
            assert_eq!(pieces(&every), whole, "byte by byte");
        }
    }

    #[test]
    fn string_stops_are_found_in_every_lane() {
        for lane in 0..16 {
            for stop in [b'"', b'\\', 0x00, 0x1F] {
                let mut body = vec![b'a'; 16];
                body[lane] = stop;
                body.push(b'"');
                let expected = match stop {
                    b'"' => Ok(lane + 1),
                    _ => Err(Invalid),
                };
                assert_eq!(string_end(&body, 0), expected, "lane {lane} byte {stop}");
            }
        }
    }
}
