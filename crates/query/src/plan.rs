//! Reading a JSON file for a query without building all of it.
//!
//! A query over a 100 MB file usually looks at a few fields of each item.
//! Building jaq's value tree for the whole file costs about 18× the file
//! size in memory, so the query is analysed first ([`crate::demand`]): the
//! reader then builds only the parts the query can observe
//! ([`crate::projected`]), and programs shaped like `.items[] | F` run on
//! one element at a time ([`crate::shape`]). Whenever the shortcut cannot
//! promise the same answer (a runtime error, a halt, a file the fast reader
//! does not accept), the query runs again on the whole document.

use crate::answer::Answer;
use crate::engine::{self, Collected, Output, Sink};
use crate::errors::QueryError;
use crate::fast::{self, Each};
use crate::need::Need;
use crate::program::{self, Program};
use crate::projected::{ElementSource, Judge};
use crate::projected_yaml::StreamTarget;
use crate::request::Limits;
use crate::{ast, demand, input, projected, shape};
use jaq_json::{Rc, Val};
use std::cell::RefCell;

/// How to read the input of one compiled query.
pub(crate) struct ReadPlan {
    /// What the whole program observes of each document.
    need: Need,
    stream: Option<Stream>,
}

/// A program split to run on the elements of one array.
struct Stream {
    path: Vec<Vec<u8>>,
    /// What `each` observes of one element (`None`: nothing at all, as in
    /// `.items | length`).
    element: Option<Need>,
    each: Rc<Program>,
    /// `each` run natively, when it is that simple.
    fast: Option<Rc<Each>>,
    then: Option<Program>,
    /// `then` when it only looks at one element of a sort of the array.
    pick: Option<Rc<Pick>>,
}

/// `sort_by(K) | .[0]` or `sort_by(K) | .[-1]` at the start of the
/// program run on the streamed array, with a key `K` that runs natively:
/// only the first or the last element of the stable sort is observed, the
/// one with the least key (the first of equal ones) or with the greatest
/// (the last of equal ones). The stream then keeps that one element instead
/// of every element of the array.
struct Pick {
    key: Each,
    last: bool,
    /// The rest of the program, run on the element picked (`null` when the
    /// array is empty, as `.[0]` gives).
    rest: Program,
}

impl Pick {
    fn new(then: &str, code: &str) -> Option<Pick> {
        use jaq_core::load::parse::Term;
        use jaq_core::path::Part;
        let term = ast::parse(then)?;
        let chain = ast::pipe_chain(&term);
        let [sort, index, rest @ ..] = &chain[..] else {
            return None;
        };
        let Term::Call("sort_by", args) = sort else {
            return None;
        };
        let [key] = &args[..] else { return None };
        let Term::Path(head, path) = index else {
            return None;
        };
        let [(Part::Index(at), _)] = &path.0[..] else {
            return None;
        };
        if !matches!(**head, Term::Id) {
            return None;
        }
        let last = match at {
            Term::Num("0") => false,
            Term::Neg(n) if matches!(**n, Term::Num("1")) => true,
            _ => return None,
        };
        let rest = match rest {
            [] => ".".to_string(),
            parts => parts
                .iter()
                .map(|t| ast::print(t, ast::Mode::PLAIN).map(|p| format!("({p})")))
                .collect::<Option<Vec<_>>>()?
                .join(" | "),
        };
        Some(Pick {
            key: Each::new(&ast::print(key, ast::Mode::PLAIN)?)?,
            last,
            rest: program::compile_part(&rest, code)?,
        })
    }
}

/// The element a [`Pick`] keeps, fed the elements of the array in order.
struct Picked {
    pick: Rc<Pick>,
    /// The best key so far (`None`: the key has no value, which sorts
    /// first, as jq's empty list of outputs) and its element.
    best: Option<(Option<Val>, Val)>,
    failed: bool,
}

