//! Token-efficient recovery hints for a `match_text` that was not found, or not found the
//! expected number of times (the original fs-mcp's `generate_token_efficient_hint`, reworked).
//!
//! Never the whole file: at most 3 similar blocks (line range, similarity %, a 200-character
//! preview); when nothing is similar, an outline of the file's functions and classes (capped)
//! and a few grep keywords taken from the `match_text`; always numbered recovery steps.
//! For duplicates (which the original mislabelled as "No match found"), the line numbers of the
//! occurrences.
//!
//! Hints are computed against the text that was searched (the file behind the sandbox-resolved
//! path, or the session's version), never against a path relative to the process's CWD.

use std::sync::LazyLock;

use fs_mcp_text::{Keep, Marker, truncate};
use regex::Regex;

use crate::fuzzy::{self, Budget};

/// Suggestions below this similarity are not shown.
pub const FUZZY_CUTOFF: f32 = 0.6;
/// At most this many suggestions.
pub const MAX_SUGGESTIONS: usize = 3;
/// Previews are cut after this many characters.
pub const PREVIEW_CHARS: usize = 200;
/// The outline is capped at this many symbols.
pub const MAX_OUTLINE: usize = 500;
/// At most this many occurrence line numbers are listed.
pub const MAX_OCCURRENCES: usize = 20;

/// Where a failed `match_text` was searched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Searched {
    /// The file (a single edit of a new proposal).
    File,
    /// The session's current version (a single edit continuing a session).
    Session,
    /// The file, for edit `n` of a batch (its place in the request's `edits`, 0-based).
    FileEdit(usize),
    /// The session's current version, for edit `n` of a batch (its place in the request's `edits`, 0-based).
    SessionEdit(usize),
}

impl Searched {
    /// The same place, its edit renumbered by `place` (`None`: the single `match_text`).
    pub(crate) fn placed(self, place: impl Fn(Option<usize>) -> Option<usize>) -> Searched {
        match self {
            Searched::File => place(None).map_or(Searched::File, Searched::FileEdit),
            Searched::Session => place(None).map_or(Searched::Session, Searched::SessionEdit),
            Searched::FileEdit(i) => place(Some(i)).map_or(self, Searched::FileEdit),
            Searched::SessionEdit(i) => place(Some(i)).map_or(self, Searched::SessionEdit),
        }
    }
}

/// What the hints found, as data (the binary words it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Diagnosis {
    /// The best similar block (the first suggestion) is at least 90% similar: likely a
    /// whitespace or minor difference.
    VerySimilar {
        /// Its similarity, percent.
        similarity: u32,
        /// Its first line, 1-based.
        line_start: usize,
        /// Its last line, inclusive.
        line_end: usize,
    },
    /// Similar blocks were found (the suggestions), the best under 90% similar.
    SimilarBlocks {
        /// How many are suggested.
        count: usize,
        /// The best one's similarity, percent.
        similarity: u32,
        /// The best one's first line, 1-based.
        line_start: usize,
        /// The best one's last line, inclusive.
        line_end: usize,
    },
    /// Nothing similar; the file's outline is given, with keywords to search for when
    /// `match_text` had some.
    NothingSimilar {
        /// Keywords were found (the first is the step to search for).
        with_keywords: bool,
    },
    /// Nothing similar and no outline: `match_text` may be outdated or from another file.
    NoMatch,
    /// `match_text` occurs `found` times (their lines: the occurrences) where `expected` were
    /// required.
    WrongCount {
        /// Occurrences in the searched text.
        found: usize,
        /// Occurrences required.
        expected: usize,
        /// More occurrences than are listed ([`MAX_OCCURRENCES`]).
        more: bool,
        /// The mode takes `expected_replacements` (single edits do): setting it to `found`
        /// replaces every occurrence.
        can_set_expected: bool,
    },
}

