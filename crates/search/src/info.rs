//! `get_file_info`: size, modification time, type, and for text files line count, token estimate,
//! chunking advice and a structure preview (JSON keys, CSV columns).
//!
//! Everything streams: lines are counted over 64 KiB chunks, the last line is read from the end
//! of the file, and JSON is parsed only under a size limit (10 MiB by default; above it the
//! answer points to `query_json`). A 1 GB log costs one sequential read and constant memory.
//!
//! ```text
//! Path: logs/app.log
//! Type: File
//! Size: 1.21 MB (1,268,736 bytes)
//! Modified: 2026-11-21T10:22:33Z
//!
//! --- Text File Analysis ---
//! Lines: 15,230
//! Estimated tokens: ~317,184 (bytes ÷ 4)
//!
//! --- Chunking Strategy ---
//! Large file: read it in parts, not whole.
//!   1. Sample the start: read_files(files=[{"path": "logs/app.log", "head": 50}])
//!   2. Then chunks of ~480 lines (~32 chunks), e.g.
//!      read_files(files=[{"path": "logs/app.log", "start_line": 1, "end_line": 480}])
//!      read_files(files=[{"path": "logs/app.log", "start_line": 481, "end_line": 960}])
//!   3. Or find the part you need first: grep_content(pattern="...", search_path="logs/app.log")
//! Estimated tokens per chunk: ~10,000
//! ```

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use fs_mcp_sandbox::{DirHandle, EntryKind, Sandbox};
use serde::Serialize;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::SearchError;
use crate::format::{format_size, format_utc, plural, thousands};
use crate::walk;
use fs_mcp_text::{Keep, Marker, truncate};

/// Thresholds of `get_file_info`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InfoOptions {
    /// Above this many estimated tokens a file gets chunking advice.
    pub large_file_tokens: u64,
    /// Target size of one chunk in the advice.
    pub chunk_tokens: u64,
    /// JSON files up to this size get a structure preview.
    pub json_preview_max_bytes: u64,
    /// The tools the advice may point to, as the caller names them; advice for a tool that is
    /// `None` (not listed) is left out.
    pub next_tools: NextTools,
}

/// The tools `get_file_info`'s advice points to, by what they do; the caller names them (or
/// leaves out the ones the model cannot call).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NextTools {
    /// Reads text files whole or in part; called as `{read}(files=[{"path": …, "head": 50}])`.
    pub read: Option<String>,
    /// Searches file contents by regex; called as `{grep}(pattern="...", search_path=…)`.
    pub grep: Option<String>,
    /// Reads images and audio.
    pub media: Option<String>,
    /// Runs jq on a JSON file; called with `file_path` and `jq_expression`.
    pub json_query: Option<String>,
    /// Runs jq on a YAML file.
    pub yaml_query: Option<String>,
}

impl Default for InfoOptions {
    fn default() -> Self {
        InfoOptions {
            large_file_tokens: 20_000,
            chunk_tokens: 10_000,
            json_preview_max_bytes: 10 * 1024 * 1024,
            next_tools: NextTools::default(),
        }
    }
}

const CHUNK: usize = 64 * 1024;
const PREVIEW_CHARS: usize = 100;
const LIST_KEYS: usize = 10;
const LIST_COLUMNS: usize = 20;

/// Files up to this size are counted line by line; larger ones are sampled (head and tail), so
/// the answer costs the same on a 100 MB file and a 50 GB one.
pub const FULL_SCAN_MAX_BYTES: u64 = 64 << 20;
/// Bytes read from each end of a sampled file.
const SAMPLE_BYTES: u64 = 1 << 20;

/// Describes a file or directory. Only a regular file is opened (by handle); a FIFO, socket or
/// device is described from its metadata, never opened or read.
pub fn get_file_info(
    sandbox: &Sandbox,
    path: &str,
    options: &InfoOptions,
) -> Result<String, SearchError> {
    file_info(sandbox, path, options).map(|info| info.to_text())
}

/// What [`get_file_info`] learns about one path, as data: the facts a client gets as structured
/// content, and the analysis sections its text adds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileInfo {
    /// The path, as displayed.
    pub path: String,
    /// `"file"`, `"directory"` or `"other"` (a FIFO, socket or device: its content is not read).
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// A file's size in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// The modification time, UTC, RFC 3339.
    pub modified: String,
    /// A text file's lines (estimated from samples on a huge file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<u64>,
    /// What the text says after the facts, one line each: what another entry is, a directory's
    /// entries, a file's analysis and how to read it.
    #[serde(serialize_with = "joined_lines", skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<String>,
}

