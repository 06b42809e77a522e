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

use crate::engine::{self, Collected, Output, Program, Sink};
use crate::errors::QueryError;
use crate::need::Need;
use crate::projected_yaml::StreamTarget;
use crate::{Limits, demand, projected, shape};
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
    /// What `each` observes of one element.
    element: Need,
    each: Rc<Program>,
    then: Option<Program>,
}

impl ReadPlan {
    /// The plan for `code`, or `None` when the query may observe whole
    /// documents.
    pub(crate) fn new(code: &str) -> Option<ReadPlan> {
        let term = jaq_core::load::parse(code, |p| p.term())?;
        let need = demand::analyze(&term)?;
        // `$__loc__` reports line numbers, which differ in the split program
        let stream = match code.contains("$__loc__") {
            true => None,
            false => shape::shape(&term).and_then(|s| {
                let element = element_need(&need, &s.path);
                Some(Stream {
                    each: Rc::new(engine::compile_part(&s.each, code)?),
                    then: match &s.then {
                        Some(g) => Some(engine::compile_part(g, code)?),
                        None => None,
                    },
                    path: s.path,
                    element,
                })
            }),
        };
        Some(ReadPlan { need, stream })
    }
}

/// What the program observes of the elements of the array at `path`.
fn element_need(root: &Need, path: &[Vec<u8>]) -> Need {
    let mut node = Some(root);
    for key in path {
        node = node.and_then(|n| if n.is_full() { Some(n) } else { n.key(key) });
    }
    match node {
        Some(n) if n.is_full() => n.clone(),
        Some(n) => n.each.as_deref().cloned().unwrap_or_default(),
        None => Need::default(),
    }
}

/// Run `program` on a JSON file body along its plan. `None`: the plan does
/// not apply (or could not promise the exact answer); run it on the whole
/// documents instead.
pub(crate) fn run_json(
    program: &Program,
    body: &[u8],
    limits: &Limits,
) -> Option<Result<String, QueryError>> {
    let plan = program.plan.as_ref()?;
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
    program: &Program,
    bytes: &[u8],
    limits: &Limits,
) -> Option<Result<String, QueryError>> {
    let plan = program.plan.as_ref()?;
    if let Some(stream) = &plan.stream
        && let Some(result) = run_yaml_stream(stream, bytes, limits)
    {
        return Some(result);
    }
    let docs = crate::input::yaml_projected(bytes, &plan.need)?;
    engine::run_clean(program, Box::new(docs.into_iter().map(Ok)), limits)
}

/// Stream the array of a YAML file through `each`, feeding the results to
/// `sink`; the sink back if the stream was exact.
fn feed_yaml<S: Sink + 'static>(s: &Stream, bytes: &[u8], sink: S) -> Option<S> {
    let sink = Rc::new(RefCell::new(sink));
    let (each, into) = (s.each.clone(), sink.clone());
    let target = StreamTarget {
        path: s.path.clone(),
        element: s.element.clone(),
        feed: Box::new(move |v| engine::feed(&each, v, &mut *into.borrow_mut())),
    };
    engine::reset();
    crate::input::yaml_stream(bytes, target)?;
    Rc::into_inner(sink).map(RefCell::into_inner)
}

fn run_yaml_stream(
    s: &Stream,
    bytes: &[u8],
    limits: &Limits,
) -> Option<Result<String, QueryError>> {
    match &s.then {
        None => {
            let out = feed_yaml(s, bytes, Output::new(limits))?;
            engine::finish_clean(out, &s.each.expression)
        }
        Some(then) => {
            let results = feed_yaml(s, bytes, Collected::default())?.into_values()?;
            let array = Val::Arr(Rc::new(results));
            engine::run_clean(then, Box::new(std::iter::once(Ok(array))), limits)
        }
    }
}

