//! Node rewriting: one flattened schema node in, one Gemini-safe schema node out.
//!
//! Every output node is built from an allow-list of keywords per type, so anything the
//! contract forbids is dropped by construction (and reported as a [`Change`]); what
//! the model should still know is moved into the `description`. Property maps are
//! walked as maps of *names*, so a property called `title`, `$ref` or `items` is
//! never mistaken for a keyword.

use crate::describe;
use crate::merge;
use crate::pointer;
use crate::refs::{Flat, FlatNode, depth_stub};
use crate::types::{Change, Rule};
use serde_json::{Map, Number, Value};
use std::collections::BTreeSet;

pub(crate) type Obj = Map<String, Value>;

/// Hard cap on schema nesting walked (cycle and stack safety).
pub(crate) const HARD_DEPTH: usize = 64;
/// At most this many levels of objects with `properties` on any path (root included).
pub(crate) const MAX_OBJECT_DEPTH: usize = 6;
/// Largest `enum` kept as a keyword; longer ones move into the description.
pub(crate) const MAX_ENUM: usize = 64;
/// Schema nodes expanded per transform before the rest is cut (exponential `$ref` fan-out).
pub(crate) const NODE_BUDGET: usize = 20_000;
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

/// Transform state.
pub(crate) struct Ctx<'a> {
    pub root: &'a Value,
    pub changes: Vec<Change>,
    /// Reference targets being expanded on the current path (recursion unrolling).
    pub ref_stack: Vec<String>,
    pub budget: usize,
}

/// Where a node sits.
#[derive(Clone, Copy)]
pub(crate) struct Pos<'p> {
    /// Schema nesting walked so far (bounded by [`HARD_DEPTH`]).
    pub hard: usize,
    /// Objects with `properties` above this node.
    pub objs: usize,
    /// The property name, when the node is a property's schema.
    pub prop: Option<&'p str>,
    /// The root schema (or a union branch standing for it).
    pub root: bool,
    /// One branch of a split `type` array (keywords of the other types are expected).
    pub split: bool,
}

impl<'p> Pos<'p> {
    pub(crate) fn top() -> Pos<'static> {
        Pos {
            hard: 0,
            objs: 0,
            prop: None,
            root: true,
            split: false,
        }
    }
    /// The same value seen through one more schema level (a lone union branch).
    pub(crate) fn same(self) -> Pos<'p> {
        Pos {
            hard: self.hard + 1,
            ..self
        }
    }
    /// One of several union branches (a branch's own `title` names a type, not the
    /// property, so it is never folded into the description).
    pub(crate) fn branch(self) -> Pos<'static> {
        Pos {
            hard: self.hard + 1,
            objs: self.objs,
            prop: None,
            root: false,
            split: false,
        }
    }
    /// An array's `items` or tuple position.
    fn item(self) -> Pos<'static> {
        Pos {
            hard: self.hard + 1,
            objs: self.objs,
            prop: None,
            root: false,
            split: false,
        }
    }
}

/// One rewritten node.
pub(crate) struct Out {
    pub schema: Obj,
    /// The value may be omitted although the input listed it as required
    /// (it accepted `null`, or `""` was dropped from its enum).
    pub optional: bool,
    /// The node accepts nothing usable (`false`, or only `null` for a property): remove it.
    pub absent: bool,
}

impl Out {
    pub(crate) fn plain(schema: Obj, optional: bool) -> Out {
        Out {
            schema,
            optional,
            absent: false,
        }
    }
    fn absent() -> Out {
        Out {
            schema: Obj::new(),
            optional: true,
            absent: true,
        }
    }
}

/// Annotations taken off a node: the base description and prose notes.
pub(crate) struct Annot {
    pub base: Option<String>,
    pub notes: Vec<String>,
}

pub(crate) fn obj1(key: &str, value: impl Into<Value>) -> Obj {
    let mut m = Obj::new();
    m.insert(key.into(), value.into());
    m
}

fn sorted_keys(map: &Obj) -> Vec<String> {
    let mut keys: Vec<String> = map.keys().cloned().collect();
    keys.sort();
    keys
}

impl<'a> Ctx<'a> {
    pub(crate) fn new(root: &'a Value) -> Self {
        Ctx {
            root,
            changes: Vec::new(),
            ref_stack: Vec::new(),
            budget: NODE_BUDGET,
        }
    }

