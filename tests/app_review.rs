//! The review view as an MCP App (issue 34): a client that declares the
//! `io.modelcontextprotocol/ui` extension is served the view's resource, `propose_and_review`
//! names it, the call answers PENDING with what the view shows, and the verdict comes back
//! through the app-only tool; a client without the extension sees none of it.

use crate::common;

use common::{StdioClient, Workspace, text_of};
use serde_json::{Value, json};

const VIEW_URI: &str = "ui://fs-mcp-rs/review.html";
const MIME: &str = "text/html;profile=mcp-app";

/// The server as a host that renders MCP Apps (2025-11-25, the extension declared).
fn start_host(ws: &Workspace) -> StdioClient {
    let root = ws.root.to_str().unwrap().to_string();
    let mut c = StdioClient::spawn(&ws.base, &[&root]);
    let init = c.request(
        "initialize",
        json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": [MIME]}}},
            "clientInfo": {"name": "apps-host-test", "version": "1"}
        }),
    );
    c.initialize_result = init["result"].clone();
    c.notify("notifications/initialized", json!({}));
    c
}

fn reply(result: &Value) -> Value {
    serde_json::from_str(&text_of(result)).unwrap_or_else(|e| panic!("not JSON ({e}): {result}"))
}

/// What the view is handed: the result's `_meta`.
fn view_data(result: &Value) -> Value {
    result["_meta"]["fs-mcp-rs/review"].clone()
}

/// Sends the collecting call, then the view's verdict; returns the collected answer.
fn decide(c: &mut StdioClient, path: &str, first: &Value, verdict: Value) -> Value {
    let session = reply(first)["session_path"].as_str().unwrap().to_string();
    let collecting = c.send_request(
        "tools/call",
        json!({"name": "propose_and_review", "arguments": {"path": path, "session_path": session}}),
    );
    let mut arguments = verdict;
    arguments["review"] = view_data(first)["review"].clone();
    let sent = c.call("submit_review_verdict", arguments);
    assert_ne!(sent["isError"], json!(true), "{sent}");
    let collected = c.wait_for(collecting);
    reply(&collected["result"])
}

#[test]
fn a_host_with_the_extension_gets_the_view_resource_and_the_app_only_tool() {
    let ws = Workspace::new();
    let mut c = start_host(&ws);
    let caps = &c.initialize_result["capabilities"];
    assert!(caps["resources"].is_object(), "{caps}");
    assert!(
        caps["extensions"]["io.modelcontextprotocol/ui"].is_object(),
        "{caps}"
    );

    let tools = c.list_tools();
    let propose = tools
        .iter()
        .find(|t| t["name"] == "propose_and_review")
        .unwrap();
    assert_eq!(propose["_meta"]["ui"]["resourceUri"], VIEW_URI, "{propose}");
    let verdict = tools
        .iter()
        .find(|t| t["name"] == "submit_review_verdict")
        .unwrap();
    assert_eq!(
        verdict["_meta"]["ui"]["visibility"],
        json!(["app"]),
        "{verdict}"
    );

    let listed = c.request("resources/list", json!({}));
    assert_eq!(
        listed["result"]["resources"][0]["uri"], VIEW_URI,
        "{listed}"
    );
    assert_eq!(
        listed["result"]["resources"][0]["mimeType"], MIME,
        "{listed}"
    );
    let read = c.request("resources/read", json!({"uri": VIEW_URI}));
    let content = &read["result"]["contents"][0];
    assert_eq!(content["mimeType"], MIME, "{read}");
    let html = content["text"].as_str().unwrap();
    assert!(html.contains("ui/initialize") && html.contains("submit_review_verdict"));
    // Self-contained: nothing is loaded from anywhere.
    for outside in ["<script src", "<link", "http://", "https://", "@import"] {
        assert!(!html.contains(outside), "the view loads {outside}");
    }
    let csp = &content["_meta"]["ui"]["csp"];
    for list in [
        "connectDomains",
        "resourceDomains",
        "frameDomains",
        "baseUriDomains",
    ] {
        assert_eq!(csp[list], json!([]), "{csp}");
    }
    let missing = c.request(
        "resources/read",
        json!({"uri": "ui://fs-mcp-rs/other.html"}),
    );
    assert_eq!(missing["error"]["code"], -32002, "{missing}");
}

#[test]
fn a_client_without_the_extension_sees_no_view_no_resource_and_no_app_tool() {
    let ws = Workspace::new();
    let mut c = ws.start(&[]);
    assert!(c.initialize_result["capabilities"]["resources"].is_null());
    let tools = c.list_tools();
    assert!(tools.iter().all(|t| t["name"] != "submit_review_verdict"));
    assert!(
        tools.iter().all(|t| t["_meta"]["ui"].is_null()),
        "{tools:?}"
    );
    for method in ["resources/list", "resources/read"] {
        let answer = c.request(method, json!({"uri": VIEW_URI}));
        assert_eq!(answer["error"]["code"], -32601, "{method}: {answer}");
    }
    let call = c.request(
        "tools/call",
        json!({"name": "submit_review_verdict", "arguments": {"review": "00", "action": "approve"}}),
    );
    let refused = call["error"].is_object() || call["result"]["isError"] == json!(true);
    assert!(refused, "{call}");
}

