//! The scenarios: what the stand-in model asks the CLI to call, in order, and how the harness
//! judges what came back. A step passes when the tool's result, with the expected content,
//! reaches the model in the CLI's next request.

use std::path::Path;

use serde_json::{Value, json};

use super::exchange::{Exchange, Recorded};

/// The model's last answer, once every step ran; the CLI prints it.
pub const FINAL: &str = "E2E-DONE: every scripted step ran.";
/// How the stand-in ends a session it cannot go on with.
pub const GAVE_UP: &str = "E2E-STAND-IN-GAVE-UP:";

/// The files a session's project holds (path, content).
pub fn fixtures() -> Vec<(&'static str, String)> {
    let items: Vec<Value> = (1..=23).map(|i| json!({"id": i})).collect();
    vec![
        (
            "notes.md",
            "alpha line 1\nalpha line 2\nalpha line 3\nalpha line 4 (past the head)\n".into(),
        ),
        ("src/code.txt", "fn helper() {}\n// needle-4711 marks the spot\n".into()),
        (
            "data.json",
            json!({"name": "fs-e2e-fixture", "items": items, "meta": {"owner": "e2e", "version": 3}})
                .to_string(),
        ),
        ("edit.txt", "greeting = hello\nversion = 1\n".into()),
    ]
}

/// A file beside the project, outside the sandbox.
pub const OUTSIDE: (&str, &str) = ("outside/secret.txt", "OUTSIDE-SECRET\n");

/// What the model receives back for a call.
pub struct Seen<'a> {
    pub text: &'a str,
    pub is_error: bool,
}

/// How a step judges what the model received.
pub type Check = fn(&Seen) -> Result<(), String>;

pub struct Step {
    pub scenario: &'static str,
    /// The tool to call: a declared tool named this or ending with `_` + this.
    pub tool: &'static str,
    pub args: Value,
    pub check: Check,
    /// A file of the project and what it must contain after the run.
    pub on_disk: Option<(&'static str, &'static str)>,
    /// The call carries the `session_path` the previous step's result named (collecting a
    /// review's verdict).
    pub continues_session: bool,
}

pub struct Script {
    pub steps: Vec<Step>,
    /// Whether the session is also judged on `read_files`' declared schema (the standard run).
    pub checks_schema: bool,
}

/// What the stand-in answers.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    Call { name: String, args: Value },
    Text(String),
}

impl Reply {
    pub fn record(&self) -> Value {
        match self {
            Reply::Call { name, args } => json!({"call": name, "args": args}),
            Reply::Text(text) => json!({"text": text}),
        }
    }
}

fn ok_without_error(seen: &Seen) -> Result<(), String> {
    if seen.is_error {
        Err("the CLI sent it back as an error".into())
    } else {
        Ok(())
    }
}

fn contains_all(seen: &Seen, wanted: &[&str], unwanted: &[&str]) -> Result<(), String> {
    ok_without_error(seen)?;
    if let Some(missing) = wanted.iter().find(|w| !seen.text.contains(**w)) {
        return Err(format!("`{missing}` is missing"));
    }
    if let Some(extra) = unwanted.iter().find(|u| seen.text.contains(**u)) {
        return Err(format!("`{extra}` should not be there"));
    }
    Ok(())
}

/// Whether `text` carries the JSON value `expected`: as the whole text, inside a JSON document
/// the CLI wrapped it in, or written out in it.
pub fn carries_value(text: &str, expected: &Value) -> bool {
    fn inside(value: &Value, expected: &Value, depth: usize) -> bool {
        if value == expected {
            return true;
        }
        if depth > 8 {
            return false;
        }
        match value {
            Value::String(s) => serde_json::from_str::<Value>(s.trim())
                .is_ok_and(|v| v != *value && inside(&v, expected, depth + 1)),
            Value::Array(items) => items.iter().any(|v| inside(v, expected, depth + 1)),
            Value::Object(map) => map.values().any(|v| inside(v, expected, depth + 1)),
            _ => false,
        }
    }
    if let Ok(whole) = serde_json::from_str::<Value>(text.trim())
        && inside(&whole, expected, 0)
    {
        return true;
    }
    let compact = expected.to_string();
    let pretty = serde_json::to_string_pretty(expected).unwrap_or_default();
    match expected {
        Value::Number(_) => text
            .match_indices(&compact)
            .any(|(at, m)| standalone(text, at, m.len())),
        Value::String(s) => text.contains(s.as_str()),
        _ => text.contains(&compact) || text.contains(&pretty),
    }
}

