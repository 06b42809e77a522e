//! Property test of the read planner: on generated queries × documents, a
//! query compiled with the planner gives exactly the answer (text or error)
//! of the same query with the planner off, on JSON and on YAML, and so does
//! a JSON file read a few bytes at a time (the worker's windowed reader).
//!
//! Queries are drawn from the shapes the planner analyses: paths from the
//! root (`.a.b`, `.["a b"]`, `.[n]`, `.[]`, `.[]?`, `.a?`, slices), pipes and
//! commas, `select` with comparisons, `and`, `not` and `has`, `keys`,
//! `length`, `type`, `map`, `..`, `add`, `first`/`last`/`limit`, sorts and
//! groups by a path, object and array construction, `//`, `as $x` bindings,
//! `reduce`, `if`, `try`/`?`, string interpolation, updates, and the
//! streamable splits `P[] | F`, `[P[] | F] | G`, `P | map(F) | G`.
//!
//! Documents are trees of null, booleans, integers, number literals whose
//! spelling matters (`1e2`, `-0`, big integers), strings, arrays and objects
//! over a small key set (so paths hit), usually with an `items` array at the
//! root. Object keys are sometimes written with `\u` escapes or repeated (the
//! last one wins). JSON files hold one or more documents (JSON Lines); YAML
//! files are written in block style, with `---` between documents and merge
//! keys (`<<: {…}`).

use super::{Query, compile, run};
use crate::answer::Answer;
use crate::errors::QueryError;
use crate::request::{InputFormat, Limits, Planner};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestRunner};

/// Keys used in both documents and queries, so that paths find something.
const KEYS: &[&str] = &["items", "a", "b", "id", "name", "tags", "k", "a b", "é"];

#[derive(Clone, Debug)]
enum Doc {
    Null,
    Bool(bool),
    Int(i64),
    /// A number literal kept as written.
    Num(&'static str),
    Str(&'static str),
    Arr(Vec<Doc>),
    Obj(Vec<Entry>),
}

#[derive(Clone, Debug)]
struct Entry {
    key: &'static str,
    /// Write the key with `\u` escapes in JSON.
    escaped: bool,
    /// A YAML merge key (`<<: {…}`) instead of a plain entry (in JSON, a key
    /// named `<<`).
    merge: bool,
    value: Doc,
}

fn leaf() -> impl Strategy<Value = Doc> {
    prop_oneof![
        Just(Doc::Null),
        any::<bool>().prop_map(Doc::Bool),
        (-3i64..50).prop_map(Doc::Int),
        prop::sample::select(vec!["1.5", "-0", "1e2", "100000000000000000001", "0.10"])
            .prop_map(Doc::Num),
        prop::sample::select(vec![
            "x",
            "",
            "yes",
            "no",
            "a b",
            "é",
            "1",
            "null",
            // longer than the skipper's 8-byte words, with escapes at every offset
            "a \"quoted\" word and a back\\slash",
            "tab\there, newline\nthere, bell\u{7}",
            "snow ☃ and accents éèê past eight bytes",
        ])
        .prop_map(Doc::Str),
    ]
}

fn entry(value: impl Strategy<Value = Doc>) -> impl Strategy<Value = Entry> {
    (
        prop::sample::select(KEYS),
        prop::bool::weighted(0.15),
        prop::bool::weighted(0.05),
        value,
    )
        .prop_map(|(key, escaped, merge, value)| Entry {
            key,
            escaped,
            merge,
            value,
        })
}

fn doc() -> impl Strategy<Value = Doc> {
    leaf().prop_recursive(4, 40, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Doc::Arr),
            prop::collection::vec(entry(inner), 0..5).prop_map(Doc::Obj),
        ]
    })
}

