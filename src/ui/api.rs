//! The playground's HTTP side: the guard, the page, and the JSON endpoints.

use std::sync::Arc;

use crate::schema_cli::{change_json, issue_json};

use axum::extract::{Request, State as AxumState};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use rmcp::RoleClient;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RunningService, ServiceError};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::context::{FsServer, Tier};
use crate::http::page::{given_token, guard_page, refuse};
use crate::http::same_secret;
use crate::review_page::{DecideBody, Pending};
use fs_mcp_edit::ReviewScope;
use fs_mcp_sandbox::{DirHandle, EntryKind, Sandbox, escape_os};

const INDEX_HTML: &str = include_str!("assets/index.html");
const STYLE_CSS: &str = include_str!("assets/style.css");
const APP_JS: &str = include_str!("assets/app.js");

/// Lines of the workspace excerpt, at most.
const TREE_LINES: usize = 80;

pub struct State {
    pub client: RunningService<RoleClient, ()>,
    pub tier: Tier,
    pub roots: Vec<String>,
    pub pending: Pending,
    /// Kept for the session's sandbox (the workspace view lists what the tools can reach).
    pub server: FsServer,
    pub token: String,
    pub port: u16,
}

type Shared = Arc<State>;

pub fn router(state: Shared) -> Router {
    Router::new()
        .route("/", get(page))
        .route("/api/tools", get(tools))
        .route("/api/call", post(call))
        .route("/api/transform", post(transform))
        .route("/api/workspace", get(workspace))
        .route("/api/reviews", get(reviews))
        .route("/api/reviews/one", get(review_one))
        .route("/api/reviews/decide", post(decide))
        .route("/api/app-view", get(app_view))
        .layer(axum::middleware::from_fn_with_state(
            Arc::clone(&state),
            guard,
        ))
        .with_state(state)
}

/// Refuses other sites and other hosts (403), then requests without the token (401).
async fn guard(AxumState(state): AxumState<Shared>, request: Request, next: Next) -> Response {
    let hint = "missing or wrong token: open the URL `fs-mcp-rs ui` printed (it ends in ?token=…)";
    let accepted =
        given_token(&request).is_some_and(|t| same_secret(t.as_bytes(), state.token.as_bytes()));
    guard_page(state.port, accepted, hint, request, next).await
}

/// The single page, CSS and JS inlined (one request carries the token; no other asset to guard).
async fn page() -> Response {
    let html = INDEX_HTML
        .replace("/*STYLE*/", STYLE_CSS)
        .replace("/*SCRIPT*/", APP_JS);
    let mut response = Html(html).into_response();
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'",
        ),
    );
    response
}

/// tools/list as served, plus per tool the raw schemars schema, the transform's changes and lint.
async fn tools(AxumState(state): AxumState<Shared>) -> Response {
    let listed = match state.client.list_all_tools().await {
        Ok(tools) => tools,
        Err(e) => return service_error(e),
    };
    let reports = crate::server::schema_reports(state.tier);
    let tools: Vec<Value> = listed
        .iter()
        .map(|tool| {
            let served = serde_json::to_value(tool).unwrap_or(Value::Null);
            let report = reports.iter().find(|r| r.name == tool.name);
            let served_input = Value::Object((*tool.input_schema).clone());
            let mut served_issues = gemini_compat::lint(&served_input);
            served_issues.extend(gemini_compat::lint_tool_name(&tool.name));
            json!({
                "name": tool.name,
                "listed": served,
                "raw_input": report.map(|r| r.raw_input.clone()),
                "raw_output": report.and_then(|r| r.raw_output.clone()),
                "changes": report.map(|r| r.input_changes.iter().map(change_json).collect::<Vec<_>>()),
                "output_changes": report.map(|r| r.output_changes.iter().map(change_json).collect::<Vec<_>>()),
                "raw_issues": report.map(|r| gemini_compat::lint(&r.raw_input).iter().map(issue_json).collect::<Vec<_>>()),
                "served_issues": served_issues.iter().map(issue_json).collect::<Vec<_>>(),
            })
        })
        .collect();
    Json(json!({
        "tier": format!("{:?}", state.tier),
        "server": state.client.peer_info().map(|i| serde_json::to_value(i).unwrap_or(Value::Null)),
        "tools": tools,
    }))
    .into_response()
}

