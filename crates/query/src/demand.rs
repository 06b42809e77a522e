//! Static analysis of a jq program: which parts of its input it can observe.
//!
//! The analysis follows values through the program as sets of *origins*: a
//! path into the input document (`.items[].score`), or an array/object the
//! program builds. Every operation that looks at a value records how much of
//! it it looks at in a [`Need`] trie (`length` looks at the size, `==` at
//! everything, `.a` only at the key `a`); what reaches the output is looked
//! at completely.
//!
//! It must never miss a need: anything it does not understand (user
//! definitions, `input`, `try … catch`, unknown shapes, runaway folds) makes
//! it give up, and the caller reads the whole document. Asking for too much
//! only costs speed.

use crate::ast::{Literal, literal, literal_str};
use crate::need::{Level, Need, Step};
use jaq_core::load::lex::StrPart;
use jaq_core::load::parse::{BinaryOp, Pattern, Term};
use jaq_core::path::Part;
use std::collections::BTreeSet;

/// Where a value computed by the program can come from.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Origin {
    /// The input document at this path.
    Doc(Vec<Step>),
    /// An array the program builds, with elements from these values.
    Arr(Values),
    /// An object the program builds: its keys (`None`: computed) and values.
    Obj(Vec<(Option<Vec<u8>>, Values)>),
}

/// A set of origins. The empty set is a value built only from what was
/// already recorded as observed (literals, numbers computed from the input,
/// ...), so nothing more of the input is needed for it.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
struct Values(BTreeSet<Origin>);

/// The analysis gave up: the whole document must be read.
#[derive(Debug)]
struct GiveUp;

type An = Result<Values, GiveUp>;

/// Bounds that keep the analysis small and finite.
const MAX_ORIGINS: usize = 64;
const MAX_NESTING: usize = 8;
const MAX_PATH: usize = 64;
const MAX_TERMS: usize = 20_000;
const FOLD_ROUNDS: usize = 8;

/// What `program` observes of its input, or `None` when it may observe all
/// of it (or the analysis cannot tell).
pub(crate) fn analyze(program: &Term<&str>) -> Option<Need> {
    let mut a = Analyzer {
        need: Need::default(),
        vars: Vec::new(),
        terms: 0,
    };
    let root = Values::doc(Vec::new());
    let out = a.term(program, &root).ok()?;
    a.full(&out);
    let mut need = a.need;
    need.normalize();
    (!need.is_full()).then_some(need)
}

impl Values {
    fn doc(path: Vec<Step>) -> Values {
        Values(BTreeSet::from([Origin::Doc(path)]))
    }

    fn one(o: Origin) -> Values {
        Values(BTreeSet::from([o]))
    }

    fn union(mut self, other: Values) -> An {
        self.0.extend(other.0);
        if self.0.len() > MAX_ORIGINS {
            return Err(GiveUp);
        }
        Ok(self)
    }
}

fn nesting(o: &Origin) -> usize {
    let inner = |v: &Values| v.0.iter().map(nesting).max().unwrap_or(0);
    match o {
        Origin::Doc(_) => 0,
        Origin::Arr(v) => 1 + inner(v),
        Origin::Obj(es) => 1 + es.iter().map(|(_, v)| inner(v)).max().unwrap_or(0),
    }
}

struct Analyzer<'s> {
    need: Need,
    /// Variables in scope, innermost last.
    vars: Vec<(&'s str, Values)>,
    terms: usize,
}

impl<'s> Analyzer<'s> {
    /// Record that all of `v` is observed.
    fn full(&mut self, v: &Values) {
        for o in &v.0 {
            match o {
                Origin::Doc(p) => self.need.mark(p, Level::Full),
                Origin::Arr(x) => self.full(x),
                Origin::Obj(es) => es.iter().for_each(|(_, x)| self.full(x)),
            }
        }
    }

    /// Record that the kind and size of `v` are observed. A value the program
    /// built has them already.
    fn shallow(&mut self, v: &Values) {
        for o in &v.0 {
            if let Origin::Doc(p) = o {
                self.need.mark(p, Level::Shallow);
            }
        }
    }

