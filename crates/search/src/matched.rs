//! The opening every grep-searcher sink's `matched` shares: end the search when asked to, else
//! number the match's lines.

use grep_searcher::SinkMatch;

/// `None` (with `*stopped` set) when `should_stop` says the search must end; otherwise the
/// lines of `mat` with their 1-based line numbers.
pub(crate) fn numbered_lines<'b, F: FnMut() -> bool>(
    mat: &SinkMatch<'b>,
    stopped: &mut bool,
    should_stop: &mut F,
) -> Option<impl Iterator<Item = (u64, &'b [u8])> + use<'b, F>> {
    if should_stop() {
        *stopped = true;
        return None;
    }
    let first = mat.line_number().unwrap_or(0);
    Some(
        mat.lines()
            .enumerate()
            .map(move |(i, line)| (first + i as u64, line)),
    )
}
