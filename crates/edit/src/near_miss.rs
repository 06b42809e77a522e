//! Near-miss auto-recovery for a `match_text` with no exact hit (adopted from fs-mcp v1.32.1).
//!
//! 1. Typographic characters are mapped to ASCII in both the file and `match_text` (curly
//!    quotes, primes, dashes, the ellipsis, non-breaking and other fixed-width spaces). If the
//!    mapped `match_text` occurs exactly once in the mapped file, the corresponding span of the
//!    real file is used.
//! 2. Otherwise, if exactly one block of the file is at least 99% similar to `match_text` and
//!    that block's text occurs once, that block is used.
//!
//! The caller replaces the returned span with `new_string` and tells the model it happened.

use std::ops::Range;

use crate::fuzzy::{self, Budget};

/// Similarity a block needs for step 2.
pub const NEAR_MISS_RATIO: f32 = 0.99;

const BUDGET: Budget = Budget {
    max_exact: 8,
    total: std::time::Duration::from_millis(1000),
    per_diff: std::time::Duration::from_millis(200),
};

/// How a near miss was resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recovery {
    /// Matched after mapping typographic characters to ASCII.
    Typographic,
    /// Matched a unique block with at least 99% similarity.
    Fuzzy {
        /// Percent, rounded.
        similarity: u32,
    },
}

/// A `match_text` with no exact hit that was resolved by a near miss (the caller reports it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NearMiss {
    /// The edit of a batch (its place in the request's `edits`, 0-based); `None`: the single
    /// `match_text`.
    pub edit: Option<usize>,
    /// The 1-based line where the replaced text starts.
    pub line: usize,
    /// How it was resolved.
    pub recovery: Recovery,
}

impl NearMiss {
    /// The near miss of `edit` resolved by `recovery` at `span` of `content`.
    pub fn new(
        edit: Option<usize>,
        recovery: Recovery,
        content: &str,
        span: &Range<usize>,
    ) -> NearMiss {
        NearMiss {
            edit,
            line: content[..span.start].matches('\n').count() + 1,
            recovery,
        }
    }
}

fn ascii_for(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' => "'",
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' => "\"",
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2212}' => "-",
        '\u{2014}' | '\u{2015}' => "--",
        '\u{2026}' => "...",
        '\u{00A0}' | '\u{2007}' | '\u{202F}' | '\u{2009}' | '\u{200A}' => " ",
        _ => return None,
    })
}

/// `text` with typographic characters mapped to ASCII, and for every byte of the result the
/// byte offset in `text` of the character it came from, plus whether it starts that character's
/// replacement.
fn normalise(text: &str) -> (String, Vec<(usize, bool)>) {
    let mut out = String::with_capacity(text.len());
    let mut origin = Vec::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        let start = out.len();
        match ascii_for(c) {
            Some(rep) => out.push_str(rep),
            None => out.push(c),
        }
        for b in start..out.len() {
            origin.push((i, b == start));
        }
    }
    (out, origin)
}

fn has_typographic(text: &str) -> bool {
    text.chars().any(|c| ascii_for(c).is_some())
}

/// Finds the span of `content` that `needle` (with no exact hit) most likely meant.
pub fn recover(content: &str, needle: &str) -> Option<(Range<usize>, Recovery)> {
    if needle.is_empty() || content.is_empty() {
        return None;
    }
    if has_typographic(content) || has_typographic(needle) {
        let (norm_content, origin) = normalise(content);
        let (norm_needle, _) = normalise(needle);
        let mut hits = norm_content.match_indices(&norm_needle);
        if let (Some((pos, _)), None) = (hits.next(), hits.next()) {
            let end = pos + norm_needle.len();
            let start_ok = origin.get(pos).is_some_and(|o| o.1);
            let end_ok = end == norm_content.len() || origin.get(end).is_some_and(|o| o.1);
            if start_ok && end_ok {
                let from = origin[pos].0;
                let to = origin.get(end).map_or(content.len(), |o| o.0);
                return Some((from..to, Recovery::Typographic));
            }
        }
    }

    let blocks = fuzzy::similar_blocks(needle, content, NEAR_MISS_RATIO, BUDGET);
    let [block] = blocks.as_slice() else {
        return None;
    };
    let text = &content[block.range.clone()];
    if text.is_empty() || content.matches(text).count() != 1 {
        return None;
    }
    let mut range = block.range.clone();
    // The window search ignores a trailing newline of the needle; take the file's one too.
    if needle.ends_with('\n') && content[range.end..].starts_with('\n') {
        range.end += 1;
    }
    Some((
        range,
        Recovery::Fuzzy {
            similarity: (block.ratio * 100.0).round() as u32,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line reported is the one where the replaced span starts.
    #[test]
    fn a_near_miss_names_the_line_it_starts_on() {
        let content = "a\nb\nsay(\u{201C}x\u{201D})\n";
        let (span, how) = recover(content, "say(\"x\")").unwrap();
        let near = NearMiss::new(Some(2), how, content, &span);
        assert_eq!(
            near,
            NearMiss {
                edit: Some(2),
                line: 3,
                recovery: Recovery::Typographic
            }
        );
    }

    #[test]
    fn curly_quotes_in_file() {
        let content = "say(\u{201C}hello\u{201D}) \u{2014} ok\nnext\n";
        let (r, how) = recover(content, "say(\"hello\") -- ok").unwrap();
        assert_eq!(how, Recovery::Typographic);
        assert_eq!(&content[r], "say(\u{201C}hello\u{201D}) \u{2014} ok");
    }

    #[test]
    fn curly_quotes_in_needle() {
        let content = "it's fine...\n";
        let (r, how) = recover(content, "it\u{2019}s fine\u{2026}").unwrap();
        assert_eq!(how, Recovery::Typographic);
        assert_eq!(&content[r], "it's fine...");
    }

    #[test]
    fn ambiguous_or_partial_is_refused() {
        assert!(recover("a\u{2019}b a'b", "a'b").is_none());
        // Would cut an em dash in half.
        assert!(recover("x\u{2014}y", "x-").is_none());
    }

    #[test]
    fn unique_fuzzy_block() {
        let body =
            "fn compute(value: i64) -> i64 {\n    let doubled = value * 2;\n    doubled + 1\n}\n";
        let content = format!("use std::io;\n\n{body}\nfn other() {{}}\n");
        // One character differs (trailing space removed) out of ~90.
        let needle =
            "fn compute(value: i64) -> i64 {\n    let doubled = value * 2;\n    doubled + 1\n}\n"
                .replace("2;", "2; ");
        let (r, how) = recover(&content, &needle).unwrap();
        assert!(matches!(how, Recovery::Fuzzy { similarity: 99 }));
        assert_eq!(&content[r], body);
        assert!(recover(&content, "fn compute(value: i32)").is_none());
    }
}
