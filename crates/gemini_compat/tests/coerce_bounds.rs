//! Coercion is bounded (a recursive `anyOf` is not tried exponentially) and only changes how a
//! value is written, never what it holds: JSON text whose content the raw schema refuses is
//! refused, not forwarded as the object it spells (#23 items 11 and 12).

// Test code: a panic is how a test reports failure, and clippy's allow-unwrap-in-tests
// does not reach helpers outside #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use gemini_compat::{coerce_arguments, coerce_arguments_checked, coerce_arguments_reporting};
use serde_json::{Value, json};
use std::sync::mpsc;
use std::time::Duration;

/// Runs `f` on a thread and fails the test if it has not finished after a generous timeout
/// (only so a regression fails instead of hanging the suite; no speed is asserted).
fn finishes<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(Duration::from_secs(300)) {
        Ok(v) => v,
        Err(_) => panic!("{what} did not finish: coercion is not bounded"),
    }
}

fn recursive_any_of() -> Value {
    json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/A"}}, "$defs": {
        "A": {"type": "integer", "anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/A"}]}}})
}

#[test]
fn a_recursive_any_of_is_refused_not_tried_for_ever() {
    let raw = recursive_any_of();
    let r = raw.clone();
    let checked = finishes("recursive anyOf", move || {
        coerce_arguments_checked(&r, json!({"x": "hello"}))
    });
    let refused = checked.expect_err("\"hello\" is no integer: refused");
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(refused[0].location, "x");
    let text = refused[0].to_string();
    assert!(text.starts_with("argument `x`"), "{text}");
    assert!(text.contains("Nothing was sent"), "{text}");
    // The old API answers too, and says where.
    let r = raw.clone();
    let (out, locations) = finishes("recursive anyOf (reporting)", move || {
        coerce_arguments_reporting(&r, json!({"x": "hello"}))
    });
    assert_eq!(out, json!({"x": "hello"}));
    assert_eq!(locations, ["x"]);
    // What the schema accepts still comes through.
    let r = raw;
    let ok = finishes("recursive anyOf, integer text", move || {
        coerce_arguments_checked(&r, json!({"x": "7"}))
    });
    assert_eq!(ok, Ok(json!({"x": 7})));
}

#[test]
fn a_wide_recursive_union_finishes_and_is_refused() {
    // Each definition a union of three distinct references to the next and a typed branch:
    // no memo helps with 30 distinct levels of distinct strings inside JSON text arrays.
    let mut defs = serde_json::Map::new();
    for i in 0..30 {
        let next = format!("#/$defs/A{}", i + 1);
        defs.insert(
            format!("A{i}"),
            json!({"type": "array", "anyOf": [
                {"type": "array", "items": {"$ref": next}},
                {"type": "array", "items": {"$ref": next}, "minItems": 1},
                {"type": "array", "items": {"$ref": next}, "maxItems": 9}]}),
        );
    }
    defs.insert("A30".into(), json!({"type": "integer"}));
    let raw = json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/A0"}}, "$defs": defs});
    let mut text = "\"no\"".to_string();
    for _ in 0..30 {
        text = format!("[{text}]");
    }
    let args = json!({ "x": text });
    let result = finishes("wide recursive union", move || {
        coerce_arguments_checked(&raw, args)
    });
    let refused = result.expect_err("refused");
    assert_eq!(
        refused[0].location.split(['.', '[']).next(),
        Some("x"),
        "{refused:?}"
    );
}

fn strict_object() -> Value {
    json!({"type": "object", "properties": {
        "o": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false},
        "mode": {"type": "object", "properties": {"m": {"enum": ["fast", "slow"]}, "k": {"const": 1},
                 "n": {"type": "integer"}}, "required": ["m"]},
        "list": {"type": "array", "items": {"type": "object", "properties": {"v": {"type": "boolean"}},
                 "additionalProperties": false}},
    }})
}

