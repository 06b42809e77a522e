//! A minimal MCP client for integration tests: it starts the real binary and speaks JSON-RPC
//! over its stdio, as an MCP client does.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

pub const BIN: &str = env!("CARGO_BIN_EXE_fs-mcp-rs");
const TIMEOUT: Duration = Duration::from_secs(30);

pub struct StdioClient {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Every line the server wrote to stdout, in order.
    pub transcript: Arc<Mutex<Vec<String>>>,
    /// Everything the server wrote to stderr.
    pub stderr: Arc<Mutex<String>>,
    next_id: u64,
    /// Notifications received while waiting for responses.
    pub notifications: Vec<Value>,
    pub initialize_result: Value,
    /// Roots this client serves (`roots/list`); `None` means it does not support roots.
    pub roots: Option<Vec<String>>,
    /// Responses that arrived while waiting for another id.
    pending: Vec<Value>,
}

impl StdioClient {
    /// Starts `fs-mcp-rs ARGS` in `cwd` and performs the MCP handshake.
    pub fn start(cwd: &Path, args: &[&str]) -> StdioClient {
        Self::start_with_roots(cwd, args, None)
    }

    /// Starts the server as a client that serves `roots` (file URIs) when asked.
    pub fn start_with_roots(cwd: &Path, args: &[&str], roots: Option<Vec<String>>) -> StdioClient {
        let mut client = Self::spawn(cwd, args);
        let capabilities = if roots.is_some() {
            json!({"roots": {"listChanged": true}})
        } else {
            json!({})
        };
        client.roots = roots;
        let init = client.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": capabilities,
                "clientInfo": {"name": "fs-mcp-rs-tests", "version": "1"}
            }),
        );
        client.initialize_result = init["result"].clone();
        client.notify("notifications/initialized", json!({}));
        client
    }

    /// Starts the binary without a handshake.
    pub fn spawn(cwd: &Path, args: &[&str]) -> StdioClient {
        Self::spawn_full(cwd, &[], args, &[])
    }

    /// Starts `fs-mcp-rs ARGS` with extra environment variables and performs the handshake.
    pub fn start_with_env(cwd: &Path, args: &[&str], env: &[(&str, &Path)]) -> StdioClient {
        Self::handshake(Self::spawn_full(cwd, &[], args, env))
    }

    /// Starts `WRAPPER… fs-mcp-rs ARGS` (e.g. `prlimit --as=N --`) and performs the handshake.
    pub fn start_wrapped(cwd: &Path, wrapper: &[&str], args: &[&str]) -> StdioClient {
        Self::handshake(Self::spawn_full(cwd, wrapper, args, &[]))
    }

    /// Starts the binary, under `wrapper` if not empty, without a handshake.
    pub fn spawn_wrapped(cwd: &Path, wrapper: &[&str], args: &[&str]) -> StdioClient {
        Self::spawn_full(cwd, wrapper, args, &[])
    }

    /// Starts the binary with extra environment variables, without a handshake.
    pub fn spawn_with_env(cwd: &Path, args: &[&str], env: &[(&str, &Path)]) -> StdioClient {
        Self::spawn_full(cwd, &[], args, env)
    }

    pub fn handshake(mut client: StdioClient) -> StdioClient {
        let init = client.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "fs-mcp-rs-tests", "version": "1"}
            }),
        );
        client.initialize_result = init["result"].clone();
        client.notify("notifications/initialized", json!({}));
        client
    }

    /// Starts the binary (under `wrapper` if not empty, with extra environment variables),
    /// without a handshake.
    pub fn spawn_full(
        cwd: &Path,
        wrapper: &[&str],
        args: &[&str],
        env: &[(&str, &Path)],
    ) -> StdioClient {
        let mut command = match wrapper.split_first() {
            Some((program, rest)) => {
                let mut c = Command::new(program);
                c.args(rest).arg(BIN);
                c
            }
            None => Command::new(BIN),
        };
        let mut child = command
            .args(args)
            .current_dir(cwd)
            .envs(env.iter().map(|(k, v)| (*k, *v)))
            .env_remove("RUST_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start fs-mcp-rs");
        let stdout = child.stdout.take().expect("stdout");
        let stderr = child.stderr.take().expect("stderr");
        let stdin = child.stdin.take();
        let transcript = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = mpsc::channel();
        let record = Arc::clone(&transcript);
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                record.lock().unwrap().push(line.clone());
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let err_text = Arc::new(Mutex::new(String::new()));
        let err_sink = Arc::clone(&err_text);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let mut s = err_sink.lock().unwrap();
                s.push_str(&line);
                s.push('\n');
            }
        });
        StdioClient {
            child,
            stdin,
            lines: rx,
            transcript,
            stderr: err_text,
            next_id: 1,
            notifications: Vec::new(),
            initialize_result: Value::Null,
            roots: None,
            pending: Vec::new(),
        }
    }

    pub fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").expect("write to server");
        stdin.flush().expect("flush");
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and waits for the response with the same id.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.wait_for(id)
    }

    pub fn wait_for(&mut self, id: u64) -> Value {
        if let Some(at) = self
            .pending
            .iter()
            .position(|m| m.get("id") == Some(&json!(id)))
        {
            return self.pending.remove(at);
        }
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let message: Value = serde_json::from_str(&line)
                        .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
                    if message.get("id") == Some(&json!(id)) && message.get("method").is_none() {
                        return message;
                    }
                    if message.get("method").is_some() && message.get("id").is_some() {
                        self.answer_server_request(&message);
                    } else if message.get("method").is_some() {
                        self.notifications.push(message);
                    } else {
                        self.pending.push(message);
                    }
                }
                Err(RecvTimeoutError::Timeout) => panic!(
                    "no response to request {id} within {TIMEOUT:?}; stderr:\n{}",
                    self.stderr.lock().unwrap()
                ),
                Err(RecvTimeoutError::Disconnected) => panic!(
                    "server closed stdout before answering {id}; stderr:\n{}",
                    self.stderr.lock().unwrap()
                ),
            }
        }
    }

    /// Answers a request the server sent to the client (only `roots/list` is supported).
    fn answer_server_request(&mut self, message: &Value) {
        let reply = match (message["method"].as_str(), &self.roots) {
            (Some("roots/list"), Some(roots)) => json!({
                "jsonrpc": "2.0", "id": message["id"],
                "result": {"roots": roots.iter().map(|uri| json!({"uri": uri})).collect::<Vec<_>>()}
            }),
            _ => json!({
                "jsonrpc": "2.0", "id": message["id"],
                "error": {"code": -32601, "message": "Method not found"}
            }),
        };
        self.send(&reply);
    }

    pub fn list_tools(&mut self) -> Vec<Value> {
        let response = self.request("tools/list", json!({}));
        response["result"]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("tools/list failed: {response}"))
            .clone()
    }

    /// Calls a tool; returns the whole `result` object (content, isError, ...).
    pub fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let response = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        match response.get("result") {
            Some(result) => result.clone(),
            None => panic!("tools/call {tool} returned a JSON-RPC error: {response}"),
        }
    }

    /// Calls a tool and returns its first text block, asserting it did not fail.
    pub fn call_text(&mut self, tool: &str, arguments: Value) -> String {
        let result = self.call(tool, arguments);
        assert_ne!(result["isError"], json!(true), "{tool} failed: {result}");
        text_of(&result)
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends a request without waiting for its response; returns its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// The response with this id if it arrives within `limit`; `None` if stdout closes or time
    /// runs out first.
    pub fn try_wait_for(&mut self, id: u64, limit: Duration) -> Option<Value> {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.lines.recv_timeout(left).ok()?;
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if message.get("id") == Some(&json!(id)) && message.get("method").is_none() {
                return Some(message);
            }
            if message.get("method").is_some() && message.get("id").is_none() {
                self.notifications.push(message);
            }
        }
    }

    /// Writes one raw line to the server's stdin.
    pub fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write to server");
        stdin.flush().expect("flush");
    }

    /// The next message that is not a notification, if one arrives within `limit`.
    pub fn try_wait_for_any(&mut self, limit: Duration) -> Option<Value> {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self.lines.recv_timeout(left).ok()?;
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
            if message.get("method").is_some() && message.get("id").is_none() {
                self.notifications.push(message);
            } else {
                return Some(message);
            }
        }
    }

    /// Closes the server's stdin (EOF).
    pub fn close_stdin(&mut self) {
        drop(self.stdin.take());
    }

    /// The exit status if the process ends within `limit`.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        wait_child(&mut self.child, limit)
    }

    /// Closes stdin and waits for the process to exit.
    pub fn finish(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("server did not exit after stdin closed");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// How long a finished test gives the server to stop by itself (and remove its review files).
const GRACEFUL_STOP: Duration = Duration::from_secs(2);

impl Drop for StdioClient {
    fn drop(&mut self) {
        // End of input stops the server cleanly; kill it only if that does not work.
        drop(self.stdin.take());
        if wait_child(&mut self.child, GRACEFUL_STOP).is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// CPU seconds (user and system) `pid` has used so far, from `/proc/{pid}/stat`: attack tests
/// bound a call's work with it, never with the wall clock.
pub fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("/proc/PID/stat");
    // utime and stime are the 12th and 13th fields after the parenthesised command name.
    let (_, rest) = stat.rsplit_once(')').expect("stat has a command name");
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    // Linux reports them in USER_HZ, 100 a second on every architecture it exports to.
    ticks as f64 / 100.0
}

/// The text of a tool result's first content block.
pub fn text_of(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text content in {result}"))
        .to_string()
}

/// A workspace in a temp dir: `root` is canonical.
pub struct Workspace {
    pub _tmp: tempfile::TempDir,
    pub base: std::path::PathBuf,
    pub root: std::path::PathBuf,
}

impl Workspace {
    /// `base/ws` is the allowed directory; `base` holds siblings outside it.
    pub fn new() -> Workspace {
        let tmp = tempfile::tempdir().expect("tempdir");
        let base = std::fs::canonicalize(tmp.path()).expect("canonical");
        let root = base.join("ws");
        std::fs::create_dir_all(&root).expect("mkdir ws");
        Workspace {
            _tmp: tmp,
            base,
            root,
        }
    }

    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> std::path::PathBuf {
        let path = self.root.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&path, content).expect("write");
        path
    }

    pub fn start(&self, extra: &[&str]) -> StdioClient {
        let root = self.root.to_str().expect("utf8 path").to_string();
        let mut args: Vec<&str> = extra.to_vec();
        args.push(&root);
        StdioClient::start(&self.base, &args)
    }
}

/// Every key anywhere in a JSON value.
pub fn all_keys(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                out.push(k.clone());
                all_keys(v, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| all_keys(v, out)),
        _ => {}
    }
}