impl Picked {
    fn new(pick: Rc<Pick>) -> Self {
        Picked {
            pick,
            best: None,
            failed: false,
        }
    }

    /// The element picked (`null` for an empty array), unless the key
    /// could not be computed natively for every element or `each` failed.
    fn into_value(self) -> Option<Val> {
        (!self.failed).then(|| self.best.map_or(Val::Null, |(_, v)| v))
    }
}

impl Sink for Picked {
    fn value(&mut self, v: Val) -> bool {
        let key = match self.pick.key.run(v.clone()) {
            fast::Outcome::One(k) => Some(k),
            fast::Outcome::Nothing => None,
            fast::Outcome::Unsure => {
                self.failed = true;
                return false;
            }
        };
        let better = match &self.best {
            None => true,
            // a stable sort: the last of equal greatest, the first of equal least
            Some((best, _)) if self.pick.last => key >= *best,
            Some((best, _)) => key < *best,
        };
        if better {
            self.best = Some((key, v));
        }
        true
    }
    fn error(&mut self, _: String) {
        self.failed = true;
    }
    fn halt(&mut self) {
        self.failed = true;
    }
    fn done(&self) -> bool {
        self.failed
    }
}

impl ReadPlan {
    /// The plan for `code`, or `None` when the query may observe whole
    /// documents.
    pub(crate) fn new(code: &str) -> Option<ReadPlan> {
        let term = ast::parse(code)?;
        let need = demand::analyze(&term)?;
        // `$__loc__` reports line numbers, which differ in the split program
        let stream = match code.contains("$__loc__") {
            true => None,
            false => shape::shape(&term).and_then(|s| {
                let element = element_need(&need, &s.path);
                Some(Stream {
                    each: Rc::new(program::compile_part(&s.each, code)?),
                    fast: Each::new(&s.each).map(Rc::new),
                    then: match &s.then {
                        Some(g) => Some(program::compile_part(g, code)?),
                        None => None,
                    },
                    pick: s
                        .then
                        .as_deref()
                        .and_then(|g| Pick::new(g, code))
                        .map(Rc::new),
                    path: s.path,
                    element,
                })
            }),
        };
        Some(ReadPlan { need, stream })
    }

    /// Whether the plan streams an array (for tests of the planner's reach).
    #[cfg(test)]
    pub(crate) fn streams(&self) -> bool {
        self.stream.is_some()
    }

    /// Whether the streamed per-element filter runs natively.
    #[cfg(test)]
    pub(crate) fn runs_natively(&self) -> bool {
        self.stream.as_ref().is_some_and(|s| s.fast.is_some())
    }

    /// The same plan with every element run by jaq (the reader before the
    /// native filters), to compare the two.
    #[cfg(test)]
    pub(crate) fn without_native(mut self) -> ReadPlan {
        if let Some(s) = &mut self.stream {
            s.fast = None;
            s.pick = None;
        }
        self
    }
}

/// What the program observes of the elements of the array at `path`;
/// `None` when it never looks at one (not even at its kind).
fn element_need(root: &Need, path: &[Vec<u8>]) -> Option<Need> {
    let mut node = Some(root);
    for key in path {
        node = node.and_then(|n| if n.is_full() { Some(n) } else { n.key(key) });
    }
    match node {
        Some(n) if n.is_full() => Some(n.clone()),
        Some(n) => n.each.as_deref().cloned(),
        None => None,
    }
}

/// Run `program` on a JSON file body along its `plan`. `None`: the plan
/// does not apply (or could not promise the exact answer); run it on the
/// whole documents instead.
pub(crate) fn run_json(
    plan: &ReadPlan,
    program: &Program,
    body: &[u8],
    limits: &Limits,
) -> Option<Result<Answer, QueryError>> {
    if let Some(stream) = &plan.stream
        && let Some(result) = run_stream(stream, body, limits)
    {
        return Some(result);
    }
    let docs = projected::read_all(body, &plan.need).ok()?;
    engine::run_clean(program, Box::new(docs.into_iter().map(Ok)), limits)
}