    pub(crate) fn change(&mut self, path: &str, rule: Rule, message: impl Into<String>) {
        self.changes.push(Change {
            path: path.to_string(),
            rule,
            message: message.into(),
        });
    }

    /// Rewrite one raw schema value.
    pub(crate) fn node(&mut self, value: &Value, path: &str, pos: Pos<'_>) -> Out {
        // Only nodes that recurse are cut or counted: a leaf below the cap (such as a
        // stub from an earlier pass) is rewritten normally, which keeps cuts idempotent.
        if recurses(value) {
            if pos.hard > HARD_DEPTH {
                self.change(
                    path,
                    Rule::R13,
                    format!("nesting deeper than {HARD_DEPTH} levels cut"),
                );
                return Out::plain(depth_stub(), false);
            }
            if self.budget == 0 {
                self.change(
                    path,
                    Rule::R13,
                    "schema too large after inlining; the rest is cut",
                );
                return Out::plain(depth_stub(), false);
            }
            self.budget -= 1;
        }
        let mut chain = Vec::new();
        match self.flatten(value, path, pos.hard, &mut chain) {
            Flat::Never => {
                if pos.prop.is_some() {
                    self.change(path, Rule::R11, "property whose schema is `false` removed");
                    Out::absent()
                } else {
                    self.change(
                        path,
                        Rule::R11,
                        "boolean schema `false` replaced by a typed schema",
                    );
                    let mut s = obj1("type", "object");
                    s.insert("description".into(), "No value is accepted here.".into());
                    Out::plain(s, false)
                }
            }
            Flat::Stub(stub) => Out::plain(stub, false),
            Flat::Node(n) => self.with_refs(n, pos),
        }
    }

    /// Rewrite a flattened node with its expanded references on the recursion stack.
    pub(crate) fn with_refs(&mut self, node: FlatNode, pos: Pos<'_>) -> Out {
        let mark = self.ref_stack.len();
        self.ref_stack.extend(node.refs.iter().cloned());
        let out = self.flat_node(node, pos);
        self.ref_stack.truncate(mark);
        out
    }

    fn flat_node(&mut self, node: FlatNode, pos: Pos<'_>) -> Out {
        let FlatNode {
            mut map,
            path,
            notes,
            ..
        } = node;
        let mut optional = false;
        if let Some(nullable) = map.remove("nullable") {
            optional = nullable == Value::Bool(true);
            self.change(
                &path,
                Rule::R2,
                "removed OpenAPI `nullable` (null is never sent)",
            );
        }
        for key in ["anyOf", "oneOf"] {
            match map.remove(key) {
                Some(Value::Array(branches)) => {
                    return self.union(map, branches, key, path, notes, pos, optional);
                }
                Some(_) => self.change(
                    &path,
                    Rule::R3,
                    format!("dropped a `{key}` that is not an array"),
                ),
                None => {}
            }
        }
        self.single(map, path, notes, pos, optional)
    }

    /// A node without a union: `const`/`enum`, then its type(s).
    pub(crate) fn single(
        &mut self,
        mut map: Obj,
        path: String,
        notes: Vec<String>,
        pos: Pos<'_>,
        mut optional: bool,
    ) -> Out {
        let mut values: Option<Vec<Value>> = None;
        if let Some(c) = map.remove("const") {
            self.change(&path, Rule::R4, "const rewritten as a one-value enum");
            values = Some(vec![c]);
        }
        match map.remove("enum") {
            Some(Value::Array(e)) => {
                values = Some(match values {
                    Some(c) => c.into_iter().filter(|v| e.contains(v)).collect(),
                    None => e,
                });
            }
            Some(_) => self.change(&path, Rule::R4, "dropped an `enum` that is not an array"),
            None => {}
        }
        let mut types: Vec<&'static str> = Vec::new();
        let mut only_null = false;
        if let Some(declared) = self.take_type(&mut map, &path) {
            if declared.contains(&"null") {
                optional = true;
                if declared.len() > 1 {
                    self.change(
                        &path,
                        Rule::R2,
                        "removed null from a type array (the value is optional)",
                    );
                }
            }
            types = declared.into_iter().filter(|t| *t != "null").collect();
            only_null = types.is_empty();
        }
        if types.contains(&"number") {
            types.retain(|t| *t != "integer");
        }
        if let Some(values) = values {
            return self.enum_node(map, values, types, path, notes, pos, optional);
        }
        if only_null {
            return self.null_only(map, path, notes, pos);
        }
        self.by_types(map, types, path, notes, pos, optional)
    }

