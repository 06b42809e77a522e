//! jq 1.7 compatibility table: common expressions on the same document given
//! as JSON and as YAML, each with the exact output jq 1.7 prints (`jq -c`).

// Test code: a panic is how a test reports failure, and clippy's allow-unwrap-in-tests
// does not reach helpers outside #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use fs_mcp_query::{InputFormat, Limits, evaluate};

mod common;
use common::text;

const DOC_JSON: &str = r#"{"a":{"b":2,"c":[1,2,3]},"items":[{"name":"apple","price":1.5,"tags":["fruit","red"],"qty":3},{"name":"Banana","price":0.25,"tags":["fruit"],"qty":12},{"name":"carrot","price":0.8,"tags":["vegetable"],"qty":0}],"s":"a,b, c","n":"42","msg":"Hello"}"#;

const DOC_YAML: &str = r#"# the same document in YAML
a:
  b: 2
  c: [1, 2, 3]
items:
  - name: apple
    price: 1.5
    tags: [fruit, red]
    qty: 3
  - name: Banana
    price: 0.25
    tags:
      - fruit
    qty: 12
  - {name: carrot, price: 0.8, tags: [vegetable], qty: 0}
s: "a,b, c"
n: "42"
msg: Hello
"#;

/// (expression, expected output lines)
const TABLE: &[(&str, &[&str])] = &[
    ("keys", &[r#"["a","items","msg","n","s"]"#]),
    (".a | .[]", &["2", "[1,2,3]"]),
    (".a.b", &["2"]),
    (".items[] | select(.price > 1) | .name", &[r#""apple""#]),
    (".items | map(.qty)", &["[3,12,0]"]),
    (".items | length", &["3"]),
    (".s | length", &["6"]),
    (
        "to_entries | map(.key)",
        &[r#"["a","items","s","n","msg"]"#],
    ),
    (
        ".a | to_entries",
        &[r#"[{"key":"b","value":2},{"key":"c","value":[1,2,3]}]"#],
    ),
    (
        ".items | group_by(.tags | length) | map(map(.name))",
        &[r#"[["Banana","carrot"],["apple"]]"#],
    ),
    (
        ".items | sort_by(.price) | map(.name)",
        &[r#"["Banana","carrot","apple"]"#],
    ),
    (
        "[.items[].tags[]] | unique",
        &[r#"["fruit","red","vegetable"]"#],
    ),
    (
        "[.a | paths]",
        &[r#"[["b"],["c"],["c",0],["c",1],["c",2]]"#],
    ),
    ("[.a | ..]", &[r#"[{"b":2,"c":[1,2,3]},2,[1,2,3],1,2,3]"#]),
    (".msg | @base64", &[r#""SGVsbG8=""#]),
    (".msg | @base64 | @base64d", &[r#""Hello""#]),
    (
        r#""\(.items[0].name) costs \(.items[0].price * 2) (\(.a))""#,
        &[r#""apple costs 3 ({\"b\":2,\"c\":[1,2,3]})""#],
    ),
    ("reduce .items[] as $i (0; . + $i.qty)", &["15"]),
    ("[limit(2; .items[].name)]", &[r#"["apple","Banana"]"#]),
    ("first(.items[].name)", &[r#""apple""#]),
    ("last(.items[].name)", &[r#""carrot""#]),
    (".items | first | .name", &[r#""apple""#]),
    (".items | last | .name", &[r#""carrot""#]),
    (
        r#"[.items[] | select(.name | test("^[a-c]")) | .name]"#,
        &[r#"["apple","carrot"]"#],
    ),
    (
        r#"[.items[] | select(.name | test("b"; "i")) | .name]"#,
        &[r#"["Banana"]"#],
    ),
    (r#"[.s | splits(", *")]"#, &[r#"["a","b","c"]"#]),
    (".items[1].name | ascii_downcase", &[r#""banana""#]),
    (".a | tostring", &[r#""{\"b\":2,\"c\":[1,2,3]}""#]),
    (".a.b | tostring", &[r#""2""#]),
    (".n | tonumber", &["42"]),
    (r#".a | has("b")"#, &["true"]),
    (".items | has(5)", &["false"]),
    (".a | del(.b)", &[r#"{"c":[1,2,3]}"#]),
    ("del(.items) | keys_unsorted", &[r#"["a","s","n","msg"]"#]),
    (
        ".a | with_entries(.value |= tostring)",
        &[r#"{"b":"2","c":"[1,2,3]"}"#],
    ),
    ("{} | .a.b = 1", &[r#"{"a":{"b":1}}"#]),
    (".a.x.y = 1 | .a", &[r#"{"b":2,"c":[1,2,3],"x":{"y":1}}"#]),
    (".x[2] = true | .x", &["[null,null,true]"]),
    (r#"setpath(["q", 0, "r"]; 5) | .q"#, &[r#"[{"r":5}]"#]),
    (".a.c[1] = 9 | .a.c", &["[1,9,3]"]),
    (".a.c += [4] | .a.c", &["[1,2,3,4]"]),
    (".a.c |= map(. * 10) | .a", &[r#"{"b":2,"c":[10,20,30]}"#]),
    (".a.b |= . + 1 | .a.b", &["3"]),
    (".items[0].price * 2", &["3"]),
    ("[.items[] | .price * 2]", &["[3,0.5,1.6]"]),
    (".a.c | add / length", &["2"]),
    ("[range(0; 10; 3)]", &["[0,3,6,9]"]),
    (
        ".items[] | [.name, .price, .qty] | @csv",
        &[
            r#""\"apple\",1.5,3""#,
            r#""\"Banana\",0.25,12""#,
            r#""\"carrot\",0.8,0""#,
        ],
    ),
    (
        ".items[] | [.name, .price] | @tsv",
        &[r#""apple\t1.5""#, r#""Banana\t0.25""#, r#""carrot\t0.8""#],
    ),
    (
        r#"[.items[] | .name] | join(", ")"#,
        &[r#""apple, Banana, carrot""#],
    ),
    (".items | min_by(.price) | .name", &[r#""Banana""#]),
    (".items | max_by(.price) | .name", &[r#""apple""#]),
    ("[.items[].price] | min, max", &["0.25", "1.5"]),
    ("any(.items[]; .qty == 0)", &["true"]),
    ("all(.items[]; .qty > 0)", &["false"]),
    (
        "[.a | tostream]",
        &[r#"[[["b"],2],[["c",0],1],[["c",1],2],[["c",2],3],[["c",2]],[["c"]]]"#],
    ),
    (
        ".a | to_entries | from_entries",
        &[r#"{"b":2,"c":[1,2,3]}"#],
    ),
    ("path(.a.c[0])", &[r#"["a","c",0]"#]),
    ("[.a | leaf_paths]", &[r#"[["b"],["c",0],["c",1],["c",2]]"#]),
    (r#"getpath(["a", "b"])"#, &["2"]),
    (
        ".items | INDEX(.name) | keys",
        &[r#"["Banana","apple","carrot"]"#],
    ),
    (r#".msg | ltrimstr("He")"#, &[r#""llo""#]),
    (r#".msg | split("l")"#, &[r#"["He","","o"]"#]),
    (r#".msg | sub("l"; "L")"#, &[r#""HeLlo""#]),
    (r#".msg | gsub("l"; "L")"#, &[r#""HeLLo""#]),
    (".msg | explode | implode", &[r#""Hello""#]),
    (".msg | .[1:3]", &[r#""el""#]),
    (".a.c | .[1:]", &["[2,3]"]),
    (
        ".items[] | {name, qty}",
        &[
            r#"{"name":"apple","qty":3}"#,
            r#"{"name":"Banana","qty":12}"#,
            r#"{"name":"carrot","qty":0}"#,
        ],
    ),
    (r#"if .a.b > 1 then "big" else "small" end"#, &[r#""big""#]),
    (".a.c | contains([2])", &["true"]),
    (".a.c | index(2)", &["1"]),
    (".a.c | @json", &[r#""[1,2,3]""#]),
    (
        ".items[0] | del(.tags, .qty)",
        &[r#"{"name":"apple","price":1.5}"#],
    ),
    (".items | length as $n | $n * 2", &["6"]),
    ("1 / 3", &["0.3333333333333333"]),
    ("[.items[] | .qty] | add / length", &["5"]),
    (
        r#"[.a | paths(type == "number")]"#,
        &[r#"[["b"],["c",0],["c",1],["c",2]]"#],
    ),
    (
        "[nan, infinite, -infinite]",
        &["[null,1.7976931348623157e+308,-1.7976931348623157e+308]"],
    ),
    (".items | map(.price) | add * 100 | round", &["255"]),
    (".a | keys_unsorted", &[r#"["b","c"]"#]),
    (
        "[.items[] | .name | ascii_upcase]",
        &[r#"["APPLE","BANANA","CARROT"]"#],
    ),
    (".items[0].tags | first", &[r#""fruit""#]),
    (
        "[.items[] | .name] | sort",
        &[r#"["Banana","apple","carrot"]"#],
    ),
];

fn check(format: InputFormat, doc: &str) {
    let mut failures = Vec::new();
    for (expr, want) in TABLE {
        let want = want.join("\n");
        match evaluate(doc.as_bytes(), format, expr, &Limits::default()) {
            Ok(got) if text(&got) == want => {}
            Ok(got) => failures.push(format!("{expr}\n   want: {want}\n    got: {}", text(&got))),
            Err(e) => failures.push(format!("{expr}\n   want: {want}\n  error: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} expressions differ from jq 1.7 on {format:?}:\n{}",
        failures.len(),
        TABLE.len(),
        failures.join("\n")
    );
}

#[test]
fn jq_compat_on_json() {
    check(InputFormat::Json, DOC_JSON);
}

#[test]
fn jq_compat_on_yaml() {
    check(InputFormat::Yaml, DOC_YAML);
}