/// Run `program` on a YAML file along its plan (only the observed parts are
/// built, and `.items[]`-shaped programs stream). `None` as for
/// [`run_json`].
pub(crate) fn run_yaml(
    plan: &ReadPlan,
    program: &Program,
    bytes: &[u8],
    limits: &Limits,
) -> Option<Result<Answer, QueryError>> {
    if let Some(stream) = &plan.stream
        && let Some(result) = run_yaml_stream(stream, bytes, limits)
    {
        return Some(result);
    }
    let docs = input::yaml_projected(bytes, &plan.need)?;
    engine::run_clean(program, Box::new(docs.into_iter().map(Ok)), limits)
}

/// Stream the array of a YAML file through `each`, feeding the results to
/// `sink`; the sink back if the stream was exact.
fn feed_yaml<S: Sink + 'static>(
    s: &Stream,
    parse: impl FnOnce(StreamTarget) -> Option<()>,
    sink: S,
) -> Option<S> {
    let sink = Rc::new(RefCell::new(sink));
    let (native, into) = (s.fast.clone(), sink.clone());
    let each = s.each.clone();
    let target = StreamTarget {
        path: s.path.clone(),
        element: s.element.clone(),
        feed: Box::new(move |v| feed_one(&each, native.as_deref(), v, &mut *into.borrow_mut())),
    };
    engine::reset();
    parse(target)?;
    Rc::into_inner(sink).map(RefCell::into_inner)
}

fn run_yaml_stream(
    s: &Stream,
    bytes: &[u8],
    limits: &Limits,
) -> Option<Result<Answer, QueryError>> {
    run_yaml_parse(s, |target| input::yaml_stream(bytes, target), limits)
}

/// Run `program` on a YAML file read from `reader` along its plan, without
/// holding the file: only plans that stream an array, and files of one
/// document. `None` as for [`run_yaml`] (the caller then reads the file
/// whole).
pub(crate) fn run_yaml_reader(
    plan: &ReadPlan,
    reader: &mut dyn std::io::Read,
    limits: &Limits,
) -> Option<Result<Answer, QueryError>> {
    let s = plan.stream.as_ref()?;
    run_yaml_parse(s, |target| input::yaml_stream_read(reader, target), limits)
}

fn run_yaml_parse(
    s: &Stream,
    parse: impl FnOnce(StreamTarget) -> Option<()>,
    limits: &Limits,
) -> Option<Result<Answer, QueryError>> {
    if let Some(pick) = &s.pick {
        let picked = feed_yaml(s, parse, Picked::new(pick.clone()))?.into_value()?;
        return engine::run_clean(&pick.rest, Box::new(std::iter::once(Ok(picked))), limits);
    }
    match &s.then {
        None => {
            let out = feed_yaml(s, parse, Output::new(limits))?;
            engine::finish_clean(out, &s.each.expression)
        }
        Some(then) => {
            let results = feed_yaml(s, parse, Collected::default())?.into_values()?;
            let array = Val::Arr(Rc::new(results));
            engine::run_clean(then, Box::new(std::iter::once(Ok(array))), limits)
        }
    }
}

fn run_stream(s: &Stream, body: &[u8], limits: &Limits) -> Option<Result<Answer, QueryError>> {
    let elements = projected::Elements::new(body, &s.path, s.element.as_ref());
    run_elements(s, elements, limits)
}

/// Run `program` on a JSON file read from `reader` along its plan, a window
/// at a time, so that the file is never held whole: only plans that stream
/// an array. `None` as for [`run_json`] (the caller then reads the file
/// whole); `window` is the least read at once.
pub(crate) fn run_json_reader(
    plan: &ReadPlan,
    reader: &mut (dyn std::io::Read + Send),
    limits: &Limits,
    window: usize,
) -> Option<Result<Answer, QueryError>> {
    let s = plan.stream.as_ref()?;
    // the next window is read while this one is parsed
    crate::ahead::read_ahead(reader, window, |windows| {
        let elements = projected::ReadElements::new(windows, &s.path, s.element.as_ref());
        run_elements(s, elements, limits)
    })
}

