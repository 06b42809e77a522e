//! Public result types: rule ids, severities, changes and lint issues.

use serde::Serialize;
use serde_json::Value;
use std::fmt;

/// A rule of the output contract (`docs/GEMINI_SCHEMA_CONTRACT.md` §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Rule {
    /// Inline every local `$ref`; no `$defs`/`definitions`; recursion unrolled.
    R1,
    /// No `type` arrays and no `null`; nullable properties leave `required`.
    R2,
    /// `anyOf` stands alone; no `oneOf`/`allOf`.
    R3,
    /// No `const`; `enum` only on strings, non-empty values.
    R4,
    /// Every array has one `items` schema; no tuples; no `items` on non-arrays.
    R5,
    /// `required` ⊆ `properties`; no `required` on non-objects.
    R6,
    /// No `additionalProperties`/`patternProperties`/`propertyNames`; maps described in prose.
    R7,
    /// `format` only in {date-time, enum, int32, int64, float, double}.
    R8,
    /// Unsupported keywords (`title`, `default`, `examples`, `exclusive*`, `$schema`, …) dropped.
    R9,
    /// The root is `{"type":"object"}` without combinators; no empty `properties`.
    R10,
    /// No boolean subschemas and no typeless nodes.
    R11,
    /// Property and tool names match Gemini's name rules.
    R12,
    /// Budgets: nesting depth, enum size, schema size.
    R13,
    /// Output side: `$ref` keys escaped in tool results.
    R14,
}

impl Rule {
    /// The rule id, `"R1"` … `"R14"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::R1 => "R1",
            Rule::R2 => "R2",
            Rule::R3 => "R3",
            Rule::R4 => "R4",
            Rule::R5 => "R5",
            Rule::R6 => "R6",
            Rule::R7 => "R7",
            Rule::R8 => "R8",
            Rule::R9 => "R9",
            Rule::R10 => "R10",
            Rule::R11 => "R11",
            Rule::R12 => "R12",
            Rule::R13 => "R13",
            Rule::R14 => "R14",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How bad a lint issue is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The call breaks, or an argument's type is lost, on some client.
    Critical,
    /// The Gemini API answers 400 on some route.
    Medium,
    /// A hint is lost (title, default, examples, uniqueness…).
    Low,
}

impl Severity {
    /// `"critical"`, `"medium"` or `"low"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Critical => "critical",
            Severity::Medium => "medium",
            Severity::Low => "low",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One rewrite the transform made.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Change {
    /// JSON Pointer (RFC 6901) into the *input* schema: the schema node that was
    /// rewritten. Content inlined from a `$ref` is reported where it is written (for
    /// example `/$defs/Edit/properties/count`), once however often it is used.
    pub path: String,
    /// The contract rule that required the rewrite.
    pub rule: Rule,
    /// What was done.
    pub message: String,
}

/// The result of [`crate::transform`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Transformed {
    /// The Gemini-safe schema.
    pub schema: Value,
    /// Every rewrite, sorted by path and deduplicated.
    pub changes: Vec<Change>,
}

/// One finding of [`crate::lint`].
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Issue {
    /// JSON Pointer (RFC 6901) to the offending keyword or node.
    pub path: String,
    /// The contract rule that is violated.
    pub rule: Rule,
    /// How bad it is.
    pub severity: Severity,
    /// What happens, and on which client.
    pub message: String,
}
