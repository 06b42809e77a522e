//! Streamable HTTP at /mcp: handshake, tool calls, the Origin guard, concurrent clients.

use crate::common;

use common::{HttpServer, Workspace};
use serde_json::{Value, json};

/// One MCP session over streamable HTTP.
struct Session {
    http: reqwest::Client,
    url: String,
    session_id: Option<String>,
    token: Option<String>,
    next_id: u64,
}

impl Session {
    async fn open(url: &str, origin: Option<&str>) -> Result<Session, reqwest::StatusCode> {
        Self::open_with_token(url, origin, None).await
    }

    async fn open_with_token(
        url: &str,
        origin: Option<&str>,
        token: Option<&str>,
    ) -> Result<Session, reqwest::StatusCode> {
        let mut s = Session {
            http: reqwest::Client::new(),
            url: url.to_string(),
            session_id: None,
            token: token.map(String::from),
            next_id: 1,
        };
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "http-test", "version": "1"}}});
        let mut request = s.post(&init);
        if let Some(origin) = origin {
            request = request.header("Origin", origin);
        }
        let response = request.send().await.expect("send initialize");
        if !response.status().is_success() {
            return Err(response.status());
        }
        s.session_id = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .map(String::from);
        let body = common::parse_body(&response.text().await.expect("body"));
        assert_eq!(body["result"]["serverInfo"]["name"], "fs-mcp-rs");
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let response = s.post(&note).send().await.expect("send initialized");
        assert!(response.status().is_success(), "{}", response.status());
        Ok(s)
    }

    fn post(&self, body: &Value) -> reqwest::RequestBuilder {
        let mut r = self
            .http
            .post(&self.url)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .header("MCP-Protocol-Version", "2025-06-18")
            .body(body.to_string());
        if let Some(id) = &self.session_id {
            r = r.header("mcp-session-id", id);
        }
        if let Some(token) = &self.token {
            r = r.bearer_auth(token);
        }
        r
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let response = self.post(&body).send().await.expect("send");
        assert!(response.status().is_success(), "{}", response.status());
        common::parse_body(&response.text().await.expect("body"))
    }

    async fn call_text(&mut self, tool: &str, arguments: Value) -> String {
        let response = self
            .request("tools/call", json!({"name": tool, "arguments": arguments}))
            .await;
        assert_eq!(response["result"]["isError"], false, "{response}");
        response["result"]["content"][0]["text"]
            .as_str()
            .expect("text")
            .to_string()
    }
}

#[tokio::test]
async fn tools_list_and_call_over_http() {
    let ws = Workspace::new();
    ws.write("hello.txt", "hi over http\n");
    let server = HttpServer::start(&ws, &[]);
    assert!(server.url.starts_with("http://127.0.0.1:") && server.url.ends_with("/mcp"));
    let mut session = Session::open(&server.url, None).await.expect("open");
    let tools = session.request("tools/list", json!({})).await;
    let read = tools["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .find(|t| t["name"] == "read_files")
        .expect("read_files")
        .clone();
    assert_eq!(
        read["inputSchema"]["properties"]["files"]["items"]["type"],
        "object"
    );
    let out = session
        .call_text("read_files", json!({"files": ["hello.txt"]}))
        .await;
    assert_eq!(common::untag(&out), "[TAG] File: hello.txt\nhi over http\n");
}

#[tokio::test]
async fn cross_site_origin_is_refused_same_site_and_absent_origin_pass() {
    let ws = Workspace::new();
    let server = HttpServer::start(&ws, &[]);
    let refused = Session::open(&server.url, Some("https://evil.example")).await;
    assert_eq!(refused.err(), Some(reqwest::StatusCode::FORBIDDEN));
    let refused = Session::open(&server.url, Some("http://localhost.evil.example:8124")).await;
    assert!(refused.is_err());
    assert!(
        Session::open(&server.url, Some("http://localhost:3000"))
            .await
            .is_ok()
    );
    assert!(
        Session::open(&server.url, Some("http://127.0.0.1:8124"))
            .await
            .is_ok()
    );
    assert!(Session::open(&server.url, None).await.is_ok());
}

#[tokio::test]
async fn a_foreign_host_header_is_refused() {
    let ws = Workspace::new();
    let server = HttpServer::start(&ws, &[]);
    let response = reqwest::Client::new()
        .post(&server.url)
        .header("Host", "attacker.example")
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .body(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "x", "version": "1"}}})
            .to_string(),
        )
        .send()
        .await
        .expect("send");
    assert!(response.status().is_client_error(), "{}", response.status());
}

