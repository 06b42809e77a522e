//! Running the simplest per-element filters without jaq: `select(C)` over
//! paths, comparisons with literals, `and`, `or` and `not`, then a path or an
//! object of paths (`.items[] | select(.score > 9) | {id, name}`).
//!
//! A streamed array ([`crate::plan`]) runs its per-element filter once per
//! element; jaq's evaluator costs far more per call than such a filter needs.
//! These filters are evaluated here with jaq's own value operations (its
//! comparison, truthiness, object lookup and construction), so the values
//! are the ones jaq would compute. Whenever the answer is not certain (a
//! path through a value that is neither an object nor null, where jq would
//! raise an error) [`Each::run`] says so, and the caller runs jaq on that
//! element instead.
//!
//! The leading `select`s can also be judged on a smaller projection of the
//! element ([`Each::probe`]): most elements fail them, and those need not be
//! built further.

use crate::ast::{literal_str, pipe_chain};
use crate::demand;
use crate::need::Need;
use crate::projected::Judge;
use jaq_core::load::parse::{BinaryOp, Term};
use jaq_core::ops::Cmp;
use jaq_core::path::{Opt, Part};
use jaq_json::{Map, Val};

/// A per-element filter that can run natively.
pub(crate) struct Each {
    steps: Vec<Step>,
    /// What the leading `select`s observe of an element, when that is less
    /// than the whole filter observes.
    probe: Option<Need>,
    /// The keys the leading `select`s read, when each of their paths is one
    /// key (`.active`, `.score`): then only those values need reading.
    keys: Option<Vec<Vec<u8>>>,
}

enum Step {
    Select(Cond),
    /// A path of object keys (empty: the value itself).
    Path(Vec<Val>),
    /// `{k: path, …}` in order (a later duplicate key wins).
    Obj(Vec<(Val, Vec<Val>)>),
}

enum Cond {
    Truthy(Operand),
    Cmp(Operand, Cmp, Operand),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
    Not(Box<Cond>),
}

enum Operand {
    /// Keys, and the position of the path among [`Each::keys`] (when it is
    /// one key there).
    Path(Vec<Val>, Option<usize>),
    Lit(Val),
}

/// What a condition is evaluated on: an element, or the values of
/// [`Each::keys`] in one (`None`: missing).
#[derive(Clone, Copy)]
enum On<'v> {
    Value(&'v Val),
    Keys(&'v [Option<Val>]),
}

/// What a native run gave for one element.
pub(crate) enum Outcome {
    /// The filter's one result.
    One(Val),
    /// No result (a `select` dropped the element).
    Nothing,
    /// Not certain: run jaq on the element.
    Unsure,
}

impl Each {
    /// The native form of the per-element filter `code`, if it has one.
    pub(crate) fn new(code: &str) -> Option<Each> {
        let term = crate::ast::parse(code)?;
        let mut steps = Vec::new();
        for t in pipe_chain(&term) {
            steps.push(step(t)?);
        }
        let keys = number_keys(&mut steps);
        Some(Each {
            steps,
            probe: probe(&term),
            keys,
        })
    }

    /// Judge the leading `select`s on a value built as far as
    /// [`Each::probe`] asks: `Some(false)` when they drop it.
    pub(crate) fn judge(&self, v: &Val) -> Option<bool> {
        self.judge_on(On::Value(v))
    }

    fn judge_on(&self, on: On<'_>) -> Option<bool> {
        for s in &self.steps {
            let Step::Select(c) = s else { break };
            if !c.eval(on)? {
                return Some(false);
            }
        }
        Some(true)
    }

    /// Run the filter on one element.
    pub(crate) fn run(&self, v: Val) -> Outcome {
        let mut cur = v;
        for s in &self.steps {
            match s {
                Step::Select(c) => match c.eval(On::Value(&cur)) {
                    Some(true) => {}
                    Some(false) => return Outcome::Nothing,
                    None => return Outcome::Unsure,
                },
                Step::Path(p) => match get(&cur, p) {
                    Some(x) => cur = x.cloned().unwrap_or(Val::Null),
                    None => return Outcome::Unsure,
                },
                Step::Obj(entries) => {
                    let mut m = Map::default();
                    for (k, p) in entries {
                        let Some(x) = get(&cur, p) else {
                            return Outcome::Unsure;
                        };
                        m.insert(k.clone(), x.cloned().unwrap_or(Val::Null));
                    }
                    cur = Val::obj(m);
                }
            }
        }
        Outcome::One(cur)
    }
}

/// What the leading `select`s of `each` observe, analysed alone; `None` when
/// there are none or one observes the whole element.
fn probe(each: &Term<&str>) -> Option<Need> {
    let mut probe: Option<Need> = None;
    for t in pipe_chain(each) {
        let Term::Call("select", args) = t else { break };
        let need = demand::analyze(args.first()?)?;
        match &mut probe {
            Some(p) => p.merge(&need),
            None => probe = Some(need),
        }
    }
    let mut probe = probe?;
    probe.normalize();
    Some(probe)
}

/// The value at `path` in `v` as jq's `.a.b` finds it: `Some(None)` for
/// null (a missing key, or a path through null); `None` where jq would raise
/// an error (indexing a value that is neither an object nor null).
fn get<'v>(v: &'v Val, path: &[Val]) -> Option<Option<&'v Val>> {
    let mut cur = Some(v);
    for k in path {
        cur = match cur {
            None | Some(Val::Null) => None,
            Some(Val::Obj(o)) => o.get(k),
            Some(_) => return None,
        };
    }
    Some(cur)
}