/// Waits up to `limit` for a child to exit.
pub fn wait_child(child: &mut Child, limit: Duration) -> Option<std::process::ExitStatus> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return Some(status);
        }
        if Instant::now() > deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A mark a test puts in the environment of every process it starts (the variable
/// `FS_MCP_TEST_MARK`), which each process they start inherits: after the test, the processes
/// still carrying it are the ones it left behind, whatever session or group they moved to.
pub struct ProcessMark(String);

impl ProcessMark {
    /// A mark no other test or run uses.
    pub fn new(test: &str) -> ProcessMark {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default();
        ProcessMark(format!("{test}-{}-{nanos}", std::process::id()))
    }

    /// Marks a command (and so everything it starts).
    pub fn apply<'c>(&self, command: &'c mut Command) -> &'c mut Command {
        command.env("FS_MCP_TEST_MARK", &self.0)
    }

    /// The processes still running with this mark, each as `pid: command line`; each is sent
    /// SIGKILL, so a failing test leaves nothing behind either.
    pub fn end_survivors(&self) -> Vec<String> {
        let wanted = format!("FS_MCP_TEST_MARK={}", self.0);
        let mut survivors = Vec::new();
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
                continue;
            };
            if !environ.split(|&b| b == 0).any(|v| v == wanted.as_bytes()) {
                continue;
            }
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .stderr(Stdio::null())
                .status();
            survivors.push(format!("{pid}: {}", cmdline.trim_end()));
        }
        survivors
    }
}

