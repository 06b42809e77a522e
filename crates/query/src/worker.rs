//! Isolation: each query runs in a short-lived child process (a hidden
//! subcommand of the same binary) with a memory limit, a big stack, and a
//! wall-clock timeout enforced by the parent.
//!
//! The child never opens the file: the parent hands it the descriptor it
//! opened (through the sandbox) as the child's stdin, and the request in an
//! environment variable, so no path is resolved again between the sandbox's
//! check and the read.

use crate::answer::Answer;
use crate::errors::QueryError;
use crate::request::{Planner, QueryRequest};
use crate::run;
use serde::{Deserialize, Serialize};
use std::future::Future;
use std::io::{Read, Write};
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt};

/// The environment variable that carries the request to the worker.
const REQUEST_ENV: &str = "FS_MCP_QUERY_REQUEST";
/// Largest request sent to the worker: well under the kernel's limit on one
/// environment string (128 KiB on Linux).
const MAX_REQUEST_BYTES: usize = 100 * 1024;
/// Largest response the parent accepts on stdout.
const MAX_RESPONSE_BYTES: usize = 16 * 1024 * 1024;
/// How much of the worker's stderr the parent keeps (its end).
const MAX_STDERR_BYTES: usize = 64 * 1024;
/// Stack of the evaluation thread (capped to a quarter of the memory limit).
const EVAL_STACK_BYTES: u64 = 256 * 1024 * 1024;

/// What the parent passes to the worker (in [`REQUEST_ENV`]).
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct WireRequest {
    #[serde(flatten)]
    pub(crate) query: QueryRequest,
    /// Address-space limit the worker applies to itself (0: none).
    pub(crate) memory_limit_bytes: u64,
}

/// What the worker writes to its stdout.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub(crate) enum WireResponse {
    Ok { answer: Answer },
    Error { kind: String, message: String },
}

impl From<Result<Answer, QueryError>> for WireResponse {
    fn from(r: Result<Answer, QueryError>) -> Self {
        match r {
            Ok(answer) => Self::Ok { answer },
            Err(e) => Self::Error {
                kind: e.kind().to_string(),
                message: e.message().to_string(),
            },
        }
    }
}

/// Body of the hidden worker subcommand (`fs-mcp-rs __query-worker`).
///
/// Reads one JSON request from the `FS_MCP_QUERY_REQUEST` environment
/// variable, limits its own address space (`RLIMIT_AS`) and core dumps before
/// touching the file, reads the file from stdin (a descriptor the parent
/// opened), evaluates the query on a thread with a big stack, writes one JSON
/// response to stdout and returns the exit code (0 unless stdout cannot be
/// written). Call it before starting any async runtime or other threads.
/// [`PLANNER_ENV`](crate::PLANNER_ENV), inherited from the parent, can turn
/// the read planner off.
///
/// A query that recurses without end, exhausts memory or loops forever kills
/// or stalls only this process; [`run_isolated`](crate::run_isolated) turns
/// that into an error message.
pub fn worker_main() -> i32 {
    let response = match read_request() {
        Ok(req) => {
            apply_limits(req.memory_limit_bytes);
            evaluate_on_big_stack(req)
        }
        Err(e) => Err(e),
    };
    let json = serde_json::to_vec(&WireResponse::from(response)).unwrap_or_else(|_| {
        br#"{"status":"error","kind":"worker","message":"cannot encode"}"#.to_vec()
    });
    let mut out = std::io::stdout().lock();
    match out.write_all(&json).and_then(|()| out.flush()) {
        Ok(()) => 0,
        Err(_) => 1,
    }
}

fn read_request() -> Result<WireRequest, QueryError> {
    let text = std::env::var(REQUEST_ENV)
        .map_err(|e| QueryError::Worker(format!("no request in {REQUEST_ENV}: {e}")))?;
    serde_json::from_str(&text).map_err(|e| QueryError::Worker(format!("invalid request: {e}")))
}

/// The file to query: the worker's stdin, a descriptor the parent opened.
fn input_file() -> std::io::Result<std::fs::File> {
    use std::os::fd::AsFd;
    let owned = std::io::stdin().as_fd().try_clone_to_owned()?;
    Ok(std::fs::File::from(owned))
}

#[cfg(unix)]
fn apply_limits(memory_limit_bytes: u64) {
    use rlimit::Resource;
    // An abort must not leave core files behind.
    let _ = Resource::CORE.set(0, 0);
    if memory_limit_bytes > 0 {
        let _ = Resource::AS.set(memory_limit_bytes, memory_limit_bytes);
    }
}

