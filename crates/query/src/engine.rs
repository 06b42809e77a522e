//! Running compiled jq programs with bounded output: results go to a
//! [`Sink`], which shows, counts or collects them.

use crate::answer::{Answer, AnswerNote, ResultCount};
use crate::data::{Globals, InputIter, QData};
use crate::errors::{QueryError, RuntimeError, shorten};
use crate::json_out::{Bounded, write_val};
use crate::natives;
use crate::program::Program;
use crate::request::Limits;
use jaq_core::{Ctx, Vars};
use jaq_json::Val;
use jaq_std::input::RcIter;
use std::time::Instant;

/// Run `program` on every input and format the bounded answer.
///
/// With `leak` set, the input values are not freed (a worker process that is
/// about to exit saves the time of dropping a huge tree).
pub(crate) fn run(
    program: &Program,
    inputs: InputIter<'_>,
    limits: &Limits,
    leak: bool,
) -> Result<Answer, QueryError> {
    reset();
    let mut out = Output::new(limits);
    drive(program, inputs, leak, &mut out);
    let (log, log_dropped) = natives::take_log();
    out.finish(&program.expression, &log, log_dropped)
}

/// Like [`run`], but `None` if any error occurred: the inputs were read
/// only in part (see [`crate::plan`]), and an error message could quote a
/// value that differs from the whole one. The caller then runs the query
/// on the whole input.
pub(crate) fn run_clean(
    program: &Program,
    inputs: InputIter<'_>,
    limits: &Limits,
) -> Option<Result<Answer, QueryError>> {
    reset();
    let mut out = Output::new(limits);
    drive(program, inputs, false, &mut out);
    finish_clean(out, &program.expression)
}

/// The answer collected in `out` by [`feed`] calls, or `None` as in
/// [`run_clean`].
pub(crate) fn finish_clean(out: Output, expression: &str) -> Option<Result<Answer, QueryError>> {
    let (log, log_dropped) = natives::take_log();
    if !out.errors.is_empty() || out.halted {
        return None;
    }
    Some(out.finish(expression, &log, log_dropped))
}

/// Forget the log and halt message of an earlier run on this thread; call
/// before a series of [`feed`] calls.
pub(crate) fn reset() {
    natives::take_halt_message();
    natives::take_log();
}

/// Run `program` on one input, adding to `sink`; `false` once the sink
/// wants no more (an error, a halt, or the count cap).
pub(crate) fn feed(program: &Program, input: Val, sink: &mut dyn Sink) -> bool {
    drive(program, Box::new(std::iter::once(Ok(input))), false, sink);
    !sink.done()
}

/// Where [`drive`] puts results and errors.
pub(crate) trait Sink {
    /// Take one result; `false` means: stop evaluating.
    fn value(&mut self, v: Val) -> bool;
    fn error(&mut self, message: String);
    /// The program called `halt` or `halt_error`.
    fn halt(&mut self);
    /// No more input is wanted.
    fn done(&self) -> bool;
}

/// What a collecting sink keeps of each result, for an answer that any
/// error or halt spoils (the query then runs on the whole documents).
pub(crate) trait Keeper {
    /// Keep one result; `false` when it cannot be kept exactly.
    fn keep(&mut self, v: Val) -> bool;
}

/// Every result, for a program whose results feed another one.
impl Keeper for Vec<Val> {
    fn keep(&mut self, v: Val) -> bool {
        self.push(v);
        true
    }
}

/// A [`Sink`] into a [`Keeper`], spoiled by an error, a halt or a result
/// it cannot keep.
pub(crate) struct Exact<K> {
    keeper: K,
    spoiled: bool,
}

impl<K> Exact<K> {
    pub(crate) fn new(keeper: K) -> Self {
        Exact {
            keeper,
            spoiled: false,
        }
    }

    /// What was kept, or `None` if the answer is spoiled.
    pub(crate) fn into_kept(self) -> Option<K> {
        (!self.spoiled).then_some(self.keeper)
    }
}

impl<K: Keeper> Sink for Exact<K> {
    fn value(&mut self, v: Val) -> bool {
        self.spoiled = !self.keeper.keep(v);
        !self.spoiled
    }
    fn error(&mut self, _: String) {
        self.spoiled = true;
    }
    fn halt(&mut self) {
        self.spoiled = true;
    }
    fn done(&self) -> bool {
        self.spoiled
    }
}

