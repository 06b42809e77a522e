//! What a regex requires of a file's text, derived from `regex-syntax`'s HIR (the parser
//! grep-regex compiles the pattern with): all of some clauses, each satisfied when the text
//! contains one of the clause's strings.
//!
//! Each HIR node is summed up by the set of strings it can match exactly, when that set is small
//! and known (literals, small classes, concatenations and alternations of those), and by clauses
//! every match of it satisfies. A concatenation joins the exact sets of neighbouring children
//! (`foo[bB]ar` → `foobar` or `foobbar`); an alternation keeps, from every branch, its best
//! clause, as one clause; a node that may match the empty string, or anything (`.`, `\w+`),
//! requires nothing. Strings are ASCII-lowercased, as the index's text is: a lowercased text
//! still contains the lowercased form of any string the original contains, so the clauses stay
//! necessary whatever the case flags. A string shorter than three bytes cannot be checked with
//! trigrams, so a clause holding one is dropped; a regex left without clauses (`.`, `a|bc`)
//! makes every file a candidate.

use std::collections::BTreeSet;

use regex_syntax::ParserBuilder;
use regex_syntax::hir::{Class, Hir, HirKind};

use crate::grams::Grams;

/// Most strings in one exact set or clause; beyond it the set is given up (or split).
const MAX_SET: usize = 64;
/// Most characters a class may hold to be enumerated.
const MAX_CLASS: u32 = 16;
/// Longest string kept (a required string cut short is still required).
const MAX_STRING: usize = 64;

/// What a regex requires of a file's text: every clause holds (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Required {
    clauses: Vec<Vec<Vec<u8>>>,
}

impl Required {
    /// What `pattern` requires when grep_content compiles it with `case_insensitive`. A pattern
    /// this parser refuses requires nothing (grep refuses it, or scans every file).
    pub fn of(pattern: &str, case_insensitive: bool) -> Required {
        let hir = ParserBuilder::new()
            .case_insensitive(case_insensitive)
            .multi_line(true)
            .crlf(true)
            .utf8(false)
            .build()
            .parse(pattern);
        let Ok(hir) = hir else {
            return Required::default();
        };
        let summary = summarize(&hir);
        let mut clauses = summary.clauses;
        if let Some(exact) = summary.exact {
            clauses.push(exact);
        }
        let mut clauses: Vec<Vec<Vec<u8>>> = clauses
            .into_iter()
            .filter(|c| !c.is_empty() && c.iter().all(|s| s.len() >= 3))
            .map(|c| c.into_iter().collect())
            .collect();
        clauses.sort();
        clauses.dedup();
        Required { clauses }
    }

    /// True when nothing is required: every file is a candidate.
    pub fn is_nothing(&self) -> bool {
        self.clauses.is_empty()
    }

    /// False only when the text `grams` were taken from cannot meet the clauses (see the module
    /// docs of `grams`).
    pub(crate) fn may_be_met_by(&self, grams: &Grams) -> bool {
        self.clauses
            .iter()
            .all(|clause| clause.iter().any(|s| grams.may_contain(s)))
    }

    /// The clauses: each a list of strings, one of which the text must contain.
    pub fn clauses(&self) -> &[Vec<Vec<u8>>] {
        &self.clauses
    }

    /// Checks the clauses on a text itself (lowercased as the index does): what the trigram
    /// test approximates from above.
    pub fn holds_in(&self, text: &[u8]) -> bool {
        let lowered: Vec<u8> = text.iter().map(u8::to_ascii_lowercase).collect();
        self.clauses.iter().all(|clause| {
            clause
                .iter()
                .any(|s| memchr::memmem::find(&lowered, s).is_some())
        })
    }
}

type Set = BTreeSet<Vec<u8>>;

/// One node: the strings it matches exactly (if few and known) and the clauses its matches meet.
struct Summary {
    exact: Option<Set>,
    clauses: Vec<Set>,
}

impl Summary {
    fn anything() -> Summary {
        Summary {
            exact: None,
            clauses: Vec::new(),
        }
    }

    fn exactly(set: Set) -> Summary {
        Summary {
            exact: Some(set),
            clauses: Vec::new(),
        }
    }

    /// The single clause that says most about this node, if any.
    fn best_clause(self) -> Option<Set> {
        self.clauses
            .into_iter()
            .chain(self.exact)
            .filter(|c| !c.is_empty())
            .max_by_key(|c| c.iter().map(Vec::len).min().unwrap_or(0))
    }
}

