//! The text answer of `grep_content`.
//!
//! ```text
//! File: src/lib.rs, Line: 42 (section end hint: L58)
//! ---
//! 40-    let x = 1;
//! 41-
//! 42:    let y = compute(x);
//! 43-    y
//! 44-}
//! ---
//! ```
//!
//! `n:` marks a matching line, `n-` a context line; indentation is kept. Matches whose context
//! touches or overlaps share one block, whose header lists every matching line (consecutive runs
//! as `a-b`) grouped by hint: `Lines: 12, 14 (section end hint: L30); 31 (section end hint: L40)`.

use std::fmt::Write as _;
use std::time::Duration;

use super::{FileMatches, GrepLine, GrepOutcome, StopReason};
use crate::format::{plural, thousands};
use crate::hints::SectionEnd;

pub(super) fn render(o: &GrepOutcome) -> String {
    let mut out = String::new();
    if o.files.is_empty() {
        render_empty(o, &mut out);
        return out;
    }
    let mut first = true;
    for file in &o.files {
        for block in blocks(&file.lines) {
            if !first {
                out.push_str("\n\n");
            }
            first = false;
            render_block(file, block, &mut out);
        }
    }
    let notes = notes(o);
    if !notes.is_empty() {
        out.push_str("\n\n");
        out.push_str(&notes.join("\n"));
    }
    out
}

/// Splits a file's lines into runs of consecutive line numbers.
fn blocks(lines: &[GrepLine]) -> Vec<&[GrepLine]> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=lines.len() {
        if i == lines.len() || lines[i].number != lines[i - 1].number + 1 {
            if lines[start..i].iter().any(|l| l.is_match) {
                out.push(&lines[start..i]);
            }
            start = i;
        }
    }
    out
}

fn render_block(file: &FileMatches, block: &[GrepLine], out: &mut String) {
    let matches: Vec<(u64, Option<SectionEnd>)> = block
        .iter()
        .filter(|l| l.is_match)
        .map(|l| (l.number, hint_of(file, l.number)))
        .collect();
    let _ = write!(out, "File: {}, ", file.path);
    if let [(n, hint)] = matches[..] {
        let _ = write!(out, "Line: {n}{}", hint_text(hint));
    } else {
        out.push_str("Lines: ");
        let mut groups: Vec<(Vec<u64>, Option<SectionEnd>)> = Vec::new();
        for (n, hint) in matches {
            match groups.last_mut() {
                Some((nums, h)) if *h == hint => nums.push(n),
                _ => groups.push((vec![n], hint)),
            }
        }
        let parts: Vec<String> = groups
            .iter()
            .map(|(nums, hint)| format!("{}{}", compress(nums), hint_text(*hint)))
            .collect();
        out.push_str(&parts.join("; "));
    }
    out.push_str("\n---\n");
    for line in block {
        let sep = if line.is_match { ':' } else { '-' };
        let _ = writeln!(out, "{}{sep}{}", line.number, line.text);
    }
    out.push_str("---");
}

fn hint_of(file: &FileMatches, line: u64) -> Option<SectionEnd> {
    file.hints
        .binary_search_by_key(&line, |h| h.0)
        .ok()
        .map(|i| file.hints[i].1)
}

fn hint_text(hint: Option<SectionEnd>) -> String {
    hint.map_or_else(String::new, |h| format!(" (section end hint: {h})"))
}

/// `[3, 4, 5, 9]` → `3-5, 9`.
fn compress(nums: &[u64]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < nums.len() {
        let mut j = i;
        while j + 1 < nums.len() && nums[j + 1] == nums[j] + 1 {
            j += 1;
        }
        if j > i {
            parts.push(format!("{}-{}", nums[i], nums[j]));
        } else {
            parts.push(nums[i].to_string());
        }
        i = j + 1;
    }
    parts.join(", ")
}

