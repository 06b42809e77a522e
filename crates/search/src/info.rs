//! `get_file_info`: size, modification time, type, and for text files line count, token estimate,
//! a chunked-read plan and a structure preview (JSON keys, CSV columns), as data ([`FileInfo`]).
//! The caller words it: the sentences, and the tools the advice names, are the binary's
//! (`src/render/info.rs`), so advice never names a tool the model cannot call.
//!
//! Everything streams: lines are counted over 64 KiB chunks, the last line is read from the end
//! of the file, and JSON is parsed only under a size limit (10 MiB by default; above it the
//! preview is [`JsonPreview::TooLarge`]). A 1 GB log costs one sequential read and constant
//! memory.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use fs_mcp_sandbox::{DirHandle, EntryKind, Sandbox};
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::error::SearchError;
use crate::format::format_utc;
use crate::walk;

/// Thresholds of `get_file_info`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InfoOptions {
    /// Above this many estimated tokens a file gets a plan to read it in chunks.
    pub large_file_tokens: u64,
    /// Target size of one chunk in the plan.
    pub chunk_tokens: u64,
    /// JSON files up to this size get a structure preview.
    pub json_preview_max_bytes: u64,
}

impl Default for InfoOptions {
    fn default() -> Self {
        InfoOptions {
            large_file_tokens: 20_000,
            chunk_tokens: 10_000,
            json_preview_max_bytes: 10 * 1024 * 1024,
        }
    }
}

const CHUNK: usize = 64 * 1024;
/// Keys of a JSON object (or columns of a CSV header) kept for the preview; the total is counted.
pub const LIST_KEYS: usize = 10;
/// Columns of a CSV header kept for the preview.
pub const LIST_COLUMNS: usize = 20;
/// Bytes of the end of a text file read for its last line.
const TAIL_BYTES: u64 = 4096;

/// Files up to this size are counted line by line; larger ones are sampled (head and tail), so
/// the answer costs the same on a 100 MB file and a 50 GB one.
pub const FULL_SCAN_MAX_BYTES: u64 = 64 << 20;
/// Bytes read from each end of a sampled file.
pub const SAMPLE_BYTES: u64 = 1 << 20;

/// What `get_file_info` learns about one path, as data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileInfo {
    /// The path, as displayed.
    pub path: String,
    /// A regular file's size in bytes.
    pub size: Option<u64>,
    /// The modification time, UTC, RFC 3339.
    pub modified: String,
    /// What the entry is, and what its content says.
    pub details: Details,
}

impl FileInfo {
    /// `"file"`, `"directory"` or `"other"` (a FIFO, socket or device: its content is not read).
    pub fn kind(&self) -> &'static str {
        match self.details {
            Details::Directory(_) => "directory",
            Details::Other(_) => "other",
            Details::Unanalyzed(_) | Details::Binary { .. } | Details::Text(_) => "file",
        }
    }

    /// A text file's lines (estimated from samples on a huge file).
    pub fn lines(&self) -> Option<u64> {
        match &self.details {
            Details::Text(text) => Some(text.lines),
            _ => None,
        }
    }
}

/// What an entry is beyond its size and time. Exhaustive on purpose: a new kind does not compile
/// until the binary words it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Details {
    /// A directory: its entries, or `None` when they could not be listed.
    Directory(Option<DirEntries>),
    /// A FIFO, socket, device…: described from its metadata, never opened.
    Other(EntryKind),
    /// A regular file whose content could not be read: the I/O error, in words.
    Unanalyzed(String),
    /// A regular file holding a NUL byte in its first 8 KiB.
    Binary {
        /// By extension, else by the first bytes, else `application/octet-stream`.
        mime: &'static str,
    },
    /// A text file.
    Text(Box<TextAnalysis>),
}

/// A directory's entries, counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirEntries {
    /// Sub-directories.
    pub dirs: u64,
    /// Everything else.
    pub files: u64,
}