fn lowered(bytes: &[u8]) -> Vec<u8> {
    let mut s: Vec<u8> = bytes.iter().map(u8::to_ascii_lowercase).collect();
    s.truncate(MAX_STRING);
    s
}

fn summarize(hir: &Hir) -> Summary {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Summary::exactly(Set::from([Vec::new()])),
        HirKind::Literal(literal) => Summary::exactly(Set::from([lowered(&literal.0)])),
        HirKind::Class(class) => class_set(class).map_or_else(Summary::anything, Summary::exactly),
        HirKind::Capture(capture) => summarize(&capture.sub),
        HirKind::Repetition(rep) => {
            let sub = summarize(&rep.sub);
            if rep.min == 0 {
                return match (rep.max, sub.exact) {
                    (Some(1), Some(mut set)) if set.len() < MAX_SET => {
                        set.insert(Vec::new());
                        Summary::exactly(set)
                    }
                    _ => Summary::anything(),
                };
            }
            if rep.max == Some(1) {
                return sub;
            }
            // At least one match of the sub-expression: its clauses, and one of its strings.
            let mut clauses = sub.clauses;
            clauses.extend(sub.exact);
            Summary {
                exact: None,
                clauses,
            }
        }
        HirKind::Concat(children) => concat(children),
        HirKind::Alternation(children) => alternation(children),
    }
}

/// The characters of a small class, each as its (lowercased) UTF-8 bytes.
fn class_set(class: &Class) -> Option<Set> {
    let mut set = Set::new();
    match class {
        Class::Unicode(class) => {
            let count: u32 = class
                .ranges()
                .iter()
                .map(|r| u32::from(r.end()) - u32::from(r.start()) + 1)
                .sum();
            if count > MAX_CLASS {
                return None;
            }
            for range in class.ranges() {
                for c in range.start()..=range.end() {
                    let mut buf = [0; 4];
                    set.insert(lowered(c.encode_utf8(&mut buf).as_bytes()));
                }
            }
        }
        Class::Bytes(class) => {
            let count: u32 = class
                .ranges()
                .iter()
                .map(|r| u32::from(r.end()) - u32::from(r.start()) + 1)
                .sum();
            if count > MAX_CLASS {
                return None;
            }
            for range in class.ranges() {
                for b in range.start()..=range.end() {
                    set.insert(lowered(&[b]));
                }
            }
        }
    }
    Some(set)
}

/// Every string of `a` followed by every string of `b`, if there are few enough.
fn cross(a: &Set, b: &Set) -> Option<Set> {
    if a.len().saturating_mul(b.len()) > MAX_SET {
        return None;
    }
    let mut out = Set::new();
    for x in a {
        for y in b {
            let mut s = x.clone();
            s.extend_from_slice(y);
            s.truncate(MAX_STRING);
            out.insert(s);
        }
    }
    Some(out)
}

fn concat(children: &[Hir]) -> Summary {
    let mut clauses = Vec::new();
    let mut run: Set = Set::from([Vec::new()]);
    let mut all_exact = true;
    for child in children {
        let summary = summarize(child);
        clauses.extend(summary.clauses);
        match summary.exact {
            Some(exact) => match cross(&run, &exact) {
                Some(joined) => run = joined,
                None => {
                    // Too many: what ran so far is required as is; start again from this child.
                    all_exact = false;
                    clauses.push(std::mem::replace(&mut run, exact));
                }
            },
            None => {
                all_exact = false;
                clauses.push(std::mem::replace(&mut run, Set::from([Vec::new()])));
            }
        }
    }
    if all_exact {
        return Summary {
            exact: Some(run),
            clauses,
        };
    }
    clauses.push(run);
    Summary {
        exact: None,
        clauses,
    }
}

fn alternation(children: &[Hir]) -> Summary {
    let summaries: Vec<Summary> = children.iter().map(summarize).collect();
    if summaries.iter().all(|s| s.exact.is_some()) {
        let union: Set = summaries
            .iter()
            .filter_map(|s| s.exact.as_ref())
            .flatten()
            .cloned()
            .collect();
        if union.len() <= MAX_SET {
            return Summary::exactly(union);
        }
    }
    // Each branch's best clause; a match of the alternation meets one of them.
    let mut union = Set::new();
    for summary in summaries {
        match summary.best_clause() {
            Some(clause) => union.extend(clause),
            None => return Summary::anything(),
        }
    }
    Summary {
        exact: None,
        clauses: vec![union],
    }
}

#[cfg(test)]
mod tests;