fn seconds(d: Duration) -> String {
    let secs = d.as_secs_f64();
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{secs:.1} s")
    }
}

fn stop_phrase(o: &GrepOutcome) -> Option<String> {
    match o.stopped? {
        StopReason::Timeout => Some(format!(
            "Search stopped after {} (timeout)",
            seconds(o.timeout)
        )),
        StopReason::Cancelled => Some(format!("Search cancelled after {}", seconds(o.elapsed))),
    }
}

fn notes(o: &GrepOutcome) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(stop) = stop_phrase(o) {
        notes.push(format!(
            "Note: {stop}; showing {} from {} searched. Narrow search_path or the pattern.",
            plural(o.shown_matches, "match", "matches"),
            plural(o.files_searched, "file", "files"),
        ));
    } else if o.total_is_lower_bound {
        notes.push(format!(
            "Note: showing {} of at least {} matching lines (counting stopped; {} with matches among {} searched). Narrow the search: pass a sub-directory as search_path, or a more specific pattern.",
            thousands(o.shown_matches),
            thousands(o.total_matches),
            plural(o.files_with_matches, "file", "files"),
            plural(o.files_searched, "file", "files"),
        ));
    } else if o.total_matches > o.shown_matches {
        notes.push(format!(
            "Note: showing the first {} of {} matching lines ({} with matches, {} searched). Narrow the search: pass a sub-directory as search_path, or a more specific pattern.",
            thousands(o.shown_matches),
            thousands(o.total_matches),
            plural(o.files_with_matches, "file", "files"),
            plural(o.files_searched, "file", "files"),
        ));
    }
    if o.long_lines > 0 {
        notes.push(long_lines_note(o.long_lines));
    }
    if o.unreadable_files > 0 {
        notes.push(format!(
            "Note: {} could not be read.",
            plural(
                o.unreadable_files,
                "file or directory",
                "files or directories"
            )
        ));
    }
    notes
}

fn long_lines_note(lines: u64) -> String {
    let cap = crate::format::format_size(super::MAX_SEARCHED_LINE_BYTES);
    let (verb, pronoun) = if lines == 1 {
        ("was", "its")
    } else {
        ("were", "their")
    };
    format!(
        "Note: {} longer than {cap} {verb} searched only in {pronoun} first {cap} (a match further into such a line is not found).",
        plural(lines, "line", "lines"),
    )
}

fn render_empty(o: &GrepOutcome, out: &mut String) {
    let searched = plural(o.files_searched, "file", "files");
    match o.stopped {
        Some(StopReason::Timeout) => {
            let _ = write!(
                out,
                "No matches found before the search stopped at the {} timeout ({searched} searched). Narrow search_path or the pattern.",
                seconds(o.timeout)
            );
        }
        Some(StopReason::Cancelled) => {
            let _ = write!(
                out,
                "No matches found before the search was cancelled after {} ({searched} searched).",
                seconds(o.elapsed)
            );
        }
        None => out.push_str("No matches found."),
    }
    let mut skipped = Vec::new();
    if let Some(s) = &o.skipped {
        skipped.push(s.clone());
    }
    if o.binary_files > 0 {
        skipped.push(plural(o.binary_files, "binary file", "binary files"));
    }
    if o.unreadable_files > 0 {
        skipped.push(format!(
            "{} that could not be read",
            plural(o.unreadable_files, "entry", "entries")
        ));
    }
    if !skipped.is_empty() {
        let _ = write!(out, "\nNot searched: {}.", skipped.join("; "));
    }
    if o.long_lines > 0 {
        out.push('\n');
        out.push_str(&long_lines_note(o.long_lines));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_compressed() {
        assert_eq!(compress(&[3, 4, 5, 9, 11, 12]), "3-5, 9, 11-12");
        assert_eq!(compress(&[7]), "7");
    }

    #[test]
    fn durations() {
        assert_eq!(seconds(Duration::from_secs(30)), "30 s");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5 s");
    }
}