impl Judge for Each {
    fn keys(&self) -> Option<&[Vec<u8>]> {
        self.keys.as_deref()
    }

    fn need(&self) -> Option<&Need> {
        self.probe.as_ref()
    }

    fn by_keys(&self, values: Option<&[Option<Val>]>) -> Option<bool> {
        self.judge_on(On::Keys(values?))
    }

    fn by_value(&self, v: &Val) -> Option<bool> {
        self.judge(v)
    }
}

/// Number the one-key paths of the leading `select`s: the keys a judge
/// needs read (`None` if a path is longer or shorter, or there is no select).
fn number_keys(steps: &mut [Step]) -> Option<Vec<Vec<u8>>> {
    fn visit(c: &mut Cond, keys: &mut Vec<Vec<u8>>, ok: &mut bool) {
        let mut operand = |o: &mut Operand| {
            if let Operand::Path(p, slot) = o {
                match &p[..] {
                    [Val::TStr(k)] => {
                        let k = k.to_vec();
                        let at = keys.iter().position(|x| *x == k).unwrap_or_else(|| {
                            keys.push(k);
                            keys.len() - 1
                        });
                        *slot = Some(at);
                    }
                    _ => *ok = false,
                }
            }
        };
        match c {
            Cond::Truthy(o) => operand(o),
            Cond::Cmp(l, _, r) => {
                operand(l);
                operand(r);
            }
            Cond::And(l, r) | Cond::Or(l, r) => {
                visit(l, keys, ok);
                visit(r, keys, ok);
            }
            Cond::Not(c) => visit(c, keys, ok),
        }
    }
    let (mut keys, mut ok, mut any) = (Vec::new(), true, false);
    for s in steps {
        let Step::Select(c) = s else { break };
        any = true;
        visit(c, &mut keys, &mut ok);
    }
    (ok && any).then_some(keys)
}

impl Operand {
    fn value<'v>(&'v self, on: On<'v>) -> Option<Option<&'v Val>> {
        match (self, on) {
            (Operand::Lit(l), _) => Some(Some(l)),
            (Operand::Path(p, _), On::Value(v)) => get(v, p),
            (Operand::Path(_, Some(slot)), On::Keys(values)) => Some(values.get(*slot)?.as_ref()),
            (Operand::Path(_, None), On::Keys(_)) => None,
        }
    }
}

fn truthy(v: Option<&Val>) -> bool {
    !matches!(v, None | Some(Val::Null | Val::Bool(false)))
}

impl Cond {
    /// jq's truth value of the condition on `v`; `None` when not certain.
    fn eval(&self, v: On<'_>) -> Option<bool> {
        Some(match self {
            Cond::Truthy(o) => truthy(o.value(v)?),
            Cond::Cmp(l, op, r) => {
                let null = Val::Null;
                let l = l.value(v)?.unwrap_or(&null);
                let r = r.value(v)?.unwrap_or(&null);
                op.run(l, r)
            }
            // jq evaluates the right side only when the left does not decide
            Cond::And(l, r) => l.eval(v)? && r.eval(v)?,
            Cond::Or(l, r) => l.eval(v)? || r.eval(v)?,
            Cond::Not(c) => !c.eval(v)?,
        })
    }
}