    fn step(&mut self, path: &[Step], step: Step) -> An {
        if path.len() >= MAX_PATH {
            return Err(GiveUp);
        }
        let mut p = path.to_vec();
        p.push(step);
        self.need.mark(&p, Level::Reached);
        Ok(Values::doc(p))
    }

    /// `.[]`, `.[n]`: any element or value.
    fn each(&mut self, v: &Values) -> An {
        let mut out = Values::default();
        for o in &v.0 {
            let part = match o {
                Origin::Doc(p) => self.step(p, Step::Each)?,
                Origin::Arr(x) => x.clone(),
                Origin::Obj(es) => {
                    let mut u = Values::default();
                    for (_, x) in es {
                        u = u.union(x.clone())?;
                    }
                    u
                }
            };
            out = out.union(part)?;
        }
        Ok(out)
    }

    /// `.k`.
    fn key(&mut self, v: &Values, k: &[u8]) -> An {
        let mut out = Values::default();
        for o in &v.0 {
            let part = match o {
                Origin::Doc(p) => self.step(p, Step::Key(k.to_vec()))?,
                // indexing an array by a key fails: no value flows on
                Origin::Arr(_) => Values::default(),
                Origin::Obj(es) => {
                    let mut u = Values::default();
                    for (key, x) in es {
                        if key.as_deref().is_none_or(|key| key == k) {
                            u = u.union(x.clone())?;
                        }
                    }
                    u
                }
            };
            out = out.union(part)?;
        }
        Ok(out)
    }

    fn built(&self, o: Origin) -> An {
        if nesting(&o) > MAX_NESTING {
            return Err(GiveUp);
        }
        Ok(Values::one(o))
    }

    fn var(&self, name: &str) -> An {
        if let Some((_, v)) = self.vars.iter().rev().find(|(n, _)| *n == name) {
            return Ok(v.clone());
        }
        match name {
            // built from nothing in the input
            "$__loc__" | "$ENV" | "$__prog_name" => Ok(Values::default()),
            _ => Err(GiveUp),
        }
    }

    fn term(&mut self, t: &Term<&'s str>, input: &Values) -> An {
        self.terms += 1;
        if self.terms > MAX_TERMS {
            return Err(GiveUp);
        }
        match t {
            Term::Id => Ok(input.clone()),
            Term::Recurse => {
                self.full(input);
                Ok(input.clone())
            }
            Term::Num(_) | Term::Break(_) | Term::Arr(None) => Ok(Values::default()),
            Term::Str(_, parts) => {
                for p in parts {
                    if let StrPart::Term(t) = p {
                        let v = self.term(t, input)?;
                        self.full(&v);
                    }
                }
                Ok(Values::default())
            }
            Term::Arr(Some(t)) => {
                let v = self.term(t, input)?;
                self.built(Origin::Arr(v))
            }
            Term::Obj(entries) => self.object(entries, input),
            Term::Neg(t) => {
                let v = self.term(t, input)?;
                self.full(&v);
                Ok(Values::default())
            }
            Term::BinOp(l, op, r) => self.binop(l, op, r, input),
            Term::Label(_, t) => self.term(t, input),
            Term::Fold(kind, xs, pat, args) => self.fold(kind, xs, pat, args, input),
            // `f?` and `try f` drop errors; a `catch` could show an error
            // message that quotes a value, so it needs the whole value
            Term::TryCatch(t, None) => self.term(t, input),
            Term::TryCatch(_, Some(_)) | Term::Def(..) => Err(GiveUp),
            Term::IfThenElse(branches, otherwise) => {
                let mut out = Values::default();
                for (cond, then) in branches {
                    let c = self.term(cond, input)?;
                    self.shallow(&c);
                    out = out.union(self.term(then, input)?)?;
                }
                let rest = match otherwise {
                    Some(e) => self.term(e, input)?,
                    None => input.clone(),
                };
                out.union(rest)
            }
            Term::Call(name, args) => self.call(name, args, input),
            Term::Var(name) => self.var(name),
            Term::Path(head, path) => self.path(head, &path.0, input),
        }
    }

