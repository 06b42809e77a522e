//! Query fuzz of the streamed reader's native filters ([`crate::fast`]):
//! generated per-element filters (`select` over paths and literals, `and`,
//! `or`, `not`, paths, objects of paths) × generated JSON Lines and YAML
//! files. Each answer must be the same three ways: the native reader, the
//! reader that runs jaq on every element (the one before it), and the
//! planner off (whole documents); and, on JSON, jq's own answer
//! (`/usr/bin/jq`, or `FS_MCP_JQ`; Debian's is 1.6), compared as JSON values, where this crate
//! documents that it answers like jq (documents of integers, short decimals,
//! strings, booleans and nulls: no number spelling that jq respells).

use super::{Query, compile, run};
use crate::answer::Answer;
use crate::errors::QueryError;
use crate::plan::ReadPlan;
use crate::request::{InputFormat, Limits, Planner};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError};
use std::io::Write;
use std::process::{Command, Stdio};

const KEYS: &[&str] = &["id", "name", "score", "active", "group", "owner", "region"];

/// A scalar as written in JSON and YAML alike (a string is quoted in both).
fn scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("null".to_string()),
        Just("true".to_string()),
        Just("false".to_string()),
        (-3i64..1000).prop_map(|n| n.to_string()),
        prop::sample::select(vec!["1.5", "0.25", "997.5", "-2.5"]).prop_map(String::from),
        prop::sample::select(vec!["\"g07\"", "\"ap\"", "\"\"", "\"x y\"", "\"997\""])
            .prop_map(String::from),
    ]
}

/// A value: a scalar, a small object of scalars (an owner), or a short array.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => scalar(),
        2 => prop::collection::vec((prop::sample::select(KEYS), scalar()), 0..3).prop_map(|es| {
            let inner: Vec<String> = es.iter().map(|(k, v)| format!("\"{k}\": {v}")).collect();
            format!("{{{}}}", inner.join(", "))
        }),
        1 => prop::collection::vec(scalar(), 0..3).prop_map(|xs| format!("[{}]", xs.join(", "))),
    ]
}

/// An item of the streamed array: mostly an object, sometimes a scalar or
/// an array (where a path raises an error in jq).
fn item() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => prop::collection::vec((prop::sample::select(KEYS), value()), 0..6).prop_map(|es| {
            let inner: Vec<String> = es.iter().map(|(k, v)| format!("\"{k}\": {v}")).collect();
            format!("{{{}}}", inner.join(", "))
        }),
        1 => scalar(),
        1 => Just("[1, 2]".to_string()),
    ]
}

/// A file: one to three documents `{"items": [...]}`, flow style (valid
/// JSON Lines and valid YAML).
fn file() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(
        prop::collection::vec(item(), 0..8)
            .prop_map(|items| format!("{{\"meta\": 1, \"items\": [{}]}}", items.join(", "))),
        1..3,
    )
}

fn path() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(KEYS), 0..3).prop_map(|ks| {
        if ks.is_empty() {
            ".".to_string()
        } else {
            ks.iter().map(|k| format!(".{k}")).collect()
        }
    })
}

fn literal() -> impl Strategy<Value = String> {
    prop_oneof![
        (-3i64..1000).prop_map(|n| n.to_string()),
        Just("1.5".to_string()),
        prop::sample::select(vec![
            "\"g07\"", "\"ap\"", "\"997\"", "null", "true", "false"
        ])
        .prop_map(String::from),
    ]
}

fn condition() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        2 => path(),
        4 => (
            path(),
            prop::sample::select(vec!["==", "!=", "<", "<=", ">", ">="]),
            literal(),
            any::<bool>(),
        )
            .prop_map(|(p, op, l, flip)| match flip {
                true => format!("{l} {op} {p}"),
                false => format!("{p} {op} {l}"),
            }),
        1 => (path(), path()).prop_map(|(p, q)| format!("{p} == {q}")),
    ];
    leaf.prop_recursive(2, 8, 2, |c| {
        prop_oneof![
            (c.clone(), c.clone()).prop_map(|(a, b)| format!("({a}) and ({b})")),
            (c.clone(), c.clone()).prop_map(|(a, b)| format!("({a}) or ({b})")),
            c.prop_map(|a| format!("({a} | not)")),
        ]
    })
}

fn projection() -> impl Strategy<Value = String> {
    prop_oneof![
        path(),
        prop::collection::vec((prop::sample::select(KEYS), prop::option::of(path())), 1..4)
            .prop_map(|es| {
                let inner: Vec<String> = es
                    .iter()
                    .map(|(k, p)| match p {
                        Some(p) => format!("{k}: {p}"),
                        None => k.to_string(),
                    })
                    .collect();
                format!("{{{}}}", inner.join(", "))
            }),
    ]
}

