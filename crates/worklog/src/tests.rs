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
fn the_summary_counts_entries_and_flags() {
    let a = run(LOG);
    assert_eq!(a.total_logs(), 4);
    assert_eq!(a.flag_counts().0, 3);
    assert_eq!(a.logs[1].kind, "DISCOVERY");
    assert_eq!(a.logs[1].task.as_deref(), Some("SETUP-002"));
    assert_eq!(a.logs[3].task, None);
    assert_eq!(a.logs[1].signals.tier_1[0], "strikethrough: ~~Old idea~~");
    assert!(a.notes().is_empty());
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

#[test]
fn many_signals_are_counted_and_listed_up_to_the_cap_with_right_lines() {
    let mut log = String::from("### [LOG-001] - [PLAN] - Many pivots\n");
    for _ in 0..5_000 {
        log.push_str("we pivot\n");
    }
    log.push_str("### [LOG-002] - [PLAN] - Next\nwe pivoted\n");
    let a = run(&log);
    let first = &a.logs[0].signals;
    assert_eq!(first.tier_2.len(), MAX_SIGNALS_LISTED);
    assert_eq!(first.tier_2_count(), 5_000);
    assert_eq!(first.tier_2[0], "pivot: pivot (L2)");
    assert_eq!(first.tier_2[49], "pivot: pivot (L51)");
    assert_eq!(a.logs[1].signals.tier_2, ["pivot: pivoted (L5003)"]);
    assert_eq!(a.logs[1].lines, [5002, 5003]);
    assert_eq!(a.flag_counts().1, 5_001);
    assert_eq!(first.tier_2_not_listed, 4_950);
}

#[test]
fn a_huge_word_is_estimated_not_tokenized_and_the_output_says_so() {
    let mut log = String::from("### [LOG-001] - [PLAN] - Long\nkilled ");
    log.push_str(&"x".repeat(3 * MAX_LINE_BYTES));
    log.push_str(" killed\nnext line\n");
    let a = run(&log);
    assert!(a.approximate);
    assert_eq!(a.logs[0].lines, [1, 3]);
    // The first killed is within the kept part, the second is past it.
    assert_eq!(a.logs[0].signals.tier_1, ["killed: killed (L2)"]);
    let estimated = 2 * MAX_LINE_BYTES / 4;
    assert!(a.logs[0].tokens >= estimated, "{}", a.logs[0].tokens);
    assert_eq!(
        a.notes(),
        [WorkLogNote::LongLinesApproximate {
            line_bytes: MAX_LINE_BYTES
        }]
    );
}

#[test]
fn reading_stops_after_the_analyzed_bytes() {
    let reader = std::io::Read::chain(
        "### [LOG-001] - [PLAN] - First\n".as_bytes(),
        std::io::repeat(b'a'),
    );
    let a = analyze(std::io::BufReader::new(reader)).unwrap();
    assert!(a.stopped_early);
    assert_eq!(a.bytes_analyzed, MAX_ANALYZED_BYTES);
    assert_eq!(a.logs.len(), 1);
    assert_eq!(
        a.notes()[0],
        WorkLogNote::StoppedEarly {
            analyzed_bytes: MAX_ANALYZED_BYTES
        }
    );
}

#[test]
fn invalid_utf8_is_refused() {
    let err = analyze(&b"### [LOG-001] - [PLAN] - x\n\xff\xfe\n"[..]).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidData);
}

#[test]
fn entries_past_the_cap_are_counted_not_listed() {
    let mut log = String::new();
    for i in 0..MAX_LOGS_LISTED + 5 {
        log.push_str(&format!("### [LOG-{i}] - [PLAN] - killed {i}\nbody\n"));
    }
    let a = run(&log);
    assert_eq!(a.logs.len(), MAX_LOGS_LISTED);
    assert_eq!(a.logs_not_listed, 5);
    assert_eq!(a.total_logs(), MAX_LOGS_LISTED + 5);
    assert_eq!(
        a.notes(),
        [WorkLogNote::LogsNotListed {
            not_listed: 5,
            listed: MAX_LOGS_LISTED
        }]
    );
}

#[test]
fn text_past_the_tokenized_bytes_is_estimated_at_the_measured_rate() {
    let line = "hello world ".repeat(100);
    let lines = MAX_TOKENIZED_BYTES / line.len() + 200;
    let mut log = String::from("### [LOG-001] - [PLAN] - Big\n");
    for _ in 0..lines {
        log.push_str(&line);
        log.push('\n');
    }
    let a = run(&log);
    assert!(a.tokens_estimated && !a.approximate);
    // 200 tokens a line (each "hello world " is two), tokenized or estimated.
    let expected = lines * 201;
    assert!(
        a.total_tokens.abs_diff(expected) < expected / 50,
        "{} vs {expected}",
        a.total_tokens
    );
    assert_eq!(
        a.notes(),
        [WorkLogNote::TokensEstimated {
            tokenized_bytes: MAX_TOKENIZED_BYTES
        }]
    );
}