fn run_elements<E: ElementSource>(
    s: &Stream,
    elements: E,
    limits: &Limits,
) -> Option<Result<Answer, QueryError>> {
    if let Some(pick) = &s.pick {
        let picked = feed_json(s, elements, Picked::new(pick.clone()))?.into_value()?;
        return engine::run_clean(&pick.rest, Box::new(std::iter::once(Ok(picked))), limits);
    }
    match &s.then {
        None => {
            let out = feed_json(s, elements, Output::new(limits))?;
            engine::finish_clean(out, &s.each.expression)
        }
        Some(then) => {
            let results = feed_json(s, elements, Collected::default())?.into_values()?;
            let array = Val::Arr(Rc::new(results));
            engine::run_clean(then, Box::new(std::iter::once(Ok(array))), limits)
        }
    }
}

/// Run `each` on one element into `sink`, natively when it is simple enough
/// (`native`); `false` once the sink wants no more.
fn feed_one(each: &Program, native: Option<&Each>, v: Val, sink: &mut dyn Sink) -> bool {
    if let Some(native) = native {
        match native.run(v.clone()) {
            fast::Outcome::One(x) => return sink.value(x) && !sink.done(),
            fast::Outcome::Nothing => return !sink.done(),
            fast::Outcome::Unsure => {}
        }
    }
    engine::feed(each, v, sink)
}