/// A number in running text not glued to other digits.
fn standalone(text: &str, at: usize, len: usize) -> bool {
    let before = text[..at].chars().next_back();
    let after = text[at + len..].chars().next();
    !before.is_some_and(|c| c.is_ascii_digit() || c == '.')
        && !after.is_some_and(|c| c.is_ascii_digit() || c == '.')
}

fn carries(seen: &Seen, expected: Value) -> Result<(), String> {
    ok_without_error(seen)?;
    if carries_value(seen.text, &expected) {
        Ok(())
    } else {
        Err(format!("the value {expected} is not in it"))
    }
}

impl Script {
    /// The scenarios, as steps of one session.
    pub fn standard() -> Script {
        let steps = vec![
            Step {
                scenario: "read_files (object items, head)",
                tool: "read_files",
                args: json!({"files": [{"path": "notes.md", "head": 3}]}),
                check: |s| contains_all(s, &["notes.md", "alpha line 3"], &["alpha line 4"]),
                on_disk: None,
                continues_session: false,
            },
            Step {
                scenario: "grep_content",
                tool: "grep_content",
                args: json!({"pattern": "needle-[0-9]+"}),
                check: |s| contains_all(s, &["code.txt", "needle-4711"], &[]),
                on_disk: None,
                continues_session: false,
            },
            Step {
                scenario: "query_json number (.items | length)",
                tool: "query_json",
                args: json!({"file_path": "data.json", "jq_expression": ".items | length"}),
                check: |s| carries(s, json!(23)),
                on_disk: None,
                continues_session: false,
            },
            Step {
                scenario: "query_json array (keys)",
                tool: "query_json",
                args: json!({"file_path": "data.json", "jq_expression": "keys"}),
                check: |s| carries(s, json!(["items", "meta", "name"])),
                on_disk: None,
                continues_session: false,
            },
            Step {
                scenario: "query_json string (.name)",
                tool: "query_json",
                args: json!({"file_path": "data.json", "jq_expression": ".name"}),
                check: |s| carries(s, json!("fs-e2e-fixture")),
                on_disk: None,
                continues_session: false,
            },
            Step {
                scenario: "query_json object (.meta)",
                tool: "query_json",
                args: json!({"file_path": "data.json", "jq_expression": ".meta"}),
                check: |s| carries(s, json!({"owner": "e2e", "version": 3})),
                on_disk: None,
                continues_session: false,
            },
            Step {
                scenario: "propose_and_review (--auto-approve)",
                tool: "propose_and_review",
                args: json!({"path": "edit.txt", "match_text": "version = 1", "new_string": "version = 2"}),
                check: |s| contains_all(s, &["COMMITTED"], &[]),
                on_disk: Some(("edit.txt", "greeting = hello\nversion = 2\n")),
                continues_session: false,
            },
            Step {
                scenario: "tool error (path outside the sandbox)",
                tool: "get_file_info",
                args: json!({"path": "../outside/secret.txt"}),
                check: |s| {
                    if !s.text.contains("Access denied") {
                        return Err("`Access denied` is missing".into());
                    }
                    if s.text.contains("OUTSIDE-SECRET") {
                        return Err("the secret leaked".into());
                    }
                    // The flag is the CLI's to set: OpenCode's Gemini requests have no place for
                    // it, so the readable message is what counts.
                    Ok(())
                },
                on_disk: None,
                continues_session: false,
            },
        ];
        Script {
            steps,
            checks_schema: true,
        }
    }

