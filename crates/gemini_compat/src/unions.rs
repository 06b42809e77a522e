//! Unions (R2, R3, R10): `anyOf`/`oneOf`, split `type` arrays, and the root.
//!
//! * `null` branches are dropped and make the value optional.
//! * One remaining branch is merged with the node's other keywords (they win, as for
//!   `$ref` siblings).
//! * Several branches become an `anyOf` that is the only key on its node: the other
//!   keywords are merged into every branch and the description (with defaults and
//!   other notes) is pushed into every branch.
//! * Branches that end up as plain string enums (what a `oneOf` of `const`s becomes)
//!   are merged into one enum whose description lists the per-variant docs
//!   (`"a: A doc; b: B doc"`).
//! * At the root, several branches are collapsed into one object: properties are
//!   merged, `required` is what every branch requires, and the alternatives are
//!   described ("Provide route or file.").

use crate::describe;
use crate::merge;
use crate::pointer;
use crate::refs::{Flat, FlatNode};
use crate::rewrite::{Ctx, HARD_DEPTH, MAX_ENUM, Obj, Out, Pos, obj1};
use crate::types::Rule;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

enum Alt {
    Node(FlatNode),
    Done(Obj),
}

impl Ctx<'_> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn union(
        &mut self,
        mut siblings: Obj,
        branches: Vec<Value>,
        key: &str,
        path: String,
        notes: Vec<String>,
        pos: Pos<'_>,
        mut optional: bool,
    ) -> Out {
        if pos.hard > HARD_DEPTH {
            self.change(
                &path,
                Rule::R13,
                format!("nesting deeper than {HARD_DEPTH} levels cut"),
            );
            return Out::plain(crate::refs::depth_stub(), optional);
        }
        if key == "oneOf" {
            self.change(&path, Rule::R3, "oneOf rewritten as anyOf");
        }
        let mut alts: Vec<Alt> = Vec::new();
        for (i, branch) in branches.iter().enumerate() {
            let branch_path = pointer::child2(&path, key, i);
            let mut chain = Vec::new();
            match self.flatten(branch, &branch_path, pos.hard + 1, &mut chain) {
                Flat::Never => self.change(
                    &branch_path,
                    Rule::R3,
                    "dropped a branch that accepts nothing",
                ),
                Flat::Stub(stub) => alts.push(Alt::Done(stub)),
                Flat::Node(node) => {
                    if is_null_only(&node.map) {
                        optional = true;
                        self.change(
                            &branch_path,
                            Rule::R2,
                            "dropped the null branch (the value is optional)",
                        );
                    } else {
                        alts.push(Alt::Node(node));
                    }
                }
            }
        }
        if alts.len() <= 1 {
            if branches.len() == 1 {
                self.change(&path, Rule::R3, format!("unwrapped a one-branch {key}"));
            }
            return match alts.pop() {
                None if optional => self.null_only(siblings, path, notes, pos),
                None => {
                    self.change(
                        &path,
                        Rule::R3,
                        format!("{key} without a usable branch dropped"),
                    );
                    self.single(siblings, path, notes, pos, false)
                }
                Some(Alt::Done(stub)) => Out::plain(stub, optional),
                Some(Alt::Node(node)) => {
                    let (map, _) = merge::conj(&siblings, &node.map);
                    let mut all_notes = notes;
                    all_notes.extend(node.notes);
                    let merged = FlatNode {
                        map,
                        path: node.path,
                        refs: node.refs,
                        notes: all_notes,
                    };
                    let mut out = self.with_refs(merged, pos.same());
                    out.optional |= optional;
                    out
                }
            };
        }
        let text = self.annotation_text(&mut siblings, &path, pos.prop, &notes);
        if !siblings.is_empty() {
            self.change(
                &path,
                Rule::R3,
                "sibling keywords merged into the anyOf branches",
            );
        }
        let mut outs = Vec::new();
        for alt in alts {
            match alt {
                Alt::Done(stub) => outs.push(stub),
                Alt::Node(node) => {
                    let (map, ok) = merge::conj(&siblings, &node.map);
                    if !ok {
                        self.change(
                            &node.path,
                            Rule::R3,
                            "dropped a branch that contradicts its siblings",
                        );
                        continue;
                    }
                    let merged = FlatNode {
                        map,
                        path: node.path,
                        refs: node.refs,
                        notes: node.notes,
                    };
                    let out = self.with_refs(merged, pos.branch());
                    if out.absent {
                        continue;
                    }
                    optional |= out.optional;
                    outs.push(out.schema);
                }
            }
        }
        self.finish_alternatives(outs, text, &path, pos, optional)
    }

    /// Turn rewritten alternatives into one output node; `text` is the union node's own
    /// description, pushed into every branch.
    pub(crate) fn finish_alternatives(
        &mut self,
        outs: Vec<Obj>,
        text: Option<String>,
        path: &str,
        pos: Pos<'_>,
        optional: bool,
    ) -> Out {
        let list = group_enums(splice_dedupe(outs));
        if pos.root && list.len() > 1 {
            return self.collapse_root(list, text, path);
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

    /// R10: the root may not be a union. Merge the object alternatives into one object.
    fn collapse_root(&mut self, list: Vec<Obj>, text: Option<String>, path: &str) -> Out {
        self.change(
            path,
            Rule::R10,
            "root alternatives collapsed into one object",
        );
        let total = list.len();
        let objects: Vec<Obj> = list
            .into_iter()
            .filter(|o| o.get("type").and_then(Value::as_str) == Some("object"))
            .collect();
        if objects.len() < total {
            self.change(
                path,
                Rule::R10,
                "dropped root alternatives that are not objects",
            );
        }
        let mut by_name: BTreeMap<String, Vec<Value>> = BTreeMap::new();
        let mut keysets: Vec<BTreeSet<String>> = Vec::new();
        let mut requireds: Vec<Vec<String>> = Vec::new();
        for o in &objects {
            let mut keys = BTreeSet::new();
            if let Some(Value::Object(props)) = o.get("properties") {
                for (name, schema) in props {
                    keys.insert(name.clone());
                    by_name
                        .entry(name.clone())
                        .or_default()
                        .push(schema.clone());
                }
            }
            keysets.push(keys);
            let req = match o.get("required") {
                Some(Value::Array(r)) => r
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect(),
                _ => Vec::new(),
            };
            requireds.push(req);
        }
        let common: Vec<String> = requireds
            .first()
            .map(|first| {
                first
                    .iter()
                    .filter(|r| requireds.iter().all(|q| q.contains(r)))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        let note = if objects.len() < 2 {
            None
        } else if keysets.iter().all(|k| Some(k) == keysets.first()) {
            let mut alternatives: Vec<String> = Vec::new();
            for r in &requireds {
                let extra: Vec<&str> = r
                    .iter()
                    .filter(|x| !common.contains(x))
                    .map(String::as_str)
                    .collect();
                let phrase = extra.join(" and ");
                if !alternatives.contains(&phrase) {
                    alternatives.push(phrase);
                }
            }
            if alternatives.iter().all(|a| !a.is_empty()) {
                Some(format!("Provide {}.", alternatives.join(" or ")))
            } else {
                None
            }
        } else {
            let variants: Vec<String> = keysets
                .iter()
                .enumerate()
                .map(|(i, k)| {
                    let names: Vec<&str> = k.iter().map(String::as_str).collect();
                    if names.is_empty() {
                        format!("({}) no properties", i + 1)
                    } else {
                        format!("({}) {}", i + 1, names.join(", "))
                    }
                })
                .collect();
            Some(format!(
                "Give the properties of one variant: {}.",
                variants.join("; ")
            ))
        };
        let mut props = Obj::new();
        for (name, schemas) in by_name {
            props.insert(name, merge_alternatives(schemas));
        }
        let mut root = obj1("type", "object");
        if !props.is_empty() {
            root.insert("properties".into(), Value::Object(props));
        }
        if !common.is_empty() {
            root.insert(
                "required".into(),
                Value::Array(common.into_iter().map(Value::String).collect()),
            );
        }
        let description =
            describe::join([text.as_deref().unwrap_or(""), note.as_deref().unwrap_or("")]);
        if !description.is_empty() {
            root.insert("description".into(), description.into());
        }
        Out::plain(root, false)
    }
}

/// Several rewritten schemas for one property, as one schema.
fn merge_alternatives(schemas: Vec<Value>) -> Value {
    let objs: Vec<Obj> = schemas
        .into_iter()
        .filter_map(|s| s.as_object().cloned())
        .collect();
    let mut list = group_enums(splice_dedupe(objs));
    match list.len() {
        0 => Value::Object(obj1("type", "object")),
        1 => Value::Object(list.pop().unwrap_or_default()),
        _ => Value::Object(obj1(
            "anyOf",
            Value::Array(list.into_iter().map(Value::Object).collect()),
        )),
    }
}

/// Inline nested `anyOf` nodes into the list and drop duplicates (first one wins).
pub(crate) fn splice_dedupe(outs: Vec<Obj>) -> Vec<Obj> {
    let mut list: Vec<Obj> = Vec::new();
    let push = |o: Obj, list: &mut Vec<Obj>| {
        if !list.contains(&o) {
            list.push(o);
        }
    };
    for o in outs {
        if o.len() == 1
            && let Some(Value::Array(branches)) = o.get("anyOf")
        {
            for b in branches {
                if let Value::Object(b) = b {
                    push(b.clone(), &mut list);
                }
            }
            continue;
        }
        push(o, &mut list);
    }
    list
}

fn is_pure_enum(o: &Obj) -> bool {
    o.get("type").and_then(Value::as_str) == Some("string")
        && matches!(o.get("enum"), Some(Value::Array(_)))
        && o.keys()
            .all(|k| k == "type" || k == "enum" || k == "description")
}

/// Merge the alternatives that are plain string enums into one enum; their
/// descriptions become per-variant docs (`"a: A doc; b: B doc"`).
pub(crate) fn group_enums(list: Vec<Obj>) -> Vec<Obj> {
    let idx: Vec<usize> = list
        .iter()
        .enumerate()
        .filter(|(_, o)| is_pure_enum(o))
        .map(|(i, _)| i)
        .collect();
    if idx.len() < 2 {
        return list;
    }
    let mut values: Vec<Value> = Vec::new();
    let mut docs: Vec<String> = Vec::new();
    for &i in &idx {
        let o = &list[i];
        let members: Vec<&Value> = match o.get("enum") {
            Some(Value::Array(vs)) => vs.iter().collect(),
            _ => Vec::new(),
        };
        for v in &members {
            if !values.contains(v) {
                values.push((*v).clone());
            }
        }
        if let Some(doc) = o.get("description").and_then(Value::as_str) {
            let doc = doc.trim().trim_end_matches('.');
            if !doc.is_empty() {
                let names: Vec<String> = members.iter().map(|v| describe::enum_string(v)).collect();
                docs.push(format!("{}: {doc}", names.join(", ")));
            }
        }
    }
    if values.len() > MAX_ENUM {
        return list;
    }
    let mut merged = obj1("type", "string");
    merged.insert("enum".into(), Value::Array(values));
    if !docs.is_empty() {
        merged.insert("description".into(), docs.join("; ").into());
    }
    let first = idx[0];
    let mut out = Vec::new();
    for (i, o) in list.into_iter().enumerate() {
        if i == first {
            out.push(merged.clone());
        } else if !idx.contains(&i) {
            out.push(o);
        }
    }
    out
}

/// A branch that only admits `null`.
fn is_null_only(map: &Obj) -> bool {
    if let Some(t) = map.get("type") {
        let names = merge::type_names(t);
        if !names.is_empty() && names.iter().all(|n| *n == "null") {
            return true;
        }
    }
    if map.get("const") == Some(&Value::Null) {
        return true;
    }
    matches!(map.get("enum"), Some(Value::Array(e)) if !e.is_empty() && e.iter().all(Value::is_null))
}