/// The fields of a failed `match_text`'s hints: data, worded by the binary.
#[derive(Debug, Clone, PartialEq)]
pub struct Hints {
    /// Where the text was searched.
    pub searched: Searched,
    /// What was found.
    pub diagnosis: Diagnosis,
    /// Lines in the searched text (`count("\n") + 1`).
    pub line_count: usize,
    /// Similar blocks, best first (their previews may hide whitespace differences).
    pub suggestions: Option<Vec<Suggestion>>,
    /// 1-based start lines of the occurrences (duplicate matches only).
    pub occurrences: Option<Vec<usize>>,
    /// Functions/classes of the file, when nothing similar was found.
    pub outline: Option<Vec<OutlineItem>>,
    /// Keywords to search for, taken from `match_text`.
    pub suggested_grep_keywords: Option<Vec<String>>,
    /// The recovery steps, in order.
    pub recovery_steps: Vec<RecoveryStep>,
}

/// One step of recovering from a `match_text` that did not match as expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecoveryStep {
    /// Read lines `start..=end` of `path`.
    ReadLines {
        /// The file, as the client named it.
        path: String,
        /// First line, 1-based.
        start: usize,
        /// Last line, inclusive.
        end: usize,
    },
    /// Compare the text read character by character with `match_text` (tabs, spaces,
    /// trailing whitespace).
    CompareWhitespace,
    /// Check that the similar block is the section meant.
    VerifySection,
    /// Copy the exact text read as the new `match_text`.
    CopyExactText,
    /// Propose again with the corrected `match_text`.
    RetryCorrected,
    /// Search for `pattern` to locate the code.
    Search {
        /// A keyword of `match_text`.
        pattern: String,
    },
    /// Note the line numbers the search found.
    NoteSearchLines,
    /// Read `path` at the lines the search found.
    ReadFoundLines {
        /// The file, as the client named it.
        path: String,
    },
    /// Find in the outline the function or class holding the target.
    ReviewOutline,
    /// Search for a distinctive keyword of `match_text`.
    SearchKeyword,
    /// Check that the path is the file meant.
    VerifyPath,
    /// Read the file's current content.
    ReadCurrent {
        /// The file, as the client named it.
        path: String,
    },
    /// Update `match_text` to the file's current text.
    UpdateMatchText,
    /// Extend `match_text` with lines before or after the occurrence meant, so it is unique.
    ExtendMatchText,
    /// Propose again with the extended `match_text`.
    RetryExtended,
}

/// A block similar to `match_text`.
#[derive(Debug, Clone, PartialEq)]
pub struct Suggestion {
    /// First line of the block, 1-based.
    pub line_start: usize,
    /// Last line of the block, 1-based, inclusive.
    pub line_end: usize,
    /// Percent, rounded.
    pub similarity: u32,
    /// The block's first 200 characters (`...` appended when cut).
    pub preview: String,
}

/// A symbol of the file outline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutlineItem {
    /// `class`, `function`, `method`, ….
    pub kind: String,
    /// The symbol's name.
    pub name: String,
    /// 1-based line.
    pub line: usize,
    /// The line, trimmed, at most 100 characters.
    pub signature: String,
}

fn line_count(content: &str) -> usize {
    content.matches('\n').count() + 1
}