#[tokio::test]
async fn many_clients_at_once() {
    let ws = Workspace::new();
    for i in 0..50 {
        ws.write(&format!("f{i}.txt"), format!("file {i}\n"));
    }
    let server = HttpServer::start(&ws, &[]);
    let mut tasks = Vec::new();
    for i in 0..50 {
        let url = server.url.clone();
        tasks.push(tokio::spawn(async move {
            let mut s = Session::open(&url, None).await.expect("open");
            for _ in 0..3 {
                let out = s
                    .call_text("read_files", json!({"files": [format!("f{i}.txt")]}))
                    .await;
                assert_eq!(
                    common::untag(&out),
                    format!("[TAG] File: f{i}.txt\nfile {i}\n")
                );
            }
        }));
    }
    for t in tasks {
        t.await.expect("client task");
    }
}

#[tokio::test]
async fn a_bearer_token_is_required_on_every_request_when_set() {
    let ws = Workspace::new();
    ws.write("t.txt", "token ok\n");
    let server = HttpServer::start(&ws, &["--http-token", "s3cret-token"]);
    assert_eq!(
        Session::open(&server.url, None).await.err(),
        Some(reqwest::StatusCode::UNAUTHORIZED)
    );
    assert_eq!(
        Session::open_with_token(&server.url, None, Some("wrong"))
            .await
            .err(),
        Some(reqwest::StatusCode::UNAUTHORIZED)
    );
    let mut session = Session::open_with_token(&server.url, None, Some("s3cret-token"))
        .await
        .expect("right token");
    assert_eq!(
        common::untag(
            &session
                .call_text("read_files", json!({"files": ["t.txt"]}))
                .await
        ),
        "[TAG] File: t.txt\ntoken ok\n"
    );
    // A request in the middle of the session without the token is refused too.
    session.token = None;
    let response = session
        .post(&json!({"jsonrpc": "2.0", "id": 99, "method": "tools/list"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), reqwest::StatusCode::UNAUTHORIZED);
}

/// The raw SSE text of a POST in a session, read to its end.
async fn post_raw(session: &Session, body: &Value) -> (reqwest::StatusCode, String) {
    let response = session.post(body).send().await.expect("send");
    let status = response.status();
    (status, response.text().await.expect("body"))
}

/// Every `data:` line of an SSE text must be a JSON-RPC message (Gemini CLI parses each one).
fn assert_every_event_is_json_rpc(sse: &str) {
    let mut events = 0;
    for line in sse.lines() {
        if let Some(data) = line.strip_prefix("data:") {
            let message: Value = serde_json::from_str(data.trim())
                .unwrap_or_else(|e| panic!("SSE data is not JSON ({e}): {line:?} in\n{sse}"));
            assert_eq!(message["jsonrpc"], "2.0", "{line}");
            events += 1;
        }
    }
    assert!(events > 0 || sse.is_empty(), "no events in {sse:?}");
}

#[tokio::test]
async fn every_sse_event_of_post_and_get_streams_is_a_json_rpc_message() {
    let ws = Workspace::new();
    ws.write("a.txt", "a\n");
    let server = HttpServer::start(&ws, &[]);
    // The initialize response stream.
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "sse-test", "version": "1"}}});
    let response = reqwest::Client::new()
        .post(&server.url)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .body(init.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.headers()["content-type"].to_str().unwrap(),
        "text/event-stream"
    );
    assert_every_event_is_json_rpc(&response.text().await.unwrap());

    let session = Session::open(&server.url, None).await.expect("open");
    for request in [
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "read_files", "arguments": {"files": ["a.txt"]}}}),
    ] {
        let (status, sse) = post_raw(&session, &request).await;
        assert!(status.is_success(), "{status}");
        assert_every_event_is_json_rpc(&sse);
        assert!(sse.contains("data:"), "{sse}");
    }

    // The standalone GET stream: whatever it sends first must be JSON-RPC too (it used to send an
    // empty priming event at once).
    let mut get = session
        .http
        .get(&server.url)
        .header("Accept", "text/event-stream")
        .header("MCP-Protocol-Version", "2025-06-18")
        .header("mcp-session-id", session.session_id.clone().unwrap())
        .send()
        .await
        .unwrap();
    assert!(get.status().is_success(), "{}", get.status());
    let mut seen = String::new();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_millis(1500);
    while let Ok(Ok(Some(chunk))) = tokio::time::timeout_at(deadline, get.chunk()).await {
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    assert_every_event_is_json_rpc(&seen);
}