impl FileInfo {
    /// `Path:`, `Type:`, `Size:`, `Modified:` lines, then the analysis.
    pub fn to_text(&self) -> String {
        let mut out = vec![format!("Path: {}", self.path)];
        let mut details = self.details.iter();
        // The type line of a file or directory is the kind; another entry's says what it is.
        match self.kind {
            "file" => out.push("Type: File".into()),
            "directory" => out.push("Type: Directory".into()),
            _ => out.extend(details.next().cloned()),
        }
        if let Some(size) = self.size {
            out.push(format!(
                "Size: {} ({} bytes)",
                format_size(size),
                thousands(size)
            ));
        }
        out.push(format!("Modified: {}", self.modified));
        out.extend(details.cloned());
        out.join("\n")
    }
}

/// The details as one text, as structured content carries them.
fn joined_lines<S: serde::Serializer>(lines: &[String], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(lines.join("\n").trim())
}

/// [`get_file_info`] as data.
pub fn file_info(
    sandbox: &Sandbox,
    path: &str,
    options: &InfoOptions,
) -> Result<FileInfo, SearchError> {
    let (resolved, meta) = walk::resolve_existing(sandbox, path)?;
    let shown = sandbox.display(&resolved);
    let mut info = FileInfo {
        path: shown.clone(),
        kind: "other",
        size: None,
        modified: format_utc(meta.modified),
        lines: None,
        details: Vec::new(),
    };
    if meta.kind == EntryKind::Dir {
        let dir = sandbox.open_dir(path)?;
        info.kind = "directory";
        info.details.push(directory_summary(&dir));
        return Ok(info);
    }
    if meta.kind != EntryKind::File {
        info.details.push(format!(
            "Type: Other ({}; its content is not read)",
            meta.kind.described()
        ));
        return Ok(info);
    }
    let opened = sandbox.open_file(path)?;
    let size = opened.meta.len;
    info.kind = "file";
    info.size = Some(size);
    info.modified = format_utc(opened.meta.modified);
    match analyze(opened.file, &resolved, &shown, size, options) {
        Ok((sections, lines)) => {
            info.lines = lines;
            for s in sections {
                info.details.push(String::new());
                info.details.push(s);
            }
        }
        Err(e) => info.details.push(format!(
            "\nWarning: could not analyze the content: {}",
            crate::error::describe_io(&e)
        )),
    }
    Ok(info)
}

/// Files one [`get_files_info`] call describes; a note names where the rest start.
pub const MAX_INFO_PATHS: usize = 20;

/// Several files' answers, and whether every one of them failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InfoBatch {
    /// Each file's answer (as [`get_file_info`] gives it, an error in place of a failed one),
    /// separated by a blank line; each starts with its `Path:` line.
    pub text: String,
    /// Each described file's facts, or its error, in the order asked.
    pub files: Vec<InfoItem>,
    /// True when no file could be described (the call as a whole is an error).
    pub all_failed: bool,
}

/// One path of an [`InfoBatch`]: its facts, or why it could not be described.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum InfoItem {
    /// The facts.
    Described(FileInfo),
    /// The path as asked, and the error.
    Failed {
        /// The requested path, as given.
        path: String,
        /// The error, as the text says it.
        error: String,
    },
}

/// Describes each of `paths` on its own, so one failure does not fail the others: at most
/// [`MAX_INFO_PATHS`] of them, with a note on the rest. A failed file's block is its `Path:`
/// line and `render_error`'s text (the caller's error format).
pub fn get_files_info(
    sandbox: &Sandbox,
    paths: &[String],
    options: &InfoOptions,
    render_error: &dyn Fn(&SearchError) -> String,
) -> InfoBatch {
    let mut blocks = Vec::with_capacity(paths.len().min(MAX_INFO_PATHS) + 1);
    let mut files = Vec::with_capacity(paths.len().min(MAX_INFO_PATHS));
    let mut failed = 0;
    for path in paths.iter().take(MAX_INFO_PATHS) {
        match file_info(sandbox, path, options) {
            Ok(info) => {
                blocks.push(info.to_text());
                files.push(InfoItem::Described(info));
            }
            Err(e) => {
                failed += 1;
                // The requested path, as given: the error may not have got as far as a file.
                let shown = fs_mcp_sandbox::escape_os(std::ffi::OsStr::new(path));
                let error = render_error(&e);
                blocks.push(format!("Path: {shown}\n{error}"));
                files.push(InfoItem::Failed {
                    path: shown.into_owned(),
                    error,
                });
            }
        }
    }
    if let Some(next) = paths.get(MAX_INFO_PATHS) {
        let next = serde_json::to_string(next).unwrap_or_default();
        blocks.push(format!(
            "Note: {} more paths not described ({MAX_INFO_PATHS} per call): call again with the rest, from {next} on.",
            thousands((paths.len() - MAX_INFO_PATHS) as u64)
        ));
    }
    InfoBatch {
        text: blocks.join("\n\n"),
        files,
        all_failed: failed > 0 && failed == paths.len().min(MAX_INFO_PATHS),
    }
}

