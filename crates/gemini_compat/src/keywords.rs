//! Keyword-level rewriting: what one node's own keywords become (type, format, bounds,
//! string limits, annotations), and what is reported for the keywords that are dropped.
//! Nothing here recurses into subschemas; [`crate::rewrite`] does that.

use crate::ctx::{Ctx, Obj};
use crate::describe;
use crate::merge;
use crate::types::Rule;
use serde_json::{Number, Value};

/// zod 4's `z.int()` bounds (±2^53 − 1); they carry no information.
const SAFE_INT: f64 = 9_007_199_254_740_991.0;

const TYPE_NAMES: [&str; 7] = [
    "string", "number", "integer", "boolean", "object", "array", "null",
];
const OBJECT_KEYWORDS: [&str; 11] = [
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "unevaluatedProperties",
];
const ARRAY_KEYWORDS: [&str; 10] = [
    "items",
    "prefixItems",
    "additionalItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
    "unevaluatedItems",
];
const STRING_KEYWORDS: [&str; 6] = [
    "minLength",
    "maxLength",
    "pattern",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
];
const NUMBER_KEYWORDS: [&str; 5] = [
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
];

/// Annotations taken off a node: the base description and prose notes.
pub(crate) struct Annot {
    pub base: Option<String>,
    pub notes: Vec<String>,
}

pub(crate) fn sorted_keys(map: &Obj) -> Vec<String> {
    let mut keys: Vec<String> = map.keys().cloned().collect();
    keys.sort();
    keys
}

pub(crate) fn take_type(ctx: &mut Ctx, map: &mut Obj, path: &str) -> Option<Vec<&'static str>> {
    let raw = map.remove("type")?;
    let names = merge::type_names(&raw);
    let mut out: Vec<&'static str> = Vec::new();
    let mut bad = !matches!(raw, Value::String(_) | Value::Array(_));
    for n in names {
        match TYPE_NAMES.iter().find(|t| **t == n) {
            Some(t) if !out.contains(t) => out.push(t),
            Some(_) => {}
            None => bad = true,
        }
    }
    if bad {
        ctx.change(path, Rule::R11, "dropped an invalid `type` value");
    }
    if out.is_empty() { None } else { Some(out) }
}

/// Take `description`, `title`, `default`, `examples`, `deprecated` off a node.
pub(crate) fn annotations(ctx: &mut Ctx, map: &mut Obj, path: &str, prop: Option<&str>) -> Annot {
    let mut base = match map.remove("description") {
        Some(Value::String(s)) => Some(s),
        Some(_) => {
            ctx.change(path, Rule::R9, "dropped a description that is not a string");
            None
        }
        None => None,
    };
    if let Some(title) = map.remove("title") {
        let fold = match (&base, prop, title.as_str()) {
            (None, Some(name), Some(t)) => {
                !t.trim().is_empty() && describe::norm_name(t) != describe::norm_name(name)
            }
            _ => false,
        };
        if fold {
            ctx.change(path, Rule::R9, "title moved into the description");
            base = title.as_str().map(str::to_string);
        } else {
            ctx.change(path, Rule::R9, "dropped title");
        }
    }
    let mut notes = Vec::new();
    if let Some(default) = map.remove("default") {
        if default.is_null() {
            ctx.change(path, Rule::R9, "dropped default null");
        } else if base.as_deref().is_some_and(describe::states_default) {
            ctx.change(
                path,
                Rule::R9,
                "dropped default (the description states it)",
            );
        } else {
            notes.push(format!("Default: {}.", describe::json_short(&default, 80)));
            ctx.change(path, Rule::R9, "default moved into the description");
        }
    }
    let examples = map.remove("examples");
    let example = map.remove("example");
    let first = match examples {
        Some(Value::Array(xs)) => xs.into_iter().next(),
        Some(_) => {
            ctx.change(path, Rule::R9, "dropped an `examples` that is not an array");
            None
        }
        None => None,
    }
    .or(example);
    if let Some(x) = first {
        notes.push(format!("Example: {}.", describe::json_short(&x, 80)));
        ctx.change(path, Rule::R9, "example moved into the description");
    }
    if let Some(deprecated) = map.remove("deprecated") {
        if deprecated == Value::Bool(true) {
            notes.push("Deprecated.".into());
        }
        ctx.change(path, Rule::R9, "dropped deprecated");
    }
    Annot { base, notes }
}

