//! Bounded jq queries over JSON and YAML files.
//!
//! Queries are evaluated with [jaq](https://github.com/01mf02/jaq)
//! (`jaq-core`, `jaq-std`, `jaq-json`) plus a prelude that restores jq 1.7
//! behaviour where it matters (see [`compat`]). No `jq` or `yq` binary is
//! needed. The crate knows nothing about MCP: it turns a file, an expression
//! and limits into an [`Answer`] (the results and notes) or a [`QueryError`].
//!
//! # Output
//!
//! * One compact JSON value per line, in order.
//! * At most [`Limits::max_results`] (100) results and
//!   [`Limits::max_output_bytes`] (100 KB) of text. After that comes the note
//!   [`AnswerNote::Truncated`]: how many were shown of how many, and a slice
//!   expression built from the query for the next ones (`.items[100:200][]`
//!   for `.items[]`). Results past the cap are only counted, up to
//!   [`Limits::max_counted_results`] or [`Limits::count_time_budget_ms`]; when
//!   counting stops early, the count is [`ResultCount::at_least`].
//! * No results (an [`Answer`] with `shown` 0, which the caller says in words) when the
//!   query yields nothing or only `null`s.
//! * A runtime error after some results is the note
//!   [`AnswerNote::ErrorAfterResults`]; without results it is a
//!   [`QueryError::Runtime`]. `debug`/`stderr` output is the note
//!   [`AnswerNote::Log`]. `halt` stops quietly; `halt_error` reports its
//!   message (the process never exits).
//! * The crate words no note and no hint: the notes ([`AnswerNote`]), the
//!   syntax hints ([`SyntaxHint`]) and what is known of an undefined name
//!   ([`FunctionHelp`], [`VariableHelp`]) are data, exhaustive enums the
//!   caller words (so a new one does not compile until it is worded).
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
//!   like YAML, it is [`InputProblem::InvalidJson`] with `looks_like_yaml`. Binary (NUL bytes) and
//!   UTF-16 files are refused by name.
//! * YAML is parsed by serde-saphyr with YAML 1.2 booleans (`no`, `yes`,
//!   `on` stay strings), merge keys (`<<: *base`), anchors and aliases, last
//!   duplicate key wins, non-string keys turned into strings (as yq does),
//!   and budgets against alias bombs. Each document of a multi-document file
//!   is one input. JSON that YAML rejects is read as JSON.
//!
//! * Before a file is read, the query is analysed for what it can observe
//!   of each document; only that is built, and `.items[] | F`-shaped
//!   queries stream the array (see the `plan` module); the worker then
//!   reads the file a window at a time instead of whole. Answers are always
//!   those of the whole document: anything the analysis cannot follow reads
//!   everything, and a runtime error reruns the query on the whole document.
//!   Setting [`PLANNER_ENV`] to `off` turns the planner off (every
//!   query then builds whole documents); the server's workers inherit it.
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
//! ← {"status": "ok", "answer": {"results": "3", "shown": 1, "notes": []}}
//! ← {"status": "error", "kind": "input", "message": "The file is not valid JSON: …"}
//! ```
//!
//! `kind` is [`QueryError::kind`]; a structured error (syntax, compile, runtime) sends
//! its data as JSON in `message`. A worker that dies instead of answering is
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
//! let answer = run_isolated(
//!     &exe,
//!     &["__query-worker"],
//!     request,
//!     file,
//!     Duration::from_secs(30),
//!     fs_mcp_query::DEFAULT_MEMORY_LIMIT_BYTES,
//!     std::future::pending(),
//! )
//! .await?;
//! println!("{} results shown", answer.shown);
//! # Ok(()) }
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

// Module layers; a module uses only modules of the layers above its own, so
// no two depend on each other (tests included; kept by tests/module_circles.rs):
//   leaves:  ahead answer ast data errors json_out need request skip
//   1:       demand examples natives projected projected_yaml rewrite shape
//   2:       fast input library   3: program   4: engine   5: plan   6: run
//   7:       worker
mod ahead;
mod answer;
mod ast;
mod data;
mod demand;
mod engine;
mod errors;
mod examples;
mod fast;
mod input;
mod json_out;
mod library;
mod natives;
mod need;
mod plan;
mod program;
mod projected;
mod projected_yaml;
mod request;
mod rewrite;
mod run;
mod shape;
mod skip;
mod worker;

#[doc = include_str!("COMPAT.md")]
pub mod compat {}

pub use answer::{Answer, AnswerNote, ResultCount};
pub use errors::{
    CompileError, CompileProblem, Found, FunctionHelp, InputProblem, JqOnlyReason, Position,
    QueryError, RuntimeError, SyntaxError, SyntaxHint, SyntaxProblem, VariableHelp,
};
pub use examples::example_queries;
pub use request::{InputFormat, Limits, PLANNER_ENV, QueryRequest};
pub use worker::{run_isolated, worker_main};

use request::Planner;

/// Default wall-clock timeout of a query, as in the original server.
pub const DEFAULT_TIMEOUT_SECS: u64 = 30;

/// Default address-space limit of the worker process (4 GiB): enough for a
/// few hundred MB of JSON, which takes several times its size in memory.
pub const DEFAULT_MEMORY_LIMIT_BYTES: u64 = 4 << 30;

/// Evaluate `expression` on the contents of a file, in this process.
///
/// The expression is compiled before the input is parsed, so a bad
/// expression fails fast. This offers no protection against runaway queries
/// (see [`run_isolated`]); a `halt` or `halt_error` in the query does not
/// exit the process. [`PLANNER_ENV`] can turn the read planner off.
pub fn evaluate(
    input_bytes: &[u8],
    format: InputFormat,
    expression: &str,
    limits: &Limits,
) -> Result<Answer, QueryError> {
    let query = run::compile(expression, Planner::from_env())?;
    run::run(&query, input_bytes, format, limits, false)
}

/// Check that `expression` compiles, without any input.
pub fn check_expression(expression: &str) -> Result<(), QueryError> {
    program::compile(expression).map(|_| ())
}
