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

use crate::describe::{self, empty_stand_in, enum_string};
use crate::merge::type_names;
use crate::pointer;
use std::cell::{Cell, RefCell};
use std::collections::HashSet;

use serde_json::{Map, Number, Value};

const MAX_DEPTH: usize = 64;
const MAX_PARTS: usize = 64;
/// Units of work one coercion may do (schema parts collected, values and union branches
/// tried, enum members compared); past it the argument is refused, never walked for ever (a
/// recursive `anyOf` of two references to itself would otherwise be tried exponentially).
pub const COERCE_WORK_BUDGET: usize = 200_000;

type Obj = Map<String, Value>;

/// One argument [`coerce_arguments_checked`] refuses to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefusedArgument {
    /// Where it is, e.g. `a.b[0].c` (empty for the arguments as a whole).
    pub location: String,
    /// What is wrong, as a sentence naming the next step.
    pub reason: String,
}

impl std::fmt::Display for RefusedArgument {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.location.is_empty() {
            write!(f, "arguments: {}", self.reason)
        } else {
            write!(f, "argument `{}`: {}", self.location, self.reason)
        }
    }
}

/// Make arguments produced for `transform(raw_schema)` deserialize against `raw_schema`.
pub fn coerce_arguments(raw_schema: &Value, args: Value) -> Value {
    coerce_arguments_reporting(raw_schema, args).0
}

/// [`coerce_arguments`], plus the locations (`a.b[0].c`, as [`crate::malformed_json_text`]
/// names them) of the strings it left as they were although the raw schema accepts no string
/// there: text that was meant to be turned into something else and could not be. JSON text
/// whose content the raw schema refuses (an unknown property under `additionalProperties:
/// false`, a value outside an enum, a wrong type) is left as the string it was and reported
/// here too, as is the place where the work budget ran out ([`coerce_arguments_checked`] says
/// why).
pub fn coerce_arguments_reporting(raw_schema: &Value, args: Value) -> (Value, Vec<String>) {
    let (out, refusals) = run(raw_schema, args);
    // `run` keeps one refusal per location already.
    let locations = refusals.into_iter().map(|r| r.location).collect();
    (out, locations)
}

/// [`coerce_arguments`] that refuses instead of forwarding what the raw schema refuses:
/// coercion only changes a value's representation (text to number, JSON text to the array or
/// object it spells), never its content. Refused: JSON text whose content the raw schema
/// refuses (unknown properties under `additionalProperties: false`, `enum`/`const`/`type`
/// mismatches, missing required properties), strings where the raw schema accepts none, and
/// arguments whose coercion would take more than [`COERCE_WORK_BUDGET`] steps.
pub fn coerce_arguments_checked(
    raw_schema: &Value,
    args: Value,
) -> Result<Value, Vec<RefusedArgument>> {
    let (out, refusals) = run(raw_schema, args);
    if refusals.is_empty() {
        Ok(out)
    } else {
        Err(refusals)
    }
}