fn directory_summary(dir: &DirHandle) -> String {
    let Ok(entries) = dir.entries() else {
        return "Entries: unreadable (permission denied?)".into();
    };
    let dirs = entries.iter().filter(|e| e.kind == EntryKind::Dir).count() as u64;
    let files = entries.len() as u64 - dirs;
    format!(
        "Entries: {} ({}, {})",
        thousands(dirs + files),
        plural(dirs, "directory", "directories"),
        plural(files, "file", "files")
    )
}

/// What one streaming pass (or, for a huge file, a sample of both ends) learns about a file.
struct Scan {
    newlines: u64,
    last_byte: Option<u8>,
    /// The first bytes (up to one chunk).
    head: Vec<u8>,
    /// Bytes the newlines were counted in: the whole file, or the two samples.
    counted_bytes: u64,
    /// Only samples were read: line counts are estimates.
    sampled: bool,
}

impl Scan {
    /// Lines in the file: counted, or extrapolated from the samples' newline density.
    fn lines(&self, size: u64) -> u64 {
        if self.sampled {
            let per_byte = self.newlines as f64 / self.counted_bytes.max(1) as f64;
            return ((size as f64 * per_byte).round() as u64).max(1);
        }
        self.newlines + u64::from(self.last_byte.is_some_and(|b| b != b'\n'))
    }
}

fn count_chunks(file: &mut File, limit: u64, scan: &mut Scan) -> std::io::Result<()> {
    let mut buf = vec![0u8; CHUNK];
    let mut left = limit;
    while left > 0 {
        let want = (left as usize).min(CHUNK);
        let n = match file.read(&mut buf[..want]) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let chunk = &buf[..n];
        if scan.head.len() < CHUNK {
            let take = (CHUNK - scan.head.len()).min(n);
            scan.head.extend_from_slice(&chunk[..take]);
        }
        scan.newlines += memchr::memchr_iter(b'\n', chunk).count() as u64;
        scan.last_byte = chunk.last().copied();
        scan.counted_bytes += n as u64;
        left -= n as u64;
    }
    Ok(())
}

fn scan(file: &mut File, size: u64) -> std::io::Result<Scan> {
    let mut scan = Scan {
        newlines: 0,
        last_byte: None,
        head: Vec::new(),
        counted_bytes: 0,
        sampled: size > FULL_SCAN_MAX_BYTES,
    };
    if !scan.sampled {
        count_chunks(file, u64::MAX, &mut scan)?;
        return Ok(scan);
    }
    count_chunks(file, SAMPLE_BYTES, &mut scan)?;
    file.seek(SeekFrom::Start(size - SAMPLE_BYTES))?;
    count_chunks(file, SAMPLE_BYTES, &mut scan)?;
    Ok(scan)
}

/// A note when the start of a (non-binary) file is not UTF-8, so the model knows before it reads
/// that `read_files` and the edit tools will refuse it. Only the sniff window is checked, as
/// before, to keep this call fast on large files.
fn encoding_note(head: &[u8], size: u64) -> Option<String> {
    let sample = &head[..head.len().min(fs_mcp_text::SNIFF_BYTES)];
    let complete = sample.len() as u64 >= size;
    match fs_mcp_text::as_text(sample, complete) {
        Err(fs_mcp_text::NotText::InvalidUtf8 { valid_up_to }) => Some(format!(
            "\nEncoding: not UTF-8 text (first invalid byte at offset {valid_up_to}); reading and editing it as text needs UTF-8."
        )),
        _ => None,
    }
}