    /// Review in the client's own form (no `--auto-approve`): one proposal, which the human
    /// approves (`COMMITTED`, the file changed), dismisses (`REJECTED`, untouched) or rejects
    /// with a comment (`REJECTED` carrying it, untouched).
    pub fn review_in_form(answer: FormAnswer) -> Script {
        let (scenario, check, on_disk): (_, Check, _) = match answer {
            FormAnswer::Approve => (
                "review in the form: approved → COMMITTED",
                |s| contains_all(s, &["COMMITTED"], &["REJECTED"]),
                REVIEWED,
            ),
            FormAnswer::Cancel => (
                "review in the form: Escape → REJECTED",
                |s| contains_all(s, &["REJECTED"], &["COMMITTED"]),
                UNREVIEWED,
            ),
            FormAnswer::RejectWithComment => (
                "review in the form: unchecked + comment → REJECTED with it",
                |s| contains_all(s, &["REJECTED", REVIEW_COMMENT], &["COMMITTED"]),
                UNREVIEWED,
            ),
        };
        Script {
            steps: vec![Step {
                scenario,
                tool: "propose_and_review",
                args: review_edit(),
                check,
                on_disk: Some((REVIEW_FILE, on_disk)),
                continues_session: false,
            }],
            checks_schema: false,
        }
    }

    /// Review in the page (a client without a form, no review command): the call answers at
    /// once with `PENDING` and the page's link; once the human approved there, the next call
    /// with the `session_path` gets `COMMITTED`.
    pub fn review_in_page() -> Script {
        Script {
            steps: vec![
                Step {
                    scenario: "review page: PENDING with the link",
                    tool: "propose_and_review",
                    args: review_edit(),
                    check: |s| {
                        contains_all(s, &["PENDING", "http://127.0.0.1:", "token="], &[])?;
                        session_path_in(s.text)
                            .map(|_| ())
                            .ok_or_else(|| "no session_path in it".to_string())
                    },
                    // Untouched while pending: checked by the human before approving.
                    on_disk: None,
                    continues_session: false,
                },
                Step {
                    scenario: "review page: approved → COMMITTED on the next call",
                    tool: "propose_and_review",
                    args: json!({"path": REVIEW_FILE}),
                    check: |s| contains_all(s, &["COMMITTED"], &["REJECTED"]),
                    on_disk: Some((REVIEW_FILE, REVIEWED)),
                    continues_session: true,
                },
            ],
            checks_schema: false,
        }
    }

    /// The stand-in's answer to an agent turn: the next step's call (after a tool search, when
    /// the CLI defers its MCP tools), or the final text.
    pub fn decide(&self, ex: &Exchange) -> Reply {
        let done = scripted_calls(ex).len();
        let Some(step) = self.steps.get(done) else {
            return Reply::Text(FINAL.into());
        };
        if let Some(name) = callable(ex, step.tool) {
            let mut args = step.args.clone();
            if step.continues_session {
                let previous = done
                    .checked_sub(1)
                    .and_then(|p| scripted_calls(ex).get(p).copied())
                    .and_then(|at| ex.result_for(at))
                    .and_then(|r| session_path_in(&r.text));
                match previous {
                    Some(session) => args["session_path"] = Value::String(session),
                    None => {
                        return Reply::Text(format!(
                            "{GAVE_UP} the previous result named no session_path to continue"
                        ));
                    }
                }
            }
            return Reply::Call { name, args };
        }
        if let Some(search) = ex.declared.iter().find(|d| is_tool_search(&d.name)) {
            let searches_in_a_row = ex
                .calls
                .iter()
                .rev()
                .take_while(|c| is_tool_search(&c.name))
                .count();
            if searches_in_a_row < 3 {
                let query = match deferred_name(ex, step.tool) {
                    Some(name) => format!("select:{name}"),
                    None => step.tool.to_string(),
                };
                return Reply::Call {
                    name: search.name.clone(),
                    args: json!({"query": query, "max_results": 5}),
                };
            }
        }
        let names: Vec<&str> = ex.declared.iter().map(|d| d.name.as_str()).collect();
        Reply::Text(format!(
            "{GAVE_UP} no callable tool named like `{}` (declared: {})",
            step.tool,
            names.join(", ")
        ))
    }
}

