//! The linter: R1–R13 findings on a raw schema, with severity and what goes wrong where.
//!
//! It walks the schema the way the transform does, keyword-aware: `properties` and
//! `$defs` are maps of *names*, so a property called `title` or `default` is not an
//! issue (only its name is checked against R12). Subschemas the transform drops
//! wholesale (`not`, `if`, `additionalProperties`…) are reported once, not walked.
//!
//! Only what a tool can reach is linted: the root, then every local `$ref` target,
//! transitively. Definitions nothing refers to are listed in
//! [`LintReport::unused_definitions`] instead (Notion attaches its whole `$defs` to every
//! tool; what a tool never uses cannot break it, since converters inline what is used).
//!
//! Every kind of finding is a [`Check`]; [`Check::rule`] and [`Check::severity`] are the one
//! table of severities, mirrored with the measured behaviour behind each row in
//! `docs/GEMINI_SCHEMA_COMPAT.md` ("Lint severities").

use crate::ctx::{HARD_DEPTH, MAX_DEPTH, MAX_ENUM, nesting_depth};
use crate::merge::type_names;
use crate::pointer;
use crate::types::{Issue, Rule, Severity};
use serde_json::{Map, Value};
use std::collections::{BTreeSet, HashSet};

const TYPE_NAMES: [&str; 7] = [
    "string", "number", "integer", "boolean", "object", "array", "null",
];

