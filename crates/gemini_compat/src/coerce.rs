//! Arguments coming back in: undo what the transform changed on the wire.
//!
//! The model fills in the *transformed* schema; the server deserializes with the *raw*
//! one. [`coerce_arguments`] walks the arguments alongside the raw schema (following
//! `$ref`, `allOf`, `anyOf`/`oneOf`, nested objects, arrays, tuples and maps) and:
//!
//! * turns a string back into the enum/`const` member it stands for (`"2"` → `2`,
//!   `"true"` → `true`) when the raw enum has no such string;
//! * parses a string into a number where the raw schema says `integer`/`number` (and
//!   not `string`): Gemini's `format: "enum"` style sends numbers as strings;
//! * removes an explicit `null` where the raw schema does not accept null, so serde's
//!   defaults apply;
//! * turns the stand-in the transform sends for an enum's `""` (`"(empty)"`) back into `""`,
//!   and puts `""` back for a required property whose raw enum contains `""` and that is
//!   missing (what schemas served by earlier versions asked for: "omit for empty");
//! * parses JSON text where the raw schema wants an array or object (nesting cut by the
//!   depth budget, R13, is served as a string holding JSON);
//! * passes everything else through unchanged (tuples are already arrays).

use crate::describe::{empty_stand_in, enum_string};
use crate::merge::type_names;
use crate::pointer;
use std::cell::{Cell, RefCell};

use serde_json::{Map, Number, Value};

const MAX_DEPTH: usize = 64;
const MAX_PARTS: usize = 64;

type Obj = Map<String, Value>;

/// Make arguments produced for `transform(raw_schema)` deserialize against `raw_schema`.
pub fn coerce_arguments(raw_schema: &Value, args: Value) -> Value {
    coerce_arguments_reporting(raw_schema, args).0
}

/// [`coerce_arguments`], plus the locations (`a.b[0].c`, as [`crate::malformed_json_text`]
/// names them) of the strings it left as they were although the raw schema accepts no string
/// there: text that was meant to be turned into something else and could not be.
pub fn coerce_arguments_reporting(raw_schema: &Value, args: Value) -> (Value, Vec<String>) {
    let coercer = Coercer {
        root: raw_schema,
        at: RefCell::new(Vec::new()),
        trying: Cell::new(0),
        refused: RefCell::new(Vec::new()),
    };
    let out = coercer.value(raw_schema, args, 0);
    (out, coercer.refused.into_inner())
}

struct Coercer<'a> {
    root: &'a Value,
    /// Where the value being coerced is: property names and `[i]`.
    at: RefCell<Vec<String>>,
    /// Inside a union branch being tried: a string it leaves alone is not refused yet.
    trying: Cell<usize>,
    refused: RefCell<Vec<String>>,
}