/// A node's annotations and `notes` as one description text (a union pushes it into every
/// branch).
pub(crate) fn annotation_text(
    ctx: &mut Ctx,
    map: &mut Obj,
    path: &str,
    prop: Option<&str>,
    notes: &[String],
) -> Option<String> {
    let annot = annotations(ctx, map, path, prop);
    let parts = annot
        .base
        .iter()
        .chain(notes.iter())
        .chain(annot.notes.iter());
    let text = describe::join(parts.map(String::as_str));
    if text.is_empty() { None } else { Some(text) }
}

pub(crate) fn leftovers(ctx: &mut Ctx, map: &Obj, path: &str, ty: &str, split: bool) {
    for key in sorted_keys(map) {
        let owner = keyword_owner(&key);
        if split && owner.is_some() {
            continue;
        }
        let rule = drop_rule(&key);
        let message = match owner {
            Some(owner) if owner != ty => format!("dropped `{key}` (not applicable to {ty})"),
            _ => format!("dropped unsupported keyword `{key}`"),
        };
        ctx.change(path, rule, message);
    }
}

/// Keep `format` when the contract allows it for `ty`; otherwise move it into the
/// description (numeric formats such as `uint32` are dropped silently). Returns
/// whether the format was unsigned.
pub(crate) fn take_format(
    ctx: &mut Ctx,
    map: &mut Obj,
    out: &mut Obj,
    notes: &mut Vec<String>,
    path: &str,
    ty: &str,
    has_enum: bool,
) -> bool {
    let format = match map.remove("format") {
        Some(Value::String(f)) => f,
        Some(_) => {
            ctx.change(path, Rule::R8, "dropped a format that is not a string");
            return false;
        }
        None => return false,
    };
    let allowed = match ty {
        "string" => format == "date-time" || (format == "enum" && has_enum),
        "integer" => format == "int32" || format == "int64",
        "number" => format == "float" || format == "double",
        _ => false,
    };
    if allowed {
        out.insert("format".into(), format.into());
        return false;
    }
    if is_numeric_format(&format) {
        ctx.change(path, Rule::R8, format!("dropped format {format}"));
    } else {
        notes.push(format!("Format: {format}."));
        ctx.change(
            path,
            Rule::R8,
            format!("format {format} moved into the description"),
        );
    }
    format.starts_with("uint")
}

pub(crate) fn take_count(ctx: &mut Ctx, map: &mut Obj, key: &str, path: &str) -> Option<u64> {
    let v = map.remove(key)?;
    let n = v.as_u64().or_else(|| {
        v.as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 9.0e15)
            .map(|f| f as u64)
    });
    if n.is_none() {
        ctx.change(path, Rule::R9, format!("dropped an invalid `{key}`"));
    }
    n
}

pub(crate) fn take_number(ctx: &mut Ctx, map: &mut Obj, key: &str, path: &str) -> Option<Number> {
    match map.remove(key)? {
        Value::Number(n) => Some(n),
        _ => {
            ctx.change(path, Rule::R9, format!("dropped an invalid `{key}`"));
            None
        }
    }
}

