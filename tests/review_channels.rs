//! Where the human reviews a proposal (issue 21): the review page when the client has no form
//! and no review command is installed (the call answers at once with a link), the client's own
//! form through MCP elicitation (Python SDK, 2025-11-25) and MRTR (rmcp client, 2026-07-28), and
//! the same verdicts on every channel.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::{StdioClient, Workspace, text_of};
use serde_json::{Value, json};

fn response(result: &Value) -> Value {
    serde_json::from_str(&text_of(result)).unwrap_or_else(|e| panic!("not JSON ({e}): {result}"))
}

/// A PATH with no `code` on it (nor anything else).
fn empty_path(ws: &Workspace) -> PathBuf {
    let dir = ws.base.join("empty-bin");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn start_without_editor(ws: &Workspace, extra: &[&str]) -> StdioClient {
    let root = ws.root.to_str().unwrap().to_string();
    let mut args: Vec<&str> = extra.to_vec();
    args.push(&root);
    let path = empty_path(ws);
    StdioClient::start_with_env(&ws.base, &args, &[("PATH", path.as_path())])
}

async fn page_decide(base: &str, token: &str, body: Value) -> reqwest::StatusCode {
    let listed = common::page_reviews(base, token).await;
    assert!(
        listed["reviews"]
            .as_array()
            .is_some_and(|r| r.iter().any(|r| r["session_path"] == body["session_path"])),
        "{listed}"
    );
    let no_token = common::page_post_decision(base, None, &body).await;
    assert_eq!(no_token, reqwest::StatusCode::UNAUTHORIZED);
    common::page_post_decision(base, Some(token), &body).await
}

#[tokio::test]
async fn without_editor_or_form_the_call_answers_at_once_with_a_link_and_the_page_commits() {
    let ws = Workspace::new();
    ws.write("a.txt", "one\ntwo\n");
    let mut c = start_without_editor(&ws, &[]);
    let started = Instant::now();
    let first = response(&c.call(
        "propose_and_review",
        json!({"path": "a.txt", "match_text": "two", "new_string": "TWO"}),
    ));
    let took = started.elapsed();
    // The old behaviour waited the whole review timeout (600 s) for a window never opened.
    assert!(took < Duration::from_secs(10), "took {took:?}: {first}");
    assert_eq!(first["user_action"], "PENDING", "{first}");
    assert!(first["diff"].as_str().unwrap().contains("+TWO"), "{first}");
    let session = first["session_path"].as_str().unwrap().to_string();
    let (base, token) = common::review_link(first["message"].as_str().unwrap());
    assert_eq!(
        std::fs::read_to_string(ws.root.join("a.txt")).unwrap(),
        "one\ntwo\n"
    );

    let status = page_decide(&base, &token, json!({"session_path": session})).await;
    assert_eq!(status, reqwest::StatusCode::OK);
    let verdict = response(&c.call(
        "propose_and_review",
        json!({"path": "a.txt", "session_path": session}),
    ));
    assert_eq!(verdict["user_action"], "COMMITTED", "{verdict}");
    assert_eq!(
        std::fs::read_to_string(ws.root.join("a.txt")).unwrap(),
        "one\nTWO\n"
    );
}

#[tokio::test]
async fn the_collecting_call_waits_and_a_rejection_in_the_page_writes_nothing() {
    let ws = Workspace::new();
    ws.write("b.txt", "keep\n");
    let mut c = start_without_editor(&ws, &[]);
    let first = response(&c.call(
        "propose_and_review",
        json!({"path": "b.txt", "match_text": "keep", "new_string": "drop"}),
    ));
    assert_eq!(first["user_action"], "PENDING", "{first}");
    let session = first["session_path"].as_str().unwrap().to_string();
    let (base, token) = common::review_link(first["message"].as_str().unwrap());
    // The collecting call is in flight (waiting) when the human decides.
    let id = c.send_request(
        "tools/call",
        json!({"name": "propose_and_review", "arguments": {"path": "b.txt", "session_path": session}}),
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    let status = page_decide(
        &base,
        &token,
        json!({"session_path": session, "reject": true, "comment": "keep it as it is"}),
    )
    .await;
    assert_eq!(status, reqwest::StatusCode::OK);
    let answer = c.wait_for(id);
    let verdict = response(&answer["result"]);
    assert_eq!(verdict["user_action"], "REJECTED", "{verdict}");
    assert_eq!(verdict["user_comment"], "keep it as it is", "{verdict}");
    assert!(verdict.get("session_path").is_none(), "{verdict}");
    assert_eq!(
        std::fs::read_to_string(ws.root.join("b.txt")).unwrap(),
        "keep\n"
    );
}

#[test]
fn auto_approve_answers_with_the_diff_and_one_short_line() {
    let ws = Workspace::new();
    ws.write("c.txt", "alpha\n");
    let mut c = ws.start(&["--auto-approve"]);
    let r = response(&c.call(
        "propose_and_review",
        json!({"path": "c.txt", "match_text": "alpha", "new_string": "beta"}),
    ));
    assert_eq!(r["user_action"], "COMMITTED");
    assert_eq!(r["message"], "Committed 'c.txt' (auto-approve).");
    assert_eq!(
        r["diff"],
        "--- a/c.txt\n+++ b/c.txt\n@@ -1 +1 @@\n-alpha\n+beta\n"
    );
}

const PY_ELICIT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/clients/py_elicit.py");

/// Runs the Python SDK client answering the form as `mode`; its report.
fn py_elicit(
    python: &Path,
    ws: &Workspace,
    mode: &str,
    arguments: Value,
    transport: &[&str],
) -> Value {
    let path = empty_path(ws);
    let output = std::process::Command::new(python)
        .arg(PY_ELICIT)
        .arg(mode)
        .arg(arguments.to_string())
        .args(transport)
        .current_dir(&ws.base)
        .env("PATH", &path)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run the Python client");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{mode}: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

fn stdio_command(ws: &Workspace, extra: &[&str]) -> Vec<String> {
    let mut command = vec!["--stdio".to_string(), common::BIN.to_string()];
    command.extend(extra.iter().map(|s| s.to_string()));
    command.push(ws.root.display().to_string());
    command
}

/// Each way of answering the client's form, through the official Python SDK over stdio: the
/// file is written only on approval; reject, decline and cancel are a rejection (a comment only
/// when the human wrote one), unless they come faster than a person can react (PENDING); a form
/// never answered times out with nothing written.
#[test]
fn python_sdk_form_verdicts_over_stdio() {
    let Some(python) = common::sdk_python() else {
        return;
    };
    let cases = [
        ("accept", "COMMITTED", "one\nTWO\n", None),
        ("reject", "REJECTED", "one\ntwo\n", Some("too risky")),
        ("decline", "REJECTED", "one\ntwo\n", None),
        ("cancel", "REJECTED", "one\ntwo\n", None),
        // Cancelled at once, as `claude -p` does: no one saw it, so no rejection (#32).
        ("headless-cancel", "PENDING", "one\ntwo\n", None),
        ("never", "TIMEOUT", "one\ntwo\n", None),
    ];
    for (mode, action, content, comment) in cases {
        let ws = Workspace::new();
        ws.write("a.txt", "one\ntwo\n");
        let command = stdio_command(&ws, &["--review-timeout", "2"]);
        let command: Vec<&str> = command.iter().map(String::as_str).collect();
        let report = py_elicit(
            &python,
            &ws,
            mode,
            json!({"path": "a.txt", "match_text": "two", "new_string": "TWO"}),
            &command,
        );
        let call = &report["call"];
        assert_eq!(call["is_error"], false, "{mode}: {report}");
        let r: Value = serde_json::from_str(call["text"].as_str().unwrap()).unwrap();
        assert_eq!(r["user_action"], action, "{mode}: {r}");
        assert_eq!(
            r.get("user_comment").and_then(Value::as_str),
            comment,
            "{mode}: {r}"
        );
        assert_eq!(
            std::fs::read_to_string(ws.root.join("a.txt")).unwrap(),
            content,
            "{mode}"
        );
        // One form, whose approve field carries the diff in full.
        let forms = report["elicitations"].as_array().unwrap();
        assert_eq!(forms.len(), 1, "{mode}: {report}");
        let approve = &forms[0]["schema"]["properties"]["approve"];
        assert_eq!(approve["type"], "boolean", "{report}");
        let diff = approve["description"].as_str().unwrap();
        assert!(diff.contains("-two") && diff.contains("+TWO"), "{diff}");
        assert!(forms[0]["message"].as_str().unwrap().contains("'a.txt'"));
    }
}

/// The same form over streamable HTTP: approve commits, decline writes nothing.
#[test]
fn python_sdk_form_verdicts_over_http() {
    let Some(python) = common::sdk_python() else {
        return;
    };
    for (mode, action, content) in [
        ("accept", "COMMITTED", "x = 2\n"),
        ("decline", "REJECTED", "x = 1\n"),
        ("headless-cancel", "PENDING", "x = 1\n"),
    ] {
        let ws = Workspace::new();
        ws.write("m.py", "x = 1\n");
        let server = common::HttpServer::start(&ws, &["--review-command", "none"]);
        let report = py_elicit(
            &python,
            &ws,
            mode,
            json!({"path": "m.py", "match_text": "x = 1", "new_string": "x = 2"}),
            &["--http", &server.url],
        );
        let r: Value = serde_json::from_str(report["call"]["text"].as_str().unwrap()).unwrap();
        assert_eq!(r["user_action"], action, "{mode}: {r}");
        assert_eq!(
            std::fs::read_to_string(ws.root.join("m.py")).unwrap(),
            content
        );
    }
}

/// An rmcp client on 2026-07-28 (`server/discover`, no initialize), whose human answers the
/// form as `answer` (the `content` of an accepted form; `None` declines).
struct FormClient {
    answer: Option<Value>,
    asked: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    /// Declares URL mode too, and approves in the page a URL-mode request sends it to.
    url_mode: bool,
    /// How long the human takes to answer the form (zero: a headless client closing it at once).
    delay: Duration,
}

impl rmcp::ClientHandler for FormClient {
    fn get_info(&self) -> rmcp::model::ClientConfig {
        serde_json::from_value(json!({
            "protocolVersion": "2026-07-28",
            "capabilities": if self.url_mode {
                json!({"elicitation": {"form": {}, "url": {}}})
            } else {
                json!({"elicitation": {"form": {}}})
            },
            "clientInfo": {"name": "fs-mcp-rs-mrtr-test", "version": "1"}
        }))
        .expect("client config")
    }

    async fn create_elicitation(
        &self,
        request: rmcp::model::ElicitRequestParams,
        _context: rmcp::service::RequestContext<rmcp::RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        self.asked
            .lock()
            .unwrap()
            .push(serde_json::to_string(&request).unwrap());
        use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
        if let ElicitRequestParams::UrlElicitationParams { url, .. } = &request {
            // The human opens the page and approves the one proposal listed there.
            let (base, token) = url.split_once("/?token=").expect("a token in the URL");
            let http = reqwest::Client::new();
            let listed: Value = http
                .get(format!("{base}/api/reviews"))
                .header("x-fs-mcp-token", token)
                .send()
                .await
                .expect("list")
                .json()
                .await
                .expect("JSON");
            let session = listed["reviews"][0]["session_path"].clone();
            let status = http
                .post(format!("{base}/api/reviews/decide"))
                .header("x-fs-mcp-token", token)
                .json(&json!({"session_path": session}))
                .send()
                .await
                .expect("decide")
                .status();
            assert_eq!(status, reqwest::StatusCode::OK);
            return Ok(ElicitResult::new(ElicitationAction::Accept));
        }
        tokio::time::sleep(self.delay).await;
        Ok(match &self.answer {
            Some(content) => {
                ElicitResult::new(ElicitationAction::Accept).with_content(content.clone())
            }
            None => ElicitResult::new(ElicitationAction::Decline),
        })
    }
}

/// A person answers a form after reading it; faster is a headless client (see `py_elicit.py`).
const HUMAN_DELAY: Duration = Duration::from_millis(500);

async fn mrtr_propose(ws: &Workspace, answer: Option<Value>) -> (Value, Vec<String>, String) {
    mrtr_propose_with(
        ws,
        answer,
        HUMAN_DELAY,
        false,
        json!({"path": "a.txt", "match_text": "two", "new_string": "TWO"}),
    )
    .await
}

async fn mrtr_propose_with(
    ws: &Workspace,
    answer: Option<Value>,
    delay: Duration,
    url_mode: bool,
    arguments: Value,
) -> (Value, Vec<String>, String) {
    use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
    let asked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let client = FormClient {
        answer,
        asked: std::sync::Arc::clone(&asked),
        url_mode,
        delay,
    };
    let mut command = tokio::process::Command::new(common::BIN);
    command
        .arg(ws.root.as_os_str())
        .current_dir(&ws.base)
        .env("PATH", empty_path(ws));
    let transport = rmcp::transport::TokioChildProcess::new(command).expect("spawn the server");
    let running = client
        .serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("discover handshake");
    let version = format!(
        "{:?}",
        running.peer_info().map(|i| i.protocol_version.clone())
    );
    let result = running
        .call_tool(
            rmcp::model::CallToolRequestParams::new("propose_and_review")
                .with_arguments(arguments.as_object().unwrap().clone()),
        )
        .await
        .expect("tools/call with MRTR rounds");
    let text = result
        .content
        .iter()
        .find_map(|c| c.as_text().map(|t| t.text.clone()))
        .expect("text content");
    let _ = running.cancel().await;
    let asked = asked.lock().unwrap().clone();
    (serde_json::from_str(&text).expect("JSON"), asked, version)
}

/// On 2026-07-28 too, a form declined faster than a person can react (a headless client) is no
/// rejection: PENDING with the review page's link, nothing written.
#[tokio::test]
async fn an_mrtr_form_declined_at_once_is_no_rejection() {
    let ws = Workspace::new();
    ws.write("a.txt", "one\ntwo\n");
    let (r, asked, _) = mrtr_propose_with(
        &ws,
        None,
        Duration::ZERO,
        false,
        json!({"path": "a.txt", "match_text": "two", "new_string": "TWO"}),
    )
    .await;
    assert_eq!(r["user_action"], "PENDING", "{r}");
    let message = r["message"].as_str().unwrap();
    assert!(
        message.contains("no one has seen this proposal"),
        "{message}"
    );
    assert!(message.contains("--auto-approve"), "{message}");
    common::review_link(message);
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(
        std::fs::read_to_string(ws.root.join("a.txt")).unwrap(),
        "one\ntwo\n"
    );
}

/// On 2026-07-28 the form travels as an `input_required` result and the client's retry carries
/// the answer (rmcp refuses server→client requests on that era): approve commits, a rejection
/// with a comment writes nothing and hands the comment back, decline writes nothing.
#[tokio::test]
async fn rmcp_client_on_2026_07_28_reviews_through_input_required() {
    for (answer, action, content, comment) in [
        (
            Some(json!({"approve": true})),
            "COMMITTED",
            "one\nTWO\n",
            None,
        ),
        (
            Some(json!({"approve": false, "comment": "no, keep two"})),
            "REJECTED",
            "one\ntwo\n",
            Some("no, keep two"),
        ),
        (None, "REJECTED", "one\ntwo\n", None),
    ] {
        let ws = Workspace::new();
        ws.write("a.txt", "one\ntwo\n");
        let (r, asked, version) = mrtr_propose(&ws, answer).await;
        assert!(version.contains("2026-07-28"), "{version}");
        assert_eq!(r["user_action"], action, "{r}");
        assert_eq!(
            r.get("user_comment").and_then(Value::as_str),
            comment,
            "{r}"
        );
        assert_eq!(asked.len(), 1, "{asked:?}");
        assert!(asked[0].contains("+TWO"), "{}", asked[0]);
        assert_eq!(
            std::fs::read_to_string(ws.root.join("a.txt")).unwrap(),
            content
        );
    }
}

/// The Gemini CLI situation (no client form, no `code` on PATH): the link the call answers with
/// opens the review page in Chromium, the human approves there, and the agent's next call gets
/// COMMITTED.
#[test]
fn approving_in_chromium_through_the_link_commits() {
    let Some(python) = common::sdk_python() else {
        return;
    };
    let chromium = std::env::var_os("FS_MCP_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    let has_playwright = std::process::Command::new(&python)
        .args(["-c", "import playwright.sync_api"])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !chromium.exists() || !has_playwright {
        if std::env::var("FS_MCP_REQUIRE_CLIENTS").as_deref() == Ok("1") {
            panic!("Chromium or Playwright missing: run `cargo xtask clients install`");
        }
        eprintln!("skipping: Chromium or Playwright not installed");
        return;
    }
    let ws = Workspace::new();
    ws.write("settings.ini", "name = demo\nversion = 1\n");
    let mut c = start_without_editor(&ws, &[]);
    let first = response(&c.call(
        "propose_and_review",
        json!({"path": "settings.ini", "match_text": "version = 1", "new_string": "version = 2"}),
    ));
    assert_eq!(first["user_action"], "PENDING", "{first}");
    let session = first["session_path"].as_str().unwrap().to_string();
    let message = first["message"].as_str().unwrap();
    let (base, token) = common::review_link(message);
    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/ui-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let output = std::process::Command::new(&python)
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/ui/review_page_test.py"
        ))
        .arg(format!("{base}/?token={token}"))
        .arg("settings.ini")
        .arg(shots.join("review-page.png"))
        .env("FS_MCP_CHROMIUM", &chromium)
        .output()
        .expect("run the browser");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("review page test passed"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let verdict = response(&c.call(
        "propose_and_review",
        json!({"path": "settings.ini", "session_path": session}),
    ));
    assert_eq!(verdict["user_action"], "COMMITTED", "{verdict}");
    assert_eq!(
        std::fs::read_to_string(ws.root.join("settings.ini")).unwrap(),
        "name = demo\nversion = 2\n"
    );
}

/// A client that loses the connection while its form is open leaves the file untouched, and
/// the server goes on serving: the next client's proposal of the same file commits.
#[test]
fn a_client_gone_mid_review_leaves_the_file_untouched() {
    let Some(python) = common::sdk_python() else {
        return;
    };
    let ws = Workspace::new();
    ws.write("m.py", "x = 1\n");
    let server = common::HttpServer::start(&ws, &["--review-command", "none"]);
    let arguments = json!({"path": "m.py", "match_text": "x = 1", "new_string": "x = 2"});
    let mut gone = std::process::Command::new(&python)
        .arg(PY_ELICIT)
        .arg("never")
        .arg(arguments.to_string())
        .args(["--http", &server.url])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start the Python client");
    std::thread::sleep(Duration::from_secs(3));
    gone.kill().expect("kill the client");
    let _ = gone.wait();
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        std::fs::read_to_string(ws.root.join("m.py")).unwrap(),
        "x = 1\n"
    );
    let report = py_elicit(&python, &ws, "accept", arguments, &["--http", &server.url]);
    let r: Value = serde_json::from_str(report["call"]["text"].as_str().unwrap()).unwrap();
    assert_eq!(r["user_action"], "COMMITTED", "{r}");
    assert_eq!(
        std::fs::read_to_string(ws.root.join("m.py")).unwrap(),
        "x = 2\n"
    );
}

/// Writes a.txt of 100 lines and returns its new content, every line changed: a diff longer
/// than the form shows.
fn hundred_changed_lines(ws: &Workspace) -> String {
    let old: String = (1..=100).map(|i| format!("line {i}\n")).collect();
    ws.write("a.txt", &old);
    (1..=100).map(|i| format!("LINE {i}\n")).collect()
}

/// A diff too long for the form goes to a client that takes URL mode as a link to the review
/// page (2026-07-28, MRTR); the human approves there and the retried call answers COMMITTED.
#[tokio::test]
async fn a_diff_too_long_for_the_form_is_reviewed_through_url_mode() {
    let ws = Workspace::new();
    let new = hundred_changed_lines(&ws);
    let (r, asked, _) = mrtr_propose_with(
        &ws,
        None,
        HUMAN_DELAY,
        true,
        json!({"path": "a.txt", "match_text": "OVERWRITE_FILE", "new_string": new}),
    )
    .await;
    assert_eq!(r["user_action"], "COMMITTED", "{r}");
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(asked[0].contains("\"mode\":\"url\""), "{}", asked[0]);
    assert_eq!(std::fs::read_to_string(ws.root.join("a.txt")).unwrap(), new);
}

/// `--review-via` picks the channel by hand: `page` sends even a client with a form to the page;
/// `command` whose program is missing falls back to the page instead of waiting.
#[test]
fn review_via_picks_the_channel_and_never_waits_on_a_missing_program() {
    let ws = Workspace::new();
    ws.write("a.txt", "one\ntwo\n");
    let mut c = start_without_editor(&ws, &["--review-via", "command"]);
    let r = response(&c.call(
        "propose_and_review",
        json!({"path": "a.txt", "match_text": "two", "new_string": "TWO"}),
    ));
    assert_eq!(r["user_action"], "PENDING", "{r}");

    let Some(python) = common::sdk_python() else {
        return;
    };
    let command = stdio_command(&ws, &["--review-via", "page"]);
    let command: Vec<&str> = command.iter().map(String::as_str).collect();
    let report = py_elicit(
        &python,
        &ws,
        "accept",
        json!({"path": "a.txt", "match_text": "one", "new_string": "ONE"}),
        &command,
    );
    assert_eq!(report["elicitations"], json!([]), "{report}");
    let r: Value = serde_json::from_str(report["call"]["text"].as_str().unwrap()).unwrap();
    assert_eq!(r["user_action"], "PENDING", "{r}");
    assert_eq!(
        std::fs::read_to_string(ws.root.join("a.txt")).unwrap(),
        "one\ntwo\n"
    );
}

/// A client with the form only gets the diff cut to a bound, with how many lines were left out
/// and where the whole proposal is; approving still commits all of it.
#[tokio::test]
async fn the_form_holds_a_bounded_diff_and_says_what_was_cut() {
    let ws = Workspace::new();
    let new = hundred_changed_lines(&ws);
    let (r, asked, _) = mrtr_propose_with(
        &ws,
        Some(json!({"approve": true})),
        HUMAN_DELAY,
        false,
        json!({"path": "a.txt", "match_text": "OVERWRITE_FILE", "new_string": new}),
    )
    .await;
    assert_eq!(r["user_action"], "COMMITTED", "{r}");
    let form: Value = serde_json::from_str(&asked[0]).unwrap();
    let diff = form["requestedSchema"]["properties"]["approve"]["description"]
        .as_str()
        .unwrap_or_else(|| panic!("{form}"));
    assert!(diff.lines().count() <= 61, "{diff}");
    assert!(diff.contains("more diff lines not shown"), "{diff}");
    assert!(diff.contains("future_a.txt"), "{diff}");
    assert_eq!(std::fs::read_to_string(ws.root.join("a.txt")).unwrap(), new);
}

/// The temp dir inside the allowed directory (TMPDIR in the project, or `/tmp` allowed): the
/// review files are the server's own all the same. No tool reads, lists, greps or writes them,
/// so no client can read another's proposal there or plant a "human edit" in its proposal file.
#[test]
fn review_files_inside_an_allowed_directory_are_never_served() {
    let ws = Workspace::new();
    ws.write("a.txt", "one\ntwo\n");
    let tmp = ws.root.join(".tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let root = ws.root.to_str().unwrap().to_string();
    let path = empty_path(&ws);
    let mut c = StdioClient::start_with_env(
        &ws.base,
        &["--review-via", "page", &root],
        &[("TMPDIR", tmp.as_path()), ("PATH", path.as_path())],
    );
    let r = response(&c.call(
        "propose_and_review",
        json!({"path": "a.txt", "match_text": "two", "new_string": "SECRET_TOKEN"}),
    ));
    assert_eq!(r["user_action"], "PENDING", "{r}");
    let session = r["session_path"].as_str().unwrap().to_string();
    assert!(session.starts_with(tmp.to_str().unwrap()), "{session}");
    let future = std::fs::read_dir(&session)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("future_")
        })
        .unwrap();
    let future = future.to_str().unwrap();
    let read = c.call("read_files", json!({"files": [future]}));
    assert!(!text_of(&read).contains("SECRET_TOKEN"), "{read}");
    for (tool, arguments) in [
        ("grep_content", json!({"pattern": "SECRET_TOKEN"})),
        ("search_files", json!({"pattern": "future_"})),
        ("directory_tree", json!({"path": ".tmp"})),
        ("list_directory_with_sizes", json!({"path": session})),
    ] {
        let out = c.call(tool, arguments);
        let text = text_of(&out);
        assert!(
            !text.contains("SECRET_TOKEN") && !text.contains("future_a.txt"),
            "{tool}: {text}"
        );
    }
    let planted = c.call(
        "propose_and_review",
        json!({"path": future, "match_text": "SECRET_TOKEN", "new_string": "planted"}),
    );
    assert_eq!(planted["isError"], true, "{planted}");
    assert!(
        std::fs::read_to_string(future)
            .unwrap()
            .contains("SECRET_TOKEN")
    );
}
