//! Streamable HTTP at /mcp: handshake, tool calls, the Origin guard, concurrent clients.

mod common;

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

/// The JSON-RPC message of a response body, plain JSON or SSE `data:` lines.
fn parse_body(body: &str) -> Value {
    if let Ok(v) = serde_json::from_str(body) {
        return v;
    }
    body.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
        .find(|v| v.get("id").is_some())
        .unwrap_or_else(|| panic!("no JSON-RPC response in body: {body}"))
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
        let body = parse_body(&response.text().await.expect("body"));
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
        parse_body(&response.text().await.expect("body"))
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
