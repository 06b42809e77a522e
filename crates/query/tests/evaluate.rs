//! In-process behaviour of `evaluate`: output format, limits, errors, input
//! handling and the jq 1.7 gaps closed on top of jaq.

// Test code: a panic is how a test reports failure, and clippy's allow-unwrap-in-tests
// does not reach helpers outside #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use fs_mcp_query::{Answer, InputFormat, Limits, QueryError, check_expression, example_queries};
use std::path::Path;

/// `fs_mcp_query::evaluate`, its answer as one text.
fn evaluate(
    input: &[u8],
    format: InputFormat,
    expression: &str,
    limits: &Limits,
) -> Result<String, QueryError> {
    fs_mcp_query::evaluate(input, format, expression, limits).map(|answer| text(&answer))
}

/// The answer as one text, as the server shows it.
fn text(answer: &Answer) -> String {
    let results = if answer.is_empty() {
        "No results found."
    } else {
        &answer.results
    };
    format!("{results}{}", answer.notes)
}

fn json(input: &str, expr: &str) -> Result<String, QueryError> {
    evaluate(
        input.as_bytes(),
        InputFormat::Json,
        expr,
        &Limits::default(),
    )
}

fn yaml(input: &str, expr: &str) -> Result<String, QueryError> {
    evaluate(
        input.as_bytes(),
        InputFormat::Yaml,
        expr,
        &Limits::default(),
    )
}

fn ok(r: Result<String, QueryError>) -> String {
    r.unwrap_or_else(|e| panic!("unexpected error: {e}"))
}

fn err(r: Result<String, QueryError>) -> QueryError {
    match r {
        Ok(t) => panic!("expected an error, got {t}"),
        Err(e) => e,
    }
}

// --- output ---------------------------------------------------------------------

