//! What a query that ran gives back, as data: the results shown and the notes after them (the
//! caller words the notes).

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
    /// What follows the results, in this order: what was cut and how to get the rest, a jq
    /// error after some results, `debug`/`stderr` output; empty when there is nothing to add.
    pub notes: Vec<AnswerNote>,
}

impl Answer {
    /// Whether the query yielded no result to show.
    pub fn is_empty(&self) -> bool {
        self.shown == 0
    }
}

/// A note after the results. Exhaustive: a new note does not compile until the caller words it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "note", rename_all = "snake_case")]
pub enum AnswerNote {
    /// The first result alone is larger than the output cap: only its beginning is shown.
    FirstResultCut {
        /// The first result's size as compact JSON, in bytes.
        result_bytes: usize,
        /// How much of it is shown (the output cap), in bytes.
        shown_bytes: usize,
        /// All results of the query.
        results: ResultCount,
    },
    /// More results than shown (the result cap or the output cap was reached).
    Truncated {
        /// Results shown.
        shown: usize,
        /// All results of the query.
        results: ResultCount,
        /// The output cap, in bytes, when it (not the result cap) stopped the results.
        output_limit_bytes: Option<usize>,
        /// A query for the next results: the query sliced past the shown ones
        /// (`.items[100:200][]` for `.items[]`).
        next_query: String,
    },
    /// The evaluation failed after some results (they are shown).
    ErrorAfterResults {
        /// Results before the error.
        results: usize,
        /// The first error, as jq states it.
        error: String,
        /// Errors after the first.
        more_errors: usize,
    },
    /// What `debug`/`stderr` printed.
    Log {
        /// The output, trimmed at its end.
        text: String,
        /// Output past the log's cap was dropped.
        dropped: bool,
    },
}

/// How many results a query gave: counting stops at a bound (a count or a time), and then the
/// query gave at least [`counted`](Self::counted).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultCount {
    /// Results counted.
    pub counted: usize,
    /// Counting stopped at its bound: there may be more.
    pub at_least: bool,
}
