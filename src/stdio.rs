//! The stdio transport: one JSON-RPC message per line on stdin and stdout.
//!
//! rmcp's own stdio transport drops a line that is not JSON without a word; JSON-RPC wants a
//! `-32700 Parse error` reply (id null), and a client waiting on a typo should learn about it. This
//! transport answers malformed lines itself and hands every valid message to rmcp. It also keeps
//! the ids of requests not answered yet, so a shutdown can wait for pending replies (a cancelled
//! review) before the process exits, and it reads stdin on a thread of its own so that a read
//! blocked on a silent client never keeps the process alive. The first reply (the `initialize`
//! answer) is written at once by the task that sends it: no thread is started and no hand-off
//! waited for before it; later lines go through a thread of their own (started right after the
//! first line), so a write blocked on a client that does not read holds up no task.

use std::collections::HashSet;
use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::GetExtensions;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc, oneshot};

/// Longest line accepted (as rmcp's own transport): a longer one is answered with an error and
/// skipped, never held in memory whole.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// What the stdin thread read.
enum Input {
    Line(Vec<u8>),
    TooLong,
}

/// Requests received and not answered yet, by the JSON text of their id.
#[derive(Default)]
pub struct PendingReplies {
    ids: Mutex<HashSet<String>>,
    changed: Notify,
    /// Cancelled when stdin ends: the client is gone.
    input_ended: tokio_util::sync::CancellationToken,
    /// Cancelled by the reader as soon as stdin ends, even while rmcp reads nothing (a
    /// handshake under way): a proxy whose upstream never answers still sees its client leave.
    stdin_closed: tokio_util::sync::CancellationToken,
}

impl PendingReplies {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.ids.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn add(&self, id: String) {
        self.lock().insert(id);
    }

    fn remove(&self, id: &str) {
        if self.lock().remove(id) {
            self.changed.notify_waiters();
        }
    }

    /// Resolves when stdin has ended (rmcp would otherwise wait for running calls first).
    pub async fn input_ended(&self) {
        self.input_ended.cancelled().await;
    }

    /// Resolves as soon as the reader meets the end of stdin (lines may still be queued).
    pub async fn stdin_closed(&self) {
        self.stdin_closed.cancelled().await;
    }

    /// How many requests still wait for their reply.
    pub fn count(&self) -> usize {
        self.lock().len()
    }

    /// Waits until every request received so far is answered, or `limit` passes.
    pub async fn wait_all_answered(&self, limit: Duration) {
        let _ = tokio::time::timeout(limit, async {
            loop {
                let changed = self.changed.notified();
                if self.count() == 0 {
                    return;
                }
                changed.await;
            }
        })
        .await;
    }
}

/// One line for stdout and who waits for it to be written.
type OutputLine = (Vec<u8>, oneshot::Sender<std::io::Result<()>>);

/// stdout, shared by rmcp's replies and this transport's own error replies: whole lines, written
/// in the order sent (the first by its sender, the others by the writer thread).
#[derive(Clone)]
struct Stdout(Arc<Mutex<StdoutState>>);

/// Whether the first line is out, and the writer thread once it is.
enum StdoutState {
    /// Nothing written yet.
    Unwritten,
    /// The writer thread's queue (`None` if the thread could not start).
    Writer(Option<std::sync::mpsc::Sender<OutputLine>>),
}

/// The longest first line written by its sender: an empty pipe takes this much without
/// blocking (POSIX PIPE_BUF), so the sending task never waits on the client.
const INLINE_FIRST_LINE_BYTES: usize = 4096;

impl Stdout {
    fn new() -> Stdout {
        Stdout(Arc::new(Mutex::new(StdoutState::Unwritten)))
    }

