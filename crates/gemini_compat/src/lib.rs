//! Gemini-safe JSON Schema for MCP tool declarations.
//!
//! A pure library: `serde_json::Value` in, `serde_json::Value` out; no I/O. Every tool
//! schema the server generates (schemars, draft 2020-12) goes through [`transform`] so
//! that it survives Gemini's `parameters` (an OpenAPI-3.0 subset that rejects unknown
//! keys), its JSON mode, and every schema converter in between (AI SDK 6/7,
//! google-genai, LiteLLM, LangChain, Mastra, gemini-cli), while staying valid JSON
//! Schema 2020-12 for Claude, OpenAI and Ajv. [`lint`] reports what a raw schema would
//! break, [`coerce_arguments`] undoes the wire changes on the way back in
//! ([`coerce_arguments_checked`] refuses, naming the argument, what the raw schema refuses
//! instead of forwarding it: coercion changes how a value is written, never what it holds), and
//! [`escape_output_refs`] protects tool *results* (R14).
//!
//! The rules are those of `docs/GEMINI_SCHEMA_CONTRACT.md` §6:
//!
//! | rule | what [`transform`] does |
//! |---|---|
//! | R1 | Inlines every local `$ref` (`#`, `#/$defs/*`, `#/definitions/*`, any `#/…` pointer, `~0`/`~1` and `%XX` decoded); the referring node's siblings win. Recursion is unrolled 2 levels, then `{"type":"object","description":"<Name> (nested further; same shape)"}` (an array target keeps a typed `items`). Missing or non-local targets are described ("Unresolved reference …"). `$defs`/`definitions` are removed everywhere. |
//! | R2 | `null` disappears: from `type` arrays, `anyOf` branches, enums and OpenAPI `nullable`; such properties leave `required`. Several non-null types become an `anyOf` of single-type branches, each with only its own keywords. A property that only accepts `null` is removed. |
//! | R3 | `anyOf` is the only key on its node: other keywords are merged into each branch, the description (and its notes) is pushed into each branch. `oneOf` becomes `anyOf`; branches that are plain string enums (a `oneOf` of `const`s) merge into one enum with per-variant docs (`"a: A doc; b: B doc"`). `allOf` is merged: properties merged, `required` unioned, `type`/`enum` intersected, bounds tightened, the outer annotations win. |
//! | R4 | `const` → one-value `enum`. Enums are string-only: non-string members are sent as strings (`[1,2]` → `{"type":"string","enum":["1","2"]}`, contract §5 #12 option b; [`coerce_arguments`] converts them back); a boolean enum becomes a boolean ("Must be true."). `""` (which Gemini and LiteLLM reject) is sent as the stand-in `"(empty)"` (`"(empty string)"`… when that is already a member), described ("\"(empty)\" stands for \"\" (the empty string).") and mapped back by [`coerce_arguments`]. |
//! | R5 | Every array has one `items` schema. A missing `items` becomes `{"type":"string"}`; `true`/`{}` items follow R11. Tuples (`prefixItems`, draft-07 `items: [...]`) become one `items` (an `anyOf` of the position types when they differ) plus `minItems`/`maxItems`, and "Tuple: [start (integer), end (integer)]." in the description. Non-arrays lose `items`. |
//! | R6 | `required` keeps only names present in `properties` (in input order, deduplicated); non-objects lose it. `dependentRequired`, `dependentSchemas` and `dependencies` are described ("If resourceName is given, namespaces is required too."). |
//! | R7 | `additionalProperties`, `patternProperties`, `propertyNames` are dropped; maps are described with a compact rendering of the value schema and its own description, at most 300 characters each ("Map of name → 1 \| -1 \| \"asc\" \| {$meta: string} value. Values: Sort order."). |
//! | R8 | `format` stays only for `date-time` (strings), `int32`/`int64` (integers), `float`/`double` (numbers), `enum` (string enums). Other formats move into the description ("Format: uri."); numeric ones (`uint32`, `int8`…) are dropped, an unsigned one adds `minimum: 0` when no minimum exists. |
//! | R9 | Dropped: `$schema`, `$id`, `$comment`, `title` (folded into a missing property description unless it just repeats the name), `default` ("Default: false."), `examples` ("Example: …."), `exclusive*` (integers: the next inclusive bound; numbers: "Must be greater than x."), `multipleOf` ("Multiple of k."), `uniqueItems` ("Unique values."), `deprecated`, `readOnly`/`writeOnly`, `if`/`then`/`else`, `not`, and every other unknown keyword. zod's ±(2^53−1) integer bounds are dropped. |
//! | R10 | The root is `{"type":"object"}`. A root union is collapsed into one object (properties merged, `required` = what every branch requires, the alternatives described: "Provide route or file."). Empty `properties` are omitted. |
//! | R11 | No boolean subschemas, no typeless nodes: the type is inferred from the keywords, else `{"type":"object","description":"Arbitrary JSON object."}`; a `false` property is removed. |
//! | R12 | Property names are part of the wire format and are left alone; [`lint`] reports bad ones and [`lint_tool_name`] checks tool names. |
//! | R13 | At most [`MAX_DEPTH`] (4) nesting steps below the root, counting every property, `items`, tuple position, union branch and map value, `$ref`s followed (the same count [`lint`] uses). A node at the budget keeps no subschemas: an object keeps its type and gets "Nested deeper; shape: {a: string, b?: integer[]}."; an array or union is served as a string ("Nested deeper; give it as JSON text: …") that [`coerce_arguments`] parses back. The shape lists every property name and type below the cut within 16 000 characters (nested levels give way to `{…}` first, then names are counted: "… 12 more}"). Enums of at most 64 values (longer ones move into the description, "One of: …"), schema nesting walked at most 64 levels (input nested deeper than 160 JSON levels is cut first), at most 20 000 nodes expanded, and at most 2 000 000 units of work (values copied while inlining `$ref`s and merging `allOf`, enum members deduplicated): past a budget the rest is cut like a depth cut ("Schema too large to convert here; shape: …"), with a change noting it. Every pass is linear in what it reads. |
//! | R14 | [`escape_output_refs`] renames `"$ref"` keys in tool results to `"$$ref"` (see [`escape`] for why). |
//!
//! Guarantees, all tested (a property test covers generated schemas):
//! * `lint(&transform(s).schema)` reports nothing but R12 (names);
//! * idempotent: `transform(&transform(s).schema)` returns the same schema and no changes;
//! * deterministic: object keys are sorted in the output, whatever serde_json's
//!   `preserve_order` setting; changes are sorted and deduplicated;
//! * the output is valid JSON Schema 2020-12;
//! * no panic, no unbounded recursion, on any JSON input.
//!
//! Descriptions keep what the rewrite takes out of the schema, as short sentences
//! appended to the node's own description in a fixed order.
//!
//! ```
//! use serde_json::json;
//!
//! let raw = json!({
//!     "$schema": "https://json-schema.org/draft/2020-12/schema",
//!     "type": "object",
//!     "properties": {
//!         "level": {"type": ["integer", "null"], "enum": [1, 2, 3, null], "default": 2},
//!         "edits": {"type": "array", "items": {"$ref": "#/$defs/Edit"}}
//!     },
//!     "required": ["level", "edits"],
//!     "$defs": {"Edit": {"type": "object", "properties": {"text": {"type": "string"}}}}
//! });
//! let out = gemini_compat::transform(&raw);
//! assert_eq!(out.schema, json!({
//!     "type": "object",
//!     "properties": {
//!         "level": {"type": "string", "enum": ["1", "2", "3"], "description": "Default: 2."},
//!         "edits": {"type": "array", "items": {"type": "object", "properties": {"text": {"type": "string"}}}}
//!     },
//!     "required": ["edits"]
//! }));
//! assert!(gemini_compat::lint(&out.schema).is_empty());
//! // The model answers with the transformed schema; the server gets its integers back.
//! let args = gemini_compat::coerce_arguments(&raw, json!({"level": "3", "edits": []}));
//! assert_eq!(args, json!({"level": 3, "edits": []}));
//! ```

