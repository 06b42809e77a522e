//! The stand-in model and the judging, without the CLIs: requests shaped as the CLIs send them.

use std::io::{Read, Write};
use std::net::TcpStream;

use serde_json::{Value, json};

use super::exchange::{Dialect, Exchange, read_log};
use super::model::{StandIn, instance_of};
use super::script::{FINAL, GAVE_UP, Reply, RunEnd, Script, carries_value, evaluate};

fn gemini_tools(names: &[&str]) -> Value {
    let declarations: Vec<Value> = names
        .iter()
        .map(|n| {
            json!({"name": n, "parametersJsonSchema": {"type": "object", "properties": {
                "files": {"type": "array", "items": {"type": "object", "required": ["path"],
                    "properties": {"path": {"type": "string"}}}}}}})
        })
        .collect();
    json!([{"functionDeclarations": declarations}])
}

/// A Gemini request after `done` scripted steps, each answered with `result`.
fn gemini_request(done: usize, result: &Value) -> Value {
    let script = Script::standard();
    let mut contents = vec![json!({"role": "user", "parts": [{"text": "go"}]})];
    for step in &script.steps[..done] {
        let name = format!("mcp_fs_{}", step.tool);
        contents.push(json!({"role": "model", "parts": [{"functionCall": {"name": name, "args": step.args}}]}));
        contents.push(json!({"role": "user", "parts": [{"functionResponse": {"name": name, "response": result}}]}));
    }
    let tools: Vec<String> = script
        .steps
        .iter()
        .map(|s| format!("mcp_fs_{}", s.tool))
        .chain(["read_file".to_string()])
        .collect();
    let tools: Vec<&str> = tools.iter().map(String::as_str).collect();
    json!({"contents": contents, "tools": gemini_tools(&tools)})
}

#[test]
fn the_script_calls_each_step_then_answers() {
    let script = Script::standard();
    let first = Exchange::parse(Dialect::Gemini, &gemini_request(0, &json!({})));
    assert_eq!(
        script.decide(&first),
        Reply::Call {
            name: "mcp_fs_read_files".into(),
            args: script.steps[0].args.clone()
        }
    );
    let second = Exchange::parse(Dialect::Gemini, &gemini_request(1, &json!({"output": "x"})));
    assert!(
        matches!(script.decide(&second), Reply::Call { name, .. } if name == "mcp_fs_grep_content")
    );
    let last = Exchange::parse(
        Dialect::Gemini,
        &gemini_request(script.steps.len(), &json!({"output": "x"})),
    );
    assert_eq!(script.decide(&last), Reply::Text(FINAL.into()));
}

#[test]
fn without_the_tool_the_stand_in_gives_up_and_names_what_was_declared() {
    let body = json!({"contents": [], "tools": gemini_tools(&["read_file", "read_many_files"])});
    let ex = Exchange::parse(Dialect::Gemini, &body);
    let Reply::Text(text) = Script::standard().decide(&ex) else {
        panic!("a call to a tool that is not there")
    };
    assert!(text.starts_with(GAVE_UP), "{text}");
    assert!(text.contains("read_many_files"), "{text}");
}