fn analyze(
    mut file: File,
    path: &Path,
    shown: &str,
    size: u64,
    options: &InfoOptions,
) -> std::io::Result<(Vec<String>, Option<u64>)> {
    let scan = scan(&mut file, size)?;
    if fs_mcp_text::is_binary(&scan.head) {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mime = fs_mcp_text::mime_from_extension(&name)
            .or_else(|| fs_mcp_text::sniff_mime(&scan.head))
            .unwrap_or("application/octet-stream");
        let mut section =
            format!("--- Binary File ---\nMIME Type: {mime}\nNote: this is not a text file");
        match &options.next_tools.media {
            Some(media) => section.push_str(&format!("; use {media} for images and audio.")),
            None => section.push('.'),
        }
        return Ok((vec![section], None));
    }
    let lines = scan.lines(size);
    let tokens = size / 4;
    let lines_shown = if scan.sampled {
        format!(
            "~{} (estimated from the first and last {}; the file is too large to count every line quickly)",
            thousands(lines),
            format_size(SAMPLE_BYTES)
        )
    } else {
        thousands(lines)
    };
    let mut sections = vec![format!(
        "--- Text File Analysis ---\nLines: {lines_shown}\nEstimated tokens: ~{} (bytes ÷ 4){}",
        thousands(tokens),
        encoding_note(&scan.head, size).unwrap_or_default()
    )];
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    sections.push(chunking(shown, lines, tokens, &ext, options));
    let preview = match ext.as_str() {
        "json" => Some(json_preview(&mut file, shown, size, options)),
        "jsonl" | "ndjson" => Some(jsonl_preview(&scan.head, lines)),
        "csv" => Some(csv_preview(&scan.head, lines, b',')),
        "tsv" => Some(csv_preview(&scan.head, lines, b'\t')),
        _ => text_preview(&mut file, &scan.head, size)?,
    };
    sections.extend(preview);
    Ok((sections, Some(lines)))
}

fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
}

fn chunking(shown: &str, lines: u64, tokens: u64, ext: &str, options: &InfoOptions) -> String {
    let p = quoted(shown);
    let tools = &options.next_tools;
    // The read as a call of the read tool, or as its item when no read tool is named.
    let read = |args: String| match &tools.read {
        Some(read) => format!("{read}(files=[{{\"path\": {p}{args}}}])"),
        None => format!("{{\"path\": {p}{args}}}"),
    };
    if tokens <= options.large_file_tokens {
        return format!(
            "--- Chunking Strategy ---\nSmall enough to read in one call: {}",
            read(String::new())
        );
    }
    let per_line = tokens as f64 / lines.max(1) as f64;
    let rec = ((options.chunk_tokens as f64 / per_line.max(f64::MIN_POSITIVE)) as u64).max(100);
    let chunks = lines.div_ceil(rec).max(1);
    let mut s = format!(
        "--- Chunking Strategy ---\nLarge file: read it in parts, not whole.\n  1. Sample the start: {}\n  2. Then chunks of ~{} lines (~{} chunks), e.g.\n     {}\n     {}",
        read(", \"head\": 50".to_string()),
        thousands(rec),
        thousands(chunks),
        read(format!(", \"start_line\": 1, \"end_line\": {rec}")),
        read(format!(
            ", \"start_line\": {}, \"end_line\": {}",
            rec + 1,
            rec * 2
        )),
    );
    if let Some(grep) = &tools.grep {
        s.push_str(&format!(
            "\n  3. Or find the part you need first: {grep}(pattern=\"...\", search_path={p})"
        ));
    }
    let query = match ext {
        "json" => tools.json_query.as_ref(),
        "yaml" | "yml" => tools.yaml_query.as_ref(),
        _ => None,
    };
    if let Some(tool) = query {
        s.push_str(&format!(
            "\n  Structured data: query it instead, e.g. {tool} with the expression 'keys'."
        ));
    }
    if lines <= 1 {
        s.push_str(
            "\n  Note: the file is one long line (minified?); line ranges will not split it.",
        );
    }
    s.push_str(&format!(
        "\nEstimated tokens per chunk: ~{}",
        thousands((rec as f64 * per_line) as u64)
    ));
    s
}

/// A JSON value whose objects keep their keys in the file's order: serde_json's `Value` sorts
/// them (its `preserve_order` feature would change the order for every crate of the build).
enum Value {
    Null,
    Bool,
    Number,
    String,
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
}

