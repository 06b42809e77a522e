//! Streaming line primitives: skip, take, take-until-pattern and tail, with O(line) memory.

use std::fs::File;
use std::io::{self, BufRead, Read, Seek, SeekFrom};

use regex::Regex;

/// How many leading bytes decide whether a file is binary (a NUL byte there), as git and ripgrep do.
const BINARY_SNIFF_BYTES: usize = 8 * 1024;
/// Chunk size for reading a file backwards in `tail`.
const TAIL_CHUNK: u64 = 64 * 1024;

/// Why a streamed read stopped.
#[derive(Debug)]
pub enum LineError {
    Io(io::Error),
    /// The text is not UTF-8; the 1-based line number when known.
    NotUtf8(Option<u64>),
}

impl From<io::Error> for LineError {
    fn from(e: io::Error) -> Self {
        LineError::Io(e)
    }
}

/// Turns a [`LineError`] into the message shown after `Error: `.
pub fn describe(
    error: LineError,
    not_text: &dyn Fn(u64) -> String,
    io_error: &dyn Fn(io::Error) -> String,
) -> String {
    match error {
        LineError::Io(e) => io_error(e),
        LineError::NotUtf8(line) => not_text(line.unwrap_or(0)),
    }
}

/// True when the first bytes contain a NUL. Leaves the reader where it was.
pub fn starts_binary<R: BufRead>(reader: &mut R) -> io::Result<bool> {
    let buffer = reader.fill_buf()?;
    let sniff = &buffer[..buffer.len().min(BINARY_SNIFF_BYTES)];
    Ok(memchr::memchr(0, sniff).is_some())
}

/// True when nothing is left to read.
pub fn at_eof<R: BufRead>(reader: &mut R) -> io::Result<bool> {
    Ok(reader.fill_buf()?.is_empty())
}

/// Skips up to `count` lines without decoding them. Returns how many were skipped; fewer than
/// `count` means the file ended first (a last line without `\n` counts as a line).
pub fn skip_lines<R: BufRead>(reader: &mut R, count: u64) -> io::Result<u64> {
    let mut skipped = 0;
    let mut in_partial_line = false;
    while skipped < count {
        let buffer = reader.fill_buf()?;
        if buffer.is_empty() {
            if in_partial_line {
                skipped += 1;
            }
            break;
        }
        let mut consumed = buffer.len();
        in_partial_line = true;
        for newline in memchr::memchr_iter(b'\n', buffer) {
            skipped += 1;
            if skipped == count {
                consumed = newline + 1;
                in_partial_line = false;
                break;
            }
        }
        if consumed == buffer.len() && buffer.last() == Some(&b'\n') {
            in_partial_line = false;
        }
        reader.consume(consumed);
    }
    Ok(skipped)
}

/// Reads one line (with its `\n`, if any) into `line`; returns false at end of file.
fn next_line<R: BufRead>(reader: &mut R, line: &mut Vec<u8>) -> io::Result<bool> {
    line.clear();
    Ok(reader.read_until(b'\n', line)? > 0)
}

/// Appends a raw line to `out`, decoded, with a CRLF ending turned into LF.
fn push_line(out: &mut String, raw: &[u8], line_no: u64) -> Result<(), LineError> {
    let text = std::str::from_utf8(raw).map_err(|_| LineError::NotUtf8(Some(line_no)))?;
    match text.strip_suffix("\r\n") {
        Some(body) => {
            out.push_str(body);
            out.push('\n');
        }
        None => out.push_str(text),
    }
    Ok(())
}

/// The text of a line without its ending.
fn line_body(raw: &[u8]) -> &[u8] {
    let raw = raw.strip_suffix(b"\n").unwrap_or(raw);
    raw.strip_suffix(b"\r").unwrap_or(raw)
}

/// Appends up to `count` lines to `out`. `first_line_no` numbers them for error messages.
pub fn take_lines<R: BufRead>(
    reader: &mut R,
    count: u64,
    out: &mut String,
    first_line_no: u64,
) -> Result<(), LineError> {
    let mut line = Vec::new();
    let mut taken = 0;
    while taken < count && next_line(reader, &mut line)? {
        push_line(out, &line, first_line_no + taken)?;
        taken += 1;
    }
    Ok(())
}

/// Appends the first line unconditionally, then lines until one matches `pattern` (excluded).
/// Returns whether a matching line was found.
pub fn take_until<R: BufRead>(
    reader: &mut R,
    pattern: &Regex,
    out: &mut String,
    first_line_no: u64,
) -> Result<bool, LineError> {
    let mut line = Vec::new();
    let mut line_no = first_line_no;
    while next_line(reader, &mut line)? {
        if line_no > first_line_no {
            let body = std::str::from_utf8(line_body(&line))
                .map_err(|_| LineError::NotUtf8(Some(line_no)))?;
            if pattern.is_match(body) {
                return Ok(true);
            }
        }
        push_line(out, &line, line_no)?;
        line_no += 1;
    }
    Ok(false)
}

/// The last `count` lines of a file, found by reading backwards from its end.
pub fn tail(file: &mut File, count: u64) -> Result<String, LineError> {
    let len = file.seek(SeekFrom::End(0))?;
    if count == 0 || len == 0 {
        return Ok(String::new());
    }
    // A final `\n` ends the last line; it does not start another one.
    let mut last = [0u8; 1];
    file.seek(SeekFrom::Start(len - 1))?;
    file.read_exact(&mut last)?;
    let scan_end = if last[0] == b'\n' { len - 1 } else { len };

    let mut start = 0;
    let mut found = 0;
    let mut pos = scan_end;
    let mut chunk = Vec::new();
    'scan: while pos > 0 {
        let size = TAIL_CHUNK.min(pos);
        pos -= size;
        chunk.resize(size as usize, 0);
        file.seek(SeekFrom::Start(pos))?;
        file.read_exact(&mut chunk)?;
        for newline in memchr::memrchr_iter(b'\n', &chunk) {
            found += 1;
            if found == count {
                start = pos + newline as u64 + 1;
                break 'scan;
            }
        }
    }
    file.seek(SeekFrom::Start(start))?;
    let mut bytes = Vec::with_capacity((len - start) as usize);
    file.read_to_end(&mut bytes)?;
    let text = String::from_utf8(bytes).map_err(|_| LineError::NotUtf8(None))?;
    Ok(strip_cr(&text))
}

/// Turns CRLF line endings into LF.
pub fn strip_cr(text: &str) -> String {
    if text.contains("\r\n") {
        text.replace("\r\n", "\n")
    } else {
        text.to_string()
    }
}
