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