#[test]
fn approve_in_the_view_commits_and_the_collecting_call_answers_committed() {
    let ws = Workspace::new();
    ws.write("a.rs", "fn main() {\n    println!(\"one\");\n}\n");
    let mut c = start_host(&ws);
    let first = c.call(
        "propose_and_review",
        json!({"path": "a.rs", "match_text": "\"one\"", "new_string": "\"two\""}),
    );
    let answer = reply(&first);
    assert_eq!(answer["user_action"], "PENDING", "{answer}");
    let message = answer["message"].as_str().unwrap();
    assert!(
        message.contains("view") && message.contains("session_path"),
        "{message}"
    );
    assert!(!message.contains("http://"), "no page link: {message}");
    let data = view_data(&first);
    assert_eq!(data["files"][0]["path"], "a.rs", "{data}");
    assert!(
        data["files"][0]["diff"]
            .as_str()
            .unwrap()
            .contains("+    println!(\"two\");")
    );
    assert_eq!(data["proposed"], "fn main() {\n    println!(\"two\");\n}\n");
    // The token is for the view, not in what the model reads.
    assert!(!text_of(&first).contains(data["review"].as_str().unwrap()));
    assert!(
        std::fs::read_to_string(ws.root.join("a.rs"))
            .unwrap()
            .contains("one")
    );

    let verdict = decide(&mut c, "a.rs", &first, json!({"action": "approve"}));
    assert_eq!(verdict["user_action"], "COMMITTED", "{verdict}");
    assert!(
        std::fs::read_to_string(ws.root.join("a.rs"))
            .unwrap()
            .contains("two")
    );
}

#[test]
fn reject_with_a_comment_in_the_view_answers_rejected_with_it() {
    let ws = Workspace::new();
    ws.write("a.txt", "one\n");
    let mut c = start_host(&ws);
    let first = c.call(
        "propose_and_review",
        json!({"path": "a.txt", "match_text": "one", "new_string": "uno"}),
    );
    let verdict = decide(
        &mut c,
        "a.txt",
        &first,
        json!({"action": "reject", "comment": "keep it in English"}),
    );
    assert_eq!(verdict["user_action"], "REJECTED", "{verdict}");
    assert_eq!(verdict["user_comment"], "keep it in English", "{verdict}");
    assert_eq!(
        std::fs::read_to_string(ws.root.join("a.txt")).unwrap(),
        "one\n"
    );
}

#[test]
fn an_edited_version_from_the_view_comes_back_as_review_feedback() {
    let ws = Workspace::new();
    ws.write("a.txt", "one\n");
    let mut c = start_host(&ws);
    let first = c.call(
        "propose_and_review",
        json!({"path": "a.txt", "match_text": "one", "new_string": "two"}),
    );
    let verdict = decide(
        &mut c,
        "a.txt",
        &first,
        json!({"action": "edit", "content": "three\n"}),
    );
    assert_eq!(verdict["user_action"], "REVIEW", "{verdict}");
    assert!(
        verdict["user_feedback_diff"]
            .as_str()
            .unwrap()
            .contains("+three"),
        "{verdict}"
    );
    assert_eq!(
        std::fs::read_to_string(ws.root.join("a.txt")).unwrap(),
        "one\n"
    );
}

