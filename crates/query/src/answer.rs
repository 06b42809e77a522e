//! What a query that ran gives back, as data: the results shown and the notes after them.

use serde::{Deserialize, Serialize};

/// The answer of a query that ran (a query that failed before any result is a
/// [`QueryError`](crate::QueryError)).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    /// The results shown, one compact JSON value per line; empty when [`shown`](Self::shown)
    /// is 0.
    pub results: String,
    /// How many results are shown: 0 when the query yielded nothing or only `null`s (the
    /// caller says there are no results), 1 for a lone result.
    pub shown: usize,
    /// What follows the results (truncation with a slice to read on, a jq error after some
    /// results, `debug`/`stderr` output), each part starting with a blank line; empty when
    /// there is nothing to add.
    pub notes: String,
}

impl Answer {
    /// Whether the query yielded no result to show.
    pub fn is_empty(&self) -> bool {
        self.shown == 0
    }
}