/// Hints for a `match_text` found 0 times in `content`.
///
/// `path` is the path as the client gave it (used in the steps), `searched` where the text was
/// searched.
pub fn not_found(match_text: &str, content: &str, path: &str, searched: Searched) -> Hints {
    let line_count = line_count(content);
    let blocks = fuzzy::similar_blocks(match_text, content, FUZZY_CUTOFF, Budget::HINTS);
    if let Some(best) = blocks.first() {
        let suggestions: Vec<Suggestion> = blocks
            .iter()
            .take(MAX_SUGGESTIONS)
            .map(|b| Suggestion {
                line_start: b.line_start,
                line_end: b.line_end,
                similarity: (b.ratio * 100.0).round() as u32,
                preview: truncate(
                    &content[b.range.clone()],
                    Keep::Chars(PREVIEW_CHARS),
                    Marker::Dots,
                )
                .into_owned(),
            })
            .collect();
        let (similarity, line_start, line_end) =
            (suggestions[0].similarity, best.line_start, best.line_end);
        let (diagnosis, step2) = if similarity >= 90 {
            (
                Diagnosis::VerySimilar {
                    similarity,
                    line_start,
                    line_end,
                },
                RecoveryStep::CompareWhitespace,
            )
        } else {
            (
                Diagnosis::SimilarBlocks {
                    count: suggestions.len(),
                    similarity,
                    line_start,
                    line_end,
                },
                RecoveryStep::VerifySection,
            )
        };
        return Hints {
            searched,
            diagnosis,
            line_count,
            suggestions: Some(suggestions),
            occurrences: None,
            outline: None,
            suggested_grep_keywords: None,
            recovery_steps: vec![
                RecoveryStep::ReadLines {
                    path: path.to_string(),
                    start: best.line_start,
                    end: best.line_end,
                },
                step2,
                RecoveryStep::CopyExactText,
                RecoveryStep::RetryCorrected,
            ],
        };
    }

    let outline = extract_outline(content, path);
    let keywords = grep_keywords(match_text);
    if !outline.is_empty() {
        let steps = if let Some(first) = keywords.first() {
            vec![
                RecoveryStep::Search {
                    pattern: first.clone(),
                },
                RecoveryStep::NoteSearchLines,
                RecoveryStep::ReadFoundLines {
                    path: path.to_string(),
                },
                RecoveryStep::CopyExactText,
                RecoveryStep::RetryCorrected,
            ]
        } else {
            vec![
                RecoveryStep::ReviewOutline,
                RecoveryStep::SearchKeyword,
                RecoveryStep::ReadFoundLines {
                    path: path.to_string(),
                },
                RecoveryStep::CopyExactText,
                RecoveryStep::RetryCorrected,
            ]
        };
        return Hints {
            searched,
            diagnosis: Diagnosis::NothingSimilar {
                with_keywords: !keywords.is_empty(),
            },
            line_count,
            suggestions: None,
            occurrences: None,
            outline: Some(outline),
            suggested_grep_keywords: Some(keywords),
            recovery_steps: steps,
        };
    }

    Hints {
        searched,
        diagnosis: Diagnosis::NoMatch,
        line_count,
        suggestions: None,
        occurrences: None,
        outline: None,
        suggested_grep_keywords: (!keywords.is_empty()).then_some(keywords),
        recovery_steps: vec![
            RecoveryStep::VerifyPath,
            RecoveryStep::SearchKeyword,
            RecoveryStep::ReadCurrent {
                path: path.to_string(),
            },
            RecoveryStep::UpdateMatchText,
        ],
    }
}

/// Hints for a `match_text` found `found` times when `expected` were required.
/// `can_set_expected` says whether the mode takes `expected_replacements` (single edits do).
pub fn wrong_count(
    match_text: &str,
    content: &str,
    path: &str,
    searched: Searched,
    found: usize,
    expected: usize,
    can_set_expected: bool,
) -> Hints {
    let lines = occurrence_lines(content, match_text);
    let span = match_text.trim_end_matches('\n').matches('\n').count();
    let first = lines.first().copied().unwrap_or(1);
    Hints {
        searched,
        diagnosis: Diagnosis::WrongCount {
            found,
            expected,
            more: lines.len() > MAX_OCCURRENCES,
            can_set_expected,
        },
        line_count: line_count(content),
        suggestions: None,
        occurrences: Some(lines.iter().take(MAX_OCCURRENCES).copied().collect()),
        outline: None,
        suggested_grep_keywords: None,
        recovery_steps: vec![
            RecoveryStep::ReadLines {
                path: path.to_string(),
                start: first.saturating_sub(3).max(1),
                end: first + span + 3,
            },
            RecoveryStep::ExtendMatchText,
            RecoveryStep::RetryExtended,
        ],
    }
}

/// 1-based start lines of the non-overlapping occurrences of `needle`.
fn occurrence_lines(content: &str, needle: &str) -> Vec<usize> {
    if needle.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut line = 1usize;
    let mut scanned = 0usize;
    for (pos, _) in content.match_indices(needle) {
        line += content[scanned..pos].matches('\n').count();
        scanned = pos;
        out.push(line);
    }
    out
}

