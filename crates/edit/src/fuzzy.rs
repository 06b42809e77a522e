//! Bounded search for the blocks of a file most similar to a `match_text`.
//!
//! A window of as many lines as the needle slides over the file. Every window gets a cheap
//! score first: a length bound (which really bounds the character ratio) and the Dice
//! coefficient of hashed character bigrams, maintained incrementally as the window slides, so
//! the scan is linear in the file size. Only the best-scoring windows get the real character
//! diff ratio from `similar` (Myers), each with a deadline, and the whole search has a time
//! budget. The result is therefore an approximation on pathological inputs, never a hang.

use std::ops::Range;
use std::time::{Duration, Instant};

use similar::{Algorithm, TextDiff};

/// Number of hash buckets for character bigrams.
const BUCKETS: usize = 4096;

/// A block of the file and its similarity to the needle.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Block {
    /// First line, 1-based.
    pub line_start: usize,
    /// Last line, 1-based, inclusive.
    pub line_end: usize,
    /// Byte range of the block in the content (no trailing newline).
    pub range: Range<usize>,
    /// Character similarity in 0..=1.
    pub ratio: f32,
}

/// Limits of one search.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budget {
    /// How many windows get the real (expensive) ratio.
    pub max_exact: usize,
    /// Time for the whole search.
    pub total: Duration,
    /// Time for one real ratio.
    pub per_diff: Duration,
}

impl Budget {
    pub const HINTS: Budget = Budget {
        max_exact: 40,
        total: Duration::from_millis(1500),
        per_diff: Duration::from_millis(100),
    };
}

fn bucket(a: char, b: char) -> usize {
    ((a as u32).wrapping_mul(0x9E37_79B1) ^ (b as u32).wrapping_mul(0x85EB_CA77)) as usize % BUCKETS
}

/// Calls `f` with the bucket of every bigram of `"\n" + line`.
fn for_each_bigram(line: &str, mut f: impl FnMut(usize)) {
    let mut prev = '\n';
    for c in line.chars() {
        f(bucket(prev, c));
        prev = c;
    }
}