fn run_stream(s: &Stream, body: &[u8], limits: &Limits) -> Option<Result<String, QueryError>> {
    let mut elements = projected::Elements::new(body, &s.path, &s.element);
    match &s.then {
        None => {
            let result = engine::run_clean(&s.each, Box::new(elements.by_ref().map(Ok)), limits);
            elements.finish().ok()?;
            result
        }
        Some(then) => {
            let results = engine::collect(&s.each, Box::new(elements.by_ref().map(Ok)));
            elements.finish().ok()?;
            let array = Val::Arr(Rc::new(results?));
            engine::run_clean(then, Box::new(std::iter::once(Ok(array))), limits)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::InputFormat;

    /// Documents with the shapes the plans must get right: missing keys,
    /// nulls, wrong types, nested arrays, escaped and duplicate keys.
    const DOCS: &[&str] = &[
        r#"{"meta": {"first": 2, "name": "m"}, "items": [
            {"id": 1, "name": "a", "active": true, "score": 10, "group": "g1",
             "tags": ["x", "y"], "owner": {"name": "o1", "region": "eu"}, "history": [1, 2]},
            {"id": 2, "name": "b", "active": false, "score": 99.5, "group": "g2",
             "tags": [], "owner": {"name": "o2", "region": "us"}, "history": []},
            {"id": 3, "name": "c", "active": null, "score": -3, "group": "g1",
             "owner": null, "extra": {"deep": [{"k": 1}]}},
            {"id": 4, "name": "d\u00e9", "score": 1e2, "group": "g2", "tags": ["z"],
             "owner": {"name": "o4"}, "a\u0062": 5},
            {"id": 5, "score": 7, "group": "g3", "owner": {"region": "ap"}, "id": 6}
        ], "empty": [], "n": 3}"#,
        r#"[{"id": 1, "score": 2}, {"id": 2, "score": 5, "tags": ["t"]}, 7, "s", null]"#,
        "{\"id\": 1, \"items\": [1, 2]}\n{\"id\": 2, \"items\": []}\n{\"id\": 3}\n",
        r#"{"items": {"a": {"id": 1, "score": 3}, "b": {"id": 2, "score": 4}}}"#,
        r#"{"items": [{"id": 1}], "items": [{"id": 2}, {"id": 3}]}"#,
        r#"{"items": "not an array", "meta": 1}"#,
        r#"{"items": [1, {"id": 2}, [3], "x", true]}"#,
        "42",
    ];

    /// Queries the analysis handles (all plan or stream), and a few it
    /// gives up on.
    const QUERIES: &[&str] = &[
        ".items | length",
        ".items[] | .id",
        ".items[] | select(.active and .score > 5) | {id, name}",
        ".items | map(select(.group == \"g1\")) | group_by(.owner.region) \
         | map({region: .[0].owner.region, n: length, total: (map(.score) | add)})",
        "[.items[] | .score] | add",
        ".items | map(.name) | join(\",\")",
        ".items[0]",
        ".items[-1].owner",
        ".items[1:3] | length",
        ".items[1:3][] | .id",
        ".items | keys",
        ".items | .[] | has(\"tags\")",
        ".items[] | .tags // [\"none\"]",
        ".items[] | .tags[]?",
        ".items[]? | .owner?.region?",
        ".items[] | (.owner | type), (.tags | length?)",
        ".meta as $m | .items[] | select(.id == $m.first) | .name",
        "reduce .items[] as $i (0; . + ($i.score // 0))",
        "foreach .items[] as $i (0; . + 1; [., $i.id])",
        ".items[] as {id: $x, owner: {region: $r}} | [$x, $r]",
        ".items | to_entries | map(.key)",
        ".items | to_entries | map(select(.value.score > 5) | .value.id)",
        ".items | sort_by(.score) | map(.id)",
        ".items | unique_by(.group) | length",
        ".items | min_by(.score) | .id",
        ".items | max_by(.score).name",
        ".items | first, last | .id?",
        "first(.items[] | select(.score > 5)) | .id",
        "limit(2; .items[] | .id)",
        ".items | any(.active)",
        ".items | all(.score > 0)",
        ".items | map(.tags | length?) | add",
        "if .n then .items | length else .meta end",
        ".items[] | if .active then \"on\" elif .active == false then \"off\" else .name end",
        ".items[] | \"\\(.id)-\\(.name)\"",
        ".items[] | .owner.region | select(. != null) | ascii_downcase",
        ".items[] | {(.name // \"?\"): .score}",
        ".items[] | .[\"ab\"]",
        ".items[] | .ab",
        ".items[] | .extra.deep[0].k",
        ".items | [.[] | .id] | reverse",
        ".items | map(.score) | sort | .[0]",
        ".items[] | objects | .id",
        ".items[] | numbers",
        ".items | .[] | values | type",
        ".[] | .id?",
        ".[]?",
        ".items[] | .id | 1",
        ".items[] | select(.active) | .id",
        ".items[] | select(.owner) | .name",
        ".items[] | select(.tags) | .tags | length",
        ".items | map(has(\"extra\")) | any",
        ".items[] | .owner | keys",
        "[.items[] | .owner | length] | max",
        "[.items[] | select(.score > 5)] | length",
        ".items[] | select(has(\"tags\")) | .tags | length",
        ".items[] | keys_unsorted",
        ".items[] | length",
        ".items[] | to_entries | length",
        ".items[] | tostring",
        ".meta | .name, .first",
        ".empty | length, .[0]",
        "[.items[].id] | add",
        ".items | length as $n | .[] | .score / $n",
        "label $out | .items[] | if .id == 3 then ., break $out else .id end",
        ".items[] | try .owner.region",
        ".items[] | .score |= . + 1",
        "..",
        "tostring",
        "def f: .id; .items[] | f",
        "try (.items[] | .name | ascii_downcase) catch \"err\"",
        ".items[] | .name | ascii_downcase",
        ".items | map(.id) | error",
        "input",
        ".items[] | halt",
    ];

    fn run(program: &Program, body: &str) -> Result<String, QueryError> {
        crate::run_program(
            program,
            body.as_bytes(),
            InputFormat::Json,
            &Limits::default(),
            false,
        )
    }

    /// Every query gives exactly the answer of the whole-document run, on
    /// every document.
    #[test]
    fn plans_answer_like_whole_documents() {
        let mut planned = 0;
        let mut shortcut = 0;
        for code in QUERIES {
            let program = engine::compile(code).expect("compiles");
            planned += usize::from(program.plan.is_some());
            let mut whole = engine::compile(code).expect("compiles");
            whole.plan = None;
            for doc in DOCS {
                let got = run(&program, doc);
                let want = run(&whole, doc);
                assert_eq!(got, want, "query {code}\non {doc}");
            }
            let main = DOCS[0].as_bytes();
            if run_json(&program, main, &Limits::default()).is_some() {
                shortcut += 1;
            } else {
                eprintln!("whole document: {code}");
            }
        }
        // the shortcut is really taken, not just always refused
        assert!(planned >= QUERIES.len() - 10, "{planned} planned");
        assert!(shortcut >= QUERIES.len() - 12, "{shortcut} shortcuts");
    }

    /// YAML documents: merge keys, anchors, non-string keys, several
    /// documents, YAML 1.2 booleans.
    const YAML_DOCS: &[&str] = &[
        "meta:\n  first: 2\nbase: &b\n  group: g1\n  owner: {name: o, region: eu}\n\
         items:\n  - id: 1\n    name: a\n    active: true\n    score: 10\n    tags: [x, y]\n    <<: *b\n\
         \n  - id: 2\n    name: b\n    active: no\n    score: 99.5\n    group: g2\n\
         \n  - {id: 3, name: c, score: -3, owner: null, 1: one, true: t}\nn: 3\n",
        "---\nitems: [1, 2]\nid: 1\n---\nitems: []\nid: 2\n---\nid: 3\n",
        "- id: 1\n  score: 2\n- id: 2\n  score: .inf\n- 7\n- s\n",
        "items:\n  a: {id: 1, score: 3}\n  b: {id: 2, score: 4}\n",
        "{\"items\": [{\"id\": 1}], \"items\": [{\"id\": 2}]}",
        "base: &b\n  items: [{id: 9, score: 1}]\n<<: *b\n",
        "base: &b\n  items: [{id: 9}]\n<<: *b\nitems: [{id: 10, score: 6}]\n",
        "items: &i [{id: 1, score: 9}]\nagain: *i\n",
    ];

    #[test]
    fn yaml_plans_answer_like_whole_documents() {
        let mut shortcut = 0;
        for code in QUERIES {
            let program = engine::compile(code).expect("compiles");
            let mut whole = engine::compile(code).expect("compiles");
            whole.plan = None;
            for doc in YAML_DOCS {
                let yaml = |p: &Program| {
                    crate::run_program(
                        p,
                        doc.as_bytes(),
                        InputFormat::Yaml,
                        &Limits::default(),
                        false,
                    )
                };
                assert_eq!(yaml(&program), yaml(&whole), "query {code}\non {doc}");
            }
            let main = YAML_DOCS[0].as_bytes();
            shortcut += usize::from(run_yaml(&program, main, &Limits::default()).is_some());
        }
        assert!(shortcut >= QUERIES.len() / 2, "{shortcut} shortcuts");
        // and the streamed shapes really stream
        for code in [".items[] | .id", "[.items[] | .score] | add"] {
            let program = engine::compile(code).expect("compiles");
            let stream = program.plan.as_ref().and_then(|p| p.stream.as_ref());
            let stream = stream.expect("streams");
            let main = YAML_DOCS[0].as_bytes();
            assert!(
                run_yaml_stream(stream, main, &Limits::default()).is_some(),
                "{code}"
            );
        }
    }

    #[test]
    fn streams_the_typical_shapes() {
        for code in [
            ".items[] | select(.score > 5) | .id",
            ".items | map(select(.group == \"g1\")) | length",
            "[.items[] | .score] | add",
        ] {
            let program = engine::compile(code).expect("compiles");
            let plan = program.plan.as_ref().expect("planned");
            assert!(plan.stream.is_some(), "{code} streams");
        }
        let program = engine::compile(".items | length").expect("compiles");
        assert!(program.plan.as_ref().is_some_and(|p| p.stream.is_none()));
    }

    #[test]
    fn parse_errors_come_from_the_ordinary_reader() {
        let program = engine::compile(".items[] | .id").expect("compiles");
        let err = run(&program, "{\"items\": [{\"id\": 1}, {\"id\": }]}").unwrap_err();
        assert!(err.message().contains("line 1"), "{}", err.message());
        let err = run(&program, "{\"items\": [1, 2}").unwrap_err();
        assert!(
            err.message().contains("not valid JSON"),
            "{}",
            err.message()
        );
    }
}