type Patterns = Vec<(Regex, &'static str)>;

fn compile(list: &[(&str, &'static str)]) -> Patterns {
    list.iter()
        .filter_map(|(re, kind)| Regex::new(re).ok().map(|r| (r, *kind)))
        .collect()
}

static PYTHON: LazyLock<Patterns> = LazyLock::new(|| {
    compile(&[
        (r"^class\s+(\w+)", "class"),
        (r"^async\s+def\s+(\w+)", "async function"),
        (r"^def\s+(\w+)", "function"),
        (r"^(\s+)async\s+def\s+(\w+)", "async method"),
        (r"^(\s+)def\s+(\w+)", "method"),
    ])
});
static JS: LazyLock<Patterns> = LazyLock::new(|| {
    compile(&[
        (r"^class\s+(\w+)", "class"),
        (r"^(?:export\s+)?(?:async\s+)?function\s+(\w+)", "function"),
        (
            r"^(?:export\s+)?const\s+(\w+)\s*=\s*(?:async\s+)?\(",
            "arrow function",
        ),
        (r"^\s+(?:async\s+)?(\w+)\s*\([^)]*\)\s*\{", "method"),
    ])
});
static GO: LazyLock<Patterns> = LazyLock::new(|| {
    compile(&[
        (r"^func\s+(\w+)", "function"),
        (r"^func\s+\([^)]+\)\s+(\w+)", "method"),
        (r"^type\s+(\w+)\s+struct", "struct"),
        (r"^type\s+(\w+)\s+interface", "interface"),
    ])
});
static RUST: LazyLock<Patterns> = LazyLock::new(|| {
    compile(&[
        (r"^(?:pub\s+)?fn\s+(\w+)", "function"),
        (r"^(?:pub\s+)?struct\s+(\w+)", "struct"),
        (r"^(?:pub\s+)?impl\s+(\w+)", "impl"),
        (r"^(?:pub\s+)?trait\s+(\w+)", "trait"),
    ])
});
static JAVA: LazyLock<Patterns> = LazyLock::new(|| {
    compile(&[
        (r"^(?:public|private|protected)?\s*class\s+(\w+)", "class"),
        (
            r"^(?:public|private|protected)?\s*interface\s+(\w+)",
            "interface",
        ),
        (
            r"^\s+(?:public|private|protected)?\s*(?:static\s+)?(?:\w+\s+)?(\w+)\s*\(",
            "method",
        ),
    ])
});
static OTHER: LazyLock<Patterns> = LazyLock::new(|| {
    compile(&[
        (r"^class\s+(\w+)", "class"),
        (r"^(?:def|function|func)\s+(\w+)", "function"),
        (r"^\s+(?:def|function)\s+(\w+)", "method"),
    ])
});

/// The functions/classes of a file, by its extension's patterns; at most [`MAX_OUTLINE`].
pub fn extract_outline(content: &str, path: &str) -> Vec<OutlineItem> {
    let ext = std::path::Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    let patterns: &Patterns = match ext.as_deref() {
        None | Some("py") => &PYTHON,
        Some("js" | "ts" | "jsx" | "tsx" | "mjs") => &JS,
        Some("go") => &GO,
        Some("rs") => &RUST,
        Some("java" | "kt" | "scala") => &JAVA,
        Some(_) => &OTHER,
    };
    let mut out = Vec::new();
    for (idx, line) in content.split('\n').enumerate() {
        for (re, kind) in patterns {
            if let Some(caps) = re.captures(line) {
                // The name is the last group (the indentation group comes first in methods).
                let name = caps
                    .iter()
                    .skip(1)
                    .flatten()
                    .last()
                    .map(|m| m.as_str().to_string())
                    .unwrap_or_default();
                out.push(OutlineItem {
                    kind: (*kind).to_string(),
                    name,
                    line: idx + 1,
                    signature: line.trim().chars().take(100).collect(),
                });
                break;
            }
        }
        if out.len() >= MAX_OUTLINE {
            break;
        }
    }
    out
}

static KW_FUNC: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?:def|function|func|fn)\s+(\w+)").ok());
static KW_CLASS: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"class\s+(\w+)").ok());
static KW_ASSIGN: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"(\w{4,})\s*[=:]").ok());
static KW_STRING: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#"["']([^"']{10,40})["']"#).ok());