/// A per-element filter the native reader takes, in the streamed shapes.
fn query() -> impl Strategy<Value = String> {
    let each = (prop::collection::vec(condition(), 0..3), projection()).prop_map(|(cs, p)| {
        let mut parts: Vec<String> = cs.iter().map(|c| format!("select({c})")).collect();
        parts.push(p);
        parts.join(" | ")
    });
    (each, 0..4usize).prop_map(|(each, shape)| match shape {
        0 | 1 => format!(".items[] | {each}"),
        2 => format!("[.items[] | {each}] | length"),
        _ => format!(".items | map({each}) | unique"),
    })
}

/// A generated file as JSON Lines and as YAML (one document per line).
fn as_json_and_yaml(docs: &[String]) -> [(InputFormat, String); 2] {
    [
        (InputFormat::Json, docs.join("\n")),
        (
            InputFormat::Yaml,
            docs.iter().map(|d| format!("---\n{d}\n")).collect(),
        ),
    ]
}

fn answer(query: &Query, text: &str, format: InputFormat) -> Result<Answer, QueryError> {
    run(query, text.as_bytes(), format, &Limits::default(), false)
}

/// jq 1.7's answer as JSON values, or `None` when jq is not installed.
fn jq(code: &str, text: &str) -> Option<Result<Vec<serde_json::Value>, String>> {
    let program = std::env::var("FS_MCP_JQ").unwrap_or_else(|_| "/usr/bin/jq".into());
    let mut child = Command::new(program)
        .args(["-c", code])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let written = stdin.write_all(text.as_bytes());
    drop(stdin);
    let out = child.wait_with_output().ok()?;
    // jq 1.6 exits 0 after an error in an earlier input of several
    if written.is_err() || !out.status.success() || !out.stderr.is_empty() {
        return Some(Err(String::from_utf8_lossy(&out.stderr).into_owned()));
    }
    let values = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).map_err(|e| format!("{e}: {l}")))
        .collect();
    Some(values)
}

