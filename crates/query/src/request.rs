//! What a query is asked with: the input format, the output bounds, the
//! request sent to the worker, and the planner switch (a leaf: it uses no
//! other module).

use serde::{Deserialize, Serialize};
use std::ffi::OsStr;
use std::path::PathBuf;

/// How the file is parsed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InputFormat {
    /// JSON (one or more top-level values).
    Json,
    /// YAML (one or more documents).
    Yaml,
}

/// Bounds on the answer of one query.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Limits {
    /// Results shown (default 100).
    pub max_results: usize,
    /// Bytes of result text shown (default 100 KB).
    pub max_output_bytes: usize,
    /// Results counted in total before the count becomes "at least N"
    /// (default 1,000,000).
    pub max_counted_results: usize,
    /// Time spent counting results past the shown ones before the count
    /// becomes "at least N" (default 2 s).
    pub count_time_budget_ms: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_results: 100,
            max_output_bytes: 100 * 1024,
            max_counted_results: 1_000_000,
            count_time_budget_ms: 2_000,
        }
    }
}

/// One query, as sent to the worker process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QueryRequest {
    /// The file's path as shown in messages (and by its extension). The
    /// worker never opens it: it reads the descriptor it is given.
    pub file_path: PathBuf,
    /// The jq expression (may span lines and contain `#` comments).
    pub expression: String,
    /// How to parse the file.
    pub format: InputFormat,
    /// Output bounds.
    #[serde(default)]
    pub limits: Limits,
}

/// The environment variable that turns the read planner off: `off` (or `0`,
/// `false`, `no`) makes every query read the whole document, as a fallback if
/// the planner were ever wrong or slow for some file. Any other value, or
/// none, leaves it on. The server's query workers inherit it.
pub const PLANNER_ENV: &str = "FS_MCP_QUERY_PLANNER";

/// Whether a query reads its input along a read plan ([`crate::plan`]) or
/// builds every document whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Planner {
    On,
    Off,
}

impl Planner {
    /// The choice [`PLANNER_ENV`] makes in this process.
    pub(crate) fn from_env() -> Planner {
        Planner::from_value(std::env::var_os(PLANNER_ENV).as_deref())
    }

    fn from_value(value: Option<&OsStr>) -> Planner {
        let off = value
            .and_then(OsStr::to_str)
            .map(str::trim)
            .is_some_and(|v| {
                ["off", "0", "false", "no"]
                    .iter()
                    .any(|o| v.eq_ignore_ascii_case(o))
            });
        if off { Planner::Off } else { Planner::On }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planner_switch_values() {
        let of = |v: Option<&str>| Planner::from_value(v.map(OsStr::new));
        assert_eq!(of(None), Planner::On);
        for off in ["off", "OFF", " off\n", "0", "false", "no"] {
            assert_eq!(of(Some(off)), Planner::Off, "{off:?}");
        }
        for on in ["", "on", "1", "true", "yes", "offf"] {
            assert_eq!(of(Some(on)), Planner::On, "{on:?}");
        }
    }
}
