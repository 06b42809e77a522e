//! What a `read_files` call asks for and the settings it runs with: the requests, the options
//! and their defaults and bounds.

use std::path::Path;

/// Default cap on one reply: Claude Code keeps MCP results up to 50,000 characters inline (a
/// larger one is saved to a file and replaced by a 2 KB preview) and refuses results over 25,000
/// tokens; 50,000 bytes are at most 50,000 characters and about 12,500 tokens.
pub const DEFAULT_MAX_REPLY_BYTES: usize = 50_000;
/// Default cap on one line of a partial read: far above hand-written code and prose, while a
/// minified bundle's line cannot take a third of a reply.
pub const DEFAULT_MAX_LINE_BYTES: usize = 16 * 1024;
/// The smallest reply cap honoured: room for a block with its notes.
pub const MIN_REPLY_BYTES: usize = 4096;
/// Most files one call takes: far more than one reply can show (a block takes at least its
/// `File` frame), and the list is refused whole past it, so no call pays for a list it cannot
/// answer.
pub const MAX_REQUESTS: usize = 1_000;

/// One file to read, with at most one mode. Integers come straight from the client, so they are
/// signed and validated here.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadRequest {
    /// The file to read, as the client gave it (resolved through the sandbox).
    pub path: String,
    /// Read only the first N lines.
    pub head: Option<i64>,
    /// Read only the last N lines.
    pub tail: Option<i64>,
    /// First line of a range (1-based), or where `read_to_next_pattern` starts.
    pub start_line: Option<i64>,
    /// Last line of a range (1-based, inclusive).
    pub end_line: Option<i64>,
    /// Regex: read from `start_line` up to, not including, the next line that matches.
    pub read_to_next_pattern: Option<String>,
}

/// Kind of structured file the large-file guard steers to a query tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StructuredKind {
    /// A `.json` file.
    Json,
    /// `.yaml` and `.yml`.
    Yaml,
}

/// Produces ready-to-use example queries for a large structured file (shown by the guard), from
/// its path (for the extension) and its first bytes, read from the open handle.
pub type ExampleQueries = fn(&Path, StructuredKind, &[u8]) -> Vec<String>;

/// Regex work (pattern positions × bytes) the `read_to_next_pattern` items of one call may do
/// in all: a couple of seconds in the worst case, whatever the pattern and the lines.
pub const PATTERN_WORK_PER_CALL: u64 = 2 * fs_mcp_text::REGEX_WORK_PER_SEARCH;

/// Settings of a `read_files` call.
#[derive(Debug, Clone)]
pub struct ReadOptions {
    /// Skip the whole-file size guards and the per-line cap (the reply cap still holds).
    pub large_file_passthrough: bool,
    /// Whole JSON/YAML files above this size (or above the reply cap) are refused in favour of
    /// `query_json`/`query_yaml`.
    pub structured_guard_bytes: u64,
    /// Any other whole file above this size is refused in favour of a partial read.
    pub text_guard_bytes: u64,
    /// Example queries for the structured guard; `None` shows generic ones.
    pub example_queries: Option<ExampleQueries>,
    /// Cap on the whole reply, frames and notes included (at least [`MIN_REPLY_BYTES`]).
    pub max_reply_bytes: usize,
    /// Cap on one line in `head`, `tail`, ranges and `read_to_next_pattern`.
    pub max_line_bytes: usize,
    /// Regex work (pattern positions × bytes) the `read_to_next_pattern` items of one call may
    /// do in all (default [`PATTERN_WORK_PER_CALL`]); one line's search gets half of it
    /// at most.
    pub pattern_work: u64,
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
            max_reply_bytes: DEFAULT_MAX_REPLY_BYTES,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            pattern_work: PATTERN_WORK_PER_CALL,
        }
    }
}
