//! What the server and the proxy say about the protocol itself, over stdio and HTTP: the version
//! agreed in `initialize`, the error codes of malformed requests, what is served only when
//! declared, batches, and how SSE streams open (issues #32 and #35).

use crate::common;

use common::{HttpServer, StdioClient, Workspace};
use serde_json::{Value, json};

const PINNED_UPSTREAM: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/tricky_server.py"
);

/// The revisions an upstream may speak that still have an `initialize` handshake.
const HANDSHAKE_REVISIONS: &[&str] = &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

fn initialize_params(version: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "protocol-test", "version": "1"}
    })
}

/// A POST to an MCP endpoint, with the session id and protocol version header when known.
fn post(
    url: &str,
    session: Option<&str>,
    version: Option<&str>,
    body: &str,
) -> reqwest::RequestBuilder {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .body(body.to_string());
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    if let Some(version) = version {
        request = request.header("MCP-Protocol-Version", version);
    }
    request
}

/// Opens an HTTP session: the `initialize` answer and the session id (the `initialized`
/// notification sent).
async fn open_http(url: &str, version: &str) -> (Value, String) {
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": initialize_params(version)});
    let response = post(url, None, None, &init.to_string())
        .send()
        .await
        .expect("send initialize");
    assert!(response.status().is_success(), "{}", response.status());
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .expect("a session id")
        .to_string();
    let answer = common::parse_body(&response.text().await.expect("body"));
    let agreed = answer["result"]["protocolVersion"]
        .as_str()
        .unwrap_or(version)
        .to_string();
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let response = post(url, Some(&session), Some(&agreed), &note.to_string())
        .send()
        .await
        .expect("send initialized");
    assert!(response.status().is_success(), "{}", response.status());
    (answer, session)
}

// A. The proxy agrees to what its upstream agreed to.

#[test]
fn the_proxy_answers_initialize_with_the_version_its_upstream_agreed_to_over_stdio() {
    let tmp = tempfile::tempdir().expect("tempdir");
    for upstream in HANDSHAKE_REVISIONS {
        let mut client = StdioClient::spawn(
            tmp.path(),
            &[
                "proxy",
                "--",
                "python3",
                PINNED_UPSTREAM,
                "--protocol",
                upstream,
            ],
        );
        let init = client.request("initialize", initialize_params("2025-11-25"));
        assert_eq!(
            init["result"]["protocolVersion"], *upstream,
            "a client asking for 2025-11-25 in front of an upstream on {upstream}: {init}"
        );
        client.notify("notifications/initialized", json!({}));
        // The session works on the agreed version.
        assert_eq!(client.list_tools().len(), 3, "upstream on {upstream}");
    }
}

#[tokio::test]
async fn the_proxy_answers_initialize_with_the_version_its_upstream_agreed_to_over_http() {
    for upstream in HANDSHAKE_REVISIONS {
        let mut command = std::process::Command::new(common::BIN);
        command
            .args(["proxy", "--http", "127.0.0.1:0", "--", "python3"])
            .args([PINNED_UPSTREAM, "--protocol", upstream]);
        let (child, url, _) = common::start_announcing_url(&mut command);
        let _proxy = common::KillOnDrop(child);
        let url = url.expect("proxy --http printed its URL");
        let (init, session) = open_http(&url, "2025-11-25").await;
        assert_eq!(
            init["result"]["protocolVersion"], *upstream,
            "a client asking for 2025-11-25 in front of an upstream on {upstream}: {init}"
        );
        let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
        let response = post(&url, Some(&session), Some(upstream), &list.to_string())
            .send()
            .await
            .expect("send tools/list");
        assert!(response.status().is_success(), "{}", response.status());
        let listed = common::parse_body(&response.text().await.expect("body"));
        assert_eq!(
            listed["result"]["tools"].as_array().map(Vec::len),
            Some(3),
            "upstream on {upstream}: {listed}"
        );
    }
}

