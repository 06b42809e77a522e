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