    fn take_type(&mut self, map: &mut Obj, path: &str) -> Option<Vec<&'static str>> {
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
            self.change(path, Rule::R11, "dropped an invalid `type` value");
        }
        if out.is_empty() { None } else { Some(out) }
    }

    fn by_types(
        &mut self,
        mut map: Obj,
        types: Vec<&'static str>,
        path: String,
        mut notes: Vec<String>,
        pos: Pos<'_>,
        mut optional: bool,
    ) -> Out {
        match types.as_slice() {
            [] => {
                let ty = match infer_type(&map) {
                    Some(t) => {
                        self.change(&path, Rule::R11, format!("missing type inferred as {t}"));
                        t
                    }
                    None => {
                        self.change(&path, Rule::R11, "typeless schema given type object");
                        notes.push("Arbitrary JSON object.".into());
                        "object"
                    }
                };
                self.emit(map, ty, None, path, notes, pos, optional)
            }
            [ty] => self.emit(map, ty, None, path, notes, pos, optional),
            many => {
                self.change(
                    &path,
                    Rule::R2,
                    format!("type array split into anyOf of {}", many.join(", ")),
                );
                let text = self.annotation_text(&mut map, &path, pos.prop, &notes);
                let mut outs = Vec::new();
                for ty in many {
                    let branch = Pos {
                        split: true,
                        ..pos.branch()
                    };
                    let out = self.emit(
                        map.clone(),
                        ty,
                        None,
                        path.clone(),
                        Vec::new(),
                        branch,
                        false,
                    );
                    optional |= out.optional;
                    outs.push(out.schema);
                }
                self.finish_alternatives(outs, text, &path, pos, optional)
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn enum_node(
        &mut self,
        map: Obj,
        values: Vec<Value>,
        types: Vec<&'static str>,
        path: String,
        mut notes: Vec<String>,
        pos: Pos<'_>,
        mut optional: bool,
    ) -> Out {
        let mut vals: Vec<Value> = Vec::new();
        for v in values {
            if !vals.contains(&v) {
                vals.push(v);
            }
        }
        let had_null = vals.iter().any(Value::is_null);
        if had_null {
            vals.retain(|v| !v.is_null());
            optional = true;
            self.change(
                &path,
                Rule::R2,
                "removed null from an enum (the value is optional)",
            );
        }
        if vals.is_empty() {
            if had_null {
                return self.null_only(map, path, notes, pos);
            }
            self.change(&path, Rule::R4, "dropped an empty enum");
            return self.by_types(map, types, path, notes, pos, optional);
        }
        if vals.iter().all(Value::is_boolean) && (types.is_empty() || types == ["boolean"]) {
            if let [only] = vals.as_slice() {
                notes.push(format!("Must be {only}."));
            }
            self.change(
                &path,
                Rule::R4,
                "enum on a boolean dropped (Gemini allows enums on strings only)",
            );
            return self.emit(map, "boolean", None, path, notes, pos, optional);
        }
        let mut strs: Vec<String> = Vec::new();
        for v in &vals {
            let s = describe::enum_string(v);
            if !strs.contains(&s) {
                strs.push(s);
            }
        }
        if strs.iter().any(String::is_empty) {
            strs.retain(|s| !s.is_empty());
            optional = true;
            self.change(
                &path,
                Rule::R4,
                "removed \"\" from an enum (the value is optional)",
            );
            let default_empty = match map.get("default") {
                None | Some(Value::Null) => true,
                Some(Value::String(s)) => s.is_empty(),
                Some(_) => false,
            };
            if strs.is_empty() {
                notes.push("Must be \"\" (empty); omit it.".into());
                return self.emit(map, "string", None, path, notes, pos, optional);
            }
            if default_empty {
                notes.push("Omit for \"\" (empty).".into());
            }
        }
        if strs.len() > MAX_ENUM {
            notes.push(format!("One of: {}.", describe::list_values(&strs, 1500)));
            self.change(
                &path,
                Rule::R13,
                format!("enum of {} values moved into the description", strs.len()),
            );
            let numeric_ok = types.iter().all(|t| *t == "integer" || *t == "number");
            let ty = if numeric_ok && vals.iter().all(|v| v.is_i64() || v.is_u64()) {
                "integer"
            } else if numeric_ok && vals.iter().all(Value::is_number) {
                "number"
            } else {
                "string"
            };
            return self.emit(map, ty, None, path, notes, pos, optional);
        }
        if vals.iter().any(|v| !v.is_string()) {
            self.change(
                &path,
                Rule::R4,
                "non-string enum values sent as strings (coerce_arguments turns them back)",
            );
        } else if !types.is_empty() && types != ["string"] {
            self.change(
                &path,
                Rule::R4,
                format!("{} enum given type string", types.join("/")),
            );
        }
        self.emit(map, "string", Some(strs), path, notes, pos, optional)
    }

    /// A node that accepts only `null`.
    pub(crate) fn null_only(
        &mut self,
        mut map: Obj,
        path: String,
        notes: Vec<String>,
        pos: Pos<'_>,
    ) -> Out {
        if pos.prop.is_some() {
            self.change(&path, Rule::R2, "property that only accepts null removed");
            return Out::absent();
        }
        self.change(&path, Rule::R2, "null-only schema given type object");
        let annot = self.annotations(&mut map, &path, pos.prop);
        let mut schema = obj1("type", "object");
        let parts = annot
            .base
            .iter()
            .chain(notes.iter())
            .chain(annot.notes.iter());
        let text = describe::join(parts.map(String::as_str).chain(["Always null."]));
        schema.insert("description".into(), text.into());
        Out::plain(schema, true)
    }

    /// Build the output node of one concrete type.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn emit(
        &mut self,
        mut map: Obj,
        ty: &'static str,
        values: Option<Vec<String>>,
        path: String,
        mut notes: Vec<String>,
        pos: Pos<'_>,
        optional: bool,
    ) -> Out {
        let mut out = obj1("type", ty);
        let has_enum = values.is_some();
        if let Some(values) = values {
            out.insert(
                "enum".into(),
                Value::Array(values.into_iter().map(Value::String).collect()),
            );
        }
        let unsigned = self.take_format(&mut map, &mut out, &mut notes, &path, ty, has_enum);
        match ty {
            "string" => self.string_keywords(&mut map, &mut out, &mut notes, &path),
            "integer" | "number" => {
                self.number_keywords(&mut map, &mut out, &mut notes, &path, ty, unsigned);
            }
            "array" => self.array_keywords(&mut map, &mut out, &mut notes, &path, pos),
            "object" => self.object_keywords(&mut map, &mut out, &mut notes, &path, pos),
            _ => {}
        }
        let annot = self.annotations(&mut map, &path, pos.prop);
        self.leftovers(&map, &path, ty, pos.split);
        let parts = annot
            .base
            .iter()
            .chain(notes.iter())
            .chain(annot.notes.iter());
        let text = describe::join(parts.map(String::as_str));
        if !text.is_empty() {
            out.insert("description".into(), text.into());
        }
        Out::plain(out, optional)
    }

    /// Take `description`, `title`, `default`, `examples`, `deprecated` off a node.
    pub(crate) fn annotations(&mut self, map: &mut Obj, path: &str, prop: Option<&str>) -> Annot {
        let mut base = match map.remove("description") {
            Some(Value::String(s)) => Some(s),
            Some(_) => {
                self.change(path, Rule::R9, "dropped a description that is not a string");
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
                self.change(path, Rule::R9, "title moved into the description");
                base = title.as_str().map(str::to_string);
            } else {
                self.change(path, Rule::R9, "dropped title");
            }
        }
        let mut notes = Vec::new();
        if let Some(default) = map.remove("default") {
            if default.is_null() {
                self.change(path, Rule::R9, "dropped default null");
            } else if base.as_deref().is_some_and(describe::states_default) {
                self.change(
                    path,
                    Rule::R9,
                    "dropped default (the description states it)",
                );
            } else {
                notes.push(format!("Default: {}.", describe::json_short(&default, 80)));
                self.change(path, Rule::R9, "default moved into the description");
            }
        }
        let examples = map.remove("examples");
        let example = map.remove("example");
        let first = match examples {
            Some(Value::Array(xs)) => xs.into_iter().next(),
            Some(_) => {
                self.change(path, Rule::R9, "dropped an `examples` that is not an array");
                None
            }
            None => None,
        }
        .or(example);
        if let Some(x) = first {
            notes.push(format!("Example: {}.", describe::json_short(&x, 80)));
            self.change(path, Rule::R9, "example moved into the description");
        }
        if let Some(deprecated) = map.remove("deprecated") {
            if deprecated == Value::Bool(true) {
                notes.push("Deprecated.".into());
            }
            self.change(path, Rule::R9, "dropped deprecated");
        }
        Annot { base, notes }
    }

    /// The annotations of a union node as one text, pushed into every branch.
    pub(crate) fn annotation_text(
        &mut self,
        map: &mut Obj,
        path: &str,
        prop: Option<&str>,
        notes: &[String],
    ) -> Option<String> {
        let annot = self.annotations(map, path, prop);
        let parts = annot
            .base
            .iter()
            .chain(notes.iter())
            .chain(annot.notes.iter());
        let text = describe::join(parts.map(String::as_str));
        if text.is_empty() { None } else { Some(text) }
    }

    fn leftovers(&mut self, map: &Obj, path: &str, ty: &str, split: bool) {
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
            self.change(path, rule, message);
        }
    }

    /// Keep `format` when the contract allows it for `ty`; otherwise move it into the
    /// description (numeric formats such as `uint32` are dropped silently). Returns
    /// whether the format was unsigned.
    fn take_format(
        &mut self,
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
                self.change(path, Rule::R8, "dropped a format that is not a string");
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
            self.change(path, Rule::R8, format!("dropped format {format}"));
        } else {
            notes.push(format!("Format: {format}."));
            self.change(
                path,
                Rule::R8,
                format!("format {format} moved into the description"),
            );
        }
        format.starts_with("uint")
    }

    fn take_count(&mut self, map: &mut Obj, key: &str, path: &str) -> Option<u64> {
        let v = map.remove(key)?;
        let n = v.as_u64().or_else(|| {
            v.as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 9.0e15)
                .map(|f| f as u64)
        });
        if n.is_none() {
            self.change(path, Rule::R9, format!("dropped an invalid `{key}`"));
        }
        n
    }

    fn take_number(&mut self, map: &mut Obj, key: &str, path: &str) -> Option<Number> {
        match map.remove(key)? {
            Value::Number(n) => Some(n),
            _ => {
                self.change(path, Rule::R9, format!("dropped an invalid `{key}`"));
                None
            }
        }
    }

    fn string_keywords(
        &mut self,
        map: &mut Obj,
        out: &mut Obj,
        notes: &mut Vec<String>,
        path: &str,
    ) {
        for key in ["minLength", "maxLength"] {
            if let Some(n) = self.take_count(map, key, path) {
                out.insert(key.into(), n.into());
            }
        }
        match map.remove("pattern") {
            Some(Value::String(p)) => {
                out.insert("pattern".into(), p.into());
            }
            Some(_) => self.change(path, Rule::R9, "dropped a pattern that is not a string"),
            None => {}
        }
        if let Some(encoding) = map.remove("contentEncoding") {
            if let Some(e) = encoding.as_str() {
                notes.push(format!("Encoding: {e}."));
            }
            self.change(path, Rule::R9, "contentEncoding moved into the description");
        }
        if let Some(media) = map.remove("contentMediaType") {
            if let Some(m) = media.as_str() {
                notes.push(format!("Media type: {m}."));
            }
            self.change(
                path,
                Rule::R9,
                "contentMediaType moved into the description",
            );
        }
    }

    fn number_keywords(
        &mut self,
        map: &mut Obj,
        out: &mut Obj,
        notes: &mut Vec<String>,
        path: &str,
        ty: &str,
        unsigned: bool,
    ) {
        let integer = ty == "integer";
        let mut min = self.take_number(map, "minimum", path);
        let mut max = self.take_number(map, "maximum", path);
        if min.as_ref().and_then(Number::as_f64) == Some(-SAFE_INT) {
            min = None;
            self.change(path, Rule::R9, "dropped the safe-integer lower bound");
        }
        if max.as_ref().and_then(Number::as_f64) == Some(SAFE_INT) {
            max = None;
            self.change(path, Rule::R9, "dropped the safe-integer upper bound");
        }
        let num = |n: &Option<Number>| n.as_ref().and_then(Number::as_f64);
        // Exclusive bounds: integers get the next inclusive bound, numbers keep an
        // inclusive bound plus a sentence.
        match map.remove("exclusiveMinimum") {
            Some(Value::Number(x)) => {
                let xf = x.as_f64().unwrap_or(0.0);
                if integer {
                    let bound = next_integer(&x, xf, 1);
                    if num(&min).is_none_or(|m| bound.as_f64().is_some_and(|b| b > m)) {
                        min = Some(bound);
                    }
                } else if num(&min).is_none_or(|m| xf >= m) {
                    notes.push(format!("Must be greater than {x}."));
                    min = Some(x);
                }
                self.change(path, Rule::R9, "exclusiveMinimum rewritten as minimum");
            }
            Some(Value::Bool(true)) => {
                if let Some(m) = min.clone() {
                    let mf = m.as_f64().unwrap_or(0.0);
                    if integer {
                        min = Some(next_integer(&m, mf, 1));
                    } else {
                        notes.push(format!("Must be greater than {m}."));
                    }
                }
                self.change(path, Rule::R9, "exclusiveMinimum rewritten as minimum");
            }
            Some(_) => self.change(path, Rule::R9, "dropped exclusiveMinimum"),
            None => {}
        }
        match map.remove("exclusiveMaximum") {
            Some(Value::Number(x)) => {
                let xf = x.as_f64().unwrap_or(0.0);
                if integer {
                    let bound = next_integer(&x, xf, -1);
                    if num(&max).is_none_or(|m| bound.as_f64().is_some_and(|b| b < m)) {
                        max = Some(bound);
                    }
                } else if num(&max).is_none_or(|m| xf <= m) {
                    notes.push(format!("Must be less than {x}."));
                    max = Some(x);
                }
                self.change(path, Rule::R9, "exclusiveMaximum rewritten as maximum");
            }
            Some(Value::Bool(true)) => {
                if let Some(m) = max.clone() {
                    let mf = m.as_f64().unwrap_or(0.0);
                    if integer {
                        max = Some(next_integer(&m, mf, -1));
                    } else {
                        notes.push(format!("Must be less than {m}."));
                    }
                }
                self.change(path, Rule::R9, "exclusiveMaximum rewritten as maximum");
            }
            Some(_) => self.change(path, Rule::R9, "dropped exclusiveMaximum"),
            None => {}
        }
        if unsigned && min.is_none() {
            min = Some(Number::from(0));
            self.change(path, Rule::R8, "unsigned format kept as minimum 0");
        }
        if let Some(k) = map.remove("multipleOf") {
            if let Value::Number(k) = k {
                notes.push(format!("Multiple of {k}."));
            }
            self.change(path, Rule::R9, "multipleOf moved into the description");
        }
        if let Some(m) = min {
            out.insert("minimum".into(), Value::Number(m));
        }
        if let Some(m) = max {
            out.insert("maximum".into(), Value::Number(m));
        }
    }

    fn array_keywords(
        &mut self,
        map: &mut Obj,
        out: &mut Obj,
        notes: &mut Vec<String>,
        path: &str,
        pos: Pos<'_>,
    ) {
        let child = pos.item();
        let prefix = map.remove("prefixItems");
        let items = map.remove("items");
        let additional = map.remove("additionalItems");
        let mut min_items = self.take_count(map, "minItems", path);
        let mut max_items = self.take_count(map, "maxItems", path);
        // (positions, their keyword, the schema for further items, its keyword)
        let (positions, pos_key, extra, extra_key) = match (prefix, items) {
            (Some(Value::Array(p)), items) => {
                if additional.is_some() {
                    self.change(path, Rule::R5, "dropped `additionalItems`");
                }
                (Some(p), "prefixItems", items, "items")
            }
            (prefix, Some(Value::Array(p))) => {
                if prefix.is_some() {
                    self.change(
                        path,
                        Rule::R5,
                        "dropped a `prefixItems` that is not an array",
                    );
                }
                (Some(p), "items", additional, "additionalItems")
            }
            (prefix, items) => {
                if prefix.is_some() {
                    self.change(
                        path,
                        Rule::R5,
                        "dropped a `prefixItems` that is not an array",
                    );
                }
                if additional.is_some() {
                    self.change(path, Rule::R5, "dropped `additionalItems`");
                }
                (None, "", items, "items")
            }
        };
        let items_schema = if let Some(positions) = positions {
            self.change(
                path,
                Rule::R5,
                "tuple rewritten as one items schema; positions described",
            );
            let mut alternatives = Vec::new();
            let mut labels = Vec::new();
            let mut closed_at = None;
            for (i, p) in positions.iter().enumerate() {
                let o = self.node(p, &pointer::child2(path, pos_key, i), child);
                if o.absent {
                    closed_at = Some(i);
                    break;
                }
                labels.push(describe::position_label(p));
                alternatives.push(o.schema);
            }
            match extra {
                Some(Value::Bool(false)) => {
                    closed_at.get_or_insert(positions.len());
                }
                Some(e) if closed_at.is_none() => {
                    let o = self.node(&e, &pointer::child(path, extra_key), child);
                    if o.absent {
                        closed_at = Some(positions.len());
                    } else {
                        alternatives.push(o.schema);
                    }
                }
                _ => {}
            }
            if let Some(c) = closed_at {
                let c = c as u64;
                max_items = Some(max_items.map_or(c, |m| m.min(c)));
                min_items = min_items.map(|m| m.min(c));
            }
            if !labels.is_empty() {
                notes.push(format!("Tuple: [{}].", labels.join(", ")));
            }
            self.one_schema(alternatives)
        } else {
            match extra {
                Some(e) => {
                    let o = self.node(&e, &pointer::child(path, "items"), child);
                    if o.absent {
                        max_items = Some(0);
                        min_items = min_items.map(|_| 0);
                        None
                    } else {
                        Some(o.schema)
                    }
                }
                None => {
                    self.change(
                        path,
                        Rule::R5,
                        "array without items given items of type string",
                    );
                    None
                }
            }
        };
        let items_schema = items_schema.unwrap_or_else(|| obj1("type", "string"));
        out.insert("items".into(), Value::Object(items_schema));
        if let Some(n) = min_items {
            out.insert("minItems".into(), n.into());
        }
        if let Some(n) = max_items {
            out.insert("maxItems".into(), n.into());
        }
        if let Some(unique) = map.remove("uniqueItems") {
            if unique == Value::Bool(true) {
                notes.push("Unique values.".into());
            }
            self.change(path, Rule::R9, "uniqueItems moved into the description");
        }
    }

    /// Several alternative schemas as one: the schema itself, or an `anyOf`.
    fn one_schema(&mut self, alternatives: Vec<Obj>) -> Option<Obj> {
        let mut list = crate::unions::group_enums(crate::unions::splice_dedupe(alternatives));
        match list.len() {
            0 => None,
            1 => list.pop(),
            _ => Some(obj1(
                "anyOf",
                Value::Array(list.into_iter().map(Value::Object).collect()),
            )),
        }
    }

    fn object_keywords(
        &mut self,
        map: &mut Obj,
        out: &mut Obj,
        notes: &mut Vec<String>,
        path: &str,
        pos: Pos<'_>,
    ) {
        let mut kept = Obj::new();
        let mut optional_names: BTreeSet<String> = BTreeSet::new();
        let mut cut = false;
        match map.remove("properties") {
            Some(Value::Object(props)) if !props.is_empty() => {
                if pos.objs >= MAX_OBJECT_DEPTH {
                    cut = true;
                    notes.push("Nested deeper; shape omitted.".into());
                    self.change(
                        path,
                        Rule::R13,
                        format!("object nested deeper than {MAX_OBJECT_DEPTH} levels: properties omitted"),
                    );
                } else {
                    let props_path = pointer::child(path, "properties");
                    for name in sorted_keys(&props) {
                        let Some(schema) = props.get(&name) else {
                            continue;
                        };
                        let child = Pos {
                            hard: pos.hard + 1,
                            objs: pos.objs + 1,
                            prop: Some(name.as_str()),
                            root: false,
                            split: false,
                        };
                        let o = self.node(schema, &pointer::child(&props_path, &name), child);
                        if o.absent {
                            continue;
                        }
                        if o.optional {
                            optional_names.insert(name.clone());
                        }
                        kept.insert(name, Value::Object(o.schema));
                    }
                }
            }
            Some(Value::Object(_)) => self.change(path, Rule::R10, "removed empty `properties`"),
            Some(_) => self.change(
                path,
                Rule::R6,
                "dropped a `properties` that is not an object",
            ),
            None => {}
        }
        match map.remove("required") {
            Some(Value::Array(names)) if !cut => {
                let mut required: Vec<Value> = Vec::new();
                for n in names {
                    let Value::String(name) = n else {
                        self.change(
                            path,
                            Rule::R6,
                            "dropped a required entry that is not a string",
                        );
                        continue;
                    };
                    if !kept.contains_key(&name) {
                        self.change(
                            path,
                            Rule::R6,
                            format!("required names missing property `{name}`; removed"),
                        );
                    } else if optional_names.contains(&name) {
                        self.change(
                            path,
                            Rule::R2,
                            format!("`{name}` may be omitted; removed from required"),
                        );
                    } else if required.iter().any(|r| r.as_str() == Some(name.as_str())) {
                        self.change(
                            path,
                            Rule::R6,
                            format!("duplicate required entry `{name}` removed"),
                        );
                    } else {
                        required.push(Value::String(name));
                    }
                }
                if !required.is_empty() {
                    out.insert("required".into(), Value::Array(required));
                }
            }
            Some(Value::Array(_)) => {}
            Some(_) => self.change(path, Rule::R6, "dropped a `required` that is not an array"),
            None => {}
        }
        let is_map = kept.is_empty() && !cut;
        if !kept.is_empty() {
            out.insert("properties".into(), Value::Object(kept));
        }
        if let Some(extra) = map.remove("additionalProperties") {
            if extra.is_object() {
                let phrase = describe::type_phrase(&extra, 0);
                let has_patterns =
                    matches!(map.get("patternProperties"), Some(Value::Object(p)) if !p.is_empty());
                if is_map && !has_patterns {
                    notes.push(format!("Map of name → {phrase} value."));
                } else {
                    notes.push(format!("Other keys: {phrase} values."));
                }
                self.change(
                    path,
                    Rule::R7,
                    "additionalProperties moved into the description",
                );
            } else {
                self.change(path, Rule::R7, "dropped additionalProperties");
            }
        }
        if let Some(patterns) = map.remove("patternProperties") {
            if let Value::Object(patterns) = &patterns {
                for re in sorted_keys(patterns) {
                    if let Some(s) = patterns.get(&re) {
                        let phrase = describe::type_phrase(s, 0);
                        notes.push(format!("Keys matching {re}: {phrase} values."));
                    }
                }
            }
            self.change(
                path,
                Rule::R7,
                "patternProperties moved into the description",
            );
        }
        if let Some(names) = map.remove("propertyNames") {
            if let Some(p) = names.get("pattern").and_then(Value::as_str) {
                notes.push(format!("Keys match {p}."));
            } else if let Some(Value::Array(e)) = names.get("enum") {
                let keys: Vec<String> = e.iter().map(describe::enum_string).collect();
                notes.push(format!("Keys: {}.", describe::list_values(&keys, 300)));
            }
            self.change(path, Rule::R7, "dropped propertyNames");
        }
        for key in ["minProperties", "maxProperties"] {
            if let Some(n) = self.take_count(map, key, path) {
                out.insert(key.into(), n.into());
            }
        }
    }
}

/// Whether rewriting `value` recurses into subschemas.
pub(crate) fn recurses(value: &Value) -> bool {
    const KEYS: [&str; 8] = [
        "$ref",
        "allOf",
        "anyOf",
        "oneOf",
        "items",
        "prefixItems",
        "additionalItems",
        "properties",
    ];
    value
        .as_object()
        .is_some_and(|m| KEYS.iter().any(|k| m.contains_key(*k)))
}

/// A one-step integer bound from an exclusive bound (`> x` → `≥ floor(x)+1`, `< x` → `≤ ceil(x)-1`).
fn next_integer(original: &Number, x: f64, step: i64) -> Number {
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

fn infer_type(map: &Obj) -> Option<&'static str> {
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
fn is_numeric_format(f: &str) -> bool {
    let rest = f.strip_prefix('u').unwrap_or(f);
    if let Some(bits) = rest.strip_prefix("int") {
        return bits.chars().all(|c| c.is_ascii_digit());
    }
    matches!(f, "float" | "double" | "enum" | "number" | "integer")
}

fn keyword_owner(key: &str) -> Option<&'static str> {
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

fn drop_rule(key: &str) -> Rule {
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