/// How the human answers the client's review form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FormAnswer {
    /// Approve checked, Accept.
    Approve,
    /// Escape: the form dismissed.
    Cancel,
    /// Approve left unchecked, a comment typed, Accept.
    RejectWithComment,
}

impl FormAnswer {
    pub const ALL: [FormAnswer; 3] = [
        FormAnswer::Approve,
        FormAnswer::Cancel,
        FormAnswer::RejectWithComment,
    ];

    pub fn key(self) -> &'static str {
        match self {
            FormAnswer::Approve => "approve",
            FormAnswer::Cancel => "escape",
            FormAnswer::RejectWithComment => "comment",
        }
    }
}

/// The comment the human types when rejecting in the form.
pub const REVIEW_COMMENT: &str = "keep version 1 for now";

/// The file the review scenarios propose to change, before and after.
pub const REVIEW_FILE: &str = "edit.txt";
pub const UNREVIEWED: &str = "greeting = hello\nversion = 1\n";
pub const REVIEWED: &str = "greeting = hello\nversion = 2\n";

fn review_edit() -> Value {
    json!({"path": REVIEW_FILE, "match_text": "version = 1", "new_string": "version = 2"})
}

/// The `session_path` a propose_and_review result names, however the CLI wrapped the JSON.
pub fn session_path_in(text: &str) -> Option<String> {
    fn inside(value: &Value, depth: usize) -> Option<String> {
        if depth > 8 {
            return None;
        }
        match value {
            Value::Object(map) => map
                .get("session_path")
                .and_then(Value::as_str)
                .map(String::from)
                .or_else(|| map.values().find_map(|v| inside(v, depth + 1))),
            Value::Array(items) => items.iter().find_map(|v| inside(v, depth + 1)),
            Value::String(s) => serde_json::from_str::<Value>(s.trim())
                .ok()
                .filter(|v| v != value)
                .and_then(|v| inside(&v, depth + 1)),
            _ => None,
        }
    }
    if let Some(found) = serde_json::from_str::<Value>(text.trim())
        .ok()
        .and_then(|v| inside(&v, 0))
    {
        return Some(found);
    }
    // JSON inside text: the string after the key.
    let after = &text[text.find("\"session_path\"")? + "\"session_path\"".len()..];
    let after = after.trim_start().strip_prefix(':')?.trim_start();
    let value = after.strip_prefix('"')?;
    let end = value.find('"')?;
    Some(value[..end].to_string()).filter(|v| !v.is_empty())
}

/// Claude Code's tool that loads deferred tools.
pub fn is_tool_search(name: &str) -> bool {
    name == "ToolSearch"
}

/// `mcp__fs__read_files`, `mcp_fs_read_files` and `fs_read_files` all are `read_files`.
pub fn names_tool(name: &str, tool: &str) -> bool {
    name == tool
        || name
            .strip_suffix(tool)
            .is_some_and(|prefix| prefix.ends_with('_'))
}

/// The indexes in `ex.calls` of the scripted calls (tool searches are not steps).
pub fn scripted_calls(ex: &Exchange) -> Vec<usize> {
    (0..ex.calls.len())
        .filter(|&i| !is_tool_search(&ex.calls[i].name))
        .collect()
}

fn callable(ex: &Exchange, tool: &str) -> Option<String> {
    ex.declared
        .iter()
        .filter(|d| names_tool(&d.name, tool) && !is_tool_search(&d.name))
        .find(|d| !d.deferred || loaded(ex, &d.name))
        .map(|d| d.name.clone())
}

