//! A small synchronous MCP client over stdio (JSON-RPC 2.0, one JSON message per line).
//!
//! A reader thread turns the server's stdout into lines; the client waits for the reply with the
//! id it sent, with a deadline. Lines that are not JSON (the Python server's banner) are kept in
//! [`McpClient::banner`] and otherwise skipped; notifications are dropped; requests from the
//! server (`ping`, anything else) get an answer so the server never waits on us.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, bail};
use serde_json::{Value, json};

use super::measure::{self, Exit};

/// The protocol version the client asks for; all three servers accept it.
const PROTOCOL_VERSION: &str = "2025-06-18";
/// The protocol version without `initialize`: `server/discover`, and every request carries the
/// client's version, capabilities and name in its `_meta`.
const INLINE_PROTOCOL_VERSION: &str = "2026-07-28";

/// One line of the server's stdout, or the end of it.
enum Line {
    Text(String),
    Eof,
    Failed(String),
}

/// The text of a `tools/call` result.
#[derive(Debug, Clone)]
pub struct ToolOutput {
    /// The `text` of every text content item, joined with newlines.
    pub text: String,
    /// `isError` of the result.
    pub is_error: bool,
}

/// A running server and the client side of its stdio session.
pub struct McpClient {
    name: String,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Line>,
    next_id: u64,
    /// Non-JSON lines seen on stdout (banners), at most [`MAX_BANNER_LINES`].
    pub banner: Vec<String>,
    reaped: bool,
    /// The `_meta` every request carries once [`McpClient::discover`] chose the 2026-07-28 path.
    inline_meta: Option<Value>,
}

const MAX_BANNER_LINES: usize = 64;

