//! The walk: one raw schema value in, one Gemini-safe schema node out.
//!
//! Every output node is built from an allow-list of keywords per type, so anything the
//! contract forbids is dropped by construction (and reported as a [`crate::Change`]); what
//! the model should still know is moved into the `description`. Property maps are
//! walked as maps of *names*, so a property called `title`, `$ref` or `items` is
//! never mistaken for a keyword.
//!
//! Only this module recurses: it flattens a node with [`crate::refs`], rewrites its
//! keywords with [`crate::keywords`], and combines union branches with
//! [`crate::unions`]; all of them share the state in [`crate::ctx`].

use crate::canon;
use crate::ctx::{
    self, Ctx, HARD_DEPTH, MAX_DEPTH, MAX_ENUM, NODE_BUDGET, Node, Obj, Out, Pos, depth_stub, obj1,
    recurses,
};
use crate::describe;
use crate::keywords::{self, sorted_keys};
use crate::merge;
use crate::pointer;
use crate::refs::{self, Flat, FlatNode};
use crate::types::Rule;
use crate::unions;
use serde_json::Value;
use std::collections::{BTreeSet, HashSet};

/// Longest rendering of a map's value shape or description, in characters.
const MAX_VALUE_SHAPE: usize = 300;
/// Longest rendering of a shape cut by the depth budget, in characters: room for the names
/// and types of several hundred properties (see `describe::shape_fitted` for what gives way
/// first when they do not fit).
pub(crate) const MAX_CUT_SHAPE: usize = 16_000;

/// A union branch: flattened and still to be rewritten, or already a finished stub.
enum Alt {
    Node(FlatNode),
    Done(Obj),
}

