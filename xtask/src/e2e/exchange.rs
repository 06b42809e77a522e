//! What the stand-in model receives, reduced to what the script judges: the tools a CLI
//! declared, the calls made so far and the results sent back ([`Exchange`], parsed from either
//! dialect), and the stand-in's log read back afterwards ([`read_log`]).

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

use anyhow::Context;
use serde_json::Value;

/// The two request dialects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Gemini,
    Anthropic,
}

/// A tool the CLI declared to the model.
#[derive(Debug, Clone)]
pub struct Declared {
    pub name: String,
    pub schema: Value,
    /// Anthropic `defer_loading`: declared by name only until a tool search loads it.
    pub deferred: bool,
}

/// A tool call the model made earlier in the conversation.
#[derive(Debug, Clone)]
pub struct Call {
    pub id: String,
    pub name: String,
}

/// A tool result the CLI sent back to the model.
#[derive(Debug, Clone)]
pub struct ToolResult {
    /// The call it answers (Anthropic `tool_use_id`, Gemini `id` when the CLI sets one).
    pub id: String,
    pub name: String,
    /// Everything readable in the result, as the model would read it.
    pub text: String,
    /// Whether the CLI marked it as an error (Anthropic `is_error`, a Gemini `error` field).
    pub is_error: bool,
    /// Tools a tool search result loaded (Anthropic `tool_reference` blocks).
    pub references: Vec<String>,
}

/// One request, reduced to what the script needs.
#[derive(Debug, Clone)]
pub struct Exchange {
    pub declared: Vec<Declared>,
    pub calls: Vec<Call>,
    pub results: Vec<ToolResult>,
    /// All message text, where a CLI lists deferred tools by name.
    pub text: String,
}

impl Exchange {
    pub fn parse(dialect: Dialect, body: &Value) -> Exchange {
        match dialect {
            Dialect::Gemini => parse_gemini(body),
            Dialect::Anthropic => parse_anthropic(body),
        }
    }

    /// A request that declares tools is the agent's own turn; others are side requests.
    pub fn is_main(&self) -> bool {
        !self.declared.is_empty()
    }

    /// The result sent back for `call`: by id when both have one, else by position.
    pub fn result_for(&self, index: usize) -> Option<&ToolResult> {
        let call = self.calls.get(index)?;
        if !call.id.is_empty()
            && let Some(found) = self.results.iter().find(|r| r.id == call.id)
        {
            return Some(found);
        }
        self.results.get(index).filter(|r| r.name == call.name)
    }
}

fn parse_gemini(body: &Value) -> Exchange {
    let mut declared = Vec::new();
    for tool in array(&body["tools"]) {
        for f in array(&tool["functionDeclarations"]) {
            let schema = if f["parametersJsonSchema"].is_null() {
                f["parameters"].clone()
            } else {
                f["parametersJsonSchema"].clone()
            };
            declared.push(Declared {
                name: str_of(&f["name"]),
                schema,
                deferred: false,
            });
        }
    }
    let mut calls = Vec::new();
    let mut results = Vec::new();
    let mut text = String::new();
    for content in array(&body["contents"]) {
        for part in array(&content["parts"]) {
            if let Some(t) = part["text"].as_str() {
                text.push_str(t);
                text.push('\n');
            }
            let call = &part["functionCall"];
            if call.is_object() {
                calls.push(Call {
                    id: str_of(&call["id"]),
                    name: str_of(&call["name"]),
                });
            }
            let response = &part["functionResponse"];
            if response.is_object() {
                let inner = &response["response"];
                let is_error = !inner["error"].is_null();
                results.push(ToolResult {
                    id: str_of(&response["id"]),
                    name: str_of(&response["name"]),
                    text: readable(inner),
                    is_error,
                    references: Vec::new(),
                });
            }
        }
    }
    Exchange {
        declared,
        calls,
        results,
        text,
    }
}