/// Run `program` on every input, like jq: an error ends the current input
/// and the next one starts; a halt ends everything.
fn drive(program: &Program, inputs: InputIter<'_>, leak: bool, sink: &mut dyn Sink) {
    let iter = RcIter::new(inputs);
    let shared: &RcIter<dyn Iterator<Item = Result<Val, String>> + '_> = &iter;
    let globals = Globals {
        lut: &program.filter.lut,
        inputs: shared,
    };
    'inputs: for input in shared {
        let value = match input {
            Ok(v) => v,
            Err(e) => {
                sink.error(e);
                break;
            }
        };
        if leak {
            // never free the input tree: the worker exits right after
            std::mem::forget(value.clone());
        }
        let ctx = Ctx::<QData>::new(globals.clone(), Vars::new([]));
        let results = program.filter.id.run((ctx, value));
        for r in results {
            match r {
                Ok(v) => {
                    if !sink.value(v) {
                        break 'inputs;
                    }
                }
                Err(exn) => match exn.get_err() {
                    Ok(e) => {
                        sink.error(error_text(e));
                        // like jq, go on with the next input
                        continue 'inputs;
                    }
                    Err(exn) => match exn.get_halt() {
                        Ok(code) => {
                            if let Some(msg) = natives::take_halt_message() {
                                sink.error(format!(
                                    "halt_error (exit code {code}): {}",
                                    shorten(msg.trim_end(), 200)
                                ));
                            }
                            sink.halt();
                            break 'inputs;
                        }
                        Err(_) => {
                            sink.error("internal error in the jq engine".into());
                            break 'inputs;
                        }
                    },
                },
            }
        }
    }
    if leak {
        std::mem::forget(iter);
    }
}

/// Text of a jq runtime error, cut short when it quotes a huge value.
fn error_text(e: jaq_core::Error<Val>) -> String {
    let v = e.into_val();
    let text = match &v {
        Val::TStr(b) | Val::BStr(b) => String::from_utf8_lossy(b).into_owned(),
        other => format!("{} (not a string)", crate::json_out::to_json(other)),
    };
    shorten(&text, 200)
}

/// Collects results up to the limits and counts the rest.
pub(crate) struct Output {
    limits: Limits,
    text: String,
    shown: usize,
    total: usize,
    all_null: bool,
    /// Output stopped because of the byte cap.
    bytes_full: bool,
    /// The first result alone was bigger than the byte cap: its full size.
    oversize: Option<usize>,
    /// When counting beyond the shown results started.
    counting_since: Option<Instant>,
    /// Counting stopped early: the total is a lower bound.
    count_capped: bool,
    errors: Vec<String>,
    /// `halt` or `halt_error` ended the run.
    halted: bool,
}

impl Sink for Output {
    fn value(&mut self, v: Val) -> bool {
        self.push(&v)
    }
    fn error(&mut self, message: String) {
        self.errors.push(message);
    }
    fn halt(&mut self) {
        self.halted = true;
    }
    fn done(&self) -> bool {
        self.halted || self.count_capped || !self.errors.is_empty()
    }
}

impl Output {
    pub(crate) fn new(limits: &Limits) -> Self {
        Self {
            limits: limits.clone(),
            text: String::new(),
            shown: 0,
            total: 0,
            all_null: true,
            bytes_full: false,
            oversize: None,
            counting_since: None,
            count_capped: false,
            errors: Vec::new(),
            halted: false,
        }
    }

    /// Take one result; `false` means: stop evaluating.
    fn push(&mut self, v: &Val) -> bool {
        self.total += 1;
        if !matches!(v, Val::Null) {
            self.all_null = false;
        }
        if self.shown < self.limits.max_results && !self.bytes_full {
            let sep = usize::from(self.shown > 0);
            let room = self
                .limits
                .max_output_bytes
                .saturating_sub(self.text.len() + sep);
            let mut line = String::new();
            let mut sink = Bounded::new(&mut line, room);
            write_val(v, &mut sink);
            if !sink.overflowed {
                if sep == 1 {
                    self.text.push('\n');
                }
                self.text.push_str(&line);
                self.shown += 1;
                return true;
            }
            self.bytes_full = true;
            if self.shown == 0 {
                // a single huge result: show its beginning
                self.oversize = Some(sink.total);
                self.text.push_str(&line);
                self.text.push('…');
                self.shown = 1;
            }
            return self.keep_counting();
        }
        self.keep_counting()
    }