/// A text file's analysis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextAnalysis {
    /// Lines: counted, or estimated from samples (see `sampled_bytes`).
    pub lines: u64,
    /// `Some(n)` when the file was too large to count every line: `lines` is estimated from its
    /// first and last `n` bytes.
    pub sampled_bytes: Option<u64>,
    /// Estimated tokens (bytes ÷ 4).
    pub tokens: u64,
    /// The offset of the first byte that is not UTF-8, within the first 8 KiB (reading and
    /// editing it as text will be refused).
    pub invalid_utf8_at: Option<usize>,
    /// How to read it.
    pub reading: Reading,
    /// Structured data a query tool reads (by extension).
    pub data_format: Option<DataFormat>,
    /// What the content looks like.
    pub preview: Preview,
}

/// How a text file is best read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// Small enough for one call (at most [`InfoOptions::large_file_tokens`]).
    Whole,
    /// In chunks of lines.
    Chunks(ChunkPlan),
}

/// A plan to read a large text file in parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkPlan {
    /// Lines per chunk (at least 100), for about [`InfoOptions::chunk_tokens`] each.
    pub lines_per_chunk: u64,
    /// Chunks the file takes.
    pub chunks: u64,
    /// Estimated tokens of one chunk.
    pub tokens_per_chunk: u64,
    /// The file is one line (minified?): line ranges will not split it.
    pub one_line: bool,
}

/// A structured format a query tool reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataFormat {
    /// `.json`
    Json,
    /// `.yaml`, `.yml`
    Yaml,
}

/// What a text file's content looks like, by its extension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Preview {
    /// `.json`: its structure.
    Json(JsonPreview),
    /// `.jsonl`, `.ndjson`: records (lines) and the first record.
    JsonLines {
        /// Lines.
        records: u64,
        /// The first non-blank line within the first 64 KiB, if there is one.
        first: Option<FirstValue>,
    },
    /// `.csv`, `.tsv`: the header's columns and the rows after it.
    Csv {
        /// The first [`LIST_COLUMNS`] column names (trimmed, quotes removed).
        columns: Vec<String>,
        /// Columns in the header.
        total_columns: usize,
        /// Lines after the header (quoted multi-line cells would make the rows fewer).
        rows: u64,
    },
    /// Any other text: its first and last non-empty lines.
    Text(TextEnds),
}

/// The first and last lines of a text file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextEnds {
    /// The file has no bytes.
    Empty,
    /// Its first line and its last non-empty line (whole: the caller cuts them short).
    Lines {
        /// The first line (within the first 64 KiB), invalid UTF-8 replaced.
        first: String,
        /// The last non-empty line (within the last 4 KiB), invalid UTF-8 replaced.
        last: String,
    },
}

/// A JSON file's structure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JsonPreview {
    /// Over [`InfoOptions::json_preview_max_bytes`] (this limit): not parsed.
    TooLarge {
        /// The limit, in bytes.
        limit: u64,
    },
    /// The file could not be read again from its start.
    NotReread,
    /// Not valid JSON: the parser's message.
    Invalid(String),
    /// A top-level object.
    Object(JsonKeys),
    /// A top-level array.
    Array {
        /// Items.
        items: u64,
        /// Its first item, if any.
        first: Option<FirstValue>,
    },
    /// A top-level string, number, boolean or null.
    Scalar(JsonType),
}

/// An object's keys in the file's order: the first [`LIST_KEYS`], with their types, and how many.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonKeys {
    /// The first [`LIST_KEYS`] keys (as written: the caller escapes them) and their values' types.
    pub first: Vec<(String, JsonType)>,
    /// Keys in the object.
    pub total: usize,
}

/// The first item of an array, or the first record of a JSON Lines file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FirstValue {
    /// An object: its keys.
    Object(JsonKeys),
    /// Any other value.
    Other(JsonType),
    /// Not valid JSON (or longer than 64 KiB): JSON Lines only.
    NotJson,
}

/// A JSON value's type, with the size of an array or object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonType {
    /// `null`
    Null,
    /// `true`, `false`
    Boolean,
    /// A number.
    Number,
    /// A string.
    String,
    /// An array of this many items.
    Array(u64),
    /// An object with this many keys.
    Object(u64),
}