fn run(raw_schema: &Value, args: Value) -> (Value, Vec<RefusedArgument>) {
    let coercer = Coercer {
        root: raw_schema,
        at: RefCell::new(Vec::new()),
        trying: Cell::new(0),
        refused: RefCell::new(Vec::new()),
        refused_at: RefCell::new(HashSet::new()),
        work: Cell::new(COERCE_WORK_BUDGET),
        failed_tries: RefCell::new(HashSet::new()),
        active_tries: RefCell::new(HashSet::new()),
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
    refused: RefCell<Vec<RefusedArgument>>,
    /// The locations in `refused`: a list of many refused items stays linear to check.
    refused_at: RefCell<HashSet<String>>,
    /// Work units left (see [`COERCE_WORK_BUDGET`]).
    work: Cell<usize>,
    /// (union branch, string) pairs tried without success: not tried again.
    failed_tries: RefCell<HashSet<(usize, String)>>,
    /// (union branch, string) pairs being tried further up: trying one again is a cycle.
    active_tries: RefCell<HashSet<(usize, String)>>,
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

    /// Spend `units` of work; `false` once the budget is spent. The first time, the current
    /// location is refused (unless a union branch is being tried: the try then fails).
    fn spend(&self, units: usize) -> bool {
        let left = self.work.get();
        if left == 0 {
            return false;
        }
        match left.checked_sub(units) {
            Some(rest) if rest > 0 => {
                self.work.set(rest);
                true
            }
            _ => {
                self.work.set(0);
                let saved = self.trying.replace(0);
                self.refuse_because(format!(
                    "coercing it against the tool's schema takes more than {COERCE_WORK_BUDGET} steps (its unions or references nest too deeply); nothing was sent. Give it exactly in the type the tool's schema declares, or simplify it."
                ));
                self.trying.set(saved);
                false
            }
        }
    }

    fn value(&self, schema: &'a Value, value: Value, depth: usize) -> Value {
        if depth > MAX_DEPTH || !self.spend(1) {
            return value;
        }
        let parts = self.parts(schema);
        if !self.spend(parts.len()) {
            return value;
        }
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
        if !self.spend(members.len()) {
            return Value::String(s);
        }
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
            let parsed = serde_json::from_str::<Value>(&s);
            if !self.spend(s.len() / 16) {
                return Value::String(s);
            }
            let wants_structure = types.contains(&"array") || types.contains(&"object");
            match parsed {
                Ok(Value::Array(items)) if types.contains(&"array") => {
                    let v = self.array(parts.to_vec(), items, depth + 1);
                    return self.checked_text(parts, v, s, depth);
                }
                Ok(Value::Object(map)) if types.contains(&"object") => {
                    let v = self.object(parts.to_vec(), map, depth + 1);
                    return self.checked_text(parts, v, s, depth);
                }
                Err(e) if wants_structure && Self::alternatives(parts).is_empty() => {
                    self.refuse_because(format!(
                        "not valid JSON text ({e}); the tool expects {} here, given as JSON text when its description says so. Nothing was sent.",
                        types.join(" or ")
                    ));
                    return Value::String(s);
                }
                _ => {}
            }
        }
        let alternatives = Self::alternatives(parts);
        if alternatives.is_empty() {
            if !types.is_empty() && !types.contains(&"string") {
                self.refuse_because(format!(
                    "{} is not {}, which is what the tool's schema accepts here. Nothing was sent.",
                    describe::json_short(&Value::String(s.clone()), 60),
                    types.join(" or ")
                ));
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
        let coerced = alternatives
            .into_iter()
            .find_map(|alt| self.try_branch(alt, &s, depth));
        self.trying.set(self.trying.get() - 1);
        coerced.unwrap_or_else(|| {
            if self.work.get() > 0 {
                let wanted: Vec<&str> = alternatives_types(self, parts)
                    .into_iter()
                    .filter(|t| *t == "array" || *t == "object")
                    .collect();
                let reason = match serde_json::from_str::<Value>(&s) {
                    Err(e) if !wanted.is_empty() => format!(
                        "not valid JSON text ({e}); the tool expects {} here, given as JSON text when its description says so. Nothing was sent.",
                        wanted.join(" or ")
                    ),
                    _ => "a string that none of the alternatives of the tool's schema accepts here. Nothing was sent.".to_string(),
                };
                self.refuse_because(reason);
            }
            Value::String(s)
        })
    }

    /// One union branch tried for the string `s`: memoized, and a branch already being tried
    /// for the same string further up is a cycle (a recursive `anyOf`), not tried again.
    fn try_branch(&self, alt: &'a Value, s: &str, depth: usize) -> Option<Value> {
        let key = (std::ptr::from_ref(alt) as usize, s.to_string());
        if self.failed_tries.borrow().contains(&key) || self.active_tries.borrow().contains(&key) {
            return None;
        }
        self.active_tries.borrow_mut().insert(key.clone());
        let coerced = self.value(alt, Value::String(s.to_string()), depth + 1);
        self.active_tries.borrow_mut().remove(&key);
        if coerced.as_str() == Some(s) {
            self.failed_tries.borrow_mut().insert(key);
            None
        } else {
            Some(coerced)
        }
    }

    /// JSON text parsed into `value`: kept when the raw schema accepts its content, else the
    /// text stays the string it was and (outside a union try) is refused with the reason.
    fn checked_text(&self, parts: &[&'a Obj], value: Value, text: String, depth: usize) -> Value {
        let mut found = Vec::new();
        self.violations(parts, &value, "", &mut found, depth);
        match found.into_iter().next() {
            None => value,
            Some((inner, why)) => {
                let saved_at = self.at.borrow().len();
                if !inner.is_empty() {
                    self.at.borrow_mut().push(inner);
                }
                self.refuse_because(format!(
                    "its JSON text {why}, which the tool's schema refuses; coercion only changes how a value is written, never what it holds. Nothing was sent."
                ));
                self.at.borrow_mut().truncate(saved_at);
                Value::String(text)
            }
        }
    }

    /// What in `value` the raw schema parts refuse, checked for what coercion could get wrong:
    /// `type`, `enum`/`const`, `required`, and unknown properties under
    /// `additionalProperties: false`; through properties, items and union branches (at least one
    /// branch must accept). Each finding is (location inside `value`, reason).
    fn violations(
        &self,
        parts: &[&'a Obj],
        value: &Value,
        at: &str,
        out: &mut Vec<(String, String)>,
        depth: usize,
    ) {
        if depth > MAX_DEPTH || !out.is_empty() || !self.spend(1 + parts.len()) {
            return;
        }
        // OpenAPI's `nullable: true` admits null whatever the type says.
        if value.is_null()
            && parts
                .iter()
                .any(|p| p.get("nullable") == Some(&Value::Bool(true)))
        {
            return;
        }
        let shown = || describe::json_short(value, 60);
        for p in parts {
            if let Some(t) = p.get("type") {
                let names = type_names(t);
                if !names.is_empty() && !names.iter().any(|n| is_of_type(value, n)) {
                    out.push((
                        at.to_string(),
                        format!("holds {} where {} is expected", shown(), names.join(" or ")),
                    ));
                    return;
                }
            }
            if let Some(c) = p.get("const")
                && !same_value(c, value)
            {
                out.push((
                    at.to_string(),
                    format!(
                        "holds {} where only {} is accepted",
                        shown(),
                        describe::json_short(c, 60)
                    ),
                ));
                return;
            }
            if let Some(Value::Array(e)) = p.get("enum") {
                if !self.spend(e.len()) {
                    return;
                }
                if !e.iter().any(|m| same_value(m, value)) {
                    out.push((
                        at.to_string(),
                        format!(
                            "holds {}, which is not one of the values the tool's schema lists",
                            shown()
                        ),
                    ));
                    return;
                }
            }
        }
        match value {
            Value::Object(map) => {
                for p in parts {
                    let props = p.get("properties").and_then(Value::as_object);
                    if p.get("additionalProperties") == Some(&Value::Bool(false))
                        && !p.contains_key("patternProperties")
                        && let Some(name) = map
                            .keys()
                            .find(|k| !props.is_some_and(|ps| ps.contains_key(*k)))
                    {
                        out.push((join_at(at, name), format!("has a property `{name}` the tool's schema does not allow (additionalProperties: false)")));
                        return;
                    }
                    if let Some(Value::Array(required)) = p.get("required")
                        && let Some(name) = required
                            .iter()
                            .filter_map(Value::as_str)
                            .find(|n| !map.contains_key(*n))
                    {
                        out.push((
                            at.to_string(),
                            format!("lacks the required property `{name}`"),
                        ));
                        return;
                    }
                }
                for (key, v) in map {
                    if let Some(s) = self.property_schema(parts, key) {
                        let sub = self.parts(s);
                        self.violations(&sub, v, &join_at(at, key), out, depth + 1);
                        if !out.is_empty() {
                            return;
                        }
                    }
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    if let Some(s) = item_schema(parts, i) {
                        let sub = self.parts(s);
                        self.violations(&sub, v, &format!("{at}[{i}]"), out, depth + 1);
                        if !out.is_empty() {
                            return;
                        }
                    }
                }
            }
            _ => {}
        }
        let alternatives = Self::alternatives(parts);
        if alternatives.is_empty() {
            return;
        }
        let mut first = None;
        for alt in alternatives {
            let mut inner = Vec::new();
            self.violations(&self.parts(alt), value, at, &mut inner, depth + 1);
            match inner.into_iter().next() {
                None => return,
                Some(v) => {
                    first.get_or_insert(v);
                }
            }
            if self.work.get() == 0 {
                return;
            }
        }
        out.extend(first);
    }

    /// Notes that the value at the current location is refused (a string the raw schema
    /// refuses stays a string), with the reason.
    fn refuse_because(&self, reason: String) {
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
        if self.refused_at.borrow_mut().insert(location.clone()) {
            self.refused
                .borrow_mut()
                .push(RefusedArgument { location, reason });
        }
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
        let out = items
            .into_iter()
            .enumerate()
            .map(|(i, v)| match item_schema(&parts, i) {
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

/// `a.b` from `a` and `b` (the locations [`crate::malformed_json_text`] uses).
fn join_at(at: &str, key: &str) -> String {
    if at.is_empty() {
        key.to_string()
    } else {
        format!("{at}.{key}")
    }
}

/// Whether `value` is of JSON Schema type `ty` (an integer-valued number is an integer).
fn is_of_type(value: &Value, ty: &str) -> bool {
    match ty {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => {
            value.is_i64()
                || value.is_u64()
                || value
                    .as_f64()
                    .is_some_and(|f| f.fract() == 0.0 && f.is_finite())
        }
        // An unknown type name is not ours to judge.
        _ => true,
    }
}

/// JSON Schema equality: numbers by value (`1` equals `1.0`), the rest structurally.
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x == y || x.as_f64().zip(y.as_f64()).is_some_and(|(x, y)| x == y)
        }
        _ => a == b,
    }
}

/// The types the union branches of `parts` declare (one level down, deduplicated).
/// The schema of an array's item at `index`: its positional schema (`prefixItems`, or draft-07's
/// array form of `items`), else the one for the rest (`items`, or `additionalItems` after
/// positional ones).
fn item_schema<'a>(parts: &[&'a Obj], index: usize) -> Option<&'a Value> {
    let positions = parts
        .iter()
        .find_map(|p| match (p.get("prefixItems"), p.get("items")) {
            (Some(Value::Array(ps)), _) | (_, Some(Value::Array(ps))) => Some(ps),
            _ => None,
        });
    let rest = parts.iter().find_map(|p| {
        if matches!(p.get("items"), Some(Value::Array(_))) {
            p.get("additionalItems")
        } else {
            p.get("items")
        }
    });
    positions.and_then(|ps| ps.get(index)).or(rest)
}

fn alternatives_types<'a>(coercer: &Coercer<'a>, parts: &[&'a Obj]) -> Vec<&'a str> {
    let mut out: Vec<&'a str> = Vec::new();
    for alt in Coercer::alternatives(parts) {
        for t in Coercer::types(&coercer.parts(alt)) {
            if !out.contains(&t) {
                out.push(t);
            }
        }
    }
    out
}