/// The blocks of `content` whose similarity to `needle` is at least `cutoff`, best first
/// (ties in file order). A trailing newline of the needle is ignored.
pub(crate) fn similar_blocks(
    needle: &str,
    content: &str,
    cutoff: f32,
    budget: Budget,
) -> Vec<Block> {
    let started = Instant::now();
    // Two thirds of the budget for the scan; the exact phase always gets at least a third.
    let scan_deadline = started + budget.total * 2 / 3;
    let needle = needle.trim_end_matches('\n');
    if needle.is_empty() || content.is_empty() {
        return Vec::new();
    }
    let mut lines: Vec<Range<usize>> = Vec::new();
    let mut start = 0usize;
    for (i, b) in content.bytes().enumerate() {
        if b == b'\n' {
            lines.push(start..i);
            start = i + 1;
        }
    }
    lines.push(start..content.len());
    let line_chars: Vec<usize> = lines
        .iter()
        .map(|r| content[r.clone()].chars().count())
        .collect();

    let k = needle.matches('\n').count() + 1;
    let n = lines.len();
    let windows = if n <= k { 1 } else { n - k + 1 };
    let needle_chars = needle.chars().count();

    let mut hn = vec![0u32; BUCKETS];
    let mut needle_total = 0u64;
    for l in needle.split('\n') {
        for_each_bigram(l, |b| {
            hn[b] += 1;
            needle_total += 1;
        });
    }

    let mut hw = vec![0u32; BUCKETS];
    let mut inter = 0u64;
    let mut wtotal = 0u64;
    let mut wchars = 0usize;
    let add = |idx: usize, hw: &mut [u32], inter: &mut u64, wtotal: &mut u64| {
        for_each_bigram(&content[lines[idx].clone()], |b| {
            if hw[b] < hn[b] {
                *inter += 1;
            }
            hw[b] += 1;
            *wtotal += 1;
        });
    };
    let remove = |idx: usize, hw: &mut [u32], inter: &mut u64, wtotal: &mut u64| {
        for_each_bigram(&content[lines[idx].clone()], |b| {
            hw[b] -= 1;
            if hw[b] < hn[b] {
                *inter -= 1;
            }
            *wtotal -= 1;
        });
    };

    let mut candidates: Vec<(f32, usize)> = Vec::new();
    let last_line = |i: usize| (i + k).min(n) - 1;
    for i in 0..windows {
        if i == 0 {
            for (idx, chars) in line_chars.iter().enumerate().take(last_line(0) + 1) {
                add(idx, &mut hw, &mut inter, &mut wtotal);
                wchars += chars;
            }
        } else {
            remove(i - 1, &mut hw, &mut inter, &mut wtotal);
            wchars -= line_chars[i - 1];
            let incoming = last_line(i);
            add(incoming, &mut hw, &mut inter, &mut wtotal);
            wchars += line_chars[incoming];
        }
        if i % 4096 == 4095 && Instant::now() >= scan_deadline {
            break;
        }
        let block_chars = wchars + (last_line(i) - i);
        let bound =
            2.0 * needle_chars.min(block_chars) as f32 / (needle_chars + block_chars) as f32;
        if bound < cutoff {
            continue;
        }
        let total = needle_total + wtotal;
        let proxy = if total == 0 {
            1.0
        } else {
            2.0 * inter as f32 / total as f32
        };
        candidates.push((proxy, i));
    }
    candidates.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    candidates.truncate(budget.max_exact);

    let deadline = (started + budget.total).max(Instant::now() + budget.total / 3);
    let mut found = Vec::new();
    for (_, i) in candidates {
        let now = Instant::now();
        if now >= deadline {
            break;
        }
        let last = last_line(i);
        let range = lines[i].start..lines[last].end;
        let block = &content[range.clone()];
        let ratio = TextDiff::configure()
            .algorithm(Algorithm::Myers)
            .deadline((now + budget.per_diff).min(deadline))
            .diff_chars(needle, block)
            .ratio();
        if ratio >= cutoff {
            found.push(Block {
                line_start: i + 1,
                line_end: last + 1,
                range,
                ratio,
            });
        }
    }
    found.sort_by(|a, b| {
        b.ratio
            .total_cmp(&a.ratio)
            .then(a.line_start.cmp(&b.line_start))
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_closest_block() {
        let content = "fn main() {\n    let x = compute(1);\n}\n\nfn compute(a: i32) -> i32 {\n    a * 2\n}\n";
        let needle = "fn compute(a: i64) -> i64 {\n    a * 2\n}";
        let blocks = similar_blocks(needle, content, 0.6, Budget::HINTS);
        assert!(!blocks.is_empty());
        assert_eq!((blocks[0].line_start, blocks[0].line_end), (5, 7));
        assert!(
            blocks[0].ratio > 0.85 && blocks[0].ratio < 1.0,
            "{}",
            blocks[0].ratio
        );
        assert_eq!(
            &content[blocks[0].range.clone()],
            "fn compute(a: i32) -> i32 {\n    a * 2\n}"
        );
    }

    #[test]
    fn empty_inputs_and_short_files() {
        assert!(similar_blocks("", "abc", 0.6, Budget::HINTS).is_empty());
        assert!(similar_blocks("abc", "", 0.6, Budget::HINTS).is_empty());
        let b = similar_blocks("a\nb\nc\nd", "a\nb", 0.5, Budget::HINTS);
        assert_eq!(b.len(), 1);
        assert_eq!((b[0].line_start, b[0].line_end), (1, 2));
    }

    #[test]
    fn large_file_is_bounded() {
        let mut content = String::new();
        for i in 0..100_000 {
            content.push_str(&format!("line number {i} with some text = value_{i};\n"));
        }
        let blocks = similar_blocks(
            "line number 12345 with some text = value_12345;\nline number 12346 with some text = value_12346;",
            &content,
            0.6,
            Budget::HINTS,
        );
        assert_eq!(blocks[0].line_start, 12_346);
        assert!((blocks[0].ratio - 1.0).abs() < f32::EPSILON);
    }
}
