//! What the server says about the protocol itself, shared by `FsServer` and the proxy: which
//! revisions it agrees to, the error for a known method whose params do not parse, and the
//! error for a method of a capability it does not declare.

use std::borrow::Cow;

use rmcp::ErrorData;
use rmcp::model::{ConstString, CustomRequest, ProtocolVersion, ServerCapabilities};
use serde_json::Value;

/// The one revision this server does not agree to: 2025-03-26 says implementations MUST accept
/// JSON-RPC batches, and this server (like 2024-11-05 and 2025-06-18 onwards) takes one message
/// at a time. A client asking for it is answered with 2024-11-05 ([`answer_version`]), which
/// every client of that era also speaks.
const WITHOUT_BATCHES: ProtocolVersion = ProtocolVersion::V_2025_03_26;

/// The revisions this server agrees to: every one rmcp knows but [`WITHOUT_BATCHES`].
pub fn supported_versions() -> Cow<'static, [ProtocolVersion]> {
    Cow::Owned(
        ProtocolVersion::KNOWN_VERSIONS
            .iter()
            .filter(|v| **v != WITHOUT_BATCHES)
            .cloned()
            .collect(),
    )
}

/// The version to answer an `initialize` asking for `requested` with: that version when it is
/// supported; otherwise the newest supported one not newer than it (a client speaks the earlier
/// revisions it knows), or, for a client newer than all of them, the newest with a handshake.
pub fn answer_version(
    requested: &ProtocolVersion,
    supported: &[ProtocolVersion],
) -> ProtocolVersion {
    let with_handshake = || supported.iter().filter(|v| v.has_initialize());
    if requested.has_initialize() && supported.contains(requested) {
        return requested.clone();
    }
    with_handshake()
        .filter(|v| v.as_str() <= requested.as_str())
        .max_by(|a, b| a.as_str().cmp(b.as_str()))
        .or_else(|| with_handshake().max_by(|a, b| a.as_str().cmp(b.as_str())))
        .cloned()
        .unwrap_or(ProtocolVersion::LATEST_WITH_INITIALIZE)
}

/// -32602 Invalid params for a request to a method MCP defines whose params did not parse; None
/// for any other method. rmcp reads a request whose params fit no known method as a custom
/// request, whose default answer is -32601 Method not found: wrong for a method that exists.
#[allow(deprecated)] // logging, resources/subscribe: deprecated by rmcp's newest revision, served.
pub fn invalid_params(request: &CustomRequest) -> Option<ErrorData> {
    let mut message = serde_json::Map::new();
    message.insert("method".into(), Value::String(request.method.clone()));
    if let Some(params) = &request.params {
        message.insert("params".into(), params.clone());
    }
    let message = Value::Object(message);
    let method = request.method.as_str();
    macro_rules! parse_as {
        ($($name:ident => $request:ident),+ $(,)?) => {
            $(if method == <rmcp::model::$name as ConstString>::VALUE {
                return Some(invalid_params_error(
                    method,
                    serde_json::from_value::<rmcp::model::$request>(message).err(),
                ));
            })+
        };
    }
    parse_as!(
        PingRequestMethod => PingRequest,
        InitializeResultMethod => InitializeRequest,
        DiscoverRequestMethod => DiscoverRequest,
        CompleteRequestMethod => CompleteRequest,
        SetLevelRequestMethod => SetLevelRequest,
        GetPromptRequestMethod => GetPromptRequest,
        ListPromptsRequestMethod => ListPromptsRequest,
        ListResourcesRequestMethod => ListResourcesRequest,
        ListResourceTemplatesRequestMethod => ListResourceTemplatesRequest,
        ReadResourceRequestMethod => ReadResourceRequest,
        SubscriptionsListenRequestMethod => SubscriptionsListenRequest,
        SubscribeRequestMethod => SubscribeRequest,
        UnsubscribeRequestMethod => UnsubscribeRequest,
        CallToolRequestMethod => CallToolRequest,
        ListToolsRequestMethod => ListToolsRequest,
        GetTaskMethod => GetTaskRequest,
        UpdateTaskMethod => UpdateTaskRequest,
        CancelTaskMethod => CancelTaskRequest,
        ListSkillsRequestMethod => ListSkillsRequest,
        GetSkillRequestMethod => GetSkillRequest,
        ReadResourceDirectoryRequestMethod => ReadResourceDirectoryRequest,
    );
    None
}

fn invalid_params_error(method: &str, error: Option<serde_json::Error>) -> ErrorData {
    let why = error.map_or_else(
        || "they do not fit this method".to_string(),
        |e| e.to_string(),
    );
    ErrorData::invalid_params(
        format!("Invalid params for {method}: {why}. See the method's params in the MCP schema."),
        None,
    )
}

/// The capabilities whose methods a server answers only when it declares them.
#[derive(Debug, Clone, Copy)]
pub enum Capability {
    /// `resources/*`.
    Resources,
    /// `prompts/*`.
    Prompts,
    /// `completion/complete`.
    Completions,
}

/// -32601 for method `M` unless `capabilities` (what `initialize` declared) holds `capability`:
/// a method of a capability the server did not declare does not exist for its clients.
pub fn require_declared<M: ConstString>(
    capabilities: &ServerCapabilities,
    capability: Capability,
) -> Result<(), ErrorData> {
    let declared = match capability {
        Capability::Resources => capabilities.resources.is_some(),
        Capability::Prompts => capabilities.prompts.is_some(),
        Capability::Completions => capabilities.completions.is_some(),
    };
    if declared {
        Ok(())
    } else {
        Err(ErrorData::method_not_found::<M>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(s: &str) -> ProtocolVersion {
        serde_json::from_value(Value::String(s.into())).unwrap()
    }

    #[test]
    fn a_client_on_the_batch_revision_is_answered_with_the_one_before() {
        let supported = supported_versions();
        assert!(!supported.contains(&ProtocolVersion::V_2025_03_26));
        assert_eq!(
            answer_version(&ProtocolVersion::V_2025_03_26, &supported),
            ProtocolVersion::V_2024_11_05
        );
        for kept in ["2024-11-05", "2025-06-18", "2025-11-25"] {
            assert_eq!(answer_version(&version(kept), &supported), version(kept));
        }
        // Newer than every handshake revision: the newest with a handshake.
        assert_eq!(
            answer_version(&version("2026-07-28"), &supported),
            ProtocolVersion::V_2025_11_25
        );
        assert_eq!(
            answer_version(&version("2024-01-01"), &supported),
            ProtocolVersion::V_2025_11_25
        );
    }

    #[test]
    fn known_methods_with_bad_params_are_invalid_params_and_others_are_not() {
        let bad = |method: &str, params: Option<Value>| {
            invalid_params(&CustomRequest::new(method, params))
        };
        let error = bad("tools/call", Some(serde_json::json!({"name": 123}))).unwrap();
        assert_eq!(error.code, rmcp::model::ErrorCode::INVALID_PARAMS);
        assert!(error.message.contains("tools/call"), "{}", error.message);
        assert!(bad("tools/call", None).is_some());
        assert!(
            bad(
                "logging/setLevel",
                Some(serde_json::json!({"level": "loud"}))
            )
            .is_some()
        );
        assert!(bad("vendor/thing", None).is_none());
    }
}
