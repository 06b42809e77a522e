//! Section-end hints: for a match, the last line of the code block (function, class, heading
//! section, top-level key…) it lies in, so that the model can read exactly that block with
//! `read_files(start_line, end_line)`.
//!
//! # How a hint is found
//!
//! Each language has a profile of line rules:
//!
//! * **start** lines open a section (`def`, `fn`, `class`, a Markdown heading, a YAML top-level key);
//! * **close** lines end one in brace languages (a line starting with `}`);
//! * **lead** lines belong to the section that follows them (decorators, attributes, doc comments);
//! * **blank** lines are stepped over when a section's end is placed before the next one.
//!
//! After a file has been searched, and only if it had matches, the file is scanned once more with
//! one combined regex that finds just those lines (grep-searcher's fast path skips everything
//! else), giving a short list of boundary records. Every hint of that file is computed from
//! that list; the file is never re-read per match.
//!
//! A section starts at a start line S with level L (its indentation, or a heading's `#` count).
//! A run of lead lines directly above S, at S's indentation (or one more, for ` * ` comment
//! continuation lines), moves the start up to the first of them. The section ends at the first
//! of, after S:
//!
//! * a close line at level L (the brace that closes S's block): the end is that line;
//! * a close line at a lower level (the enclosing block closes): the line before it;
//! * a start line at level ≤ L: the line before it (before its leads), stepping back over blank
//!   lines and over comment lines at level ≤ L;
//! * otherwise the end of the file (`EOF`).
//!
//! A match gets the end of the innermost section containing it. A match before any section (an
//! import at the top of a file) gets the line before the next start line.
//!
//! Custom `section_patterns` replace the rules by "every line matching one of them is a start",
//! without levels: the hint is the line before the next matching line after the match, stepped
//! back over blank lines.

use std::path::Path;
use std::sync::LazyLock;

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{Searcher, Sink, SinkMatch};
use regex::Regex;

use crate::error::SearchError;
use crate::matched::numbered_lines;

/// Where a section ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SectionEnd {
    /// The section's last line (1-based).
    Line(u64),
    /// The section runs to the end of the file.
    Eof,
}

impl std::fmt::Display for SectionEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SectionEnd::Line(n) => write!(f, "L{n}"),
            SectionEnd::Eof => write!(f, "EOF"),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Start,
    Close,
    Lead,
    Fence,
    Blank,
}

/// How a start line's level is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Levels {
    /// Indentation width (a tab counts 4).
    Indent,
    /// Number of leading `#` (Markdown headings); fenced code blocks are skipped.
    Heading,
    /// Every section is top-level (YAML, TOML).
    Flat,
    /// Custom patterns: no levels, a section ends before the next start.
    Custom,
}

struct Rule {
    kind: Kind,
    regex: Regex,
    /// Reject the rule when the line's first word is one of these (e.g. `if (x) {` is no method).
    reject_first_words: &'static [&'static str],
}

/// The rules for one language, compiled once.
pub(crate) struct Profile {
    pub name: &'static str,
    rules: Vec<Rule>,
    levels: Levels,
    /// Finds every line any rule (or the blank rule) could accept.
    matcher: RegexMatcher,
}

impl std::fmt::Debug for Profile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Profile")
            .field("name", &self.name)
            .field("levels", &self.levels)
            .field("rules", &self.rules.len())
            .finish()
    }
}

/// One classified line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Boundary {
    line: u64,
    kind: Kind,
    level: u32,
}

const JS_KEYWORDS: &[&str] = &[
    "if", "for", "while", "switch", "catch", "with", "function", "return", "else", "do", "try",
    "new", "typeof", "await", "yield", "super", "delete", "void", "throw", "case",
];

const BLANK: &str = r"^[ \t\r\x0c]*$";

