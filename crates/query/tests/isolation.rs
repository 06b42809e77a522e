//! Isolation of runaway queries in a worker process.
//!
//! This test binary is its own worker: started with `__query-worker` it runs
//! `worker_main`, exactly like the server binary does; otherwise it runs the
//! test cases below, which spawn `current_exe() __query-worker`.

// Test code: a panic is how a test reports failure, and clippy's allow-unwrap-in-tests
// does not reach helpers outside #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use fs_mcp_query::{
    InputFormat, InputProblem, Limits, QueryError, QueryRequest, run_isolated, worker_main,
};

mod common;
use common::text;

use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::Duration;

const WORKER_ARG: &str = "__query-worker";
/// Generous: the machine may be busy, and no test asserts on durations.
const NORMAL_TIMEOUT: Duration = Duration::from_secs(120);
const MEMORY_LIMIT: u64 = 1 << 30;

fn main() {
    if std::env::args().nth(1).as_deref() == Some(WORKER_ARG) {
        std::process::exit(worker_main());
    }
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let tests: &[(&str, TestFn)] = &[
        ("normal_query_works", normal_query_works),
        ("yaml_query_works", yaml_query_works),
        ("query_errors_come_back_typed", query_errors_come_back_typed),
        (
            "unbounded_recursion_crashes_only_the_worker",
            unbounded_recursion_crashes_only_the_worker,
        ),
        ("infinite_loop_times_out", infinite_loop_times_out),
        (
            "unbounded_allocation_hits_the_memory_limit",
            unbounded_allocation_hits_the_memory_limit,
        ),
        (
            "quadratic_allocation_hits_the_memory_limit",
            quadratic_allocation_hits_the_memory_limit,
        ),
        (
            "cancellation_kills_the_worker",
            cancellation_kills_the_worker,
        ),
        (
            "halt_error_does_not_kill_the_worker",
            halt_error_does_not_kill_the_worker,
        ),
        (
            "missing_worker_binary_is_reported",
            missing_worker_binary_is_reported,
        ),
        (
            "streamed_queries_read_files_bigger_than_the_memory_limit",
            streamed_queries_read_files_bigger_than_the_memory_limit,
        ),
    ];
    let dir = tempfile::tempdir().expect("temp dir");
    let ctx = Ctx {
        exe: std::env::current_exe().expect("current exe"),
        json: write(
            dir.path(),
            "data.json",
            r#"{"items": [{"n": 1}, {"n": 2}], "name": "x"}"#,
        ),
        yaml: write(
            dir.path(),
            "data.yaml",
            "name: x\ncountry: no\nitems:\n  - n: 1\n  - n: 2\n",
        ),
        rt: tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime"),
    };
    let mut failed = Vec::new();
    let mut ran = 0;
    for (name, test) in tests {
        if filter.as_ref().is_some_and(|f| !name.contains(f.as_str())) {
            continue;
        }
        ran += 1;
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| test(&ctx)));
        match result {
            Ok(()) => println!("test {name} ... ok"),
            Err(_) => {
                println!("test {name} ... FAILED");
                failed.push(*name);
            }
        }
    }
    println!(
        "\ntest result: {}. {} passed; {} failed",
        if failed.is_empty() { "ok" } else { "FAILED" },
        ran - failed.len(),
        failed.len()
    );
    if !failed.is_empty() {
        std::process::exit(1);
    }
}

type TestFn = fn(&Ctx);

struct Ctx {
    exe: PathBuf,
    json: PathBuf,
    yaml: PathBuf,
    rt: tokio::runtime::Runtime,
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write test file");
    p
}

impl Ctx {
    fn request(&self, file: &Path, format: InputFormat, expr: &str) -> QueryRequest {
        QueryRequest {
            file_path: file.to_path_buf(),
            expression: expr.to_string(),
            format,
            limits: Limits::default(),
        }
    }

    fn run_with(
        &self,
        req: QueryRequest,
        timeout: Duration,
        cancel: impl Future<Output = ()>,
    ) -> Result<String, QueryError> {
        let file = std::fs::File::open(&req.file_path).expect("open the queried file");
        self.rt
            .block_on(run_isolated(
                &self.exe,
                &[WORKER_ARG],
                req,
                file,
                timeout,
                MEMORY_LIMIT,
                cancel,
            ))
            .map(|answer| text(&answer))
    }

    fn json(&self, expr: &str, timeout: Duration) -> Result<String, QueryError> {
        let req = self.request(&self.json, InputFormat::Json, expr);
        self.run_with(req, timeout, std::future::pending())
    }