/// Defines [`Check`] from one table: each row is `Name = ("id", rule, severity)`, the
/// doc comment saying what happens and where the contract measured it.
macro_rules! checks {
    ($($(#[$doc:meta])* $name:ident = ($id:literal, $rule:ident, $severity:ident),)*) => {
        /// Every kind of finding the linter reports ([`Check`]).
        ///
        /// [`Check::rule`] and [`Check::severity`] are the single table of severities. Severities
        /// come from the client behaviour measured in `docs/GEMINI_SCHEMA_CONTRACT.md` (its §
        /// numbers are cited per row):
        /// * **critical**: a measured client crashes or throws (the whole request fails), or a
        ///   converter silently loses or changes an argument's type;
        /// * **medium**: the Gemini API answers 400 on some route, or a constraint is lost;
        /// * **low**: a hint is lost; no measured client fails. Low findings never make a tool
        ///   incompatible.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Check {
            $($(#[$doc])* $name,)*
        }

        impl Check {
            /// Every check, in table order.
            pub const ALL: &'static [Check] = &[$(Check::$name),*];

            fn row(self) -> (&'static str, Rule, Severity) {
                match self {
                    $(Check::$name => ($id, Rule::$rule, Severity::$severity),)*
                }
            }
        }
    };
}

checks! {
    /// Root is not `{"type":"object"}`: Vertex 400 "should be of type OBJECT", Anthropic and OpenAI reject (§2.1, §3).
    RootNotObject = ("root-not-object", R10, Critical),
    /// Root `anyOf`/`oneOf`/`allOf`: Anthropic rejects combinators at the top level (§2.1, §3).
    RootCombinator = ("root-combinator", R10, Critical),
    /// `true`/`false` as a schema: AI SDK 6 turns it into `type: boolean` (§1.3).
    BooleanSubschema = ("boolean-subschema", R11, Critical),
    /// A value that is not a schema at all.
    NotASchema = ("not-a-schema", R11, Critical),
    /// No `type`: LangChain sends STRING, LiteLLM OBJECT (§1.7, §1.8, §5 #29).
    Typeless = ("typeless", R11, Medium),
    /// `type: array` without `items`: Gemini 400 `items: missing field`, OpenAI rejects (§2.1).
    ArrayWithoutItems = ("array-without-items", R5, Critical),
    /// `$ref` that is not a string.
    RefNotString = ("ref-not-string", R1, Critical),
    /// `$ref` with siblings other than description/default: JSON mode 400 (§2.2).
    RefSiblings = ("ref-siblings", R1, Medium),
    /// `#/$defs/X`: AI SDK ≤ 3.0.110 drops it to `{}` (type lost), google-genai's MCP path loses its siblings (§1.3, §1.1 c).
    RefDefs = ("ref-defs", R1, Critical),
    /// `#/definitions/X`: google-genai's MCP path raises `KeyError: 'definitions'` (§1.1 c).
    RefDefinitions = ("ref-definitions", R1, Critical),
    /// Any other local pointer (`#/properties/…`, nested definitions): AI SDK 6 (`@ai-sdk/google`
    /// 3.0.141) throws `UnsupportedFunctionalityError`, failing the whole request (§1.3 era 2;
    /// measured on a real server in issue 14).
    RefOtherPointer = ("ref-other-pointer", R1, Critical),
    /// Recursive `$ref`: AI SDK 6 sends the whole tool unconverted, google-genai cuts it to `{}`, LangChain to STRING (§1.9).
    RefRecursive = ("ref-recursive", R1, Critical),
    /// `$ref` without a target: Gemini 400 "reference to undefined schema", gemini-cli fails client-side (§2.2).
    RefMissing = ("ref-missing", R1, Critical),
    /// `$ref` to another document: no client resolves it (§2.2).
    RefNotLocal = ("ref-not-local", R1, Critical),
    /// A `$defs`/`definitions` block: converters inline what is used and drop the block,
    /// passthrough clients send it to Gemini's JSON mode, which accepts it (§1.1 b, §1.9, §2.2).
    /// What is used is reported at each `$ref`.
    DefsBlock = ("defs-block", R1, Low),
    /// `type: [..]`: Gemini `parameters` 400, LangChain → STRING, google-genai crashes (§1.1 a, §1.8, §2.1).
    TypeArray = ("type-array", R2, Critical),
    /// `type: "null"`: no JSON null in Gemini `parameters`; converters differ (§1.9).
    NullType = ("null-type", R2, Medium),
    /// A `type` name JSON Schema does not have.
    UnknownType = ("unknown-type", R11, Medium),
    /// `type` that is neither a string nor an array.
    TypeNotString = ("type-not-string", R11, Medium),
    /// OpenAPI `nullable`: ignored by Claude, OpenAI and Ajv (§1.9).
    Nullable = ("nullable", R2, Low),
    /// `anyOf` with siblings: Vertex 400, `@google/genai` throws, LiteLLM strips siblings (§1.2, §1.7, §2.1).
    AnyOfSiblings = ("anyof-siblings", R3, Medium),
    /// `oneOf`: google-genai's MCP path and LiteLLM drop it (`{}`), LangChain → STRING, AI SDK 6 emits it into `parameters` (§1.9).
    OneOf = ("oneof", R3, Critical),
    /// `allOf`: dropped by google-genai's MCP path and LiteLLM, LangChain keeps the first branch (§1.9).
    AllOf = ("allof", R3, Critical),
    /// `anyOf`/`oneOf`/`allOf` that is not an array.
    CombinatorNotArray = ("combinator-not-array", R3, Medium),
    /// `const`: Gemini 3 400 Unknown name, LiteLLM → OBJECT, LangChain → STRING (§1.9, §2.1).
    Const = ("const", R4, Medium),
    /// Non-string enum members: LangChain crashes (ValidationError), google-genai's MCP path
    /// sends numbers Gemini rejects (TYPE_STRING), LiteLLM drops the enum (§1.1 c, §1.8, §2.1).
    NonStringEnum = ("non-string-enum", R4, Critical),
    /// `enum` on a node whose type is not string: Gemini 400 (§2.1).
    EnumOnNonString = ("enum-on-non-string", R4, Medium),
    /// `""` in an enum: LiteLLM replaces it with None (§1.7, §2.1).
    EmptyStringEnum = ("empty-string-enum", R4, Medium),
    /// More enum values than the budget: Gemini "too many states for serving" (§2.3).
    EnumTooLarge = ("enum-too-large", R13, Medium),
    /// `enum` that is not an array.
    EnumNotArray = ("enum-not-array", R4, Medium),
    /// Draft-07 tuple `items: [..]`: AI SDK 6 passes an array Gemini rejects (§1.3).
    TupleItems = ("tuple-items", R5, Critical),
    /// `prefixItems`: AI SDK 6 and google-genai drop it, leaving an array without items (§1.3, §1.1 c).
    PrefixItems = ("prefix-items", R5, Critical),
    /// `items` on a non-array: Gemini 400 (§2.1).
    ItemsOnNonArray = ("items-on-non-array", R5, Medium),
    /// `required` on a non-object: Gemini 400 (§2.1).
    RequiredOnNonObject = ("required-on-non-object", R6, Medium),
    /// `required` naming a missing property: Gemini 400 (§2.1).
    RequiredUnknown = ("required-unknown", R6, Medium),
    /// `required` that is not an array.
    RequiredNotArray = ("required-not-array", R6, Medium),
    /// `properties: {}`: AI SDK 6 omits the parameters, LangChain nests it as STRING (§1.8, §1.9).
    EmptyProperties = ("empty-properties", R10, Low),
    /// A property name outside `[A-Za-z_][A-Za-z0-9_]{0,63}` (§2.3).
    PropertyName = ("property-name", R12, Medium),
    /// `properties` that is not an object.
    PropertiesNotObject = ("properties-not-object", R6, Medium),
    /// Boolean `additionalProperties` (`true` or `false`): google-genai's MCP conversion crashes
    /// (`AttributeError: 'bool' object has no attribute 'items'`, §1.1 c; `true` measured on 230 of
    /// 374 real schemas in issue 14), failing the whole request.
    AdditionalPropertiesBoolean = ("additional-properties-boolean", R7, Critical),
    /// Schema-valued `additionalProperties`: Developer API 400 Unknown name, every converter drops the value type (§1.9, §2.1).
    AdditionalPropertiesSchema = ("additional-properties-schema", R7, Medium),
    /// `patternProperties`/`propertyNames`/`unevaluatedProperties`: Gemini 400, converters drop it (§2.1).
    MapKeyword = ("map-keyword", R7, Medium),
    /// `format` outside Gemini's set: Developer API 400 (§2.1).
    Format = ("format", R8, Medium),
    /// `title`: dropped by AI SDK 6 and LangChain; Gemini 2.5 Flash may answer MALFORMED_FUNCTION_CALL (§1.9, §2.2). Every converter accepts it.
    Title = ("title", R9, Low),
    /// `default`: dropped by AI SDK 6 and LangChain (§1.9). Every converter accepts it.
    Default = ("default", R9, Low),
    /// `examples`/`example`: dropped by converters (§1.9).
    Examples = ("examples", R9, Low),
    /// `$schema`: Gemini `parameters` 400 Unknown name when sent unconverted (§2.1).
    SchemaKeyword = ("schema-keyword", R9, Medium),
    /// `exclusiveMinimum`/`exclusiveMaximum`/`multipleOf`: Gemini 400 Unknown name, converters drop the bound (§2.1).
    UnsupportedBound = ("unsupported-bound", R9, Medium),
    /// `uniqueItems`: dropped by every converter (§1.9).
    UniqueItems = ("unique-items", R9, Low),
    /// `description` that is not a string.
    DescriptionNotString = ("description-not-string", R9, Medium),
    /// Any other keyword: Gemini `parameters` 400 Unknown name (§2.1).
    UnknownKeyword = ("unknown-keyword", R9, Medium),
    /// Nesting past Gemini's depth cap: "exceeds the maximum allowed nesting depth" (§2.3).
    NestingDepth = ("nesting-depth", R13, Medium),
    /// Schema nested too deep for the linter to walk.
    TooDeepToWalk = ("too-deep-to-walk", R13, Medium),
    /// So many references that following them all would take more than the linter's work budget: the rest is not checked for recursion.
    TooLargeToLint = ("too-large-to-lint", R13, Medium),
    /// A tool name Gemini rejects: the whole request fails (§2.3).
    ToolName = ("tool-name", R12, Critical),
}

impl Check {
    /// A stable kebab-case id (`"additional-properties-boolean"`).
    pub fn id(self) -> &'static str {
        self.row().0
    }

    /// The contract rule the finding belongs to.
    pub fn rule(self) -> Rule {
        self.row().1
    }

    /// How bad the finding is (see the type's docs for the scale).
    pub fn severity(self) -> Severity {
        self.row().2
    }
}

/// What [`lint_report`] found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LintReport {
    /// Findings in what the tool can reach, sorted critical → medium → low, then by path.
    pub issues: Vec<Issue>,
    /// JSON Pointers of `$defs`/`definitions` entries no reachable `$ref` uses: not linted.
    pub unused_definitions: Vec<String>,
}

/// Lint a schema against the output contract. Issues are sorted critical → medium → low,
/// then by path. `lint(&transform(s).schema)` is empty apart from R12 (property names
/// are part of the wire format, so the transform leaves them alone).
pub fn lint(schema: &Value) -> Vec<Issue> {
    lint_report(schema).issues
}

/// [`lint`], plus the definitions that were skipped because nothing reachable uses them.
pub fn lint_report(schema: &Value) -> LintReport {
    let mut linter = Linter {
        root: schema,
        issues: Vec::new(),
        refs: Vec::new(),
        walked: HashSet::new(),
        definition_blocks: Vec::new(),
        work: std::cell::Cell::new(LINT_WORK_BUDGET),
        ref_index: Vec::new(),
    };
    linter.root_checks();
    linter.walk(schema, "", 0);
    linter.walk_referenced();
    linter.ref_checks();
    if linter.work.get() == 0 {
        linter.flag(
            "",
            Check::TooLargeToLint,
            format!("more references than the linter follows ({LINT_WORK_BUDGET} steps): some were not checked for recursion"),
        );
    }
    linter.depth_check();
    let unused_definitions = linter.unused_definitions();
    let mut issues = linter.issues;
    issues.sort_by(|a, b| {
        (a.severity, &a.path, a.rule, &a.message).cmp(&(b.severity, &b.path, b.rule, &b.message))
    });
    issues.dedup();
    LintReport {
        issues,
        unused_definitions,
    }
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
        rule: Check::ToolName.rule(),
        severity: Check::ToolName.severity(),
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
    /// (location of the node holding `$ref`, the reference), for reachable nodes only
    refs: Vec<(String, String)>,
    /// Pointers of every schema node linted so far.
    walked: HashSet<String>,
    /// Pointers of the `$defs`/`definitions` blocks met while walking.
    definition_blocks: Vec<String>,
    /// Steps left for following references (see [`LINT_WORK_BUDGET`]).
    work: std::cell::Cell<usize>,
    /// `refs` as (location, local target), sorted by location: the references inside a
    /// subtree are one contiguous run.
    ref_index: Vec<(String, Option<String>)>,
}

/// Reference-following steps one lint may take (each reference's recursion check walks the
/// references reachable from its target; without a bound that is quadratic in their number).
const LINT_WORK_BUDGET: usize = 1_000_000;

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

    /// Records a finding with the rule and severity of `check`'s table row.
    fn flag(&mut self, path: &str, check: Check, message: impl Into<String>) {
        self.push(path, check.rule(), check.severity(), message);
    }

    fn root_checks(&mut self) {
        let Some(map) = self.root.as_object() else {
            self.flag(
                "",
                Check::RootNotObject,
                "the root is not a schema object: every client rejects the tool",
            );
            return;
        };
        let types = map.get("type").map(type_names).unwrap_or_default();
        if types != ["object"] {
            self.flag(
                "",
                Check::RootNotObject,
                "the root is not `{\"type\":\"object\"}`: Vertex answers 400 (parameters schema should be of type OBJECT), Anthropic and OpenAI reject it",
            );
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            if map.contains_key(key) {
                self.flag(
                    &pointer::child("", key),
                    Check::RootCombinator,
                    format!("root-level `{key}`: Anthropic rejects combinators at the top level and Gemini needs an OBJECT root"),
                );
            }
        }
    }

    /// Lints every `$ref` target not linted yet, following the references found there too,
    /// so definitions are linted exactly when something reachable uses them.
    fn walk_referenced(&mut self) {
        let root = self.root;
        let mut next = 0;
        while let Some((_, reference)) = self.refs.get(next) {
            next += 1;
            let Some(target) = pointer::local_pointer(reference) else {
                continue;
            };
            if self.walked.contains(&target) {
                continue;
            }
            if let Some(schema) = pointer::resolve(root, &target) {
                // Roughly the schema depth the target sits at, for the walk's depth guard.
                let depth = target.matches('/').count();
                self.walk(schema, &target, depth);
            }
        }
    }

    /// Entries of the definition blocks met that no walk reached.
    fn unused_definitions(&self) -> Vec<String> {
        let mut unused = Vec::new();
        let mut walked: Vec<&String> = self.walked.iter().collect();
        walked.sort();
        for block in &self.definition_blocks {
            let Some(Value::Object(entries)) = pointer::resolve(self.root, block) else {
                continue;
            };
            for name in entries.keys() {
                let entry = pointer::child(block, name);
                // The walked pointers under `entry`: one run of the sorted list.
                let start = walked.partition_point(|w| w.as_str() < entry.as_str());
                let used = walked[start..]
                    .iter()
                    .take_while(|w| w.starts_with(entry.as_str()))
                    .any(|w| pointer::is_prefix(&entry, w));
                if !used {
                    unused.push(entry);
                }
            }
        }
        unused.sort();
        unused.dedup();
        unused
    }

    fn walk(&mut self, value: &Value, path: &str, depth: usize) {
        if !self.walked.insert(path.to_string()) {
            return;
        }
        if depth > 2 * HARD_DEPTH {
            self.flag(path, Check::TooDeepToWalk, format!("schema nested deeper than {} levels: Gemini rejects the depth (not checked further)", 2 * HARD_DEPTH));
            return;
        }
        let map = match value {
            Value::Object(map) => map,
            Value::Bool(b) => {
                self.flag(
                    path,
                    Check::BooleanSubschema,
                    format!("boolean subschema `{b}`: AI SDK 6 turns it into type boolean and Gemini has no boolean schemas; the argument type is lost"),
                );
                return;
            }
            _ => {
                self.flag(
                    path,
                    Check::NotASchema,
                    "a value that is not a schema: clients reject or mangle it",
                );
                return;
            }
        };
        let types: Vec<&str> = map.get("type").map(type_names).unwrap_or_default();
        let has_enum = map.contains_key("enum");
        const STRUCTURAL: [&str; 7] = ["type", "$ref", "anyOf", "oneOf", "allOf", "enum", "const"];
        if !STRUCTURAL.iter().any(|k| map.contains_key(*k)) {
            self.flag(path, Check::Typeless, "no `type`: LangChain sends it as STRING, LiteLLM as OBJECT, and Gemini needs a type");
        }
        if types.contains(&"array")
            && !map.contains_key("items")
            && !map.contains_key("prefixItems")
        {
            self.flag(path, Check::ArrayWithoutItems, "array without `items`: Gemini answers 400 (items: missing field) and OpenAI rejects it");
        }
        let mut keys: Vec<&String> = map.keys().collect();
        keys.sort();
        for key in keys {
            let Some(val) = map.get(key) else { continue };
            let kp = pointer::child(path, key);
            self.keyword(map, key, val, path, &kp, &types, has_enum, depth);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn keyword(
        &mut self,
        map: &Map<String, Value>,
        key: &str,
        val: &Value,
        path: &str,
        kp: &str,
        types: &[&str],
        has_enum: bool,
        depth: usize,
    ) {
        let is_array = types.contains(&"array");
        let is_object = types.contains(&"object");
        match key {
            "$ref" => match val {
                Value::String(r) => {
                    self.refs.push((path.to_string(), r.clone()));
                    if map.keys().any(|k| !matches!(k.as_str(), "$ref" | "description" | "default")) {
                        self.flag(path, Check::RefSiblings, "`$ref` with sibling keywords: Gemini's JSON mode allows only description and default next to $ref; google-genai's MCP path loses the siblings");
                    }
                }
                _ => self.flag(kp, Check::RefNotString, "`$ref` that is not a string: no client can resolve it"),
            },
            "$defs" | "definitions" => {
                // Entries are linted where a reachable `$ref` uses them (walk_referenced).
                self.definition_blocks.push(kp.to_string());
                self.flag(kp, Check::DefsBlock, format!("`{key}` block: converters inline what is used and drop it, passthrough clients send it to Gemini's JSON mode, which accepts it; only a schema sent unconverted as `parameters` is rejected (Unknown name)"));
            }
            "type" => match val {
                Value::Array(_) => self.flag(kp, Check::TypeArray, "type array: Gemini parameters answers 400 (Proto field is not repeating), LangChain turns it into STRING"),
                Value::String(t) if t == "null" => self.flag(kp, Check::NullType, "null type: Gemini parameters has no JSON null; converters rewrite it inconsistently (LiteLLM keeps a null branch)"),
                Value::String(t) if !TYPE_NAMES.contains(&t.as_str()) => self.flag(kp, Check::UnknownType, format!("unknown type `{t}`: rejected by Gemini and by JSON Schema validators")),
                Value::String(_) => {}
                _ => self.flag(kp, Check::TypeNotString, "`type` is neither a string nor an array"),
            },
            "nullable" => self.flag(kp, Check::Nullable, "OpenAPI `nullable` is not JSON Schema: Claude, OpenAI and Ajv ignore it"),
            "anyOf" | "oneOf" | "allOf" => {
                match key {
                    "anyOf" if map.len() > 1 => self.flag(path, Check::AnyOfSiblings, "anyOf with sibling keywords: Vertex answers 400 (any_of must be the only field set), @google/genai throws, LiteLLM strips the siblings"),
                    "oneOf" => self.flag(kp, Check::OneOf, "oneOf: google-genai's MCP path and LiteLLM drop it (the schema becomes {}), LangChain sends STRING, AI SDK 6 emits a oneOf Gemini rejects"),
                    "allOf" => self.flag(kp, Check::AllOf, "allOf: google-genai's MCP path and LiteLLM drop it, LangChain keeps only the first branch, Gemini parameters rejects it"),
                    _ => {}
                }
                match val {
                    Value::Array(branches) => {
                        for (i, b) in branches.iter().enumerate() {
                            self.walk(b, &format!("{kp}/{i}"), depth + 1);
                        }
                    }
                    _ => self.flag(kp, Check::CombinatorNotArray, format!("`{key}` is not an array")),
                }
            }
            "const" => self.flag(kp, Check::Const, "const: Gemini parameters answers 400 (Unknown name \"const\"); LiteLLM turns the node into OBJECT and LangChain into STRING"),
            "enum" => match val {
                Value::Array(values) => {
                    if values.iter().any(|v| !v.is_string()) {
                        self.flag(kp, Check::NonStringEnum, "non-string enum values: LangChain crashes (ValidationError), google-genai's MCP path sends numbers Gemini rejects (400 TYPE_STRING), LiteLLM drops the enum");
                    } else if types != ["string"] {
                        self.flag(kp, Check::EnumOnNonString, "enum on a node whose type is not string: Gemini answers 400 (enum: only allowed for STRING type)");
                    }
                    if values.iter().any(|v| v.as_str() == Some("")) {
                        self.flag(kp, Check::EmptyStringEnum, "empty-string enum value: LiteLLM replaces it with None and Gemini rejects empty enum strings");
                    }
                    if values.len() > MAX_ENUM {
                        self.flag(kp, Check::EnumTooLarge, format!("enum with {} values (limit {MAX_ENUM}): Gemini may answer 400 (too many states for serving)", values.len()));
                    }
                }
                _ => self.flag(kp, Check::EnumNotArray, "`enum` is not an array"),
            },
            "items" => match val {
                Value::Array(positions) => {
                    self.flag(kp, Check::TupleItems, "draft-07 tuple `items: [...]`: AI SDK 6 passes an array Gemini rejects; other converters drop it, leaving an array without items");
                    for (i, p) in positions.iter().enumerate() {
                        self.walk(p, &format!("{kp}/{i}"), depth + 1);
                    }
                }
                other => {
                    if !types.is_empty() && !is_array {
                        self.flag(kp, Check::ItemsOnNonArray, "`items` on a non-array: Gemini answers 400 (field predicate failed: $type == Type.ARRAY)");
                    }
                    self.walk(other, kp, depth + 1);
                }
            },
            "prefixItems" => {
                self.flag(kp, Check::PrefixItems, "tuple `prefixItems`: AI SDK 6 and google-genai drop it, leaving an array without items (Gemini 400)");
                if let Value::Array(positions) = val {
                    for (i, p) in positions.iter().enumerate() {
                        self.walk(p, &format!("{kp}/{i}"), depth + 1);
                    }
                }
            }
            "required" => {
                if !types.is_empty() && !is_object {
                    self.flag(kp, Check::RequiredOnNonObject, "`required` on a non-object: Gemini answers 400 (required: only allowed for OBJECT type)");
                } else if let Value::Array(names) = val {
                    let props = map.get("properties").and_then(Value::as_object);
                    for (i, n) in names.iter().enumerate() {
                        let known = n.as_str().is_some_and(|n| props.is_some_and(|p| p.contains_key(n)));
                        if !known {
                            self.flag(&format!("{kp}/{i}"), Check::RequiredUnknown, format!("required names {n}, which is not in properties: Gemini answers 400 (property is not defined)"));
                        }
                    }
                } else {
                    self.flag(kp, Check::RequiredNotArray, "`required` is not an array");
                }
            }
            "properties" => match val {
                Value::Object(props) => {
                    if props.is_empty() {
                        self.flag(kp, Check::EmptyProperties, "empty properties: AI SDK 6 omits the parameters, LangChain turns a nested empty object into STRING, the Developer API rejected it in 2025");
                    }
                    let mut names: Vec<&String> = props.keys().collect();
                    names.sort();
                    for name in names {
                        let np = pointer::child(kp, name);
                        if !is_valid_property_name(name) {
                            self.flag(&np, Check::PropertyName, format!("property name `{name}`: Gemini parameters require [A-Za-z_][A-Za-z0-9_]{{0,63}}"));
                        }
                        if let Some(s) = props.get(name) {
                            self.walk(s, &np, depth + 1);
                        }
                    }
                }
                _ => self.flag(kp, Check::PropertiesNotObject, "`properties` is not an object"),
            },
            "additionalProperties" => match val {
                Value::Bool(_) => self.flag(kp, Check::AdditionalPropertiesBoolean, "boolean additionalProperties: google-genai's MCP conversion crashes (AttributeError: 'bool' object has no attribute 'items'), failing the whole request; the Gemini Developer API rejects the keyword (Unknown name)"),
                _ => self.flag(kp, Check::AdditionalPropertiesSchema, "additionalProperties: the Gemini Developer API answers 400 (Unknown name) and every converter drops the map's value type"),
            },
            "patternProperties" | "propertyNames" | "unevaluatedProperties" => {
                self.flag(kp, Check::MapKeyword, format!("`{key}`: Gemini parameters answers 400 (Unknown name); converters drop it"));
            }
            "format" => {
                let f = val.as_str().unwrap_or("");
                let non_null: Vec<&str> = types.iter().copied().filter(|t| *t != "null").collect();
                if !format_allowed(f, &non_null, has_enum) {
                    self.flag(kp, Check::Format, format!("format `{f}`: Gemini accepts only date-time/enum on strings, int32/int64 on integers, float/double on numbers (400: only 'enum' and 'date-time' are supported)"));
                }
            }
            "title" => self.flag(kp, Check::Title, "title: dropped by AI SDK 6 and LangChain; Gemini 2.5 Flash answers MALFORMED_FUNCTION_CALL when properties carry titles"),
            "default" => self.flag(kp, Check::Default, "default: dropped by AI SDK 6 and LangChain, so the model never sees it"),
            "examples" | "example" => self.flag(kp, Check::Examples, format!("`{key}`: dropped by converters (an Unknown name for Gemini parameters), so the hint is lost")),
            "$schema" => self.flag(kp, Check::SchemaKeyword, "$schema: Gemini parameters answers 400 (Unknown name \"$schema\"); AI SDK 6, LiteLLM and LangChain drop it"),
            "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => self.flag(kp, Check::UnsupportedBound, format!("`{key}`: Gemini parameters answers 400 (Unknown name); AI SDK 6, LiteLLM and LangChain drop the bound")),
            "uniqueItems" => self.flag(kp, Check::UniqueItems, "uniqueItems: dropped by every converter (google-genai rejects it client-side); the hint is lost"),
            "description" => {
                if !val.is_string() {
                    self.flag(kp, Check::DescriptionNotString, "description is not a string");
                }
            }
            "minimum" | "maximum" | "minLength" | "maxLength" | "pattern" | "minItems"
            | "maxItems" | "minProperties" | "maxProperties" => {}
            _ => self.flag(kp, Check::UnknownKeyword, format!("`{key}`: not a Gemini Schema field; Gemini parameters answers 400 (Unknown name)")),
        }
    }

    fn ref_checks(&mut self) {
        let refs = self.refs.clone();
        let mut index: Vec<(String, Option<String>)> = refs
            .iter()
            .map(|(l, r)| (l.clone(), pointer::local_pointer(r)))
            .collect();
        index.sort();
        self.ref_index = index;
        for (loc, reference) in &refs {
            let kp = pointer::child(loc, "$ref");
            let (check, message) = match pointer::local_pointer(reference) {
                None => (
                    Check::RefNotLocal,
                    format!(
                        "$ref {reference} is not local: no client resolves it (Gemini: reference to undefined schema)"
                    ),
                ),
                Some(ptr) => match pointer::resolve(self.root, &ptr) {
                    None => (
                        Check::RefMissing,
                        format!(
                            "$ref {reference} has no target: Gemini answers 400 (reference to undefined schema), gemini-cli fails client-side"
                        ),
                    ),
                    Some(_) if self.recursive(&ptr, loc) => (
                        Check::RefRecursive,
                        "recursive $ref: AI SDK 6 sends the whole tool unconverted, google-genai cuts it to {}, LangChain to STRING".to_string(),
                    ),
                    Some(_) => match definition_block(&ptr) {
                        Some("$defs") => (
                            Check::RefDefs,
                            "$ref to a $defs entry: AI SDK ≤ 3.0.110 drops it (the argument becomes an untyped empty schema), google-genai's MCP path loses its siblings, Gemini parameters rejects it".to_string(),
                        ),
                        Some(_) => (
                            Check::RefDefinitions,
                            "$ref to a definitions entry: google-genai's MCP path raises KeyError: 'definitions' (the whole request fails), AI SDK ≤ 3.0.110 drops it to an untyped empty schema".to_string(),
                        ),
                        None => (
                            Check::RefOtherPointer,
                            "$ref to a pointer outside the root $defs/definitions: AI SDK 6 (@ai-sdk/google 3.0.141) throws UnsupportedFunctionalityError and the whole request fails; google-genai's MCP path resolves only #/$defs/…".to_string(),
                        ),
                    },
                },
            };
            self.flag(&kp, check, message);
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
            // The references located under `t`: one run of the sorted index.
            let start = self
                .ref_index
                .partition_point(|(l, _)| l.as_str() < t.as_str());
            for (l, p) in self.ref_index[start..]
                .iter()
                .take_while(|(l, _)| l.starts_with(t.as_str()))
            {
                let left = self.work.get();
                if left == 0 {
                    return false;
                }
                self.work.set(left - 1);
                if pointer::is_prefix(&t, l)
                    && let Some(p) = p
                {
                    if pointer::is_prefix(p, target) {
                        return true;
                    }
                    queue.push(p.clone());
                }
            }
        }
        false
    }

    fn depth_check(&mut self) {
        let depth = nesting_depth(self.root, self.root);
        if depth > MAX_DEPTH {
            self.flag("", Check::NestingDepth, format!("the schema nests {depth} levels deep (limit {MAX_DEPTH}; properties, items, anyOf/oneOf/allOf branches and map values count, $ref followed): Gemini answers 400 (exceeds the maximum allowed nesting depth)"));
        }
    }
}

/// For a pointer that names an entry of the root `$defs` or `definitions` (`/$defs/Name`),
/// that block's key: the form AI SDK 6 inlines. Anything else (`/properties/…`, a nested
/// definition) is `None`.
fn definition_block(ptr: &str) -> Option<&'static str> {
    let rest = ptr.strip_prefix('/')?;
    let (block, name) = rest.split_once('/')?;
    if name.is_empty() || name.contains('/') {
        return None;
    }
    match block {
        "$defs" => Some("$defs"),
        "definitions" => Some("definitions"),
        _ => None,
    }
}
