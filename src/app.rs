//! The review view as an MCP App (the `io.modelcontextprotocol/ui` extension, SEP-1865): for a
//! client that declares the extension, `propose_and_review` names a `ui://` HTML resource the
//! host renders in a sandboxed frame inside the conversation, and the human's verdict comes
//! back through a tool only the view calls. A client without the extension sees none of it: no
//! resource, no `_meta.ui`, no extra tool.
//!
//! The view is one self-contained HTML file (no network, no CDN: its content security policy
//! allows nothing outside), written against the extension's postMessage JSON-RPC protocol.

use fs_mcp_edit::{OpenReview, ProposalView, Verdict};
use rmcp::RoleServer;
use rmcp::model::{
    CallToolResult, ClientCapabilities, ContentBlock, ListResourcesResult, MetaObject,
    ReadResourceResult, Resource, Tool,
};
use rmcp::service::RequestContext;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::context::FsServer;

/// The extension's identifier in `capabilities.extensions`.
pub const EXTENSION: &str = "io.modelcontextprotocol/ui";
/// The MIME type of an MCP App's HTML.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";
/// The review view's resource.
pub const VIEW_URI: &str = "ui://fs-mcp-rs/review.html";
/// The tool the view sends the human's verdict with (`visibility: ["app"]`).
pub const VERDICT_TOOL: &str = "submit_review_verdict";
/// The key of the view's data in the result's `_meta` (hosts hand `_meta` to the view, not to
/// the model: the token stays out of the model's reach).
pub const VIEW_DATA_KEY: &str = "fs-mcp-rs/review";

const VIEW_HTML: &str = include_str!("app/review_view.html");

/// Whether these client capabilities declare the extension with our MIME type (a declaration
/// listing no MIME types takes the extension's one).
pub fn declared_in(capabilities: Option<&ClientCapabilities>) -> bool {
    let Some(settings) = capabilities
        .and_then(|c| c.extensions.as_ref())
        .and_then(|e| e.get(EXTENSION))
    else {
        return false;
    };
    match settings.get("mimeTypes") {
        None => true,
        Some(Value::Array(types)) => types.iter().any(|t| t.as_str() == Some(MIME_TYPE)),
        Some(_) => false,
    }
}

/// Whether this request's client renders MCP Apps.
pub fn declared(context: &RequestContext<RoleServer>) -> bool {
    declared_in(context.client_capabilities().as_ref())
}

/// The review view as `resources/list` lists it.
fn resource() -> Option<Resource> {
    serde_json::from_value(json!({
        "uri": VIEW_URI,
        "name": "review",
        "title": "Review a proposed edit",
        "description": "The diff of a propose_and_review proposal with Approve and Reject.",
        "mimeType": MIME_TYPE,
    }))
    .ok()
}

/// `resources/list` for a client with the extension: the view alone.
pub fn list() -> ListResourcesResult {
    ListResourcesResult::with_all_items(resource().into_iter().collect())
}

/// `resources/read` of the view (`None` for any other URI).
pub fn read(uri: &str) -> Option<ReadResourceResult> {
    if uri != VIEW_URI {
        return None;
    }
    // Empty lists: the host's policy allows no origin outside the frame (no fetch, no
    // script, style, font or image from anywhere), which the view never needs.
    serde_json::from_value(json!({
        "contents": [{
            "uri": VIEW_URI,
            "mimeType": MIME_TYPE,
            "text": VIEW_HTML,
            "_meta": {"ui": {
                "csp": {"connectDomains": [], "resourceDomains": [], "frameDomains": [], "baseUriDomains": []},
                "prefersBorder": true
            }}
        }]
    }))
    .ok()
}

/// The `_meta.ui` that names the view, merged into a tool's `_meta`.
pub fn with_view(meta: Option<MetaObject>) -> MetaObject {
    let mut meta = meta.unwrap_or_default();
    meta.0.insert("ui".into(), json!({"resourceUri": VIEW_URI}));
    meta
}

