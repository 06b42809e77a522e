//! What a regex costs to run over text: an upper bound on the positions an engine may track at
//! once ([`pattern_weight`]), and the work one search may do ([`REGEX_WORK_PER_SEARCH`]). Every
//! tool that runs a client's pattern bounds its work with these (grep's searched line length,
//! `read_files`' `read_to_next_pattern`).

/// Work one regex search over a stretch of text may do, in pattern positions × bytes: about a
/// second in the worst case on a 2025 laptop core (the engine's fallback, a PikeVM, steps every
/// live position on every byte: `(?:a|b|c|d){5000}x` over 13 KB of `a`s took 0.47 s).
pub const REGEX_WORK_PER_SEARCH: u64 = 1 << 27;

/// An upper bound on the positions of `pattern` a regex engine may track at once while it
/// steps over one byte: its literal bytes and classes, with every counted repetition spelt
/// out (`a{1000}` is 1,000). A class that may match several-byte UTF-8 characters counts 4 (a
/// character in progress at each of its bytes). An unparsable pattern weighs the most (it is
/// refused when compiled anyway).
pub fn pattern_weight(pattern: &str, case_insensitive: bool) -> u64 {
    use regex_syntax::hir::{Class, Hir, HirKind};
    fn weight(hir: &Hir, depth: u32) -> u64 {
        if depth > 1_000 {
            return u64::MAX;
        }
        match hir.kind() {
            HirKind::Empty | HirKind::Look(_) => 0,
            HirKind::Literal(literal) => literal.0.len() as u64,
            HirKind::Class(Class::Bytes(_)) => 1,
            HirKind::Class(Class::Unicode(class)) => {
                if class.maximum_len().is_some_and(|len| len <= 1) {
                    1
                } else {
                    4
                }
            }
            HirKind::Repetition(rep) => {
                let copies = u64::from(rep.max.unwrap_or(rep.min).max(rep.min).max(1));
                weight(&rep.sub, depth + 1).saturating_mul(copies)
            }
            HirKind::Capture(capture) => weight(&capture.sub, depth + 1),
            HirKind::Concat(parts) | HirKind::Alternation(parts) => {
                parts.iter().fold(0u64, |sum, part| {
                    sum.saturating_add(weight(part, depth + 1))
                })
            }
        }
    }
    regex_syntax::ParserBuilder::new()
        .case_insensitive(case_insensitive)
        .multi_line(true)
        .crlf(true)
        .utf8(false)
        .build()
        .parse(pattern)
        .map_or(u64::MAX, |hir| weight(&hir, 0))
}
