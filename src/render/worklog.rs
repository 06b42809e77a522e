//! `analyze_gsd_work_log`'s answer as the model reads it: the JSON (also the structured
//! content) and the markdown table, each after the same summary, and the notes on what was
//! estimated or left out. The crate gives the analysis and its notes as data
//! ([`Analysis`], [`WorkLogNote`]); every sentence about them is here.

use std::fmt::Write as _;

use fs_mcp_text::thousands;
use fs_mcp_worklog::{Analysis, WorkLogNote};
use serde_json::json;

/// The notes as one sentence (`None` when there is none): said in both formats.
pub fn notes_text(notes: &[WorkLogNote]) -> Option<String> {
    let parts: Vec<String> = notes.iter().map(note_text).collect();
    (!parts.is_empty()).then(|| {
        let mut text = parts.join("; ");
        text[..1].make_ascii_uppercase();
        text.push('.');
        text
    })
}

/// One note, as a clause of [`notes_text`]'s sentence.
fn note_text(note: &WorkLogNote) -> String {
    match *note {
        WorkLogNote::StoppedEarly { analyzed_bytes } => format!(
            "only the first {} MiB were analyzed (entries after that are not listed and their tokens not counted)",
            analyzed_bytes >> 20
        ),
        WorkLogNote::LogsNotListed { not_listed, listed } => format!(
            "{not_listed} more entries after the first {listed} are counted in total_logs but not listed"
        ),
        WorkLogNote::LongLinesApproximate { line_bytes } => {
            let kib = line_bytes >> 10;
            format!(
                "lines over {kib} KiB were counted approximately (4 bytes per token after their first {kib} KiB) and scanned for signals only in their first {kib} KiB"
            )
        }
        WorkLogNote::TokensEstimated { tokenized_bytes } => format!(
            "tokens after the first {} MiB of text were estimated at the rate counted on those",
            tokenized_bytes >> 20
        ),
    }
}

/// The analysis as one JSON object `{summary, logs}`: what [`render_json`] prints, and what a
/// client gets as structured content.
pub fn to_json(analysis: &Analysis, shown_path: &str) -> serde_json::Value {
    let (t1, t2) = analysis.flag_counts();
    let mut summary = json!({
        "file_path": shown_path,
        "total_tokens": analysis.total_tokens,
        "tokenizer": analysis.tokenizer,
        "total_logs": analysis.total_logs(),
        "tier_1_flags": t1,
        "tier_2_flags": t2,
    });
    if let (Some(note), Some(fields)) = (notes_text(&analysis.notes()), summary.as_object_mut()) {
        fields.insert("note".into(), note.into());
    }
    json!({ "summary": summary, "logs": analysis.logs })
}

/// The analysis as pretty JSON: a summary (path, tokens, tokenizer, flag counts, note) and the
/// listed entries.
pub fn render_json(analysis: &Analysis, shown_path: &str) -> String {
    serde_json::to_string_pretty(&to_json(analysis, shown_path))
        .unwrap_or_else(|e| format!("Error: {e}"))
}