/// Up to 3 distinctive keywords of `match_text`: a function name, a class name, up to two
/// assigned names, one string literal; duplicates (case-insensitive) removed.
pub fn grep_keywords(match_text: &str) -> Vec<String> {
    let mut raw: Vec<String> = Vec::new();
    let first = |re: &Option<Regex>| -> Option<String> {
        re.as_ref()?
            .captures(match_text)?
            .get(1)
            .map(|m| m.as_str().to_string())
    };
    raw.extend(first(&KW_FUNC));
    raw.extend(first(&KW_CLASS));
    if let Some(re) = KW_ASSIGN.as_ref() {
        raw.extend(
            re.captures_iter(match_text)
                .take(2)
                .filter_map(|c| c.get(1).map(|m| m.as_str().to_string())),
        );
    }
    if let Some(re) = KW_STRING.as_ref() {
        raw.extend(
            re.captures_iter(match_text)
                .take(1)
                .filter_map(|c| c.get(1).map(|m| m.as_str().to_string())),
        );
    }
    let mut seen = std::collections::HashSet::new();
    raw.into_iter()
        .filter(|k| seen.insert(k.to_lowercase()))
        .take(3)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PY: &str = "import os\n\nclass Greeter:\n    def hello(self):\n        return 'world'\n\n    async def later(self):\n        pass\n\ndef main():\n    Greeter().hello()\n";

    #[test]
    fn suggestion_for_a_near_miss() {
        let h = not_found(
            "    def hello(self):\n        return \"world\"",
            PY,
            "g.py",
            Searched::File,
        );
        let s = h.suggestions.as_ref().unwrap();
        assert_eq!((s[0].line_start, s[0].line_end), (4, 5));
        assert!(s[0].similarity >= 90, "{}", s[0].similarity);
        assert_eq!(
            h.diagnosis,
            Diagnosis::VerySimilar {
                similarity: s[0].similarity,
                line_start: 4,
                line_end: 5
            }
        );
        assert_eq!(
            h.recovery_steps[0],
            RecoveryStep::ReadLines {
                path: "g.py".into(),
                start: 4,
                end: 5
            }
        );
        assert!(h.outline.is_none());
    }

    #[test]
    fn outline_and_keywords_when_nothing_is_similar() {
        let h = not_found(
            "def completely_unrelated_function_name(argument_one, argument_two):\n    total_value = argument_one + argument_two * 99999",
            PY,
            "g.py",
            Searched::FileEdit(1),
        );
        let outline = h.outline.as_ref().unwrap();
        let names: Vec<_> = outline
            .iter()
            .map(|o| (o.kind.as_str(), o.name.as_str()))
            .collect();
        assert_eq!(
            names,
            vec![
                ("class", "Greeter"),
                ("method", "hello"),
                ("async method", "later"),
                ("function", "main")
            ]
        );
        assert_eq!(
            h.suggested_grep_keywords.as_deref().unwrap(),
            ["completely_unrelated_function_name", "total_value"]
        );
        assert_eq!(
            h.diagnosis,
            Diagnosis::NothingSimilar {
                with_keywords: true
            }
        );
        assert_eq!((h.line_count, h.searched), (12, Searched::FileEdit(1)));
        assert_eq!(
            h.recovery_steps[0],
            RecoveryStep::Search {
                pattern: "completely_unrelated_function_name".into()
            }
        );
    }

    #[test]
    fn no_outline_no_keywords() {
        let h = not_found("zzz qqq", "a\nb\n", "notes.txt", Searched::File);
        assert!(h.outline.is_none() && h.suggested_grep_keywords.is_none());
        assert_eq!(h.line_count, 3);
        assert_eq!(h.diagnosis, Diagnosis::NoMatch);
    }

    #[test]
    fn duplicates_list_their_lines() {
        let h = wrong_count(
            "x = 1",
            "x = 1\ny\nx = 1\n",
            "a.py",
            Searched::File,
            2,
            1,
            true,
        );
        assert_eq!(h.occurrences.as_deref(), Some(&[1usize, 3][..]));
        assert_eq!(
            h.diagnosis,
            Diagnosis::WrongCount {
                found: 2,
                expected: 1,
                more: false,
                can_set_expected: true
            }
        );
    }

    #[test]
    fn previews_are_short_and_keywords_dedup() {
        let long = "y".repeat(500);
        assert_eq!(
            truncate(&long, Keep::Chars(PREVIEW_CHARS), Marker::Dots)
                .chars()
                .count(),
            PREVIEW_CHARS + 3
        );
        assert_eq!(grep_keywords("name = 1\nNAME = 2\nother: 3"), ["name"]);
    }
}