#[derive(Deserialize)]
struct CallBody {
    name: String,
    #[serde(default)]
    arguments: Option<Value>,
}

/// One tools/call through the in-process client; the answer is the exact result object.
async fn call(AxumState(state): AxumState<Shared>, Json(body): Json<CallBody>) -> Response {
    let mut params = CallToolRequestParams::new(body.name);
    match body.arguments {
        None | Some(Value::Null) => {}
        Some(Value::Object(map)) => params = params.with_arguments(map),
        Some(_) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                "arguments must be a JSON object, e.g. {\"path\": \"README.md\"}",
            );
        }
    }
    match state.client.call_tool(params).await {
        Ok(result) => Json(json!({ "result": result })).into_response(),
        Err(ServiceError::McpError(error)) => Json(json!({ "error": error })).into_response(),
        Err(e) => service_error(e),
    }
}

fn service_error(e: ServiceError) -> Response {
    refuse(
        StatusCode::BAD_GATEWAY,
        &format!("the in-process MCP server did not answer: {e}. Restart `fs-mcp-rs ui`."),
    )
}

#[derive(Deserialize)]
struct TransformBody {
    input: Value,
}

/// The schema lab: what `schema transform` prints, with `schema check`'s changes and lint per schema.
async fn transform(Json(body): Json<TransformBody>) -> Response {
    let input = body.input;
    let output = crate::schema_cli::transform_document(input.clone());
    let tools = input
        .get("result")
        .and_then(|r| r.get("tools"))
        .or_else(|| input.get("tools"))
        .and_then(Value::as_array);
    let reports: Vec<Value> = match tools {
        Some(tools) => tools
            .iter()
            .flat_map(|tool| {
                let name = tool
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("(unnamed)");
                ["inputSchema", "outputSchema"]
                    .into_iter()
                    .filter_map(move |key| {
                        tool.get(key)
                            .map(|schema| schema_report(&format!("{name}.{key}"), schema))
                    })
            })
            .collect(),
        None => vec![schema_report("schema", &input)],
    };
    Json(json!({ "output": output, "reports": reports })).into_response()
}

fn schema_report(label: &str, schema: &Value) -> Value {
    let transformed = gemini_compat::transform(schema);
    let after = gemini_compat::lint(&transformed.schema);
    json!({
        "label": label,
        "changes": transformed.changes.iter().map(change_json).collect::<Vec<_>>(),
        "issues": gemini_compat::lint(schema).iter().map(issue_json).collect::<Vec<_>>(),
        "issues_after": after.iter().map(issue_json).collect::<Vec<_>>(),
    })
}

/// Allowed directories and a short tree of the first one, to paste into an agent's prompt.
async fn workspace(AxumState(state): AxumState<Shared>) -> Response {
    let sandbox = state.server.sandbox();
    let read_only = sandbox.is_read_only();
    let excerpt = tokio::task::spawn_blocking(move || tree_excerpt(&sandbox))
        .await
        .unwrap_or_default();
    let sample_file = excerpt.1;
    let mut description = format!(
        "You can use filesystem tools (fs-mcp-rs) on these directories: {}.{}\nRelative paths resolve against the first one.\n",
        state.roots.join(", "),
        if read_only {
            " They are read-only."
        } else {
            ""
        }
    );
    if let Some(root) = state.roots.first() {
        description.push_str(&format!("\nTop of {root}:\n{}", excerpt.0));
    }
    Json(json!({
        "dirs": state.roots,
        "description": description,
        "sample_file": sample_file,
    }))
    .into_response()
}