/// `.a.b` (literal keys, no `?`) as its keys; `.` as no keys.
fn path(t: &Term<&str>) -> Option<Vec<Val>> {
    match t {
        Term::Id => Some(Vec::new()),
        Term::Path(head, parts) if matches!(**head, Term::Id) => parts
            .0
            .iter()
            .map(|(part, opt)| match (part, opt) {
                (Part::Index(Term::Str(None, s)), Opt::Essential) => {
                    literal_str(s).map(Val::utf8_str)
                }
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

/// A literal as jaq's compiler turns it into a value.
fn lit(t: &Term<&str>) -> Option<Val> {
    match t {
        Term::Num(n) => <Val as jaq_core::ValT>::from_num(n).ok(),
        // `-1`: jaq negates the literal's value
        Term::Neg(n) if matches!(**n, Term::Num(_)) => (-lit(n)?).ok(),
        Term::Str(None, s) => literal_str(s).map(Val::utf8_str),
        Term::Call("true", args) if args.is_empty() => Some(Val::Bool(true)),
        Term::Call("false", args) if args.is_empty() => Some(Val::Bool(false)),
        Term::Call("null", args) if args.is_empty() => Some(Val::Null),
        _ => None,
    }
}

fn operand(t: &Term<&str>) -> Option<Operand> {
    match lit(t) {
        Some(v) => Some(Operand::Lit(v)),
        None => path(t).map(|p| Operand::Path(p, None)),
    }
}

fn cond(t: &Term<&str>) -> Option<Cond> {
    Some(match t {
        Term::BinOp(l, BinaryOp::And, r) => Cond::And(Box::new(cond(l)?), Box::new(cond(r)?)),
        Term::BinOp(l, BinaryOp::Or, r) => Cond::Or(Box::new(cond(l)?), Box::new(cond(r)?)),
        Term::BinOp(l, BinaryOp::Cmp(op), r) => Cond::Cmp(operand(l)?, *op, operand(r)?),
        // `C | not`
        Term::BinOp(c, BinaryOp::Pipe(None), n) if matches!(&**n, Term::Call("not", args) if args.is_empty()) => {
            Cond::Not(Box::new(cond(c)?))
        }
        t => Cond::Truthy(operand(t)?),
    })
}

fn step(t: &Term<&str>) -> Option<Step> {
    match t {
        Term::Call("select", args) => match &args[..] {
            [c] => Some(Step::Select(cond(c)?)),
            _ => None,
        },
        Term::Obj(entries) => {
            let mut out = Vec::new();
            for (k, v) in entries {
                let Term::Str(None, parts) = k else {
                    return None;
                };
                let key = literal_str(parts)?;
                let p = match v {
                    Some(v) => path(v)?,
                    None => vec![Val::utf8_str(key.clone())],
                };
                out.push((Val::utf8_str(key), p));
            }
            Some(Step::Obj(out))
        }
        t => path(t).map(Step::Path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json_out::to_json;

    fn runs(code: &str) -> bool {
        Each::new(code).is_some()
    }

    #[test]
    fn takes_only_the_simple_shapes() {
        for code in [
            ".",
            ".a.b",
            "select(.active and .score > 997) | {id, name}",
            "select(.owner.region == \"ap\" and .score > 900) | {id, name, owner: .owner.name}",
            "select(.a or (.b | not)) | .c",
            "select(.a != null) | select(1 < .b)",
            "select(-1 < .a)",
        ] {
            assert!(runs(code), "{code}");
        }
        for code in [
            ".a?",
            ".a[0]",
            ".[]",
            "select(.a | length > 1)",
            "{(.k): 1}",
            "{$x}",
            "select(.a) | .b + 1",
            "select(.a, .b)",
        ] {
            assert!(!runs(code), "{code}");
        }
    }

    #[test]
    fn unsure_where_jq_would_fail() {
        let each = Each::new("select(.a.b > 1) | .c").expect("native");
        let v = jaq_json::read::parse_single(br#"{"a": 5}"#).expect("json");
        assert!(matches!(each.run(v), Outcome::Unsure));
        let v = jaq_json::read::parse_single(br#"{"a": null, "c": 1}"#).expect("json");
        assert!(matches!(each.run(v), Outcome::Nothing));
        let v = jaq_json::read::parse_single(br#"{"a": {"b": 2}, "c": [1]}"#).expect("json");
        match each.run(v) {
            Outcome::One(x) => assert_eq!(to_json(&x), "[1]"),
            _ => panic!("one result"),
        }
    }

    #[test]
    fn probe_covers_only_the_selects() {
        let each = Each::new("select(.active and .score > 9) | {id, name}").expect("native");
        let probe = each.need().expect("a probe");
        assert!(probe.key(b"score").is_some() && probe.key(b"active").is_some());
        assert!(probe.key(b"id").is_none() && probe.key(b"name").is_none());
        assert_eq!(
            each.keys(),
            Some(&[b"active".to_vec(), b"score".to_vec()][..])
        );
        let nested = Each::new("select(.owner.region == \"x\") | .id").expect("native");
        assert!(nested.keys().is_none() && nested.need().is_some());
        let none = Each::new("{id}").expect("native");
        assert!(none.need().is_none() && none.keys().is_none());
    }

    /// Judging by the values of the keys agrees with judging the element.
    #[test]
    fn judging_by_keys_is_judging_the_element() {
        let each = Each::new("select(.a > 1 and (.b == \"x\" or (.a | not)))").expect("native");
        for doc in [
            r#"{"a": 2, "b": "x"}"#,
            r#"{"a": 2, "b": "y"}"#,
            r#"{"a": 0, "b": "x"}"#,
            r#"{"b": "x"}"#,
            r#"{"a": null}"#,
            r#"{}"#,
        ] {
            let v = jaq_json::read::parse_single(doc.as_bytes()).expect("json");
            let Val::Obj(o) = &v else { panic!("object") };
            let values: Vec<Option<Val>> = each
                .keys()
                .expect("keys")
                .iter()
                .map(|k| o.get(&Val::utf8_str(k.clone())).cloned())
                .collect();
            assert_eq!(each.by_keys(Some(&values)), each.by_value(&v), "{doc}");
        }
        assert_eq!(each.by_keys(None), None);
    }
}
