//! What the rewrite does with several alternatives once each is rewritten (R3, R10).
//! The walk over `anyOf`/`oneOf` branches lives in [`crate::rewrite`]; these helpers
//! only combine finished output schemas:
//!
//! * nested `anyOf`s are spliced and duplicates dropped ([`splice_dedupe`]);
//! * branches that end up as plain string enums (what a `oneOf` of `const`s becomes)
//!   are merged into one enum whose description lists the per-variant docs
//!   (`"a: A doc; b: B doc"`, [`group_enums`]);
//! * at the root, several branches are collapsed into one object: properties are
//!   merged, `required` is what every branch requires, and the alternatives are
//!   described ("Provide route or file.", [`collapse_root`]).

use crate::canon;
use crate::ctx::{Ctx, MAX_ENUM, Obj, Out, obj1};
use crate::describe;
use crate::merge;
use crate::types::Rule;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// R10: the root may not be a union. Merge the object alternatives into one object.
pub(crate) fn collapse_root(
    ctx: &mut Ctx,
    list: Vec<Obj>,
    text: Option<String>,
    path: &str,
) -> Out {
    ctx.change(
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
        ctx.change(
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
    // Linear: a hash set of canonical forms, not `Vec::contains`.
    let mut seen: HashSet<String> = HashSet::new();
    let mut push = |o: Obj, list: &mut Vec<Obj>| {
        let v = Value::Object(o);
        if seen.insert(canon::key(&v))
            && let Value::Object(o) = v
        {
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
    let mut seen: HashSet<String> = HashSet::new();
    let mut docs: Vec<String> = Vec::new();
    for &i in &idx {
        let o = &list[i];
        let members: Vec<&Value> = match o.get("enum") {
            Some(Value::Array(vs)) => vs.iter().collect(),
            _ => Vec::new(),
        };
        for v in &members {
            if seen.insert(canon::key(v)) {
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
pub(crate) fn is_null_only(map: &Obj) -> bool {
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

/// Several alternative schemas as one: the schema itself, or an `anyOf`.
pub(crate) fn one_schema(alternatives: Vec<Obj>) -> Option<Obj> {
    let mut list = group_enums(splice_dedupe(alternatives));
    match list.len() {
        0 => None,
        1 => list.pop(),
        _ => Some(obj1(
            "anyOf",
            Value::Array(list.into_iter().map(Value::Object).collect()),
        )),
    }
}