mod canon;
mod coerce;
mod ctx;
mod describe;
pub mod escape;
mod json_text;
mod keywords;
mod lint;
mod merge;
mod pointer;
pub mod profile;
mod refs;
mod rewrite;
mod types;
mod unions;
mod unknown;

pub use coerce::{
    COERCE_WORK_BUDGET, RefusedArgument, coerce_arguments, coerce_arguments_checked,
    coerce_arguments_reporting,
};
pub use escape::{escape_output_refs, has_output_refs, unescape_output_refs};
pub use json_text::{MalformedJsonText, asks_for_json_text, malformed_json_text};
pub use lint::{Check, LintReport, is_valid_property_name, lint, lint_report, lint_tool_name};
pub use profile::{PROFILES, Profile, SchemaProfile, openai_strict};
pub use types::{Change, Issue, Rule, Severity, Transformed};
pub use unknown::{UnknownArgument, unknown_arguments};

use ctx::{Ctx, Obj, Pos};
use serde_json::Value;

/// Levels a recursive `$ref` is unrolled before it is replaced by a described object.
pub const RECURSION_UNROLL: usize = refs::UNROLL;
/// Most nesting steps below the root (properties, items, union branches, map values).
pub const MAX_DEPTH: usize = ctx::MAX_DEPTH;
/// Largest enum kept as a keyword.
pub const MAX_ENUM_VALUES: usize = ctx::MAX_ENUM;
/// Deepest schema nesting walked.
pub const MAX_NESTING: usize = ctx::HARD_DEPTH;
/// Inputs nested deeper than this many JSON levels are cut to this depth first.
pub const MAX_JSON_DEPTH: usize = 160;

