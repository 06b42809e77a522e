//! The stand-in model: a small HTTP server on 127.0.0.1 that speaks the two model APIs the agent
//! CLIs call (Gemini's `generateContent` family and Anthropic's `/v1/messages`) and answers from a
//! script instead of thinking. Every request is appended to a JSON-lines file, so the harness can
//! read afterwards what the CLI declared to the model and which tool results came back.
//!
//! The server is stateless: each request carries the whole conversation, so the next step is the
//! number of scripted tool calls already in it. Requests that declare no tools are a CLI's side
//! requests (titles, routing, quota checks) and get a plain answer.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::{Value, json};

use super::exchange::{Dialect, Endpoint, Exchange, array, endpoint};
use super::script::{Reply, Script};

/// A running stand-in model.
pub struct StandIn {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

struct Shared {
    script: Script,
    log: Mutex<File>,
    seq: AtomicU64,
    /// Each request is logged with its time since then (`ms`), so a scenario can time a call.
    started: Instant,
}

impl StandIn {
    /// Listens on an ephemeral loopback port; every request is appended to `log_path`.
    pub fn start(script: Script, log_path: &Path) -> anyhow::Result<StandIn> {
        let listener = TcpListener::bind("127.0.0.1:0").context("stand-in model: bind")?;
        let addr = listener.local_addr()?;
        let log = File::create(log_path)
            .with_context(|| format!("stand-in model: create {}", log_path.display()))?;
        let shared = Arc::new(Shared {
            script,
            log: Mutex::new(log),
            seq: AtomicU64::new(0),
            started: Instant::now(),
        });
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let accept = std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopping.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let shared = shared.clone();
                std::thread::spawn(move || {
                    if let Err(e) = serve(stream, &shared) {
                        eprintln!("stand-in model: {e:#}");
                    }
                });
            }
        });
        Ok(StandIn {
            addr,
            stop,
            accept: Some(accept),
        })
    }

    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

impl Drop for StandIn {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop so it sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(handle) = self.accept.take() {
            let _ = handle.join();
        }
    }
}

/// One request per connection: the reply says `Connection: close`.
fn serve(stream: TcpStream, shared: &Shared) -> anyhow::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let Some(request) = read_request(&mut reader)? else {
        return Ok(());
    };
    let (status, content_type, body, record) = answer(&request, &shared.script);
    let n = shared.seq.fetch_add(1, Ordering::SeqCst);
    let line = json!({
        "n": n,
        "ms": u64::try_from(shared.started.elapsed().as_millis()).unwrap_or(u64::MAX),
        "method": request.method,
        "path": request.path,
        "body": serde_json::from_slice::<Value>(&request.body)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&request.body).into_owned())),
        "reply": record,
    });
    if let Ok(mut log) = shared.log.lock() {
        writeln!(log, "{line}")?;
        log.flush()?;
    }
    let mut stream = stream;
    write!(
        stream,
        "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    )?;
    stream.write_all(&body)?;
    stream.flush()?;
    Ok(())
}

struct Request {
    method: String,
    path: String,
    body: Vec<u8>,
}

fn read_request(reader: &mut impl BufRead) -> anyhow::Result<Option<Request>> {
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let mut words = line.split_whitespace();
    let method = words.next().unwrap_or_default().to_string();
    let path = words.next().unwrap_or_default().to_string();
    let mut headers = BTreeMap::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header)? == 0 {
            bail!("connection closed inside the headers");
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((k, v)) = header.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
        }
    }
    let mut body = Vec::new();
    if headers
        .get("transfer-encoding")
        .is_some_and(|v| v.eq_ignore_ascii_case("chunked"))
    {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size)?;
            let size = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
                .context("bad chunk size")?;
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk)?;
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    } else if let Some(len) = headers.get("content-length") {
        let len: usize = len.parse().context("bad content-length")?;
        body.resize(len, 0);
        reader.read_exact(&mut body)?;
    }
    Ok(Some(Request { method, path, body }))
}