fn config() -> Config {
    Config {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(256),
        failure_persistence: None,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn native_reader_answers_like_jaq_and_jq(code in query(), docs in file()) {
        let planned = compile(&code, Planner::On).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(
            planned.plan.as_ref().is_some_and(ReadPlan::runs_natively),
            "{} runs natively", code
        );
        let mut by_jaq = compile(&code, Planner::On).map_err(|e| TestCaseError::fail(e.to_string()))?;
        by_jaq.plan = by_jaq.plan.map(ReadPlan::without_native);
        let whole = compile(&code, Planner::Off).map_err(|e| TestCaseError::fail(e.to_string()))?;
        for (format, text) in as_json_and_yaml(&docs) {
            let native = answer(&planned, &text, format);
            prop_assert_eq!(&native, &answer(&by_jaq, &text, format), "{} on {:?}\n{}", code, format, text);
            if format == InputFormat::Json {
                let mut reader = text.as_bytes();
                let read = crate::plan::run_json_reader(
                    planned.plan.as_ref().expect("planned"), &mut reader, &Limits::default(), 16,
                );
                if let Some(read) = read {
                    prop_assert_eq!(&native, &read, "{} read 16 bytes at a time\n{}", code, text);
                }
            }
            prop_assert_eq!(&native, &answer(&whole, &text, format), "{} on {:?}\n{}", code, format, text);
            if format == InputFormat::Json && let Some(expected) = jq(&code, &text) {
                match (expected, &native) {
                    (Ok(values), Ok(ours)) => {
                        let ours: Vec<serde_json::Value> = match ours.is_empty() {
                            true => Vec::new(),
                            false => ours
                                .results
                                .lines()
                                .map(|l| serde_json::from_str(l).unwrap_or(serde_json::Value::Null))
                                .collect(),
                        };
                        // "No results found." also stands for only nulls
                        let expected: Vec<_> = match values.iter().all(serde_json::Value::is_null) {
                            true => Vec::new(),
                            false => values,
                        };
                        prop_assert_eq!(ours, expected, "{} on\n{}", code, text);
                    }
                    (Err(_), Err(_)) => {}
                    // jq stops at an error after some results; we show them and the error
                    (Err(e), Ok(ours)) => prop_assert!(
                        ours.notes.iter().any(|note| matches!(note, crate::answer::AnswerNote::ErrorAfterResults { .. })),
                        "jq failed ({}) but we answered {:?} for {} on\n{}", e, ours, code, text
                    ),
                    (Ok(values), Err(e)) => prop_assert!(
                        false,
                        "jq answered {:?} but we failed ({}) for {} on\n{}", values, e, code, text
                    ),
                }
            }
        }
    }
}

/// A sort of the streamed array, then a bounded index or slice of it (the
/// shapes that keep only a window of the sort), one that is not bounded, or
/// a `map` (which keeps only what the map gives of each element).
fn sorted_window() -> impl Strategy<Value = String> {
    let bound = prop::option::of(-9i64..9);
    let take = prop_oneof![
        (-9i64..9).prop_map(|i| format!(".[{i}]")),
        (bound.clone(), bound).prop_map(|(a, b)| {
            let show = |x: Option<i64>| x.map(|x| x.to_string()).unwrap_or_default();
            // `.[:]` is not jq
            format!(".[{}:{}]", show(a.or(b.is_none().then_some(0))), show(b))
        }),
        Just("first".to_string()),
        Just("last".to_string()),
        // an index or slice, then more of a path
        (-9i64..9, path()).prop_map(|(i, p)| match p.as_str() {
            "." => format!(".[{i}][]?"),
            p => format!(".[{i}]{p}"),
        }),
        (-9i64..9).prop_map(|b| format!(".[:{b}][]")),
        (-9i64..9).prop_map(|a| format!(".[{a}:][0]")),
        Just("first(.[])".to_string()),
        (-2i64..5).prop_map(|n| format!("limit({n}; .[])")),
        // observes the whole sort, through a per-element filter
        (prop::option::of(condition()), projection()).prop_map(|(c, p)| match c {
            Some(c) => format!("map(select({c}) | {p})"),
            None => format!("map({p})"),
        }),
    ];
    let sort = prop_oneof![
        path().prop_map(|p| format!(".items | sort_by({p})")),
        path().prop_map(|p| format!("[.items[] | {p}] | sort")),
    ];
    let sorted =
        (sort, any::<bool>(), take, any::<bool>()).prop_map(|(sort, reverse, take, json)| {
            let reverse = if reverse { " | reverse" } else { "" };
            let json = if json { " | tojson" } else { "" };
            format!("{sort}{reverse} | {take}{json}")
        });
    // the least or greatest element: the sort's first or last
    let least = prop::sample::select(vec!["min", "max"]);
    let extreme = prop_oneof![
        (least.clone(), path(), path()).prop_map(|(m, k, p)| format!(".items | {m}_by({k}) | {p}")),
        (path(), least).prop_map(|(p, m)| format!("[.items[] | {p}] | {m}")),
    ];
    prop_oneof![3 => sorted, 1 => extreme]
}

proptest! {
    #![proptest_config(config())]

    /// The window kept of a sort, or the mapped values sorted, answer as the
    /// whole sort does, on JSON and YAML, read whole or a few bytes at a time.
    #[test]
    fn sorted_window_answers_as_the_whole_sort(code in sorted_window(), docs in file()) {
        let planned = compile(&code, Planner::On).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let whole = compile(&code, Planner::Off).map_err(|e| TestCaseError::fail(e.to_string()))?;
        for (format, text) in as_json_and_yaml(&docs) {
            let windowed = answer(&planned, &text, format);
            prop_assert_eq!(&windowed, &answer(&whole, &text, format), "{} on {:?}\n{}", code, format, text);
            if format == InputFormat::Json && let Some(plan) = planned.plan.as_ref() {
                let mut reader = text.as_bytes();
                if let Some(read) = crate::plan::run_json_reader(plan, &mut reader, &Limits::default(), 16) {
                    prop_assert_eq!(&windowed, &read, "{} read 16 bytes at a time\n{}", code, text);
                }
            }
        }
    }
}

/// The sorted-window fuzz reaches the window and the mapped sort (a
/// generated shape that never planned one would compare the whole sort with
/// itself).
#[test]
fn sorted_windows_are_planned() {
    for code in [
        ".items | sort_by(.score) | .[3]",
        ".items | sort_by(.owner.region) | reverse | .[-2:4] | tojson",
        "[.items[] | .id] | sort | last",
        ".items | sort_by(.score) | .[0].id",
        ".items | sort_by(.score) | reverse | .[-1].owner.region",
        ".items | sort_by(.score) | .[:3][] | .id",
        ".items | sort_by(.score) | first(.[]) | .id",
        ".items | sort_by(.score) | limit(2; .[]) | .id",
        ".items | min_by(.score) | .id",
        ".items | max_by(.owner.region) | .name",
        "[.items[] | .score] | max",
    ] {
        let planned = compile(code, Planner::On).expect("compiles");
        assert!(
            planned.plan.as_ref().is_some_and(ReadPlan::keeps_a_window),
            "{code} keeps a window"
        );
    }
    for code in [
        ".items | sort_by(.score) | map(.id)",
        ".items | sort_by(.owner.region) | reverse | map(select(.active) | {id, name}) | tojson",
    ] {
        let planned = compile(code, Planner::On).expect("compiles");
        assert!(
            planned.plan.as_ref().is_some_and(ReadPlan::sorts_mapped),
            "{code} sorts mapped values"
        );
    }
}

/// The fuzz really compares with jq where jq is installed (CI has it).
#[test]
fn jq_is_there_to_compare_with() {
    if std::env::var_os("FS_MCP_REQUIRE_CLIENTS").is_some() {
        assert!(
            jq(".", "1").is_some_and(|r| r.is_ok()),
            "jq is needed at /usr/bin/jq (or FS_MCP_JQ)"
        );
    }
}
