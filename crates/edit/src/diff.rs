//! Unified diffs for the responses, bounded: however large the files, a diff holds at most
//! [`MAX_DIFF_BYTES`] and no line longer than [`MAX_DIFF_LINE_CHARS`], each cut said in the diff.

use std::fmt::{self, Write};
use std::time::Duration;

use similar::{Algorithm, TextDiff};

/// How long a diff may take before `similar` approximates it.
const DIFF_TIMEOUT: Duration = Duration::from_secs(2);
/// Bytes of one diff at most; what follows is counted, not kept.
pub const MAX_DIFF_BYTES: usize = 256 * 1024;
/// Characters of one diff line at most (a minified file is one line).
pub const MAX_DIFF_LINE_CHARS: usize = 2000;

/// A unified diff (3 lines of context, no timestamps) from `old` to `new` with the given
/// header names; `\ No newline at end of file` marks a last line without a newline.
/// Empty when the texts are equal. Bounded (see the module documentation): a line cut ends in
/// `… [N more characters]`, and a diff cut ends with the line
/// `@@ diff cut: N more lines not shown (the whole proposal is in the review files) @@`.
pub fn unified_diff(old: &str, new: &str, from: &str, to: &str) -> String {
    bounded_diff(old, new, Some((from, to)))
}

/// Which version of a file a side of a diff shows; the binary words it in the diff's header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffVersion {
    /// The file as it was when the edit was proposed.
    WhenProposed,
    /// The file as it is on disk now.
    OnDiskNow,
    /// The agent's proposal.
    AgentProposal,
    /// The version the user saved before (an earlier round of feedback).
    UsersPreviousVersion,
    /// The version the user saved now, their feedback.
    UserFeedback,
}

/// A unified diff of one file between two versions, its header as data: the binary writes
/// `--- a/{name} ({old})` and `+++ b/{name} ({new})` above `hunks`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionDiff {
    /// The file's name as shown.
    pub name: String,
    /// The version of the `-` side.
    pub old: DiffVersion,
    /// The version of the `+` side.
    pub new: DiffVersion,
    /// The hunks, bounded as [`unified_diff`]'s; empty when the versions are equal.
    pub hunks: String,
}

impl VersionDiff {
    /// The diff of `name` from `old_text` (version `old`) to `new_text` (version `new`).
    pub(crate) fn new(
        name: &str,
        (old, old_text): (DiffVersion, &str),
        (new, new_text): (DiffVersion, &str),
    ) -> VersionDiff {
        VersionDiff {
            name: name.to_string(),
            old,
            new,
            hunks: bounded_diff(old_text, new_text, None),
        }
    }
}

fn bounded_diff(old: &str, new: &str, header: Option<(&str, &str)>) -> String {
    if old == new {
        return String::new();
    }
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Myers)
        .timeout(DIFF_TIMEOUT)
        .diff_lines(old, new);
    let mut out = Bounded::default();
    let mut unified = diff.unified_diff();
    unified.context_radius(3);
    if let Some((from, to)) = header {
        unified.header(from, to);
    }
    let _ = write!(out, "{unified}");
    out.finish()
}

/// A `fmt::Write` that keeps at most [`MAX_DIFF_BYTES`] and cuts long lines.
#[derive(Default)]
struct Bounded {
    kept: String,
    /// Characters of the current line seen so far (kept or not).
    line_chars: usize,
    /// Characters of the current line left out.
    line_cut: usize,
    /// Whole lines left out once the byte cap was reached.
    lines_left_out: usize,
    full: bool,
}

impl Bounded {
    fn end_line(&mut self) {
        if self.full {
            self.lines_left_out += 1;
        } else {
            if self.line_cut > 0 {
                let _ = write!(self.kept, "… [{} more characters]", self.line_cut);
            }
            self.kept.push('\n');
            if self.kept.len() >= MAX_DIFF_BYTES {
                self.full = true;
            }
        }
        self.line_chars = 0;
        self.line_cut = 0;
    }

    fn finish(mut self) -> String {
        // A last line without a newline (similar ends every line with one; kept for safety).
        if self.line_chars > 0 {
            if self.full {
                self.lines_left_out += 1;
            } else if self.line_cut > 0 {
                let _ = write!(self.kept, "… [{} more characters]", self.line_cut);
            }
        }
        if self.lines_left_out > 0 {
            let _ = writeln!(
                self.kept,
                "@@ diff cut: {} more lines not shown (the whole proposal is in the review files) @@",
                self.lines_left_out
            );
        }
        self.kept
    }
}

impl Write for Bounded {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for piece in s.split_inclusive('\n') {
            let (text, newline) = match piece.strip_suffix('\n') {
                Some(text) => (text, true),
                None => (piece, false),
            };
            if self.full {
                self.line_chars += 1;
            } else {
                let room = MAX_DIFF_LINE_CHARS.saturating_sub(self.line_chars);
                match text.char_indices().nth(room) {
                    Some((cut, _)) => {
                        self.kept.push_str(&text[..cut]);
                        self.line_cut += text[cut..].chars().count();
                        self.line_chars = MAX_DIFF_LINE_CHARS;
                    }
                    None => {
                        self.kept.push_str(text);
                        self.line_chars += text.chars().count();
                    }
                }
            }
            if newline {
                self.end_line();
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape() {
        let d = unified_diff("a\nB\nc\n", "a\nBee\nc\n", "a/f", "b/f");
        assert_eq!(d, "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-B\n+Bee\n c\n");
        assert_eq!(unified_diff("x", "x", "a", "b"), "");
        assert!(unified_diff("x\n", "x", "a", "b").contains("\\ No newline at end of file"));
    }

    #[test]
    fn a_long_line_is_cut_and_says_how_much() {
        let long = "x".repeat(MAX_DIFF_LINE_CHARS + 500);
        let d = unified_diff(&format!("{long}\n"), "y\n", "a/f", "b/f");
        let line = d
            .lines()
            .find(|l| l.starts_with('-') && !l.starts_with("---"));
        let line = line.unwrap();
        assert_eq!(
            line,
            format!(
                "-{}… [501 more characters]",
                "x".repeat(MAX_DIFF_LINE_CHARS - 1)
            )
        );
        assert!(d.ends_with("+y\n"), "{d}");
    }

    #[test]
    fn a_large_diff_is_cut_and_counts_the_rest() {
        let old: String = (0..100_000).map(|i| format!("line {i}\n")).collect();
        let new: String = (0..100_000).map(|i| format!("LINE {i}\n")).collect();
        let d = unified_diff(&old, &new, "a/f", "b/f");
        assert!(d.len() < MAX_DIFF_BYTES + 200, "{}", d.len());
        let last = d.lines().last().unwrap();
        assert!(last.starts_with("@@ diff cut: "), "{last}");
        let kept = d.lines().count() - 1;
        let said: usize = last["@@ diff cut: ".len()..]
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        // Header, hunk header, and 200,000 changed lines in all.
        assert_eq!(kept + said, 200_003);
    }

    #[test]
    fn multibyte_text_is_cut_at_a_character_boundary() {
        let long = "é".repeat(MAX_DIFF_LINE_CHARS * 2);
        let d = unified_diff(&long, "", "a", "b");
        assert!(d.contains("… [2001 more characters]"), "{d}");
    }
}
