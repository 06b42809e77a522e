//! analyze_gsd_work_log through the real binary, on the seed's own work log.

use crate::common;

use common::{Workspace, text_of};
use serde_json::{Value, json};

const SEED: &str = include_str!("fixtures/gsd_work_log.md");

#[test]
fn analyzes_the_default_work_log_as_json() {
    let ws = Workspace::new();
    ws.write("gsd-lite/WORK.md", SEED);
    let mut c = ws.start(&[]);
    let out = c.call_text("analyze_gsd_work_log", json!({}));
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(v["summary"]["file_path"], "gsd-lite/WORK.md");
    assert_eq!(v["summary"]["total_logs"], 3);
    let logs: Vec<(String, String, Value)> = v["logs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["type"].as_str().unwrap().to_string(),
                l["task"].as_str().unwrap().to_string(),
                l["lines"].clone(),
            )
        })
        .collect();
    assert_eq!(
        logs,
        [
            ("DISCOVERY".into(), "SCHEMA-DEBUG".into(), json!([68, 397])),
            ("DISCOVERY".into(), "SCHEMA-DEBUG".into(), json!([398, 807])),
            ("PLAN".into(), "SCHEMA-DEBUG".into(), json!([808, 1292])),
        ]
    );
    assert!(v["summary"]["total_tokens"].as_u64().unwrap() > 5000);
    assert!(
        v["summary"]["tokenizer"]
            .as_str()
            .unwrap()
            .contains("cl100k")
    );
}

#[test]
fn table_format_missing_file_and_sandbox() {
    let ws = Workspace::new();
    ws.write("logs/work.md", SEED);
    let mut c = ws.start(&[]);
    let table = c.call_text(
        "analyze_gsd_work_log",
        json!({"file_path": "logs/work.md", "output_format": "table"}),
    );
    assert!(table.starts_with("# Analysis: logs/work.md\n"), "{table}");
    assert!(
        table.contains("| LOG-003 | PLAN | SCHEMA-DEBUG |"),
        "{table}"
    );
    let missing = c.call("analyze_gsd_work_log", json!({}));
    assert_eq!(missing["isError"], true, "{missing}");
    assert!(text_of(&missing).contains("does not exist"), "{missing}");
    let outside = c.call("analyze_gsd_work_log", json!({"file_path": "/etc/passwd"}));
    assert!(
        text_of(&outside).contains("outside the allowed directories"),
        "{outside}"
    );
}