impl Value {
    fn keys(entries: &[(String, Value)]) -> impl Iterator<Item = &String> {
        entries.iter().map(|(k, _)| k)
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Value, E> {
        Ok(Value::Bool)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Value, E> {
        Ok(Value::Number)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Value, E> {
        Ok(Value::Number)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Value, E> {
        Ok(Value::Number)
    }
    fn visit_str<E>(self, _: &str) -> Result<Value, E> {
        Ok(Value::String)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, Value>()? {
            entries.push((key, value));
        }
        // serde_json's arbitrary-precision numbers arrive as this one-key map.
        if let [(key, _)] = entries.as_slice()
            && key == "$serde_json::private::Number"
        {
            return Ok(Value::Number);
        }
        Ok(Value::Object(entries))
    }
}

fn type_name(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool => "boolean".into(),
        Value::Number => "number".into(),
        Value::String => "string".into(),
        Value::Array(a) => format!("array with {} items", thousands(a.len() as u64)),
        Value::Object(o) => format!("object with {} keys", thousands(o.len() as u64)),
    }
}

fn key_list<'a>(keys: impl Iterator<Item = &'a String>, total: usize, limit: usize) -> String {
    // A key with a newline would start a line of its own, which could pass for the server's.
    let mut s = keys
        .take(limit)
        .map(|k| fs_mcp_sandbox::escape_os(std::ffi::OsStr::new(k)))
        .collect::<Vec<_>>()
        .join(", ");
    if total > limit {
        s.push_str(&format!(", … ({} more)", thousands((total - limit) as u64)));
    }
    s
}

fn json_preview(file: &mut File, shown: &str, size: u64, options: &InfoOptions) -> String {
    let mut s = String::from("--- JSON Structure Preview ---\n");
    if size > options.json_preview_max_bytes {
        s.push_str(&format!(
            "Too large to preview ({} > {}).",
            format_size(size),
            format_size(options.json_preview_max_bytes),
        ));
        if let Some(tool) = &options.next_tools.json_query {
            s.push_str(&format!(
                " Explore it with {tool}, e.g. file_path={} and jq_expression 'keys' or 'length'.",
                quoted(shown)
            ));
        }
        return s;
    }
    if file.seek(SeekFrom::Start(0)).is_err() {
        s.push_str("Could not re-read the file.");
        return s;
    }
    let value: Value = match serde_json::from_reader(BufReader::new(file)) {
        Ok(v) => v,
        Err(e) => {
            s.push_str(&format!("Invalid JSON: {e}"));
            return s;
        }
    };
    match &value {
        Value::Object(map) => {
            s.push_str(&format!(
                "Type: JSON Object\nTop-level keys ({}): {}",
                thousands(map.len() as u64),
                key_list(Value::keys(map), map.len(), LIST_KEYS)
            ));
            for (k, v) in map.iter().take(LIST_KEYS) {
                s.push_str(&format!("\n  - {}: {}", quoted(k), type_name(v)));
            }
        }
        Value::Array(items) => {
            s.push_str(&format!(
                "Type: JSON Array\nTotal items: {}",
                thousands(items.len() as u64)
            ));
            match items.first() {
                Some(Value::Object(first)) => s.push_str(&format!(
                    "\nFirst item keys ({}): {}",
                    first.len(),
                    key_list(Value::keys(first), first.len(), LIST_KEYS)
                )),
                Some(other) => s.push_str(&format!("\nFirst item: {}", type_name(other))),
                None => {}
            }
        }
        other => s.push_str(&format!("Type: JSON {}", type_name(other))),
    }
    s
}

fn first_line(head: &[u8]) -> &[u8] {
    let end = memchr::memchr(b'\n', head).unwrap_or(head.len());
    crate::format::strip_terminator(&head[..end])
}

fn jsonl_preview(head: &[u8], lines: u64) -> String {
    let mut s = format!(
        "--- JSON Lines Preview ---\nRecords (lines): {}",
        thousands(lines)
    );
    let first = head
        .split(|&b| b == b'\n')
        .find(|l| !l.iter().all(u8::is_ascii_whitespace));
    if let Some(line) = first {
        match serde_json::from_slice::<Value>(line) {
            Ok(Value::Object(map)) => s.push_str(&format!(
                "\nFirst record keys ({}): {}",
                map.len(),
                key_list(Value::keys(&map), map.len(), LIST_KEYS)
            )),
            Ok(other) => s.push_str(&format!("\nFirst record: {}", type_name(&other))),
            Err(_) => s.push_str("\nFirst record: not valid JSON (or longer than 64 KiB)"),
        }
    }
    s
}

/// Splits one CSV line on `delim`, honouring double quotes (`""` inside quotes is a quote).
fn split_csv(line: &str, delim: char) -> Vec<String> {
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut in_quotes = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if in_quotes && chars.peek() == Some(&'"') => {
                cell.push('"');
                chars.next();
            }
            '"' => in_quotes = !in_quotes,
            c if c == delim && !in_quotes => {
                cells.push(std::mem::take(&mut cell).trim().to_string())
            }
            c => cell.push(c),
        }
    }
    cells.push(cell.trim().to_string());
    cells
}

