//! Unified diffs for the responses.

use std::time::Duration;

use similar::{Algorithm, TextDiff};

/// How long a diff may take before `similar` approximates it.
const DIFF_TIMEOUT: Duration = Duration::from_secs(2);

/// A unified diff (3 lines of context, no timestamps) from `old` to `new` with the given
/// header names; `\ No newline at end of file` marks a last line without a newline.
/// Empty when the texts are equal.
pub fn unified_diff(old: &str, new: &str, from: &str, to: &str) -> String {
    if old == new {
        return String::new();
    }
    TextDiff::configure()
        .algorithm(Algorithm::Myers)
        .timeout(DIFF_TIMEOUT)
        .diff_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(from, to)
        .to_string()
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
}
