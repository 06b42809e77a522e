//! The upstream as a child process: its stdio framing and its lifetime.
//!
//! rmcp's child-process transport drops a line it cannot parse, so the request it answered waits
//! for ever, and it holds a line of any length in memory. This one reads lines of at most
//! [`MAX_LINE_BYTES`]; a line that does not parse (too long, nested too deep, invalid UTF-8, a
//! number out of range, an error code that is not an i32) becomes a JSON-RPC error answering the
//! request it names, saying what was wrong and for which method. It keeps the raw tools of each
//! `tools/list` answer (rmcp's `Tool` drops fields it does not know, `execution` among them), and
//! sends the client's argument text where the proxy did not change it (big integers stay exact).
//!
//! Shutdown follows MCP's stdio lifecycle: close the upstream's stdin, wait, SIGTERM, wait,
//! SIGKILL, each wait bounded; the signals go to the upstream's process group (it is started in
//! one of its own), so `npx`/`uvx` wrappers and their children go too. On Linux the upstream also
//! gets SIGKILL when the proxy dies without that shutdown (PR_SET_PDEATHSIG).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{ErrorCode, ErrorData, GetExtensions, JsonRpcMessage, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::{mpsc, watch};

use super::scan::IdScanner;
use crate::stdio::{MAX_LINE_BYTES, RawArguments};

/// How long each shutdown step waits for the upstream to exit before the next, harder one.
pub const SHUTDOWN_STEP: Duration = Duration::from_secs(2);

/// Lines read ahead of rmcp (each at most [`MAX_LINE_BYTES`]).
const READ_AHEAD_LINES: usize = 4;

/// `tools/list` answers kept for the session to pick up (a session lists one at a time).
const MAX_KEPT_PAGES: usize = 4;

type Stdin = Arc<tokio::sync::Mutex<Option<ChildStdin>>>;

/// A running upstream process.
pub struct UpstreamChild {
    pid: Option<u32>,
    stdin: Stdin,
    exited: watch::Receiver<bool>,
    /// One shutdown at a time: a second caller waits for the first one's outcome.
    shutting_down: tokio::sync::Mutex<()>,
}

impl UpstreamChild {
    /// True once the process has exited (and was reaped).
    pub fn has_exited(&self) -> bool {
        *self.exited.borrow()
    }

    async fn wait_exit(&self, limit: Duration) -> bool {
        let mut exited = self.exited.clone();
        tokio::time::timeout(limit, exited.wait_for(|done| *done))
            .await
            .is_ok()
    }

    /// Sends `signal` to the upstream's process group while its leader is not reaped (so the
    /// group id cannot have been reused).
    fn signal(&self, signal: libc::c_int) {
        let Some(pid) = self.pid.and_then(|p| libc::pid_t::try_from(p).ok()) else {
            return;
        };
        if self.has_exited() {
            return;
        }
        // libc: tokio signals only the child itself, not its process group.
        #[allow(unsafe_code)]
        // SAFETY: kill(2) takes plain integers and touches no memory of ours.
        unsafe {
            libc::kill(-pid, signal);
        }
    }

    /// Closes stdin, waits, SIGTERM, waits, SIGKILL: at most about 2 × [`SHUTDOWN_STEP`] + 1 s.
    pub async fn shut_down(&self) {
        let _one_at_a_time = self.shutting_down.lock().await;
        if self.has_exited() {
            return;
        }
        // A write blocked on a full pipe holds the lock; then go on to the signals.
        if let Ok(mut stdin) =
            tokio::time::timeout(Duration::from_millis(200), self.stdin.lock()).await
        {
            drop(stdin.take());
        }
        if self.wait_exit(SHUTDOWN_STEP).await {
            return;
        }
        tracing::info!("the upstream did not exit after its input closed: SIGTERM");
        self.signal(libc::SIGTERM);
        if self.wait_exit(SHUTDOWN_STEP).await {
            return;
        }
        tracing::warn!("the upstream ignored SIGTERM: SIGKILL");
        self.signal(libc::SIGKILL);
        self.wait_exit(Duration::from_secs(1)).await;
    }
}