/// The review page link in a PENDING answer's message: (base URL, token).
pub fn review_link(message: &str) -> (String, String) {
    let start = message
        .find("http://127.0.0.1:")
        .unwrap_or_else(|| panic!("no link in {message}"));
    let url: String = message[start..]
        .chars()
        .take_while(|c| !c.is_whitespace())
        .collect();
    let (base, token) = url
        .split_once("/?token=")
        .unwrap_or_else(|| panic!("no token in {url}"));
    (base.to_string(), token.to_string())
}

/// The review page's list of open reviews for `token` (`GET /api/reviews`).
pub async fn page_reviews(base: &str, token: &str) -> Value {
    reqwest::Client::new()
        .get(format!("{base}/api/reviews"))
        .header("x-fs-mcp-token", token)
        .send()
        .await
        .expect("list reviews")
        .json()
        .await
        .expect("JSON list")
}

/// Posts a decision to the review page with `token` (`None`: without one); the status.
pub async fn page_post_decision(
    base: &str,
    token: Option<&str>,
    body: &Value,
) -> reqwest::StatusCode {
    let mut request = reqwest::Client::new()
        .post(format!("{base}/api/reviews/decide"))
        .json(body);
    if let Some(token) = token {
        request = request.header("x-fs-mcp-token", token);
    }
    request.send().await.expect("decide").status()
}