/// Mostly `{"items": [objects…], …}`, the shape queries stream.
fn root() -> impl Strategy<Value = Doc> {
    let item = prop::collection::vec(entry(doc()), 0..5).prop_map(Doc::Obj);
    let items = prop::collection::vec(prop_oneof![4 => item, 1 => doc()], 0..6);
    let with_items =
        (items, prop::collection::vec(entry(doc()), 0..3)).prop_map(|(items, mut rest)| {
            let at = rest.len() / 2;
            rest.insert(
                at,
                Entry {
                    key: "items",
                    escaped: false,
                    merge: false,
                    value: Doc::Arr(items),
                },
            );
            Doc::Obj(rest)
        });
    prop_oneof![3 => with_items, 1 => doc()]
}

fn json_str(s: &str, escaped: bool, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if escaped || c < ' ' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn json(d: &Doc, out: &mut String) {
    match d {
        Doc::Null => out.push_str("null"),
        Doc::Bool(b) => out.push_str(&b.to_string()),
        Doc::Int(n) => out.push_str(&n.to_string()),
        Doc::Num(n) => out.push_str(n),
        Doc::Str(s) => json_str(s, false, out),
        Doc::Arr(xs) => {
            out.push('[');
            for (i, x) in xs.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                json(x, out);
            }
            out.push(']');
        }
        Doc::Obj(es) => {
            out.push('{');
            for (i, e) in es.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                json_str(if e.merge { "<<" } else { e.key }, e.escaped, out);
                out.push_str(": ");
                json(&e.value, out);
            }
            out.push('}');
        }
    }
}

/// A scalar or empty container, written inline (JSON is valid YAML there).
fn yaml_inline(d: &Doc) -> Option<String> {
    match d {
        Doc::Arr(xs) if !xs.is_empty() => None,
        Doc::Obj(es) if !es.is_empty() => None,
        d => {
            let mut s = String::new();
            json(d, &mut s);
            Some(s)
        }
    }
}

/// Block-style YAML of a non-empty container at `indent`.
fn yaml_block(d: &Doc, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    let child = |v: &Doc, out: &mut String| match yaml_inline(v) {
        Some(s) => {
            out.push(' ');
            out.push_str(&s);
            out.push('\n');
        }
        None => {
            out.push('\n');
            yaml_block(v, indent + 2, out);
        }
    };
    match d {
        Doc::Arr(xs) => {
            for x in xs {
                out.push_str(&pad);
                out.push('-');
                child(x, out);
            }
        }
        Doc::Obj(es) => {
            for e in es {
                out.push_str(&pad);
                if e.merge {
                    // a merge key takes a mapping (anything else is an error,
                    // which both readers must report alike)
                    out.push_str("<<:");
                } else {
                    json_str(e.key, false, out);
                    out.push(':');
                }
                child(&e.value, out);
            }
        }
        _ => {}
    }
}

fn yaml(docs: &[Doc]) -> String {
    let mut out = String::new();
    for d in docs {
        out.push_str("---\n");
        match yaml_inline(d) {
            Some(s) => {
                out.push_str(&s);
                out.push('\n');
            }
            None => yaml_block(d, 0, &mut out),
        }
    }
    out
}

/// A path from the current value, e.g. `.items[0].name`, `.["a b"][]?`.
fn path() -> impl Strategy<Value = String> {
    let segment = prop_oneof![
        3 => (prop::sample::select(KEYS), prop::bool::ANY).prop_map(|(k, optional)| {
            let q = if optional { "?" } else { "" };
            if k.chars().all(|c| c.is_ascii_alphabetic()) {
                format!(".{k}{q}")
            } else {
                format!(".[\"{k}\"]{q}")
            }
        }),
        1 => (-2i32..3).prop_map(|n| format!(".[{n}]")),
        1 => Just(".[]".to_string()),
        2 => Just(".[]?".to_string()),
        1 => Just(".[1:3]".to_string()),
    ];
    prop::collection::vec(segment, 0..4).prop_map(|segs| {
        if segs.is_empty() {
            return ".".to_string();
        }
        // `.a` + `.[0]` is written `.a[0]`
        let mut p = String::new();
        for (i, s) in segs.iter().enumerate() {
            match s.strip_prefix(".[") {
                Some(rest) if i > 0 => {
                    p.push('[');
                    p.push_str(rest);
                }
                _ => p.push_str(s),
            }
        }
        p
    })
}