#[tokio::test]
async fn malformed_bodies_and_batches_get_json_rpc_errors() {
    let ws = Workspace::new();
    let server = HttpServer::start(&ws, &[]);
    let mut session = Session::open(&server.url, None).await.expect("open");
    let cases = [
        ("{not json", -32700),
        ("", -32700),
        (r#"[{"jsonrpc":"2.0","id":5,"method":"ping"}]"#, -32600),
        (
            r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":"x"}"#,
            -32600,
        ),
    ];
    for (body, code) in cases {
        let mut request = session
            .http
            .post(&session.url)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .body(body);
        if let Some(id) = &session.session_id {
            request = request.header("mcp-session-id", id);
        }
        let response = request.send().await.unwrap();
        assert_eq!(
            response.status(),
            reqwest::StatusCode::BAD_REQUEST,
            "{body}"
        );
        let reply: Value = response.json().await.expect("a JSON-RPC error body");
        assert_eq!(reply["jsonrpc"], "2.0", "{reply}");
        assert_eq!(reply["error"]["code"], code, "{body}: {reply}");
        assert!(reply.as_object().unwrap().contains_key("id"), "{reply}");
    }
    let batch: Value = session
        .http
        .post(&session.url)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .body("[]")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(
        batch["error"]["message"]
            .as_str()
            .unwrap()
            .contains("batches are not supported"),
        "{batch}"
    );
    // The session still works.
    assert!(
        session
            .request("ping", json!({}))
            .await
            .get("result")
            .is_some()
    );
}

/// Sends raw bytes on a fresh connection and reports whether the server closed it within `limit`
/// (and what it answered).
fn closed_within(addr: &str, bytes: &[u8], limit: std::time::Duration) -> Option<String> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).expect("connect");
    stream.write_all(bytes).expect("write");
    stream.set_read_timeout(Some(limit)).unwrap();
    let started = std::time::Instant::now();
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return Some(String::from_utf8_lossy(&answer).into_owned()),
            Ok(n) => answer.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => {
                return Some(String::from_utf8_lossy(&answer).into_owned());
            }
            Err(_) => return None,
        }
        if started.elapsed() > limit {
            return None;
        }
    }
}

#[test]
fn idle_and_half_sent_requests_are_closed_after_the_timeout() {
    let ws = Workspace::new();
    let server = HttpServer::start(&ws, &["--http-header-timeout-ms", "300"]);
    let addr = server.authority();
    let limit = std::time::Duration::from_secs(5);
    assert!(
        closed_within(&addr, b"", limit).is_some(),
        "an idle connection stays open"
    );
    let half_headers = format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: appl");
    assert!(
        closed_within(&addr, half_headers.as_bytes(), limit).is_some(),
        "half-sent headers keep the connection"
    );
    let half_body = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: 200\r\n\r\n{{\"jsonrpc\""
    );
    let answer = closed_within(&addr, half_body.as_bytes(), limit)
        .expect("a half-sent body keeps the connection");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    // A keep-alive connection that went quiet after a request is closed too.
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: 1\r\n\r\n{{"
    );
    let answer = closed_within(&addr, request.as_bytes(), limit)
        .expect("an idle keep-alive connection stays open");
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
}

#[tokio::test]
async fn a_flood_of_idle_connections_does_not_lock_out_a_real_client() {
    let ws = Workspace::new();
    ws.write("a.txt", "still served\n");
    // Few descriptors, a long header timeout: only making room at the cap can let the client in.
    let server =
        HttpServer::start_with(&ws, &["--http-header-timeout-ms", "60000"], &[], Some(100));
    let addr = server.authority();
    let mut flood = Vec::new();
    for _ in 0..200 {
        flood.push(std::net::TcpStream::connect(&addr).expect("connect"));
    }
    let open = tokio::time::timeout(std::time::Duration::from_secs(10), async {
        let mut s = Session::open(&server.url, None).await.expect("open");
        s.call_text("read_files", json!({"files": ["a.txt"]})).await
    })
    .await
    .expect("the real client got in while 200 idle sockets were open");
    assert_eq!(common::untag(&open), "[TAG] File: a.txt\nstill served\n");
    drop(flood);
}

#[tokio::test]
async fn at_the_session_cap_the_longest_idle_session_makes_room_and_delete_frees_a_slot() {
    let ws = Workspace::new();
    let server = HttpServer::start(&ws, &["--http-max-sessions", "2"]);
    let first = Session::open(&server.url, None).await.expect("first");
    let mut second = Session::open(&server.url, None).await.expect("second");
    assert!(
        second
            .request("ping", json!({}))
            .await
            .get("result")
            .is_some()
    );
    // A third client gets in: `first` never went past the handshake, so it makes room.
    let mut third = Session::open(&server.url, None)
        .await
        .expect("a new client at the cap gets in");
    let gone = first
        .post(&json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}))
        .send()
        .await
        .unwrap();
    assert_eq!(gone.status(), reqwest::StatusCode::NOT_FOUND);
    assert!(
        second
            .request("ping", json!({}))
            .await
            .get("result")
            .is_some()
    );
    assert!(
        third
            .request("ping", json!({}))
            .await
            .get("result")
            .is_some()
    );

    // DELETE ends a session: its id is unknown afterwards, and the slot is free again.
    let deleted = third
        .http
        .delete(&third.url)
        .header("mcp-session-id", third.session_id.clone().unwrap())
        .header("MCP-Protocol-Version", "2025-06-18")
        .send()
        .await
        .unwrap();
    assert!(deleted.status().is_success(), "{}", deleted.status());
    let gone = third
        .post(&json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}))
        .send()
        .await
        .unwrap();
    assert_eq!(gone.status(), reqwest::StatusCode::NOT_FOUND);
    let mut fourth = Session::open(&server.url, None)
        .await
        .expect("a freed slot");
    assert!(
        fourth
            .request("ping", json!({}))
            .await
            .get("result")
            .is_some()
    );
    assert!(
        second
            .request("ping", json!({}))
            .await
            .get("result")
            .is_some()
    );
}