    fn keep_counting(&mut self) -> bool {
        let since = *self.counting_since.get_or_insert_with(Instant::now);
        if self.total >= self.limits.max_counted_results
            || since.elapsed().as_millis() as u64 >= self.limits.count_time_budget_ms
        {
            self.count_capped = true;
            return false;
        }
        true
    }

    fn finish(self, expr: &str, log: &str, log_dropped: bool) -> Result<Answer, QueryError> {
        let log = log.trim_end();
        if self.total == 0
            && let Some((first, more)) = self.errors.split_first()
        {
            return Err(QueryError::Runtime(RuntimeError {
                message: first.clone(),
                more_errors: more.len(),
                log: log.to_string(),
            }));
        }
        let (results, shown) = if self.total == 0 || self.all_null {
            (String::new(), 0)
        } else {
            (self.text, self.shown)
        };
        let mut notes = Vec::new();
        let count = ResultCount {
            counted: self.total,
            at_least: self.count_capped,
        };
        if let Some(size) = self.oversize {
            notes.push(AnswerNote::FirstResultCut {
                result_bytes: size,
                shown_bytes: self.limits.max_output_bytes,
                results: count,
            });
        } else if self.shown < self.total && !self.all_null {
            notes.push(AnswerNote::Truncated {
                shown: self.shown,
                results: count,
                output_limit_bytes: self.bytes_full.then_some(self.limits.max_output_bytes),
                next_query: slice_hint(expr, self.shown),
            });
        }
        if let Some((first, more)) = self.errors.split_first() {
            notes.push(AnswerNote::ErrorAfterResults {
                results: self.total,
                error: first.clone(),
                more_errors: more.len(),
            });
        }
        if !log.is_empty() {
            notes.push(AnswerNote::Log {
                text: log.to_string(),
                dropped: log_dropped,
            });
        }
        Ok(Answer {
            results,
            shown,
            notes,
        })
    }
}

/// A ready-to-use way to see the next results of `expr`.
fn slice_hint(expr: &str, from: usize) -> String {
    let to = from + 100;
    let e = expr.trim();
    let simple_path = |p: &str| {
        p.starts_with('.')
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || "._[]\"-".contains(c))
    };
    if let Some(prefix) = e.strip_suffix("[]")
        && simple_path(prefix)
        && !prefix.contains("[]")
    {
        let prefix = if prefix == "." { "." } else { prefix };
        return format!("{prefix}[{from}:{to}][]");
    }
    if !e.contains('\n') && !e.contains('#') && e.chars().count() <= 120 {
        return format!("[{e}][{from}:{to}][]");
    }
    format!(".items[{from}:{to}]")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::tests::CORPUS;
    use crate::ast::{self, Mode};
    use crate::program::compile_exact;

    const DOC: &str = r#"{"a":{"b":2,"c":[1,2,3]},"items":[{"name":"apple","price":1.5,"tags":["x","y"]},{"name":"Banana","price":0.25,"tags":[]}],"msg":"Hello","k":"a"}"#;

    fn output(program: &str) -> String {
        let p = match compile_exact(program) {
            Ok(p) => p,
            Err(e) => return format!("ERR {}", e.kind()),
        };
        let inputs = crate::input::json_inputs(DOC.as_bytes()).unwrap();
        match run(&p, inputs, &Limits::default(), false) {
            Ok(t) => format!("{} ({} shown){:?}", t.results, t.shown, t.notes),
            Err(e) => format!("ERR {e}"),
        }
    }

    /// A printed program means what the original means (the rewrite and
    /// the streamed parts of a read plan are printed programs).
    #[test]
    fn printed_programs_run_like_the_originals() {
        for code in CORPUS {
            let term = ast::parse(code).expect("parses");
            let printed = ast::print(&term, Mode::PLAIN).expect("prints");
            assert_eq!(
                output(code),
                output(&printed),
                "{code}\n  printed as {printed}"
            );
        }
    }

    #[test]
    fn slice_hints() {
        assert_eq!(slice_hint(".items[]", 100), ".items[100:200][]");
        assert_eq!(slice_hint(".[]", 100), ".[100:200][]");
        assert_eq!(slice_hint(".a[] | .b", 100), "[.a[] | .b][100:200][]");
        assert_eq!(slice_hint("# c\n.a[]", 100), ".items[100:200]");
    }
}