    /// Writes `line` (ending in `\n`) and flushes: the first one here, if short, the others on
    /// the writer thread; resolves once it is written.
    async fn write(&self, line: Vec<u8>) -> std::io::Result<()> {
        let gone =
            || std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the stdout writer ended");
        let done = {
            let mut state = self.0.lock().unwrap_or_else(|e| e.into_inner());
            if matches!(*state, StdoutState::Unwritten) && line.len() <= INLINE_FIRST_LINE_BYTES {
                // Held under the lock, so no later line can overtake it.
                let mut out = std::io::stdout().lock();
                let written = out.write_all(&line).and_then(|()| out.flush());
                *state = StdoutState::Writer(start_writer());
                return written;
            }
            if matches!(*state, StdoutState::Unwritten) {
                *state = StdoutState::Writer(start_writer());
            }
            let StdoutState::Writer(Some(writer)) = &*state else {
                return Err(gone());
            };
            let (written, done) = oneshot::channel();
            writer.send((line, written)).map_err(|_| gone())?;
            done
        };
        done.await.map_err(|_| gone())?
    }
}

/// Starts the stdout writer thread, returning its queue.
fn start_writer() -> Option<std::sync::mpsc::Sender<OutputLine>> {
    let (lines, to_write) = std::sync::mpsc::channel::<OutputLine>();
    // A plain thread: a write blocked on a client that does not read holds up no task, and the
    // process exits without waiting for it (every reply sent was written: `send` waits).
    let spawned = std::thread::Builder::new()
        .name("stdout-writer".into())
        .spawn(move || write_stdout(&to_write));
    match spawned {
        Ok(_) => Some(lines),
        Err(e) => {
            tracing::error!("cannot start the stdout writer thread: {e}");
            None
        }
    }
}

/// The stdio transport: JSON-RPC lines read on a thread of their own (a line that is not JSON-RPC
/// is answered here with -32700/-32600), replies written whole to stdout.
pub struct StdioTransport {
    input: mpsc::Receiver<Input>,
    stdout: Stdout,
    pending: Arc<PendingReplies>,
}

/// The transport over this process's stdin and stdout, and its record of unanswered requests.
pub fn transport() -> (StdioTransport, Arc<PendingReplies>) {
    let (tx, rx) = mpsc::channel(16);
    let pending = Arc::new(PendingReplies::default());
    let closed = pending.stdin_closed.clone();
    // A plain thread, not the runtime's blocking pool: shutting the runtime down never waits on
    // a read that only the client can end.
    let spawned = std::thread::Builder::new()
        .name("stdin-reader".into())
        .spawn(move || {
            read_stdin(&tx);
            closed.cancel();
        });
    if let Err(e) = spawned {
        tracing::error!("cannot start the stdin reader thread: {e}");
    }
    (
        StdioTransport {
            input: rx,
            stdout: Stdout::new(),
            pending: Arc::clone(&pending),
        },
        pending,
    )
}

/// Writes each line (with its `\n`) and flushes, telling the sender how it went, until every
/// sender is gone.
fn write_stdout(lines: &std::sync::mpsc::Receiver<OutputLine>) {
    let stdout = std::io::stdout();
    for (line, written) in lines {
        let mut out = stdout.lock();
        let result = out.write_all(&line).and_then(|()| out.flush());
        // The sender may have stopped waiting (a cancelled call): nothing else to tell.
        let _ = written.send(result);
    }
}

/// Reads lines (without their `\n`) until EOF, never buffering more than [`MAX_LINE_BYTES`].
fn read_stdin(tx: &mpsc::Sender<Input>) {
    let stdin = std::io::stdin();
    let mut reader = stdin.lock();
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let (used, end_of_line) = match reader.fill_buf() {
            Ok([]) => break,
            Ok(buf) => {
                let newline = buf.iter().position(|b| *b == b'\n');
                let take = newline.map_or(buf.len(), |at| at);
                if !too_long {
                    if line.len() + take > MAX_LINE_BYTES {
                        too_long = true;
                        line = Vec::new();
                    } else {
                        line.extend_from_slice(&buf[..take]);
                    }
                }
                (newline.map_or(take, |at| at + 1), newline.is_some())
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                tracing::warn!("cannot read stdin: {e}");
                break;
            }
        };
        reader.consume(used);
        if end_of_line {
            let input = if too_long {
                Input::TooLong
            } else {
                Input::Line(std::mem::take(&mut line))
            };
            too_long = false;
            if tx.blocking_send(input).is_err() {
                return;
            }
        }
    }
    // A last line without a newline is still a message.
    if !line.is_empty() && !too_long {
        let _ = tx.blocking_send(Input::Line(line));
    }
}