#[tokio::test]
async fn a_flood_of_sessions_never_refuses_new_clients_nor_ends_a_working_one() {
    let ws = Workspace::new();
    ws.write("a.txt", "still served\n");
    let server = HttpServer::start(&ws, &["--http-max-sessions", "20"]);
    let mut working = Session::open(&server.url, None).await.expect("open");
    assert!(
        working
            .request("tools/list", json!({}))
            .await
            .get("result")
            .is_some()
    );
    // 300 sessions opened at once (initialize, then nothing): 15 times the cap. They make room
    // for each other (one may be closed before its `initialized` arrives); none is refused.
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "flood", "version": "1"}}});
    let mut flood = tokio::task::JoinSet::new();
    for _ in 0..300 {
        let request = reqwest::Client::new()
            .post(&server.url)
            .header("Accept", "application/json, text/event-stream")
            .header("Content-Type", "application/json")
            .body(init.to_string());
        flood.spawn(async move { request.send().await.map(|r| r.status()) });
    }
    let mut statuses = std::collections::BTreeMap::new();
    while let Some(sent) = flood.join_next().await {
        let status = sent.expect("join").expect("send initialize");
        *statuses.entry(status.as_u16()).or_insert(0) += 1;
    }
    assert_eq!(statuses.get(&200), Some(&300), "{statuses:?}");
    // The client at work kept its session: the flood's idle ones made room for each other.
    let read = working
        .call_text("read_files", json!({"files": ["a.txt"]}))
        .await;
    assert_eq!(common::untag(&read), "[TAG] File: a.txt\nstill served\n");
    let mut late = Session::open(&server.url, None)
        .await
        .expect("a client after the flood");
    assert!(
        late.request("ping", json!({}))
            .await
            .get("result")
            .is_some()
    );
}