/// The official Python SDK as the client: the version its session reports, then its tool count.
const SDK_INITIALIZE: &str = r#"
import asyncio, sys
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

async def main():
    params = StdioServerParameters(command=sys.argv[1], args=sys.argv[2:])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            print(init.model_dump(by_alias=True)["protocolVersion"])
            print(len((await session.list_tools()).tools))

asyncio.run(main())
"#;

#[test]
fn the_python_sdk_learns_the_upstreams_version_through_the_proxy() {
    let Some(python) = common::sdk_python() else {
        return;
    };
    for upstream in HANDSHAKE_REVISIONS {
        let output = std::process::Command::new(&python)
            .args(["-c", SDK_INITIALIZE, common::BIN, "proxy", "--", "python3"])
            .args([PINNED_UPSTREAM, "--protocol", upstream])
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run the Python SDK");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert_eq!(
            stdout.lines().collect::<Vec<_>>(),
            [*upstream, "3"],
            "upstream on {upstream}: {stdout}\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

// B13. A method that exists, called with params that do not fit it: -32602, not -32601.

/// Requests whose params do not parse, for methods every server here serves.
fn malformed_requests() -> Vec<(&'static str, Value)> {
    vec![
        (
            "tools/call without a name",
            json!({"method": "tools/call", "params": {"arguments": {}}}),
        ),
        (
            "tools/call with a numeric name",
            json!({"method": "tools/call", "params": {"name": 123}}),
        ),
        (
            "tools/call with string arguments",
            json!({"method": "tools/call", "params": {"name": "read_files", "arguments": "x"}}),
        ),
        ("tools/call without params", json!({"method": "tools/call"})),
        (
            "logging/setLevel with an unknown level",
            json!({"method": "logging/setLevel", "params": {"level": "loud"}}),
        ),
    ]
}

fn with_id(message: &Value, id: u64) -> Value {
    let mut message = message.clone();
    message["jsonrpc"] = json!("2.0");
    message["id"] = json!(id);
    message
}

fn assert_invalid_params(what: &str, reply: &Value) {
    assert_eq!(reply["error"]["code"], -32602, "{what}: {reply}");
    let method = reply["error"]["message"].as_str().unwrap_or_default();
    assert!(method.contains("Invalid params for "), "{what}: {reply}");
}

#[test]
fn malformed_params_are_invalid_params_over_stdio_and_through_the_proxy() {
    let ws = Workspace::new();
    let mut server = ws.start(&[]);
    let mut proxy = StdioClient::start(&ws.base, &["proxy", "--", "python3", PINNED_UPSTREAM]);
    for client in [&mut server, &mut proxy] {
        for (id, (what, message)) in (100..).zip(malformed_requests()) {
            client.send(&with_id(&message, id));
            assert_invalid_params(what, &client.wait_for(id));
        }
        // A method nobody defines is still -32601.
        let unknown = client.request("vendor/unknown", json!({}));
        assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    }
}

#[tokio::test]
async fn malformed_params_are_invalid_params_over_http() {
    let ws = Workspace::new();
    let server = HttpServer::start(&ws, &[]);
    let (_, session) = open_http(&server.url, "2025-11-25").await;
    for (id, (what, message)) in (100..).zip(malformed_requests()) {
        let body = with_id(&message, id).to_string();
        let response = post(&server.url, Some(&session), Some("2025-11-25"), &body)
            .send()
            .await
            .expect("send");
        let reply = common::parse_body(&response.text().await.expect("body"));
        assert_invalid_params(what, &reply);
    }
}

// B15. Resources, prompts and completions are not declared, so their methods do not exist.

const UNDECLARED: &[(&str, &str)] = &[
    ("resources/list", "resources"),
    ("resources/templates/list", "resources"),
    ("resources/read", "resources"),
    ("prompts/list", "prompts"),
    ("prompts/get", "prompts"),
    ("completion/complete", "completions"),
];

fn undeclared_params(method: &str) -> Value {
    match method {
        "resources/read" => json!({"uri": "file:///x"}),
        "prompts/get" => json!({"name": "x"}),
        "completion/complete" => json!({
            "ref": {"type": "ref/prompt", "name": "x"},
            "argument": {"name": "a", "value": "b"}
        }),
        _ => json!({}),
    }
}

#[test]
fn methods_of_undeclared_capabilities_are_not_found_over_stdio() {
    let ws = Workspace::new();
    let mut client = ws.start(&[]);
    let capabilities = client.initialize_result["capabilities"].clone();
    for (method, capability) in UNDECLARED {
        assert!(
            capabilities.get(capability).is_none(),
            "{capability} is declared: {capabilities}"
        );
        let reply = client.request(method, undeclared_params(method));
        assert_eq!(reply["error"]["code"], -32601, "{method}: {reply}");
    }
}

#[tokio::test]
async fn methods_of_undeclared_capabilities_are_not_found_over_http() {
    let ws = Workspace::new();
    let server = HttpServer::start(&ws, &[]);
    let (_, session) = open_http(&server.url, "2025-11-25").await;
    for (id, (method, _)) in (1..).zip(UNDECLARED) {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method,
            "params": undeclared_params(method)});
        let response = post(
            &server.url,
            Some(&session),
            Some("2025-11-25"),
            &body.to_string(),
        )
        .send()
        .await
        .expect("send");
        let reply = common::parse_body(&response.text().await.expect("body"));
        assert_eq!(reply["error"]["code"], -32601, "{method}: {reply}");
    }
}

