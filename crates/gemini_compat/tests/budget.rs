//! The transform's work budget (R13): schemas whose `$ref` fan-out or enums would make the
//! rewrite exponential or quadratic finish with a bounded output and a note saying what was cut.
//! No timing assertions: a generous wall-clock guard only keeps a regression from hanging the
//! suite.

// Test code: a panic is how a test reports failure, and clippy's allow-unwrap-in-tests
// does not reach helpers outside #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use gemini_compat::{Rule, coerce_arguments, lint, lint_report, transform};
use serde_json::{Map, Value, json};
use std::sync::mpsc;
use std::time::Duration;

/// Runs `f` on a thread and fails the test if it has not finished after a generous timeout.
fn finishes<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(Duration::from_secs(300)) {
        Ok(v) => v,
        Err(_) => panic!("{what} did not finish: the work is not bounded"),
    }
}

/// `$defs` A0…A30, each a `combinator` of two `$ref`s to the next (A30 a small object).
fn chain(combinator: &str) -> Value {
    let mut defs = Map::new();
    for i in 0..30 {
        let next = format!("#/$defs/A{}", i + 1);
        defs.insert(
            format!("A{i}"),
            json!({ combinator: [{"$ref": next}, {"$ref": next}] }),
        );
    }
    defs.insert(
        "A30".into(),
        json!({"type": "object", "properties": {"leaf": {"type": "string"}, "n": {"type": "integer"}}}),
    );
    json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/A0"}}, "$defs": defs})
}

/// Bytes of the served schema: what a client receives.
fn size(v: &Value) -> usize {
    serde_json::to_string(v)
        .map(|s| s.len())
        .unwrap_or(usize::MAX)
}

#[test]
fn ref_chains_of_any_all_and_one_of_are_bounded() {
    for combinator in ["anyOf", "allOf", "oneOf"] {
        let input = chain(combinator);
        let out = finishes(combinator, move || transform(&input));
        let bytes = size(&out.schema);
        assert!(
            bytes < 64 * 1024,
            "{combinator}: served schema of {bytes} bytes"
        );
        assert!(
            out.changes.len() < 10_000,
            "{combinator}: {} changes",
            out.changes.len()
        );
        assert!(
            lint(&out.schema).is_empty(),
            "{combinator}: {:#}",
            out.schema
        );
        common::check(&out.schema);
        // Every copy of a definition is the same; what is cut (if anything) says so.
        if out
            .changes
            .iter()
            .any(|c| c.message.contains("work budget"))
        {
            assert!(
                out.changes.iter().any(|c| c.rule == Rule::R13),
                "{combinator}"
            );
        }
    }
}

#[test]
fn a_chain_that_spends_the_work_budget_is_cut_with_a_described_fallback() {
    // Wider fan-out: three references per definition, 30 definitions deep (within the nesting
    // cap); no dedupe of the expansion can help, so the work budget must cut it.
    let mut defs = Map::new();
    for i in 0..30 {
        let next = format!("#/$defs/A{}", i + 1);
        defs.insert(
            format!("A{i}"),
            json!({"allOf": [{"$ref": next}, {"$ref": next}, {"properties": {format!("p{i}"): {"$ref": next}}}]}),
        );
    }
    defs.insert(
        "A30".into(),
        json!({"type": "object", "properties": {"leaf": {"type": "string"}}}),
    );
    let input =
        json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/A0"}}, "$defs": defs});
    let out = finishes("allOf fan-out", move || transform(&input));
    assert!(size(&out.schema) < 256 * 1024, "{}", size(&out.schema));
    let cut = out
        .changes
        .iter()
        .find(|c| c.rule == Rule::R13 && c.message.contains("work budget"))
        .unwrap_or_else(|| panic!("no work-budget note: {:#?}", out.changes));
    assert!(cut.message.contains("the rest is cut"), "{cut:?}");
    let text = serde_json::to_string(&out.schema).unwrap_or_default();
    assert!(
        text.contains("Schema too large to convert here"),
        "the cut node is described: {text:.2000}"
    );
    assert!(lint(&out.schema).is_empty());
}

#[test]
fn an_enum_of_100k_values_is_linear() {
    let values: Vec<Value> = (0..100_000).map(|i| json!(format!("v{i}"))).collect();
    let mut doubled = values.clone();
    doubled.extend(values.iter().cloned());
    let input = json!({"type": "object", "properties": {
        "pick": {"type": "string", "enum": doubled},
        "both": {"allOf": [{"enum": values.clone()}, {"enum": values}]},
    }});
    let (out, issues) = finishes("100k enum", move || {
        let out = transform(&input);
        let issues = lint_report(&input).issues.len();
        let coerced = coerce_arguments(&input, json!({"pick": "v99999"}));
        assert_eq!(coerced, json!({"pick": "v99999"}));
        (out, issues)
    });
    assert!(issues > 0);
    let pick = &out.schema["properties"]["pick"];
    assert_eq!(pick["type"], "string");
    let d = pick["description"].as_str().unwrap_or_default();
    assert!(d.contains("One of: v0, v1"), "{d:.300}");
    assert!(d.len() < 4_000, "{}", d.len());
    assert!(
        out.changes
            .iter()
            .any(|c| c.message == "enum of 100000 values moved into the description"),
        "{:#?}",
        out.changes
    );
    assert!(size(&out.schema) < 16 * 1024);
}

#[test]
fn lint_and_transform_of_thousands_of_chained_references_are_bounded() {
    // 20 000 properties, each a reference into a chain of 20 000 definitions: checking every
    // reference for recursion by walking the chain from it is quadratic (4·10⁸ steps).
    let n = 20_000;
    let mut defs = Map::new();
    let mut props = Map::new();
    for i in 0..n {
        let next = if i + 1 < n {
            json!({"$ref": format!("#/$defs/D{}", i + 1)})
        } else {
            json!({"type": "string"})
        };
        defs.insert(
            format!("D{i}"),
            json!({"type": "object", "properties": {"next": next}}),
        );
        props.insert(format!("p{i}"), json!({"$ref": format!("#/$defs/D{i}")}));
    }
    let input = json!({"type": "object", "properties": props, "$defs": defs});
    let copy = input.clone();
    let report = finishes("lint of 20 000 chained references", move || {
        lint_report(&copy)
    });
    assert!(
        report.issues.iter().any(|i| i
            .message
            .contains("more references than the linter follows")),
        "the unchecked rest is reported"
    );
    let out = finishes("transform of 20 000 chained references", move || {
        transform(&input)
    });
    assert!(
        out.changes
            .iter()
            .any(|c| c.rule == Rule::R13 && c.message.contains("the rest is cut")),
        "the cut is reported"
    );
}

#[test]
fn references_fanning_out_onto_one_huge_enum_are_paid_for() {
    // 2 000 properties referring to one definition with a 100 000-value enum: each inlining
    // copies the enum (2·10⁸ values) unless leaves are charged too.
    let values: Vec<Value> = (0..100_000).map(|i| json!(i)).collect();
    let mut props = Map::new();
    for i in 0..2_000 {
        props.insert(format!("p{i}"), json!({"$ref": "#/$defs/Big"}));
    }
    let input = json!({"type": "object", "properties": props,
        "$defs": {"Big": {"type": "integer", "enum": values}}});
    let out = finishes("fan-out onto a huge enum", move || transform(&input));
    assert!(
        out.changes
            .iter()
            .any(|c| c.rule == Rule::R13 && c.message.contains("work budget")),
        "the cut is reported"
    );
    assert!(size(&out.schema) < 4 * 1024 * 1024, "{}", size(&out.schema));
}