#[test]
fn one_compact_result_per_line_in_key_order() {
    let out = ok(json(r#"{"z": 1, "a": {"y": [1, 2], "b": null}}"#, ".a, .z"));
    assert_eq!(out, "{\"y\":[1,2],\"b\":null}\n1");
}

#[test]
fn truncates_after_100_results_with_exact_count() {
    let out = ok(json("null", "range(250)"));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[..100],
        (0..100).map(|i| i.to_string()).collect::<Vec<_>>()[..]
    );
    assert!(out.ends_with(
        "99\n\n--- Truncated. Showing 100 of 250 results. ---\n\
         Refine your query or slice, e.g. [range(250)][100:200][]"
    ));
    let out = ok(json(r#"{"items": [1,2,3]}"#, "[range(150)] | .[]"));
    assert!(out.contains("Showing 100 of 150 results"));
}

#[test]
fn slice_hint_follows_the_query() {
    let input = format!("{{\"items\": [{}]}}", vec!["1"; 120].join(","));
    let out = ok(json(&input, ".items[]"));
    assert!(out.ends_with("e.g. .items[100:200][]"), "{out}");
}

#[test]
fn count_stops_at_a_bound_and_says_at_least() {
    let limits = Limits {
        max_counted_results: 150,
        ..Limits::default()
    };
    let out = evaluate(b"null", InputFormat::Json, "range(1e12)", &limits).unwrap();
    assert!(
        out.contains("--- Truncated. Showing 100 of at least 150 results. ---"),
        "{out}"
    );
}

#[test]
fn no_results_for_empty_and_only_nulls() {
    assert_eq!(ok(json("{}", "empty")), "No results found.");
    assert_eq!(ok(json("{}", ".missing")), "No results found.");
    assert_eq!(ok(json("{}", "null, null")), "No results found.");
    assert_eq!(ok(json("", ".")), "No results found.");
    assert_eq!(ok(json("{}", "null, 1")), "null\n1");
}

#[test]
fn multiline_expressions_with_comments() {
    let expr = "# pick the big ones\n.items[]\n| select(.n > 1) # keep\n| .n\n";
    assert_eq!(
        ok(json(r#"{"items":[{"n":1},{"n":2},{"n":3}]}"#, expr)),
        "2\n3"
    );
}

#[test]
fn an_empty_query_is_the_identity() {
    assert_eq!(ok(json(r#"{"a":1}"#, "")), r#"{"a":1}"#);
    assert_eq!(ok(json(r#"{"a":1}"#, "  # nothing\n")), r#"{"a":1}"#);
}

#[test]
fn output_bytes_are_capped() {
    let limits = Limits {
        max_output_bytes: 100,
        ..Limits::default()
    };
    let out = evaluate(
        b"null",
        InputFormat::Json,
        "range(50) | \"abcdefghij\"",
        &limits,
    )
    .unwrap();
    assert!(out.starts_with("\"abcdefghij\"\n"), "{out}");
    assert!(
        out.contains("--- Truncated (output limit of 100 bytes). Showing 7 of 50 results. ---"),
        "{out}"
    );
}

#[test]
fn a_single_huge_result_shows_its_beginning() {
    let limits = Limits {
        max_output_bytes: 64,
        ..Limits::default()
    };
    let out = evaluate(b"null", InputFormat::Json, "[range(1000)]", &limits).unwrap();
    assert!(out.starts_with("[0,1,2,3"), "{out}");
    assert!(
        out.contains("The first result is 3 KB of JSON; showing its first 64 bytes"),
        "{out}"
    );
}

#[test]
fn nan_and_infinity_print_like_jq() {
    assert_eq!(
        ok(json(
            "null",
            "nan, infinite, -infinite, [nan, 1/0], (nan | tojson)"
        )),
        "null\n1.7976931348623157e+308\n-1.7976931348623157e+308\n\
         [null,1.7976931348623157e+308]\n\"null\""
    );
    assert_eq!(
        ok(json("null", "\"\\(infinite) \\(nan)\"")),
        "\"1.7976931348623157e+308 null\""
    );
    assert_eq!(
        ok(yaml("a: .inf\nb: -.inf\nc: .nan\n", "[.a, .b, .c]")),
        "[1.7976931348623157e+308,-1.7976931348623157e+308,null]"
    );
}

#[test]
fn numbers_print_like_jq() {
    assert_eq!(
        ok(json("null", "1.5 * 2, 0.1 + 0.2, 1e17 * 1, 1e-5 * 1, 1/3")),
        "3\n0.30000000000000004\n1e+17\n1e-05\n0.3333333333333333"
    );
    // literals keep their spelling, big integers survive
    assert_eq!(
        ok(json("[1.0, 1.000, 100000000000000000000001, 1e1000]", ".")),
        "[1.0,1.000,100000000000000000000001,1.7976931348623157e+308]"
    );
    assert_eq!(
        ok(json("null", "1.5 * 2 | tostring, \"\\(1.5 * 2)\"")),
        "\"3\"\n\"3\""
    );
}

#[test]
fn debug_and_stderr_output_is_reported() {
    let out = ok(json("1", "debug | . + 1 | stderr"));
    assert_eq!(out, "2\n\n--- debug/stderr output ---\n[\"DEBUG:\",1]\n2");
}

#[test]
fn halt_and_halt_error_do_not_exit() {
    assert_eq!(ok(json("null", "1, halt, 2")), "1");
    let e = err(json("null", "\"bad input\\n\" | halt_error"));
    assert_eq!(
        e.to_string(),
        "jq error: halt_error (exit code 5): bad input"
    );
    let out = ok(json("null", "1, (\"x\" | halt_error(3))"));
    assert!(
        out.ends_with("--- jq error after 1 result: halt_error (exit code 3): x ---"),
        "{out}"
    );
}

// --- query errors -----------------------------------------------------------------

#[test]
fn syntax_errors_give_position_and_hint() {
    let e = err(json("{}", ".a | select(.b == )"));
    assert!(matches!(e, QueryError::Syntax(_)));
    let msg = e.to_string();
    assert!(
        msg.starts_with("jq syntax error at line 1, column 19: expected term, found `)`"),
        "{msg}"
    );
    assert!(
        msg.contains("\n  .a | select(.b == )\n                    ^\nHint: "),
        "{msg}"
    );

    let msg = err(json("{}", ".a\n| map(.b")).to_string();
    assert!(
        msg.contains("`(` opened at line 2, column 6 is never closed"),
        "{msg}"
    );

    let msg = err(json("{}", ".name == 'x'")).to_string();
    assert!(msg.contains("double quotes"), "{msg}");

    let msg = err(json("{}", "if . then 1")).to_string();
    assert!(
        msg.contains("expected else or end, found end of query"),
        "{msg}"
    );
}

#[test]
fn undefined_functions_are_named() {
    let e = err(json("{}", ".a | frobnicate(1)"));
    assert!(matches!(e, QueryError::Compile(_)));
    assert_eq!(
        e.to_string(),
        "jq error: undefined function `frobnicate/1` at line 1, column 6."
    );
    let msg = err(json("{}", "lenght")).to_string();
    assert!(msg.contains("(did you mean `length`?)"), "{msg}");
    let msg = err(json("{}", "input_line_number")).to_string();
    assert!(
        msg.contains("exists in jq 1.7 but not in this jq engine (jaq)"),
        "{msg}"
    );
    let msg = err(json("{}", "splits")).to_string();
    assert!(msg.contains("(defined as splits/1, splits/2)"), "{msg}");
    let msg = err(json("{}", "$nope")).to_string();
    assert!(msg.contains("undefined variable `$nope`"), "{msg}");
}

#[test]
fn the_environment_is_not_reachable() {
    let msg = err(json("{}", "env")).to_string();
    assert!(msg.contains("environment access is disabled"), "{msg}");
    let msg = err(json("{}", "$ENV.HOME")).to_string();
    assert!(msg.contains("environment access is disabled"), "{msg}");
}

#[test]
fn runtime_errors_quote_huge_values_briefly() {
    let big = format!("{{\"a\": \"{}\"}}", "x".repeat(5000));
    let e = err(json(&big, ".a | tonumber"));
    assert!(matches!(e, QueryError::Runtime(_)));
    let msg = e.to_string();
    assert!(msg.chars().count() < 320, "{} chars", msg.chars().count());
    assert!(msg.contains('…'));
    assert_eq!(
        err(json("{}", "error(\"boom\")")).to_string(),
        "jq error: boom"
    );
    let out = ok(json(
        "[1,2]",
        ".[] | if . == 2 then error(\"bad\") else . end",
    ));
    assert_eq!(out, "1\n\n--- jq error after 1 result: bad ---");
}

#[test]
fn check_expression_compiles_without_input() {
    assert!(check_expression(".a | keys").is_ok());
    assert!(matches!(
        check_expression(".a |"),
        Err(QueryError::Syntax(_))
    ));
}

// --- input ------------------------------------------------------------------------

#[test]
fn json_parse_errors_give_line_and_column() {
    let e = err(json("{\"a\": 1,\n  \"b\": [1, 2,, 3]}", "."));
    assert!(matches!(e, QueryError::Input(_)));
    assert_eq!(
        e.to_string(),
        "The file is not valid JSON: value expected at line 2, column 14."
    );
}

#[test]
fn absurdly_deep_json_is_refused_before_parsing() {
    let deep = format!("{}{}", "[".repeat(20_000), "]".repeat(20_000));
    let msg = err(json(&deep, "length")).to_string();
    assert!(msg.contains("more than 10000 levels deep"), "{msg}");
    let ok_deep = format!("{}{}", "[".repeat(500), "]".repeat(500));
    assert_eq!(ok(json(&ok_deep, "length")), "1");
}

#[test]
fn yaml_given_to_query_json_is_said_to_look_like_yaml() {
    let e = err(json("name: x\nitems:\n  - 1\n", "keys"));
    assert!(matches!(e, QueryError::InputLooksLikeYaml(_)), "{e:?}");
    assert!(e.to_string().ends_with("It looks like YAML."), "{e}");
}

#[test]
fn json_given_to_query_yaml_just_works() {
    assert_eq!(
        ok(yaml(r#"{"b": 1, "a": [true]}"#, "keys_unsorted")),
        r#"["b","a"]"#
    );
    // JSON that YAML refuses (duplicate keys inside flow mappings are fine,
    // but tabs for indentation are not) is read as JSON
    assert_eq!(ok(yaml("{\n\t\"a\": 1\n}", ".a")), "1");
}

#[test]
fn binary_and_utf16_files_are_named() {
    let e = evaluate(
        b"PK\x03\x04\x00\x00",
        InputFormat::Json,
        ".",
        &Limits::default(),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "The file is binary (it contains NUL bytes), not JSON."
    );
    let e = evaluate(b"\x00\x01", InputFormat::Yaml, ".", &Limits::default()).unwrap_err();
    assert!(e.to_string().contains("binary"), "{e}");
    let e = evaluate(
        b"\xff\xfe{\x00}\x00",
        InputFormat::Json,
        ".",
        &Limits::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("UTF-16"), "{e}");
}

#[test]
fn yaml_parse_errors_give_line_and_column() {
    let msg = err(yaml("a: [1, 2\nb: 3\n", ".")).to_string();
    assert!(msg.starts_with("The file is not valid YAML: "), "{msg}");
    assert!(msg.contains(" at line 2, column "), "{msg}");
}

#[test]
fn json_lines_are_separate_inputs() {
    let input = "{\"n\": 1}\n{\"n\": 2}\n{\"n\": 3}\n";
    assert_eq!(ok(json(input, ".n")), "1\n2\n3");
    assert_eq!(ok(json(input, "[., inputs] | map(.n)")), "[1,2,3]");
    let out = ok(json("{\"n\": 1}\n{\"n\": ", ".n"));
    assert!(
        out.starts_with("1\n\n--- jq error after 1 result: invalid JSON in value 2"),
        "{out}"
    );
}

#[test]
fn yaml_12_booleans_stay_strings() {
    let out = ok(yaml(
        "country: no\nflag: yes\non: off\ny: n\nt: true\n",
        ".",
    ));
    assert_eq!(
        out,
        r#"{"country":"no","flag":"yes","on":"off","y":"n","t":true}"#
    );
}

#[test]
fn yaml_documents_are_separate_inputs() {
    let input = "a: 1\n---\na: 2\n---\na: 3\n";
    assert_eq!(ok(yaml(input, ".a")), "1\n2\n3");
    assert_eq!(ok(yaml(input, "[., inputs] | length")), "3");
}

#[test]
fn yaml_merge_keys_anchors_and_odd_keys() {
    let input = "base: &b {x: 1, y: 2}\nd:\n  <<: *b\n  y: 3\nlist: [*b]\n1: one\n";
    assert_eq!(ok(yaml(input, ".d | .x, .y")), "1\n3");
    assert_eq!(ok(yaml(input, ".list[0].x")), "1");
    assert_eq!(ok(yaml(input, ".[\"1\"]")), "\"one\"");
}

#[test]
fn yaml_alias_bombs_are_refused() {
    let mut doc = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..10 {
        let prev = format!("*a{}", i - 1);
        let items = [prev.as_str(); 9].join(", ");
        doc.push_str(&format!("a{i}: &a{i} [{items}]\n"));
    }
    let e = err(yaml(&doc, ".a9 | length"));
    assert!(matches!(e, QueryError::Input(_)), "{e}");
}

// --- jq 1.7 behaviour on top of jaq ------------------------------------------------

#[test]
fn assignment_creates_missing_paths() {
    assert_eq!(ok(json("{}", ".a.b = 1")), r#"{"a":{"b":1}}"#);
    assert_eq!(ok(json("null", ".a = 1")), r#"{"a":1}"#);
    assert_eq!(ok(json("{}", ".x[2] = true")), r#"{"x":[null,null,true]}"#);
    assert_eq!(ok(json("[0,1]", ".[3] = 3")), "[0,1,null,3]");
    assert_eq!(ok(json("{}", ".a.b |= . + 1")), r#"{"a":{"b":1}}"#);
    assert_eq!(ok(json("{}", ".n += 2")), r#"{"n":2}"#);
    assert_eq!(
        ok(json("{\"a\":{}}", ".a.b.c //= 5")),
        r#"{"a":{"b":{"c":5}}}"#
    );
    assert_eq!(
        ok(json("{}", "setpath([\"a\", 0, \"b\"]; 1)")),
        r#"{"a":[{"b":1}]}"#
    );
    assert_eq!(ok(json("{}", ".a = (1, 2)")), "{\"a\":1}\n{\"a\":2}");
    assert_eq!(
        ok(json("{\"a\":[1,2]}", ".a[] |= . * 10")),
        r#"{"a":[10,20]}"#
    );
    assert_eq!(
        ok(json("{\"x\":1}", "def f: .y.z = 2; f")),
        r#"{"x":1,"y":{"z":2}}"#
    );
}

#[test]
fn delete_keeps_key_order() {
    assert_eq!(
        ok(json(r#"{"a":1,"b":2,"c":3}"#, "del(.a)")),
        r#"{"b":2,"c":3}"#
    );
    assert_eq!(ok(json("[1,2,3,4]", "del(.[0, 2])")), "[2,4]");
    assert_eq!(ok(json("[1,2,3,4]", "del(.[1:3])")), "[1,4]");
    assert_eq!(
        ok(json(r#"{"a":{"b":1,"c":2}}"#, "delpaths([[\"a\",\"b\"]])")),
        r#"{"a":{"c":2}}"#
    );
}

#[test]
fn other_jq_builtins() {
    assert_eq!(ok(json("null", "[limit(-1; 1, 2)]")), "[1,2]");
    assert_eq!(ok(json("null", "1 | ltrimstr(\"a\")")), "1");
    assert_eq!(
        ok(json("null", "[1, \"a\\\"b\", null, true] | @csv")),
        r#""1,\"a\"\"b\",,true""#
    );
    assert_eq!(ok(json("null", "[\"a\\tb\", 2] | @tsv")), r#""a\\tb\t2""#);
    assert_eq!(
        ok(json("null", "[1, null, \"x\"] | join(\"-\")")),
        r#""1--x""#
    );
    assert_eq!(
        ok(json(r#"{"a":[1,{"b":2}]}"#, "[tostream]")),
        r#"[[["a",0],1],[["a",1,"b"],2],[["a",1,"b"]],[["a",1]],[["a"]]]"#
    );
    assert_eq!(
        ok(json(r#"{"a":[1,{"b":2}]}"#, "fromstream(tostream)")),
        r#"{"a":[1,{"b":2}]}"#
    );
    assert_eq!(
        ok(json(
            "null",
            "[1 | truncate_stream([[0], 1], [[1, 0], 2], [[1, 0]], [[1]])]"
        )),
        "[[[0],2],[[0]]]"
    );
    assert_eq!(ok(json("[1,2]", ".[] | IN(2, 3)")), "false\ntrue");
    assert_eq!(
        ok(json(r#"[{"id":"x"},{"id":"y"}]"#, "INDEX(.id) | keys")),
        r#"["x","y"]"#
    );
    assert_eq!(
        ok(json(r#"{"a":[1,[2]]}"#, "[leaf_paths]")),
        r#"[["a",0],["a",1,0]]"#
    );
    assert_eq!(
        ok(json("null", "\"hello\" | @base32, (@base32 | @base32d)")),
        "\"NBSWY3DP\"\n\"hello\""
    );
    assert_eq!(ok(json("null", "1 | toarray")), "[1]");
}

#[test]
fn jaq_builtins_with_jq_semantics() {
    assert_eq!(
        ok(json("[1,2,3]", "has(-1), has(0), has(3)")),
        "false\ntrue\nfalse"
    );
    assert_eq!(ok(json("null", "[nth(1; 1, 2)]")), "[2]");
    assert!(matches!(
        json("null", "nth(-1; 1, 2)"),
        Err(QueryError::Runtime(_))
    ));
    assert_eq!(ok(json("null", "\"aGVsbG8\" | @base64d")), "\"hello\"");
    assert_eq!(ok(json("[1,[2]]", "pick(.[1])")), "[null,[2]]");
    assert_eq!(
        ok(json(r#"{"a":1,"b":{"c":2,"d":3}}"#, "pick(.b.c)")),
        r#"{"b":{"c":2}}"#
    );
    assert_eq!(
        ok(json(
            r#"[{"k":"a","v":1},{"name":"b","value":2},{"key":1,"value":3},{"key":false,"value":4}]"#,
            "from_entries"
        )),
        r#"{"a":1,"b":2,"1":3,"false":4}"#
    );
    assert_eq!(
        ok(json(r#"{"a":1}"#, "with_entries(.value += 1)")),
        r#"{"a":2}"#
    );
    assert_eq!(
        ok(json(
            r#"{"a":{"b":1}}"#,
            "walk(if type == \"object\" then to_entries else . end)"
        )),
        r#"[{"key":"a","value":[{"key":"b","value":1}]}]"#
    );
    assert_eq!(
        ok(json("1700000000.5", "todate")),
        "\"2023-11-14T22:13:20Z\""
    );
}

#[test]
fn example_queries_use_the_files_keys() {
    let head = br#"{"version": 2, "items": [{"id": 1}, {"id": 2}]}"#;
    assert_eq!(
        example_queries(Path::new("/w/data.json"), false, head),
        ["keys", ".items[0:5]", ".items | length"]
    );
    // The largest array, not the first met: one the head ends inside wins, else the longest.
    let head = br#"{"users": [{"id": 1}, {"id": 2}], "items": [{"id": 1}, {"id": 2}, {"id"#;
    assert_eq!(
        example_queries(Path::new("/w/data.json"), false, head),
        ["keys", ".items[0:5]", ".items | length"]
    );
    let head = br#"{"a": [1], "b": [1, 2, 3], "c": [], "d": {"e": [1, 2, 3, 4]}}"#;
    assert_eq!(
        example_queries(Path::new("/w/data.json"), false, head),
        ["keys", ".b[0:5]", ".b | length"]
    );
    let head = b"services:\n  web:\n    image: nginx\nports:\n  - 80\n";
    assert_eq!(
        example_queries(Path::new("/w/compose.yaml"), true, head),
        ["keys", ".ports[0:5]", ".ports | length"]
    );
    // every example is a valid query
    for q in example_queries(Path::new("/w/x.json"), false, b"[{\"a b\": 1}]") {
        assert!(check_expression(&q).is_ok(), "{q}");
    }
}