    /// A normal query, to show the previous hazard left nothing broken.
    fn still_works(&self) {
        assert_eq!(
            self.json(".items | map(.n)", NORMAL_TIMEOUT),
            Ok("[1,2]".into())
        );
        assert_eq!(workers_alive(), 0, "a worker process is still running");
    }
}

/// Worker processes that are children of this process (Linux only; 0
/// elsewhere).
fn workers_alive() -> usize {
    let me = std::process::id().to_string();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut n = 0;
    for e in entries.flatten() {
        let path = e.path();
        let Ok(stat) = std::fs::read_to_string(path.join("stat")) else {
            continue;
        };
        // pid (comm) state ppid ...
        let Some(after) = stat.rsplit_once(')').map(|(_, a)| a) else {
            continue;
        };
        let mut fields = after.split_whitespace();
        let state = fields.next().unwrap_or("");
        let ppid = fields.next().unwrap_or("");
        if ppid != me || state == "Z" {
            continue;
        }
        let cmdline = std::fs::read(path.join("cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmdline).contains(WORKER_ARG) {
            n += 1;
        }
    }
    n
}

fn normal_query_works(ctx: &Ctx) {
    assert_eq!(
        ctx.json(".name, (.items | length)", NORMAL_TIMEOUT),
        Ok("\"x\"\n2".into())
    );
    assert_eq!(
        ctx.json("{} | .a.b = 1", NORMAL_TIMEOUT),
        Ok("{\"a\":{\"b\":1}}".into())
    );
}

fn yaml_query_works(ctx: &Ctx) {
    let req = ctx.request(
        &ctx.yaml,
        InputFormat::Yaml,
        "[.country, (.items | length)]",
    );
    assert_eq!(
        ctx.run_with(req, NORMAL_TIMEOUT, std::future::pending()),
        Ok("[\"no\",2]".into())
    );
}

fn query_errors_come_back_typed(ctx: &Ctx) {
    match ctx.json(".a | select(", NORMAL_TIMEOUT) {
        // the structured error crosses the worker's pipe whole: place, problem and hint
        Err(QueryError::Syntax(e)) => {
            assert!(e.to_string().contains("line 1, column"), "{e}");
            assert_eq!(e.at.map(|at| at.line), Some(1));
            assert!(e.hint.is_some(), "{e:?}");
        }
        other => panic!("{other:?}"),
    }
    match ctx.json("nosuchfn", NORMAL_TIMEOUT) {
        Err(QueryError::Compile(e)) => assert!(e.to_string().contains("nosuchfn/0"), "{e}"),
        other => panic!("{other:?}"),
    }
    match ctx.json("error(\"boom\")", NORMAL_TIMEOUT) {
        Err(e @ QueryError::Runtime(_)) => assert_eq!(e.to_string(), "jq error: boom"),
        other => panic!("{other:?}"),
    }
    let req = ctx.request(&ctx.yaml, InputFormat::Json, "keys");
    match ctx.run_with(req, NORMAL_TIMEOUT, std::future::pending()) {
        Err(QueryError::Input(InputProblem::InvalidJson {
            looks_like_yaml: true,
            ..
        })) => {}
        other => panic!("{other:?}"),
    }
    // The worker reads the descriptor it is given and checks it is a regular file itself.
    let dir = ctx.json.parent().expect("temp dir");
    let req = ctx.request(dir, InputFormat::Json, ".");
    match ctx.run_with(req, NORMAL_TIMEOUT, std::future::pending()) {
        Err(QueryError::Io(m)) => assert!(m.contains("is not a regular file"), "{m}"),
        other => panic!("{other:?}"),
    }
}

fn unbounded_recursion_crashes_only_the_worker(ctx: &Ctx) {
    let r = ctx.json("def f: 1 + f; f", NORMAL_TIMEOUT);
    assert_eq!(r, Err(QueryError::Crashed));
    ctx.still_works();
}

fn infinite_loop_times_out(ctx: &Ctx) {
    let r = ctx.json("last(range(1e15))", Duration::from_secs(2));
    assert_eq!(r, Err(QueryError::Timeout(Duration::from_secs(2))));
    assert_eq!(workers_alive(), 0, "the timed-out worker is still running");
    ctx.still_works();
}

fn unbounded_allocation_hits_the_memory_limit(ctx: &Ctx) {
    let r = ctx.json("[range(1e10)] | length", NORMAL_TIMEOUT);
    assert_eq!(r, Err(QueryError::MemoryLimit(MEMORY_LIMIT)));
    ctx.still_works();
}

fn quadratic_allocation_hits_the_memory_limit(ctx: &Ctx) {
    // strings that double in size
    let r = ctx.json(
        "reduce range(64) as $i (\"xxxxxxxx\"; . + .) | length",
        NORMAL_TIMEOUT,
    );
    assert_eq!(r, Err(QueryError::MemoryLimit(MEMORY_LIMIT)));
    ctx.still_works();
}

fn cancellation_kills_the_worker(ctx: &Ctx) {
    let cancel = async {
        // wait until the worker is running, then cancel
        for _ in 0..600 {
            tokio::time::sleep(Duration::from_millis(50)).await;
            if workers_alive() > 0 {
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let req = ctx.request(&ctx.json, InputFormat::Json, "last(range(1e15))");
    let r = ctx.run_with(req, NORMAL_TIMEOUT, cancel);
    assert_eq!(r, Err(QueryError::Cancelled));
    assert_eq!(workers_alive(), 0, "the cancelled worker is still running");
    ctx.still_works();
}

fn halt_error_does_not_kill_the_worker(ctx: &Ctx) {
    let r = ctx.json(".name, (\"stop\" | halt_error(1)), 3", NORMAL_TIMEOUT);
    let text = r.expect("results before halt_error");
    // the note crosses the worker's pipe as data
    assert!(
        text.starts_with(
            "\"x\"\n\nErrorAfterResults { results: 1, error: \"halt_error (exit code 1): stop"
        ),
        "{text}"
    );
    assert_eq!(
        ctx.json("halt", NORMAL_TIMEOUT),
        Ok("No results found.".into())
    );
}

fn missing_worker_binary_is_reported(ctx: &Ctx) {
    let req = ctx.request(&ctx.json, InputFormat::Json, ".");
    let file = std::fs::File::open(&ctx.json).expect("open the queried file");
    let r = ctx.rt.block_on(run_isolated(
        Path::new("/nonexistent/fs-mcp-rs"),
        &[WORKER_ARG],
        req,
        file,
        NORMAL_TIMEOUT,
        MEMORY_LIMIT,
        std::future::pending(),
    ));
    match r {
        Err(QueryError::Worker(m)) => assert!(m.contains("cannot start"), "{m}"),
        other => panic!("{other:?}"),
    }
}

/// A JSON file bigger than the worker's address-space limit (`RLIMIT_AS`,
/// what `prlimit --as` sets) answers queries that stream its array: the
/// worker reads it a window at a time and never holds it. A query that needs
/// the whole document is refused by size under the same limit, so the
/// stream is what made the difference.
fn streamed_queries_read_files_bigger_than_the_memory_limit(ctx: &Ctx) {
    use std::io::Write;
    const LIMIT: u64 = 160 << 20;
    let path = ctx.json.with_file_name("big.json");
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
    let pad = "x".repeat(16 * 1024);
    let items = 12_000;
    out.write_all(br#"{"meta": {"n": 12000}, "items": ["#)
        .expect("write");
    for i in 0..items {
        let sep = if i + 1 == items { "" } else { "," };
        write!(
            out,
            r#"{{"id": {i}, "score": {}, "group": "g{}", "pad": "{pad}"}}{sep}"#,
            i % 1000,
            i % 7
        )
        .expect("write");
    }
    out.write_all(b"]}\n").expect("write");
    out.flush().expect("flush");
    drop(out);
    let size = std::fs::metadata(&path).expect("stat").len();
    assert!(
        size > LIMIT,
        "the file ({size} bytes) must exceed the limit"
    );
    let run = |expr: &str| {
        let req = ctx.request(&path, InputFormat::Json, expr);
        let file = std::fs::File::open(&path).expect("open the queried file");
        ctx.rt.block_on(run_isolated(
            &ctx.exe,
            &[WORKER_ARG],
            req,
            file,
            NORMAL_TIMEOUT,
            LIMIT,
            std::future::pending(),
        ))
    };
    let results = |expr: &str| run(expr).map(|answer| answer.results);
    assert_eq!(
        results("[.items[] | select(.score > 990) | {id}] | length"),
        Ok("108".into())
    );
    assert_eq!(results(".items | length"), Ok("12000".into()));
    assert_eq!(
        results(".items | group_by(.group) | map(length) | add"),
        Ok("12000".into())
    );
    match run(".meta.n, (.items | length)") {
        Err(QueryError::FileTooLargeToLoad {
            memory_limit_bytes, ..
        }) => assert_eq!(memory_limit_bytes, LIMIT),
        other => panic!("a whole-document query under the limit: {other:?}"),
    }
    std::fs::remove_file(&path).expect("remove");
    ctx.still_works();
}