/// Keeps `count` keep-alive connections re-sending a GET without the token until `stop`:
/// reconnecting whenever the server closes one, as an attacker would; counts its rounds over all
/// connections in `rounds`. Returns how many connections it opened.
fn tokenless_flood(
    addr: String,
    count: usize,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    rounds: std::sync::Arc<std::sync::atomic::AtomicUsize>,
) -> std::thread::JoinHandle<usize> {
    use std::io::{Read, Write};
    std::thread::spawn(move || {
        let request =
            format!("GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n");
        // One tokenless request and its answer on a connection; false once it is closed.
        let ask = |stream: &mut std::net::TcpStream| {
            let mut buf = [0u8; 1024];
            stream.write_all(request.as_bytes()).is_ok()
                && matches!(stream.read(&mut buf), Ok(n) if n > 0)
        };
        // Each new connection asks at once, as the attack did: it is never an idle one.
        let connect = || {
            let mut stream = std::net::TcpStream::connect(&addr).ok()?;
            stream
                .set_read_timeout(Some(std::time::Duration::from_millis(100)))
                .ok()?;
            ask(&mut stream).then_some(stream)
        };
        let mut conns: Vec<Option<std::net::TcpStream>> = (0..count).map(|_| connect()).collect();
        let mut opened = count;
        let started = std::time::Instant::now();
        // Bounded: at most 60 s, whatever the client under test does.
        while !stop.load(std::sync::atomic::Ordering::Relaxed)
            && started.elapsed() < std::time::Duration::from_secs(60)
        {
            for slot in conns.iter_mut() {
                if !slot.as_mut().is_some_and(ask) {
                    *slot = connect();
                    opened += 1;
                }
                if stop.load(std::sync::atomic::Ordering::Relaxed) {
                    break;
                }
            }
            rounds.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        opened
    })
}

#[tokio::test]
async fn tokenless_keep_alive_connections_never_lock_out_the_token_holder() {
    let ws = Workspace::new();
    ws.write("a.txt", "still served\n");
    // 256 descriptors: a cap of 128 connections, at most 64 of them without the token. The
    // flood alone holds 300 connections open.
    let server = HttpServer::start_with(&ws, &["--http-token", "s3cret"], &[], Some(256));
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let rounds = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let flood = tokenless_flood(
        server.authority(),
        300,
        std::sync::Arc::clone(&stop),
        std::sync::Arc::clone(&rounds),
    );
    // The token holder comes once the flood is in its steady state: every flood connection has
    // re-sent its request a few times (and reconnected whenever it was closed).
    for _ in 0..300 {
        if rounds.load(std::sync::atomic::Ordering::Relaxed) >= 3 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let served = tokio::time::timeout(std::time::Duration::from_secs(20), async {
        let mut s = Session::open_with_token(&server.url, None, Some("s3cret"))
            .await
            .expect("open");
        let mut reads = Vec::new();
        for _ in 0..5 {
            reads.push(s.call_text("read_files", json!({"files": ["a.txt"]})).await);
        }
        reads
    })
    .await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let opened = flood.join().expect("flood thread");
    let reads = served.expect("the token holder got in and was served during the flood");
    for read in reads {
        assert_eq!(common::untag(&read), "[TAG] File: a.txt\nstill served\n");
    }
    assert!(
        rounds.load(std::sync::atomic::Ordering::Relaxed) >= 3 && opened > 300,
        "the flood kept reconnecting ({opened} connections)"
    );
}

#[test]
fn a_401_closes_the_connection() {
    let ws = Workspace::new();
    let server = HttpServer::start(&ws, &["--http-token", "s3cret"]);
    let addr = server.authority();
    let request = format!("GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n\r\n");
    let answer = closed_within(&addr, request.as_bytes(), std::time::Duration::from_secs(5))
        .expect("the connection stayed open after a 401");
    assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");
}

#[tokio::test]
async fn an_idle_session_expires() {
    let ws = Workspace::new();
    let server = HttpServer::start(&ws, &["--http-session-timeout", "1"]);
    let session = Session::open(&server.url, None).await.expect("open");
    let mut status = reqwest::StatusCode::OK;
    // Bounded: the session must be gone well within 10 s of idling for 1 s.
    for _ in 0..50 {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        status = session
            .post(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
            .send()
            .await
            .unwrap()
            .status();
        if status == reqwest::StatusCode::NOT_FOUND {
            break;
        }
        // A ping is activity: wait longer than the timeout before the next one.
        tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    }
    assert_eq!(status, reqwest::StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn host_and_origin_must_name_this_server_exactly() {
    let ws = Workspace::new();
    let server = HttpServer::start(&ws, &[]);
    let port = server.authority().rsplit(':').next().unwrap().to_string();
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "x", "version": "1"}}})
    .to_string();
    let status = |host: String, origin: Option<String>| {
        let init = init.clone();
        let url = server.url.clone();
        async move {
            let mut r = reqwest::Client::new()
                .post(&url)
                .header("Host", host)
                .header("Accept", "application/json, text/event-stream")
                .header("Content-Type", "application/json")
                .body(init);
            if let Some(origin) = origin {
                r = r.header("Origin", origin);
            }
            r.send().await.unwrap().status()
        }
    };
    let other_port = if port == "8124" { "8125" } else { "8124" };
    for host in [
        "localhost.evil.com".to_string(),
        format!("localhost.evil.com:{port}"),
        format!("127.0.0.1.nip.io:{port}"),
        format!("localhost:{other_port}"),
        format!("evil@localhost:{port}"),
        format!("localhost:{port}x"),
    ] {
        assert_eq!(
            status(host.clone(), None).await,
            reqwest::StatusCode::FORBIDDEN,
            "Host: {host}"
        );
    }
    for host in [
        format!("localhost:{port}"),
        format!("127.0.0.1:{port}"),
        format!("[::1]:{port}"),
        "localhost".to_string(),
    ] {
        assert!(
            status(host.clone(), None).await.is_success(),
            "Host: {host}"
        );
    }
    let host = format!("127.0.0.1:{port}");
    for origin in [
        "http://127.0.0.1.nip.io",
        "http://localhost.evil.com:3000",
        "null",
    ] {
        assert_eq!(
            status(host.clone(), Some(origin.to_string())).await,
            reqwest::StatusCode::FORBIDDEN,
            "Origin: {origin}"
        );
    }
    assert!(
        status(host.clone(), Some(format!("http://localhost:{port}")))
            .await
            .is_success()
    );
}

#[tokio::test]
async fn a_session_with_a_request_running_is_never_closed_to_make_room() {
    let ws = Workspace::new();
    ws.write("notes.txt", "old\n");
    let tmp = ws.base.join("server-tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let server = HttpServer::start_with(
        &ws,
        &[
            "--http-max-sessions",
            "2",
            "--review-command",
            "none",
            "--review-timeout",
            "60",
        ],
        &[("TMPDIR", tmp.as_path())],
        None,
    );
    let mut reviewing = Session::open(&server.url, None).await.expect("open");
    assert!(
        reviewing
            .request("ping", json!({}))
            .await
            .get("result")
            .is_some()
    );
    let review = reviewing.post(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "propose_and_review",
            "arguments": {"path": "notes.txt", "match_text": "old", "new_string": "new"}}}));
    // The client reads the answer's stream, as a client waiting for the review does.
    let waiting = tokio::spawn(async move {
        match review.send().await {
            Ok(answer) => answer.text().await.is_ok(),
            Err(_) => false,
        }
    });
    let review_started = || {
        std::fs::read_dir(&tmp).is_ok_and(|entries| {
            entries.flatten().any(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with("fs-mcp-rs-reviews-")
            })
        })
    };
    for _ in 0..200 {
        if review_started() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(review_started(), "the review never started");
    // A session used after the review began: idle for less time than the reviewing one.
    let mut newer = Session::open(&server.url, None).await.expect("second");
    assert!(
        newer
            .request("ping", json!({}))
            .await
            .get("result")
            .is_some()
    );
    let mut third = Session::open(&server.url, None)
        .await
        .expect("a third client gets in");
    assert!(
        third
            .request("ping", json!({}))
            .await
            .get("result")
            .is_some()
    );
    let ping = json!({"jsonrpc": "2.0", "id": 9, "method": "ping"});
    let status = |session: &Session| session.post(&ping).send();
    let newer_status = status(&newer).await.unwrap().status();
    let reviewing_status = status(&reviewing).await.unwrap().status();
    assert_eq!(
        (newer_status, reviewing_status),
        (reqwest::StatusCode::NOT_FOUND, reqwest::StatusCode::OK),
        "the idle session should have made room, not the one waiting for its review; server log:\n{}",
        server.stderr.lock().unwrap()
    );
    waiting.abort();
}

