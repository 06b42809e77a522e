//! `$ref` resolution and `allOf` flattening (R1, R3).
//!
//! A schema node is first *flattened*: its `$ref` chain is followed (the referring
//! node's sibling keywords win over the target's), its `allOf` branches are merged in
//! (see [`crate::merge`]), and `$defs`/`definitions` are dropped. References are local
//! JSON Pointers (`#`, `#/$defs/X`, `#/definitions/X`, or any `#/…` path, with `~0`/`~1`
//! and percent-decoding). A reference that cannot be resolved is described, never fatal.
//!
//! Recursion is unrolled: a target already being expanded [`UNROLL`] times further up
//! the tree is replaced by a stub `{"type":"object","description":"<Name> (nested
//! further; same shape)"}` (an array target keeps a typed `items`). A chain of references
//! that loops without descending (`A → B → A`, or an `allOf` including itself) is cut.

use crate::canon;
use crate::ctx::{Ctx, HARD_DEPTH, Obj, WORK_BUDGET, depth_stub, recurses};
use crate::describe;
use crate::merge;
use crate::pointer;
use crate::types::Rule;
use serde_json::{Value, json};

/// JSON values in a leaf schema still converted once the work budget is spent.
const SMALL_LEAF: usize = 64;

/// How many times one reference target may be expanded on a path from the root.
pub(crate) const UNROLL: usize = 2;

/// A flattened schema node.
pub(crate) enum Flat {
    /// A schema object without `$ref`/`allOf`/`$defs`.
    Node(FlatNode),
    /// The schema `false`: nothing is valid.
    Never,
    /// A finished output schema (recursion or depth stub).
    Stub(Obj),
}

pub(crate) struct FlatNode {
    /// The merged keywords.
    pub map: Obj,
    /// Where most of the keywords came from (the last resolved target).
    pub path: String,
    /// Reference targets expanded into this node (pushed while its children are processed).
    pub refs: Vec<String>,
    /// Prose notes produced while flattening (unresolved references…).
    pub notes: Vec<String>,
}

impl FlatNode {
    pub(crate) fn new(map: Obj, path: &str) -> Self {
        FlatNode {
            map,
            path: path.to_string(),
            refs: Vec::new(),
            notes: Vec::new(),
        }
    }
}

/// Flatten one raw schema value (see the module docs).
pub(crate) fn flatten(
    ctx: &mut Ctx,
    value: &Value,
    path: &str,
    hard: usize,
    chain: &mut Vec<String>,
) -> Flat {
    if hard > HARD_DEPTH && recurses(value) {
        ctx.change(
            path,
            Rule::R13,
            format!("nesting deeper than {HARD_DEPTH} levels cut"),
        );
        return Flat::Stub(depth_stub());
    }
    let obj = match value {
        Value::Object(o) => o,
        Value::Bool(false) => return Flat::Never,
        Value::Bool(true) => {
            ctx.change(
                path,
                Rule::R11,
                "boolean schema `true` replaced by a typed schema",
            );
            return Flat::Node(FlatNode::new(Obj::new(), path));
        }
        _ => {
            ctx.change(
                path,
                Rule::R11,
                "a value that is not a schema replaced by a typed schema",
            );
            return Flat::Node(FlatNode::new(Obj::new(), path));
        }
    };
    // Every copy is paid for, leaves too (a `$ref` fan-out onto one 100 000-value enum copies
    // the enum each time); once the budget is spent, only small leaves are still converted.
    if !ctx.spend_copy(value)
        && (recurses(value) || canon::size_capped(value, SMALL_LEAF) >= SMALL_LEAF)
    {
        return Flat::Stub(ctx.budget_cut(value, path, &work_spent()));
    }
    let mut node = FlatNode::new(obj.clone(), path);
    for key in ["$defs", "definitions"] {
        if node.map.remove(key).is_some() {
            ctx.change(
                path,
                Rule::R1,
                format!("removed `{key}` (references are inlined)"),
            );
        }
    }
    if let Some(reference) = node.map.remove("$ref")
        && let Some(done) = follow_ref(ctx, reference, &mut node, path, hard, chain)
    {
        return done;
    }
    if let Some(all) = node.map.remove("allOf")
        && let Some(done) = merge_all_of(ctx, all, value, &mut node, path, hard, chain)
    {
        return done;
    }
    if let (Some(Value::Array(any)), Some(Value::Array(one))) =
        (node.map.get("anyOf"), node.map.get("oneOf"))
    {
        let product = merge::cross(any, one);
        node.map.remove("oneOf");
        node.map.insert("anyOf".into(), product);
        ctx.change(
            path,
            Rule::R3,
            "anyOf and oneOf on one node combined into one anyOf",
        );
    }
    Flat::Node(node)
}

