//! Unified diffs for the responses, bounded: however large the files, a diff holds at most
//! [`MAX_DIFF_BYTES`] and no line longer than [`MAX_DIFF_LINE_CHARS`], each cut kept as data
//! ([`DiffCut`]) that the caller words ([`DiffWords`]).

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
/// Empty when the texts are equal. Bounded (see the module documentation): a cut line and a cut
/// diff carry a [`DiffCut`] where the caller's words go.
pub fn unified_diff(old: &str, new: &str, from: &str, to: &str) -> Diff {
    bounded_diff(old, new, Some((from, to)))
}

/// What a bounded diff left out, where it did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffCut {
    /// The line goes on for this many more characters (the words go at its end).
    Line {
        /// Characters of the line left out.
        more_characters: usize,
    },
    /// The diff stops here; this many more lines are not shown (the words are a line of
    /// their own).
    Diff {
        /// Lines of the diff left out.
        more_lines: usize,
    },
}

/// The words of a diff's cuts.
///
/// The crate frames the reply; the caller (the binary's `src/render/`) words its typed notes
/// and errors, so no crate writes a sentence for the model and no wording can forge the frame.
/// The frame here: the diff's lines, and where each cut goes.
pub trait DiffWords {
    /// The text of `cut`, one line or the end of one.
    fn cut(&self, cut: DiffCut) -> String;
}

/// A bounded unified diff: its text and, at byte offsets into it, what was cut there.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diff {
    text: String,
    cuts: Vec<(usize, DiffCut)>,
}

impl From<&str> for Diff {
    /// A diff of `text` with no cut.
    fn from(text: &str) -> Diff {
        Diff {
            text: text.to_string(),
            cuts: Vec::new(),
        }
    }
}

impl Diff {
    /// Whether the diff shows nothing (the versions are equal).
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Bytes of the diff's text (its cuts' words not counted).
    pub fn len(&self) -> usize {
        self.text.len()
    }

    /// The diff's text, its cuts left unworded.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The cuts, each with the byte offset into the text where its words go.
    pub fn cuts(&self) -> &[(usize, DiffCut)] {
        &self.cuts
    }

    /// The diff as text, each cut worded by `words`.
    pub fn worded(&self, words: &dyn DiffWords) -> String {
        let mut out = String::with_capacity(self.text.len());
        let mut from = 0;
        for &(at, cut) in &self.cuts {
            out.push_str(&self.text[from..at]);
            out.push_str(&words.cut(cut));
            from = at;
        }
        out.push_str(&self.text[from..]);
        out
    }

    /// `other` after this diff (the diffs of a proposal's files, one after the other).
    pub fn append(&mut self, other: Diff) {
        let shift = self.text.len();
        self.text.push_str(&other.text);
        self.cuts
            .extend(other.cuts.into_iter().map(|(at, cut)| (at + shift, cut)));
    }

    /// The first `max` bytes of the diff's text, cut at a line end (or a character boundary),
    /// with the cuts in them.
    pub(crate) fn head(&self, max: usize) -> Diff {
        if self.text.len() <= max {
            return self.clone();
        }
        let mut end = max;
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        let end = self.text[..end].rfind('\n').map_or(end, |i| i + 1);
        Diff {
            text: self.text[..end].to_string(),
            cuts: self
                .cuts
                .iter()
                .copied()
                .filter(|&(at, _)| at < end)
                .collect(),
        }
    }
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
    pub hunks: Diff,
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

fn bounded_diff(old: &str, new: &str, header: Option<(&str, &str)>) -> Diff {
    if old == new {
        return Diff::default();
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
    cuts: Vec<(usize, DiffCut)>,
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
            self.mark_line_cut();
            self.kept.push('\n');
            if self.kept.len() >= MAX_DIFF_BYTES {
                self.full = true;
            }
        }
        self.line_chars = 0;
        self.line_cut = 0;
    }

    fn mark_line_cut(&mut self) {
        if self.line_cut > 0 {
            self.cuts.push((
                self.kept.len(),
                DiffCut::Line {
                    more_characters: self.line_cut,
                },
            ));
        }
    }

    fn finish(mut self) -> Diff {
        // A last line without a newline (similar ends every line with one; kept for safety).
        if self.line_chars > 0 {
            if self.full {
                self.lines_left_out += 1;
            } else {
                self.mark_line_cut();
            }
        }
        if self.lines_left_out > 0 {
            self.cuts.push((
                self.kept.len(),
                DiffCut::Diff {
                    more_lines: self.lines_left_out,
                },
            ));
            self.kept.push('\n');
        }
        Diff {
            text: self.kept,
            cuts: self.cuts,
        }
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

    /// Words each cut with its numbers, as tests read them.
    struct Numbers;

    impl DiffWords for Numbers {
        fn cut(&self, cut: DiffCut) -> String {
            match cut {
                DiffCut::Line { more_characters } => format!("[+{more_characters} chars]"),
                DiffCut::Diff { more_lines } => format!("[+{more_lines} lines]"),
            }
        }
    }

    fn unified_diff(old: &str, new: &str, from: &str, to: &str) -> String {
        super::unified_diff(old, new, from, to).worded(&Numbers)
    }

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
            format!("-{}[+501 chars]", "x".repeat(MAX_DIFF_LINE_CHARS - 1))
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
        let said: usize = last
            .strip_prefix("[+")
            .and_then(|l| l.strip_suffix(" lines]"))
            .unwrap()
            .parse()
            .unwrap();
        let kept = d.lines().count() - 1;
        // Header, hunk header, and 200,000 changed lines in all.
        assert_eq!(kept + said, 200_003);
    }

    #[test]
    fn a_diff_head_keeps_the_cuts_in_it_and_appended_cuts_move_along() {
        let long = "x".repeat(MAX_DIFF_LINE_CHARS + 1);
        let mut d = super::unified_diff("a\n", &format!("{long}\n"), "a/f", "b/f");
        assert_eq!(d.cuts().len(), 1);
        let once = d.worded(&Numbers);
        d.append(d.clone());
        assert_eq!(d.worded(&Numbers), format!("{once}{once}"));
        assert_eq!(d.head(d.len() / 2).worded(&Numbers), once);
    }

    #[test]
    fn multibyte_text_is_cut_at_a_character_boundary() {
        let long = "é".repeat(MAX_DIFF_LINE_CHARS * 2);
        let d = unified_diff(&long, "", "a", "b");
        assert!(d.contains("[+2001 chars]"), "{d}");
    }
}