fn condition() -> impl Strategy<Value = String> {
    prop_oneof![
        path(),
        path().prop_map(|p| format!("{p} == \"x\"")),
        path().prop_map(|p| format!("{p} > 1")),
        (path(), path()).prop_map(|(p, q)| format!("{p} and {q}")),
        path().prop_map(|p| format!("({p} | not)")),
        prop::sample::select(KEYS).prop_map(|k| format!("has(\"{k}\")?")),
        path().prop_map(|p| format!("({p} | type) == \"object\"")),
        path().prop_map(|p| format!("({p} | length?) > 0")),
    ]
}

fn filter() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        6 => path(),
        3 => prop::sample::select(vec![
            "keys", "length", "type", "..", "add", "first", "last", "tostring", "values",
            "objects", "arrays", "not", "to_entries", "sort", "any", "all", "reverse",
            "unique", "min", "max", "length?", "keys?", "1", "null", "\"s\"", "{id, name}",
        ])
        .prop_map(String::from),
        1 => prop::sample::select(KEYS).prop_map(|k| format!("has(\"{k}\")?")),
    ];
    leaf.prop_recursive(3, 24, 3, |f| {
        prop_oneof![
            3 => (f.clone(), f.clone()).prop_map(|(a, b)| format!("{a} | {b}")),
            1 => (f.clone(), f.clone()).prop_map(|(a, b)| format!("({a}), ({b})")),
            2 => (condition(), f.clone()).prop_map(|(c, a)| format!("select({c}) | {a}")),
            2 => f.clone().prop_map(|a| format!("map({a})")),
            1 => f.clone().prop_map(|a| format!("[{a}]")),
            1 => (prop::sample::select(KEYS), f.clone())
                .prop_map(|(k, a)| format!("{{\"{k}\": ({a})}}")),
            1 => (f.clone(), f.clone()).prop_map(|(a, b)| format!("({a}) // ({b})")),
            1 => f.clone().prop_map(|a| format!("first({a})")),
            1 => f.clone().prop_map(|a| format!("limit(2; {a})")),
            1 => (
                prop::sample::select(vec!["sort_by", "group_by", "unique_by", "min_by", "max_by"]),
                path(),
            )
                .prop_map(|(g, p)| format!("{g}({p})")),
            1 => (path(), f.clone()).prop_map(|(p, a)| format!("{p} as $x | [({a}), $x]")),
            1 => path().prop_map(|p| format!("reduce {p} as $i (0; . + ($i | length?))")),
            1 => (condition(), f.clone(), f.clone())
                .prop_map(|(c, a, b)| format!("if {c} then {a} else {b} end")),
            1 => f.clone().prop_map(|a| format!("try ({a})")),
            1 => f.clone().prop_map(|a| format!("({a})?")),
            1 => f.clone().prop_map(|a| format!("\"v: \\({a})\"")),
            1 => (path(), f.clone()).prop_map(|(p, a)| format!("{p} |= ({a})")),
            1 => condition().prop_map(|c| format!("any({c})")),
            // the splits that stream an array
            2 => (path(), f.clone()).prop_map(|(p, a)| format!("{p}[] | {a}")),
            1 => (path(), f.clone(), f.clone()).prop_map(|(p, a, b)| format!("[{p}[] | {a}] | {b}")),
            1 => (path(), f.clone(), f.clone()).prop_map(|(p, a, b)| format!("{p} | map({a}) | {b}")),
            // one end of a sort (the stream keeps one element), in its other spellings too:
            // an index then more of a path, `first(.[])`, `limit(n; .[])`, `min_by`/`max_by`
            1 => (path(), path(), prop::bool::ANY, f.clone()).prop_map(|(p, k, last, a)| {
                format!("{p} | sort_by({k}) | .[{}] | {a}", if last { "-1" } else { "0" })
            }),
            1 => (path(), path(), path(), prop::bool::ANY, f.clone()).prop_map(|(p, k, q, last, a)| {
                let q = if q == "." { "" } else { q.as_str() };
                format!("{p} | sort_by({k}) | .[{}]{q} | {a}", if last { "-1" } else { "0" })
            }),
            1 => (path(), path(), prop::sample::select(vec!["first(.[])", "limit(2; .[])"]), f.clone())
                .prop_map(|(p, k, t, a)| format!("{p} | sort_by({k}) | {t} | {a}")),
            1 => (path(), prop::sample::select(vec!["min_by", "max_by"]), path(), f)
                .prop_map(|(p, m, k, a)| format!("{p} | {m}({k}) | {a}")),
        ]
    })
}