#[test]
fn a_three_file_change_is_reviewed_as_one() {
    let ws = Workspace::new();
    for name in ["a.txt", "b.txt", "c.txt"] {
        ws.write(name, "old\n");
    }
    let mut c = start_host(&ws);
    let first = c.call(
        "propose_and_review",
        json!({"path": "a.txt", "edits": [
            {"match_text": "old", "new_string": "new a"},
            {"path": "b.txt", "match_text": "old", "new_string": "new b"},
            {"path": "c.txt", "match_text": "old", "new_string": "new c"}
        ]}),
    );
    let data = view_data(&first);
    let files: Vec<&str> = data["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["a.txt", "b.txt", "c.txt"], "{data}");
    assert!(
        data["proposed"].is_null(),
        "a multi-file change is not edited: {data}"
    );
    let verdict = decide(&mut c, "a.txt", &first, json!({"action": "approve"}));
    assert_eq!(verdict["user_action"], "COMMITTED", "{verdict}");
    for name in ["a", "b", "c"] {
        let text = std::fs::read_to_string(ws.root.join(format!("{name}.txt"))).unwrap();
        assert_eq!(text, format!("new {name}\n"));
    }
}

#[test]
fn a_forged_or_repeated_verdict_is_refused_and_writes_nothing() {
    let ws = Workspace::new();
    ws.write("a.txt", "one\n");
    let mut c = start_host(&ws);
    let first = c.call(
        "propose_and_review",
        json!({"path": "a.txt", "match_text": "one", "new_string": "two"}),
    );
    let session = reply(&first)["session_path"].as_str().unwrap().to_string();
    let token = view_data(&first)["review"].as_str().unwrap().to_string();
    // Another server's (another session's) review: its token names nothing here.
    let other_ws = Workspace::new();
    other_ws.write("b.txt", "x\n");
    let mut other = start_host(&other_ws);
    let other_first = other.call(
        "propose_and_review",
        json!({"path": "b.txt", "match_text": "x", "new_string": "y"}),
    );
    let other_token = view_data(&other_first)["review"]
        .as_str()
        .unwrap()
        .to_string();
    for forged in [
        session.as_str(),
        other_token.as_str(),
        "0123456789abcdef0123456789abcdef",
    ] {
        let r = c.call(
            "submit_review_verdict",
            json!({"review": forged, "action": "approve"}),
        );
        assert_eq!(r["isError"], json!(true), "{forged}: {r}");
    }
    let r = other.call(
        "submit_review_verdict",
        json!({"review": token, "action": "approve"}),
    );
    assert_eq!(
        r["isError"],
        json!(true),
        "another session took this one's token: {r}"
    );

    let r = c.call(
        "submit_review_verdict",
        json!({"review": token, "action": "reject"}),
    );
    assert_ne!(r["isError"], json!(true), "{r}");
    let again = c.call(
        "submit_review_verdict",
        json!({"review": token, "action": "approve"}),
    );
    assert_eq!(
        again["isError"],
        json!(true),
        "the same token twice: {again}"
    );
    let verdict = reply(&c.call(
        "propose_and_review",
        json!({"path": "a.txt", "session_path": session}),
    ));
    assert_eq!(verdict["user_action"], "REJECTED", "{verdict}");
    assert_eq!(
        std::fs::read_to_string(ws.root.join("a.txt")).unwrap(),
        "one\n"
    );
    assert_eq!(
        std::fs::read_to_string(other_ws.root.join("b.txt")).unwrap(),
        "x\n"
    );
}

/// On 2026-07-28 a client declares the extension in each request's `_meta` (no `initialize`):
/// discovery declares resources for it, tools/list and resources/read serve it, and the view's
/// verdict commits; the same connection's request without the extension sees none of it.
#[test]
fn a_2026_07_28_client_declares_the_extension_in_each_request() {
    let ws = Workspace::new();
    ws.write("a.txt", "one\n");
    let root = ws.root.to_str().unwrap().to_string();
    let mut c = StdioClient::spawn(&ws.base, &[&root]);
    let meta = |apps: bool| {
        let capabilities = if apps {
            json!({"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": [MIME]}}})
        } else {
            json!({})
        };
        json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities,
            "io.modelcontextprotocol/clientInfo": {"name": "apps-host-test", "version": "1"}
        })
    };
    let discover = c.request("server/discover", json!({"_meta": meta(true)}));
    assert!(
        discover["result"]["capabilities"]["resources"].is_object(),
        "{discover}"
    );
    let plain = c.request("server/discover", json!({"_meta": meta(false)}));
    assert!(
        plain["result"]["capabilities"]["resources"].is_null(),
        "{plain}"
    );

    let listed = c.request("tools/list", json!({"_meta": meta(true)}));
    assert_eq!(listed["result"]["cacheScope"], "private", "{listed}");
    let tools = listed["result"]["tools"].as_array().unwrap();
    assert!(tools.iter().any(|t| t["name"] == "submit_review_verdict"));
    let plain = c.request("tools/list", json!({"_meta": meta(false)}));
    let tools = plain["result"]["tools"].as_array().unwrap();
    assert!(tools.iter().all(|t| t["name"] != "submit_review_verdict"));
    let read = c.request(
        "resources/read",
        json!({"_meta": meta(true), "uri": VIEW_URI}),
    );
    assert_eq!(read["result"]["contents"][0]["mimeType"], MIME, "{read}");

    let call = |c: &mut StdioClient, name: &str, arguments: Value| {
        let response = c.request(
            "tools/call",
            json!({"_meta": meta(true), "name": name, "arguments": arguments}),
        );
        response["result"].clone()
    };
    let first = call(
        &mut c,
        "propose_and_review",
        json!({"path": "a.txt", "match_text": "one", "new_string": "two"}),
    );
    assert_eq!(reply(&first)["user_action"], "PENDING", "{first}");
    let sent = call(
        &mut c,
        "submit_review_verdict",
        json!({"review": view_data(&first)["review"], "action": "approve"}),
    );
    assert_ne!(sent["isError"], json!(true), "{sent}");
    let session = reply(&first)["session_path"].as_str().unwrap().to_string();
    let done = call(
        &mut c,
        "propose_and_review",
        json!({"path": "a.txt", "session_path": session}),
    );
    assert_eq!(reply(&done)["user_action"], "COMMITTED", "{done}");
    assert_eq!(
        std::fs::read_to_string(ws.root.join("a.txt")).unwrap(),
        "two\n"
    );
}