/// The analysis as a markdown table for the model, after the same summary.
pub fn render_table(analysis: &Analysis, shown_path: &str) -> String {
    let (t1, t2) = analysis.flag_counts();
    let mut out = String::new();
    let _ = writeln!(out, "# Analysis: {shown_path}\n");
    let _ = writeln!(
        out,
        "**Summary:** {} logs | {} tokens ({}) | {t1} T1 flags | {t2} T2 flags\n",
        analysis.total_logs(),
        thousands(analysis.total_tokens as u64),
        analysis.tokenizer
    );
    if let Some(note) = notes_text(&analysis.notes()) {
        let _ = writeln!(out, "**Note:** {note}\n");
    }
    out.push_str("| Log ID | Type | Task | Tokens | Lines | T1 Signals | T2 Signals |\n");
    out.push_str("|---|---|---|---|---|---|---|\n");
    for log in &analysis.logs {
        let t1 = log.signals.tier_1_count();
        let t2 = log.signals.tier_2_count();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {}-{} | {} | {} |",
            log.log_id,
            log.kind,
            log.task.as_deref().unwrap_or("-"),
            thousands(log.tokens as u64),
            log.lines[0],
            log.lines[1],
            if t1 > 0 {
                format!("⚠️ {t1}")
            } else {
                "0".into()
            },
            if t2 > 0 {
                format!("📋 {t2}")
            } else {
                "0".into()
            },
        );
    }
    if t1 > 0 {
        out.push_str("\n## ⚠️ Tier 1 Flags (High Confidence)\n");
        for log in analysis
            .logs
            .iter()
            .filter(|l| !l.signals.tier_1.is_empty())
        {
            let _ = writeln!(out, "\n### {}", log.log_id);
            for signal in &log.signals.tier_1 {
                let _ = writeln!(out, "- {signal}");
            }
            if log.signals.tier_1_not_listed > 0 {
                let _ = writeln!(out, "- … and {} more", log.signals.tier_1_not_listed);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use fs_mcp_worklog::{
        MAX_ANALYZED_BYTES, MAX_LINE_BYTES, MAX_LOGS_LISTED, MAX_TOKENIZED_BYTES, analyze,
    };

    use super::*;

    const LOG: &str = "# Work\n\
intro\n\
### [LOG-001] - [DECISION] - Pick the parser - Task: SETUP-001\n\
We chose serde.\n\
### [LOG-002] - [DISCOVERY] - ~~Old idea~~ SUPERSEDED BY LOG-004 - Task: SETUP-002\n\
Hit a wall with the first approach.\n\
### [LOG-004] - [EXECUTION] - No task here\n\
Option A: keep.\n";

    fn analysis(text: &str) -> Analysis {
        analyze(text.as_bytes()).expect("a text log")
    }

    #[test]
    fn renders_json_and_table() {
        let a = analysis(LOG);
        let json: serde_json::Value =
            serde_json::from_str(&render_json(&a, "WORK.md")).expect("JSON");
        assert_eq!(json, to_json(&a, "WORK.md"));
        assert_eq!(json["summary"]["file_path"], "WORK.md");
        assert_eq!(json["summary"]["total_logs"], 3);
        assert_eq!(json["summary"]["tier_1_flags"], 2);
        assert_eq!(json["logs"][1]["type"], "DISCOVERY");
        assert_eq!(json["logs"][2]["task"], serde_json::Value::Null);
        assert!(json["summary"].get("note").is_none());
        let table = render_table(&a, "WORK.md");
        assert!(table.starts_with("# Analysis: WORK.md\n\n**Summary:** 3 logs | "));
        assert!(
            table.contains("| LOG-002 | DISCOVERY | SETUP-002 |"),
            "{table}"
        );
        assert!(table.contains("| LOG-004 | EXECUTION | - |"), "{table}");
        assert!(
            table.contains(
                "\n## ⚠️ Tier 1 Flags (High Confidence)\n\n### LOG-002\n- strikethrough: ~~Old idea~~"
            ),
            "{table}"
        );
        assert!(!table.contains("**Note:**"), "{table}");
    }

    /// Every note keeps the wording it had when the crate wrote it, joined into one sentence.
    #[test]
    fn notes_keep_their_wording() {
        let all = [
            WorkLogNote::StoppedEarly {
                analyzed_bytes: MAX_ANALYZED_BYTES,
            },
            WorkLogNote::LogsNotListed {
                not_listed: 5,
                listed: MAX_LOGS_LISTED,
            },
            WorkLogNote::LongLinesApproximate {
                line_bytes: MAX_LINE_BYTES,
            },
            WorkLogNote::TokensEstimated {
                tokenized_bytes: MAX_TOKENIZED_BYTES,
            },
        ];
        assert_eq!(
            notes_text(&all).as_deref(),
            Some(
                "Only the first 64 MiB were analyzed (entries after that are not listed and their tokens not counted); \
                 5 more entries after the first 2000 are counted in total_logs but not listed; \
                 lines over 64 KiB were counted approximately (4 bytes per token after their first 64 KiB) and scanned for signals only in their first 64 KiB; \
                 tokens after the first 8 MiB of text were estimated at the rate counted on those."
            )
        );
        assert_eq!(notes_text(&[]), None);
    }

    #[test]
    fn a_note_is_said_in_both_formats() {
        let mut log = String::from("### [LOG-001] - [PLAN] - Long\n");
        log.push_str(&"x".repeat(2 * MAX_LINE_BYTES));
        log.push('\n');
        let a = analysis(&log);
        let json = to_json(&a, "W.md");
        assert!(
            json["summary"]["note"].as_str().is_some_and(
                |note| note.starts_with("Lines over 64 KiB were counted approximately")
            ),
            "{json}"
        );
        assert!(render_table(&a, "W.md").contains("**Note:** Lines over 64 KiB"));
    }
}