/// One `tools/list` answer's tools as the upstream wrote them.
pub struct RawPage {
    pub tools: Vec<Value>,
    /// Length of the answer's line.
    pub bytes: usize,
}

/// Raw `tools/list` pages by request id, from the transport to the session.
#[derive(Default)]
pub struct RawToolPages(Mutex<VecDeque<(RequestId, RawPage)>>);

impl RawToolPages {
    fn put(&self, id: RequestId, page: RawPage) {
        let mut pages = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if pages.len() >= MAX_KEPT_PAGES {
            pages.pop_front();
        }
        pages.push_back((id, page));
    }

    pub fn take(&self, id: &RequestId) -> Option<RawPage> {
        let mut pages = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let at = pages.iter().position(|(i, _)| i == id)?;
        pages.remove(at).map(|(_, page)| page)
    }
}

enum UpstreamLine {
    Line(Vec<u8>),
    TooLong { id: Option<RequestId>, bytes: usize },
}

/// The transport over the upstream's stdin and stdout.
pub struct ChildTransport {
    lines: mpsc::Receiver<UpstreamLine>,
    stdin: Stdin,
    /// Requests sent and not answered: id → method.
    methods: Arc<Mutex<HashMap<RequestId, String>>>,
    raw_pages: Arc<RawToolPages>,
    child: Arc<UpstreamChild>,
}