type RuleSpec = (Kind, &'static str, &'static [&'static str]);

fn profile(name: &'static str, levels: Levels, specs: &[RuleSpec]) -> Profile {
    let rules: Vec<Rule> = specs
        .iter()
        .map(|&(kind, pattern, reject)| Rule {
            kind,
            regex: Regex::new(pattern)
                .unwrap_or_else(|e| panic!("built-in hint rule {pattern}: {e}")),
            reject_first_words: reject,
        })
        .collect();
    let patterns: Vec<&str> = specs.iter().map(|s| s.1).chain([BLANK]).collect();
    let matcher = union_matcher(&patterns, false)
        .unwrap_or_else(|e| panic!("built-in hint profile {name}: {e}"));
    Profile {
        name,
        rules,
        levels,
        matcher,
    }
}

fn union_matcher(
    patterns: &[&str],
    case_insensitive: bool,
) -> Result<RegexMatcher, grep_regex::Error> {
    let joined = patterns
        .iter()
        .map(|p| format!("(?:{p})"))
        .collect::<Vec<_>>()
        .join("|");
    RegexMatcherBuilder::new()
        .case_insensitive(case_insensitive)
        .multi_line(true)
        .crlf(true)
        .size_limit(crate::limits::REGEX_SIZE_LIMIT)
        .dfa_size_limit(crate::limits::DFA_SIZE_LIMIT)
        .build(&joined)
}

use Kind::{Close, Fence, Lead, Start};

static PYTHON: LazyLock<Profile> = LazyLock::new(|| {
    profile(
        "python",
        Levels::Indent,
        &[
            (Start, r"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+\w", &[]),
            // Top-level statements end the definition above them.
            (
                Start,
                r"^(?:if|for|while|with|try|async[ \t]+(?:for|with))\b",
                &[],
            ),
            (Start, r"^(?:import|from)[ \t]", &[]),
            (
                Start,
                r"^[A-Za-z_][A-Za-z0-9_]*[ \t]*(?::[^=]*)?=(?:[^=]|$)",
                &[],
            ),
            (Lead, r"^[ \t]*[@#]", &[]),
        ],
    )
});

static RUST: LazyLock<Profile> = LazyLock::new(|| {
    profile(
        "rust",
        Levels::Indent,
        &[
            (Close, r"^[ \t]*\}", &[]),
            (
                Start,
                r#"^[ \t]*(?:pub(?:[ \t]*\([^)]*\))?[ \t]+)?(?:(?:default|const|async|unsafe|extern(?:[ \t]+"[^"]*")?)[ \t]+)*(?:(?:fn|impl|struct|enum|union|trait|mod|type|const|static)\b|macro_rules!)"#,
                &[],
            ),
            (Lead, r"^[ \t]*(?://|#!?\[|/\*|\*)", &[]),
        ],
    )
});

static JS: LazyLock<Profile> = LazyLock::new(|| {
    profile(
        "javascript",
        Levels::Indent,
        &[
            (Close, r"^[ \t]*\}", &[]),
            (
                Start,
                r"^[ \t]*(?:export[ \t]+)?(?:default[ \t]+)?(?:declare[ \t]+)?(?:async[ \t]+)?function\b",
                &[],
            ),
            (
                Start,
                r"^[ \t]*(?:export[ \t]+)?(?:default[ \t]+)?(?:declare[ \t]+)?(?:abstract[ \t]+)?class\b",
                &[],
            ),
            (
                Start,
                r"^[ \t]*(?:export[ \t]+)?(?:declare[ \t]+)?(?:interface|type|enum|namespace)[ \t]+[\w$]",
                &[],
            ),
            (
                Start,
                r"^[ \t]*export[ \t]+(?:default\b|const\b|let\b|var\b)",
                &[],
            ),
            (
                Start,
                r"^(?:const|let|var)[ \t]+[\w$]+[ \t]*=[ \t]*(?:async[ \t]+)?(?:function\b|\([^)]*\)[ \t]*=>|[\w$]+[ \t]*=>)",
                &[],
            ),
            // Class members: `  async foo(a, b) {`, `  static get x() {` (not `if (x) {`).
            (
                Start,
                r"^[ \t]+(?:(?:static|async|get|set|public|private|protected|readonly|override|abstract)[ \t]+)*\*?#?[A-Za-z_$][\w$]*[ \t]*(?:<[^>]*>)?\(.*\)[ \t]*(?::[^{]*)?\{[ \t]*$",
                JS_KEYWORDS,
            ),
            (Lead, r"^[ \t]*(?://|/\*|\*|@)", &[]),
        ],
    )
});

static GO: LazyLock<Profile> = LazyLock::new(|| {
    profile(
        "go",
        Levels::Indent,
        &[
            (Close, r"^[ \t]*\}", &[]),
            (Start, r"^[ \t]*(?:func|type)\b", &[]),
            (Start, r"^(?:var|const|import)\b", &[]),
            (Lead, r"^[ \t]*//", &[]),
        ],
    )
});

static JVM: LazyLock<Profile> = LazyLock::new(|| {
    profile(
        "java",
        Levels::Indent,
        &[
            (Close, r"^[ \t]*\}", &[]),
            (
                Start,
                r"^[ \t]*(?:(?:public|protected|private|internal|static|final|abstract|sealed|non-sealed|strictfp|partial|open|data|enum|annotation|inner|companion|value|expect|actual)[ \t]+)*(?:class|interface|enum|record|@interface|object|struct|namespace|typealias)[ \t]+\w",
                &[],
            ),
            // Java/C# methods and constructors need at least one modifier (fields cannot match:
            // a `=` stops the return type).
            (
                Start,
                r"^[ \t]*(?:(?:public|protected|private|internal|static|final|abstract|synchronized|native|default|async|override|virtual|sealed|extern|unsafe|new)[ \t]+)+(?:<[^>]*>[ \t]*)?[\w<>\[\],.? ]*?\w+[ \t]*\(",
                &[],
            ),
            // Kotlin functions.
            (
                Start,
                r"^[ \t]*(?:(?:public|private|protected|internal|open|abstract|override|final|suspend|inline|operator|infix|tailrec|external)[ \t]+)*fun\b",
                &[],
            ),
            (Lead, r"^[ \t]*(?://|/\*|\*|@)", &[]),
        ],
    )
});

static MARKDOWN: LazyLock<Profile> = LazyLock::new(|| {
    profile(
        "markdown",
        Levels::Heading,
        &[
            (Start, r"^#{1,6}(?:[ \t]|$)", &[]),
            (Fence, r"^ {0,3}(?:```|~~~)", &[]),
        ],
    )
});

static YAML: LazyLock<Profile> = LazyLock::new(|| {
    profile(
        "yaml",
        Levels::Flat,
        &[
            (Start, r#"^[A-Za-z0-9_."'$/<@(\[][^#]*?:(?:[ \t]|$)"#, &[]),
            (Start, r"^-(?:[ \t]|$)", &[]),
            (Start, r"^(?:---|\.\.\.)(?:[ \t]|$)", &[]),
            (Lead, r"^#", &[]),
        ],
    )
});

static TOML: LazyLock<Profile> = LazyLock::new(|| {
    profile(
        "toml",
        Levels::Flat,
        &[(Start, r"^[ \t]*\[", &[]), (Lead, r"^[ \t]*#", &[])],
    )
});

/// The built-in profile for a file, chosen by its extension.
pub(crate) fn builtin_profile(path: &Path) -> Option<&'static Profile> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    let profile: &LazyLock<Profile> = match ext.as_str() {
        "py" | "pyi" | "pyw" => &PYTHON,
        "rs" => &RUST,
        "js" | "jsx" | "mjs" | "cjs" | "ts" | "tsx" | "mts" | "cts" => &JS,
        "go" => &GO,
        "java" | "kt" | "kts" | "cs" | "scala" => &JVM,
        "md" | "markdown" | "mdx" => &MARKDOWN,
        "yml" | "yaml" => &YAML,
        "toml" => &TOML,
        _ => return None,
    };
    Some(profile)
}

/// Compiles caller-supplied section patterns (Rust regex syntax).
pub(crate) fn custom_profile(
    patterns: &[String],
    case_insensitive: bool,
) -> Result<Profile, SearchError> {
    let mut rules = Vec::with_capacity(patterns.len());
    for p in patterns {
        let regex = regex::RegexBuilder::new(p)
            .case_insensitive(case_insensitive)
            .build()
            .map_err(|e| SearchError::InvalidSectionPattern {
                pattern: Some(p.to_string()),
                reason: e.to_string(),
            })?;
        rules.push(Rule {
            kind: Kind::Start,
            regex,
            reject_first_words: &[],
        });
    }
    let mut all: Vec<&str> = patterns.iter().map(String::as_str).collect();
    all.push(BLANK);
    let matcher =
        union_matcher(&all, case_insensitive).map_err(|e| SearchError::InvalidSectionPattern {
            pattern: None,
            reason: e.to_string(),
        })?;
    Ok(Profile {
        name: "custom",
        rules,
        levels: Levels::Custom,
        matcher,
    })
}

impl Profile {
    pub(crate) fn matcher(&self) -> &RegexMatcher {
        &self.matcher
    }

    fn classify(&self, line_number: u64, raw: &[u8]) -> Option<Boundary> {
        let text = crate::format::strip_terminator(raw);
        let text = String::from_utf8_lossy(text);
        if text.trim().is_empty() {
            return Some(Boundary {
                line: line_number,
                kind: Kind::Blank,
                level: 0,
            });
        }
        let rule = self.rules.iter().find(|r| {
            r.regex.is_match(&text)
                && (r.reject_first_words.is_empty()
                    || !r.reject_first_words.contains(&first_word(&text)))
        })?;
        let level = match self.levels {
            Levels::Indent => indent_width(&text),
            Levels::Heading => text.bytes().take_while(|&b| b == b'#').count() as u32,
            Levels::Flat | Levels::Custom => 0,
        };
        Some(Boundary {
            line: line_number,
            kind: rule.kind,
            level,
        })
    }
}

fn first_word(text: &str) -> &str {
    let t = text.trim_start();
    let end = t
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .unwrap_or(t.len());
    &t[..end]
}

fn indent_width(text: &str) -> u32 {
    let mut width = 0;
    for b in text.bytes() {
        match b {
            b' ' => width += 1,
            b'\t' => width += 4,
            _ => break,
        }
    }
    width
}

/// Collects the boundary lines of one file (the second, cheap pass over a file with matches).
pub(crate) struct BoundarySink<'p, F: FnMut() -> bool> {
    pub profile: &'p Profile,
    pub records: Vec<Boundary>,
    /// Returns true when the search must stop (cancellation, timeout).
    pub should_stop: F,
    pub stopped: bool,
}