#[cfg(not(unix))]
fn apply_limits(_memory_limit_bytes: u64) {}

fn evaluate_on_big_stack(req: WireRequest) -> Result<Answer, QueryError> {
    let mut stack = EVAL_STACK_BYTES;
    if req.memory_limit_bytes > 0 {
        stack = stack.min(req.memory_limit_bytes / 4).max(8 * 1024 * 1024);
    }
    let limit = req.memory_limit_bytes;
    let handle = std::thread::Builder::new()
        .name("query-eval".into())
        .stack_size(stack as usize)
        .spawn(move || run_request(&req.query, limit));
    match handle {
        Ok(h) => match h.join() {
            Ok(r) => r,
            Err(panic) => {
                let msg = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                if msg.contains("capacity overflow") || msg.contains("memory") {
                    Err(QueryError::MemoryLimit(limit))
                } else {
                    Err(QueryError::Worker(format!("the evaluator panicked: {msg}")))
                }
            }
        },
        // most likely the stack did not fit into the memory limit
        Err(e) if limit > 0 => Err(QueryError::Worker(format!(
            "cannot start the evaluator thread within the memory limit: {e}"
        ))),
        Err(e) => Err(QueryError::Worker(format!(
            "cannot start the evaluator thread: {e}"
        ))),
    }
}

/// Compile first (so a bad query fails fast), then read and query the file
/// from the descriptor on stdin.
fn run_request(req: &QueryRequest, memory_limit: u64) -> Result<Answer, QueryError> {
    use std::io::{Seek, SeekFrom};
    let query = run::compile(&req.expression, Planner::from_env())?;
    let mut file = input_file().map_err(|e| io_error(&req.file_path, &e))?;
    let meta = file.metadata().map_err(|e| io_error(&req.file_path, &e))?;
    if !meta.is_file() {
        return Err(QueryError::Io(format!(
            "{} is not a regular file.",
            req.file_path.display()
        )));
    }
    file.seek(SeekFrom::Start(0))
        .map_err(|e| io_error(&req.file_path, &e))?;
    // a streamed array is read a window at a time, whatever the file's size
    if let Some(result) = run::run_streamed(&query, &mut file, req.format, &req.limits) {
        return result;
    }
    // anything else reads the whole file (again, if the stream gave up)
    if memory_limit > 0 && meta.len() > memory_limit / 2 {
        return Err(QueryError::FileTooLargeToLoad {
            file_bytes: meta.len(),
            memory_limit_bytes: memory_limit,
        });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.seek(SeekFrom::Start(0))
        .and_then(|_| file.read_to_end(&mut bytes))
        .map_err(|e| io_error(&req.file_path, &e))?;
    let result = run::run(&query, &bytes, req.format, &req.limits, true);
    // the process exits right away: skip freeing the file
    std::mem::forget(bytes);
    result
}

fn io_error(path: &Path, e: &std::io::Error) -> QueryError {
    QueryError::Io(format!("cannot read {}: {e}", path.display()))
}

/// Run a query in a child process: `worker` (normally
/// `std::env::current_exe()`) started with `args` (e.g. `["__query-worker"]`)
/// must call [`worker_main`].
///
/// `file` is the file to query, already opened (by the sandbox): it becomes
/// the child's stdin, so the child reads exactly what was checked and never
/// resolves `request.file_path`, which only names the file in messages.
///
/// The child gets `memory_limit_bytes` of address space (0: unlimited) and
/// is killed when `timeout` passes or `cancel` completes; it is also killed if
/// this future is dropped. Crashes become [`QueryError::Crashed`] (stack
/// overflow from unbounded recursion and other signals) or
/// [`QueryError::MemoryLimit`] (allocation failure).
pub async fn run_isolated(
    worker: &Path,
    args: &[&str],
    request: QueryRequest,
    file: std::fs::File,
    timeout: Duration,
    memory_limit_bytes: u64,
    cancel: impl Future<Output = ()>,
) -> Result<Answer, QueryError> {
    let payload = serde_json::to_string(&WireRequest {
        query: request,
        memory_limit_bytes,
    })
    .map_err(|e| QueryError::Worker(format!("cannot encode the request: {e}")))?;
    if payload.len() > MAX_REQUEST_BYTES {
        return Err(QueryError::ExpressionTooLong {
            bytes: payload.len(),
            max_bytes: MAX_REQUEST_BYTES,
        });
    }

    let mut child = tokio::process::Command::new(worker)
        .args(args)
        // one malloc arena: the address-space limit is not eaten by
        // per-thread arena reservations
        .env("MALLOC_ARENA_MAX", "1")
        .env(REQUEST_ENV, payload)
        .env_remove("RUST_BACKTRACE")
        .stdin(Stdio::from(file))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| QueryError::Worker(format!("cannot start {}: {e}", worker.display())))?;

    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let read_out = read_capped(stdout, MAX_RESPONSE_BYTES, false);
    let read_err = read_capped(stderr, MAX_STDERR_BYTES, true);

    enum Outcome {
        Exited(std::io::Result<std::process::ExitStatus>, Vec<u8>, Vec<u8>),
        TimedOut,
        Cancelled,
    }
    let outcome = {
        let run = async {
            let (out, err, status) = tokio::join!(read_out, read_err, child.wait());
            Outcome::Exited(status, out, err)
        };
        tokio::pin!(run);
        tokio::pin!(cancel);
        tokio::select! {
            o = &mut run => o,
            () = tokio::time::sleep(timeout) => Outcome::TimedOut,
            () = &mut cancel => Outcome::Cancelled,
        }
    };
    match outcome {
        Outcome::TimedOut => {
            kill(&mut child).await;
            Err(QueryError::Timeout(timeout))
        }
        Outcome::Cancelled => {
            kill(&mut child).await;
            Err(QueryError::Cancelled)
        }
        Outcome::Exited(status, out, err) => {
            let status = status
                .map_err(|e| QueryError::Worker(format!("cannot wait for the worker: {e}")))?;
            interpret(status, &out, &err, memory_limit_bytes)
        }
    }
}

