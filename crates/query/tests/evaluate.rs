//! In-process behaviour of `evaluate`: output format, limits, errors, input
//! handling and the jq 1.7 gaps closed on top of jaq.

// Test code: a panic is how a test reports failure, and clippy's allow-unwrap-in-tests
// does not reach helpers outside #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use fs_mcp_query::{
    Answer, AnswerNote, CompileProblem, FunctionHelp, InputFormat, InputProblem, JqOnlyReason,
    Limits, Position, QueryError, ResultCount, SyntaxHint, SyntaxProblem, VariableHelp,
    check_expression, example_queries,
};
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

mod common;
use common::text;

/// The answer of `expr` on the JSON `input`, as data.
fn json_answer(input: &str, expr: &str) -> Result<Answer, QueryError> {
    fs_mcp_query::evaluate(
        input.as_bytes(),
        InputFormat::Json,
        expr,
        &Limits::default(),
    )
}

/// The notes of an answer that ran.
fn notes(answer: Result<Answer, QueryError>) -> Vec<AnswerNote> {
    answer
        .unwrap_or_else(|e| panic!("unexpected error: {e}"))
        .notes
}

fn error_after(results: usize, error: &str) -> AnswerNote {
    AnswerNote::ErrorAfterResults {
        results,
        error: error.into(),
        more_errors: 0,
    }
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
    assert_eq!(
        notes(json_answer("null", "range(250)")),
        [AnswerNote::Truncated {
            shown: 100,
            results: ResultCount {
                counted: 250,
                at_least: false
            },
            output_limit_bytes: None,
            next_query: "[range(250)][100:200][]".into(),
        }]
    );
    assert!(matches!(
        notes(json_answer(r#"{"items": [1,2,3]}"#, "[range(150)] | .[]"))[..],
        [AnswerNote::Truncated {
            shown: 100,
            results: ResultCount { counted: 150, .. },
            ..
        }]
    ));
}

#[test]
fn slice_hint_follows_the_query() {
    let input = format!("{{\"items\": [{}]}}", vec!["1"; 120].join(","));
    let notes = notes(json_answer(&input, ".items[]"));
    assert!(
        matches!(&notes[..], [AnswerNote::Truncated { next_query, .. }] if next_query == ".items[100:200][]"),
        "{notes:?}"
    );
}

#[test]
fn count_stops_at_a_bound_and_says_at_least() {
    let limits = Limits {
        max_counted_results: 150,
        ..Limits::default()
    };
    let answer = fs_mcp_query::evaluate(b"null", InputFormat::Json, "range(1e12)", &limits);
    let notes = notes(answer);
    assert!(
        matches!(
            notes[..],
            [AnswerNote::Truncated {
                shown: 100,
                results: ResultCount {
                    counted: 150,
                    at_least: true
                },
                ..
            }]
        ),
        "{notes:?}"
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
    let notes = notes(fs_mcp_query::evaluate(
        b"null",
        InputFormat::Json,
        "range(50) | \"abcdefghij\"",
        &limits,
    ));
    assert!(
        matches!(
            notes[..],
            [AnswerNote::Truncated {
                shown: 7,
                results: ResultCount {
                    counted: 50,
                    at_least: false
                },
                output_limit_bytes: Some(100),
                ..
            }]
        ),
        "{notes:?}"
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
    let notes = notes(fs_mcp_query::evaluate(
        b"null",
        InputFormat::Json,
        "[range(1000)]",
        &limits,
    ));
    assert_eq!(
        notes,
        [AnswerNote::FirstResultCut {
            result_bytes: 3891,
            shown_bytes: 64,
            results: ResultCount {
                counted: 1,
                at_least: false
            },
        }]
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
    let answer = json_answer("1", "debug | . + 1 | stderr").unwrap();
    assert_eq!(answer.results, "2");
    assert_eq!(
        answer.notes,
        [AnswerNote::Log {
            text: "[\"DEBUG:\",1]\n2".into(),
            dropped: false
        }]
    );
}

#[test]
fn halt_and_halt_error_do_not_exit() {
    assert_eq!(ok(json("null", "1, halt, 2")), "1");
    let e = err(json("null", "\"bad input\\n\" | halt_error"));
    assert_eq!(
        e.to_string(),
        "jq error: halt_error (exit code 5): bad input"
    );
    assert_eq!(
        notes(json_answer("null", "1, (\"x\" | halt_error(3))")),
        [error_after(1, "halt_error (exit code 3): x")]
    );
}

// --- query errors -----------------------------------------------------------------

#[test]
fn syntax_errors_give_position_and_hint() {
    let syntax = |expr: &str| match err(json("{}", expr)) {
        QueryError::Syntax(e) => e,
        other => panic!("not a syntax error: {other:?}"),
    };
    let e = syntax(".a | select(.b == )");
    assert_eq!(
        e.to_string(),
        "jq syntax error at line 1, column 19: expected term, found `)`\n  .a | select(.b == )\n                    ^"
    );
    assert_eq!(e.hint, Some(SyntaxHint::CheckStructure));

    let e = syntax(".a\n| map(.b");
    assert!(
        e.to_string()
            .contains("`(` opened at line 2, column 6 is never closed"),
        "{e}"
    );
    assert_eq!(e.hint, Some(SyntaxHint::AddMissing { close: ")".into() }));

    let e = syntax(".name == 'x'");
    assert_eq!(e.problem, SyntaxProblem::SingleQuote);
    assert_eq!(e.hint, Some(SyntaxHint::DoubleQuotes));

    let e = syntax("if . then 1");
    assert!(
        e.to_string()
            .contains("expected else or end, found end of query"),
        "{e}"
    );
    assert_eq!(e.hint, Some(SyntaxHint::EndsTooEarly));

    assert_eq!(
        syntax(".a = = 1").hint,
        Some(SyntaxHint::CompareWithDoubleEquals)
    );
    assert_eq!(syntax(r#""\q""#).hint, Some(SyntaxHint::ValidEscapes));
}

#[test]
fn undefined_functions_are_named() {
    let compile = |expr: &str| match err(json("{}", expr)) {
        QueryError::Compile(e) => e.problems,
        other => panic!("not a compile error: {other:?}"),
    };
    let e = err(json("{}", ".a | frobnicate(1)"));
    assert_eq!(
        e.to_string(),
        "jq error: undefined function `frobnicate/1` at line 1, column 6."
    );
    let function_help = |expr: &str| match &compile(expr)[..] {
        [CompileProblem::UndefinedFunction { help, .. }] => help.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        function_help("lenght"),
        Some(FunctionHelp::DidYouMean {
            name: "length".into()
        })
    );
    assert_eq!(
        function_help("input_line_number"),
        Some(FunctionHelp::JqOnly {
            why: JqOnlyReason::LineNumbersNotTracked
        })
    );
    assert_eq!(
        function_help("isvalid(.)"),
        Some(FunctionHelp::JqOnly {
            why: JqOnlyReason::UseInstead {
                expression: "try (f | true) catch false".into()
            }
        })
    );
    assert_eq!(
        function_help("splits"),
        Some(FunctionHelp::DefinedAs {
            arities: vec![1, 2]
        })
    );
    let e = err(json("{}", "$nope"));
    assert!(e.to_string().contains("undefined variable `$nope`"), "{e}");
}

#[test]
fn the_environment_is_not_reachable() {
    let problems = |expr: &str| match err(json("{}", expr)) {
        QueryError::Compile(e) => e.problems,
        other => panic!("not a compile error: {other:?}"),
    };
    assert!(matches!(
        &problems("env")[..],
        [CompileProblem::UndefinedFunction {
            help: Some(FunctionHelp::EnvironmentDisabled),
            ..
        }]
    ));
    assert!(matches!(
        &problems("$ENV.HOME")[..],
        [CompileProblem::UndefinedVariable {
            help: Some(VariableHelp::EnvironmentDisabled),
            ..
        }]
    ));
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
    let answer = json_answer("[1,2]", ".[] | if . == 2 then error(\"bad\") else . end").unwrap();
    assert_eq!(answer.results, "1");
    assert_eq!(answer.notes, [error_after(1, "bad")]);
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
    assert_eq!(
        e,
        QueryError::Input(InputProblem::InvalidJson {
            message: "value expected".into(),
            at: Position {
                line: 2,
                column: 14
            },
            looks_like_yaml: false,
        })
    );
}

#[test]
fn absurdly_deep_json_is_refused_before_parsing() {
    let deep = format!("{}{}", "[".repeat(20_000), "]".repeat(20_000));
    match err(json(&deep, "length")) {
        QueryError::Input(InputProblem::TooDeep { max_depth, at }) => {
            assert_eq!(max_depth, 10_000);
            assert_eq!(
                at,
                Position {
                    line: 1,
                    column: 10_001
                }
            );
        }
        other => panic!("{other:?}"),
    }
    let ok_deep = format!("{}{}", "[".repeat(500), "]".repeat(500));
    assert_eq!(ok(json(&ok_deep, "length")), "1");
}

#[test]
fn yaml_given_to_query_json_is_said_to_look_like_yaml() {
    let e = err(json("name: x\nitems:\n  - 1\n", "keys"));
    assert!(
        matches!(
            e,
            QueryError::Input(InputProblem::InvalidJson {
                looks_like_yaml: true,
                ..
            })
        ),
        "{e:?}"
    );
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
        e,
        QueryError::Input(InputProblem::Binary {
            format: InputFormat::Json
        })
    );
    let e = evaluate(b"\x00\x01", InputFormat::Yaml, ".", &Limits::default()).unwrap_err();
    assert_eq!(
        e,
        QueryError::Input(InputProblem::Binary {
            format: InputFormat::Yaml
        })
    );
    let e = evaluate(
        b"\xff\xfe{\x00}\x00",
        InputFormat::Json,
        ".",
        &Limits::default(),
    )
    .unwrap_err();
    assert_eq!(
        e,
        QueryError::Input(InputProblem::Utf16 {
            format: InputFormat::Json
        })
    );
}

#[test]
fn yaml_parse_errors_give_line_and_column() {
    match err(yaml("a: [1, 2\nb: 3\n", ".")) {
        QueryError::Input(InputProblem::InvalidYaml {
            message,
            at: Some(at),
        }) => {
            assert!(!message.is_empty());
            assert_eq!(at.line, 2);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn json_lines_are_separate_inputs() {
    let input = "{\"n\": 1}\n{\"n\": 2}\n{\"n\": 3}\n";
    assert_eq!(ok(json(input, ".n")), "1\n2\n3");
    assert_eq!(ok(json(input, "[., inputs] | map(.n)")), "[1,2,3]");
    let answer = json_answer("{\"n\": 1}\n{\"n\": ", ".n").unwrap();
    assert_eq!(answer.results, "1");
    assert!(
        matches!(&answer.notes[..], [AnswerNote::ErrorAfterResults { results: 1, error, .. }] if error.starts_with("invalid JSON in value 2")),
        "{:?}",
        answer.notes
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