/// Starts `program args` in a process group of its own, stderr inherited.
pub fn spawn(
    program: &str,
    args: &[String],
) -> std::io::Result<(ChildTransport, Arc<UpstreamChild>, Arc<RawToolPages>)> {
    let mut command = tokio::process::Command::new(program);
    command
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .process_group(0)
        // The last resort if the proxy ends without its shutdown (a panic).
        .kill_on_drop(true);
    #[cfg(target_os = "linux")]
    // pre_exec is unsafe by signature; nothing else sets a parent-death signal.
    #[allow(unsafe_code)]
    // SAFETY: the closure runs between fork and exec and only calls prctl(2), which is
    // async-signal-safe and allocates nothing.
    unsafe {
        command.pre_exec(|| {
            // The upstream gets SIGKILL if the proxy dies without shutting it down (killed with
            // SIGKILL, or its process group signalled by a client that gave up waiting). It is
            // started from a runtime worker thread, which lives as long as the proxy.
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    let mut process = command.spawn()?;
    let pid = process.id();
    let stdout = process
        .stdout
        .take()
        .ok_or_else(|| std::io::Error::other("the upstream's stdout is not a pipe"))?;
    let stdin = Arc::new(tokio::sync::Mutex::new(process.stdin.take()));
    let (exited_tx, exited) = watch::channel(false);
    tokio::spawn(async move {
        let status = process.wait().await;
        tracing::debug!("the upstream exited: {status:?}");
        let _ = exited_tx.send(true);
    });
    let (tx, lines) = mpsc::channel(READ_AHEAD_LINES);
    tokio::spawn(read_lines(stdout, tx));
    let child = Arc::new(UpstreamChild {
        pid,
        stdin: Arc::clone(&stdin),
        exited,
        shutting_down: tokio::sync::Mutex::new(()),
    });
    let raw_pages = Arc::new(RawToolPages::default());
    let transport = ChildTransport {
        lines,
        stdin,
        methods: Arc::default(),
        raw_pages: Arc::clone(&raw_pages),
        child: Arc::clone(&child),
    };
    Ok((transport, child, raw_pages))
}

/// Reads lines until EOF, never holding more than [`MAX_LINE_BYTES`] of one; of a longer line
/// only its id is kept.
async fn read_lines(stdout: ChildStdout, tx: mpsc::Sender<UpstreamLine>) {
    let mut reader = tokio::io::BufReader::with_capacity(64 * 1024, stdout);
    let mut line = Vec::new();
    let mut too_long: Option<(IdScanner, usize)> = None;
    loop {
        let (used, end_of_line) = match reader.fill_buf().await {
            Ok([]) => break,
            Ok(buf) => {
                let newline = buf.iter().position(|b| *b == b'\n');
                let take = newline.unwrap_or(buf.len());
                match &mut too_long {
                    Some((scanner, bytes)) => {
                        scanner.feed(&buf[..take]);
                        *bytes += take;
                    }
                    None if line.len() + take > MAX_LINE_BYTES => {
                        let mut scanner = IdScanner::default();
                        scanner.feed(&line);
                        scanner.feed(&buf[..take]);
                        too_long = Some((scanner, line.len() + take));
                        line = Vec::new();
                    }
                    None => line.extend_from_slice(&buf[..take]),
                }
                (newline.map_or(take, |at| at + 1), newline.is_some())
            }
            Err(e) => {
                tracing::warn!("cannot read the upstream's stdout: {e}");
                break;
            }
        };
        reader.consume(used);
        if end_of_line {
            let item = match too_long.take() {
                Some((scanner, bytes)) => UpstreamLine::TooLong {
                    id: scanner.id(),
                    bytes,
                },
                None => UpstreamLine::Line(std::mem::take(&mut line)),
            };
            if tx.send(item).await.is_err() {
                return;
            }
        }
    }
    if !line.is_empty() {
        let _ = tx.send(UpstreamLine::Line(line)).await;
    }
}

/// What one upstream line means.
enum Parsed {
    Message(Box<RxJsonRpcMessage<RoleClient>>),
    /// Unreadable: why, and the id it answers if it could be found.
    Unreadable {
        why: String,
        id: Option<RequestId>,
    },
}

fn parse_line(line: &[u8]) -> (Parsed, Option<Vec<Value>>) {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let mut value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            return (
                Parsed::Unreadable {
                    why: format!("it is not valid JSON ({e})"),
                    id: super::scan::id_of(line),
                },
                None,
            );
        }
    };
    // The raw tools of a tools/list answer: taken out, not copied; rmcp gets the rest.
    let tools = value
        .get_mut("result")
        .and_then(|r| r.get_mut("tools"))
        .filter(|t| t.is_array())
        .map(|t| match std::mem::replace(t, Value::Array(Vec::new())) {
            Value::Array(tools) => tools,
            _ => Vec::new(),
        });
    let id = value
        .get("id")
        .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
    match serde_json::from_value::<RxJsonRpcMessage<RoleClient>>(value) {
        Ok(message) => (Parsed::Message(Box::new(message)), tools),
        Err(e) => (
            Parsed::Unreadable {
                why: format!("it is not a valid JSON-RPC message ({e})"),
                id,
            },
            None,
        ),
    }
}

async fn write_line(stdin: &Stdin, mut line: Vec<u8>) -> std::io::Result<()> {
    line.push(b'\n');
    let mut stdin = stdin.lock().await;
    let Some(pipe) = stdin.as_mut() else {
        return Err(std::io::Error::new(
            std::io::ErrorKind::BrokenPipe,
            "the upstream's stdin is closed",
        ));
    };
    pipe.write_all(&line).await?;
    pipe.flush().await
}

/// The message as one line, with the client's own argument text where [`RawArguments`] says.
fn serialize(item: &TxJsonRpcMessage<RoleClient>) -> Result<Vec<u8>, serde_json::Error> {
    let raw = match item {
        JsonRpcMessage::Request(r) => r.request.extensions().get::<RawArguments>(),
        _ => None,
    };
    let Some(RawArguments(raw)) = raw else {
        return serde_json::to_vec(item);
    };
    let mut value = serde_json::to_value(item)?;
    let Some(Value::Object(arguments)) = value
        .get_mut("params")
        .and_then(|p| p.get_mut("arguments"))
        .map(Value::take)
    else {
        return serde_json::to_vec(item);
    };
    let arguments: Vec<(String, Argument<'_>)> = arguments
        .into_iter()
        .map(|(key, v)| {
            let arg = match raw.get(&key) {
                Some(text) => Argument::Raw(text),
                None => Argument::Plain(v),
            };
            (key, arg)
        })
        .collect();
    let Value::Object(mut message) = value else {
        return serde_json::to_vec(item);
    };
    let params = match message.remove("params") {
        Some(Value::Object(mut params)) => {
            params.remove("arguments");
            params
        }
        _ => serde_json::Map::new(),
    };
    serde_json::to_vec(&SplicedRequest {
        message,
        params: SplicedParams {
            params,
            arguments: ArgumentMap(arguments),
        },
    })
}

#[derive(serde::Serialize)]
struct SplicedRequest<'a> {
    #[serde(flatten)]
    message: serde_json::Map<String, Value>,
    params: SplicedParams<'a>,
}

#[derive(serde::Serialize)]
struct SplicedParams<'a> {
    #[serde(flatten)]
    params: serde_json::Map<String, Value>,
    arguments: ArgumentMap<'a>,
}