pub(crate) fn string_keywords(
    ctx: &mut Ctx,
    map: &mut Obj,
    out: &mut Obj,
    notes: &mut Vec<String>,
    path: &str,
) {
    for key in ["minLength", "maxLength"] {
        if let Some(n) = take_count(ctx, map, key, path) {
            out.insert(key.into(), n.into());
        }
    }
    match map.remove("pattern") {
        Some(Value::String(p)) => {
            out.insert("pattern".into(), p.into());
        }
        Some(_) => ctx.change(path, Rule::R9, "dropped a pattern that is not a string"),
        None => {}
    }
    if let Some(encoding) = map.remove("contentEncoding") {
        if let Some(e) = encoding.as_str() {
            notes.push(format!("Encoding: {e}."));
        }
        ctx.change(path, Rule::R9, "contentEncoding moved into the description");
    }
    if let Some(media) = map.remove("contentMediaType") {
        if let Some(m) = media.as_str() {
            notes.push(format!("Media type: {m}."));
        }
        ctx.change(
            path,
            Rule::R9,
            "contentMediaType moved into the description",
        );
    }
}

pub(crate) fn number_keywords(
    ctx: &mut Ctx,
    map: &mut Obj,
    out: &mut Obj,
    notes: &mut Vec<String>,
    path: &str,
    ty: &str,
    unsigned: bool,
) {
    let integer = ty == "integer";
    let mut min = take_number(ctx, map, "minimum", path);
    let mut max = take_number(ctx, map, "maximum", path);
    if min.as_ref().and_then(Number::as_f64) == Some(-SAFE_INT) {
        min = None;
        ctx.change(path, Rule::R9, "dropped the safe-integer lower bound");
    }
    if max.as_ref().and_then(Number::as_f64) == Some(SAFE_INT) {
        max = None;
        ctx.change(path, Rule::R9, "dropped the safe-integer upper bound");
    }
    exclusive_bound(ctx, map, notes, path, integer, Side::Lower, &mut min);
    exclusive_bound(ctx, map, notes, path, integer, Side::Upper, &mut max);
    if unsigned && min.is_none() {
        min = Some(Number::from(0));
        ctx.change(path, Rule::R8, "unsigned format kept as minimum 0");
    }
    if let Some(k) = map.remove("multipleOf") {
        if let Value::Number(k) = k {
            notes.push(format!("Multiple of {k}."));
        }
        ctx.change(path, Rule::R9, "multipleOf moved into the description");
    }
    if let Some(m) = min {
        out.insert("minimum".into(), Value::Number(m));
    }
    if let Some(m) = max {
        out.insert("maximum".into(), Value::Number(m));
    }
}

/// Which end of a numeric range an exclusive bound closes.
#[derive(Clone, Copy)]
enum Side {
    Lower,
    Upper,
}

impl Side {
    fn keyword(self) -> &'static str {
        match self {
            Side::Lower => "exclusiveMinimum",
            Side::Upper => "exclusiveMaximum",
        }
    }
    /// Towards the inside of the range.
    fn step(self) -> i64 {
        match self {
            Side::Lower => 1,
            Side::Upper => -1,
        }
    }
    /// Whether bound `a` admits strictly less than bound `b` on this side.
    fn tighter(self, a: f64, b: f64) -> bool {
        match self {
            Side::Lower => a > b,
            Side::Upper => a < b,
        }
    }
    fn sentence(self, x: &Number) -> String {
        match self {
            Side::Lower => format!("Must be greater than {x}."),
            Side::Upper => format!("Must be less than {x}."),
        }
    }
    fn rewritten(self) -> &'static str {
        match self {
            Side::Lower => "exclusiveMinimum rewritten as minimum",
            Side::Upper => "exclusiveMaximum rewritten as maximum",
        }
    }
}