/// A deferred tool is loaded once a tool search result referenced it.
fn loaded(ex: &Exchange, name: &str) -> bool {
    ex.results
        .iter()
        .any(|r| r.references.iter().any(|n| n == name))
}

/// The full name of a deferred tool the request lists in its text (`mcp__fs__read_files`).
fn deferred_name(ex: &Exchange, tool: &str) -> Option<String> {
    if let Some(d) = ex
        .declared
        .iter()
        .find(|d| d.deferred && names_tool(&d.name, tool))
    {
        return Some(d.name.clone());
    }
    ex.text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .find(|word| word.starts_with("mcp__") && names_tool(word, tool))
        .map(String::from)
}

/// One row of the report.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub scenario: String,
    pub pass: bool,
    pub detail: String,
}

/// How the CLI run ended.
pub struct RunEnd {
    pub exited_ok: bool,
    pub summary: String,
    pub stdout: String,
    /// What the CLI logged about MCP going wrong (connection, discovery, tool errors).
    pub mcp_errors: Vec<String>,
}

impl RunEnd {
    fn with_mcp_errors(&self, reason: String) -> String {
        if self.mcp_errors.is_empty() {
            reason
        } else {
            format!("{reason}; the CLI logged: {}", self.mcp_errors.join(" | "))
        }
    }
}

/// Judges one session from the stand-in's log, the project on disk and how the CLI ended.
pub fn evaluate(script: &Script, log: &[Recorded], project: &Path, end: &RunEnd) -> Vec<Outcome> {
    let turns: Vec<(&Exchange, &Value)> = log
        .iter()
        .filter_map(|r| r.exchange.as_ref().map(|e| (e, &r.reply)))
        .filter(|(e, _)| e.is_main())
        .collect();
    let mut outcomes = Vec::new();
    if script.checks_schema {
        outcomes.push(schema_outcome(&turns, end));
    }
    let gave_up = turns
        .iter()
        .filter_map(|(_, reply)| reply["text"].as_str())
        .find(|t| t.starts_with(GAVE_UP))
        .map(|t| t.trim_start_matches(GAVE_UP).trim().to_string());
    let mut first_unreached: Option<&str> = None;
    for (i, step) in script.steps.iter().enumerate() {
        let (pass, mut detail, reached) = judge_step(i, step, &turns, gave_up.as_deref(), end);
        // Why a session stopped is told once; later steps point to it.
        if !reached {
            match first_unreached {
                Some(first) => detail = format!("not reached (see `{first}`)"),
                None => {
                    detail = end.with_mcp_errors(detail);
                    first_unreached = Some(step.scenario);
                }
            }
        }
        let (pass, detail) = match step.on_disk {
            Some((file, expected)) if pass => {
                let now = std::fs::read_to_string(project.join(file)).unwrap_or_default();
                if now == expected {
                    let before = fixtures().into_iter().find(|(path, _)| *path == file);
                    let how = match before {
                        Some((_, content)) if content == expected => "untouched",
                        _ => "changed",
                    };
                    (true, format!("{detail}; {file} {how} on disk"))
                } else {
                    (
                        false,
                        format!("{file} on disk is {now:?}, not {expected:?}"),
                    )
                }
            }
            _ => (pass, detail),
        };
        outcomes.push(Outcome {
            scenario: step.scenario.to_string(),
            pass,
            detail,
        });
    }
    let finished = end.exited_ok && end.stdout.contains(FINAL);
    outcomes.push(Outcome {
        scenario: "session ends with the model's answer".into(),
        pass: finished,
        detail: if finished {
            end.summary.clone()
        } else {
            format!(
                "{}; stdout: {}",
                end.summary,
                excerpt(end.stdout.trim(), 200)
            )
        },
    });
    outcomes
}