    fn object(&mut self, entries: &[(Term<&'s str>, Option<Term<&'s str>>)], input: &Values) -> An {
        let mut out = Vec::new();
        for (k, v) in entries {
            let key = match k {
                Term::Str(None, parts) => literal_str(parts),
                Term::Var(name) if v.is_none() => Some(name.trim_start_matches('$').into()),
                _ => None,
            };
            let value = match (v, &key) {
                (Some(v), _) => self.term(v, input)?,
                (None, Some(key)) => match k {
                    Term::Var(name) => self.var(name)?,
                    _ => self.key(input, key)?,
                },
                // `{"\(f)"}`: the value of a computed key
                (None, None) => {
                    self.full(input);
                    self.each(input)?
                }
            };
            if key.is_none() {
                let kv = self.term(k, input)?;
                self.full(&kv);
            }
            out.push((key, value));
        }
        self.built(Origin::Obj(out))
    }

    fn binop(
        &mut self,
        l: &Term<&'s str>,
        op: &BinaryOp<&'s str>,
        r: &Term<&'s str>,
        input: &Values,
    ) -> An {
        match op {
            BinaryOp::Pipe(None) => {
                let lv = self.term(l, input)?;
                self.term(r, &lv)
            }
            BinaryOp::Pipe(Some(pat)) => {
                let lv = self.term(l, input)?;
                let scope = self.vars.len();
                self.bind(pat, &lv, input)?;
                let out = self.term(r, input);
                self.vars.truncate(scope);
                out
            }
            BinaryOp::Comma => {
                let lv = self.term(l, input)?;
                lv.union(self.term(r, input)?)
            }
            BinaryOp::Alt => {
                let lv = self.term(l, input)?;
                self.shallow(&lv);
                lv.union(self.term(r, input)?)
            }
            BinaryOp::Or | BinaryOp::And => {
                let lv = self.term(l, input)?;
                let rv = self.term(r, input)?;
                self.shallow(&lv);
                self.shallow(&rv);
                Ok(Values::default())
            }
            BinaryOp::Math(_) | BinaryOp::Cmp(_) => {
                let lv = self.term(l, input)?;
                let rv = self.term(r, input)?;
                self.full(&lv);
                self.full(&rv);
                Ok(Values::default())
            }
            // updates return the whole input, changed
            BinaryOp::Assign | BinaryOp::Update | BinaryOp::UpdateMath(_) | BinaryOp::UpdateAlt => {
                self.full(input);
                let lv = self.term(l, input)?;
                let rv = self.term(r, input)?;
                self.full(&lv);
                self.full(&rv);
                Ok(input.clone())
            }
        }
    }

    /// Bind the variables of a destructuring pattern to parts of `v`.
    fn bind(&mut self, pat: &Pattern<&'s str>, v: &Values, input: &Values) -> Result<(), GiveUp> {
        match pat {
            Pattern::Var(name) => self.vars.push((name, v.clone())),
            Pattern::Arr(ps) => {
                let e = self.each(v)?;
                for p in ps {
                    self.bind(p, &e, input)?;
                }
            }
            Pattern::Obj(kps) => {
                for (k, p) in kps {
                    let part = match k {
                        Term::Str(None, parts) => match literal_str(parts) {
                            Some(key) => self.key(v, &key)?,
                            None => self.dynamic_key(k, v, input)?,
                        },
                        _ => self.dynamic_key(k, v, input)?,
                    };
                    self.bind(p, &part, input)?;
                }
            }
        }
        Ok(())
    }

    fn dynamic_key(&mut self, k: &Term<&'s str>, v: &Values, input: &Values) -> An {
        let kv = self.term(k, input)?;
        self.full(&kv);
        self.full(v);
        self.each(v)
    }