/// Resolve `reference` into `node`. `Some` is a finished result.
fn follow_ref(
    ctx: &mut Ctx,
    reference: Value,
    node: &mut FlatNode,
    path: &str,
    hard: usize,
    chain: &mut Vec<String>,
) -> Option<Flat> {
    let Value::String(reference) = reference else {
        ctx.change(path, Rule::R1, "dropped a `$ref` that is not a string");
        return None;
    };
    let Some(ptr) = pointer::local_pointer(&reference) else {
        ctx.change(
            path,
            Rule::R1,
            format!("$ref {reference} is not local; described instead"),
        );
        node.notes
            .push(format!("Unresolved reference {reference}."));
        return None;
    };
    if chain.contains(&ptr) {
        ctx.change(
            path,
            Rule::R1,
            format!("circular $ref chain through {reference} cut"),
        );
        node.notes.push(format!("Circular reference {reference}."));
        return None;
    }
    let Some(target) = pointer::resolve(ctx.root, &ptr) else {
        ctx.change(
            path,
            Rule::R1,
            format!("$ref {reference} has no target; described instead"),
        );
        node.notes
            .push(format!("Unresolved reference {reference}."));
        return None;
    };
    if ctx.ref_stack.iter().filter(|k| **k == ptr).count() >= UNROLL {
        ctx.change(
            path,
            Rule::R1,
            format!("recursive $ref {reference} cut after {UNROLL} levels"),
        );
        return Some(Flat::Stub(recursion_stub(&node.map, target, &ptr)));
    }
    chain.push(ptr.clone());
    let flat = flatten(ctx, target, &ptr, hard + 1, chain);
    chain.pop();
    ctx.change(path, Rule::R1, format!("inlined $ref {reference}"));
    match flat {
        Flat::Never => Some(Flat::Never),
        Flat::Stub(stub) => Some(Flat::Stub(with_description(stub, &node.map))),
        Flat::Node(t) => {
            if !(ctx.spend_copy_map(&node.map) && ctx.spend_copy_map(&t.map)) {
                return Some(Flat::Stub(ctx.budget_cut(target, path, &work_spent())));
            }
            for key in merge::lost_in_conj(&node.map, &t.map) {
                ctx.change(
                    path,
                    Rule::R1,
                    format!("`{key}` beside $ref {reference} replaces the target's"),
                );
            }
            let (merged, _) = merge::conj(&node.map, &t.map);
            node.map = merged;
            node.path = t.path;
            node.refs.push(ptr);
            node.refs.extend(t.refs);
            node.notes.extend(t.notes);
            None
        }
    }
}

fn merge_all_of(
    ctx: &mut Ctx,
    all: Value,
    raw: &Value,
    node: &mut FlatNode,
    path: &str,
    hard: usize,
    chain: &mut Vec<String>,
) -> Option<Flat> {
    let Value::Array(branches) = all else {
        ctx.change(path, Rule::R3, "dropped an `allOf` that is not an array");
        return None;
    };
    ctx.change(path, Rule::R3, "merged allOf into one schema");
    for (i, branch) in branches.iter().enumerate() {
        match flatten(
            ctx,
            branch,
            &pointer::child2(path, "allOf", i),
            hard + 1,
            chain,
        ) {
            Flat::Never => return Some(Flat::Never),
            Flat::Stub(stub) => return Some(Flat::Stub(with_description(stub, &node.map))),
            Flat::Node(b) => {
                if !(ctx.spend_copy_map(&node.map) && ctx.spend_copy_map(&b.map)) {
                    return Some(Flat::Stub(ctx.budget_cut(raw, path, &work_spent())));
                }
                for key in merge::lost_in_conj(&node.map, &b.map) {
                    ctx.change(
                        path,
                        Rule::R3,
                        format!("allOf branches both set `{key}`; the first one is kept"),
                    );
                }
                let (merged, ok) = merge::conj(&node.map, &b.map);
                if !ok {
                    ctx.change(
                        path,
                        Rule::R3,
                        "allOf branches conflict; the first one wins",
                    );
                }
                node.map = merged;
                node.refs.extend(b.refs);
                node.notes.extend(b.notes);
            }
        }
    }
    None
}
/// The change message of a cut made because the work budget is spent.
pub(crate) fn work_spent() -> String {
    format!("schema too large to convert (work budget of {WORK_BUDGET} steps spent)")
}

/// The stub that replaces a recursive reference.
fn recursion_stub(siblings: &Obj, target: &Value, ptr: &str) -> Obj {
    let name = pointer::last_token(ptr)
        .or_else(|| {
            target
                .get("title")
                .and_then(Value::as_str)
                .map(str::to_string)
        })
        .unwrap_or_else(|| "Root object".to_string());
    let text = format!("{name} (nested further; same shape)");
    let own = siblings
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or("");
    let description = describe::join([own, text.as_str()]);
    let ty = primary_type(target);
    let mut stub = Obj::new();
    match ty {
        "array" => {
            stub.insert("type".into(), "array".into());
            stub.insert("items".into(), json!({ "type": "object" }));
        }
        "string" | "integer" | "number" | "boolean" => {
            stub.insert("type".into(), ty.into());
        }
        _ => {
            stub.insert("type".into(), "object".into());
        }
    }
    stub.insert("description".into(), description.into());
    stub
}

fn primary_type(schema: &Value) -> &str {
    let Some(map) = schema.as_object() else {
        return "object";
    };
    if let Some(t) = map.get("type")
        && let Some(first) = merge::type_names(t).into_iter().find(|t| *t != "null")
    {
        return first;
    }
    if map.contains_key("items") || map.contains_key("prefixItems") {
        "array"
    } else {
        "object"
    }
}

/// Put the referring node's own description in front of a stub's.
fn with_description(mut stub: Obj, siblings: &Obj) -> Obj {
    if let Some(own) = siblings.get("description").and_then(Value::as_str) {
        let inner = stub
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("");
        if !inner.starts_with(own) {
            let joined = describe::join([own, inner]);
            stub.insert("description".into(), joined.into());
        }
    }
    stub
}
