//! The linter: R1–R13 findings on a raw schema, with severity and what goes wrong where.
//!
//! It walks the schema the way the transform does, keyword-aware: `properties` and
//! `$defs` are maps of *names*, so a property called `title` or `default` is not an
//! issue (only its name is checked against R12). Subschemas the transform drops
//! wholesale (`not`, `if`, `additionalProperties`…) are reported once, not walked.

use crate::ctx::{HARD_DEPTH, MAX_DEPTH, MAX_ENUM, nesting_depth};
use crate::merge::type_names;
use crate::pointer;
use crate::types::{Issue, Rule, Severity};
use serde_json::{Map, Value};
use std::collections::BTreeSet;

const TYPE_NAMES: [&str; 7] = [
    "string", "number", "integer", "boolean", "object", "array", "null",
];

/// Lint a schema against the output contract. Issues are sorted critical → medium → low,
/// then by path. `lint(&transform(s).schema)` is empty apart from R12 (property names
/// are part of the wire format, so the transform leaves them alone).
pub fn lint(schema: &Value) -> Vec<Issue> {
    let mut linter = Linter {
        root: schema,
        issues: Vec::new(),
        refs: Vec::new(),
    };
    linter.root_checks();
    linter.walk(schema, "", 0);
    linter.ref_checks();
    linter.depth_check();
    let mut issues = linter.issues;
    issues.sort_by(|a, b| {
        (a.severity, &a.path, a.rule, &a.message).cmp(&(b.severity, &b.path, b.rule, &b.message))
    });
    issues.dedup();
    issues
}

/// R12 for a tool name: Gemini requires a letter or `_` first, then letters, digits,
/// `_`, `.`, `:` or `-`, at most 64 characters in all.
pub fn lint_tool_name(name: &str) -> Option<Issue> {
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    let rest_ok = chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'));
    if first_ok && rest_ok && name.len() <= 64 {
        return None;
    }
    Some(Issue {
        path: String::new(),
        rule: Rule::R12,
        severity: Severity::Critical,
        message: format!(
            "tool name `{name}` is invalid for Gemini (must start with a letter or `_`, then \
             letters, digits, `_`, `.`, `:` or `-`, at most 64 characters): the whole request is rejected"
        ),
    })
}

/// Whether a property name passes Gemini's parameter-name rule `[A-Za-z_][A-Za-z0-9_]{0,63}`.
pub fn is_valid_property_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name.len() <= 64
}

struct Linter<'a> {
    root: &'a Value,
    issues: Vec<Issue>,
    /// (location of the node holding `$ref`, the reference)
    refs: Vec<(String, String)>,
}

fn format_allowed(format: &str, types: &[&str], has_enum: bool) -> bool {
    match types {
        ["string"] => format == "date-time" || (format == "enum" && has_enum),
        ["integer"] => format == "int32" || format == "int64",
        ["number"] => format == "float" || format == "double",
        _ => false,
    }
}