/// A JSON-RPC error reply as one line.
fn error_line(id: Value, code: i64, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

/// The id of a request, as a JSON-RPC reply would carry it (null when there is none).
fn reply_id(value: &Value) -> Value {
    match value.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    }
}

/// The text of each top-level argument of a `tools/call`, as the client wrote it, attached to
/// the request (its extensions) when a number in them does not survive parsing exactly (an
/// integer beyond 2^64, digits past f64's precision): `fs-mcp-rs proxy` sends that text on
/// where it leaves an argument unchanged.
#[derive(Debug, Clone)]
pub struct RawArguments(
    pub Arc<std::collections::HashMap<String, Box<serde_json::value::RawValue>>>,
);

#[derive(serde::Deserialize)]
struct RawCall {
    params: RawCallParams,
}

#[derive(serde::Deserialize)]
struct RawCallParams {
    arguments: std::collections::HashMap<String, Box<serde_json::value::RawValue>>,
}

/// True if `value` holds a number parsed as a float: written with a fraction or exponent, or an
/// integer outside i64/u64, whose text the float may not keep.
fn has_float(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.is_f64(),
        Value::Array(items) => items.iter().any(has_float),
        Value::Object(map) => map.values().any(has_float),
        _ => false,
    }
}

/// [`RawArguments`] for a `tools/call` line whose arguments hold a float.
pub fn raw_arguments(line: &[u8], value: &Value) -> Option<RawArguments> {
    if value.get("method").and_then(Value::as_str) != Some("tools/call") {
        return None;
    }
    let arguments = value.get("params")?.get("arguments")?;
    if !has_float(arguments) {
        return None;
    }
    let call: RawCall = serde_json::from_slice(line).ok()?;
    Some(RawArguments(Arc::new(call.params.arguments)))
}

/// What one input line means.
enum Parsed {
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Answer this (an error reply line) and read on.
    Reply(String),
    /// A notification rmcp does not know; JSON-RPC answers no notification.
    Ignore,
}

fn parse_line(line: &[u8]) -> Parsed {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Parsed::Ignore;
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            return Parsed::Reply(error_line(
                Value::Null,
                -32700,
                &format!(
                    "Parse error: the line is not JSON ({e}). Send one JSON-RPC message per line."
                ),
            ));
        }
    };
    if value.is_array() {
        return Parsed::Reply(error_line(
            Value::Null,
            -32600,
            "Invalid Request: JSON-RPC batches are not supported in this protocol version; send one message per line.",
        ));
    }
    let id = reply_id(&value);
    let is_notification = value.get("method").is_some() && value.get("id").is_none();
    let raw = raw_arguments(line, &value);
    match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value) {
        Ok(mut message) => {
            if let (Some(raw), RxJsonRpcMessage::<RoleServer>::Request(r)) = (raw, &mut message) {
                r.request.extensions_mut().insert(raw);
            }
            Parsed::Message(Box::new(message))
        }
        // Unknown notifications (other protocols' traffic, newer MCP versions) are not errors.
        Err(_) if is_notification => Parsed::Ignore,
        Err(e) => Parsed::Reply(error_line(id, -32600, &format!("Invalid Request: {e}"))),
    }
}

async fn write_line(stdout: &Stdout, line: &str) -> std::io::Result<()> {
    let mut bytes = Vec::with_capacity(line.len() + 1);
    bytes.extend_from_slice(line.as_bytes());
    bytes.push(b'\n');
    stdout.write(bytes).await
}

/// The JSON text of a request id, the key of [`PendingReplies`].
fn id_key(id: &impl serde::Serialize) -> String {
    serde_json::to_string(id).unwrap_or_default()
}