/// Stream the elements of a JSON array through `each`, feeding the results
/// to `sink`; the sink back if the stream was exact. Elements that the
/// leading `select`s of a native `each` drop are judged on a smaller
/// projection and never built further.
fn feed_json<S: Sink, E: ElementSource>(s: &Stream, mut elements: E, mut sink: S) -> Option<S> {
    engine::reset();
    let native = s.fast.as_deref();
    // judge the leading selects first, when that reads less than an element
    let judge = native
        .filter(|f| f.keys().is_some() || f.need().is_some())
        .map(|f| f as &dyn Judge);
    loop {
        let next = elements.next_judged(judge).ok()?;
        let Some(v) = next else { break };
        if !feed_one(&s.each, native, v, &mut sink) {
            break;
        }
    }
    elements.finish().ok()?;
    Some(sink)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(code: &str) -> ReadPlan {
        ReadPlan::new(code).unwrap_or_else(|| panic!("{code} is planned"))
    }

    #[test]
    fn streams_the_typical_shapes() {
        for code in [
            ".items[] | select(.score > 5) | .id",
            ".items | map(select(.group == \"g1\")) | length",
            "[.items[] | .score] | add",
        ] {
            assert!(plan(code).stream.is_some(), "{code} streams");
        }
        // read from the file a window at a time, with the body's answer
        let doc = r#"{"meta": 1, "items": [{"id": 1, "score": 9, "group": "a"}, {"id": 2, "score": 4, "group": "a"}]}"#;
        for code in [
            ".items | length",
            ".items | group_by(.group) | map(length)",
            ".items | sort_by(.score) | .[-1] | {id, score}",
            "[.items[] | select(.score > 5) | {id}] | length",
        ] {
            let plan = plan(code);
            let program = program::compile(code).expect("compiles");
            let body = run_json(&plan, &program, doc.as_bytes(), &Limits::default());
            let mut reader = doc.as_bytes();
            let read = run_json_reader(&plan, &mut reader, &Limits::default(), 7);
            assert!(read.is_some(), "{code}");
            assert_eq!(read, body, "{code}");
        }
        assert!(plan(".items").stream.is_none());
        // the whole array is handed on, built from the streamed elements
        let count = plan(".items | length").stream.expect("streams");
        assert!(count.element.is_none(), "length never looks at an element");
    }

    /// The bench's per-element filters run natively (and the selects judge
    /// a smaller projection first).
    #[test]
    fn simple_filters_run_natively() {
        for (code, probes) in [
            (
                ".items[] | select(.active and .score > 997) | {id, name}",
                true,
            ),
            (
                "[.items[] | select(.score > 990) | {id, name}] | length",
                true,
            ),
            ("[.items[] | .owner.name] | unique | length", false),
            (".items | map(select(.group == \"g07\")) | length", true),
        ] {
            let stream = plan(code).stream.expect("streams");
            let fast = stream.fast.as_ref().expect("native");
            assert_eq!(fast.keys().is_some(), probes, "{code}");
        }
    }

    /// A sort of which one end is taken keeps one element, not the array,
    /// and answers as the whole sort does (the first of equal least keys,
    /// the last of equal greatest ones; `null` for an empty array).
    #[test]
    fn picks_an_end_of_a_sort() {
        let doc = r#"{"items": [{"id": 1, "s": 2}, {"id": 2, "s": 9}, {"id": 3, "s": 2},
            {"id": 4, "s": 9}, {"id": 5}, {"id": 6, "s": null}, {"id": 7}], "empty": []}"#;
        for (code, picks) in [
            (".items | sort_by(.s) | .[-1] | {id, s}", true),
            (".items | sort_by(.s) | .[0] | .id", true),
            (".items | sort_by(.s) | .[-1]", true),
            (".items | sort_by(select(.s != null) | .s) | .[0]", true),
            (".empty | sort_by(.s) | .[-1] | .id", true),
            (".items | sort_by(.s) | .[1] | .id", false),
            (".items | sort_by(.s, .id) | .[0] | .id", false),
            (".items | sort_by(.s) | .[-1:]", false),
        ] {
            let plan = plan(code);
            let stream = plan.stream.as_ref().expect("streams");
            assert_eq!(stream.pick.is_some(), picks, "{code}");
            let program = program::compile(code).expect("compiles");
            let picked = run_json(&plan, &program, doc.as_bytes(), &Limits::default());
            let sorted = run_json(
                &plan.without_native(),
                &program,
                doc.as_bytes(),
                &Limits::default(),
            );
            assert!(picked.is_some(), "{code}");
            assert_eq!(picked, sorted, "{code}");
        }
        // a key that jq cannot take of an element: the whole sort decides
        let odd = r#"{"items": [{"s": 1}, 5]}"#;
        let code = ".items | sort_by(.s) | .[-1]";
        let program = program::compile(code).expect("compiles");
        assert!(run_json(&plan(code), &program, odd.as_bytes(), &Limits::default()).is_none());
    }

    /// The streamed shapes really stream a YAML file, not just plan to.
    #[test]
    fn yaml_streams_the_typical_shapes() {
        let doc = "meta:\n  first: 2\nbase: &b\n  group: g1\n  owner: {name: o, region: eu}\n\
         items:\n  - id: 1\n    name: a\n    active: true\n    score: 10\n    tags: [x, y]\n    <<: *b\n\
         \n  - id: 2\n    name: b\n    active: no\n    score: 99.5\n    group: g2\n\
         \n  - {id: 3, name: c, score: -3, owner: null, 1: one, true: t}\nn: 3\n";
        for code in [".items[] | .id", "[.items[] | .score] | add"] {
            let stream = plan(code).stream.expect("streams");
            let answer = run_yaml_stream(&stream, doc.as_bytes(), &Limits::default());
            assert!(answer.is_some(), "{code}");
            // and as the file is read, never held whole
            let mut reader = doc.as_bytes();
            let read = run_yaml_reader(&plan(code), &mut reader, &Limits::default());
            assert_eq!(read, answer, "{code}");
        }
    }
}