impl Ctx<'_> {
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
                let cut = self.budget_cut(
                    value,
                    path,
                    &format!("more than {NODE_BUDGET} schema nodes after inlining"),
                );
                return Out::plain(cut, false);
            }
            self.budget -= 1;
        }
        let mut chain = Vec::new();
        match refs::flatten(self, value, path, pos.hard, &mut chain) {
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
    fn with_refs(&mut self, node: FlatNode, pos: Pos<'_>) -> Out {
        let mark = self.ref_stack.len();
        self.ref_stack.extend(node.refs.iter().cloned());
        let out = self.flat_node(node, pos);
        self.ref_stack.truncate(mark);
        out
    }

    fn flat_node(&mut self, flat: FlatNode, pos: Pos<'_>) -> Out {
        let FlatNode {
            map, path, notes, ..
        } = flat;
        let mut node = Node {
            map,
            path,
            notes,
            pos,
            optional: false,
        };
        if let Some(nullable) = node.map.remove("nullable") {
            node.optional = nullable == Value::Bool(true);
            self.change(
                &node.path,
                Rule::R2,
                "removed OpenAPI `nullable` (null is never sent)",
            );
        }
        for key in ["anyOf", "oneOf"] {
            match node.map.remove(key) {
                Some(Value::Array(branches)) => {
                    return self.union(node, branches, key);
                }
                Some(_) => self.change(
                    &node.path,
                    Rule::R3,
                    format!("dropped a `{key}` that is not an array"),
                ),
                None => {}
            }
        }
        self.single(node)
    }

    /// A node without a union: `const`/`enum`, then its type(s).
    fn single(&mut self, mut node: Node<'_>) -> Out {
        let mut values: Option<Vec<Value>> = None;
        if let Some(c) = node.map.remove("const") {
            self.change(&node.path, Rule::R4, "const rewritten as a one-value enum");
            values = Some(vec![c]);
        }
        match node.map.remove("enum") {
            Some(Value::Array(e)) => {
                values = Some(match values {
                    Some(c) => c.into_iter().filter(|v| e.contains(v)).collect(),
                    None => e,
                });
            }
            Some(_) => self.change(
                &node.path,
                Rule::R4,
                "dropped an `enum` that is not an array",
            ),
            None => {}
        }
        let mut types: Vec<&'static str> = Vec::new();
        let mut only_null = false;
        if let Some(declared) = keywords::take_type(self, &mut node.map, &node.path) {
            if declared.contains(&"null") {
                node.optional = true;
                if declared.len() > 1 {
                    self.change(
                        &node.path,
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
            return self.enum_node(node, values, types);
        }
        if only_null {
            return self.null_only(node);
        }
        self.by_types(node, types)
    }

    fn by_types(&mut self, mut node: Node<'_>, types: Vec<&'static str>) -> Out {
        match types.as_slice() {
            [] => {
                let ty = match keywords::infer_type(&node.map) {
                    Some(t) => {
                        self.change(
                            &node.path,
                            Rule::R11,
                            format!("missing type inferred as {t}"),
                        );
                        t
                    }
                    None => {
                        self.change(&node.path, Rule::R11, "typeless schema given type object");
                        node.notes.push("Arbitrary JSON object.".into());
                        "object"
                    }
                };
                self.emit(node, ty, None)
            }
            [ty] => self.emit(node, ty, None),
            many => {
                self.change(
                    &node.path,
                    Rule::R2,
                    format!("type array split into anyOf of {}", many.join(", ")),
                );
                let text = keywords::annotation_text(
                    self,
                    &mut node.map,
                    &node.path,
                    node.pos.prop,
                    &node.notes,
                );
                let mut optional = node.optional;
                let mut outs = Vec::new();
                for ty in many {
                    if !self.spend_copy_map(&node.map) {
                        let raw = Value::Object(node.map.clone());
                        outs.push(self.budget_cut(&raw, &node.path, &refs::work_spent()));
                        break;
                    }
                    let branch = Node {
                        map: node.map.clone(),
                        path: node.path.clone(),
                        notes: Vec::new(),
                        pos: Pos {
                            split: true,
                            ..node.pos.branch()
                        },
                        optional: false,
                    };
                    let out = self.emit(branch, ty, None);
                    optional |= out.optional;
                    outs.push(out.schema);
                }
                self.finish_alternatives(outs, text, &node.path, node.pos, optional)
            }
        }
    }

    fn enum_node(
        &mut self,
        mut node: Node<'_>,
        values: Vec<Value>,
        types: Vec<&'static str>,
    ) -> Out {
        // Linear: a hash set of canonical forms, not `Vec::contains` (100 000 members).
        self.spend(values.len());
        let mut seen: HashSet<String> = HashSet::with_capacity(values.len());
        let mut vals: Vec<Value> = Vec::with_capacity(values.len());
        for v in values {
            if seen.insert(canon::key(&v)) {
                vals.push(v);
            }
        }
        let had_null = vals.iter().any(Value::is_null);
        if had_null {
            vals.retain(|v| !v.is_null());
            node.optional = true;
            self.change(
                &node.path,
                Rule::R2,
                "removed null from an enum (the value is optional)",
            );
        }
        if vals.is_empty() {
            if had_null {
                return self.null_only(node);
            }
            self.change(&node.path, Rule::R4, "dropped an empty enum");
            return self.by_types(node, types);
        }
        if vals.iter().all(Value::is_boolean) && (types.is_empty() || types == ["boolean"]) {
            if let [only] = vals.as_slice() {
                node.notes.push(format!("Must be {only}."));
            }
            self.change(
                &node.path,
                Rule::R4,
                "enum on a boolean dropped (Gemini allows enums on strings only)",
            );
            return self.emit(node, "boolean", None);
        }
        let mut sent: HashSet<String> = HashSet::with_capacity(vals.len());
        let mut strs: Vec<String> = Vec::with_capacity(vals.len());
        for v in &vals {
            let s = describe::enum_string(v);
            if sent.insert(s.clone()) {
                strs.push(s);
            }
        }
        if strs.iter().any(String::is_empty) {
            // Gemini rejects "" as an enum member; a distinct stand-in keeps the choice
            // (leaving the field out may mean something else, such as its default).
            let stand_in = describe::empty_stand_in(strs.iter().map(String::as_str));
            for s in strs.iter_mut().filter(|s| s.is_empty()) {
                *s = stand_in.clone();
            }
            if node.map.get("default").and_then(Value::as_str) == Some("") {
                node.map.insert("default".into(), stand_in.clone().into());
            }
            node.notes.push(format!(
                "\"{stand_in}\" stands for \"\" (the empty string)."
            ));
            self.change(
                &node.path,
                Rule::R4,
                format!("\"\" in an enum sent as \"{stand_in}\" (coerce_arguments turns it back)"),
            );
        }
        if strs.len() > MAX_ENUM {
            node.notes
                .push(format!("One of: {}.", describe::list_values(&strs, 1500)));
            self.change(
                &node.path,
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
            return self.emit(node, ty, None);
        }
        if vals.iter().any(|v| !v.is_string()) {
            self.change(
                &node.path,
                Rule::R4,
                "non-string enum values sent as strings (coerce_arguments turns them back)",
            );
        } else if !types.is_empty() && types != ["string"] {
            self.change(
                &node.path,
                Rule::R4,
                format!("{} enum given type string", types.join("/")),
            );
        }
        self.emit(node, "string", Some(strs))
    }

    /// A node that accepts only `null`.
    fn null_only(&mut self, mut node: Node<'_>) -> Out {
        if node.pos.prop.is_some() {
            self.change(
                &node.path,
                Rule::R2,
                "property that only accepts null removed",
            );
            return Out::absent();
        }
        self.change(&node.path, Rule::R2, "null-only schema given type object");
        let annot = keywords::annotations(self, &mut node.map, &node.path, node.pos.prop);
        let mut schema = obj1("type", "object");
        let parts = annot
            .base
            .iter()
            .chain(node.notes.iter())
            .chain(annot.notes.iter());
        let text = describe::join(parts.map(String::as_str).chain(["Always null."]));
        schema.insert("description".into(), text.into());
        Out::plain(schema, true)
    }

    /// Build the output node of one concrete type.
    fn emit(&mut self, node: Node<'_>, ty: &'static str, values: Option<Vec<String>>) -> Out {
        let Node {
            mut map,
            path,
            mut notes,
            pos,
            optional,
        } = node;
        let mut out = obj1("type", ty);
        let has_enum = values.is_some();
        if let Some(values) = values {
            out.insert(
                "enum".into(),
                Value::Array(values.into_iter().map(Value::String).collect()),
            );
        }
        let unsigned =
            keywords::take_format(self, &mut map, &mut out, &mut notes, &path, ty, has_enum);
        match ty {
            "string" => keywords::string_keywords(self, &mut map, &mut out, &mut notes, &path),
            "integer" | "number" => {
                keywords::number_keywords(
                    self, &mut map, &mut out, &mut notes, &path, ty, unsigned,
                );
            }
            "array" => self.array_keywords(&mut map, &mut out, &mut notes, &path, pos),
            "object" => self.object_keywords(&mut map, &mut out, &mut notes, &path, pos),
            _ => {}
        }
        let text = keywords::annotation_text(self, &mut map, &path, pos.prop, &notes);
        keywords::leftovers(self, &map, &path, ty, pos.split);
        if let Some(text) = text {
            out.insert("description".into(), text.into());
        }
        Out::plain(out, optional)
    }

    /// `anyOf`/`oneOf` (R2, R3, R10): `null` branches make the value optional; one
    /// remaining branch is merged with the node's other keywords (they win, as for
    /// `$ref` siblings); several become an `anyOf` that stands alone, with the other
    /// keywords merged into every branch and the description pushed into each.
    fn union(&mut self, mut node: Node<'_>, branches: Vec<Value>, key: &str) -> Out {
        if node.pos.hard > HARD_DEPTH {
            self.change(
                &node.path,
                Rule::R13,
                format!("nesting deeper than {HARD_DEPTH} levels cut"),
            );
            return Out::plain(depth_stub(), node.optional);
        }
        if key == "oneOf" {
            self.change(&node.path, Rule::R3, "oneOf rewritten as anyOf");
        }
        let mut alts: Vec<Alt> = Vec::new();
        for (i, branch) in branches.iter().enumerate() {
            let branch_path = pointer::child2(&node.path, key, i);
            let mut chain = Vec::new();
            match refs::flatten(self, branch, &branch_path, node.pos.hard + 1, &mut chain) {
                Flat::Never => self.change(
                    &branch_path,
                    Rule::R3,
                    "dropped a branch that accepts nothing",
                ),
                Flat::Stub(stub) => alts.push(Alt::Done(stub)),
                Flat::Node(flat) => {
                    if unions::is_null_only(&flat.map) {
                        node.optional = true;
                        self.change(
                            &branch_path,
                            Rule::R2,
                            "dropped the null branch (the value is optional)",
                        );
                    } else {
                        alts.push(Alt::Node(flat));
                    }
                }
            }
        }
        if alts.len() <= 1 {
            if branches.len() == 1 {
                self.change(
                    &node.path,
                    Rule::R3,
                    format!("unwrapped a one-branch {key}"),
                );
            }
            return match alts.pop() {
                None if node.optional => self.null_only(node),
                None => {
                    self.change(
                        &node.path,
                        Rule::R3,
                        format!("{key} without a usable branch dropped"),
                    );
                    self.single(node)
                }
                Some(Alt::Done(stub)) => Out::plain(stub, node.optional),
                Some(Alt::Node(flat)) => {
                    if !(self.spend_copy_map(&node.map) && self.spend_copy_map(&flat.map)) {
                        let raw = Value::Object(flat.map);
                        let cut = self.budget_cut(&raw, &flat.path, &refs::work_spent());
                        return Out::plain(cut, node.optional);
                    }
                    let (map, _) = merge::conj(&node.map, &flat.map);
                    let mut notes = node.notes;
                    notes.extend(flat.notes);
                    let merged = FlatNode {
                        map,
                        path: flat.path,
                        refs: flat.refs,
                        notes,
                    };
                    let mut out = self.with_refs(merged, node.pos.same());
                    out.optional |= node.optional;
                    out
                }
            };
        }
        let text =
            keywords::annotation_text(self, &mut node.map, &node.path, node.pos.prop, &node.notes);
        if !node.map.is_empty() {
            self.change(
                &node.path,
                Rule::R3,
                "sibling keywords merged into the anyOf branches",
            );
        }
        let mut optional = node.optional;
        let mut outs = Vec::new();
        for alt in alts {
            match alt {
                Alt::Done(stub) => outs.push(stub),
                Alt::Node(flat) => {
                    if !(self.spend_copy_map(&node.map) && self.spend_copy_map(&flat.map)) {
                        let raw = Value::Object(flat.map);
                        outs.push(self.budget_cut(&raw, &flat.path, &refs::work_spent()));
                        continue;
                    }
                    let (map, ok) = merge::conj(&node.map, &flat.map);
                    if !ok {
                        self.change(
                            &flat.path,
                            Rule::R3,
                            "dropped a branch that contradicts its siblings",
                        );
                        continue;
                    }
                    let merged = FlatNode {
                        map,
                        path: flat.path,
                        refs: flat.refs,
                        notes: flat.notes,
                    };
                    let out = self.with_refs(merged, node.pos.branch());
                    if out.absent {
                        continue;
                    }
                    optional |= out.optional;
                    outs.push(out.schema);
                }
            }
        }
        self.finish_alternatives(outs, text, &node.path, node.pos, optional)
    }

    /// Turn rewritten alternatives into one output node; `text` is the union node's own
    /// description, pushed into every branch.
    fn finish_alternatives(
        &mut self,
        outs: Vec<Obj>,
        text: Option<String>,
        path: &str,
        pos: Pos<'_>,
        optional: bool,
    ) -> Out {
        let list = unions::group_enums(unions::splice_dedupe(outs));
        if pos.root && list.len() > 1 {
            return unions::collapse_root(self, list, text, path);
        }
        let mut list: Vec<Obj> = list
            .into_iter()
            .map(|mut branch| {
                if let Some(t) = &text {
                    let own = branch
                        .get("description")
                        .and_then(Value::as_str)
                        .unwrap_or("");
                    let joined = describe::join([t.as_str(), own]);
                    branch.insert("description".into(), joined.into());
                }
                branch
            })
            .collect();
        match list.len() {
            0 => {
                let mut schema = obj1("type", "object");
                let t = describe::join([text.as_deref().unwrap_or(""), "Arbitrary JSON object."]);
                schema.insert("description".into(), t.into());
                Out::plain(schema, optional)
            }
            1 => Out::plain(list.pop().unwrap_or_default(), optional),
            _ => {
                let any = Value::Array(list.into_iter().map(Value::Object).collect());
                Out::plain(obj1("anyOf", any), optional)
            }
        }
    }

    /// R13 on the finished output: a node [`MAX_DEPTH`] steps below the root may not have
    /// subschemas. An object there keeps its type and gets its shape as prose; an array or
    /// a union (whose `items`/branches would be one step too deep) is served as a string
    /// holding JSON, which [`crate::coerce_arguments`] parses back. Paths are output paths.
    pub(crate) fn limit_depth(&mut self, node: &mut Obj, path: &str, level: usize) {
        if level >= MAX_DEPTH {
            if !ctx::children(node).is_empty() {
                self.change(
                    path,
                    Rule::R13,
                    format!(
                        "nested deeper than {MAX_DEPTH} levels: shape moved into the description"
                    ),
                );
                *node = depth_cut(node);
            }
            return;
        }
        if let Some(Value::Object(props)) = node.get_mut("properties") {
            let base = pointer::child(path, "properties");
            for (name, child) in props.iter_mut() {
                if let Value::Object(child) = child {
                    self.limit_depth(child, &pointer::child(&base, name), level + 1);
                }
            }
        }
        if let Some(Value::Object(items)) = node.get_mut("items") {
            self.limit_depth(items, &pointer::child(path, "items"), level + 1);
        }
        if let Some(Value::Array(branches)) = node.get_mut("anyOf") {
            let mut cut = Vec::new();
            for (i, b) in std::mem::take(branches).into_iter().enumerate() {
                if let Value::Object(mut b) = b {
                    self.limit_depth(&mut b, &pointer::child2(path, "anyOf", i), level + 1);
                    cut.push(b);
                }
            }
            // Branches that differed only below the cut are now the same (idempotence).
            let mut list = unions::splice_dedupe(cut);
            if list.len() == 1
                && let Some(only) = list.pop()
            {
                *node = only;
            } else {
                *branches = list.into_iter().map(Value::Object).collect();
            }
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
        let mut min_items = keywords::take_count(self, map, "minItems", path);
        let mut max_items = keywords::take_count(self, map, "maxItems", path);
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
            unions::one_schema(alternatives)
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

    /// What a map's value schema (R7) becomes in prose: its compact shape, and its own
    /// description as a sentence ("Values: …").
    fn value_shape(&self, schema: &Value) -> (String, Option<String>) {
        let shape = describe::shape(schema, self.root, MAX_VALUE_SHAPE);
        // The value's own words, or those of the definition it refers to.
        let target = schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(pointer::local_pointer)
            .and_then(|p| pointer::resolve(self.root, &p));
        let doc = schema
            .get("description")
            .or_else(|| target.and_then(|t| t.get("description")))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(|d| describe::sentence(format!("Values: {}", describe::cut(d, MAX_VALUE_SHAPE))));
        (shape, doc)
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
        match map.remove("properties") {
            Some(Value::Object(props)) if !props.is_empty() => {
                let props_path = pointer::child(path, "properties");
                for name in sorted_keys(&props) {
                    let Some(schema) = props.get(&name) else {
                        continue;
                    };
                    let child = pos.property(&name);
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
            Some(Value::Object(_)) => self.change(path, Rule::R10, "removed empty `properties`"),
            Some(_) => self.change(
                path,
                Rule::R6,
                "dropped a `properties` that is not an object",
            ),
            None => {}
        }
        match map.remove("required") {
            Some(Value::Array(names)) => {
                let mut required: Vec<Value> = Vec::new();
                let mut listed: HashSet<String> = HashSet::new();
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
                    } else if !listed.insert(name.clone()) {
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
            Some(_) => self.change(path, Rule::R6, "dropped a `required` that is not an array"),
            None => {}
        }
        let is_map = kept.is_empty();
        if !kept.is_empty() {
            out.insert("properties".into(), Value::Object(kept));
        }
        if let Some(extra) = map.remove("additionalProperties") {
            if extra.is_object() {
                let (phrase, doc) = self.value_shape(&extra);
                let has_patterns =
                    matches!(map.get("patternProperties"), Some(Value::Object(p)) if !p.is_empty());
                if is_map && !has_patterns {
                    notes.push(format!("Map of name → {phrase} value."));
                } else {
                    notes.push(format!("Other keys: {phrase} values."));
                }
                notes.extend(doc);
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
                        let (phrase, doc) = self.value_shape(s);
                        notes.push(format!("Keys matching {re}: {phrase} values."));
                        notes.extend(doc);
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
        self.dependencies(map, notes, path);
        for key in ["minProperties", "maxProperties"] {
            if let Some(n) = keywords::take_count(self, map, key, path) {
                out.insert(key.into(), n.into());
            }
        }
    }
}

impl Ctx<'_> {
    /// `dependentRequired`, `dependentSchemas` and draft-07 `dependencies` (no Gemini field):
    /// described ("If resourceName is given, namespaces is required too.") and reported.
    fn dependencies(&mut self, map: &mut Obj, notes: &mut Vec<String>, path: &str) {
        for key in ["dependentRequired", "dependentSchemas", "dependencies"] {
            let Some(deps) = map.remove(key) else {
                continue;
            };
            let Value::Object(deps) = deps else {
                self.change(
                    path,
                    Rule::R6,
                    format!("dropped a `{key}` that is not an object"),
                );
                continue;
            };
            let mut sentences = Vec::new();
            for name in sorted_keys(&deps) {
                match deps.get(&name) {
                    Some(Value::Array(needed)) => {
                        let needed: Vec<String> = needed
                            .iter()
                            .filter_map(Value::as_str)
                            .map(str::to_string)
                            .collect();
                        if needed.is_empty() {
                            continue;
                        }
                        let verb = if needed.len() == 1 { "is" } else { "are" };
                        sentences.push(format!(
                            "If {name} is given, {} {verb} required too.",
                            describe::list_values(&needed, MAX_VALUE_SHAPE).replace(", ", " and ")
                        ));
                    }
                    Some(schema @ Value::Object(_)) => {
                        let shape = describe::shape(schema, self.root, MAX_VALUE_SHAPE);
                        sentences.push(format!(
                            "If {name} is given, the object must also match {shape}."
                        ));
                    }
                    _ => {}
                }
            }
            let text = describe::cut(&sentences.join(" "), 2 * MAX_VALUE_SHAPE);
            if !text.is_empty() {
                notes.push(text);
            }
            self.change(path, Rule::R6, format!("{key} moved into the description"));
        }
    }
}

/// The leaf that replaces an output node nested too deep (see [`Ctx::limit_depth`]).
fn depth_cut(node: &Obj) -> Obj {
    let shape = describe::shape_fitted(&Value::Object(node.clone()), &Value::Null, MAX_CUT_SHAPE);
    let own = match node.get("anyOf") {
        // A union's description was pushed into every branch; keep it once when shared.
        Some(Value::Array(branches)) => {
            let docs: Vec<Option<&str>> = branches
                .iter()
                .map(|b| b.get("description").and_then(Value::as_str))
                .collect();
            match docs.first() {
                Some(Some(d)) if docs.iter().all(|x| x == &Some(*d)) => d.to_string(),
                _ => String::new(),
            }
        }
        _ => node
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string(),
    };
    let is_object = node.get("type").and_then(Value::as_str) == Some("object");
    let (ty, note) = if is_object {
        ("object", format!("Nested deeper; shape: {shape}."))
    } else {
        (
            "string",
            format!("{}: {shape}.", crate::json_text::JSON_TEXT_NOTE),
        )
    };
    let mut out = obj1("type", ty);
    out.insert(
        "description".into(),
        describe::join([own.as_str(), note.as_str()]).into(),
    );
    out
}