/// Sends a signal (`TERM`, `INT`) to a process.
pub fn send_signal(pid: u32, signal: &str) {
    let status = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -{signal} {pid} failed");
}

/// Starts `command` (no `RUST_LOG` or `FS_MCP_HTTP_TOKEN` from the test's environment, stdin
/// and stdout closed) and waits until its stderr shows an `http://` URL, or ends, or [`TIMEOUT`]
/// passes. Returns the process, the URL (from `http://` to the end of that line), and its
/// stderr so far (collected on, until the process ends).
pub fn start_announcing_url(command: &mut Command) -> (Child, Option<String>, Arc<Mutex<String>>) {
    let mut child = command
        .env_remove("RUST_LOG")
        .env_remove("FS_MCP_HTTP_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the server");
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = mpsc::channel();
    let text = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&text);
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            {
                let mut s = sink.lock().unwrap();
                s.push_str(&line);
                s.push('\n');
            }
            if let Some(at) = line.find("http://") {
                let _ = tx.send(line[at..].trim().to_string());
            }
        }
    });
    let url = rx.recv_timeout(TIMEOUT).ok();
    (child, url, text)
}

/// Kills a child process when dropped (also when an assertion failed first).
pub struct KillOnDrop(pub Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The binary serving streamable HTTP on a free loopback port.
pub struct HttpServer {
    child: Child,
    /// `http://127.0.0.1:PORT/mcp`, as the server logged it.
    pub url: String,
    /// Everything the server wrote to stderr.
    pub stderr: Arc<Mutex<String>>,
}

impl HttpServer {
    /// Starts `fs-mcp-rs --http 127.0.0.1:0 EXTRA… ROOT` and waits for the URL it logs.
    pub fn start(ws: &Workspace, extra: &[&str]) -> HttpServer {
        Self::start_with(ws, extra, &[], None)
    }

    /// As [`HttpServer::start`], with extra environment variables and, optionally, a lower
    /// file descriptor limit (`ulimit -n`) for the server.
    pub fn start_with(
        ws: &Workspace,
        extra: &[&str],
        env: &[(&str, &Path)],
        fd_limit: Option<u32>,
    ) -> HttpServer {
        let mut command = match fd_limit {
            Some(limit) => {
                let mut c = Command::new("sh");
                c.arg("-c")
                    .arg(format!("ulimit -n {limit} && exec \"$0\" \"$@\""))
                    .arg(BIN);
                c
            }
            None => Command::new(BIN),
        };
        command
            .args(["--http", "127.0.0.1:0"])
            .args(extra)
            .arg(&ws.root)
            .envs(env.iter().map(|(k, v)| (*k, *v)));
        let (child, url, stderr) = start_announcing_url(&mut command);
        HttpServer {
            child,
            url: url.expect("server printed its URL on stderr"),
            stderr,
        }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `127.0.0.1:PORT`.
    pub fn authority(&self) -> String {
        self.url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .to_string()
    }

    /// The exit status if the process ends within `limit`.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        wait_child(&mut self.child, limit)
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        // SIGTERM stops the server cleanly; kill it only if that does not work.
        let stopped = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status()
            .is_ok_and(|s| s.success())
            && wait_child(&mut self.child, GRACEFUL_STOP).is_some();
        if !stopped {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A read_files reply with its random per-reply tag (`[` + 8 hex digits + `]`, the reply's first
/// 10 characters) replaced by `[TAG]`, for exact comparisons. Panics if the reply has no tag.
pub fn untag(reply: &str) -> String {
    let tag = reply.get(..10).unwrap_or_default();
    let well_formed = tag.len() == 10
        && tag.starts_with('[')
        && tag.ends_with(']')
        && tag[1..9]
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    assert!(
        well_formed,
        "the reply does not start with a tag: {reply:?}"
    );
    reply.replace(tag, "[TAG]")
}

/// Swaps `a` and `b` with `renameat2(RENAME_EXCHANGE)` until told to stop (at most `max` times,
/// and at most two minutes): the race the confinement tests run a tool against. The swaps are
/// always an even number, so `a` and `b` end as they began and checks after the race see the
/// tree the test built (an odd count left `a` the symlink to outside now and then).
///
/// The thread never outlives the test that started it: dropping the [`Swapper`] (as a panicking
/// test does while it unwinds, before its fixture goes) stops and joins it, and a swap that fails
/// ends the loop instead of panicking on a fixture being removed.
pub fn swapper(
    a: std::path::PathBuf,
    b: std::path::PathBuf,
    stop: Arc<std::sync::atomic::AtomicBool>,
    max: usize,
) -> Swapper {
    let flag = Arc::clone(&stop);
    let thread = std::thread::spawn(move || {
        let exchange = || {
            rustix::fs::renameat_with(
                rustix::fs::CWD,
                &a,
                rustix::fs::CWD,
                &b,
                rustix::fs::RenameFlags::EXCHANGE,
            )
            .map_err(|e| format!("renameat2(RENAME_EXCHANGE) of {a:?} and {b:?}: {e}"))
        };
        let deadline = Instant::now() + Duration::from_secs(120);
        let mut swaps = 0;
        while !flag.load(std::sync::atomic::Ordering::Relaxed)
            && swaps < max
            && Instant::now() < deadline
        {
            exchange()?;
            swaps += 1;
            // Let the server's walk run between swaps now and then.
            if swaps % 64 == 0 {
                std::thread::yield_now();
            }
        }
        if swaps % 2 == 1 {
            exchange()?;
            swaps += 1;
        }
        Ok(swaps)
    });
    Swapper {
        stop,
        thread: Some(thread),
    }
}

/// The running swap loop of [`swapper`].
pub struct Swapper {
    stop: Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<Result<usize, String>>>,
}

impl Swapper {
    /// Stops the loop (if the test has not yet) and says how many swaps were made.
    pub fn finish(mut self) -> usize {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let thread = self.thread.take().expect("joined once");
        thread
            .join()
            .expect("the swap thread does not panic")
            .unwrap_or_else(|e| panic!("the swap loop failed: {e}"))
    }
}

impl Drop for Swapper {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Compares `actual` with the golden file tests/golden/`relative`, or rewrites it when
/// UPDATE_GOLDEN is set. `what` names the output in the failure, `test` the module of the
/// integration tests that regenerates it.
pub fn assert_golden(relative: &str, actual: &str, what: &str, test: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(relative);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().expect("golden dir")).expect("mkdir golden dir");
        std::fs::write(&path, actual).expect("write golden file");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {}: {e}\nGenerate it with: UPDATE_GOLDEN=1 cargo test --test integration {test}::",
            path.display()
        )
    });
    if actual != expected {
        let first_difference = actual
            .lines()
            .zip(expected.lines())
            .enumerate()
            .find(|(_, (a, e))| a != e)
            .map(|(i, (a, e))| format!("line {}:\n  golden: {e}\n  actual: {a}", i + 1))
            .unwrap_or_else(|| "one output is a prefix of the other".to_string());
        panic!(
            "{what} differs from {}; first difference at {first_difference}\n\
             If the change is deliberate: UPDATE_GOLDEN=1 cargo test --test integration {test}::, then review git diff tests/golden/",
            path.display()
        );
    }
}

/// Every object with properties is OpenAI-strict: all properties required,
/// `additionalProperties: false`.
pub fn assert_openai_strict(schema: &Value, path: &str) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::Object(props)) = map.get("properties") {
                let mut keys: Vec<&str> = props.keys().map(String::as_str).collect();
                keys.sort_unstable();
                let mut required: Vec<&str> = map
                    .get("required")
                    .and_then(Value::as_array)
                    .unwrap_or_else(|| panic!("{path}: no required"))
                    .iter()
                    .filter_map(Value::as_str)
                    .collect();
                required.sort_unstable();
                assert_eq!(keys, required, "{path}: every property is required");
                assert_eq!(map["additionalProperties"], json!(false), "{path}");
            }
            for (k, v) in map {
                assert_openai_strict(v, &format!("{path}/{k}"));
            }
        }
        Value::Array(items) => items
            .iter()
            .enumerate()
            .for_each(|(i, v)| assert_openai_strict(v, &format!("{path}/{i}"))),
        _ => {}
    }
}

