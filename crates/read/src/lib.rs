//! `read_files`: several files in one call, each whole or in part, without loading large files.
//!
//! Each request picks one mode: the whole file, `head`, `tail`, a `start_line`/`end_line` range, or
//! `start_line` + `read_to_next_pattern` (from a line up to, not including, the next line matching a
//! regex). Partial reads stream: `head` and ranges stop reading at their last line, `tail` reads the
//! file backwards from its end. Whole-file reads are guarded by size, so a model is steered to a
//! partial read or a query instead of flooding its context.
//!
//! Line endings: `\n` ends a line; a `\r` before it is dropped from the output, so CRLF files read
//! like LF files and their lines are counted correctly. Output keeps every other byte as is.

mod lines;
mod messages;

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::Path;

use fs_mcp_sandbox::Sandbox;
use regex::Regex;

pub use messages::{format_size, group_thousands};

/// One file to read, with at most one mode. Integers come straight from the client, so they are
/// signed and validated here.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadRequest {
    pub path: String,
    pub head: Option<i64>,
    pub tail: Option<i64>,
    pub start_line: Option<i64>,
    pub end_line: Option<i64>,
    pub read_to_next_pattern: Option<String>,
}

/// Kind of structured file the large-file guard steers to a query tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StructuredKind {
    Json,
    Yaml,
}

/// Produces ready-to-use example queries for a large structured file (shown by the guard).
pub type ExampleQueries = fn(&Path, StructuredKind) -> Vec<String>;

/// Settings of a `read_files` call.
#[derive(Debug, Clone)]
pub struct ReadOptions {
    /// Skip the whole-file size guards.
    pub large_file_passthrough: bool,
    /// Whole JSON/YAML files above this size are refused in favour of `query_json`/`query_yaml`.
    pub structured_guard_bytes: u64,
    /// Any other whole file above this size is refused in favour of a partial read.
    pub text_guard_bytes: u64,
    /// Example queries for the structured guard; `None` shows generic ones.
    pub example_queries: Option<ExampleQueries>,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            large_file_passthrough: false,
            // About 20,000 tokens at 4 bytes per token.
            structured_guard_bytes: 80_000,
            // About 64,000 tokens.
            text_guard_bytes: 256 * 1024,
            example_queries: None,
        }
    }
}

/// Separator between the blocks of a multi-file answer.
pub const BLOCK_SEPARATOR: &str = "\n\n---\n\n";

/// Reads every request and renders the answer: one `File: {path}` block per request, in order.
/// A failing request yields an `Error: …` body in its block and never fails the others.
pub fn read_files(sandbox: &Sandbox, requests: &[ReadRequest], options: &ReadOptions) -> String {
    requests
        .iter()
        .map(|request| {
            let body = match read_one(sandbox, request, options) {
                Ok(text) => text,
                Err(message) => format!("Error: {message}"),
            };
            format!("File: {}\n{}", request.path, body)
        })
        .collect::<Vec<_>>()
        .join(BLOCK_SEPARATOR)
}

/// The mode a request asks for, after validation.
#[derive(Debug)]
enum Mode {
    Full,
    Head(u64),
    Tail(u64),
    Range { start: u64, end: Option<u64> },
    ToPattern { start: u64, pattern: Regex },
}