// B14. 2025-03-26 requires JSON-RPC batches, which neither transport takes: the server does not
// agree to that revision, and answers its clients with 2024-11-05.

const BATCH: &str = r#"[{"jsonrpc":"2.0","id":7,"method":"ping"}]"#;

#[test]
fn a_client_asking_for_2025_03_26_gets_2024_11_05_over_stdio() {
    let ws = Workspace::new();
    let root = ws.root.to_str().expect("utf8 path");
    let mut server = StdioClient::spawn(&ws.base, &[root]);
    // The proxy asks an upstream that agrees to anything for what it would agree to itself.
    let mut proxy = StdioClient::spawn(&ws.base, &["proxy", "--", "python3", PINNED_UPSTREAM]);
    for client in [&mut server, &mut proxy] {
        let init = client.request("initialize", initialize_params("2025-03-26"));
        assert_eq!(init["result"]["protocolVersion"], "2024-11-05", "{init}");
        client.notify("notifications/initialized", json!({}));
        // Batches stay refused, as 2024-11-05 has none.
        client.send_raw(BATCH);
        let refused = client
            .try_wait_for_any(std::time::Duration::from_secs(10))
            .expect("an answer to the batch");
        assert_eq!(refused["error"]["code"], -32600, "{refused}");
    }
    // Every other revision with a handshake is agreed to as asked.
    for version in ["2024-11-05", "2025-06-18", "2025-11-25"] {
        let mut client = StdioClient::spawn(&ws.base, &[root]);
        let init = client.request("initialize", initialize_params(version));
        assert_eq!(init["result"]["protocolVersion"], version, "{init}");
    }
}

#[tokio::test]
async fn a_client_asking_for_2025_03_26_gets_2024_11_05_over_http() {
    let ws = Workspace::new();
    let server = HttpServer::start(&ws, &[]);
    let (init, session) = open_http(&server.url, "2025-03-26").await;
    assert_eq!(init["result"]["protocolVersion"], "2024-11-05", "{init}");
    let response = post(&server.url, Some(&session), None, BATCH)
        .send()
        .await
        .expect("send");
    assert_eq!(response.status(), reqwest::StatusCode::BAD_REQUEST);
    let refused: Value = response.json().await.expect("a JSON-RPC error");
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
}