fn parse_anthropic(body: &Value) -> Exchange {
    let declared = array(&body["tools"])
        .iter()
        .filter(|t| t["name"].is_string() && !t["input_schema"].is_null())
        .map(|t| Declared {
            name: str_of(&t["name"]),
            schema: t["input_schema"].clone(),
            deferred: t["defer_loading"].as_bool().unwrap_or(false),
        })
        .collect();
    let mut calls = Vec::new();
    let mut results = Vec::new();
    let mut text = String::new();
    for message in array(&body["messages"]) {
        let content = &message["content"];
        if let Some(t) = content.as_str() {
            text.push_str(t);
            text.push('\n');
        }
        for block in array(content) {
            match block["type"].as_str() {
                Some("text") => {
                    text.push_str(block["text"].as_str().unwrap_or_default());
                    text.push('\n');
                }
                Some("tool_use") => calls.push(Call {
                    id: str_of(&block["id"]),
                    name: str_of(&block["name"]),
                }),
                Some("tool_result") => {
                    let id = str_of(&block["tool_use_id"]);
                    let name = calls
                        .iter()
                        .find(|c| c.id == id)
                        .map(|c| c.name.clone())
                        .unwrap_or_default();
                    let mut references = Vec::new();
                    let mut parts = Vec::new();
                    match &block["content"] {
                        Value::String(s) => parts.push(s.clone()),
                        Value::Array(items) => {
                            for item in items {
                                match item["type"].as_str() {
                                    Some("text") => parts.push(str_of(&item["text"])),
                                    Some("tool_reference") => {
                                        references.push(str_of(&item["tool_name"]))
                                    }
                                    _ => parts.push(item.to_string()),
                                }
                            }
                        }
                        _ => {}
                    }
                    results.push(ToolResult {
                        id,
                        name,
                        text: parts.join("\n"),
                        is_error: block["is_error"].as_bool().unwrap_or(false),
                        references,
                    });
                }
                _ => {}
            }
        }
    }
    Exchange {
        declared,
        calls,
        results,
        text,
    }
}

/// The text a model reads in a Gemini function response: Gemini CLI sends `output` (or `error`),
/// OpenCode `content`; anything else is shown as the JSON it is.
fn readable(response: &Value) -> String {
    for key in ["output", "error", "content"] {
        match &response[key] {
            Value::String(s) => return s.clone(),
            Value::Object(o) if o.get("message").is_some_and(Value::is_string) => {
                return str_of(&o["message"]);
            }
            Value::Array(items) => {
                let texts: Vec<&str> = items.iter().filter_map(|c| c["text"].as_str()).collect();
                if !texts.is_empty() {
                    return texts.join("\n");
                }
            }
            _ => {}
        }
    }
    response.to_string()
}

pub fn array(value: &Value) -> &[Value] {
    value.as_array().map(Vec::as_slice).unwrap_or_default()
}

fn str_of(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_string()
}

/// What kind of endpoint a request path names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    GeminiStream { sse: bool },
    GeminiGenerate,
    GeminiCountTokens,
    AnthropicMessages,
    AnthropicCountTokens,
    Unknown,
}

pub fn endpoint(path: &str) -> Endpoint {
    let (route, query) = path.split_once('?').unwrap_or((path, ""));
    if route.ends_with(":streamGenerateContent") {
        Endpoint::GeminiStream {
            sse: query.split('&').any(|kv| kv == "alt=sse"),
        }
    } else if route.ends_with(":generateContent") {
        Endpoint::GeminiGenerate
    } else if route.ends_with(":countTokens") {
        Endpoint::GeminiCountTokens
    } else if route.ends_with("/messages/count_tokens") {
        Endpoint::AnthropicCountTokens
    } else if route.ends_with("/messages") {
        Endpoint::AnthropicMessages
    } else {
        Endpoint::Unknown
    }
}

/// One recorded request, read back from the log.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub exchange: Option<Exchange>,
    pub reply: Value,
    /// When the stand-in answered it, in milliseconds since the stand-in started.
    pub ms: Option<u64>,
}

/// Reads a stand-in log back: each model request parsed in its dialect.
pub fn read_log(path: &Path) -> anyhow::Result<Vec<Recorded>> {
    let file = File::open(path).with_context(|| format!("read {}", path.display()))?;
    let mut out = Vec::new();
    for line in BufReader::new(file).lines() {
        let line = line?;
        let Ok(entry) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let path = str_of(&entry["path"]);
        let dialect = match endpoint(&path) {
            Endpoint::GeminiStream { .. } | Endpoint::GeminiGenerate => Some(Dialect::Gemini),
            Endpoint::AnthropicMessages => Some(Dialect::Anthropic),
            _ => None,
        };
        out.push(Recorded {
            exchange: dialect.map(|d| Exchange::parse(d, &entry["body"])),
            reply: entry["reply"].clone(),
            ms: entry["ms"].as_u64(),
        });
    }
    Ok(out)
}