impl<'p, F: FnMut() -> bool> BoundarySink<'p, F> {
    pub fn new(profile: &'p Profile, should_stop: F) -> Self {
        BoundarySink {
            profile,
            records: Vec::new(),
            should_stop,
            stopped: false,
        }
    }
}

impl<F: FnMut() -> bool> Sink for BoundarySink<'_, F> {
    type Error = std::io::Error;

    fn matched(&mut self, _searcher: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        let Some(lines) = numbered_lines(mat, &mut self.stopped, &mut self.should_stop) else {
            return Ok(false);
        };
        for (number, line) in lines {
            if let Some(b) = self.profile.classify(number, line) {
                self.records.push(b);
            }
        }
        Ok(true)
    }
}

/// The section structure of one file, ready to answer hints for any number of matches.
pub(crate) struct Sections {
    levels: Levels,
    /// Blank, lead and close records by line (sorted).
    records: Vec<Boundary>,
    /// Starts in order: (first line incl. attached leads, original start line, level).
    starts: Vec<(u64, u64, u32)>,
    ends: Vec<Option<SectionEnd>>,
}

impl Sections {
    pub(crate) fn new(profile: &Profile, mut records: Vec<Boundary>) -> Sections {
        records.sort_by_key(|b| b.line);
        records.dedup_by_key(|b| b.line);
        if profile.levels == Levels::Heading {
            // Drop "headings" inside fenced code blocks (`# comment` in a shell sample).
            let mut in_fence = false;
            records.retain(|b| match b.kind {
                Kind::Fence => {
                    in_fence = !in_fence;
                    false
                }
                Kind::Start => !in_fence,
                _ => true,
            });
        }
        let mut starts = Vec::new();
        for (i, b) in records.iter().enumerate() {
            if b.kind != Kind::Start {
                continue;
            }
            let mut first = b.line;
            if profile.levels != Levels::Custom {
                let mut j = i;
                while j > 0 {
                    let prev = records[j - 1];
                    let attached = prev.kind == Kind::Lead
                        && prev.line + 1 == first
                        && (prev.level == b.level || prev.level == b.level + 1);
                    if !attached {
                        break;
                    }
                    first = prev.line;
                    j -= 1;
                }
            }
            starts.push((first, b.line, b.level));
        }
        let ends = vec![None; starts.len()];
        Sections {
            levels: profile.levels,
            records,
            starts,
            ends,
        }
    }

