//! The recorded run (#33): the current binary answers the fixed script of
//! `xtask/src/replay/script.rs` (a few hundred calls over a fixture workspace) exactly as
//! recorded in `tests/golden/replay.jsonl`, after normalizing what differs between runs (frame
//! tags, the run's folders, review session names, dates). A redesign that changes an answer
//! fails here with the first differing answers; an intended change is recorded again with
//! `cargo xtask replay record` and shows in `git diff tests/golden/replay.jsonl`.

#[path = "../xtask/src/replay/script.rs"]
#[allow(dead_code)]
mod script;

use crate::common::BIN;

#[test]
fn every_answer_matches_the_recording() {
    let golden = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/replay.jsonl");
    let text = std::fs::read_to_string(golden).unwrap();
    let recorded = script::parse_jsonl(&text).unwrap();
    let now = script::run(std::path::Path::new(BIN)).unwrap();
    let diffs = script::compare(&recorded, &now, 5);
    assert!(
        diffs.is_empty(),
        "{} of {} answers differ from tests/golden/replay.jsonl (record again with `cargo xtask replay record` if the change is intended, and review git diff):\n\n{}",
        diffs.len(),
        now.len(),
        diffs.join("\n")
    );
}

#[test]
fn the_normalizer_keeps_what_is_not_random() {
    // Only a read_files reply's own tag, the run's folders, review names and non-fixture dates
    // are masked: a hex word in a file, another date or path stays.
    let run = std::env::temp_dir().join("replay-normalizer");
    let n = script::Normalizer::new(&run);
    let run = run.to_string_lossy();
    let answer = serde_json::json!({"result": {"content": [{"type": "text", "text": format!(
        "[0a1b2c3d] File: a\n[0a1b2c3d] Note: deadbeef {run}/ws/x {run}/tmp/fs-mcp-rs-reviews-AbC123xy/s-0123456789abcdef0123456789abcdef 2026-11-28T23:01:02Z 2026-01-02T03:04:05Z [ffffffff] /etc"
    )}]}});
    let text = n.answer(&answer)["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        text,
        "[TAG] File: a\n[TAG] Note: deadbeef <ROOT>/x <RUN>/tmp/fs-mcp-rs-reviews-<R>/s-<SESSION> <DATE> 2026-01-02T03:04:05Z [ffffffff] /etc"
    );
}
