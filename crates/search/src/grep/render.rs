//! The text answer of `grep_content`: the match blocks, and its notes as data ([`GrepNote`]),
//! worded by the caller ([`GrepWords`]).
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
use crate::hints::SectionEnd;
use crate::walk::WalkSkip;

pub(super) fn render(o: &GrepOutcome, words: &dyn GrepWords) -> String {
    let mut out = String::new();
    if o.files.is_empty() {
        render_empty(o, words, &mut out);
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
    let notes: Vec<String> = notes(o).iter().map(|note| words.note(note)).collect();
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

/// A stopped search: why, and after how long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// The timeout (its length) ran out.
    Timeout(Duration),
    /// The client cancelled the call (after this long).
    Cancelled(Duration),
}

/// One note of a `grep_content` answer, with its numbers; the caller words it ([`GrepWords`]).
/// Exhaustive on purpose: a new note does not compile until the binary words it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GrepNote {
    /// No line matched (the first line of an empty answer).
    NoMatches {
        /// Whether, and why, the search stopped early.
        stopped: Option<Stopped>,
        /// Files searched.
        files_searched: u64,
    },
    /// What an empty answer did not search.
    NotSearched {
        /// What the walk skipped (hidden entries, ignore rules) that an option brings back.
        skipped: Vec<WalkSkip>,
        /// Binary files skipped.
        binary_files: u64,
        /// Entries that could not be read.
        unreadable: u64,
    },
    /// The search stopped early; the matches found so far are shown.
    Stopped {
        /// Why, and after how long.
        stopped: Stopped,
        /// Matching lines shown.
        shown: u64,
        /// Files searched.
        files_searched: u64,
    },
    /// More lines matched than are shown.
    MoreMatches {
        /// Matching lines shown.
        shown: u64,
        /// Matching lines counted.
        total: u64,
        /// Counting stopped early: `total` is a lower bound.
        at_least: bool,
        /// Files with matches (among those counted).
        files_with_matches: u64,
        /// Files searched.
        files_searched: u64,
    },
    /// `lines` lines longer than `cap` bytes were searched only up to it.
    LongLines {
        /// How many.
        lines: u64,
        /// The cap, in bytes.
        cap: u64,
        /// The cap is below the usual one because of what the pattern costs per byte (long
        /// counted repetitions): a simpler pattern searches further.
        by_pattern: bool,
    },
    /// Files or directories that could not be read (in an answer with matches).
    Unreadable {
        /// How many.
        count: u64,
    },
}

/// The words of a `grep_content` reply for the model: the notes.
///
/// The crate frames the reply; the caller (the binary's `src/render/`) words its typed notes
/// and errors, so no crate writes a sentence for the model and no wording can forge the frame.
/// The frame here: the match blocks, their `File:` headers, where the notes go.
pub trait GrepWords {
    /// The text of `note`, one line.
    fn note(&self, note: &GrepNote) -> String;
}

fn notes(o: &GrepOutcome) -> Vec<GrepNote> {
    let mut notes = Vec::new();
    if let Some(stopped) = stopped(o) {
        notes.push(GrepNote::Stopped {
            stopped,
            shown: o.shown_matches,
            files_searched: o.files_searched,
        });
    } else if o.total_is_lower_bound || o.total_matches > o.shown_matches {
        notes.push(GrepNote::MoreMatches {
            shown: o.shown_matches,
            total: o.total_matches,
            at_least: o.total_is_lower_bound,
            files_with_matches: o.files_with_matches,
            files_searched: o.files_searched,
        });
    }
    if o.long_lines > 0 {
        notes.push(long_lines(o));
    }
    if o.unreadable_files > 0 {
        notes.push(GrepNote::Unreadable {
            count: o.unreadable_files,
        });
    }
    notes
}

fn stopped(o: &GrepOutcome) -> Option<Stopped> {
    Some(match o.stopped? {
        StopReason::Timeout => Stopped::Timeout(o.timeout),
        StopReason::Cancelled => Stopped::Cancelled(o.elapsed),
    })
}

fn long_lines(o: &GrepOutcome) -> GrepNote {
    GrepNote::LongLines {
        lines: o.long_lines,
        cap: o.searched_line_bytes,
        by_pattern: o.searched_line_bytes < super::MAX_SEARCHED_LINE_BYTES,
    }
}

fn render_empty(o: &GrepOutcome, words: &dyn GrepWords, out: &mut String) {
    out.push_str(&words.note(&GrepNote::NoMatches {
        stopped: stopped(o),
        files_searched: o.files_searched,
    }));
    if !o.skipped.is_empty() || o.binary_files > 0 || o.unreadable_files > 0 {
        out.push('\n');
        out.push_str(&words.note(&GrepNote::NotSearched {
            skipped: o.skipped.clone(),
            binary_files: o.binary_files,
            unreadable: o.unreadable_files,
        }));
    }
    if o.long_lines > 0 {
        out.push('\n');
        out.push_str(&words.note(&long_lines(o)));
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
}