    fn record_at(&self, line: u64) -> Option<&Boundary> {
        self.records
            .binary_search_by_key(&line, |b| b.line)
            .ok()
            .map(|i| &self.records[i])
    }

    /// Steps back from `end` over blank lines (and comment lines at level ≤ `level`), never
    /// before `floor`.
    fn step_back(&self, mut end: u64, floor: u64, level: Option<u32>) -> u64 {
        while end > floor {
            match self.record_at(end) {
                Some(b) if b.kind == Kind::Blank => end -= 1,
                Some(b) if b.kind == Kind::Lead && level.is_some_and(|l| b.level <= l) => end -= 1,
                _ => break,
            }
        }
        end
    }

    /// The end of the section opened by start `idx`.
    fn end_of(&mut self, idx: usize) -> SectionEnd {
        if let Some(end) = self.ends[idx] {
            return end;
        }
        let (first, line, level) = self.starts[idx];
        let after = self.records.partition_point(|b| b.line <= line);
        let mut end = SectionEnd::Eof;
        for b in &self.records[after..] {
            match b.kind {
                Kind::Close if b.level == level => {
                    end = SectionEnd::Line(b.line);
                    break;
                }
                Kind::Close if b.level < level => {
                    end = SectionEnd::Line(self.step_back(b.line - 1, first, Some(level)));
                    break;
                }
                Kind::Start if b.level <= level => {
                    let next_first = self.first_line_of_start_at(b.line);
                    end = SectionEnd::Line(self.step_back(
                        next_first.saturating_sub(1).max(first),
                        first,
                        Some(level),
                    ));
                    break;
                }
                _ => {}
            }
        }
        self.ends[idx] = Some(end);
        end
    }