impl McpClient {
    /// Starts `command` with piped stdin/stdout. `name` is used in error messages.
    pub fn spawn(name: &str, mut command: Command) -> anyhow::Result<McpClient> {
        command.stdin(Stdio::piped()).stdout(Stdio::piped());
        let shown = format!("{command:?}");
        let mut child = command
            .spawn()
            .with_context(|| format!("cannot start {name}: {shown}"))?;
        let stdin = child.stdin.take();
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| anyhow!("{name}: no stdout pipe"))?;
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name(format!("{name}-stdout"))
            .spawn(move || {
                let mut reader = BufReader::with_capacity(1 << 20, stdout);
                let mut buf = Vec::new();
                loop {
                    buf.clear();
                    let line = match reader.read_until(b'\n', &mut buf) {
                        Ok(0) => Line::Eof,
                        Ok(_) => Line::Text(String::from_utf8_lossy(&buf).into_owned()),
                        Err(e) => Line::Failed(e.to_string()),
                    };
                    let last = !matches!(line, Line::Text(_));
                    if tx.send(line).is_err() || last {
                        break;
                    }
                }
            })
            .context("cannot start the stdout reader thread")?;
        Ok(McpClient {
            name: name.to_string(),
            child,
            stdin,
            lines: rx,
            next_id: 1,
            banner: Vec::new(),
            reaped: false,
            inline_meta: None,
        })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends `initialize` and waits for its reply (the returned `result`), then sends
    /// `notifications/initialized`.
    pub fn initialize(&mut self, timeout: Duration) -> anyhow::Result<Value> {
        let result = self.request(
            "initialize",
            json!({
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "fs-mcp-rs-bench", "version": env!("CARGO_PKG_VERSION")},
            }),
            timeout,
        )?;
        self.notify("notifications/initialized", json!({}))?;
        Ok(result)
    }

    /// The 2026-07-28 start without `initialize`: sends `server/discover` and waits for its reply
    /// (the returned `result`); every later request carries the client's `_meta`.
    pub fn discover(&mut self, timeout: Duration) -> anyhow::Result<Value> {
        self.inline_meta = Some(json!({
            "io.modelcontextprotocol/protocolVersion": INLINE_PROTOCOL_VERSION,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo":
                {"name": "fs-mcp-rs-bench", "version": env!("CARGO_PKG_VERSION")},
        }));
        self.request("server/discover", json!({}), timeout)
    }

    /// The tool names from `tools/list` (following `nextCursor`).
    pub fn list_tools(&mut self, timeout: Duration) -> anyhow::Result<Vec<String>> {
        let mut names = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let params = match &cursor {
                Some(c) => json!({ "cursor": c }),
                None => json!({}),
            };
            let result = self.request("tools/list", params, timeout)?;
            let tools = result
                .get("tools")
                .and_then(Value::as_array)
                .ok_or_else(|| anyhow!("{}: tools/list result has no tools array", self.name))?;
            names.extend(
                tools
                    .iter()
                    .filter_map(|t| t.get("name").and_then(Value::as_str).map(str::to_string)),
            );
            cursor = result
                .get("nextCursor")
                .and_then(Value::as_str)
                .map(str::to_string);
            if cursor.is_none() {
                return Ok(names);
            }
        }
    }

    /// Calls a tool and returns its text.
    pub fn call_tool(
        &mut self,
        tool: &str,
        arguments: Value,
        timeout: Duration,
    ) -> anyhow::Result<ToolOutput> {
        let result = self.request(
            "tools/call",
            json!({"name": tool, "arguments": arguments}),
            timeout,
        )?;
        let is_error = result
            .get("isError")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let text = result
            .get("content")
            .and_then(Value::as_array)
            .map(|items| {
                items
                    .iter()
                    .filter_map(|c| c.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default();
        Ok(ToolOutput { text, is_error })
    }

    /// Sends a request and waits for the reply with the same id; returns its `result`.
    pub fn request(
        &mut self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> anyhow::Result<Value> {
        let id = self.next_id;
        self.next_id += 1;
        let mut params = params;
        if let (Some(meta), Some(fields)) = (&self.inline_meta, params.as_object_mut()) {
            fields.insert("_meta".into(), meta.clone());
        }
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        let deadline = Instant::now() + timeout;
        loop {
            let message = self.next_message(deadline, method)?;
            if message.get("id").and_then(Value::as_u64) == Some(id)
                && message.get("method").is_none()
            {
                if let Some(error) = message.get("error") {
                    bail!("{}: {method} failed: {error}", self.name);
                }
                return message
                    .get("result")
                    .cloned()
                    .ok_or_else(|| anyhow!("{}: {method} reply has no result", self.name));
            }
            if let (Some(request_id), Some(m)) = (message.get("id"), message.get("method")) {
                // A request from the server: answer it so it does not wait.
                let reply = if m == "ping" {
                    json!({"jsonrpc": "2.0", "id": request_id, "result": {}})
                } else {
                    json!({"jsonrpc": "2.0", "id": request_id,
                        "error": {"code": -32601, "message": "not supported by the bench client"}})
                };
                self.send(&reply)?;
            }
            // Notifications (logging, progress) and stale replies are ignored.
        }
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Value) -> anyhow::Result<()> {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
    }

    fn send(&mut self, message: &Value) -> anyhow::Result<()> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| anyhow!("{}: stdin already closed", self.name))?;
        let mut line = serde_json::to_vec(message)?;
        line.push(b'\n');
        stdin
            .write_all(&line)
            .and_then(|()| stdin.flush())
            .with_context(|| format!("{}: cannot write to the server's stdin", self.name))
    }

    /// The next JSON message on stdout; non-JSON lines go to `banner`.
    fn next_message(&mut self, deadline: Instant, waiting_for: &str) -> anyhow::Result<Value> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => {
                    bail!("{}: no reply to {waiting_for} in time", self.name)
                }
                Err(RecvTimeoutError::Disconnected) => Line::Eof,
            };
            match line {
                Line::Text(text) => {
                    let trimmed = text.trim();
                    if trimmed.starts_with('{')
                        && let Ok(value) = serde_json::from_str::<Value>(trimmed)
                    {
                        return Ok(value);
                    }
                    if self.banner.len() < MAX_BANNER_LINES {
                        self.banner.push(text.trim_end().to_string());
                    }
                }
                Line::Eof => bail!(
                    "{}: the server closed stdout while waiting for {waiting_for} (see its log)",
                    self.name
                ),
                Line::Failed(e) => bail!("{}: cannot read stdout: {e}", self.name),
            }
        }
    }

    /// Closes stdin (the MCP way to end a stdio session), waits up to `grace` for the exit, kills
    /// the process otherwise.
    pub fn shutdown(mut self, grace: Duration) -> anyhow::Result<Exit> {
        self.stdin = None;
        let pid = self.child.id();
        let exit = match measure::wait_with_timeout(pid, grace)? {
            Some(exit) => exit,
            None => {
                let _ = self.child.kill();
                measure::wait_blocking(pid)?
            }
        };
        self.reaped = true;
        Ok(exit)
    }
}

impl Drop for McpClient {
    fn drop(&mut self) {
        if !self.reaped {
            self.stdin = None;
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