/// Kill the child and reap it, so that it is gone when this returns.
async fn kill(child: &mut tokio::process::Child) {
    let _ = child.kill().await;
}

/// Read a pipe to its end, keeping at most `cap` bytes (the first ones, or
/// the last ones with `keep_tail`).
async fn read_capped(pipe: Option<impl AsyncRead + Unpin>, cap: usize, keep_tail: bool) -> Vec<u8> {
    let mut kept = Vec::new();
    let Some(mut pipe) = pipe else {
        return kept;
    };
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                kept.extend_from_slice(&buf[..n]);
                if kept.len() > cap {
                    if keep_tail {
                        let cut = kept.len() - cap;
                        kept.drain(..cut);
                    } else {
                        kept.truncate(cap);
                    }
                }
            }
        }
    }
    kept
}

fn interpret(
    status: std::process::ExitStatus,
    stdout: &[u8],
    stderr: &[u8],
    memory_limit_bytes: u64,
) -> Result<Answer, QueryError> {
    let err_text = String::from_utf8_lossy(stderr);
    let out_of_memory = err_text.contains("memory allocation of")
        || err_text.contains("capacity overflow")
        || err_text.contains("out of memory");
    if status.success() {
        // the response is the last line (tolerates stray output before it)
        let parsed = serde_json::from_slice::<WireResponse>(stdout).or_else(|e| {
            let text = String::from_utf8_lossy(stdout);
            let last = text.trim_end().rsplit('\n').next().unwrap_or("");
            serde_json::from_str::<WireResponse>(last).map_err(|_| e)
        });
        return match parsed {
            Ok(WireResponse::Ok { answer }) => Ok(answer),
            Ok(WireResponse::Error { kind, message }) => Err(match kind.as_str() {
                "memory" => QueryError::MemoryLimit(memory_limit_bytes),
                _ => QueryError::from_kind(&kind, message),
            }),
            Err(e) => Err(QueryError::Worker(format!(
                "unreadable answer ({e}); is the worker subcommand wired to worker_main?"
            ))),
        };
    }
    if out_of_memory && memory_limit_bytes > 0 {
        return Err(QueryError::MemoryLimit(memory_limit_bytes));
    }
    if err_text.contains("overflowed its stack") || killed_by_signal(&status) {
        return Err(QueryError::Crashed);
    }
    let tail: String = err_text
        .trim()
        .lines()
        .last()
        .unwrap_or("")
        .chars()
        .take(300)
        .collect();
    Err(QueryError::Worker(format!(
        "the worker exited with {status}: {tail}"
    )))
}

#[cfg(unix)]
fn killed_by_signal(status: &std::process::ExitStatus) -> bool {
    use std::os::unix::process::ExitStatusExt;
    status.signal().is_some()
}

#[cfg(not(unix))]
fn killed_by_signal(_status: &std::process::ExitStatus) -> bool {
    false
}