fn csv_preview(head: &[u8], lines: u64, delim: u8) -> String {
    let header = String::from_utf8_lossy(first_line(head));
    let header = header.trim_start_matches('\u{feff}');
    let columns = split_csv(header, delim as char);
    let mut s = format!(
        "--- CSV Structure ---\nColumns ({}): {}",
        columns.len(),
        columns
            .iter()
            .take(LIST_COLUMNS)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ")
    );
    if columns.len() > LIST_COLUMNS {
        s.push_str(&format!(", … ({} more)", columns.len() - LIST_COLUMNS));
    }
    s.push_str(&format!(
        "\nRows: {} (lines after the header; quoted multi-line cells would make it fewer)",
        thousands(lines.saturating_sub(1))
    ));
    s
}

/// First and last non-empty line of a text file; the last one is read from the file's end.
fn text_preview(file: &mut File, head: &[u8], size: u64) -> std::io::Result<Option<String>> {
    if size == 0 {
        return Ok(Some("--- Content Preview ---\n(empty file)".into()));
    }
    let first = String::from_utf8_lossy(first_line(head)).into_owned();
    let tail_len = size.min(4096);
    file.seek(SeekFrom::Start(size - tail_len))?;
    let mut tail = Vec::with_capacity(tail_len as usize);
    file.take(tail_len).read_to_end(&mut tail)?;
    let tail = String::from_utf8_lossy(&tail);
    let last = tail
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim_end_matches('\r');
    Ok(Some(format!(
        "--- Content Preview ---\nFirst line: {}\nLast line: {}",
        truncate(&first, Keep::Chars(PREVIEW_CHARS), Marker::CountOfRest),
        truncate(last, Keep::Chars(PREVIEW_CHARS), Marker::CountOfRest)
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::Fixture;

    fn info(fx: &Fixture, path: &str) -> String {
        get_file_info(&fx.sandbox, path, &named()).unwrap()
    }

    /// Options whose advice names every tool, as a caller that lists them all would.
    fn named() -> InfoOptions {
        InfoOptions {
            next_tools: NextTools {
                read: Some("read_files".into()),
                grep: Some("grep_content".into()),
                media: Some("read_media_file".into()),
                json_query: Some("query_json".into()),
                yaml_query: Some("query_yaml".into()),
            },
            ..InfoOptions::default()
        }
    }

    #[test]
    fn advice_names_only_the_tools_given() {
        let fx = Fixture::new();
        let line = "x".repeat(79) + "\n";
        fx.write("logs/big.log", line.repeat(5_000));
        fx.write("big.json", format!("[{}1]", "1,".repeat(60_000)));
        fx.write("bin.dat", b"\x89PNG\x00\x01");
        for path in ["logs/big.log", "big.json", "bin.dat"] {
            let out = get_file_info(&fx.sandbox, path, &InfoOptions::default()).unwrap();
            for tool in [
                "read_files",
                "grep_content",
                "read_media_file",
                "query_json",
            ] {
                assert!(!out.contains(tool), "{path} names {tool}: {out}");
            }
        }
        let out = get_file_info(&fx.sandbox, "logs/big.log", &InfoOptions::default()).unwrap();
        assert!(
            out.contains("1. Sample the start: {\"path\": \"logs/big.log\", \"head\": 50}\n"),
            "{out}"
        );
    }

    #[test]
    fn the_facts_are_the_data_the_text_is_rendered_from() {
        let fx = Fixture::new();
        fx.write("a.txt", "one\ntwo\n");
        fx.mkdir("d");
        let file = file_info(&fx.sandbox, "a.txt", &named()).unwrap();
        assert_eq!(
            (file.kind, file.size, file.lines),
            ("file", Some(8), Some(2))
        );
        assert_eq!(file.to_text(), info(&fx, "a.txt"));
        let value = serde_json::to_value(&file).unwrap();
        let details = value["details"].as_str().unwrap();
        assert!(
            details.starts_with("--- Text File Analysis ---"),
            "{details}"
        );
        assert!(file.to_text().ends_with(details));
        let dir = file_info(&fx.sandbox, "d", &named()).unwrap();
        assert_eq!((dir.kind, dir.size, dir.lines), ("directory", None, None));
        assert_eq!(dir.to_text(), info(&fx, "d"));
        let batch = get_files_info(
            &fx.sandbox,
            &["a.txt".into(), "nope".into()],
            &InfoOptions::default(),
            &|e| format!("Failed: {e}"),
        );
        assert!(matches!(&batch.files[0], InfoItem::Described(f) if f.path == "a.txt"));
        assert!(matches!(
            &batch.files[1],
            InfoItem::Failed { path, error } if path == "nope" && error.starts_with("Failed: ")
        ));
    }

    #[test]
    fn small_text_file() {
        let fx = Fixture::new();
        fx.write("notes/a.txt", "first\nmiddle\nlast\n");
        let out = info(&fx, "notes/a.txt");
        assert!(
            out.starts_with("Path: notes/a.txt\nType: File\nSize: 18.00 B (18 bytes)\nModified: "),
            "{out}"
        );
        assert!(
            out.contains("Lines: 3\nEstimated tokens: ~4 (bytes ÷ 4)"),
            "{out}"
        );
        assert!(
            out.contains(
                "Small enough to read in one call: read_files(files=[{\"path\": \"notes/a.txt\"}])"
            ),
            "{out}"
        );
        assert!(out.contains("First line: first\nLast line: last"), "{out}");
        fx.write("b.txt", "no newline");
        assert!(info(&fx, "b.txt").contains("Lines: 1\n"));
        fx.write("empty.txt", "");
        assert!(info(&fx, "empty.txt").contains("Lines: 0\n"));
    }

    #[test]
    fn large_file_gets_chunking_advice_with_full_path() {
        let fx = Fixture::new();
        let line = "x".repeat(79) + "\n";
        fx.write("logs/big.log", line.repeat(5_000)); // 400 KB, 100,000 tokens, 20 tokens/line
        let out = info(&fx, "logs/big.log");
        assert!(
            out.contains("Lines: 5,000\nEstimated tokens: ~100,000"),
            "{out}"
        );
        assert!(
            out.contains("read_files(files=[{\"path\": \"logs/big.log\", \"head\": 50}])"),
            "{out}"
        );
        assert!(out.contains("chunks of ~500 lines (~10 chunks)"), "{out}");
        assert!(
            out.contains("\"start_line\": 501, \"end_line\": 1000"),
            "{out}"
        );
        assert!(out.contains("search_path=\"logs/big.log\""), "{out}");
        assert!(out.contains("Last line: xxxx"), "{out}");
    }

    #[test]
    fn json_previews() {
        let fx = Fixture::new();
        fx.write(
            "o.json",
            r#"{"name": "x", "items": [1, 2], "meta": {"a": 1}, "n": null}"#,
        );
        let out = info(&fx, "o.json");
        assert!(
            out.contains("Type: JSON Object\nTop-level keys (4): name, items, meta, n\n  - \"name\": string\n  - \"items\""),
            "{out}"
        );
        assert!(out.contains("  - \"items\": array with 2 items"), "{out}");
        assert!(out.contains("  - \"meta\": object with 1 keys"), "{out}");
        fx.write("a.json", r#"[{"id": 1, "b": 2}, {"id": 2}]"#);
        let out = info(&fx, "a.json");
        assert!(
            out.contains("Type: JSON Array\nTotal items: 2\nFirst item keys (2): "),
            "{out}"
        );
        fx.write("bad.json", "{oops");
        assert!(info(&fx, "bad.json").contains("Invalid JSON: "));
        let opts = InfoOptions {
            json_preview_max_bytes: 10,
            ..named()
        };
        let out = get_file_info(&fx.sandbox, "o.json", &opts).unwrap();
        assert!(
            out.contains("Too large to preview") && out.contains("query_json"),
            "{out}"
        );
        fx.write("r.jsonl", "{\"a\":1,\"b\":2}\n{\"a\":3}\n");
        let out = info(&fx, "r.jsonl");
        assert!(
            out.contains("Records (lines): 2\nFirst record keys (2): a, b"),
            "{out}"
        );
    }

    #[test]
    fn several_files_are_answered_each_on_its_own() {
        let fx = Fixture::new();
        fx.write("a.txt", "one\n");
        fx.write("b.txt", "two\nthree\n");
        let paths: Vec<String> = ["a.txt", "missing.txt", "b.txt"].map(String::from).into();
        let render = |e: &SearchError| format!("Failed: {e}");
        let batch = get_files_info(&fx.sandbox, &paths, &InfoOptions::default(), &render);
        assert!(!batch.all_failed, "{}", batch.text);
        let blocks: Vec<&str> = batch.text.split("\n\nPath: ").collect();
        assert_eq!(blocks.len(), 3, "{}", batch.text);
        assert!(blocks[0].starts_with("Path: a.txt\n") && blocks[0].contains("Lines: 1"));
        assert!(
            blocks[1].starts_with("missing.txt\nFailed: ") && blocks[1].contains("does not exist"),
            "{}",
            blocks[1]
        );
        assert!(blocks[2].starts_with("b.txt\n") && blocks[2].contains("Lines: 2"));
        let none: Vec<String> = vec!["x".into(), "../y".into()];
        assert!(get_files_info(&fx.sandbox, &none, &InfoOptions::default(), &render).all_failed);
    }

    #[test]
    fn a_batch_is_capped_with_a_note_on_the_rest() {
        let fx = Fixture::new();
        let paths: Vec<String> = (0..MAX_INFO_PATHS + 3)
            .map(|i| format!("f{i}.txt"))
            .collect();
        for p in &paths {
            fx.write(p, "x\n");
        }
        let batch = get_files_info(&fx.sandbox, &paths, &InfoOptions::default(), &|e| {
            e.to_string()
        });
        assert_eq!(batch.text.matches("Path: ").count(), MAX_INFO_PATHS);
        assert!(
            batch.text.ends_with(&format!(
                "Note: 3 more paths not described ({MAX_INFO_PATHS} per call): call again with the rest, from \"f{MAX_INFO_PATHS}.txt\" on."
            )),
            "{}",
            batch.text
        );
    }

    #[test]
    fn a_json_key_cannot_start_a_line() {
        let fx = Fixture::new();
        fx.write("k.json", r#"{"a\nPath: forged": 1}"#);
        let out = info(&fx, "k.json");
        assert!(!out.contains("\nPath: forged"), "{out}");
        assert!(out.contains("a\\nPath: forged"), "{out}");
    }

    #[test]
    fn csv_preview_counts_rows_and_columns() {
        let fx = Fixture::new();
        fx.write("t.csv", "id, \"name, full\",age\n1,a,2\n2,b,3\n");
        let out = info(&fx, "t.csv");
        assert!(
            out.contains("Columns (3): id, name, full, age\nRows: 2 ("),
            "{out}"
        );
        fx.write("t.tsv", "a\tb\n1\t2\n");
        assert!(info(&fx, "t.tsv").contains("Columns (2): a, b\nRows: 1 "));
    }

    #[test]
    fn binary_directory_and_errors() {
        let fx = Fixture::new();
        fx.write("img.png", b"\x89PNG\r\n\x1a\n\0\0\0");
        let out = info(&fx, "img.png");
        assert!(
            out.contains("--- Binary File ---\nMIME Type: image/png"),
            "{out}"
        );
        assert!(!out.contains("Lines:"), "{out}");
        fx.write("d/x.txt", "x");
        fx.mkdir("d/sub");
        let out = info(&fx, "d");
        assert!(
            out.contains("Type: Directory") && out.contains("Entries: 2 (1 directory, 1 file)"),
            "{out}"
        );
        let err = get_file_info(&fx.sandbox, "nope.txt", &InfoOptions::default()).unwrap_err();
        assert_eq!(err.to_string(), "nope.txt does not exist.");
        assert!(get_file_info(&fx.sandbox, "/etc/passwd", &InfoOptions::default()).is_err());
    }

    #[test]
    fn utf8_cut_at_sample_end_is_still_text() {
        let fx = Fixture::new();
        let mut s = "a".repeat(fs_mcp_text::SNIFF_BYTES - 1);
        s.push('é'); // two bytes straddling the 8 KiB sample boundary
        s.push_str("\nend\n");
        fx.write("u.txt", s);
        let out = info(&fx, "u.txt");
        assert!(out.contains("--- Text File Analysis ---"), "{out}");
        assert!(!out.contains("Encoding:"), "{out}");
    }

    #[test]
    fn invalid_utf8_without_nul_is_text_with_an_encoding_note() {
        let fx = Fixture::new();
        fx.write("latin1.txt", b"caf\xe9\nna\xefve\n");
        let out = info(&fx, "latin1.txt");
        assert!(
            out.contains("--- Text File Analysis ---\nLines: 2\n"),
            "{out}"
        );
        assert!(
            out.contains("Encoding: not UTF-8 text (first invalid byte at offset 3)"),
            "{out}"
        );
        assert!(!out.contains("Binary File"), "{out}");
    }
}