#[test]
fn deferred_tools_are_loaded_with_tool_search_first() {
    let tool_search = json!({"name": "ToolSearch", "input_schema": {"type": "object"}});
    let listed = "Deferred tools:\nmcp__fs__read_files\nmcp__fs__grep_content\n";
    let body = json!({
        "tools": [tool_search],
        "messages": [{"role": "user", "content": [{"type": "text", "text": listed}]}],
    });
    let script = Script::standard();
    let ex = Exchange::parse(Dialect::Anthropic, &body);
    assert_eq!(
        script.decide(&ex),
        Reply::Call {
            name: "ToolSearch".into(),
            args: json!({"query": "select:mcp__fs__read_files", "max_results": 5})
        }
    );
    let loaded = json!({
        "tools": [tool_search, {"name": "mcp__fs__read_files", "input_schema": {"type": "object"}, "defer_loading": true}],
        "messages": [
            {"role": "user", "content": listed},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "ToolSearch", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                "content": [{"type": "tool_reference", "tool_name": "mcp__fs__read_files"}]}]},
        ],
    });
    let ex = Exchange::parse(Dialect::Anthropic, &loaded);
    assert!(
        matches!(script.decide(&ex), Reply::Call { name, .. } if name == "mcp__fs__read_files")
    );
    // Declared but not loaded: search again rather than call it.
    let unloaded =
        json!({"tools": loaded["tools"], "messages": [{"role": "user", "content": listed}]});
    let ex = Exchange::parse(Dialect::Anthropic, &unloaded);
    assert!(matches!(script.decide(&ex), Reply::Call { name, .. } if name == "ToolSearch"));
}

