//! The leaf every transform module builds on: the transform state ([`Ctx`]), where a
//! node sits ([`Pos`]), the node being rewritten ([`Node`]), what a rewrite returns
//! ([`Out`]), and the budgets of R13. It depends on nothing else in the crate but the
//! public result types, so `rewrite` → `refs`/`unions`/`keywords` → `ctx` all point one way.

use crate::types::{Change, Rule};
use crate::{canon, describe, merge, pointer};
use serde_json::{Map, Value};

pub(crate) type Obj = Map<String, Value>;

/// Hard cap on schema nesting walked (cycle and stack safety).
pub(crate) const HARD_DEPTH: usize = 64;
/// Largest `enum` kept as a keyword; longer ones move into the description.
pub(crate) const MAX_ENUM: usize = 64;
/// Schema nodes expanded per transform before the rest is cut (exponential `$ref` fan-out).
pub(crate) const NODE_BUDGET: usize = 20_000;
/// Units of work one transform may do: JSON values copied while inlining `$ref`s and
/// flattening `allOf`, values compared while merging, enum members deduplicated. The node
/// budget counts what is kept; this counts what is done, so `$ref` fan-out that copies more
/// than it keeps (an `allOf` of two references to the next of 30 definitions) is bounded too.
pub(crate) const WORK_BUDGET: usize = 2_000_000;
/// Budget cuts whose shape is still rendered into the description (each rendering is bounded;
/// past this count a cut says only how to see the schema, so the cuts stay cheap).
const DESCRIBED_BUDGET_CUTS: usize = 64;

/// Transform state.
pub(crate) struct Ctx<'a> {
    pub root: &'a Value,
    /// A set: an exponential expansion repeats the same change (same input path) many times.
    pub changes: std::collections::BTreeSet<Change>,
    /// Reference targets being expanded on the current path (recursion unrolling).
    pub ref_stack: Vec<String>,
    pub budget: usize,
    /// Work units left (see [`WORK_BUDGET`]).
    pub work: usize,
    /// Budget cuts made so far.
    pub budget_cuts: usize,
}

impl<'a> Ctx<'a> {
    pub(crate) fn new(root: &'a Value) -> Self {
        Ctx {
            root,
            changes: std::collections::BTreeSet::new(),
            ref_stack: Vec::new(),
            budget: NODE_BUDGET,
            work: WORK_BUDGET,
            budget_cuts: 0,
        }
    }

    /// Spend `units` of work; `false` once the budget is spent (it stays spent).
    pub(crate) fn spend(&mut self, units: usize) -> bool {
        match self.work.checked_sub(units) {
            Some(left) if self.work > 0 => {
                self.work = left;
                true
            }
            _ => {
                self.work = 0;
                false
            }
        }
    }

    /// Spend what copying `value` costs (its JSON values, counted up to what is left).
    pub(crate) fn spend_copy(&mut self, value: &Value) -> bool {
        let units = canon::size_capped(value, self.work.saturating_add(1));
        self.spend(units)
    }

    /// Spend what copying the keywords of `map` costs.
    pub(crate) fn spend_copy_map(&mut self, map: &Obj) -> bool {
        let cap = self.work.saturating_add(1);
        let mut units = 1;
        for v in map.values() {
            units += canon::size_capped(v, cap);
            if units > cap {
                break;
            }
        }
        self.spend(units)
    }