/// Describes a file or directory. Only a regular file is opened (by handle); a FIFO, socket or
/// device is described from its metadata, never opened or read.
pub fn file_info(
    sandbox: &Sandbox,
    path: &str,
    options: &InfoOptions,
) -> Result<FileInfo, SearchError> {
    let (resolved, meta) = walk::resolve_existing(sandbox, path)?;
    let shown = sandbox.display(&resolved);
    let mut info = FileInfo {
        path: shown,
        size: None,
        modified: format_utc(meta.modified),
        details: Details::Other(meta.kind),
    };
    if meta.kind == EntryKind::Dir {
        let dir = sandbox.open_dir(path)?;
        info.details = Details::Directory(dir_entries(&dir));
        return Ok(info);
    }
    if meta.kind != EntryKind::File {
        return Ok(info);
    }
    let opened = sandbox.open_file(path)?;
    let size = opened.meta.len;
    info.size = Some(size);
    info.modified = format_utc(opened.meta.modified);
    info.details = match analyze(opened.file, &resolved, size, options) {
        Ok(details) => details,
        Err(e) => Details::Unanalyzed(crate::error::describe_io(&e)),
    };
    Ok(info)
}

/// Files one [`get_files_info`] call describes; [`InfoBatch::not_described`] names the rest.
pub const MAX_INFO_PATHS: usize = 20;

/// Several paths' answers.
#[derive(Debug)]
pub struct InfoBatch {
    /// Each path's facts, or its error, in the order asked (at most [`MAX_INFO_PATHS`]).
    pub files: Vec<InfoItem>,
    /// The paths past [`MAX_INFO_PATHS`], if any.
    pub not_described: Option<NotDescribed>,
}

impl InfoBatch {
    /// True when no path could be described (the call as a whole is an error).
    pub fn all_failed(&self) -> bool {
        !self.files.is_empty()
            && self
                .files
                .iter()
                .all(|item| matches!(item, InfoItem::Failed { .. }))
    }
}

/// The paths a batch left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotDescribed {
    /// How many.
    pub count: u64,
    /// The first of them, as given (to call again from it on).
    pub next: String,
}

/// One path of an [`InfoBatch`]: its facts, or why it could not be described.
#[derive(Debug)]
pub enum InfoItem {
    /// The facts.
    Described(FileInfo),
    /// The path as asked, and the error.
    Failed {
        /// The requested path, as given (escaped for display: the error may not have got as far
        /// as a file).
        path: String,
        /// The error.
        error: SearchError,
    },
}

/// Describes each of `paths` on its own, so one failure does not fail the others: at most
/// [`MAX_INFO_PATHS`] of them, with the rest counted.
pub fn get_files_info(sandbox: &Sandbox, paths: &[String], options: &InfoOptions) -> InfoBatch {
    let files = paths
        .iter()
        .take(MAX_INFO_PATHS)
        .map(|path| match file_info(sandbox, path, options) {
            Ok(info) => InfoItem::Described(info),
            Err(error) => InfoItem::Failed {
                path: fs_mcp_sandbox::escape_os(std::ffi::OsStr::new(path)).into_owned(),
                error,
            },
        })
        .collect();
    let not_described = paths.get(MAX_INFO_PATHS).map(|next| NotDescribed {
        count: (paths.len() - MAX_INFO_PATHS) as u64,
        next: next.clone(),
    });
    InfoBatch {
        files,
        not_described,
    }
}

fn dir_entries(dir: &DirHandle) -> Option<DirEntries> {
    let entries = dir.entries().ok()?;
    let dirs = entries.iter().filter(|e| e.kind == EntryKind::Dir).count() as u64;
    Some(DirEntries {
        dirs,
        files: entries.len() as u64 - dirs,
    })
}

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

/// The offset of the first invalid byte when the start of a (non-binary) file is not UTF-8, so
/// the caller can say before a read that reading and editing it as text will be refused. Only
/// the sniff window is checked, to keep this call fast on large files.
fn invalid_utf8_at(head: &[u8], size: u64) -> Option<usize> {
    let sample = &head[..head.len().min(fs_mcp_text::SNIFF_BYTES)];
    let complete = sample.len() as u64 >= size;
    match fs_mcp_text::as_text(sample, complete) {
        Err(fs_mcp_text::NotText::InvalidUtf8 { valid_up_to }) => Some(valid_up_to),
        _ => None,
    }
}

