//! The two output formats: JSON (default) and a markdown table.

use std::fmt::Write as _;

use serde_json::json;

use fs_mcp_text::thousands;

use crate::Analysis;

fn counts(analysis: &Analysis) -> (usize, usize) {
    analysis.logs.iter().fold((0, 0), |(t1, t2), log| {
        (
            t1 + log.signals.tier_1_count(),
            t2 + log.signals.tier_2_count(),
        )
    })
}

/// The analysis as pretty JSON: a summary (path, tokens, tokenizer, flag counts, note) and the listed entries.
pub fn render_json(analysis: &Analysis, shown_path: &str) -> String {
    serde_json::to_string_pretty(&to_json(analysis, shown_path))
        .unwrap_or_else(|e| format!("Error: {e}"))
}

/// The analysis as one JSON object `{summary, logs}`: what [`render_json`] prints, and what a
/// client gets as structured content.
pub fn to_json(analysis: &Analysis, shown_path: &str) -> serde_json::Value {
    let (t1, t2) = counts(analysis);
    let value = json!({
        "summary": {
            "file_path": shown_path,
            "total_tokens": analysis.total_tokens,
            "tokenizer": analysis.tokenizer,
            "total_logs": analysis.logs.len() + analysis.logs_not_listed,
            "tier_1_flags": t1,
            "tier_2_flags": t2,
        },
        "logs": analysis.logs,
    });
    match (value, analysis.note()) {
        (serde_json::Value::Object(mut map), Some(note)) => {
            if let Some(serde_json::Value::Object(summary)) = map.get_mut("summary") {
                summary.insert("note".into(), note.into());
            }
            serde_json::Value::Object(map)
        }
        (value, _) => value,
    }
}

/// The analysis as a markdown table for the model, after the same summary.
pub fn render_table(analysis: &Analysis, shown_path: &str) -> String {
    let (t1, t2) = counts(analysis);
    let mut out = String::new();
    let _ = writeln!(out, "# Analysis: {shown_path}\n");
    let _ = writeln!(
        out,
        "**Summary:** {} logs | {} tokens ({}) | {t1} T1 flags | {t2} T2 flags\n",
        analysis.logs.len() + analysis.logs_not_listed,
        thousands(analysis.total_tokens as u64),
        analysis.tokenizer
    );
    if let Some(note) = analysis.note() {
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