struct ArgumentMap<'a>(Vec<(String, Argument<'a>)>);

impl serde::Serialize for ArgumentMap<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, value) in &self.0 {
            match value {
                Argument::Raw(raw) => map.serialize_entry(key, raw)?,
                Argument::Plain(v) => map.serialize_entry(key, v)?,
            }
        }
        map.end()
    }
}

enum Argument<'a> {
    Raw(&'a RawValue),
    Plain(Value),
}

impl ChildTransport {
    /// The method of request `id`, forgotten as it is answered.
    fn answered(&self, id: &RequestId) -> Option<String> {
        self.methods
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(id)
    }

    /// An error answering request `id` (if the proxy sent it) for an answer it cannot read.
    fn unreadable_answer(
        &self,
        id: Option<RequestId>,
        why: &str,
    ) -> Option<RxJsonRpcMessage<RoleClient>> {
        let Some(id) = id else {
            tracing::warn!("an upstream line names no request and cannot be read: {why}; skipped");
            return None;
        };
        let Some(method) = self.answered(&id) else {
            tracing::warn!(
                "an upstream line that cannot be read ({why}) names request {id}, which is not pending; skipped"
            );
            return None;
        };
        let message = format!(
            "the upstream MCP server's answer to {method} cannot be read: {why}. Nothing of it was passed on; this is a bug of the upstream server (see its stderr), not of the request."
        );
        tracing::warn!("{message}");
        Some(JsonRpcMessage::error(
            ErrorData::new(ErrorCode::INTERNAL_ERROR, message, None),
            Some(id),
        ))
    }
}

impl Drop for ChildTransport {
    fn drop(&mut self) {
        let child = Arc::clone(&self.child);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move { child.shut_down().await });
        }
    }
}

impl Transport<RoleClient> for ChildTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let stdin = Arc::clone(&self.stdin);
        if let JsonRpcMessage::Request(r) = &item {
            let method = r.request.method().to_string();
            self.methods
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(r.id.clone(), method);
        }
        let line = serialize(&item);
        async move {
            let line = line.map_err(std::io::Error::other)?;
            write_line(&stdin, line).await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            // The only await: a line not yet taken stays in the channel if this is cancelled.
            let line = self.lines.recv().await?;
            let (parsed, tools, bytes) = match line {
                UpstreamLine::TooLong { id, bytes } => {
                    let why = format!(
                        "the line is {bytes} bytes, longer than the {} MiB a message may be",
                        MAX_LINE_BYTES / (1024 * 1024)
                    );
                    (Parsed::Unreadable { why, id }, None, bytes)
                }
                UpstreamLine::Line(line) => {
                    let (parsed, tools) = parse_line(&line);
                    (parsed, tools, line.len())
                }
            };
            match parsed {
                Parsed::Message(message) => {
                    let id = match message.as_ref() {
                        JsonRpcMessage::Response(r) => Some(&r.id),
                        JsonRpcMessage::Error(e) => e.id.as_ref(),
                        _ => None,
                    };
                    if let Some(id) = id {
                        let method = self.answered(id);
                        if let (Some("tools/list"), Some(tools)) = (method.as_deref(), tools) {
                            self.raw_pages.put(id.clone(), RawPage { tools, bytes });
                        }
                    }
                    return Some(*message);
                }
                Parsed::Unreadable { why, id } => {
                    if let Some(answer) = self.unreadable_answer(id, &why) {
                        return Some(answer);
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.lines.close();
        // A write blocked on a full pipe holds the lock; the shutdown's signals handle that.
        if let Ok(mut stdin) = self.stdin.try_lock() {
            drop(stdin.take());
        }
        Ok(())
    }
}