fn analyze(
    mut file: File,
    path: &Path,
    size: u64,
    options: &InfoOptions,
) -> std::io::Result<Details> {
    let scan = scan(&mut file, size)?;
    if fs_mcp_text::is_binary(&scan.head) {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mime = fs_mcp_text::mime_from_extension(&name)
            .or_else(|| fs_mcp_text::sniff_mime(&scan.head))
            .unwrap_or("application/octet-stream");
        return Ok(Details::Binary { mime });
    }
    let lines = scan.lines(size);
    let tokens = size / 4;
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    let preview = match ext.as_str() {
        "json" => Preview::Json(json_preview(&mut file, size, options)),
        "jsonl" | "ndjson" => jsonl_preview(&scan.head, lines),
        "csv" => csv_preview(&scan.head, lines, b','),
        "tsv" => csv_preview(&scan.head, lines, b'\t'),
        _ => Preview::Text(text_ends(&mut file, &scan.head, size)?),
    };
    Ok(Details::Text(Box::new(TextAnalysis {
        lines,
        sampled_bytes: scan.sampled.then_some(SAMPLE_BYTES),
        tokens,
        invalid_utf8_at: invalid_utf8_at(&scan.head, size),
        reading: reading(lines, tokens, options),
        data_format: match ext.as_str() {
            "json" => Some(DataFormat::Json),
            "yaml" | "yml" => Some(DataFormat::Yaml),
            _ => None,
        },
        preview,
    })))
}