/// The tool the view calls with the human's verdict: for the view only.
pub fn verdict_tool() -> Option<Tool> {
    serde_json::from_value(json!({
        "name": VERDICT_TOOL,
        "title": "Review verdict",
        "description": "Called by the review view (not the model): the human's verdict on a proposal.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "review": {"type": "string", "description": "The view's token for the review."},
                "action": {"type": "string", "enum": ["approve", "reject", "edit"]},
                "comment": {"type": "string"},
                "content": {"type": "string", "description": "edit: the human's version of the file."}
            },
            "required": ["review", "action"]
        },
        "annotations": {"destructiveHint": true, "idempotentHint": false, "readOnlyHint": false, "openWorldHint": false},
        "_meta": {"ui": {"resourceUri": VIEW_URI, "visibility": ["app"]}}
    }))
    .ok()
}

/// What the view needs of an open proposal, for the result's `_meta`: each file's diff, the
/// proposed text (single file), and the token its verdict carries.
pub fn view_data(open: &OpenReview, view: &ProposalView, token: &str) -> Value {
    json!({
        "review": token,
        "path": open.path,
        "files": view.files.iter().map(|f| json!({"path": f.path, "diff": crate::render::edit::diff_text(&f.diff)})).collect::<Vec<_>>(),
        "proposed": view.proposed,
    })
}

#[derive(Debug, Deserialize)]
struct VerdictArgs {
    review: String,
    action: String,
    #[serde(default)]
    comment: Option<String>,
    #[serde(default)]
    content: Option<String>,
}

fn refused(message: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

/// Acts on the view's `submit_review_verdict` call: posts the verdict for the review its token
/// names, if that review is open, this client's, and not yet decided. The call of
/// `propose_and_review` collecting the verdict acts on it (writes, or not).
pub fn submit(
    server: &FsServer,
    context: &RequestContext<RoleServer>,
    arguments: Option<serde_json::Map<String, Value>>,
) -> CallToolResult {
    let args: VerdictArgs = match serde_json::from_value(Value::Object(
        arguments.unwrap_or_default(),
    )) {
        Ok(args) => args,
        Err(e) => {
            return refused(format!(
                "Invalid arguments ({e}): review (the view's token) and action (approve, reject or edit) are required."
            ));
        }
    };
    let comment = args
        .comment
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty());
    let verdict = match (args.action.as_str(), args.content) {
        ("approve", _) => Verdict::Approve { comment },
        ("reject", _) => Verdict::Reject { comment },
        ("edit", Some(content)) => Verdict::Edited(content),
        ("edit", None) => return refused("action edit needs content.".into()),
        (other, _) => {
            return refused(format!(
                "Unknown action {other:?}: approve, reject or edit."
            ));
        }
    };
    let owner = server.review_owner(context);
    match server
        .reviews()
        .submit_app_verdict(&args.review, &owner, verdict)
    {
        Ok(_) => CallToolResult::success(vec![ContentBlock::text(
            "Verdict received; the agent's call collecting it acts on it.",
        )]),
        Err(e) => refused(crate::render::edit::what_failed(e.failure())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn capabilities(extensions: Value) -> ClientCapabilities {
        serde_json::from_value(json!({ "extensions": extensions })).unwrap()
    }

    #[test]
    fn the_extension_is_declared_with_our_mime_type_or_none() {
        assert!(declared_in(Some(&capabilities(
            json!({EXTENSION: {"mimeTypes": [MIME_TYPE]}})
        ))));
        assert!(declared_in(Some(&capabilities(json!({EXTENSION: {}})))));
        assert!(!declared_in(Some(&capabilities(
            json!({EXTENSION: {"mimeTypes": ["text/html"]}})
        ))));
        assert!(!declared_in(Some(&capabilities(
            json!({"io.example/other": {}})
        ))));
        assert!(!declared_in(Some(&ClientCapabilities::default())));
        assert!(!declared_in(None));
    }

    #[test]
    fn the_view_is_served_whole_with_a_policy_allowing_nothing_outside() {
        let served = serde_json::to_value(read(VIEW_URI).unwrap()).unwrap();
        let content = &served["contents"][0];
        assert_eq!(content["mimeType"], MIME_TYPE);
        assert_eq!(content["text"], VIEW_HTML);
        for list in [
            "connectDomains",
            "resourceDomains",
            "frameDomains",
            "baseUriDomains",
        ] {
            assert_eq!(content["_meta"]["ui"]["csp"][list], json!([]));
        }
        assert!(read(&format!("{VIEW_URI}x")).is_none());
        let tool = serde_json::to_value(verdict_tool().unwrap()).unwrap();
        assert_eq!(tool["_meta"]["ui"]["visibility"], json!(["app"]));
        assert_eq!(list().resources.len(), 1);
    }
}