    /// What replaces a schema node once a budget (work or nodes kept) is spent: like a depth
    /// cut, an object keeps its type and gets its shape as prose; an array or a union is served
    /// as JSON text that `coerce_arguments` parses back.
    pub(crate) fn budget_cut(&mut self, raw: &Value, path: &str, why: &str) -> Obj {
        self.change(path, Rule::R13, format!("{why}; the rest is cut"));
        self.budget_cuts += 1;
        let target = raw
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(pointer::local_pointer)
            .and_then(|p| pointer::resolve(self.root, &p))
            .unwrap_or(raw);
        let own = raw
            .get("description")
            .or_else(|| target.get("description"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let as_text = target
            .as_object()
            .is_some_and(|m| m.contains_key("anyOf") || m.contains_key("oneOf"))
            || merge::type_names(target.get("type").unwrap_or(&Value::Null)).contains(&"array")
            || target.get("items").is_some()
            || target.get("prefixItems").is_some();
        let shape = if self.budget_cuts <= DESCRIBED_BUDGET_CUTS {
            describe::shape(target, self.root, MAX_CUT_SHAPE)
        } else {
            String::new()
        };
        let shown = if shape.is_empty() {
            String::new()
        } else {
            format!(": {shape}")
        };
        let (ty, note) = if as_text {
            (
                "string",
                format!(
                    "{BUDGET_NOTE}; {}{shown}.",
                    crate::json_text::JSON_TEXT_MARK
                ),
            )
        } else {
            ("object", format!("{BUDGET_NOTE}; shape{shown}."))
        };
        let mut out = obj1("type", ty);
        let text = describe::join([own, note.as_str()]);
        out.insert("description".into(), text.into());
        out
    }

    pub(crate) fn change(&mut self, path: &str, rule: Rule, message: impl Into<String>) {
        self.changes.insert(Change {
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

/// Longest rendering of a shape in a budget cut's description, in characters.
const MAX_CUT_SHAPE: usize = 400;
/// What a budget cut's description starts with.
pub(crate) const BUDGET_NOTE: &str = "Schema too large to convert here";

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

/// Most nesting steps from the root to the deepest schema (R13). Each step is one
/// property, `items`/tuple position, `anyOf`/`oneOf`/`allOf` branch or map value schema;
/// a `$ref` is followed without a step. Gemini publishes no number ("exceeds the maximum
/// allowed nesting depth"): MongoDB's `explain` (12 steps) is rejected, a gateway measured
/// 4 levels of OBJECT/ARRAY accepted and 6 rejected, and the contract's budget is about
/// 5 levels root included, so 4 steps below the root.
pub(crate) const MAX_DEPTH: usize = 4;

/// The subschemas one nesting step below `map`, in a fixed order.
pub(crate) fn children(map: &Obj) -> Vec<&Value> {
    let mut out = Vec::new();
    for key in ["properties", "patternProperties"] {
        if let Some(Value::Object(props)) = map.get(key) {
            out.extend(props.values());
        }
    }
    for key in ["items", "prefixItems", "anyOf", "oneOf", "allOf"] {
        match map.get(key) {
            Some(Value::Array(xs)) => out.extend(xs.iter()),
            Some(x @ Value::Object(_)) if key == "items" => out.push(x),
            _ => {}
        }
    }
    for key in ["additionalProperties", "additionalItems"] {
        if let Some(x @ Value::Object(_)) = map.get(key) {
            out.push(x);
        }
    }
    out
}

/// Nesting steps below `value` on its deepest path (see [`MAX_DEPTH`]), following local
/// `$ref`s into `root` (a recursive reference counts once). The transform cuts its output
/// with this count and the linter reports raw schemas with it.
pub(crate) fn nesting_depth(root: &Value, value: &Value) -> usize {
    let mut memo = std::collections::HashMap::new();
    let mut active = Vec::new();
    height(root, value, &mut memo, &mut active, 0)
}

fn height(
    root: &Value,
    value: &Value,
    memo: &mut std::collections::HashMap<String, usize>,
    active: &mut Vec<String>,
    walked: usize,
) -> usize {
    let Some(map) = value.as_object() else {
        return 0;
    };
    if walked > HARD_DEPTH {
        return 0;
    }
    let mut best = 0;
    if let Some(Value::String(r)) = map.get("$ref")
        && let Some(ptr) = pointer::local_pointer(r)
        && !active.contains(&ptr)
    {
        best = match memo.get(&ptr) {
            Some(h) => *h,
            None => match pointer::resolve(root, &ptr) {
                Some(target) => {
                    active.push(ptr.clone());
                    let h = height(root, target, memo, active, walked + 1);
                    active.pop();
                    memo.insert(ptr, h);
                    h
                }
                None => 0,
            },
        };
    }
    for child in children(map) {
        best = best.max(1 + height(root, child, memo, active, walked + 1));
    }
    best
}