/// A query: mostly one on `.items`, the usual shape.
fn query() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => filter().prop_map(|f| format!(".items | {f}")),
        1 => filter().prop_map(|f| format!(".items[] | {f}")),
        2 => filter(),
    ]
}

fn limits() -> Limits {
    Limits {
        max_results: 20,
        max_output_bytes: 4096,
        ..Limits::default()
    }
}

fn answer(query: &Query, text: &str, format: InputFormat) -> Result<Answer, QueryError> {
    run(query, text.as_bytes(), format, &limits(), false)
}

/// The answer as the worker gives it on a JSON file: read `window` bytes at
/// a time when the plan streams, else (or when the stream gives up) whole.
fn answer_read(query: &Query, text: &str, window: usize) -> Result<Answer, QueryError> {
    let mut reader = text.as_bytes();
    let streamed = query
        .plan
        .as_ref()
        .and_then(|p| crate::plan::run_json_reader(p, &mut reader, &limits(), window));
    streamed.unwrap_or_else(|| answer(query, text, InputFormat::Json))
}

/// The same for a YAML file: parsed as it is read when the plan streams.
fn answer_read_yaml(query: &Query, text: &str) -> Result<Answer, QueryError> {
    let mut reader = text.as_bytes();
    let streamed = query
        .plan
        .as_ref()
        .and_then(|p| crate::plan::run_yaml_reader(p, &mut reader, &limits()));
    streamed.unwrap_or_else(|| answer(query, text, InputFormat::Yaml))
}

/// `code` compiled with the planner on and off; `None` when it does not
/// compile (with the same error in both modes).
fn both(code: &str) -> Result<Option<(Query, Query)>, TestCaseError> {
    match (compile(code, Planner::On), compile(code, Planner::Off)) {
        (Ok(planned), Ok(whole)) => {
            prop_assert!(whole.plan.is_none(), "the planner is off");
            Ok(Some((planned, whole)))
        }
        (Err(a), Err(b)) => {
            prop_assert_eq!(a, b);
            Ok(None)
        }
        (a, b) => Err(TestCaseError::fail(format!(
            "compiles differently: {:?} / {:?}",
            a.err(),
            b.err()
        ))),
    }
}