    fn fold(
        &mut self,
        kind: &str,
        xs: &Term<&'s str>,
        pat: &Pattern<&'s str>,
        args: &[Term<&'s str>],
        input: &Values,
    ) -> An {
        let (init, update, extract) = match (kind, args) {
            (_, [init, update]) => (init, update, None),
            ("foreach", [init, update, extract]) => (init, update, Some(extract)),
            _ => return Err(GiveUp),
        };
        let source = self.term(xs, input)?;
        let mut state = self.term(init, input)?;
        let scope = self.vars.len();
        self.bind(pat, &source, input)?;
        let mut settled = false;
        for _ in 0..FOLD_ROUNDS {
            let next = self.term(update, &state)?;
            let grown = state.clone().union(next)?;
            if grown == state {
                settled = true;
                break;
            }
            state = grown;
        }
        let out = match (settled, extract) {
            (false, _) => Err(GiveUp),
            (true, Some(e)) => self.term(e, &state),
            (true, None) => Ok(state),
        };
        self.vars.truncate(scope);
        out
    }

    fn path(
        &mut self,
        head: &Term<&'s str>,
        parts: &[(Part<Term<&'s str>>, jaq_core::path::Opt)],
        input: &Values,
    ) -> An {
        let mut v = self.term(head, input)?;
        // index expressions may be evaluated on the input or on the value
        // indexed so far: analyse them on both
        let mut seen = input.clone().union(v.clone())?;
        for (part, _) in parts {
            match part {
                Part::Index(i) => match literal(i) {
                    Some(Literal::Key(k)) => v = self.key(&v, &k)?,
                    Some(Literal::Position) => v = self.each(&v)?,
                    None => {
                        let iv = self.term(i, &seen)?;
                        self.full(&iv);
                        self.full(&v);
                        v = self.each(&v)?;
                    }
                },
                Part::Range(None, None) => v = self.each(&v)?,
                // a slice holds elements of `v`: keep `v` as its origin
                Part::Range(from, upto) => {
                    for bound in [from, upto].into_iter().flatten() {
                        let b = self.term(bound, &seen)?;
                        self.full(&b);
                    }
                    self.shallow(&v);
                }
            }
            seen = seen.union(v.clone())?;
        }
        Ok(v)
    }

    fn args(&mut self, args: &[Term<&'s str>], input: &Values) -> Result<(), GiveUp> {
        for a in args {
            let v = self.term(a, input)?;
            self.full(&v);
        }
        Ok(())
    }

    fn call(&mut self, name: &str, args: &[Term<&'s str>], input: &Values) -> An {
        let none = Values::default();
        match (name, args) {
            ("empty" | "halt", []) => Ok(none),
            (
                "true" | "false" | "null" | "nan" | "infinite" | "now" | "input_line_number"
                | "input_filename" | "builtins" | "env",
                [],
            ) => Ok(none),
            // built from the arguments only
            ("range", [_] | [_, _] | [_, _, _]) | ("error", [_]) => {
                self.args(args, input)?;
                Ok(none)
            }
            ("input" | "inputs", []) => Err(GiveUp),
            ("not" | "length" | "utf8bytelength" | "type" | "keys" | "keys_unsorted", []) => {
                self.shallow(input);
                Ok(none)
            }
            (
                "arrays" | "objects" | "iterables" | "booleans" | "numbers" | "strings" | "nulls"
                | "values" | "scalars",
                [],
            ) => {
                self.shallow(input);
                Ok(input.clone())
            }
            ("select", [cond]) => {
                let c = self.term(cond, input)?;
                self.shallow(&c);
                Ok(input.clone())
            }
            ("has", [_]) => {
                self.shallow(input);
                self.args(args, input)?;
                Ok(none)
            }
            ("map", [f]) => {
                let e = self.each(input)?;
                let v = self.term(f, &e)?;
                self.built(Origin::Arr(v))
            }
            ("first" | "last", []) => self.each(input),
            ("first" | "last", [f]) => self.term(f, input),
            ("limit", [n, f]) | ("nth", [n, f]) => {
                self.args(std::slice::from_ref(n), input)?;
                self.term(f, input)
            }
            ("nth", [_]) => {
                self.args(args, input)?;
                self.each(input)
            }
            ("add", []) => {
                let e = self.each(input)?;
                self.full(&e);
                Ok(none)
            }
            ("any" | "all", []) => {
                let e = self.each(input)?;
                self.shallow(&e);
                Ok(none)
            }
            ("any" | "all", [cond]) => {
                let e = self.each(input)?;
                let c = self.term(cond, &e)?;
                self.shallow(&c);
                Ok(none)
            }
            ("any" | "all", [source, cond]) => {
                let g = self.term(source, input)?;
                let c = self.term(cond, &g)?;
                self.shallow(&c);
                Ok(none)
            }
            ("sort" | "unique", []) => {
                let e = self.each(input)?;
                self.full(&e);
                self.built(Origin::Arr(e))
            }
            ("min" | "max", []) => {
                let e = self.each(input)?;
                self.full(&e);
                Ok(e)
            }
            ("reverse", []) => {
                self.shallow(input);
                let e = self.each(input)?;
                self.built(Origin::Arr(e))
            }
            ("sort_by" | "unique_by" | "group_by" | "min_by" | "max_by", [f]) => {
                let e = self.each(input)?;
                let k = self.term(f, &e)?;
                self.full(&k);
                match name {
                    "group_by" => {
                        let group = self.built(Origin::Arr(e))?;
                        self.built(Origin::Arr(group))
                    }
                    "min_by" | "max_by" => Ok(e),
                    _ => self.built(Origin::Arr(e)),
                }
            }
            ("to_entries", []) => {
                self.shallow(input);
                let e = self.each(input)?;
                let entry = self.built(Origin::Obj(vec![
                    (Some(b"key".to_vec()), Values::default()),
                    (Some(b"value".to_vec()), e),
                ]))?;
                self.built(Origin::Arr(entry))
            }
            ("recurse", []) | ("debug" | "stderr", []) => {
                self.full(input);
                Ok(input.clone())
            }
            // Any other builtin computes its result from its input and its
            // arguments only: observe all of both.
            _ => {
                self.full(input);
                self.args(args, input)?;
                Ok(none)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The observed paths of a program, as `path:level` strings.
    fn needs(code: &str) -> Option<Vec<String>> {
        let term = crate::ast::parse(code).expect("parses");
        let need = analyze(&term)?;
        let mut out = Vec::new();
        fn walk(n: &Need, path: String, out: &mut Vec<String>) {
            let level = match n.level {
                Level::Reached => "r",
                Level::Shallow => "s",
                Level::Full => "f",
            };
            out.push(format!("{path}:{level}"));
            for (k, c) in &n.keys {
                walk(c, format!("{path}.{}", String::from_utf8_lossy(k)), out);
            }
            if let Some(e) = &n.each {
                walk(e, format!("{path}[]"), out);
            }
        }
        walk(&need, String::new(), &mut out);
        Some(out)
    }

    #[test]
    fn length_needs_only_the_size() {
        assert_eq!(
            needs(".items | length").unwrap(),
            [":r", ".items:s"].map(String::from)
        );
    }

    #[test]
    fn select_and_projection() {
        let n = needs(".items[] | select(.active and .score > 997) | {id, name}").unwrap();
        for want in [
            ".items[].active:s",
            ".items[].score:f",
            ".items[].id:f",
            ".items[].name:f",
        ] {
            assert!(n.contains(&want.to_string()), "{want} in {n:?}");
        }
        assert!(!n.iter().any(|p| p.contains("owner")), "{n:?}");
    }

    #[test]
    fn group_by_follows_built_arrays() {
        let n = needs(
            ".items | map(select(.group == \"g07\")) | group_by(.owner.region) \
             | map({region: .[0].owner.region, n: length, total: (map(.score) | add)})",
        )
        .unwrap();
        for want in [
            ".items[].group:f",
            ".items[].owner.region:f",
            ".items[].score:f",
        ] {
            assert!(n.contains(&want.to_string()), "{want} in {n:?}");
        }
        assert!(
            !n.iter().any(|p| p.contains(".name") || p.contains(".tags")),
            "{n:?}"
        );
    }

    #[test]
    fn variables_carry_origins() {
        let n = needs(".meta as $m | .items[] | select(.id == $m.first) | .name").unwrap();
        assert!(n.contains(&".meta.first:f".to_string()), "{n:?}");
        let n = needs("reduce .items[] as $i (0; . + $i.score)").unwrap();
        assert!(n.contains(&".items[].score:f".to_string()), "{n:?}");
    }

    #[test]
    fn gives_up_when_it_cannot_tell() {
        for code in [
            ".",
            "..",
            "tostring",
            "def f: .a; f",
            "input",
            "try error(.) catch .",
            "reduce range(10) as $i (.; .[])",
            ".[.key]",
        ] {
            assert_eq!(needs(code), None, "{code}");
        }
    }
}