// B16. SSE streams open with a priming event (an id, a retry hint, empty data) for clients on
// 2025-11-25 or later, and only for them (Gemini CLI on 2025-06-18 drops the connection on it).

/// The first event of an SSE text, asserted to be a priming event.
fn assert_primes(what: &str, sse: &str) {
    let first = sse.split("\n\n").next().unwrap_or_default();
    let field = |name: &str| {
        first
            .lines()
            .find_map(|l| l.strip_prefix(name).map(|v| v.trim().to_string()))
    };
    assert!(
        field("id:").is_some_and(|id| !id.is_empty()),
        "{what}: the first event has no id: {sse:?}"
    );
    assert!(
        field("retry:").is_some_and(|ms| ms.parse::<u64>().is_ok()),
        "{what}: the first event has no retry hint: {sse:?}"
    );
    assert_eq!(
        field("data:").as_deref(),
        Some(""),
        "{what}: the first event carries data: {sse:?}"
    );
}

/// No event without JSON-RPC data (no priming event).
fn assert_no_priming(what: &str, sse: &str) {
    for line in sse.lines() {
        if let Some(data) = line.strip_prefix("data:") {
            assert!(
                !data.trim().is_empty(),
                "{what}: a priming event in {sse:?}"
            );
        }
    }
}

/// What a GET stream of the session sends within a second.
async fn get_stream_start(url: &str, session: &str, version: &str) -> String {
    let mut get = reqwest::Client::new()
        .get(url)
        .header("Accept", "text/event-stream")
        .header("MCP-Protocol-Version", version)
        .header("mcp-session-id", session)
        .send()
        .await
        .expect("GET the stream");
    assert!(get.status().is_success(), "{}", get.status());
    let mut seen = String::new();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(1);
    while let Ok(Ok(Some(chunk))) = tokio::time::timeout_at(deadline, get.chunk()).await {
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    seen
}

#[tokio::test]
async fn sse_streams_open_with_a_priming_event_for_2025_11_25_clients_only() {
    let ws = Workspace::new();
    let server = HttpServer::start(&ws, &[]);
    for version in ["2025-11-25", "2025-06-18"] {
        let primes = version == "2025-11-25";
        let check = |what: &str, sse: &str| {
            if primes {
                assert_primes(&format!("{version} {what}"), sse);
            } else {
                assert_no_priming(&format!("{version} {what}"), sse);
            }
            // The answer itself still arrives.
        };
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": initialize_params(version)});
        let response = post(&server.url, None, None, &init.to_string())
            .send()
            .await
            .expect("send initialize");
        let session = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .expect("a session id")
            .to_string();
        let sse = response.text().await.expect("body");
        check("initialize", &sse);
        assert_eq!(
            common::parse_body(&sse)["result"]["protocolVersion"],
            version
        );
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        post(
            &server.url,
            Some(&session),
            Some(version),
            &note.to_string(),
        )
        .send()
        .await
        .expect("send initialized");
        let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
        let sse = post(
            &server.url,
            Some(&session),
            Some(version),
            &list.to_string(),
        )
        .send()
        .await
        .expect("send tools/list")
        .text()
        .await
        .expect("body");
        check("tools/list", &sse);
        assert!(
            common::parse_body(&sse)["result"]["tools"].is_array(),
            "{sse}"
        );
        // The session decides, not a request's header (the conformance suite sends 2025-03-26
        // in a session it opened on 2025-11-25).
        let other = if primes { "2025-03-26" } else { "2025-11-25" };
        let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
        let sse = post(&server.url, Some(&session), Some(other), &ping.to_string())
            .send()
            .await
            .expect("send ping")
            .text()
            .await
            .expect("body");
        check(&format!("ping with the header {other}"), &sse);
        check(
            "GET stream",
            &get_stream_start(&server.url, &session, version).await,
        );
    }
}