    fn first_line_of_start_at(&self, line: u64) -> u64 {
        self.starts
            .binary_search_by_key(&line, |s| s.1)
            .map_or(line, |i| self.starts[i].0)
    }

    /// The hint for a match on line `m`.
    pub(crate) fn hint(&mut self, m: u64) -> SectionEnd {
        if self.levels == Levels::Custom {
            return self.next_start_hint(m, None);
        }
        // Innermost section containing m: the latest start at or before m whose end is ≥ m.
        let upto = self.starts.partition_point(|s| s.0 <= m);
        for idx in (0..upto).rev() {
            match self.end_of(idx) {
                SectionEnd::Eof => return SectionEnd::Eof,
                SectionEnd::Line(end) if end >= m => return SectionEnd::Line(end),
                SectionEnd::Line(_) => {}
            }
        }
        // Before (or between) sections: up to the next start.
        let next_level = self.starts.get(upto).map(|s| s.2);
        self.next_start_hint(m, next_level)
    }

    fn next_start_hint(&self, m: u64, level: Option<u32>) -> SectionEnd {
        let next = self.starts.iter().find(|s| s.0 > m);
        match next {
            Some(&(first, _, _)) => SectionEnd::Line(self.step_back(first - 1, m, level)),
            None => SectionEnd::Eof,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use grep_searcher::SearcherBuilder;

    /// Hints for the given (1-based) match lines of `text`, as the engine computes them.
    pub(crate) fn hints_for(profile: &Profile, text: &str, matches: &[u64]) -> Vec<String> {
        let mut searcher = SearcherBuilder::new()
            .line_number(true)
            .line_terminator(grep_matcher::LineTerminator::crlf())
            .build();
        let mut sink = BoundarySink::new(profile, || false);
        searcher
            .search_slice(profile.matcher(), text.as_bytes(), &mut sink)
            .unwrap();
        let mut sections = Sections::new(profile, sink.records);
        matches
            .iter()
            .map(|&m| sections.hint(m).to_string())
            .collect()
    }

    fn builtin(name: &str) -> &'static Profile {
        builtin_profile(Path::new(name)).unwrap()
    }

    #[test]
    fn python_functions_methods_and_decorators() {
        let src = "\
import os                       
                                
                                
@decorator                      
def top(a):                     
    x = 1                       
    return x                    
                                
                                
class Foo:                      
    \"\"\"Doc.\"\"\"              
                                
    def method(self):           
        return 1                
                                
    @property                   
    async def other(self):      
        if x:                   
            pass                
                                
# helpers                       
                                
CONSTANT = 5                    
                                
def last():                     
    pass                        
";
        let src: String = src
            .lines()
            .map(|l| l.trim_end().to_string() + "\n")
            .collect();
        let p = builtin("a.py");
        // import → before the decorated def; top body → its last line; method → before the
        // decorator of `other`; other → its last body line (comment and blank lines skipped);
        // decorator line → whole decorated function; the constant; last → EOF.
        assert_eq!(
            hints_for(p, &src, &[1, 6, 14, 18, 16, 11, 23, 26]),
            ["L1", "L7", "L14", "L19", "L19", "L19", "L23", "EOF"]
        );
    }

    #[test]
    fn rust_items_end_at_their_closing_brace() {
        let src = "\
use std::fmt;

/// A thing.
#[derive(Debug)]
pub struct Thing {
    a: u8,
}

impl Thing {
    /// Makes one.
    pub(crate) const fn new() -> Self {
        Thing { a: 1 }
    }

    pub async unsafe fn other(&self) {
        if true {
        }
    }
}

fn main() {}
mod tests {
    fn t() {}
}
";
        let p = builtin("lib.rs");
        assert_eq!(
            hints_for(p, src, &[1, 3, 6, 12, 10, 16, 9, 21, 23]),
            ["L1", "L7", "L7", "L13", "L13", "L18", "L19", "L21", "L23"]
        );
    }

    #[test]
    fn js_ts_functions_classes_and_exports() {
        let src = "\
import x from 'y';

export function a() {
  return 1;
}

/**
 * Doc.
 */
export default class B extends C {
  constructor() {
    super();
  }

  async run(x) {
    if (x) {
      return 2;
    }
  }
}

export const handler = async (e) => {
  go(e);
};
const f = (a) => a + 1;
";
        let p = builtin("x.ts");
        assert_eq!(
            hints_for(p, src, &[4, 8, 12, 17, 16, 23, 25]),
            ["L5", "L20", "L13", "L19", "L19", "L24", "EOF"]
        );
    }

    #[test]
    fn go_funcs_and_types() {
        let src = "\
package main

// T is a type.
type T struct {
\tA int
}

func (t *T) M(
\ta int,
) error {
\treturn nil
}

var x = 1
";
        let p = builtin("m.go");
        assert_eq!(
            hints_for(p, src, &[5, 11, 9, 14]),
            ["L6", "L12", "L12", "EOF"]
        );
    }

    #[test]
    fn java_and_kotlin() {
        let src = "\
public class A {
    private final int x = f(1);

    @Override
    public String toString() {
        return \"a\";
    }

    fun k(): Int {
        return 1
    }
}
";
        let p = builtin("A.java");
        assert_eq!(
            hints_for(p, src, &[2, 6, 4, 10]),
            ["L12", "L7", "L7", "L11"]
        );
    }