/// Rewrite a JSON Schema into the Gemini-safe form described in the crate docs.
///
/// Never panics; any JSON value is accepted (a non-object root yields
/// `{"type":"object"}` with a description of what was there).
pub fn transform(schema: &Value) -> Transformed {
    // Nothing below clones or compares a subtree deeper than this (serde_json itself
    // refuses to parse more than 128 levels; deeper values can only be built in code).
    let cut;
    let deep = canon::json_depth(schema) > MAX_JSON_DEPTH;
    let schema = if deep {
        cut = canon::truncated(schema, MAX_JSON_DEPTH);
        &cut
    } else {
        schema
    };
    let mut ctx = Ctx::new(schema);
    if deep {
        ctx.change(
            "",
            Rule::R13,
            format!("input nested deeper than {MAX_JSON_DEPTH} JSON levels cut"),
        );
    }
    let out = ctx.node(schema, "", Pos::top());
    let mut root: Obj = if out.absent {
        ctx.change(
            "",
            Rule::R10,
            "root schema accepts nothing; replaced by an object",
        );
        Obj::new()
    } else {
        out.schema
    };
    ctx.limit_depth(&mut root, "", 0);
    let ty = root.get("type").and_then(Value::as_str).map(str::to_string);
    if ty.as_deref() != Some("object") {
        ctx.change(
            "",
            Rule::R10,
            "root is not an object; replaced by an object",
        );
        let mut fresh = ctx::obj1("type", "object");
        let own = root
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("");
        let what = match ty {
            Some(t) => format!("Declared as {t}, not an object."),
            None if root.is_empty() => String::new(),
            None => "Declared as a union, not an object.".to_string(),
        };
        let text = describe::join([own, what.as_str()]);
        if !text.is_empty() {
            fresh.insert("description".into(), text.into());
        }
        root = fresh;
    }
    let schema = canon::sorted(Value::Object(root));
    let changes: Vec<Change> = ctx.changes.into_iter().collect();
    Transformed { schema, changes }
}