/// Fold `exclusiveMinimum`/`exclusiveMaximum` (draft 2020-12 number, or draft-04
/// boolean) into the inclusive `bound`: integers get the next inclusive bound,
/// numbers keep an inclusive bound plus a sentence.
fn exclusive_bound(
    ctx: &mut Ctx,
    map: &mut Obj,
    notes: &mut Vec<String>,
    path: &str,
    integer: bool,
    side: Side,
    bound: &mut Option<Number>,
) {
    let current = bound.as_ref().and_then(Number::as_f64);
    match map.remove(side.keyword()) {
        Some(Value::Number(x)) => {
            let xf = x.as_f64().unwrap_or(0.0);
            if integer {
                let next = next_integer(&x, xf, side.step());
                if current.is_none_or(|m| next.as_f64().is_some_and(|b| side.tighter(b, m))) {
                    *bound = Some(next);
                }
            } else if current.is_none_or(|m| !side.tighter(m, xf)) {
                notes.push(side.sentence(&x));
                *bound = Some(x);
            }
            ctx.change(path, Rule::R9, side.rewritten());
        }
        Some(Value::Bool(true)) => {
            if let Some(m) = bound.clone() {
                let mf = m.as_f64().unwrap_or(0.0);
                if integer {
                    *bound = Some(next_integer(&m, mf, side.step()));
                } else {
                    notes.push(side.sentence(&m));
                }
            }
            ctx.change(path, Rule::R9, side.rewritten());
        }
        Some(_) => ctx.change(path, Rule::R9, format!("dropped {}", side.keyword())),
        None => {}
    }
}

/// A one-step integer bound from an exclusive bound (`> x` → `≥ floor(x)+1`, `< x` → `≤ ceil(x)-1`).
pub(crate) fn next_integer(original: &Number, x: f64, step: i64) -> Number {
    if let Some(i) = original.as_i64()
        && let Some(n) = i.checked_add(step)
    {
        return Number::from(n);
    }
    let bound = if step > 0 {
        x.floor() + 1.0
    } else {
        x.ceil() - 1.0
    };
    if bound.abs() < 9.0e15 {
        Number::from(bound as i64)
    } else {
        Number::from_f64(bound).unwrap_or_else(|| original.clone())
    }
}

pub(crate) fn infer_type(map: &Obj) -> Option<&'static str> {
    let has = |keys: &[&str]| keys.iter().any(|k| map.contains_key(*k));
    if has(&OBJECT_KEYWORDS) {
        Some("object")
    } else if has(&ARRAY_KEYWORDS) {
        Some("array")
    } else if has(&STRING_KEYWORDS) {
        Some("string")
    } else if has(&NUMBER_KEYWORDS) {
        Some("number")
    } else {
        match map.get("format").and_then(Value::as_str) {
            Some(f) if is_numeric_format(f) => {
                if f == "float" || f == "double" {
                    Some("number")
                } else {
                    Some("integer")
                }
            }
            Some(_) => Some("string"),
            None => None,
        }
    }
}

/// `int`, `int32`, `uint8`, `float`, `double`… (and `enum`, meaningless without an enum).
pub(crate) fn is_numeric_format(f: &str) -> bool {
    let rest = f.strip_prefix('u').unwrap_or(f);
    if let Some(bits) = rest.strip_prefix("int") {
        return bits.chars().all(|c| c.is_ascii_digit());
    }
    matches!(f, "float" | "double" | "enum" | "number" | "integer")
}

pub(crate) fn keyword_owner(key: &str) -> Option<&'static str> {
    if OBJECT_KEYWORDS.contains(&key) {
        Some("object")
    } else if ARRAY_KEYWORDS.contains(&key) {
        Some("array")
    } else if STRING_KEYWORDS.contains(&key) {
        Some("string")
    } else if NUMBER_KEYWORDS.contains(&key) {
        Some("number")
    } else {
        None
    }
}

pub(crate) fn drop_rule(key: &str) -> Rule {
    match key {
        "additionalProperties"
        | "patternProperties"
        | "propertyNames"
        | "unevaluatedProperties" => Rule::R7,
        "$defs" | "definitions" | "$ref" => Rule::R1,
        "format" => Rule::R8,
        k if ARRAY_KEYWORDS.contains(&k) => Rule::R5,
        k if OBJECT_KEYWORDS.contains(&k) => Rule::R6,
        _ => Rule::R9,
    }
}