impl Linter<'_> {
    fn push(&mut self, path: &str, rule: Rule, severity: Severity, message: impl Into<String>) {
        self.issues.push(Issue {
            path: path.to_string(),
            rule,
            severity,
            message: message.into(),
        });
    }

    fn root_checks(&mut self) {
        let Some(map) = self.root.as_object() else {
            self.push(
                "",
                Rule::R10,
                Severity::Critical,
                "the root is not a schema object: every client rejects the tool",
            );
            return;
        };
        let types = map.get("type").map(type_names).unwrap_or_default();
        if types != ["object"] {
            self.push(
                "",
                Rule::R10,
                Severity::Critical,
                "the root is not `{\"type\":\"object\"}`: Vertex answers 400 (parameters schema should be of type OBJECT), Anthropic and OpenAI reject it",
            );
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            if map.contains_key(key) {
                self.push(
                    &pointer::child("", key),
                    Rule::R10,
                    Severity::Critical,
                    format!("root-level `{key}`: Anthropic rejects combinators at the top level and Gemini needs an OBJECT root"),
                );
            }
        }
    }

    fn walk(&mut self, value: &Value, path: &str, depth: usize) {
        if depth > 2 * HARD_DEPTH {
            self.push(path, Rule::R13, Severity::Medium, format!("schema nested deeper than {} levels: Gemini rejects the depth (not checked further)", 2 * HARD_DEPTH));
            return;
        }
        let map = match value {
            Value::Object(map) => map,
            Value::Bool(b) => {
                self.push(
                    path,
                    Rule::R11,
                    Severity::Critical,
                    format!("boolean subschema `{b}`: AI SDK 6 turns it into type boolean and Gemini has no boolean schemas; the argument type is lost"),
                );
                return;
            }
            _ => {
                self.push(
                    path,
                    Rule::R11,
                    Severity::Critical,
                    "a value that is not a schema: clients reject or mangle it",
                );
                return;
            }
        };
        let types: Vec<&str> = map.get("type").map(type_names).unwrap_or_default();
        const STRUCTURAL: [&str; 7] = ["type", "$ref", "anyOf", "oneOf", "allOf", "enum", "const"];
        if !STRUCTURAL.iter().any(|k| map.contains_key(*k)) {
            self.push(path, Rule::R11, Severity::Medium, "no `type`: LangChain sends it as STRING, LiteLLM as OBJECT, and Gemini needs a type");
        }
        if types.contains(&"array")
            && !map.contains_key("items")
            && !map.contains_key("prefixItems")
        {
            self.push(path, Rule::R5, Severity::Critical, "array without `items`: Gemini answers 400 (items: missing field) and OpenAI rejects it");
        }
        let mut keys: Vec<&String> = map.keys().collect();
        keys.sort();
        for key in keys {
            self.keyword(map, key, path, &types, depth);
        }
    }

    /// Check one keyword `key` of the schema object `map` found at `path`.
    fn keyword(
        &mut self,
        map: &Map<String, Value>,
        key: &str,
        path: &str,
        types: &[&str],
        depth: usize,
    ) {
        let Some(val) = map.get(key) else { return };
        let kp = pointer::child(path, key);
        let kp = kp.as_str();
        let has_enum = map.contains_key("enum");
        use Severity::{Critical, Low, Medium};
        let is_array = types.contains(&"array");
        let is_object = types.contains(&"object");
        match key {
            "$ref" => match val {
                Value::String(r) => {
                    self.refs.push((path.to_string(), r.clone()));
                    if map.keys().any(|k| !matches!(k.as_str(), "$ref" | "description" | "default")) {
                        self.push(path, Rule::R1, Medium, "`$ref` with sibling keywords: Gemini's JSON mode allows only description and default next to $ref; google-genai's MCP path loses the siblings");
                    }
                }
                _ => self.push(kp, Rule::R1, Critical, "`$ref` that is not a string: no client can resolve it"),
            },
            "$defs" | "definitions" => {
                self.push(kp, Rule::R1, Critical, format!("`{key}` block: Gemini parameters rejects it (Unknown name); google-genai's MCP path raises KeyError on `definitions`"));
                if let Value::Object(defs) = val {
                    let mut names: Vec<&String> = defs.keys().collect();
                    names.sort();
                    for name in names {
                        if let Some(s) = defs.get(name) {
                            self.walk(s, &pointer::child(kp, name), depth + 1);
                        }
                    }
                }
            }
            "type" => match val {
                Value::Array(_) => self.push(kp, Rule::R2, Critical, "type array: Gemini parameters answers 400 (Proto field is not repeating), LangChain turns it into STRING"),
                Value::String(t) if t == "null" => self.push(kp, Rule::R2, Medium, "null type: Gemini parameters has no JSON null; converters rewrite it inconsistently (LiteLLM keeps a null branch)"),
                Value::String(t) if !TYPE_NAMES.contains(&t.as_str()) => self.push(kp, Rule::R11, Medium, format!("unknown type `{t}`: rejected by Gemini and by JSON Schema validators")),
                Value::String(_) => {}
                _ => self.push(kp, Rule::R11, Medium, "`type` is neither a string nor an array"),
            },
            "nullable" => self.push(kp, Rule::R2, Low, "OpenAPI `nullable` is not JSON Schema: Claude, OpenAI and Ajv ignore it"),
            "anyOf" | "oneOf" | "allOf" => {
                match key {
                    "anyOf" if map.len() > 1 => self.push(path, Rule::R3, Medium, "anyOf with sibling keywords: Vertex answers 400 (any_of must be the only field set), @google/genai throws, LiteLLM strips the siblings"),
                    "oneOf" => self.push(kp, Rule::R3, Critical, "oneOf: google-genai's MCP path and LiteLLM drop it (the schema becomes {}), LangChain sends STRING, AI SDK 6 emits a oneOf Gemini rejects"),
                    "allOf" => self.push(kp, Rule::R3, Critical, "allOf: google-genai's MCP path and LiteLLM drop it, LangChain keeps only the first branch, Gemini parameters rejects it"),
                    _ => {}
                }
                match val {
                    Value::Array(branches) => {
                        for (i, b) in branches.iter().enumerate() {
                            self.walk(b, &format!("{kp}/{i}"), depth + 1);
                        }
                    }
                    _ => self.push(kp, Rule::R3, Medium, format!("`{key}` is not an array")),
                }
            }
            "const" => self.push(kp, Rule::R4, Medium, "const: Gemini parameters answers 400 (Unknown name \"const\"); LiteLLM turns the node into OBJECT and LangChain into STRING"),
            "enum" => match val {
                Value::Array(values) => {
                    if values.iter().any(|v| !v.is_string()) {
                        self.push(kp, Rule::R4, Medium, "non-string enum values: Gemini answers 400 (TYPE_STRING), LangChain crashes, LiteLLM drops the enum");
                    } else if types != ["string"] {
                        self.push(kp, Rule::R4, Medium, "enum on a node whose type is not string: Gemini answers 400 (enum: only allowed for STRING type)");
                    }
                    if values.iter().any(|v| v.as_str() == Some("")) {
                        self.push(kp, Rule::R4, Medium, "empty-string enum value: LiteLLM replaces it with None and Gemini rejects empty enum strings");
                    }
                    if values.len() > MAX_ENUM {
                        self.push(kp, Rule::R13, Medium, format!("enum with {} values (limit {MAX_ENUM}): Gemini may answer 400 (too many states for serving)", values.len()));
                    }
                }
                _ => self.push(kp, Rule::R4, Medium, "`enum` is not an array"),
            },
            "items" => match val {
                Value::Array(positions) => {
                    self.push(kp, Rule::R5, Critical, "draft-07 tuple `items: [...]`: AI SDK 6 passes an array Gemini rejects; other converters drop it, leaving an array without items");
                    for (i, p) in positions.iter().enumerate() {
                        self.walk(p, &format!("{kp}/{i}"), depth + 1);
                    }
                }
                other => {
                    if !types.is_empty() && !is_array {
                        self.push(kp, Rule::R5, Medium, "`items` on a non-array: Gemini answers 400 (field predicate failed: $type == Type.ARRAY)");
                    }
                    self.walk(other, kp, depth + 1);
                }
            },
            "prefixItems" => {
                self.push(kp, Rule::R5, Critical, "tuple `prefixItems`: AI SDK 6 and google-genai drop it, leaving an array without items (Gemini 400)");
                if let Value::Array(positions) = val {
                    for (i, p) in positions.iter().enumerate() {
                        self.walk(p, &format!("{kp}/{i}"), depth + 1);
                    }
                }
            }
            "required" => {
                if !types.is_empty() && !is_object {
                    self.push(kp, Rule::R6, Medium, "`required` on a non-object: Gemini answers 400 (required: only allowed for OBJECT type)");
                } else if let Value::Array(names) = val {
                    let props = map.get("properties").and_then(Value::as_object);
                    for (i, n) in names.iter().enumerate() {
                        let known = n.as_str().is_some_and(|n| props.is_some_and(|p| p.contains_key(n)));
                        if !known {
                            self.push(&format!("{kp}/{i}"), Rule::R6, Medium, format!("required names {n}, which is not in properties: Gemini answers 400 (property is not defined)"));
                        }
                    }
                } else {
                    self.push(kp, Rule::R6, Medium, "`required` is not an array");
                }
            }
            "properties" => match val {
                Value::Object(props) => {
                    if props.is_empty() {
                        self.push(kp, Rule::R10, Low, "empty properties: AI SDK 6 omits the parameters, LangChain turns a nested empty object into STRING, the Developer API rejected it in 2025");
                    }
                    let mut names: Vec<&String> = props.keys().collect();
                    names.sort();
                    for name in names {
                        let np = pointer::child(kp, name);
                        if !is_valid_property_name(name) {
                            self.push(&np, Rule::R12, Medium, format!("property name `{name}`: Gemini parameters require [A-Za-z_][A-Za-z0-9_]{{0,63}}"));
                        }
                        if let Some(s) = props.get(name) {
                            self.walk(s, &np, depth + 1);
                        }
                    }
                }
                _ => self.push(kp, Rule::R6, Medium, "`properties` is not an object"),
            },
            "additionalProperties" => match val {
                Value::Bool(false) => self.push(kp, Rule::R7, Critical, "additionalProperties: false crashes google-genai's MCP path (AttributeError) and is an Unknown name for the Gemini Developer API"),
                _ => self.push(kp, Rule::R7, Medium, "additionalProperties: the Gemini Developer API answers 400 (Unknown name) and every converter drops the map's value type"),
            },
            "patternProperties" | "propertyNames" | "unevaluatedProperties" => {
                self.push(kp, Rule::R7, Medium, format!("`{key}`: Gemini parameters answers 400 (Unknown name); converters drop it"));
            }
            "format" => {
                let f = val.as_str().unwrap_or("");
                let non_null: Vec<&str> = types.iter().copied().filter(|t| *t != "null").collect();
                if !format_allowed(f, &non_null, has_enum) {
                    self.push(kp, Rule::R8, Medium, format!("format `{f}`: Gemini accepts only date-time/enum on strings, int32/int64 on integers, float/double on numbers (400: only 'enum' and 'date-time' are supported)"));
                }
            }
            "title" => self.push(kp, Rule::R9, Low, "title: dropped by AI SDK 6 and LangChain; Gemini 2.5 Flash answers MALFORMED_FUNCTION_CALL when properties carry titles"),
            "default" => self.push(kp, Rule::R9, Low, "default: dropped by AI SDK 6 and LangChain, so the model never sees it"),
            "examples" | "example" => self.push(kp, Rule::R9, Low, format!("`{key}`: dropped by converters (an Unknown name for Gemini parameters), so the hint is lost")),
            "$schema" => self.push(kp, Rule::R9, Medium, "$schema: Gemini parameters answers 400 (Unknown name \"$schema\"); AI SDK 6, LiteLLM and LangChain drop it"),
            "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => self.push(kp, Rule::R9, Medium, format!("`{key}`: Gemini parameters answers 400 (Unknown name); AI SDK 6, LiteLLM and LangChain drop the bound")),
            "uniqueItems" => self.push(kp, Rule::R9, Low, "uniqueItems: dropped by every converter (google-genai rejects it client-side); the hint is lost"),
            "description" => {
                if !val.is_string() {
                    self.push(kp, Rule::R9, Medium, "description is not a string");
                }
            }
            "minimum" | "maximum" | "minLength" | "maxLength" | "pattern" | "minItems"
            | "maxItems" | "minProperties" | "maxProperties" => {}
            _ => self.push(kp, Rule::R9, Medium, format!("`{key}`: not a Gemini Schema field; Gemini parameters answers 400 (Unknown name)")),
        }
    }

    fn ref_checks(&mut self) {
        let refs = self.refs.clone();
        for (loc, reference) in &refs {
            let kp = pointer::child(loc, "$ref");
            let message = match pointer::local_pointer(reference) {
                None => format!(
                    "$ref {reference} is not local: no client resolves it (Gemini: reference to undefined schema)"
                ),
                Some(ptr) => match pointer::resolve(self.root, &ptr) {
                    None => format!(
                        "$ref {reference} has no target: Gemini answers 400 (reference to undefined schema), gemini-cli fails client-side"
                    ),
                    Some(_) if self.recursive(&ptr, loc) => format!(
                        "recursive $ref {reference}: AI SDK 6 sends the whole tool unconverted, google-genai cuts it to {{}}, LangChain to STRING"
                    ),
                    Some(_) => format!(
                        "$ref {reference}: AI SDK ≤ 3.0.110 drops it (empty schema), google-genai's MCP path loses its siblings, Gemini parameters rejects it"
                    ),
                },
            };
            self.push(&kp, Rule::R1, Severity::Critical, message);
        }
    }

    /// Whether the reference at `loc` to `target` is recursive: following references
    /// from the target leads back to a schema containing the reference itself, or back
    /// to the target (the reference enters a recursive type).
    fn recursive(&self, target: &str, loc: &str) -> bool {
        let mut queue = vec![target.to_string()];
        let mut seen = BTreeSet::new();
        while let Some(t) = queue.pop() {
            if !seen.insert(t.clone()) {
                continue;
            }
            if pointer::is_prefix(&t, loc) {
                return true;
            }
            for (l, r) in &self.refs {
                if pointer::is_prefix(&t, l)
                    && let Some(p) = pointer::local_pointer(r)
                {
                    if pointer::is_prefix(&p, target) {
                        return true;
                    }
                    queue.push(p);
                }
            }
        }
        false
    }

    fn depth_check(&mut self) {
        let depth = nesting_depth(self.root, self.root);
        if depth > MAX_DEPTH {
            self.push("", Rule::R13, Severity::Medium, format!("the schema nests {depth} levels deep (limit {MAX_DEPTH}; properties, items, anyOf/oneOf/allOf branches and map values count, $ref followed): Gemini answers 400 (exceeds the maximum allowed nesting depth)"));
        }
    }
}
