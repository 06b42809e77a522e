//! grep-searcher sinks: one that keeps matches with their context, one that only counts.

use grep_searcher::{Searcher, Sink, SinkContext, SinkMatch};

use crate::format::display_line;
use crate::matched::numbered_lines;

/// What the caller of a search needs to know of any sink afterwards.
pub(crate) trait Outcome: Sink<Error = std::io::Error> {
    /// The file turned out binary; nothing of it is used.
    fn binary(&self) -> bool;
    /// Counting stopped at the sink's budget: the total is a lower bound.
    fn capped(&self) -> bool;
}

impl<F: FnMut() -> bool> Outcome for CollectSink<F> {
    fn binary(&self) -> bool {
        self.binary
    }
    fn capped(&self) -> bool {
        self.count_capped
    }
}

impl<F: FnMut() -> bool> Outcome for CountSink<F> {
    fn binary(&self) -> bool {
        self.binary
    }
    fn capped(&self) -> bool {
        self.capped
    }
}

/// One line of a match block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrepLine {
    /// 1-based line number.
    pub number: u64,
    /// True for a matching line, false for a context line.
    pub is_match: bool,
    /// The line without its terminator, indentation kept, very long lines cut.
    pub text: String,
}

/// Keeps up to `limit` matching lines (and their context), then only counts.
pub(crate) struct CollectSink<F: FnMut() -> bool> {
    pub lines: Vec<GrepLine>,
    /// Matching lines kept.
    pub kept: u64,
    /// Matching lines seen (kept or not), up to `count_limit`.
    pub seen: u64,
    limit: u64,
    count_limit: u64,
    context: u64,
    last_kept_line: u64,
    pub binary: bool,
    pub stopped: bool,
    /// Counting stopped at `count_limit`: `seen` is a lower bound.
    pub count_capped: bool,
    should_stop: F,
}

impl<F: FnMut() -> bool> CollectSink<F> {
    pub fn new(limit: u64, count_limit: u64, context: u64, should_stop: F) -> Self {
        CollectSink {
            lines: Vec::new(),
            kept: 0,
            seen: 0,
            limit,
            count_limit,
            context,
            last_kept_line: 0,
            binary: false,
            stopped: false,
            count_capped: false,
            should_stop,
        }
    }
}

impl<F: FnMut() -> bool> Sink for CollectSink<F> {
    type Error = std::io::Error;

    fn matched(&mut self, _searcher: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        let Some(lines) = numbered_lines(mat, &mut self.stopped, &mut self.should_stop) else {
            return Ok(false);
        };
        for (number, raw) in lines {
            self.seen += 1;
            if self.kept < self.limit {
                self.kept += 1;
                self.last_kept_line = number;
                self.lines.push(GrepLine {
                    number,
                    is_match: true,
                    text: display_line(raw),
                });
            }
        }
        if self.seen >= self.count_limit {
            self.count_capped = true;
            return Ok(false);
        }
        Ok(true)
    }

    fn context(
        &mut self,
        _searcher: &Searcher,
        ctx: &SinkContext<'_>,
    ) -> Result<bool, Self::Error> {
        let Some(number) = ctx.line_number() else {
            return Ok(true);
        };
        // Before the limit every context line belongs to a kept match; after it, only the
        // after-context of the last kept match (up to the next match, which is not shown).
        let wanted = self.kept < self.limit
            || (self.seen == self.kept && number <= self.last_kept_line + self.context);
        if wanted {
            self.lines.push(GrepLine {
                number,
                is_match: false,
                text: display_line(ctx.bytes()),
            });
        }
        Ok(true)
    }

    fn binary_data(&mut self, _searcher: &Searcher, _offset: u64) -> Result<bool, Self::Error> {
        self.binary = true;
        Ok(false)
    }
}

impl<F: FnMut() -> bool> CollectSink<F> {
    /// Drops the before-context that was collected for a match that was then not kept.
    pub fn finish_lines(&mut self) {
        let last = self.last_kept_line;
        let context = self.context;
        if self.kept == 0 {
            self.lines.clear();
            return;
        }
        self.lines.retain(|l| l.number <= last + context);
        // After-context stops at the first match that was not kept.
        if let Some(cut) = self
            .lines
            .iter()
            .position(|l| l.is_match && l.number > last)
        {
            self.lines.truncate(cut);
        }
        // Lines must be in order and unique (the searcher guarantees it; be defensive).
        self.lines.dedup_by_key(|l| l.number);
    }
}

/// Counts matching lines up to a budget.
pub(crate) struct CountSink<F: FnMut() -> bool> {
    pub count: u64,
    budget: u64,
    pub binary: bool,
    pub stopped: bool,
    pub capped: bool,
    should_stop: F,
}

impl<F: FnMut() -> bool> CountSink<F> {
    pub fn new(budget: u64, should_stop: F) -> Self {
        CountSink {
            count: 0,
            budget,
            binary: false,
            stopped: false,
            capped: false,
            should_stop,
        }
    }
}

impl<F: FnMut() -> bool> Sink for CountSink<F> {
    type Error = std::io::Error;

    fn matched(&mut self, _searcher: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        let Some(lines) = numbered_lines(mat, &mut self.stopped, &mut self.should_stop) else {
            return Ok(false);
        };
        self.count += lines.count() as u64;
        if self.count >= self.budget {
            self.capped = true;
            return Ok(false);
        }
        Ok(true)
    }

    fn binary_data(&mut self, _searcher: &Searcher, _offset: u64) -> Result<bool, Self::Error> {
        self.binary = true;
        Ok(false)
    }
}