/// The JSON-RPC message of a response body, plain JSON or SSE `data:` lines.
pub fn parse_body(body: &str) -> Value {
    if let Ok(v) = serde_json::from_str(body) {
        return v;
    }
    body.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .find(|v| v.get("id").is_some())
        .unwrap_or_else(|| panic!("no JSON-RPC response in body: {body}"))
}

/// A running `fs-mcp-rs ui` page (or another command whose first stdout line is the page URL
/// `http://127.0.0.1:PORT/?token=…`). Dropped: SIGTERM first, so the server removes its review
/// session directories, SIGKILL if it lingers.
pub struct UiPage {
    pub child: Child,
    /// The URL as printed.
    pub url: String,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    pub token: String,
}

impl UiPage {
    /// `fs-mcp-rs ui --port 0 EXTRA… DIR`, its stderr shown.
    pub fn start(dir: &Path, extra: &[&str]) -> UiPage {
        let mut command = Command::new(BIN);
        command
            .args(["ui", "--port", "0"])
            .args(extra)
            .arg(dir)
            .stderr(Stdio::inherit());
        UiPage::spawn(command)
    }

    /// Starts `command` (stdin closed, stdout read for the URL line).
    pub fn spawn(mut command: Command) -> UiPage {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start fs-mcp-rs ui");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("read the URL line");
        let url = line.trim().to_string();
        let (base, token) = url
            .split_once("/?token=")
            .unwrap_or_else(|| panic!("the first stdout line is not the page URL: {line:?}"));
        UiPage {
            base: base.to_string(),
            token: token.to_string(),
            url: url.clone(),
            child,
        }
    }

    /// `127.0.0.1:PORT`.
    pub fn addr(&self) -> &str {
        self.base.trim_start_matches("http://")
    }
}

impl Drop for UiPage {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        for _ in 0..50 {
            if matches!(self.child.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The official Python MCP SDK's interpreter (`target/clients/venv`, or under
/// FS_MCP_CLIENTS_DIR), when installed; `None` with a note when not, a failure under
/// FS_MCP_REQUIRE_CLIENTS=1.
pub fn sdk_python() -> Option<std::path::PathBuf> {
    let dir = std::env::var_os("FS_MCP_CLIENTS_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/clients"));
    let python = dir.join("venv/bin/python");
    if python.exists() {
        return Some(python);
    }
    if std::env::var("FS_MCP_REQUIRE_CLIENTS").as_deref() == Ok("1") {
        panic!(
            "the Python MCP SDK is missing under {}: run `cargo xtask clients install`",
            dir.display()
        );
    }
    eprintln!("skipping: the Python MCP SDK is not installed (run `cargo xtask clients install`)");
    None
}