    #[test]
    fn markdown_same_or_higher_level_heading_ends_a_section() {
        let src = "\
# Title

intro

## Install

step one

### Details

```sh
# not a heading
make
```

## Usage

text

# Other
";
        let p = builtin("README.md");
        assert_eq!(
            hints_for(p, src, &[3, 7, 13, 12, 18, 20]),
            ["L18", "L14", "L14", "L14", "L18", "EOF"]
        );
    }

    #[test]
    fn yaml_and_toml_top_level_sections() {
        let yaml = "\
# comment for a
a:
  b: 1
  c:
    - x

d: 2
# about e
e:
  f: g
";
        assert_eq!(
            hints_for(builtin("c.yaml"), yaml, &[3, 5, 7, 10]),
            ["L5", "L5", "L7", "EOF"]
        );
        let toml = "\
[package]
name = \"x\"

# deps
[dependencies]
a = 1
";
        assert_eq!(
            hints_for(builtin("Cargo.toml"), toml, &[2, 6]),
            ["L2", "EOF"]
        );
    }

    #[test]
    fn custom_patterns_end_before_the_next_match() {
        let p = custom_profile(&["^\\s*SECTION".to_string()], false).unwrap();
        let src = "SECTION a\nx\n\n  SECTION b\ny\n";
        assert_eq!(hints_for(&p, src, &[2, 1, 5]), ["L2", "L2", "EOF"]);
        let err = custom_profile(&["(".to_string()], false)
            .unwrap_err()
            .to_string();
        assert!(err.contains("invalid section pattern \"(\""), "{err}");
    }

    #[test]
    fn unknown_extensions_have_no_profile() {
        assert!(builtin_profile(Path::new("a.txt")).is_none());
        assert!(builtin_profile(Path::new("Makefile")).is_none());
        assert_eq!(builtin("A.PY").name, "python");
    }
}
