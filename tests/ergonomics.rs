//! Details of what the model reads that cost agents calls or tokens, checked on the real binary.

mod common;

use common::Workspace;

#[test]
fn no_listed_description_says_its_default_twice() {
    let ws = Workspace::new();
    let mut c = ws.start(&["--all"]);
    let mut descriptions = Vec::new();
    for tool in c.list_tools() {
        collect_descriptions(&tool["inputSchema"], &mut descriptions);
    }
    assert!(!descriptions.is_empty());
    for d in descriptions {
        let count = d.to_ascii_lowercase().matches("default").count();
        assert!(count <= 1, "default said {count} times: {d}");
    }
}

fn collect_descriptions(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (k, v) in map {
                match (k.as_str(), v) {
                    ("description", serde_json::Value::String(s)) => out.push(s.clone()),
                    _ => collect_descriptions(v, out),
                }
            }
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| collect_descriptions(v, out)),
        _ => {}
    }
}

#[test]
fn unknown_argument_names_are_refused_with_the_closest_valid_one() {
    let ws = Workspace::new();
    ws.write("a.md", "one\ntwo\n");
    let mut c = ws.start(&[]);
    let result = c.call(
        "read_files",
        serde_json::json!({"files": [{"path": "a.md"}], "large_file_pasthrough": true}),
    );
    assert_eq!(result["isError"], true, "{result}");
    let text = common::text_of(&result);
    assert!(
        text.contains(
            "unknown argument `large_file_pasthrough`; did you mean `large_file_passthrough`?"
        ),
        "{text}"
    );
    let nested = c.call(
        "read_files",
        serde_json::json!({"files": [{"path": "a.md", "hed": 1}]}),
    );
    assert!(
        common::text_of(&nested).contains("`files[0].hed`; did you mean `head`?"),
        "{nested}"
    );
    // The lenient forms stay accepted.
    let plain = c.call_text("read_files", serde_json::json!({"files": ["a.md"]}));
    assert!(plain.contains("one\ntwo"), "{plain}");
    let stringified = c.call_text("read_files", serde_json::json!({"files": "[\"a.md\"]"}));
    assert!(stringified.contains("one\ntwo"), "{stringified}");
}