/// PROPTEST_CASES overrides the count (e.g. 5000 for a long run).
fn config(default_cases: u32) -> Config {
    Config {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(default_cases),
        failure_persistence: None,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn planned_answers_are_whole_document_answers(
        code in query(),
        docs in prop::collection::vec(root(), 1..3),
        window in 1usize..64,
    ) {
        let Some((planned, whole)) = both(&code)? else {
            return Ok(());
        };
        let mut text = String::new();
        for d in &docs {
            json(d, &mut text);
            text.push('\n');
        }
        prop_assert_eq!(
            answer(&planned, &text, InputFormat::Json),
            answer(&whole, &text, InputFormat::Json),
            "query {}\non JSON {}", code, text
        );
        prop_assert_eq!(
            answer_read(&planned, &text, window),
            answer(&whole, &text, InputFormat::Json),
            "query {}\nread {} bytes at a time, on JSON {}", code, window, text
        );
        let text = yaml(&docs);
        prop_assert_eq!(
            answer(&planned, &text, InputFormat::Yaml),
            answer(&whole, &text, InputFormat::Yaml),
            "query {}\non YAML\n{}", code, text
        );
        prop_assert_eq!(
            answer_read_yaml(&planned, &text),
            answer(&whole, &text, InputFormat::Yaml),
            "query {}\nread as it is parsed, on YAML\n{}", code, text
        );
    }
}

proptest! {
    #![proptest_config(config(256))]

    /// A JSON file broken at one byte: the reader that skips unobserved
    /// values must refuse it exactly when the ordinary reader does, so that
    /// the answer or error stays the ordinary one.
    #[test]
    fn planned_answers_on_broken_json_are_whole_document_answers(
        code in query(),
        docs in prop::collection::vec(root(), 1..3),
        at in any::<prop::sample::Index>(),
        byte in prop::sample::select(b"\"\\,:{}[] \x01u0e-.#".to_vec()),
        window in 1usize..64,
    ) {
        let Some((planned, whole)) = both(&code)? else {
            return Ok(());
        };
        let mut text = String::new();
        for d in &docs {
            json(d, &mut text);
            text.push('\n');
        }
        let mut bytes = text.into_bytes();
        let at = at.index(bytes.len());
        bytes[at] = byte;
        // keep the file UTF-8 (a query reads text): cut a broken character
        let text = String::from_utf8_lossy(&bytes).into_owned();
        prop_assert_eq!(
            answer(&planned, &text, InputFormat::Json),
            answer(&whole, &text, InputFormat::Json),
            "query {}\non JSON {}", code, text
        );
        prop_assert_eq!(
            answer_read(&planned, &text, window),
            answer(&whole, &text, InputFormat::Json),
            "query {}\nread {} bytes at a time, on JSON {}", code, window, text
        );
    }
}

/// The generated queries really exercise the planner: most get a read plan,
/// and some stream.
#[test]
fn generated_queries_are_planned() {
    let mut runner = TestRunner::deterministic();
    let strategy = query();
    let (mut total, mut planned, mut streamed) = (0, 0, 0);
    for _ in 0..200 {
        let code = strategy.new_tree(&mut runner).expect("a query").current();
        total += 1;
        if let Some(plan) = crate::plan::ReadPlan::new(&code) {
            planned += 1;
            streamed += usize::from(plan.streams());
        }
    }
    assert!(planned * 2 > total, "{planned} of {total} planned");
    assert!(streamed * 10 > total, "{streamed} of {total} streamed");
}

proptest! {
    #![proptest_config(config(256))]

    /// The native `unique` (a sort and a pass) and `sort_by` give the answers
    /// of jaq's definitions on every array of a document.
    #[test]
    fn native_unique_and_sort_by_are_jaqs(docs in prop::collection::vec(root(), 1..3)) {
        let mut text = String::new();
        for d in &docs {
            json(d, &mut text);
            text.push('\n');
        }
        let ours = compile(
            "[.. | arrays | unique, sort_by(.id?), sort_by(.[]?), sort_by(.a?, .b?)]",
            Planner::Off,
        )
        .expect("compiles");
        // jaq's own definitions: unique_by(.), and sort_by as sorting by
        // the list of f's outputs, stably (by the position after that)
        let jaqs = compile(
            "def jaq_sort_by(f): [to_entries[] | [[.value | f], .key, .value]] | sort | map(.[2]); \
             [.. | arrays | [group_by(.)[] | .[0]], jaq_sort_by(.id?), jaq_sort_by(.[]?), \
             jaq_sort_by(.a?, .b?)]",
            Planner::Off,
        )
        .expect("compiles");
        // room for every result: a truncation hint quotes the expression
        let roomy = Limits {
            max_output_bytes: 1 << 24,
            ..Limits::default()
        };
        prop_assert_eq!(
            run(&ours, text.as_bytes(), InputFormat::Json, &roomy, false),
            run(&jaqs, text.as_bytes(), InputFormat::Json, &roomy, false),
            "on JSON {}", text
        );
    }
}
