//! Header parsing, code masking and the signal patterns.

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

/// Signals listed per entry and tier; the others are counted in `tier_N_not_listed`.
pub const MAX_SIGNALS_LISTED: usize = 50;

/// Signals that an entry may be superseded, by strength.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Signals {
    /// Strong signals, found in the header only (strikethrough, `SUPERSEDED BY LOG-N`).
    pub tier_1: Vec<String>,
    /// Weaker hints anywhere in the entry (depends on, supersedes, pivot, hit a wall, …).
    pub tier_2: Vec<String>,
    /// Tier 1 signals beyond the [`MAX_SIGNALS_LISTED`] listed.
    #[serde(skip_serializing_if = "is_zero")]
    pub tier_1_not_listed: usize,
    /// Tier 2 signals beyond the [`MAX_SIGNALS_LISTED`] listed.
    #[serde(skip_serializing_if = "is_zero")]
    pub tier_2_not_listed: usize,
}

impl Signals {
    /// All tier 1 signals found, listed or not.
    pub fn tier_1_count(&self) -> usize {
        self.tier_1.len() + self.tier_1_not_listed
    }

    /// All tier 2 signals found, listed or not.
    pub fn tier_2_count(&self) -> usize {
        self.tier_2.len() + self.tier_2_not_listed
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

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

/// The signals of one entry as its lines are read: the header's, then per body pattern in
/// pattern order, each list at most [`MAX_SIGNALS_LISTED`] long (the others counted).
#[derive(Default)]
pub(crate) struct Found {
    header: Signals,
    body: Vec<Vec<String>>,
    not_listed: [usize; 2],
}

impl Found {
    /// Every pattern on the header line, in pattern order.
    pub(crate) fn header(&mut self, header: &str) {
        let masked = mask_code(header);
        for (name, re, tier_1, _) in COMPILED.iter() {
            for caps in re.captures_iter(&masked) {
                let signal = format!("{name}: {}", matched_text(re, &caps));
                push(&mut self.header, *tier_1, signal);
            }
        }
    }

    /// Body patterns (not the header-only ones) on one line outside fenced blocks, whose inline
    /// code spans are masked here.
    pub(crate) fn body_line(&mut self, line: &str, line_no: usize) {
        // Most lines hold no code span: no masking (three regex passes) needed.
        let masked = if line.contains('`') {
            std::borrow::Cow::Owned(mask_code(line))
        } else {
            std::borrow::Cow::Borrowed(line)
        };
        if self.body.is_empty() {
            self.body = vec![Vec::new(); COMPILED.len()];
        }
        for (index, (name, re, tier_1, header_only)) in COMPILED.iter().enumerate() {
            if *header_only {
                continue;
            }
            for caps in re.captures_iter(&masked) {
                if self.body[index].len() >= MAX_SIGNALS_LISTED {
                    self.not_listed[usize::from(!*tier_1)] += 1;
                    continue;
                }
                let signal = format!("{name}: {} (L{line_no})", matched_text(re, &caps));
                self.body[index].push(signal);
            }
        }
    }

    /// The entry's signals: header first, then the body's in pattern order, at most
    /// [`MAX_SIGNALS_LISTED`] per tier.
    pub(crate) fn into_signals(self) -> Signals {
        let mut out = self.header;
        out.tier_1_not_listed = self.not_listed[0];
        out.tier_2_not_listed = self.not_listed[1];
        for ((_, _, tier_1, _), found) in COMPILED.iter().zip(self.body) {
            for signal in found {
                push(&mut out, *tier_1, signal);
            }
        }
        for (list, more) in [
            (&mut out.tier_1, &mut out.tier_1_not_listed),
            (&mut out.tier_2, &mut out.tier_2_not_listed),
        ] {
            if list.len() > MAX_SIGNALS_LISTED {
                *more += list.len() - MAX_SIGNALS_LISTED;
                list.truncate(MAX_SIGNALS_LISTED);
            }
        }
        out
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
