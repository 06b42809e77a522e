//! Bounded jq queries over JSON and YAML files, for `query_json` and
//! `query_yaml`.
//!
//! Queries are evaluated with [jaq](https://github.com/01mf02/jaq)
//! (`jaq-core`, `jaq-std`, `jaq-json`) plus a prelude that restores jq 1.7
//! behaviour where it matters (see [`compat`]). No `jq` or `yq` binary is
//! needed. The crate knows nothing about MCP: it turns a file, an expression
//! and limits into the text an agent reads.
//!
//! # Output
//!
//! * One compact JSON value per line, in order.
//! * At most [`Limits::max_results`] (100) results and
//!   [`Limits::max_output_bytes`] (100 KB) of text. After that comes
//!   `--- Truncated. Showing 100 of N results. ---` and a line
//!   `Refine your query or slice, e.g. …` with a slice expression built from
//!   the query (`.items[100:200][]` for `.items[]`). Results past the cap are
//!   only counted, up to [`Limits::max_counted_results`] or
//!   [`Limits::count_time_budget_ms`]; when counting stops early, N reads
//!   `at least N`.
//! * `No results found.` when the query yields nothing or only `null`s.
//! * A runtime error after some results is appended as
//!   `--- jq error after K results: … ---`; without results it is a
//!   [`QueryError::Runtime`]. `debug`/`stderr` output is appended under
//!   `--- debug/stderr output ---`. `halt` stops quietly; `halt_error`
//!   reports its message (the process never exits).
//!
//! # Numbers that JSON cannot hold
//!
//! Output is strict JSON and follows jq 1.7: **NaN prints as `null`,
//! +Infinity as `1.7976931348623157e+308` and -Infinity as
//! `-1.7976931348623157e+308`** (the largest finite doubles). This applies to
//! results, to `tojson`/`tostring`, to string interpolation and to
//! `@csv`/`@tsv`. Computed numbers print like jq (`3`, not `3.0`; `1e+17`;
//! `1e-05`); number literals from the file keep their spelling. YAML `.inf`
//! and `.nan` are read as those doubles.
//!
//! # Input
//!
//! * JSON is parsed by jaq's own reader: object key order is kept, big
//!   integers and long decimals survive, and a file with several top-level
//!   values (JSON Lines) gives one input per value (`input`/`inputs` work).
//!   A file that is not JSON gets an error with line and column; if it looks
//!   like YAML, the error says to use `query_yaml`. Binary (NUL bytes) and
//!   UTF-16 files are refused by name.
//! * YAML is parsed by serde-saphyr with YAML 1.2 booleans (`no`, `yes`,
//!   `on` stay strings), merge keys (`<<: *base`), anchors and aliases, last
//!   duplicate key wins, non-string keys turned into strings (as yq does),
//!   and budgets against alias bombs. Each document of a multi-document file
//!   is one input. JSON that YAML rejects is read as JSON.
//!
//! * Before a file is read, the query is analysed for what it can observe
//!   of each document; only that is built, and `.items[] | F`-shaped
//!   queries stream the array (see the `plan` module). Answers are always
//!   those of the whole document: anything the analysis cannot follow reads
//!   everything, and a runtime error reruns the query on the whole document.
//!
//! # Isolation
//!
//! jaq cannot be interrupted and a query can recurse without end (a stack
//! overflow aborts the process), loop forever or allocate without limit.
//! [`run_isolated`] therefore evaluates each query in a child process: the
//! same binary started with a hidden subcommand whose body is
//! [`worker_main`]. The child limits its address space, evaluates on a
//! thread with a 256 MB stack, and is killed on timeout or cancellation.
//! [`evaluate`] is the same evaluation in-process (for tests and trusted
//! callers); it has no such protection.
//!
//! The worker gets the file as its stdin (a descriptor the server opened
//! through its sandbox; the worker never opens a path), one JSON request in
//! the `FS_MCP_QUERY_REQUEST` environment variable, and writes one JSON
//! response on stdout:
//!
//! ```text
//! → {"file_path": "/abs/data.json", "expression": ".items | length",
//!    "format": "json", "limits": {"max_results": 100, "max_output_bytes": 102400,
//!    "max_counted_results": 1000000, "count_time_budget_ms": 2000},
//!    "memory_limit_bytes": 4294967296}
//! ← {"status": "ok", "text": "3"}
//! ← {"status": "error", "kind": "syntax", "message": "jq syntax error at line 1, …"}
//! ```
//!
//! `kind` is [`QueryError::kind`]. A worker that dies instead of answering is
//! classified by its exit: a stack overflow or another signal gives
//! [`QueryError::Crashed`], an allocation failure [`QueryError::MemoryLimit`].
//!
//! # Other helpers
//!
//! [`example_queries`] suggests three queries for a file from its first
//! bytes (for a large-file hint), [`check_expression`] compiles a query
//! without input. [`compat`] lists every known difference from jq 1.7.
//!
//! ```no_run
//! # async fn demo() -> Result<(), fs_mcp_query::QueryError> {
//! use fs_mcp_query::{InputFormat, Limits, QueryRequest, run_isolated};
//! use std::time::Duration;
//!
//! // in main(): if std::env::args().nth(1).as_deref() == Some("__query-worker") {
//! //     std::process::exit(fs_mcp_query::worker_main());
//! // }
//! let exe = std::env::current_exe().unwrap();
//! let file = std::fs::File::open("/data/big.json").unwrap();
//! let request = QueryRequest {
//!     file_path: "/data/big.json".into(),
//!     expression: ".items | length".into(),
//!     format: InputFormat::Json,
//!     limits: Limits::default(),
//! };
//! let text = run_isolated(
//!     &exe,
//!     &["__query-worker"],
//!     request,
//!     file,
//!     Duration::from_secs(30),
//!     fs_mcp_query::DEFAULT_MEMORY_LIMIT_BYTES,
//!     std::future::pending(),
//! )
//! .await?;
//! # let _ = text; Ok(()) }
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod demand;
mod engine;
mod errors;
mod examples;
mod input;
mod json_out;
mod natives;
mod need;
mod plan;
mod projected;
mod projected_yaml;
mod rewrite;
mod shape;
mod worker;