/// Whole, or chunks of about [`InfoOptions::chunk_tokens`] (at least 100 lines each).
fn reading(lines: u64, tokens: u64, options: &InfoOptions) -> Reading {
    if tokens <= options.large_file_tokens {
        return Reading::Whole;
    }
    let per_line = tokens as f64 / lines.max(1) as f64;
    let rec = ((options.chunk_tokens as f64 / per_line.max(f64::MIN_POSITIVE)) as u64).max(100);
    Reading::Chunks(ChunkPlan {
        lines_per_chunk: rec,
        chunks: lines.div_ceil(rec).max(1),
        tokens_per_chunk: (rec as f64 * per_line) as u64,
        one_line: lines <= 1,
    })
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

fn json_type(v: &Value) -> JsonType {
    match v {
        Value::Null => JsonType::Null,
        Value::Bool => JsonType::Boolean,
        Value::Number => JsonType::Number,
        Value::String => JsonType::String,
        Value::Array(a) => JsonType::Array(a.len() as u64),
        Value::Object(o) => JsonType::Object(o.len() as u64),
    }
}

fn json_keys(entries: &[(String, Value)]) -> JsonKeys {
    JsonKeys {
        first: entries
            .iter()
            .take(LIST_KEYS)
            .map(|(k, v)| (k.clone(), json_type(v)))
            .collect(),
        total: entries.len(),
    }
}

fn first_value(v: &Value) -> FirstValue {
    match v {
        Value::Object(o) => FirstValue::Object(json_keys(o)),
        other => FirstValue::Other(json_type(other)),
    }
}

fn json_preview(file: &mut File, size: u64, options: &InfoOptions) -> JsonPreview {
    if size > options.json_preview_max_bytes {
        return JsonPreview::TooLarge {
            limit: options.json_preview_max_bytes,
        };
    }
    if file.seek(SeekFrom::Start(0)).is_err() {
        return JsonPreview::NotReread;
    }
    match serde_json::from_reader(BufReader::new(file)) {
        Ok(Value::Object(map)) => JsonPreview::Object(json_keys(&map)),
        Ok(Value::Array(items)) => JsonPreview::Array {
            items: items.len() as u64,
            first: items.first().map(first_value),
        },
        Ok(other) => JsonPreview::Scalar(json_type(&other)),
        Err(e) => JsonPreview::Invalid(e.to_string()),
    }
}

fn first_line(head: &[u8]) -> &[u8] {
    let end = memchr::memchr(b'\n', head).unwrap_or(head.len());
    crate::format::strip_terminator(&head[..end])
}

fn jsonl_preview(head: &[u8], lines: u64) -> Preview {
    let first = head
        .split(|&b| b == b'\n')
        .find(|l| !l.iter().all(u8::is_ascii_whitespace))
        .map(|line| match serde_json::from_slice::<Value>(line) {
            Ok(value) => first_value(&value),
            Err(_) => FirstValue::NotJson,
        });
    Preview::JsonLines {
        records: lines,
        first,
    }
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

fn csv_preview(head: &[u8], lines: u64, delim: u8) -> Preview {
    let header = String::from_utf8_lossy(first_line(head));
    let header = header.trim_start_matches('\u{feff}');
    let mut columns = split_csv(header, delim as char);
    let total_columns = columns.len();
    columns.truncate(LIST_COLUMNS);
    Preview::Csv {
        columns,
        total_columns,
        rows: lines.saturating_sub(1),
    }
}

/// First and last non-empty line of a text file; the last one is read from the file's end.
fn text_ends(file: &mut File, head: &[u8], size: u64) -> std::io::Result<TextEnds> {
    if size == 0 {
        return Ok(TextEnds::Empty);
    }
    let first = String::from_utf8_lossy(first_line(head)).into_owned();
    let tail_len = size.min(TAIL_BYTES);
    file.seek(SeekFrom::Start(size - tail_len))?;
    let mut tail = Vec::with_capacity(tail_len as usize);
    file.take(tail_len).read_to_end(&mut tail)?;
    let tail = String::from_utf8_lossy(&tail);
    let last = tail
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim_end_matches('\r')
        .to_string();
    Ok(TextEnds::Lines { first, last })
}

#[cfg(test)]
mod tests {
    use super::*;
    use fs_mcp_sandbox::testing::Fixture;

    fn info(fx: &Fixture, path: &str) -> FileInfo {
        file_info(&fx.sandbox, path, &InfoOptions::default()).unwrap()
    }

    fn text(fx: &Fixture, path: &str) -> TextAnalysis {
        match info(fx, path).details {
            Details::Text(text) => *text,
            other => panic!("{path} is not text: {other:?}"),
        }
    }

    fn keys(names: &[(&str, JsonType)], total: usize) -> JsonKeys {
        JsonKeys {
            first: names.iter().map(|(k, t)| (k.to_string(), *t)).collect(),
            total,
        }
    }

    #[test]
    fn the_facts_of_a_file_and_a_directory() {
        let fx = Fixture::new();
        fx.write("a.txt", "one\ntwo\n");
        fx.write("d/x.txt", "x");
        fx.mkdir("d/sub");
        let file = info(&fx, "a.txt");
        assert_eq!(
            (file.kind(), file.size, file.lines(), file.path.as_str()),
            ("file", Some(8), Some(2), "a.txt")
        );
        assert!(file.modified.ends_with('Z'), "{}", file.modified);
        let dir = info(&fx, "d");
        assert_eq!(
            (dir.kind(), dir.size, dir.lines()),
            ("directory", None, None)
        );
        assert_eq!(
            dir.details,
            Details::Directory(Some(DirEntries { dirs: 1, files: 1 }))
        );
    }

    #[test]
    fn small_text_file() {
        let fx = Fixture::new();
        fx.write("notes/a.txt", "first\nmiddle\nlast\n");
        let t = text(&fx, "notes/a.txt");
        assert_eq!((t.lines, t.tokens, t.sampled_bytes), (3, 4, None));
        assert_eq!(
            (t.reading, t.data_format, t.invalid_utf8_at),
            (Reading::Whole, None, None)
        );
        assert_eq!(
            t.preview,
            Preview::Text(TextEnds::Lines {
                first: "first".into(),
                last: "last".into()
            })
        );
        fx.write("b.txt", "no newline");
        assert_eq!(text(&fx, "b.txt").lines, 1);
        fx.write("empty.txt", "");
        let empty = text(&fx, "empty.txt");
        assert_eq!(
            (empty.lines, empty.preview),
            (0, Preview::Text(TextEnds::Empty))
        );
    }

    #[test]
    fn large_file_gets_a_chunk_plan() {
        let fx = Fixture::new();
        let line = "x".repeat(79) + "\n";
        fx.write("logs/big.log", line.repeat(5_000)); // 400 KB, 100,000 tokens, 20 tokens/line
        let t = text(&fx, "logs/big.log");
        assert_eq!((t.lines, t.tokens), (5_000, 100_000));
        assert_eq!(
            t.reading,
            Reading::Chunks(ChunkPlan {
                lines_per_chunk: 500,
                chunks: 10,
                tokens_per_chunk: 10_000,
                one_line: false
            })
        );
        fx.write("min.json", format!("[{}1]", "1,".repeat(60_000)));
        let t = text(&fx, "min.json");
        assert_eq!(t.data_format, Some(DataFormat::Json));
        assert!(matches!(t.reading, Reading::Chunks(plan) if plan.one_line && plan.chunks == 1));
    }

    #[test]
    fn json_previews() {
        let fx = Fixture::new();
        fx.write(
            "o.json",
            r#"{"name": "x", "items": [1, 2], "meta": {"a": 1}, "n": null}"#,
        );
        assert_eq!(
            text(&fx, "o.json").preview,
            Preview::Json(JsonPreview::Object(keys(
                &[
                    ("name", JsonType::String),
                    ("items", JsonType::Array(2)),
                    ("meta", JsonType::Object(1)),
                    ("n", JsonType::Null)
                ],
                4
            )))
        );
        fx.write("a.json", r#"[{"id": 1, "b": 2}, {"id": 2}]"#);
        assert_eq!(
            text(&fx, "a.json").preview,
            Preview::Json(JsonPreview::Array {
                items: 2,
                first: Some(FirstValue::Object(keys(
                    &[("id", JsonType::Number), ("b", JsonType::Number)],
                    2
                )))
            })
        );
        fx.write("bad.json", "{oops");
        assert!(matches!(
            text(&fx, "bad.json").preview,
            Preview::Json(JsonPreview::Invalid(_))
        ));
        let many: Vec<String> = (0..LIST_KEYS + 2)
            .map(|i| format!("\"k{i}\": true"))
            .collect();
        fx.write("many.json", format!("{{{}}}", many.join(", ")));
        match text(&fx, "many.json").preview {
            Preview::Json(JsonPreview::Object(k)) => {
                assert_eq!((k.first.len(), k.total), (LIST_KEYS, LIST_KEYS + 2));
                assert_eq!(k.first[0], ("k0".to_string(), JsonType::Boolean));
            }
            other => panic!("{other:?}"),
        }
        let small = InfoOptions {
            json_preview_max_bytes: 10,
            ..InfoOptions::default()
        };
        let big = file_info(&fx.sandbox, "o.json", &small).unwrap();
        assert!(matches!(
            big.details,
            Details::Text(t) if t.preview == Preview::Json(JsonPreview::TooLarge { limit: 10 })
        ));
        fx.write("r.jsonl", "{\"a\":1,\"b\":2}\n{\"a\":3}\n");
        assert_eq!(
            text(&fx, "r.jsonl").preview,
            Preview::JsonLines {
                records: 2,
                first: Some(FirstValue::Object(keys(
                    &[("a", JsonType::Number), ("b", JsonType::Number)],
                    2
                )))
            }
        );
        fx.write("bad.jsonl", "\n  \n{oops\n");
        assert_eq!(
            text(&fx, "bad.jsonl").preview,
            Preview::JsonLines {
                records: 3,
                first: Some(FirstValue::NotJson)
            }
        );
    }

    #[test]
    fn a_json_key_is_kept_as_written_for_the_caller_to_escape() {
        let fx = Fixture::new();
        fx.write("k.json", r#"{"a\nPath: forged": 1}"#);
        assert_eq!(
            text(&fx, "k.json").preview,
            Preview::Json(JsonPreview::Object(keys(
                &[("a\nPath: forged", JsonType::Number)],
                1
            )))
        );
    }

    #[test]
    fn csv_preview_counts_rows_and_columns() {
        let fx = Fixture::new();
        fx.write("t.csv", "id, \"name, full\",age\n1,a,2\n2,b,3\n");
        assert_eq!(
            text(&fx, "t.csv").preview,
            Preview::Csv {
                columns: vec!["id".into(), "name, full".into(), "age".into()],
                total_columns: 3,
                rows: 2
            }
        );
        fx.write("t.tsv", "a\tb\n1\t2\n");
        assert!(matches!(
            text(&fx, "t.tsv").preview,
            Preview::Csv {
                total_columns: 2,
                rows: 1,
                ..
            }
        ));
        let wide: Vec<String> = (0..LIST_COLUMNS + 5).map(|i| format!("c{i}")).collect();
        fx.write("wide.csv", wide.join(",") + "\n");
        assert!(matches!(
            text(&fx, "wide.csv").preview,
            Preview::Csv { columns, total_columns, rows: 0 }
                if columns.len() == LIST_COLUMNS && total_columns == LIST_COLUMNS + 5
        ));
    }

    #[test]
    fn binary_and_errors() {
        let fx = Fixture::new();
        fx.write("img.png", b"\x89PNG\r\n\x1a\n\0\0\0");
        let png = info(&fx, "img.png");
        assert_eq!(
            (png.details.clone(), png.kind(), png.lines()),
            (Details::Binary { mime: "image/png" }, "file", None)
        );
        let err = file_info(&fx.sandbox, "nope.txt", &InfoOptions::default()).unwrap_err();
        assert_eq!(err.to_string(), "nope.txt: not found");
        assert!(file_info(&fx.sandbox, "/etc/passwd", &InfoOptions::default()).is_err());
    }

    #[test]
    fn several_files_are_answered_each_on_its_own() {
        let fx = Fixture::new();
        fx.write("a.txt", "one\n");
        fx.write("b.txt", "two\nthree\n");
        let paths: Vec<String> = ["a.txt", "missing.txt", "b.txt"].map(String::from).into();
        let batch = get_files_info(&fx.sandbox, &paths, &InfoOptions::default());
        assert!(!batch.all_failed());
        assert_eq!(batch.not_described, None);
        assert!(matches!(&batch.files[0], InfoItem::Described(f) if f.lines() == Some(1)));
        assert!(matches!(
            &batch.files[1],
            InfoItem::Failed { path, error: SearchError::NotFound { .. } } if path == "missing.txt"
        ));
        assert!(matches!(&batch.files[2], InfoItem::Described(f) if f.path == "b.txt"));
        let none: Vec<String> = vec!["x".into(), "../y".into()];
        assert!(get_files_info(&fx.sandbox, &none, &InfoOptions::default()).all_failed());
    }

    #[test]
    fn a_batch_is_capped_and_counts_the_rest() {
        let fx = Fixture::new();
        let paths: Vec<String> = (0..MAX_INFO_PATHS + 3)
            .map(|i| format!("f{i}.txt"))
            .collect();
        for p in &paths {
            fx.write(p, "x\n");
        }
        let batch = get_files_info(&fx.sandbox, &paths, &InfoOptions::default());
        assert_eq!(batch.files.len(), MAX_INFO_PATHS);
        assert_eq!(
            batch.not_described,
            Some(NotDescribed {
                count: 3,
                next: format!("f{MAX_INFO_PATHS}.txt")
            })
        );
    }

    #[test]
    fn utf8_cut_at_sample_end_is_still_text() {
        let fx = Fixture::new();
        let mut s = "a".repeat(fs_mcp_text::SNIFF_BYTES - 1);
        s.push('é'); // two bytes straddling the 8 KiB sample boundary
        s.push_str("\nend\n");
        fx.write("u.txt", s);
        assert_eq!(text(&fx, "u.txt").invalid_utf8_at, None);
    }

    #[test]
    fn invalid_utf8_without_nul_is_text_with_its_offset() {
        let fx = Fixture::new();
        fx.write("latin1.txt", b"caf\xe9\nna\xefve\n");
        let t = text(&fx, "latin1.txt");
        assert_eq!((t.lines, t.invalid_utf8_at), (2, Some(3)));
    }
}