/// The JSON answer of a `propose_and_review` call.
fn review_answer(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// Two clients of one HTTP server, each with a review waiting in the page: each one's link lists
/// and decides only its own review, and neither can collect, continue or commit the other's.
#[tokio::test]
async fn one_client_never_sees_or_decides_another_clients_review() {
    let ws = Workspace::new();
    ws.write("a.txt", "alpha\n");
    ws.write("b.txt", "beta\n");
    let server = HttpServer::start(&ws, &["--review-via", "page"]);
    let mut a = Session::open(&server.url, None).await.expect("open A");
    let mut b = Session::open(&server.url, None).await.expect("open B");
    let proposed_a = review_answer(
        &a.call_text(
            "propose_and_review",
            json!({"path": "a.txt", "match_text": "alpha", "new_string": "ALPHA"}),
        )
        .await,
    );
    let proposed_b = review_answer(
        &b.call_text(
            "propose_and_review",
            json!({"path": "b.txt", "match_text": "beta", "new_string": "BETA"}),
        )
        .await,
    );
    assert_eq!(proposed_a["user_action"], "PENDING", "{proposed_a}");
    let session_a = proposed_a["session_path"].as_str().unwrap().to_string();
    let session_b = proposed_b["session_path"].as_str().unwrap().to_string();
    let (base, token_a) = common::review_link(proposed_a["message"].as_str().unwrap());
    let (_, token_b) = common::review_link(proposed_b["message"].as_str().unwrap());
    assert_ne!(token_a, token_b, "one token for two clients");

    let listed = |token: String| {
        let base = base.clone();
        async move {
            common::page_reviews(&base, &token).await["reviews"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["session_path"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(listed(token_b.clone()).await, vec![session_b.clone()]);
    assert_eq!(listed(token_a.clone()).await, vec![session_a.clone()]);
    let decide = |token: String, session: String| {
        let base = base.clone();
        async move {
            common::page_post_decision(&base, Some(&token), &json!({"session_path": session})).await
        }
    };
    assert_eq!(
        decide(token_b.clone(), session_a.clone()).await,
        reqwest::StatusCode::NOT_FOUND,
        "B's link decided A's review"
    );
    // B naming A's session: refused, and A's review stays open and undecided.
    for arguments in [
        json!({"path": "a.txt", "session_path": session_a}),
        json!({"path": "a.txt", "session_path": session_a, "match_text": "alpha", "new_string": "B WAS HERE"}),
    ] {
        let reply = b
            .request(
                "tools/call",
                json!({"name": "propose_and_review", "arguments": arguments}),
            )
            .await;
        assert_eq!(reply["result"]["isError"], true, "{reply}");
    }
    let reply = b
        .request(
            "tools/call",
            json!({"name": "commit_review", "arguments": {"session_path": session_a, "original_path": "a.txt"}}),
        )
        .await;
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    assert_eq!(
        std::fs::read_to_string(ws.root.join("a.txt")).unwrap(),
        "alpha\n"
    );

    // A decides through its own link and collects its own verdict.
    assert_eq!(
        decide(token_a, session_a.clone()).await,
        reqwest::StatusCode::OK
    );
    let collected = review_answer(
        &a.call_text(
            "propose_and_review",
            json!({"path": "a.txt", "session_path": session_a}),
        )
        .await,
    );
    assert_eq!(collected["user_action"], "COMMITTED", "{collected}");
    assert_eq!(
        std::fs::read_to_string(ws.root.join("a.txt")).unwrap(),
        "ALPHA\n"
    );
    assert_eq!(
        std::fs::read_to_string(ws.root.join("b.txt")).unwrap(),
        "beta\n"
    );
}

/// The session paths the review page lists for `token`.
async fn page_listed(base: &str, token: &str) -> Vec<String> {
    common::page_reviews(base, token).await["reviews"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["session_path"].as_str().unwrap().to_string())
        .collect()
}

/// A proposal of `session` waiting in the review page: (session_path, page base, token).
async fn pending_review(session: &mut Session, file: &str) -> (String, String, String) {
    let proposed = review_answer(
        &session
            .call_text(
                "propose_and_review",
                json!({"path": file, "match_text": "old", "new_string": "NEW"}),
            )
            .await,
    );
    assert_eq!(proposed["user_action"], "PENDING", "{proposed}");
    let (base, token) = common::review_link(proposed["message"].as_str().unwrap());
    (
        proposed["session_path"].as_str().unwrap().to_string(),
        base,
        token,
    )
}

/// Waits (10 s at most) until the page lists nothing for `token`; what it lists then.
async fn page_empties(base: &str, token: &str) -> Vec<String> {
    let mut listed = page_listed(base, token).await;
    for _ in 0..100 {
        if listed.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        listed = page_listed(base, token).await;
    }
    listed
}

/// A decision posted to the page: its status and body.
async fn page_decide_text(base: &str, token: &str, session_path: &str) -> (u16, String) {
    let response = reqwest::Client::new()
        .post(format!("{base}/api/reviews/decide"))
        .header("x-fs-mcp-token", token)
        .json(&json!({"session_path": session_path}))
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

/// A client session that ends (DELETE, evicted at the session cap, expired idle) takes its open
/// reviews with it: they are no longer listed, their files are gone, and an approval in the page
/// is refused as a review that ended, nothing written. (The page used to keep them and answer an
/// approval "ok" that nobody would ever collect or write.) Another client's review is untouched.
#[tokio::test]
async fn a_client_sessions_reviews_end_with_it_however_it_ends() {
    let ws = Workspace::new();
    for file in ["a.txt", "b.txt", "c.txt", "d.txt"] {
        ws.write(file, "old\n");
    }
    let server = HttpServer::start(
        &ws,
        &[
            "--review-via",
            "page",
            "--http-max-sessions",
            "3",
            "--http-session-timeout",
            "4",
        ],
    );
    let mut a = Session::open(&server.url, None).await.expect("open A");
    let mut b = Session::open(&server.url, None).await.expect("open B");
    let (session_a, base, token_a) = pending_review(&mut a, "a.txt").await;
    let (session_b, _, token_b) = pending_review(&mut b, "b.txt").await;

    // A closes its session.
    let deleted = a
        .http
        .delete(&a.url)
        .header("mcp-session-id", a.session_id.clone().unwrap())
        .header("MCP-Protocol-Version", "2025-06-18")
        .send()
        .await
        .unwrap();
    assert!(deleted.status().is_success(), "{}", deleted.status());
    assert_eq!(page_empties(&base, &token_a).await, Vec::<String>::new());
    let (status, body) = page_decide_text(&base, &token_a, &session_a).await;
    assert_eq!(status, 404, "{body}");
    assert!(body.contains("has ended"), "{body}");
    assert!(!std::path::Path::new(&session_a).exists(), "{session_a}");
    assert_eq!(page_listed(&base, &token_b).await, vec![session_b.clone()]);

    // B is evicted: two new clients at work fill the cap, B is the longest idle.
    let mut c = Session::open(&server.url, None).await.expect("open C");
    let (session_c, _, token_c) = pending_review(&mut c, "c.txt").await;
    let mut d = Session::open(&server.url, None).await.expect("open D");
    assert!(d.request("ping", json!({})).await.get("result").is_some());
    let _e = Session::open(&server.url, None).await.expect("open E");
    assert_eq!(page_empties(&base, &token_b).await, Vec::<String>::new());
    let (status, body) = page_decide_text(&base, &token_b, &session_b).await;
    assert_eq!(status, 404, "{body}");

    // C goes idle past the session timeout.
    assert_eq!(page_listed(&base, &token_c).await, vec![session_c.clone()]);
    assert_eq!(page_empties(&base, &token_c).await, Vec::<String>::new());
    let (status, body) = page_decide_text(&base, &token_c, &session_c).await;
    assert_eq!(status, 404, "{body}");
    for file in ["a.txt", "b.txt", "c.txt"] {
        assert_eq!(
            std::fs::read_to_string(ws.root.join(file)).unwrap(),
            "old\n",
            "{file}"
        );
    }
}

/// The page lists a client's proposals from what the reviews hold, without their proposed text,
/// with what was left out counted; one review's detail (its link's own only) has the whole diff
/// and the proposed text to edit.
#[tokio::test]
async fn the_review_page_lists_without_proposals_and_shows_one_in_detail() {
    let ws = Workspace::new();
    ws.write("a.txt", "old\n");
    ws.write("b.txt", "old\n");
    let server = HttpServer::start(&ws, &["--review-via", "page"]);
    let mut a = Session::open(&server.url, None).await.expect("open A");
    let mut b = Session::open(&server.url, None).await.expect("open B");
    let (session_a, base, token_a) = pending_review(&mut a, "a.txt").await;
    let (_, _, token_b) = pending_review(&mut b, "b.txt").await;
    let listed = common::page_reviews(&base, &token_a).await;
    assert_eq!(listed["left_out"], 0, "{listed}");
    let review = &listed["reviews"][0];
    assert_eq!(review["session_path"], session_a.as_str(), "{listed}");
    assert!(review.get("proposed").is_none(), "{listed}");
    assert_eq!(review["diff_cut"], 0, "{listed}");
    assert!(
        review["diff"].as_str().unwrap().contains("+NEW"),
        "{listed}"
    );
    let one = |token: String| {
        // A session path holds only characters a query carries as they are.
        let url = format!("{base}/api/reviews/one?session_path={session_a}");
        async move {
            let response = reqwest::Client::new()
                .get(url)
                .header("x-fs-mcp-token", token)
                .send()
                .await
                .unwrap();
            (
                response.status().as_u16(),
                response.json::<Value>().await.unwrap(),
            )
        }
    };
    let (status, detail) = one(token_a.clone()).await;
    assert_eq!(status, 200, "{detail}");
    assert_eq!(detail["proposed"], "NEW\n", "{detail}");
    assert_eq!(detail["diff"], review["diff"], "{detail}");
    let (status, detail) = one(token_b).await;
    assert_eq!(status, 404, "B's link reached A's review: {detail}");
}