/// One step: whether it passed, why, and whether its call was made at all.
fn judge_step(
    i: usize,
    step: &Step,
    turns: &[(&Exchange, &Value)],
    gave_up: Option<&str>,
    end: &RunEnd,
) -> (bool, String, bool) {
    let mut called = None;
    for (ex, _) in turns {
        let scripted = scripted_calls(ex);
        let Some(&at) = scripted.get(i) else {
            continue;
        };
        called.get_or_insert_with(|| ex.calls[at].name.clone());
        if let Some(result) = ex.result_for(at) {
            let seen = Seen {
                text: &result.text,
                is_error: result.is_error,
            };
            let flag = if result.is_error { " (error)" } else { "" };
            return match (step.check)(&seen) {
                Ok(()) => (
                    true,
                    format!("model got{flag}: {}", excerpt(&result.text, 90)),
                    true,
                ),
                Err(why) => (
                    false,
                    format!("{why}; model got{flag}: {}", excerpt(&result.text, 600)),
                    true,
                ),
            };
        }
    }
    // The stand-in asked for it in its last answer, and no request came after.
    if called.is_none() {
        called = turns.iter().find_map(|(ex, reply)| {
            let name = reply["call"].as_str()?;
            (scripted_calls(ex).len() == i && !is_tool_search(name)).then(|| name.to_string())
        });
    }
    match called {
        Some(name) => (
            false,
            format!(
                "the model called {name} but no result came back to it ({})",
                end.summary
            ),
            true,
        ),
        None => match gave_up {
            Some(why) => (false, format!("never called: {why}"), false),
            None if turns.is_empty() => (
                false,
                format!(
                    "the CLI never sent an agent turn to the model ({})",
                    end.summary
                ),
                false,
            ),
            None => (
                false,
                format!(
                    "never called: the session stopped earlier ({})",
                    end.summary
                ),
                false,
            ),
        },
    }
}

/// `read_files`' `files.items`, as declared to the model, must be an object requiring `path`.
fn schema_outcome(turns: &[(&Exchange, &Value)], end: &RunEnd) -> Outcome {
    let scenario = "read_files schema: files.items is an object requiring path".to_string();
    let declared = turns.iter().find_map(|(ex, _)| {
        ex.declared
            .iter()
            .find(|d| names_tool(&d.name, "read_files") && !d.schema.is_null())
    });
    let Some(declared) = declared else {
        let why = if turns.is_empty() {
            "the CLI never sent an agent turn to the model"
        } else {
            "no read_files tool was declared to the model"
        };
        return Outcome {
            scenario,
            pass: false,
            detail: end.with_mcp_errors(why.into()),
        };
    };
    let items = &declared.schema["properties"]["files"]["items"];
    let is_object = items["type"]
        .as_str()
        .is_some_and(|t| t.eq_ignore_ascii_case("object"));
    let requires_path = items["required"]
        .as_array()
        .is_some_and(|r| r.iter().any(|p| p == "path"));
    let shown = excerpt(
        &json!({"type": items["type"], "required": items["required"]}).to_string(),
        120,
    );
    Outcome {
        scenario,
        pass: is_object && requires_path,
        detail: format!("{} declares files.items {shown}", declared.name),
    }
}

/// The start of a text on one line, for the report: JSON string escapes of results nested in
/// error messages undone, whitespace runs squeezed.
pub fn excerpt(text: &str, max: usize) -> String {
    let mut unescaped = text.to_string();
    for _ in 0..4 {
        let next = unescaped
            .replace("\\n", " ")
            .replace("\\\"", "\"")
            .replace("\\\\", "\\");
        if next == unescaped {
            break;
        }
        unescaped = next;
    }
    let flat = unescaped.split_whitespace().collect::<Vec<_>>().join(" ");
    fs_mcp_text::truncate(
        &flat,
        fs_mcp_text::Keep::Chars(max),
        fs_mcp_text::Marker::Ellipsis,
    )
    .into_owned()
}
