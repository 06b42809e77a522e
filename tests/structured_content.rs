//! structuredContent next to the text for the data-shaped tools, and the served outputSchema
//! (get_file_info's) checked by the official Python SDK, which validates every result of a tool
//! with an outputSchema against it.

use crate::common;

use std::process::Command;

use common::{Workspace, text_of};
use serde_json::{Value, json};

fn structured(result: &Value) -> &Value {
    &result["structuredContent"]
}

#[test]
fn get_file_info_gives_each_files_facts_as_data_beside_the_same_text() {
    let ws = Workspace::new();
    ws.write("a.txt", "one\ntwo\nthree\n");
    ws.write("sub/b.md", "# b\n");
    let mut c = ws.start(&[]);
    let one = c.call("get_file_info", json!({"path": "a.txt"}));
    let facts = &structured(&one)["files"][0];
    assert_eq!(facts["path"], "a.txt", "{one}");
    assert_eq!(facts["type"], "file");
    assert_eq!(facts["size"], 14);
    assert_eq!(facts["lines"], 3);
    assert!(facts["modified"].as_str().is_some_and(|m| m.ends_with('Z')));
    // The text is rendered from the same facts, and a client reading only the data loses nothing
    // of the analysis.
    let text = text_of(&one);
    assert!(
        text.starts_with("Path: a.txt\nType: File\nSize: "),
        "{text}"
    );
    let details = facts["details"].as_str().unwrap();
    assert!(text.ends_with(details), "{text}\n---\n{details}");

    let batch = c.call(
        "get_file_info",
        json!({"paths": ["sub", "missing.txt", "sub/b.md"]}),
    );
    assert_eq!(batch["isError"], false, "{batch}");
    let files = structured(&batch)["files"].as_array().unwrap().clone();
    assert_eq!(files.len(), 3, "{batch}");
    assert_eq!(files[0]["type"], "directory");
    assert_eq!(files[1]["path"], "missing.txt");
    assert!(
        files[1]["error"]
            .as_str()
            .is_some_and(|e| e.contains("does not exist"))
    );
    assert_eq!(files[2]["lines"], 1);

    // An error carries no structured content: there is no data to give.
    let failed = c.call("get_file_info", json!({"path": "missing.txt"}));
    assert_eq!(failed["isError"], true, "{failed}");
    assert!(failed.get("structuredContent").is_none(), "{failed}");
}

#[test]
fn listings_search_files_and_the_tree_give_their_entries_as_data() {
    let ws = Workspace::new();
    ws.write("src/main.rs", "fn main() {}\n");
    ws.write("README.md", "hi\n");
    let mut c = ws.start(&["--all"]);
    for tool in ["list_directory", "list_directory_with_sizes"] {
        let listed = c.call(tool, json!({"path": "."}));
        assert_eq!(
            structured(&listed),
            &json!({"entries": [
                {"name": "src", "type": "dir"},
                {"name": "README.md", "type": "file", "size": 3}
            ], "total": 2}),
            "{listed}"
        );
    }
    let found = c.call("search_files", json!({"pattern": "*.rs"}));
    assert_eq!(
        structured(&found),
        &json!({"files": ["src/main.rs"], "total": 1}),
        "{found}"
    );
    assert_eq!(text_of(&found), "src/main.rs");
    let tree = c.call("directory_tree", json!({}));
    let text: Value = serde_json::from_str(&text_of(&tree)).unwrap();
    assert_eq!(structured(&tree), &text);
    assert_eq!(text["children"][0]["name"], "README.md", "{tree}");
}

#[test]
fn the_work_log_analysis_is_the_same_data_in_either_text_format() {
    let ws = Workspace::new();
    ws.write(
        "gsd-lite/WORK.md",
        "# Work\n\n### [LOG-001] - [PLAN] - First - Task: T\nbody\n",
    );
    let mut c = ws.start(&[]);
    let as_json = c.call("analyze_gsd_work_log", json!({}));
    let as_table = c.call("analyze_gsd_work_log", json!({"output_format": "table"}));
    let text: Value = serde_json::from_str(&text_of(&as_json)).unwrap();
    assert_eq!(structured(&as_json), &text);
    assert_eq!(structured(&as_table), &text);
    assert_eq!(text["summary"]["total_logs"], 1);
}

/// The official Python SDK validates get_file_info's results against the served outputSchema
/// (and fails a result of a tool with an outputSchema that has no structured content).
#[test]
fn the_python_sdk_accepts_get_file_info_results() {
    let Some(python) = common::sdk_python() else {
        return;
    };
    let ws = Workspace::new();
    ws.write("a.txt", "one\n");
    ws.write("d/b.json", "{\"k\": 1}\n");
    let script = r#"
import asyncio, json, sys
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

async def main():
    params = StdioServerParameters(command=sys.argv[1], args=sys.argv[2:])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = {t.name: t for t in (await session.list_tools()).tools}
            out = {"schema": tools["get_file_info"].output_schema is not None}
            one = await session.call_tool("get_file_info", {"path": "a.txt"})
            many = await session.call_tool("get_file_info", {"paths": ["d", "d/b.json", "nope"]})
            out["one"] = one.structured_content
            out["many"] = [f.get("type", f.get("error", "")[:5]) for f in many.structured_content["files"]]
            out["errors"] = [one.is_error, many.is_error]
            print(json.dumps(out))

asyncio.run(main())
"#;
    let root = ws.root.to_str().unwrap();
    let output = Command::new(python)
        .arg("-c")
        .arg(script)
        .arg(common::BIN)
        .arg(root)
        .output()
        .expect("run the Python SDK");
    assert!(
        output.status.success(),
        "the Python SDK refused a result: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).expect("report");
    assert_eq!(report["schema"], true, "{report}");
    assert_eq!(report["one"]["files"][0]["lines"], 1, "{report}");
    assert_eq!(
        report["many"],
        json!(["directory", "file", "Error"]),
        "{report}"
    );
    assert_eq!(report["errors"], json!([false, false]), "{report}");
}

#[test]
fn query_results_are_json_values_when_they_all_fit() {
    let ws = Workspace::new();
    ws.write(
        "d.json",
        r##"{"items": [{"id": 1, "$ref": "#/a"}, {"id": 2}], "n": "x\ny"}"##,
    );
    let mut c = ws.start(&[]);
    let items = c.call(
        "query_json",
        json!({"file_path": "d.json", "jq_expression": ".items[]"}),
    );
    // The text keeps the file's keys; the data escapes "$ref" for Gemini (R14).
    assert_eq!(text_of(&items), "{\"id\":1,\"$ref\":\"#/a\"}\n{\"id\":2}");
    assert_eq!(
        structured(&items),
        &json!({"results": [{"id": 1, "$$ref": "#/a"}, {"id": 2}]})
    );
    let one = c.call(
        "query_json",
        json!({"file_path": "d.json", "jq_expression": ".n"}),
    );
    assert_eq!(structured(&one), &json!({"results": ["x\ny"]}), "{one}");
    // Cut results, an error after results and no result at all: the text alone.
    for expression in ["range(1000)", "1, error(\"boom\")", "empty"] {
        let cut = c.call(
            "query_json",
            json!({"file_path": "d.json", "jq_expression": expression}),
        );
        assert!(
            cut.get("structuredContent").is_none(),
            "{expression}: {cut}"
        );
    }
}
