//! `analyze_gsd_work_log` costs a bounded time and memory whatever the log: hostile logs
//! generated here, the server under an address-space ceiling. Before the bounds, 200k signal
//! lines under one header took over a minute (line numbers recounted from the entry start for
//! every match), and a long one-word line made the tokenizer ask for 10 GB.

use crate::common;

use common::{StdioClient, Workspace, text_of};

use std::fs;
use std::io::Write;
use std::time::Duration;

use serde_json::{Value, json};

const MEMORY_CEILING: &str = "--as=1073741824";
/// A generous bound for a call on a busy machine in a debug build: a hang, not a speed goal.
const CALL_LIMIT: Duration = Duration::from_secs(120);

fn analyze(c: &mut StdioClient, file: &str) -> Value {
    let id = c.send_request(
        "tools/call",
        json!({"name": "analyze_gsd_work_log", "arguments": {"file_path": file}}),
    );
    let reply = c.try_wait_for(id, CALL_LIMIT).unwrap_or_else(|| {
        panic!("analyze_gsd_work_log on {file} did not answer (crashed or hung)")
    });
    let result = &reply["result"];
    assert_eq!(result["isError"], false, "{result}");
    serde_json::from_str(&text_of(result)).unwrap_or_else(|e| panic!("not JSON ({e}): {result}"))
}

/// A header followed by `len` bytes of one word without a newline, as a sparse file.
fn sparse_one_word_line(ws: &Workspace, name: &str, len: u64) {
    let path = ws.root.join(name);
    let mut file = fs::File::create(&path).unwrap();
    file.write_all(b"### [LOG-001] - [PLAN] - Huge - Task: T1\nkilled ")
        .unwrap();
    file.set_len(len).unwrap();
}

#[test]
fn hostile_work_logs_answer_within_the_memory_ceiling() {
    let ws = Workspace::new();
    let mut pivots = String::from("### [LOG-001] - [PLAN] - Pivots - Task: T1\n");
    for _ in 0..200_000 {
        pivots.push_str("pivot\n");
    }
    ws.write("pivots.md", &pivots);
    sparse_one_word_line(&ws, "word300m.md", 300 << 20);
    sparse_one_word_line(&ws, "word1g.md", 1 << 30);
    let root = ws.root.to_str().unwrap().to_string();
    let mut c = StdioClient::start_wrapped(&ws.base, &["prlimit", MEMORY_CEILING, "--"], &[&root]);

    let v = analyze(&mut c, "pivots.md");
    assert_eq!(v["summary"]["tier_2_flags"], 200_000, "{v}");
    assert_eq!(v["logs"][0]["lines"], json!([1, 200_001]));
    let listed = v["logs"][0]["signals"]["tier_2"].as_array().unwrap();
    assert_eq!(listed.len(), 50);
    assert_eq!(listed[49], "pivot: pivot (L51)");
    assert_eq!(v["logs"][0]["signals"]["tier_2_not_listed"], 199_950);
    assert!(v["summary"]["note"].is_null(), "{v}");

    for file in ["word300m.md", "word1g.md"] {
        let v = analyze(&mut c, file);
        let note = v["summary"]["note"].as_str().unwrap_or_default();
        assert!(
            note.contains("counted approximately") && note.contains("Only the first 64 MiB"),
            "{file}: {v}"
        );
        assert_eq!(
            v["logs"][0]["signals"]["tier_1"],
            json!(["killed: killed (L2)"])
        );
        // About 64 MiB at 4 bytes per token.
        let tokens = v["summary"]["total_tokens"].as_u64().unwrap();
        assert!(
            (16_000_000..=17_000_000).contains(&tokens),
            "{file}: {tokens}"
        );
    }
    c.finish();
}