impl<'a> Coercer<'a> {
    /// The schema objects that all apply to one value: the node, its `$ref` targets and
    /// its `allOf` branches.
    fn parts(&self, schema: &'a Value) -> Vec<&'a Obj> {
        let mut out = Vec::new();
        self.collect(schema, &mut out, 0);
        out
    }

    fn collect(&self, schema: &'a Value, out: &mut Vec<&'a Obj>, depth: usize) {
        let Some(map) = schema.as_object() else {
            return;
        };
        if depth > 16 || out.len() >= MAX_PARTS || out.iter().any(|p| std::ptr::eq(*p, map)) {
            return;
        }
        out.push(map);
        if let Some(Value::String(r)) = map.get("$ref")
            && let Some(ptr) = pointer::local_pointer(r)
            && let Some(target) = pointer::resolve(self.root, &ptr)
        {
            self.collect(target, out, depth + 1);
        }
        if let Some(Value::Array(branches)) = map.get("allOf") {
            for b in branches {
                self.collect(b, out, depth + 1);
            }
        }
    }

    fn alternatives(parts: &[&'a Obj]) -> Vec<&'a Value> {
        let mut out = Vec::new();
        for p in parts {
            for key in ["anyOf", "oneOf"] {
                if let Some(Value::Array(branches)) = p.get(key) {
                    out.extend(branches.iter());
                }
            }
        }
        out
    }

    fn value(&self, schema: &'a Value, value: Value, depth: usize) -> Value {
        if depth > MAX_DEPTH {
            return value;
        }
        let parts = self.parts(schema);
        match value {
            Value::String(s) => self.string(&parts, s, depth),
            Value::Object(m) => self.object(parts, m, depth),
            Value::Array(a) => self.array(parts, a, depth),
            other => other,
        }
    }

    fn members(parts: &[&'a Obj]) -> Vec<&'a Value> {
        let mut out = Vec::new();
        for p in parts {
            if let Some(c) = p.get("const") {
                out.push(c);
            }
            if let Some(Value::Array(e)) = p.get("enum") {
                out.extend(e.iter());
            }
        }
        out
    }

    fn types(parts: &[&'a Obj]) -> Vec<&'a str> {
        parts
            .iter()
            .filter_map(|p| p.get("type"))
            .flat_map(type_names)
            .collect()
    }

    /// Whether the string is valid as-is for these parts (ignoring their unions).
    fn accepts_string(parts: &[&'a Obj], s: &str) -> bool {
        let members = Self::members(parts);
        if !members.is_empty() {
            return members.iter().any(|m| m.as_str() == Some(s));
        }
        let types = Self::types(parts);
        types.is_empty() || types.contains(&"string")
    }

    fn string(&self, parts: &[&'a Obj], s: String, depth: usize) -> Value {
        let members = Self::members(parts);
        if !members.is_empty() {
            if members.iter().any(|m| m.as_str() == Some(s.as_str())) {
                return Value::String(s);
            }
            if let Some(m) = members
                .iter()
                .find(|m| !m.is_string() && enum_string(m) == s)
            {
                return (*m).clone();
            }
            if members.iter().any(|m| m.as_str() == Some("")) {
                let sent: Vec<String> = members
                    .iter()
                    .filter(|m| !m.is_null())
                    .map(|m| enum_string(m))
                    .collect();
                if s == empty_stand_in(sent.iter().map(String::as_str)) {
                    return Value::String(String::new());
                }
            }
        }
        let types = Self::types(parts);
        if !types.is_empty() && !types.contains(&"string") {
            if let Some(v) = parse_scalar(&s, &types) {
                return v;
            }
            // A value nested past the depth budget is served as JSON text.
            match serde_json::from_str::<Value>(&s) {
                Ok(Value::Array(items)) if types.contains(&"array") => {
                    return self.array(parts.to_vec(), items, depth + 1);
                }
                Ok(Value::Object(map)) if types.contains(&"object") => {
                    return self.object(parts.to_vec(), map, depth + 1);
                }
                _ => {}
            }
        }
        let alternatives = Self::alternatives(parts);
        if alternatives.is_empty() {
            if !types.is_empty() && !types.contains(&"string") {
                self.refuse();
            }
            return Value::String(s);
        }
        if alternatives
            .iter()
            .any(|a| Self::accepts_string(&self.parts(a), &s))
        {
            return Value::String(s);
        }
        self.trying.set(self.trying.get() + 1);
        let coerced = alternatives.into_iter().find_map(|alt| {
            let coerced = self.value(alt, Value::String(s.clone()), depth + 1);
            (coerced.as_str() != Some(s.as_str())).then_some(coerced)
        });
        self.trying.set(self.trying.get() - 1);
        coerced.unwrap_or_else(|| {
            self.refuse();
            Value::String(s)
        })
    }

    /// Notes that the string at the current location stays a string the raw schema refuses.
    fn refuse(&self) {
        if self.trying.get() > 0 {
            return;
        }
        let mut location = String::new();
        for step in self.at.borrow().iter() {
            if !location.is_empty() && !step.starts_with('[') {
                location.push('.');
            }
            location.push_str(step);
        }
        self.refused.borrow_mut().push(location);
    }

    /// Runs `f` with `step` appended to the current location.
    fn at<T>(&self, step: String, f: impl FnOnce() -> T) -> T {
        self.at.borrow_mut().push(step);
        let out = f();
        self.at.borrow_mut().pop();
        out
    }

    fn object(&self, mut parts: Vec<&'a Obj>, map: Obj, depth: usize) -> Value {
        let has_props = parts
            .iter()
            .any(|p| p.contains_key("properties") || p.contains_key("additionalProperties"));
        if !has_props && let Some(best) = self.pick_object_branch(&Self::alternatives(&parts), &map)
        {
            parts.extend(self.parts(best));
        }
        let mut out = Obj::new();
        for (key, v) in map {
            let schema = self.property_schema(&parts, &key);
            match (schema, v) {
                (Some(s), Value::Null) => {
                    if self.nullable(s, 0) {
                        out.insert(key, Value::Null);
                    }
                }
                (Some(s), v) => {
                    let coerced = self.at(key.clone(), || self.value(s, v, depth + 1));
                    out.insert(key, coerced);
                }
                (None, v) => {
                    out.insert(key, v);
                }
            }
        }
        for p in &parts {
            if let Some(Value::Array(required)) = p.get("required") {
                for name in required.iter().filter_map(Value::as_str) {
                    if out.contains_key(name) {
                        continue;
                    }
                    if let Some(s) = self.property_schema(&parts, name)
                        && Self::members(&self.parts(s))
                            .iter()
                            .any(|m| m.as_str() == Some(""))
                    {
                        out.insert(name.to_string(), Value::String(String::new()));
                    }
                }
            }
        }
        Value::Object(out)
    }

    fn property_schema(&self, parts: &[&'a Obj], key: &str) -> Option<&'a Value> {
        parts
            .iter()
            .find_map(|p| {
                p.get("properties")
                    .and_then(Value::as_object)
                    .and_then(|props| props.get(key))
            })
            .or_else(|| {
                parts
                    .iter()
                    .find_map(|p| p.get("additionalProperties").filter(|a| a.is_object()))
            })
    }

    /// The union branch an object argument belongs to: the one declaring most of its
    /// keys, excluding branches whose enum/const properties contradict it.
    fn pick_object_branch(&self, alternatives: &[&'a Value], map: &Obj) -> Option<&'a Value> {
        let mut best: Option<(usize, &'a Value)> = None;
        for alt in alternatives {
            let parts = self.parts(alt);
            let mut score = 0;
            let mut ok = parts.iter().any(|p| p.contains_key("properties"));
            for (key, v) in map {
                let Some(s) = self.property_schema(&parts, key) else {
                    continue;
                };
                score += 1;
                let members = Self::members(&self.parts(s));
                let scalar = !(v.is_object() || v.is_array());
                if !members.is_empty()
                    && scalar
                    && !members
                        .iter()
                        .any(|m| *m == v || enum_string(m) == enum_string(v))
                {
                    ok = false;
                }
            }
            if ok && best.is_none_or(|(b, _)| score > b) {
                best = Some((score, alt));
            }
        }
        best.map(|(_, alt)| alt)
    }

    fn array(&self, mut parts: Vec<&'a Obj>, items: Vec<Value>, depth: usize) -> Value {
        let has_items = |ps: &[&Obj]| {
            ps.iter()
                .any(|p| p.contains_key("items") || p.contains_key("prefixItems"))
        };
        if !has_items(&parts)
            && let Some(alt) = Self::alternatives(&parts)
                .into_iter()
                .find(|a| has_items(&self.parts(a)))
        {
            parts.extend(self.parts(alt));
        }
        let positions: Option<&'a Vec<Value>> =
            parts
                .iter()
                .find_map(|p| match (p.get("prefixItems"), p.get("items")) {
                    (Some(Value::Array(ps)), _) | (_, Some(Value::Array(ps))) => Some(ps),
                    _ => None,
                });
        let rest: Option<&'a Value> = parts.iter().find_map(|p| {
            if matches!(p.get("items"), Some(Value::Array(_))) {
                p.get("additionalItems")
            } else {
                p.get("items")
            }
        });
        let out = items
            .into_iter()
            .enumerate()
            .map(|(i, v)| match positions.and_then(|ps| ps.get(i)).or(rest) {
                Some(s) if !v.is_null() => {
                    self.at(format!("[{i}]"), || self.value(s, v, depth + 1))
                }
                _ => v,
            })
            .collect();
        Value::Array(out)
    }

    /// Whether the raw schema accepts `null` (an unconstrained schema does).
    fn nullable(&self, schema: &'a Value, depth: usize) -> bool {
        if depth > 16 {
            return true;
        }
        match schema {
            Value::Bool(b) => *b,
            Value::Object(_) => {
                let mut constrained = false;
                for p in self.parts(schema) {
                    if let Some(t) = p.get("type") {
                        constrained = true;
                        if type_names(t).contains(&"null") {
                            return true;
                        }
                    }
                    if p.get("nullable") == Some(&Value::Bool(true)) {
                        return true;
                    }
                    if let Some(c) = p.get("const") {
                        constrained = true;
                        if c.is_null() {
                            return true;
                        }
                    }
                    if let Some(Value::Array(e)) = p.get("enum") {
                        constrained = true;
                        if e.contains(&Value::Null) {
                            return true;
                        }
                    }
                    for key in ["anyOf", "oneOf"] {
                        if let Some(Value::Array(branches)) = p.get(key) {
                            constrained = true;
                            if branches.iter().any(|b| self.nullable(b, depth + 1)) {
                                return true;
                            }
                        }
                    }
                }
                !constrained
            }
            _ => true,
        }
    }
}

/// A string parsed as the scalar type the raw schema wants.
fn parse_scalar(s: &str, types: &[&str]) -> Option<Value> {
    let t = s.trim();
    if types.contains(&"integer") || types.contains(&"number") {
        if let Ok(i) = t.parse::<i64>() {
            return Some(Value::from(i));
        }
        if let Ok(u) = t.parse::<u64>() {
            return Some(Value::from(u));
        }
        if types.contains(&"number")
            && let Ok(f) = t.parse::<f64>()
            && let Some(n) = Number::from_f64(f)
        {
            return Some(Value::Number(n));
        }
    }
    if types.contains(&"boolean") {
        match t {
            "true" => return Some(Value::Bool(true)),
            "false" => return Some(Value::Bool(false)),
            _ => {}
        }
    }
    None
}
