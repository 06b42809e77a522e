//! The leaf every transform module builds on: the transform state ([`Ctx`]), where a
//! node sits ([`Pos`]), the node being rewritten ([`Node`]), what a rewrite returns
//! ([`Out`]), and the budgets of R13. It depends on nothing else in the crate but the
//! public result types, so `rewrite` → `refs`/`unions`/`keywords` → `ctx` all point one way.

use crate::types::{Change, Rule};
use serde_json::{Map, Value};

pub(crate) type Obj = Map<String, Value>;

/// Hard cap on schema nesting walked (cycle and stack safety).
pub(crate) const HARD_DEPTH: usize = 64;
/// At most this many levels of objects with `properties` on any path (root included).
pub(crate) const MAX_OBJECT_DEPTH: usize = 6;
/// Largest `enum` kept as a keyword; longer ones move into the description.
pub(crate) const MAX_ENUM: usize = 64;
/// Schema nodes expanded per transform before the rest is cut (exponential `$ref` fan-out).
pub(crate) const NODE_BUDGET: usize = 20_000;

/// Transform state.
pub(crate) struct Ctx<'a> {
    pub root: &'a Value,
    pub changes: Vec<Change>,
    /// Reference targets being expanded on the current path (recursion unrolling).
    pub ref_stack: Vec<String>,
    pub budget: usize,
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
    pub(crate) fn item(self) -> Pos<'static> {
        self.branch()
    }
    /// The schema of property `name` of an object at this position.
    pub(crate) fn property(self, name: &str) -> Pos<'_> {
        Pos {
            hard: self.hard + 1,
            objs: self.objs + 1,
            prop: Some(name),
            root: false,
            split: false,
        }
    }
}

/// One schema node on its way through the rewrite: its keywords (not yet rewritten),
/// where it was written, the prose collected so far, where it sits, and whether the
/// value may already be omitted.
pub(crate) struct Node<'p> {
    pub map: Obj,
    /// JSON Pointer into the input schema (where most keywords came from).
    pub path: String,
    /// Sentences for the description, in order.
    pub notes: Vec<String>,
    pub pos: Pos<'p>,
    /// The value may be omitted although the input listed it as required
    /// (it accepted `null`, or `""` was dropped from its enum).
    pub optional: bool,
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
    pub(crate) fn absent() -> Out {
        Out {
            schema: Obj::new(),
            optional: true,
            absent: true,
        }
    }
}

pub(crate) fn obj1(key: &str, value: impl Into<Value>) -> Obj {
    let mut m = Obj::new();
    m.insert(key.into(), value.into());
    m
}

/// The stub emitted when nesting is cut.
pub(crate) fn depth_stub() -> Obj {
    let mut m = obj1("type", "object");
    m.insert("description".into(), "Nested deeper; shape omitted.".into());
    m
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