/// Reads one request; `Err` carries the message that follows `Error: `.
pub fn read_one(
    sandbox: &Sandbox,
    request: &ReadRequest,
    options: &ReadOptions,
) -> Result<String, String> {
    let resolved = sandbox.resolve(&request.path).map_err(|e| e.to_string())?;
    let mode = choose_mode(request)?;
    let meta = match std::fs::metadata(&resolved) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(messages::not_found(&request.path));
        }
        Err(e) => return Err(format!("Cannot read {}: {e}", request.path)),
    };
    if meta.is_dir() {
        return Err(messages::is_directory(&request.path));
    }
    if matches!(mode, Mode::Full) && !options.large_file_passthrough {
        messages::check_size_guards(&request.path, &resolved, meta.len(), options)?;
    }
    let file = File::open(&resolved).map_err(|e| format!("Cannot open {}: {e}", request.path))?;
    let io_error = |e: io::Error| format!("Cannot read {}: {e}", request.path);
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    if lines::starts_binary(&mut reader).map_err(io_error)? {
        return Err(messages::binary(&request.path));
    }
    let not_text = |line: u64| messages::not_utf8(&request.path, line);
    match mode {
        Mode::Full => {
            let mut bytes = Vec::with_capacity(meta.len() as usize);
            reader.read_to_end(&mut bytes).map_err(io_error)?;
            let text = String::from_utf8(bytes).map_err(|_| messages::binary(&request.path))?;
            Ok(lines::strip_cr(&text))
        }
        Mode::Head(count) => {
            let mut out = String::new();
            lines::take_lines(&mut reader, count, &mut out, 1)
                .map_err(|e| lines::describe(e, &not_text, &io_error))?;
            Ok(out)
        }
        Mode::Tail(count) => {
            drop(reader);
            let mut file =
                File::open(&resolved).map_err(|e| format!("Cannot open {}: {e}", request.path))?;
            lines::tail(&mut file, count).map_err(|e| lines::describe(e, &not_text, &io_error))
        }
        Mode::Range { start, end } => {
            let available = lines::skip_lines(&mut reader, start - 1).map_err(io_error)?;
            if available < start - 1 || lines::at_eof(&mut reader).map_err(io_error)? {
                let total = available;
                return Err(messages::invalid_start(&request.path, start, total));
            }
            let count = end.map_or(u64::MAX, |end| end - start + 1);
            let mut out = String::new();
            lines::take_lines(&mut reader, count, &mut out, start)
                .map_err(|e| lines::describe(e, &not_text, &io_error))?;
            Ok(out)
        }
        Mode::ToPattern { start, pattern } => {
            let available = lines::skip_lines(&mut reader, start - 1).map_err(io_error)?;
            if available < start - 1 || lines::at_eof(&mut reader).map_err(io_error)? {
                return Err(messages::invalid_start(&request.path, start, available));
            }
            let mut out = String::new();
            let found = lines::take_until(&mut reader, &pattern, &mut out, start)
                .map_err(|e| lines::describe(e, &not_text, &io_error))?;
            if found {
                Ok(out)
            } else {
                Ok(format!(
                    "{}\nNote: Pattern '{}' not found after line {start}. Read to end of file.\n",
                    out.trim_end(),
                    pattern.as_str()
                ))
            }
        }
    }
}

/// Validates the combination of mode parameters. `0` for `start_line`/`end_line` means "not given"
/// (models often fill unused integers with 0); negative values are errors.
fn choose_mode(request: &ReadRequest) -> Result<Mode, String> {
    let non_negative = |name: &str, value: Option<i64>| -> Result<Option<u64>, String> {
        match value {
            Some(v) if v < 0 => Err(messages::negative(name, v)),
            Some(v) => Ok(Some(v as u64)),
            None => Ok(None),
        }
    };
    let head = non_negative("head", request.head)?;
    let tail = non_negative("tail", request.tail)?;
    let start = non_negative("start_line", request.start_line)?.filter(|&v| v > 0);
    let end = non_negative("end_line", request.end_line)?.filter(|&v| v > 0);
    let pattern = request
        .read_to_next_pattern
        .as_deref()
        .filter(|p| !p.is_empty());

    if let (Some(end), Some(pattern)) = (end, pattern) {
        return Err(messages::end_line_with_pattern(end, pattern));
    }
    if pattern.is_some() && start.is_none() {
        return Err(messages::pattern_without_start(pattern.unwrap_or_default()));
    }
    if (head.is_some() || tail.is_some()) && (start.is_some() || end.is_some() || pattern.is_some())
    {
        return Err(messages::MIXED_MODES.to_string());
    }
    if let (Some(_), Some(_)) = (head, tail) {
        return Err(messages::HEAD_AND_TAIL.to_string());
    }
    if let Some(pattern) = pattern {
        let regex = Regex::new(pattern).map_err(|e| messages::bad_pattern(pattern, &e))?;
        return Ok(Mode::ToPattern {
            start: start.unwrap_or(1),
            pattern: regex,
        });
    }
    if let Some(n) = head {
        return Ok(Mode::Head(n));
    }
    if let Some(n) = tail {
        return Ok(Mode::Tail(n));
    }
    if start.is_some() || end.is_some() {
        let start = start.unwrap_or(1);
        if let Some(end) = end
            && end < start
        {
            return Err(messages::end_before_start(start, end));
        }
        return Ok(Mode::Range { start, end });
    }
    Ok(Mode::Full)
}

#[cfg(test)]
mod tests;