#[test]
fn json_text_for_an_object_may_not_carry_what_the_raw_schema_refuses() {
    let raw = strict_object();
    for (args, location, says) in [
        (
            json!({"o": "{\"a\":\"v\",\"admin\":true}"}),
            "o.admin",
            "additionalProperties",
        ),
        (json!({"mode": "{\"m\":\"turbo\"}"}), "mode.m", "not one of"),
        (
            json!({"mode": "{\"m\":\"fast\",\"k\":2}"}),
            "mode.k",
            "only 1",
        ),
        (
            json!({"mode": "{\"m\":\"fast\",\"n\":\"x\"}"}),
            "mode.n",
            "integer",
        ),
        (
            json!({"mode": "{\"k\":1}"}),
            "mode",
            "required property `m`",
        ),
        (
            json!({"list": "[{\"v\": true}, {\"v\": true, \"w\": 1}]"}),
            "list[1].w",
            "additionalProperties",
        ),
        (json!({"o": "[1]"}), "o", "not object"),
    ] {
        let refused = coerce_arguments_checked(&raw, args.clone())
            .expect_err(&format!("{args} must be refused"));
        assert_eq!(refused[0].location, location, "{args}: {refused:?}");
        let text = refused[0].to_string();
        assert!(text.contains(says), "{args}: {text}");
        // The old API never turns the text into an object the schema refuses.
        let (out, locations) = coerce_arguments_reporting(&raw, args.clone());
        assert_eq!(out, args, "left as the client sent it");
        assert!(!locations.is_empty(), "{args}");
    }
    // Content the raw schema accepts is parsed as before.
    let ok = json!({"o": "{\"a\":\"v\"}", "mode": "{\"m\":\"fast\",\"k\":1,\"n\":\"3\"}",
                    "list": "[{\"v\": \"true\"}]"});
    let expected =
        json!({"o": {"a": "v"}, "mode": {"m": "fast", "k": 1, "n": 3}, "list": [{"v": true}]});
    assert_eq!(
        coerce_arguments_checked(&raw, ok.clone()),
        Ok(expected.clone())
    );
    assert_eq!(coerce_arguments(&raw, ok), expected);
}

#[test]
fn plain_arguments_the_schema_accepts_are_never_refused() {
    let raw = strict_object();
    let args = json!({"o": {"a": "v"}, "mode": {"m": "slow"}, "list": [{"v": false}]});
    assert_eq!(coerce_arguments_checked(&raw, args.clone()), Ok(args));
}

#[test]
fn null_inside_json_text_is_refused_only_where_the_raw_schema_refuses_it() {
    let raw = json!({"type": "object", "properties": {"o": {"type": "object", "properties": {
        "open": {"type": "string", "nullable": true},
        "typed": {"type": ["string", "null"]},
        "plain": {"type": "string"}}}}});
    let ok = json!({"o": "{\"open\": null, \"typed\": null}"});
    assert_eq!(
        coerce_arguments_checked(&raw, ok),
        Ok(json!({"o": {"open": null, "typed": null}}))
    );
    // A null where the raw schema takes no null is removed (so a default applies), not refused.
    let dropped = json!({"o": "{\"plain\": null}"});
    assert_eq!(
        coerce_arguments_checked(&raw, dropped),
        Ok(json!({"o": {}}))
    );
}

#[test]
fn malformed_json_text_for_a_union_is_refused_as_json_text() {
    let raw = json!({"type": "object", "properties": {"either": {"anyOf": [
        {"type": "array", "items": {"type": "integer"}},
        {"type": "object", "properties": {"k": {"type": "string"}}}]}}});
    let refused = coerce_arguments_checked(&raw, json!({"either": "[1, 2"})).expect_err("refused");
    let text = refused[0].to_string();
    assert!(
        text.starts_with("argument `either`: not valid JSON text"),
        "{text}"
    );
    assert_eq!(
        coerce_arguments_checked(&raw, json!({"either": "[1, 2]"})),
        Ok(json!({"either": [1, 2]}))
    );
}