#[doc = include_str!("COMPAT.md")]
pub mod compat {}

pub use errors::QueryError;
pub use examples::example_queries;
pub use worker::{run_isolated, worker_main};

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Default wall-clock timeout of a query, as in the original server.
pub const DEFAULT_TIMEOUT_SECS: u64 = 30;

/// Default address-space limit of the worker process (4 GiB): enough for a
/// few hundred MB of JSON, which takes several times its size in memory.
pub const DEFAULT_MEMORY_LIMIT_BYTES: u64 = 4 << 30;

/// How the file is parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InputFormat {
    /// JSON (one or more top-level values); `query_json`.
    Json,
    /// YAML (one or more documents); `query_yaml`.
    Yaml,
}

/// Bounds on the answer of one query.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Limits {
    /// Results shown (default 100).
    pub max_results: usize,
    /// Bytes of result text shown (default 100 KB).
    pub max_output_bytes: usize,
    /// Results counted in total before the count becomes "at least N"
    /// (default 1,000,000).
    pub max_counted_results: usize,
    /// Time spent counting results past the shown ones before the count
    /// becomes "at least N" (default 2 s).
    pub count_time_budget_ms: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_results: 100,
            max_output_bytes: 100 * 1024,
            max_counted_results: 1_000_000,
            count_time_budget_ms: 2_000,
        }
    }
}

/// One query, as sent to the worker process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryRequest {
    /// The file's path as shown in messages (and by its extension). The
    /// worker never opens it: it reads the descriptor it is given.
    pub file_path: PathBuf,
    /// The jq expression (may span lines and contain `#` comments).
    pub expression: String,
    /// How to parse the file.
    pub format: InputFormat,
    /// Output bounds.
    #[serde(default)]
    pub limits: Limits,
}

/// Evaluate `expression` on the contents of a file, in this process.
///
/// The expression is compiled before the input is parsed, so a bad
/// expression fails fast. This offers no protection against runaway queries
/// (see [`run_isolated`]); a `halt` or `halt_error` in the query does not
/// exit the process.
pub fn evaluate(
    input_bytes: &[u8],
    format: InputFormat,
    expression: &str,
    limits: &Limits,
) -> Result<String, QueryError> {
    let program = engine::compile(expression)?;
    run_program(&program, input_bytes, format, limits, false)
}

/// Check that `expression` compiles, without any input.
pub fn check_expression(expression: &str) -> Result<(), QueryError> {
    engine::compile_unplanned(expression).map(|_| ())
}

pub(crate) fn run_program(
    program: &engine::Program,
    input_bytes: &[u8],
    format: InputFormat,
    limits: &Limits,
    leak: bool,
) -> Result<String, QueryError> {
    let inputs = match format {
        InputFormat::Json => {
            let body = input::json_body(input_bytes)?;
            if let Some(result) = plan::run_json(program, body, limits) {
                return result;
            }
            input::json_inputs(body)?
        }
        InputFormat::Yaml => {
            if let Some(result) = plan::run_yaml(program, input_bytes, limits) {
                return result;
            }
            input::yaml_inputs(input_bytes)?
        }
    };
    engine::run(program, inputs, limits, leak)
}
