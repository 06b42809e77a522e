//! What `propose_and_review` tells the model, read as the model reads it: a form closed faster
//! than a person can react is no human's rejection (#32, item 10), and every reply names exactly
//! one next step (#32, item 12).

use crate::common;

use std::time::Duration;

use common::{StdioClient, Workspace};
use serde_json::{Value, json};

/// The server over stdio with a client that declares the elicitation form.
fn form_client(ws: &Workspace) -> StdioClient {
    let root = ws.root.to_str().expect("utf8 path");
    let mut client = StdioClient::spawn(&ws.base, &[root]);
    let init = client.request(
        "initialize",
        json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "claude-code", "version": "2"}
        }),
    );
    assert!(init.get("result").is_some(), "{init}");
    client.notify("notifications/initialized", json!({}));
    client
}

/// Proposes `arguments`, runs `meanwhile` once the form is shown, answers the form with
/// `answer` (an `elicitation/create` result) after `delay`; the call's result.
fn propose_and_answer_with(
    client: &mut StdioClient,
    arguments: Value,
    meanwhile: impl FnOnce(),
    answer: Value,
    delay: Duration,
) -> Value {
    let id = client.send_request(
        "tools/call",
        json!({"name": "propose_and_review", "arguments": arguments}),
    );
    let form = client
        .try_wait_for_any(Duration::from_secs(30))
        .expect("the review form");
    assert_eq!(form["method"], "elicitation/create", "{form}");
    meanwhile();
    std::thread::sleep(delay);
    client.send(&json!({"jsonrpc": "2.0", "id": form["id"], "result": answer}));
    client.wait_for(id)["result"].clone()
}

/// Proposes `two` → `TWO` in a.txt and answers the form with `action` after `delay`; the reply.
fn propose_and_answer(client: &mut StdioClient, action: &str, delay: Duration) -> Value {
    let result = propose_and_answer_with(
        client,
        json!({"path": "a.txt", "match_text": "two", "new_string": "TWO"}),
        || {},
        json!({"action": action}),
        delay,
    );
    let text = common::text_of(&result);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[test]
fn a_form_cancelled_faster_than_a_person_can_react_is_no_rejection() {
    for action in ["cancel", "decline"] {
        let ws = Workspace::new();
        ws.write("a.txt", "one\ntwo\n");
        let mut client = form_client(&ws);
        let reply = propose_and_answer(&mut client, action, Duration::ZERO);
        assert_eq!(reply["user_action"], "PENDING", "{action}: {reply:#}");
        let message = reply["message"].as_str().unwrap_or_default();
        for said in [
            "not rejected",
            "no one has seen this proposal",
            "http://127.0.0.1:",
            "session_path=",
            "--auto-approve",
        ] {
            assert!(message.contains(said), "{action}: no {said:?} in {message}");
        }
        assert!(!message.contains("The user rejected"), "{message}");
        assert!(reply["session_path"].is_string(), "{reply:#}");
        assert_eq!(
            std::fs::read_to_string(ws.root.join("a.txt")).unwrap(),
            "one\ntwo\n"
        );
    }
}

#[test]
fn a_form_cancelled_after_a_person_could_read_it_is_a_rejection() {
    let ws = Workspace::new();
    ws.write("a.txt", "one\ntwo\n");
    let mut client = form_client(&ws);
    let reply = propose_and_answer(&mut client, "cancel", Duration::from_millis(400));
    assert_eq!(reply["user_action"], "REJECTED", "{reply:#}");
    let message = reply["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("The user rejected"), "{message}");
    assert_eq!(
        std::fs::read_to_string(ws.root.join("a.txt")).unwrap(),
        "one\ntwo\n"
    );
}

/// A conflict at commit (the file changed on disk while the human reviewed) says one next step,
/// a new proposal without session_path, and so gives no session_path to pass; for a multi-file
/// proposal it says plainly that no file was written.
#[test]
fn a_conflict_says_one_next_step_and_offers_no_session_to_reuse() {
    let single = json!({"path": "a.txt", "match_text": "two", "new_string": "TWO"});
    let multi = json!({"path": "a.txt", "edits": [
        {"match_text": "two", "new_string": "TWO"},
        {"path": "b.txt", "match_text": "three", "new_string": "THREE"}
    ]});
    for (arguments, changed, now) in [
        (single, "a.txt", "one\ndeux\n"),
        (multi, "b.txt", "trois\n"),
    ] {
        let ws = Workspace::new();
        ws.write("a.txt", "one\ntwo\n");
        ws.write("b.txt", "three\n");
        let mut client = form_client(&ws);
        let result = propose_and_answer_with(
            &mut client,
            arguments,
            || {
                ws.write(changed, now);
            },
            json!({"action": "accept", "content": {"approve": true}}),
            Duration::from_millis(300),
        );
        assert_eq!(result["isError"], json!(true), "{result}");
        let text = common::text_of(&result);
        assert!(text.starts_with("Error: Conflict:"), "{text}");
        assert!(text.contains("without session_path"), "{text}");
        assert!(
            !text.contains("session_path:"),
            "a session_path to pass, next to 'without session_path': {text}"
        );
        assert!(!text.contains("(no file)"), "{text}");
        for alternative in ["; or ", ", or call", "To start over"] {
            assert!(!text.contains(alternative), "two next steps: {text}");
        }
        assert_eq!(std::fs::read_to_string(ws.root.join(changed)).unwrap(), now);
        assert_eq!(
            std::fs::read_to_string(ws.root.join("a.txt")).unwrap(),
            if changed == "a.txt" {
                now
            } else {
                "one\ntwo\n"
            },
            "nothing of the change was written"
        );
    }
}

/// After a form closed unseen, the collecting call waits for the verdict given in the page (the
/// link the reply gave), instead of asking the form again (which the same client closes again).
#[tokio::test]
async fn after_an_unseen_form_the_collecting_call_takes_the_verdict_from_the_page() {
    let ws = Workspace::new();
    ws.write("a.txt", "one\ntwo\n");
    let mut client = form_client(&ws);
    let pending = propose_and_answer(&mut client, "cancel", Duration::ZERO);
    assert_eq!(pending["user_action"], "PENDING", "{pending:#}");
    let session = pending["session_path"].as_str().unwrap().to_string();
    let message = pending["message"].as_str().unwrap();
    let link: String = message[message.find("http://127.0.0.1:").expect("a link")..]
        .chars()
        .take_while(|c| !c.is_whitespace())
        .collect();
    let (base, token) = link.split_once("/?token=").expect("a token");
    // The collecting call is in flight when the human approves in the page.
    let id = client.send_request(
        "tools/call",
        json!({"name": "propose_and_review", "arguments": {"path": "a.txt", "session_path": session}}),
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let status = reqwest::Client::new()
        .post(format!("{base}/api/reviews/decide"))
        .header("x-fs-mcp-token", token)
        .json(&json!({"session_path": session}))
        .send()
        .await
        .expect("decide")
        .status();
    assert_eq!(status, reqwest::StatusCode::OK);
    let answer = client
        .try_wait_for_any(Duration::from_secs(30))
        .expect("an answer");
    assert_eq!(
        answer["id"],
        json!(id),
        "the form was asked again: {answer}"
    );
    let text = common::text_of(&answer["result"]);
    let verdict: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(verdict["user_action"], "COMMITTED", "{verdict:#}");
    assert_eq!(
        std::fs::read_to_string(ws.root.join("a.txt")).unwrap(),
        "one\nTWO\n"
    );
}
