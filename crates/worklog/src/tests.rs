use super::*;

const LOG: &str = "# Work\n\
intro\n\
### [LOG-001] - [DECISION] - Pick the parser - Task: SETUP-001\n\
We chose serde.\n\
**Depends On:** LOG-000\n\
### [LOG-002] - [DISCOVERY] - ~~Old idea~~ SUPERSEDED BY LOG-004 - Task: SETUP-002\n\
Hit a wall with the first approach.\n\
Decided not to keep it. It was scrapped.\n\
### [LOG-003] - [PLAN] - Documenting the patterns - Task: DOCS\n\
Inline `~~not real~~` and ``[DEPRECATED]`` are examples.\n\
```\n\
### [LOG-999] - [FAKE] - inside a fence\n\
~~fenced~~ [OBSOLETE] killed\n\
```\n\
### [LOG-004] - [EXECUTION] - No task here\n\
Option A: keep. Option B: drop.\n";

fn run(text: &str) -> Analysis {
    analyze(text.as_bytes()).unwrap()
}

#[test]
fn entries_types_tasks_and_line_ranges() {
    let a = run(LOG);
    let ids: Vec<_> = a.logs.iter().map(|l| l.log_id.as_str()).collect();
    assert_eq!(
        ids,
        ["LOG-001", "LOG-002", "LOG-003", "LOG-004"],
        "a header inside a fence is not an entry"
    );
    assert_eq!(a.logs[0].kind, "DECISION");
    assert_eq!(a.logs[0].task.as_deref(), Some("SETUP-001"));
    assert_eq!(a.logs[0].title, "Pick the parser");
    assert_eq!(a.logs[0].lines, [3, 5]);
    assert_eq!(a.logs[2].lines, [9, 14]);
    assert_eq!(a.logs[3].task, None);
    assert_eq!(a.logs[3].title, "No task here");
    assert_eq!(a.logs[3].lines, [15, 16]);
}

#[test]
fn header_signals_count_once_in_pattern_order() {
    let a = run(LOG);
    let t1 = &a.logs[1].signals.tier_1;
    assert_eq!(
        t1,
        &[
            "strikethrough: ~~Old idea~~".to_string(),
            "superseded_by: SUPERSEDED BY LOG-004".to_string(),
            "killed: scrapped (L8)".to_string(),
        ]
    );
}

#[test]
fn patterns_are_case_insensitive() {
    let a = run(LOG);
    let t2 = &a.logs[1].signals.tier_2;
    assert!(
        t2.contains(&"hit_wall: Hit a wall (L7)".to_string()),
        "{t2:?}"
    );
    assert!(
        t2.contains(&"decided_not_to: Decided not to (L8)".to_string()),
        "{t2:?}"
    );
    assert_eq!(a.logs[0].signals.tier_2, ["depends_on: LOG-000 (L5)"]);
    assert_eq!(a.logs[3].signals.tier_2.len(), 2, "{:?}", a.logs[3].signals);
}

#[test]
fn documented_patterns_in_code_are_not_signals() {
    let a = run(LOG);
    assert!(
        a.logs[2].signals.tier_1.is_empty(),
        "{:?}",
        a.logs[2].signals
    );
    let masked = patterns::mask_code("a `~~x~~` b\n```\n~~y~~\n```\nc\n");
    assert_eq!(masked.matches('\n').count(), 5, "line count kept");
    assert!(!masked.contains("~~"), "{masked}");
}

#[test]
fn tokens_are_counted_offline_with_cl100k() {
    assert_eq!(count_tokens("hello world"), 2);
    let a = run(LOG);
    assert!(a.total_tokens > a.logs.iter().map(|l| l.tokens).sum::<usize>() - 10);
    assert_eq!(a.tokenizer, TOKENIZER);
}

#[test]
fn renders_json_and_table() {
    let a = run(LOG);
    let json: serde_json::Value = serde_json::from_str(&render_json(&a, "WORK.md")).unwrap();
    assert_eq!(json["summary"]["total_logs"], 4);
    assert_eq!(json["summary"]["tier_1_flags"], 3);
    assert_eq!(json["logs"][1]["type"], "DISCOVERY");
    assert_eq!(json["logs"][3]["task"], serde_json::Value::Null);
    let table = render_table(&a, "WORK.md");
    assert!(
        table.contains("| LOG-002 | DISCOVERY | SETUP-002 |"),
        "{table}"
    );
    assert!(table.contains("| LOG-004 | EXECUTION | - |"), "{table}");
    assert!(
        table.contains("### LOG-002\n- strikethrough: ~~Old idea~~"),
        "{table}"
    );
}

#[test]
fn the_seed_work_log() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/gsd_work_log.md"
    );
    let file = std::fs::File::open(path).unwrap();
    let a = analyze(std::io::BufReader::new(file)).unwrap();
    let got: Vec<_> = a
        .logs
        .iter()
        .map(|l| {
            (
                l.log_id.as_str(),
                l.kind.as_str(),
                l.task.as_deref(),
                l.lines,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("LOG-001", "DISCOVERY", Some("SCHEMA-DEBUG"), [68, 397]),
            ("LOG-002", "DISCOVERY", Some("SCHEMA-DEBUG"), [398, 807]),
            ("LOG-003", "PLAN", Some("SCHEMA-DEBUG"), [808, 1292]),
        ]
    );
    assert!(
        a.logs.iter().all(|l| l.tokens > 1000),
        "{:?}",
        a.logs.iter().map(|l| l.tokens).collect::<Vec<_>>()
    );
}