#[test]
fn values_are_found_however_the_cli_wraps_them() {
    assert!(carries_value("23", &json!(23)));
    assert!(carries_value(
        "<untrusted_context>\n23\n</untrusted_context>",
        &json!(23)
    ));
    assert!(carries_value(r#"{"result": 23}"#, &json!(23)));
    assert!(!carries_value("123", &json!(23)));
    assert!(!carries_value(
        "expected record, received number",
        &json!(23)
    ));
    assert!(carries_value(
        r#"["items","meta","name"]"#,
        &json!(["items", "meta", "name"])
    ));
    assert!(!carries_value(
        r#"["items","name"]"#,
        &json!(["items", "meta", "name"])
    ));
    assert!(carries_value(
        r#"{"output": "{\"a\":1}"}"#,
        &json!({"a": 1})
    ));
}

#[test]
fn side_requests_get_what_their_schema_asks_for() {
    let schema = json!({"type": "OBJECT", "required": ["score", "why"], "properties": {
        "score": {"type": "INTEGER", "minimum": 1}, "why": {"type": "STRING"}}});
    assert_eq!(instance_of(&schema), json!({"score": 1, "why": "user"}));
}

fn post(url: &str, path: &str, body: &Value) -> String {
    let addr = url.trim_start_matches("http://");
    let mut stream = TcpStream::connect(addr).unwrap();
    let body = body.to_string();
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response
}

/// A session judged from what really went over HTTP to the stand-in and into its log.
#[test]
fn a_recorded_session_is_judged_step_by_step() {
    let dir = std::env::temp_dir().join(format!("xtask-e2e-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("log.jsonl");
    let model = StandIn::start(Script::standard(), &log).unwrap();
    let url = model.base_url();

    let first = post(
        &url,
        "/v1beta/models/m:streamGenerateContent?alt=sse",
        &gemini_request(0, &json!({})),
    );
    assert!(first.starts_with("HTTP/1.1 200"), "{first}");
    assert!(first.contains("data: {"), "{first}");
    assert!(first.contains("mcp_fs_read_files"), "{first}");
    // The first result reaches the model, then the CLI stops.
    let good = json!({"output": "File: notes.md\nalpha line 1\nalpha line 2\nalpha line 3\n"});
    post(
        &url,
        "/v1beta/models/m:streamGenerateContent?alt=sse",
        &gemini_request(1, &good),
    );
    let counted = post(&url, "/v1beta/models/m:countTokens", &json!({}));
    assert!(counted.contains("totalTokens"), "{counted}");
    drop(model);

    let recorded = read_log(&log).unwrap();
    assert_eq!(recorded.len(), 3);
    let end = RunEnd {
        exited_ok: false,
        summary: "killed".into(),
        stdout: String::new(),
        mcp_errors: vec!["MCP ERROR (fs) boom".into()],
    };
    let outcomes = evaluate(&Script::standard(), &recorded, &dir, &end);
    let by_name = |name: &str| {
        outcomes
            .iter()
            .find(|o| o.scenario.starts_with(name))
            .unwrap()
    };
    assert!(
        by_name("read_files schema").pass,
        "{:?}",
        by_name("read_files schema")
    );
    assert!(
        by_name("read_files (").pass,
        "{:?}",
        by_name("read_files (")
    );
    let grep = by_name("grep_content");
    assert!(!grep.pass);
    assert!(
        grep.detail.contains("no result came back"),
        "{}",
        grep.detail
    );
    let number = by_name("query_json number");
    assert!(!number.pass);
    assert!(
        number.detail.contains("boom"),
        "the CLI's MCP errors are shown: {}",
        number.detail
    );
    assert!(!by_name("session ends").pass);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_result_without_the_content_fails_with_what_the_model_got() {
    let dir = std::env::temp_dir().join(format!("xtask-e2e-judge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("log.jsonl");
    let rejected = json!({"error": "MCP tool 'query_json' reported an error: Invalid input: expected record, received number"});
    let mut body = gemini_request(
        2,
        &json!({"output": "File: notes.md\nalpha line 3\n needle-4711 code.txt"}),
    );
    let steps = Script::standard().steps;
    let contents = body["contents"].as_array_mut().unwrap();
    contents.push(json!({"role": "model", "parts": [{"functionCall": {"name": "mcp_fs_query_json", "args": steps[2].args}}]}));
    contents.push(json!({"role": "user", "parts": [{"functionResponse": {"name": "mcp_fs_query_json", "response": rejected}}]}));
    let line =
        json!({"path": "/v1beta/models/m:generateContent", "body": body, "reply": {"text": "x"}});
    std::fs::write(&log, format!("{line}\n")).unwrap();
    let end = RunEnd {
        exited_ok: true,
        summary: "ok".into(),
        stdout: FINAL.into(),
        mcp_errors: Vec::new(),
    };
    let outcomes = evaluate(&Script::standard(), &read_log(&log).unwrap(), &dir, &end);
    let number = outcomes
        .iter()
        .find(|o| o.scenario.starts_with("query_json number"))
        .unwrap();
    assert!(!number.pass);
    assert!(number.detail.contains("as an error"), "{}", number.detail);
    assert!(
        number.detail.contains("expected record, received number"),
        "{}",
        number.detail
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The page scenario's second call carries the session_path the first result named.
#[test]
fn the_collecting_call_continues_the_pending_session() {
    let script = Script::review_in_page();
    let call = |name: &str| json!({"role": "model", "parts": [{"functionCall": {"name": name, "args": {}}}]});
    let pending = json!({"user_action": "PENDING", "session_path": "/tmp/r/s-1",
        "message": "Open http://127.0.0.1:4000/?token=abc"});
    let body = json!({
        "contents": [
            {"role": "user", "parts": [{"text": "go"}]},
            call("mcp_fs_propose_and_review"),
            {"role": "user", "parts": [{"functionResponse": {"name": "mcp_fs_propose_and_review",
                "response": {"output": pending.to_string()}}}]},
        ],
        "tools": gemini_tools(&["mcp_fs_propose_and_review"]),
    });
    let ex = Exchange::parse(Dialect::Gemini, &body);
    assert_eq!(
        script.decide(&ex),
        Reply::Call {
            name: "mcp_fs_propose_and_review".into(),
            args: json!({"path": "edit.txt", "session_path": "/tmp/r/s-1"})
        }
    );
    // A first answer without a session (e.g. COMMITTED at once) ends the session, saying why.
    let mut committed = body.clone();
    committed["contents"][2]["parts"][0]["functionResponse"]["response"] =
        json!({"output": "{\"user_action\": \"COMMITTED\"}"});
    let ex = Exchange::parse(Dialect::Gemini, &committed);
    assert!(
        matches!(script.decide(&ex), Reply::Text(t) if t.starts_with(GAVE_UP) && t.contains("session_path"))
    );
}