impl Transport<RoleServer> for StdioTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let stdout = self.stdout.clone();
        let pending = Arc::clone(&self.pending);
        async move {
            let answered = match &item {
                TxJsonRpcMessage::<RoleServer>::Response(r) => Some(id_key(&r.id)),
                TxJsonRpcMessage::<RoleServer>::Error(e) => e.id.as_ref().map(id_key),
                _ => None,
            };
            let line = serde_json::to_string(&item).map_err(std::io::Error::other)?;
            let written = write_line(&stdout, &line).await;
            if let Some(id) = answered {
                pending.remove(&id);
            }
            written
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            let Some(input) = self.input.recv().await else {
                self.pending.input_ended.cancel();
                return None;
            };
            let line = match input {
                Input::Line(line) => line,
                Input::TooLong => {
                    let reply = error_line(
                        Value::Null,
                        -32600,
                        &format!(
                            "Invalid Request: the message is longer than {} MiB and was skipped.",
                            MAX_LINE_BYTES / (1024 * 1024)
                        ),
                    );
                    write_line(&self.stdout, &reply).await.ok()?;
                    continue;
                }
            };
            match parse_line(&line) {
                Parsed::Message(message) => {
                    match message.as_ref() {
                        RxJsonRpcMessage::<RoleServer>::Request(r) => {
                            self.pending.add(id_key(&r.id));
                        }
                        RxJsonRpcMessage::<RoleServer>::Notification(n) => {
                            // A cancelled request gets no reply: stop waiting for one.
                            if let rmcp::model::ClientNotification::CancelledNotification(c) =
                                &n.notification
                                && let Some(id) = &c.params.request_id
                            {
                                self.pending.remove(&id_key(id));
                            }
                        }
                        _ => {}
                    }
                    return Some(*message);
                }
                Parsed::Reply(reply) => write_line(&self.stdout, &reply).await.ok()?,
                Parsed::Ignore => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.input.close();
        // Every line sent was written and flushed before its `send` returned.
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply_of(line: &str) -> Value {
        match parse_line(line.as_bytes()) {
            Parsed::Reply(r) => serde_json::from_str(&r).unwrap(),
            Parsed::Message(_) => panic!("{line} parsed as a message"),
            Parsed::Ignore => panic!("{line} ignored"),
        }
    }

    #[test]
    fn malformed_json_is_a_parse_error_with_a_null_id() {
        let r = reply_of("{not json");
        assert_eq!(r["error"]["code"], -32700);
        assert_eq!(r["id"], Value::Null);
        assert!(r.as_object().unwrap().contains_key("id"));
    }

    #[test]
    fn batches_and_bad_shapes_are_invalid_requests() {
        let r = reply_of(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#);
        assert_eq!(r["error"]["code"], -32600);
        assert!(r["error"]["message"].as_str().unwrap().contains("batch"));
        let r = reply_of(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":"x"}"#);
        assert_eq!(
            (r["error"]["code"].clone(), r["id"].clone()),
            (json!(-32600), json!(7))
        );
    }

    #[test]
    fn a_call_with_a_number_floats_cannot_hold_keeps_its_argument_text() {
        let raw_of = |line: &str| match parse_line(line.as_bytes()) {
            Parsed::Message(m) => match *m {
                RxJsonRpcMessage::<RoleServer>::Request(r) => {
                    r.request.extensions().get::<RawArguments>().cloned()
                }
                _ => panic!("{line} is not a request"),
            },
            _ => panic!("{line} did not parse"),
        };
        let raw = raw_of(
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"n":18446744073709551617,"s":"x"}}}"#,
        )
        .expect("raw arguments kept");
        assert_eq!(raw.0["n"].get(), "18446744073709551617");
        assert_eq!(raw.0["s"].get(), r#""x""#);
        // Integers serde_json holds exactly cost no copy.
        assert!(
            raw_of(
                r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{"n":3}}}"#
            )
            .is_none()
        );
    }

    #[test]
    fn valid_messages_pass_and_unknown_notifications_are_ignored() {
        assert!(matches!(
            parse_line(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            Parsed::Message(_)
        ));
        assert!(matches!(
            parse_line(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\r"),
            Parsed::Message(_)
        ));
        assert!(matches!(
            parse_line(br#"{"jsonrpc":"2.0","method":"$/lsp-thing","params":5}"#),
            Parsed::Ignore | Parsed::Message(_)
        ));
        assert!(matches!(parse_line(b"   "), Parsed::Ignore));
    }
}
