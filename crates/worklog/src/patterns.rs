//! Header parsing, code masking and the signal patterns.

use std::sync::LazyLock;

use regex::Regex;

use crate::Signals;

pub(crate) struct Header {
    pub log_id: String,
    pub kind: String,
    pub title: String,
    pub task: Option<String>,
}

static HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^###\s*\[LOG-(\d+)\]\s*-\s*\[([A-Za-z]+)\]\s*-\s*(.+?)(?:\s*-\s*Task:\s*([A-Za-z][A-Za-z0-9_-]*))?\s*$",
    )
    .unwrap_or_else(|e| unreachable!("static regex: {e}"))
});

pub(crate) fn parse_header(line: &str) -> Option<Header> {
    let caps = HEADER.captures(line.trim_end())?;
    Some(Header {
        log_id: format!("LOG-{}", &caps[1]),
        kind: caps[2].to_ascii_uppercase(),
        title: caps[3].trim().to_string(),
        task: caps.get(4).map(|m| m.as_str().to_string()),
    })
}

/// (name, pattern, tier 1?, header only?)
const PATTERNS: &[(&str, &str, bool, bool)] = &[
    ("strikethrough", r"~~[^~]+~~", true, true),
    (
        "superseded_by",
        r"(?i)SUPERSEDED\s*BY[:\s]+LOG-\d+",
        true,
        true,
    ),
    (
        "deprecated_tag",
        r"(?i)\[DEPRECATED\]|\[OBSOLETE\]|\[ARCHIVED\]",
        true,
        false,
    ),
    ("do_not_follow", r"(?i)do\s*not\s*follow", true, false),
    (
        "status_obsolete",
        r"(?i)status[:\s]*(obsolete|deprecated|superseded|abandoned)",
        true,
        false,
    ),
    (
        "killed",
        r"(?i)\b(killed|scrapped|abandoned|discarded)\b",
        true,
        false,
    ),
    (
        "depends_on",
        r"(?i)\*{0,2}depends\s*on:?\*{0,2}[:\s]*(LOG-\d+)",
        false,
        false,
    ),
    (
        "supersedes",
        r"(?i)\b(supersedes?|superseding)\b",
        false,
        false,
    ),
    ("replaces", r"(?i)\b(replaces?|replacing)\b", false, false),
    ("pivot", r"(?i)\b(pivot(?:ed|ing)?|pivotal)\b", false, false),
    (
        "hit_wall",
        r"(?i)hit\s*(?:a\s*)?(?:wall|dead\s*end|roadblock)",
        false,
        false,
    ),
    (
        "decided_not_to",
        r"(?i)decided\s*(?:not\s*to|against)",
        false,
        false,
    ),
    (
        "options_evaluated",
        r"(?i)option\s*[A-Z1-9][:\s]",
        false,
        false,
    ),
];

static COMPILED: LazyLock<Vec<(&'static str, Regex, bool, bool)>> = LazyLock::new(|| {
    PATTERNS
        .iter()
        .filter_map(|&(name, pattern, tier_1, header_only)| {
            Regex::new(pattern)
                .ok()
                .map(|r| (name, r, tier_1, header_only))
        })
        .collect()
});

/// The text a signal reports: the first group when the pattern has one, else the whole match.
fn matched_text(re: &Regex, caps: &regex::Captures<'_>) -> String {
    let m = if re.captures_len() > 1 {
        caps.get(1).or_else(|| caps.get(0))
    } else {
        caps.get(0)
    };
    m.map_or_else(String::new, |m| m.as_str().to_string())
}

/// Every pattern on the (unmasked) header line, in pattern order.
pub(crate) fn header_signals(header: &str, out: &mut Signals) {
    let masked = mask_code(header);
    for (name, re, tier_1, _) in COMPILED.iter() {
        for caps in re.captures_iter(&masked) {
            let signal = format!("{name}: {}", matched_text(re, &caps));
            push(out, *tier_1, signal);
        }
    }
}

/// Body patterns (not the header-only ones) with the line each match is on.
pub(crate) fn body_signals(masked: &str, first_line: usize, out: &mut Signals) {
    for (name, re, tier_1, header_only) in COMPILED.iter() {
        if *header_only {
            continue;
        }
        for caps in re.captures_iter(masked) {
            let start = caps.get(0).map_or(0, |m| m.start());
            let line = first_line + masked[..start].matches('\n').count();
            let signal = format!("{name}: {} (L{line})", matched_text(re, &caps));
            push(out, *tier_1, signal);
        }
    }
}

fn push(out: &mut Signals, tier_1: bool, signal: String) {
    if tier_1 {
        out.tier_1.push(signal);
    } else {
        out.tier_2.push(signal);
    }
}

/// Replaces fenced blocks, then ``…`` and `…` spans, by placeholders that keep every newline,
/// so line numbers stay right and documented patterns are not taken for real ones.
pub(crate) fn mask_code(text: &str) -> String {
    static FENCED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?ms)^[ \t]*```.*?^[ \t]*```[^\n]*$|^[ \t]*```.*\z")
            .unwrap_or_else(|e| unreachable!("static regex: {e}"))
    });
    static DOUBLE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"``[^\n]*?``").unwrap_or_else(|e| unreachable!("{e}")));
    static SINGLE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"`[^`\n]+`").unwrap_or_else(|e| unreachable!("{e}")));
    let mut index = 0;
    let mut masked = text.to_string();
    for re in [&*FENCED, &*DOUBLE, &*SINGLE] {
        masked = re
            .replace_all(&masked, |caps: &regex::Captures<'_>| {
                let newlines = caps[0].matches('\n').count();
                index += 1;
                format!("__MASKED_{index}__{}", "\n".repeat(newlines))
            })
            .into_owned();
    }
    masked
}