/// Two levels of the first allowed directory (hidden entries and build output left out), and
/// the first file seen. Listed through the sandbox's directory handles: a subdirectory is
/// opened without following a symlink, so one swapped for a symlink to outside mid-listing is
/// not entered, and names are escaped as every tool escapes them (a newline in a name cannot
/// forge a line of the excerpt).
fn tree_excerpt(sandbox: &Sandbox) -> (String, Option<String>) {
    let mut lines = Vec::new();
    let mut first_file = None;
    if let Some(root) = sandbox.root_handles().first() {
        walk(sandbox, root, 0, &mut lines, &mut first_file);
    }
    if lines.len() > TREE_LINES {
        let more = lines.len() - TREE_LINES;
        lines.truncate(TREE_LINES);
        lines.push(format!("… ({more} more)"));
    }
    (lines.join("\n") + "\n", first_file)
}

fn walk(
    sandbox: &Sandbox,
    dir: &DirHandle,
    depth: usize,
    lines: &mut Vec<String>,
    first_file: &mut Option<String>,
) {
    const SKIP: &[&str] = &["target", "node_modules", "__pycache__"];
    // Names read per directory: the excerpt shows a few dozen lines, and a directory of
    // millions of entries must not cost millions.
    const READ: usize = 10_000;
    let Ok((mut entries, more)) = dir.entries_up_to(READ) else {
        return;
    };
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    if more {
        let indent = "  ".repeat(depth);
        lines.push(format!(
            "{indent}(a directory of over {READ} entries: the first {READ} read are shown, sorted)"
        ));
    }
    for entry in entries {
        if lines.len() > TREE_LINES {
            return;
        }
        let raw = entry.name.as_os_str();
        if raw.as_encoded_bytes().starts_with(b".")
            || SKIP.iter().any(|s| raw == std::ffi::OsStr::new(s))
        {
            continue;
        }
        let name = escape_os(raw);
        let indent = "  ".repeat(depth);
        if entry.kind == EntryKind::Dir {
            lines.push(format!("{indent}{name}/"));
            if depth < 1
                && let Ok(sub) = dir.open_subdir(raw)
            {
                walk(sandbox, &sub, depth + 1, lines, first_file);
            }
        } else {
            lines.push(format!("{indent}{name}"));
            // Prefer a top-level file for the example arguments: it is the likeliest to be text.
            let better = first_file.is_none()
                || depth == 0 && first_file.as_deref().is_some_and(|f| f.contains('/'));
            if better {
                *first_file = Some(sandbox.display(&dir.path().join(raw)));
            }
        }
    }
}

async fn reviews(AxumState(state): AxumState<Shared>) -> Response {
    Json(state.pending.list(&ReviewScope::All)).into_response()
}

async fn review_one(
    AxumState(state): AxumState<Shared>,
    axum::extract::Query(query): axum::extract::Query<crate::review_page::OneQuery>,
) -> Response {
    match state.pending.detail(&query.session_path, &ReviewScope::All) {
        Ok(detail) => Json(detail).into_response(),
        Err(message) => refuse(StatusCode::NOT_FOUND, &message),
    }
}

/// The review view (MCP Apps) as `resources/read` serves it to a host: the page shows it in a
/// sandboxed frame as a host would.
async fn app_view() -> Response {
    match crate::app::read(crate::app::VIEW_URI) {
        Some(read) => Json(read).into_response(),
        None => refuse(StatusCode::NOT_FOUND, "the review view is not built in"),
    }
}

async fn decide(AxumState(state): AxumState<Shared>, Json(body): Json<DecideBody>) -> Response {
    match state.pending.decide(&body, &ReviewScope::All) {
        Ok(()) => Json(json!({ "ok": true })).into_response(),
        Err(message) => refuse(StatusCode::NOT_FOUND, &message),
    }
}
