//! Errors of a query: what went wrong, with the data (the parser's message, the limit); the
//! binary's renderer adds the `Error:` prefix and the next step.

use fs_mcp_text::{Keep, Marker, truncate};
use std::fmt;
use std::time::Duration;

/// Why a query produced no answer. `Display` states what went wrong (no next step, no tool
/// names).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum QueryError {
    /// The jq expression does not parse. The message starts with
    /// `jq syntax error at line L, column C:` and ends with a hint.
    Syntax(String),
    /// The expression parses but names something undefined (a function, a
    /// variable, a label) or uses modules.
    Compile(String),
    /// The evaluation failed before producing any result (`error(...)`,
    /// `halt_error`, a type error, ...).
    Runtime(String),
    /// The file is not what the tool expects: not JSON (or not YAML), binary,
    /// not UTF-8, or has a parse error (with line and column).
    Input(String),
    /// The file is not valid JSON but looks like YAML (the message is the JSON parse error).
    InputLooksLikeYaml(String),
    /// The file could not be read.
    Io(String),
    /// The query ran longer than the timeout; the evaluator was killed.
    Timeout(Duration),
    /// The evaluator hit its memory limit (in bytes) and was killed.
    MemoryLimit(u64),
    /// The evaluator crashed, most likely from unbounded recursion.
    Crashed,
    /// The caller cancelled the query; the evaluator was killed.
    Cancelled,
    /// The worker process could not be run or answered garbage.
    Worker(String),
}

impl QueryError {
    /// A stable, short name of the variant (used in the worker protocol).
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Syntax(_) => "syntax",
            Self::Compile(_) => "compile",
            Self::Runtime(_) => "runtime",
            Self::Input(_) => "input",
            Self::InputLooksLikeYaml(_) => "input_yaml",
            Self::Io(_) => "io",
            Self::Timeout(_) => "timeout",
            Self::MemoryLimit(_) => "memory",
            Self::Crashed => "crashed",
            Self::Cancelled => "cancelled",
            Self::Worker(_) => "worker",
        }
    }

    /// The message carried by message variants (empty for the others).
    pub(crate) fn message(&self) -> &str {
        match self {
            Self::Syntax(m)
            | Self::Compile(m)
            | Self::Runtime(m)
            | Self::Input(m)
            | Self::InputLooksLikeYaml(m)
            | Self::Io(m)
            | Self::Worker(m) => m,
            _ => "",
        }
    }

    /// Rebuild a message variant from its kind (worker protocol).
    pub(crate) fn from_kind(kind: &str, message: String) -> Self {
        match kind {
            "syntax" => Self::Syntax(message),
            "compile" => Self::Compile(message),
            "runtime" => Self::Runtime(message),
            "input" => Self::Input(message),
            "input_yaml" => Self::InputLooksLikeYaml(message),
            "io" => Self::Io(message),
            "crashed" => Self::Crashed,
            "cancelled" => Self::Cancelled,
            _ => Self::Worker(message),
        }
    }
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Syntax(m) | Self::Compile(m) => f.write_str(m),
            Self::Runtime(m) => write!(f, "jq error: {m}"),
            Self::Input(m) | Self::Io(m) => f.write_str(m),
            Self::InputLooksLikeYaml(m) => write!(f, "{m} It looks like YAML."),
            Self::Timeout(d) => write!(f, "Query timed out after {} seconds.", seconds(*d)),
            Self::MemoryLimit(bytes) => write!(
                f,
                "The query exceeded the memory limit of {} MB.",
                bytes / (1024 * 1024)
            ),
            Self::Crashed => f.write_str(
                "The query crashed the evaluator (probably unbounded recursion, \
                 e.g. `def f: 1+f; f`); nothing else was affected.",
            ),
            Self::Cancelled => f.write_str("The query was cancelled."),
            Self::Worker(m) => write!(f, "the query evaluator failed: {m}"),
        }
    }
}

impl std::error::Error for QueryError {}

/// `30`, `2.5`: seconds without a useless fraction.
fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{}", s as u64)
    } else {
        let t = format!("{s:.3}");
        t.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// Cut a long text (for example an error quoting a huge value) to about
/// `max` characters: the head, `…`, and a short tail.
pub(crate) fn shorten(s: &str, max: usize) -> String {
    let tail = (max / 5).min(40);
    truncate(s, Keep::Chars(max), Marker::EllipsisThenTail(tail)).into_owned()
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub(crate) fn line_col(text: &[u8], offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let col = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts() {
        assert_eq!(
            QueryError::Timeout(Duration::from_secs(30)).to_string(),
            "Query timed out after 30 seconds."
        );
        assert_eq!(
            QueryError::Timeout(Duration::from_millis(2500)).to_string(),
            "Query timed out after 2.5 seconds."
        );
        assert_eq!(
            QueryError::MemoryLimit(512 * 1024 * 1024).to_string(),
            "The query exceeded the memory limit of 512 MB."
        );
        assert!(QueryError::Crashed.to_string().contains("def f: 1+f; f"));
    }

    #[test]
    fn shorten_and_positions() {
        let long = "x".repeat(1000);
        let s = shorten(&long, 200);
        assert_eq!(s.chars().count(), 200 + 1 + 40);
        assert!(s.contains('…'));
        assert_eq!(shorten("short", 200), "short");
        assert_eq!(line_col(b"ab\ncd", 4), (2, 2));
        assert_eq!(line_col("é\nxé".as_bytes(), 6), (2, 3));
    }
}