/// Status, content type, body, and what to record as the reply.
fn answer(request: &Request, script: &Script) -> (&'static str, &'static str, Vec<u8>, Value) {
    let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
    let json_reply = |value: Value, record: Value| {
        (
            "200 OK",
            "application/json",
            value.to_string().into_bytes(),
            record,
        )
    };
    match endpoint(&request.path) {
        Endpoint::GeminiCountTokens => json_reply(json!({"totalTokens": 100}), json!("count")),
        Endpoint::AnthropicCountTokens => json_reply(json!({"input_tokens": 100}), json!("count")),
        Endpoint::Unknown => (
            "404 Not Found",
            "application/json",
            json!({"error": {"code": 404, "message": format!("the stand-in model does not serve {}", request.path)}})
                .to_string()
                .into_bytes(),
            json!("404"),
        ),
        Endpoint::GeminiStream { .. } | Endpoint::GeminiGenerate => {
            let exchange = Exchange::parse(Dialect::Gemini, &body);
            let reply = if exchange.is_main() {
                script.decide(&exchange)
            } else {
                side_reply(&body["generationConfig"])
            };
            let response = gemini_response(&reply);
            let record = reply.record();
            match endpoint(&request.path) {
                Endpoint::GeminiStream { sse: true } => (
                    "200 OK",
                    "text/event-stream",
                    format!("data: {response}\r\n\r\n").into_bytes(),
                    record,
                ),
                Endpoint::GeminiStream { sse: false } => {
                    json_reply(Value::Array(vec![response]), record)
                }
                _ => json_reply(response, record),
            }
        }
        Endpoint::AnthropicMessages => {
            let exchange = Exchange::parse(Dialect::Anthropic, &body);
            let reply = if exchange.is_main() {
                script.decide(&exchange)
            } else {
                Reply::Text("fs-mcp-rs e2e".to_string())
            };
            let record = reply.record();
            let model = body["model"].as_str().unwrap_or("claude-stand-in");
            let id = format!("toolu_e2e_{}", exchange.calls.len() + 1);
            if body["stream"].as_bool().unwrap_or(false) {
                (
                    "200 OK",
                    "text/event-stream",
                    anthropic_stream(&reply, model, &id).into_bytes(),
                    record,
                )
            } else {
                json_reply(anthropic_message(&reply, model, &id), record)
            }
        }
    }
}

/// A side request asking for JSON (Gemini CLI's router and next-speaker checks) gets the
/// smallest value its schema allows; others get a short text.
fn side_reply(generation_config: &Value) -> Reply {
    let schema = [
        &generation_config["responseJsonSchema"],
        &generation_config["responseSchema"],
    ]
    .into_iter()
    .find(|s| s.is_object());
    match schema {
        Some(schema) => Reply::Text(instance_of(schema).to_string()),
        None => Reply::Text("fs-mcp-rs e2e".to_string()),
    }
}

/// The smallest value a JSON schema (either case of type names) accepts, for side requests.
pub fn instance_of(schema: &Value) -> Value {
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    match schema["type"]
        .as_str()
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("object") => {
            let mut object = serde_json::Map::new();
            for name in array(&schema["required"]).iter().filter_map(Value::as_str) {
                object.insert(name.to_string(), instance_of(&schema["properties"][name]));
            }
            Value::Object(object)
        }
        Some("array") => json!([]),
        // Routers check ranges ("a score from 1 to 100").
        Some("integer") | Some("number") => {
            schema.get("minimum").cloned().unwrap_or_else(|| json!(1))
        }
        Some("boolean") => json!(false),
        Some("string") => json!("user"),
        _ => Value::Null,
    }
}

fn usage_gemini() -> Value {
    json!({"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15})
}

fn gemini_response(reply: &Reply) -> Value {
    let part = match reply {
        Reply::Call { name, args } => json!({"functionCall": {"name": name, "args": args}}),
        Reply::Text(text) => json!({"text": text}),
    };
    json!({
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": usage_gemini(),
        "modelVersion": "stand-in",
    })
}

fn anthropic_block(reply: &Reply, id: &str) -> (Value, &'static str) {
    match reply {
        Reply::Call { name, args } => (
            json!({"type": "tool_use", "id": id, "name": name, "input": args}),
            "tool_use",
        ),
        Reply::Text(text) => (json!({"type": "text", "text": text}), "end_turn"),
    }
}

fn anthropic_message(reply: &Reply, model: &str, id: &str) -> Value {
    let (block, stop) = anthropic_block(reply, id);
    json!({
        "id": "msg_e2e", "type": "message", "role": "assistant", "model": model,
        "content": [block], "stop_reason": stop, "stop_sequence": null,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    })
}

fn anthropic_stream(reply: &Reply, model: &str, id: &str) -> String {
    let (block, stop) = anthropic_block(reply, id);
    let (start, delta) = match reply {
        Reply::Call { name, args } => (
            json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
            json!({"type": "input_json_delta", "partial_json": args.to_string()}),
        ),
        Reply::Text(text) => (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": text}),
        ),
    };
    let _ = block;
    let events = [
        (
            "message_start",
            json!({"type": "message_start", "message": {
            "id": "msg_e2e", "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": null, "stop_sequence": null, "usage": {"input_tokens": 10, "output_tokens": 1}}}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": start}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
            "usage": {"output_tokens": 5}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ];
    events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect()
}

/// Where a session keeps the stand-in's log.
pub fn log_path(dir: &Path) -> PathBuf {
    dir.join("model-requests.jsonl")
}
