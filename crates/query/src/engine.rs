//! Compiling jq programs with jaq and running them with bounded output.

use crate::errors::{QueryError, line_col, shorten};
use crate::json_out::{Bounded, write_val};
use crate::{Limits, natives, rewrite};
use jaq_core::compile::Undefined;
use jaq_core::data::HasLut;
use jaq_core::load::{self, Arena, File, Loader, lex, parse};
use jaq_core::{Compiler, Ctx, DataT, Vars};
use jaq_json::Val;
use jaq_std::input::{HasInputs, Inputs, RcIter};
use std::collections::BTreeMap;
use std::sync::OnceLock;
use std::time::Instant;

/// Our definitions, loaded after jaq's standard library.
const PRELUDE: &str = include_str!("prelude.jq");

/// jq 1.7 builtins (name, arity) that jaq does not provide and we could not
/// add; named in "undefined function" errors.
const JQ_ONLY: &[(&str, &str)] = &[
    ("input_line_number", "input line numbers are not tracked"),
    (
        "input_filename",
        "the file name is not available to the query",
    ),
    ("get_search_list", "modules are not supported"),
    ("get_prog_origin", "modules are not supported"),
    ("get_jq_origin", "modules are not supported"),
    ("modulemeta", "modules are not supported"),
    ("lgamma_r", "use `lgamma`"),
    ("isvalid", "use `try (f | true) catch false`"),
];

/// Value-type and global-data description for jaq: values are `jaq_json::Val`
/// and native filters can reach the rest of the inputs (`input`, `inputs`).
pub(crate) struct QData;

impl DataT for QData {
    type V<'a> = Val;
    type Data<'a> = Globals<'a>;
}

/// Global data of one run: the program and the shared input stream.
#[derive(Clone)]
pub(crate) struct Globals<'a> {
    lut: &'a jaq_core::Lut<QData>,
    inputs: Inputs<'a, Val>,
}

impl<'a> HasLut<'a, QData> for Globals<'a> {
    fn lut(&self) -> &'a jaq_core::Lut<QData> {
        self.lut
    }
}

impl<'a> HasInputs<'a, Val> for Globals<'a> {
    fn inputs(&self) -> Inputs<'a, Val> {
        self.inputs
    }
}

type Def = parse::Def<&'static str>;

/// jaq's definitions followed by ours, parsed once.
fn prelude_defs() -> &'static [Def] {
    static DEFS: OnceLock<Vec<Def>> = OnceLock::new();
    DEFS.get_or_init(|| {
        let ours = load::parse(PRELUDE, |p| p.defs()).expect("prelude.jq parses");
        jaq_core::defs()
            .chain(jaq_std::defs())
            .chain(jaq_json::defs())
            .chain(ours)
            .collect()
    })
}

/// Natives that must not be reachable from queries.
fn excluded_native(name: &str) -> bool {
    // `env` leaks the server's environment; the other two are replaced.
    matches!(name, "env" | "stderr_empty" | "debug_empty")
}

fn natives() -> impl Iterator<Item = jaq_core::native::Fun<QData>> {
    let inputs = jaq_std::input::funs::<QData>()
        .into_vec()
        .into_iter()
        .map(jaq_core::native::run::<QData>);
    jaq_core::funs::<QData>()
        .chain(jaq_std::funs::<QData>())
        .chain(inputs)
        .chain(jaq_json::funs::<QData>())
        .filter(|f| !excluded_native(f.0))
        .chain(natives::funs())
}

/// Every filter name with the arities it is defined for (for error hints).
pub(crate) fn known_filters() -> &'static BTreeMap<&'static str, Vec<usize>> {
    static KNOWN: OnceLock<BTreeMap<&'static str, Vec<usize>>> = OnceLock::new();
    KNOWN.get_or_init(|| {
        let mut m: BTreeMap<&'static str, Vec<usize>> = BTreeMap::new();
        let defs = prelude_defs().iter().map(|d| (d.name, d.args.len()));
        let funs = natives().map(|f| (f.0, f.1.len()));
        for (name, arity) in defs.chain(funs) {
            if name.starts_with('_') || name.starts_with('!') || name.ends_with("_empty") {
                continue;
            }
            let arities = m.entry(name).or_default();
            if !arities.contains(&arity) {
                arities.push(arity);
                arities.sort_unstable();
            }
        }
        m
    })
}

/// A compiled query.
pub(crate) struct Program {
    filter: jaq_core::Filter<QData>,
    /// The expression as the user wrote it (for hints).
    pub(crate) expression: String,
    /// How to read a JSON file for it without building all of it.
    pub(crate) plan: Option<Box<crate::plan::ReadPlan>>,
}

/// Compile a jq program, with its read plan; errors point into `code`.
pub(crate) fn compile(code: &str) -> Result<Program, QueryError> {
    let mut program = compile_unplanned(code)?;
    program.plan = crate::plan::ReadPlan::new(&program.expression).map(Box::new);
    Ok(program)
}

/// Compile a jq program without planning how to read its input (enough to
/// check it).
pub(crate) fn compile_unplanned(code: &str) -> Result<Program, QueryError> {
    // like jq, an empty program (or only comments) is the identity
    let blank = code
        .lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'));
    let code = if blank { "." } else { code };
    Ok(Program {
        filter: compile_with_rewrite(code)?,
        expression: code.to_string(),
        plan: None,
    })
}

/// Compile `code`, a part of the user's `expression` (hints quote the
/// whole expression).
pub(crate) fn compile_part(code: &str, expression: &str) -> Option<Program> {
    Some(Program {
        filter: compile_with_rewrite(code).ok()?,
        expression: expression.to_string(),
        plan: None,
    })
}

fn compile_with_rewrite(code: &str) -> Result<jaq_core::Filter<QData>, QueryError> {
    let filter = compile_code(code)?;
    // Compile the rewritten program for jq's update and interpolation
    // semantics; keep the original if the rewrite fails for any reason.
    Ok(match rewrite::rewrite(code) {
        Some(rw) => compile_code(&rw).unwrap_or(filter),
        None => filter,
    })
}

/// Compile exactly `code`, without the rewrite (for tests).
#[cfg(test)]
pub(crate) fn compile_exact(code: &str) -> Result<Program, QueryError> {
    Ok(Program {
        filter: compile_code(code)?,
        expression: code.to_string(),
        plan: None,
    })
}

fn compile_code(code: &str) -> Result<jaq_core::Filter<QData>, QueryError> {
    let arena = Arena::default();
    let loader = Loader::new(prelude_defs().iter().cloned());
    let modules = loader
        .load(&arena, File { code, path: () })
        .map_err(|errs| load_error(code, errs))?;
    Compiler::default()
        .with_funs(natives())
        .compile(modules)
        .map_err(|errs| compile_error(code, errs))
}

/// Byte offset of `part` in `whole`, if `part` points into it.
fn offset_in(whole: &str, part: &str) -> Option<usize> {
    let start = whole.as_ptr() as usize;
    let p = part.as_ptr() as usize;
    (p >= start && p <= start + whole.len()).then(|| p - start)
}

/// `line L, column C` plus the source line with a caret under the column.
fn locate(code: &str, offset: usize) -> (String, String) {
    let (line, col) = line_col(code.as_bytes(), offset);
    let at = format!("line {line}, column {col}");
    let text = code.lines().nth(line - 1).unwrap_or("");
    let snippet = if text.chars().count() <= 160 {
        format!("\n  {text}\n  {}^", " ".repeat(col.saturating_sub(1)))
    } else {
        String::new()
    };
    (at, snippet)
}

const SYNTAX_HINT: &str = "Check for unclosed brackets or quotes, a missing `|`, `;` or `end`, \
    and use double quotes for strings.";

fn load_error(code: &str, errs: load::Errors<&str, ()>) -> QueryError {
    // Errors in our own prelude cannot happen; report the user's.
    let Some((file, err)) = errs.into_iter().find(|(f, _)| f.code == code) else {
        return QueryError::Syntax("jq syntax error in the query".into());
    };
    let code = file.code;
    match err {
        load::Error::Lex(errs) => {
            let Some((expect, rest)) = errs.into_iter().next() else {
                return QueryError::Syntax("jq syntax error".into());
            };
            let offset = offset_in(code, rest).unwrap_or(code.len());
            let (what, hint, offset) = match expect {
                lex::Expect::Delim(open) => {
                    let open_at = offset_in(code, open).unwrap_or(offset);
                    let (at, _) = locate(code, open_at);
                    let close = match open {
                        "(" => ")",
                        "[" => "]",
                        "{" => "}",
                        _ => "\"",
                    };
                    (
                        format!("`{open}` opened at {at} is never closed (expected `{close}`)"),
                        format!("Add the missing `{close}`."),
                        offset,
                    )
                }
                lex::Expect::Token if rest.starts_with('\'') => (
                    "unexpected `'`".to_string(),
                    "jq strings use double quotes: \"text\", not 'text'.".to_string(),
                    offset,
                ),
                lex::Expect::Escape => (
                    "invalid escape sequence in string".to_string(),
                    "Valid escapes are \\\\ \\\" \\n \\t \\r \\b \\f \\/ \\uXXXX and \\(...)."
                        .to_string(),
                    offset,
                ),
                e => (
                    format!("expected {}, found {}", e.as_str(), found_text(rest)),
                    SYNTAX_HINT.to_string(),
                    offset,
                ),
            };
            let (at, snippet) = locate(code, offset);
            QueryError::Syntax(format!(
                "jq syntax error at {at}: {what}{snippet}\nHint: {hint}"
            ))
        }
        load::Error::Parse(errs) => {
            let Some((expect, found)) = errs.into_iter().next() else {
                return QueryError::Syntax("jq syntax error".into());
            };
            let offset = offset_in(code, found).unwrap_or(code.len());
            let (at, snippet) = locate(code, offset);
            let hint = match found {
                "=" => "Use `==` to compare; `=` assigns.",
                "" => "The query ends too early: something is not closed or finished.",
                _ if found.starts_with('\'') => "jq strings use double quotes.",
                _ => SYNTAX_HINT,
            };
            QueryError::Syntax(format!(
                "jq syntax error at {at}: expected {}, found {}{snippet}\nHint: {hint}",
                expect.as_str(),
                found_text(found),
            ))
        }
        load::Error::Io(errs) => {
            let what = errs
                .first()
                .map(|(p, e)| format!("{p}: {e}"))
                .unwrap_or_default();
            QueryError::Compile(format!(
                "jq error: modules (import/include) are not supported ({what})."
            ))
        }
    }
}

/// A found token for messages: `end of query` or the token, cut short.
fn found_text(found: &str) -> String {
    if found.is_empty() {
        return "end of query".into();
    }
    let first_line = found.lines().next().unwrap_or(found);
    format!("`{}`", shorten(first_line, 30))
}

fn compile_error(code: &str, errs: jaq_core::compile::Errors<&str, ()>) -> QueryError {
    let mut msgs = Vec::new();
    for (_file, errs) in errs {
        for (name, undef) in errs {
            let pos = offset_in(code, name).map(|o| locate(code, o).0);
            let at = pos.map(|p| format!(" at {p}")).unwrap_or_default();
            let msg = match undef {
                Undefined::Filter(arity) => undefined_filter(name, arity, &at),
                Undefined::Var => undefined_var(name, &at),
                Undefined::Label => format!("undefined label `{name}`{at}"),
                Undefined::Mod => format!("modules are not supported (`{name}`{at})"),
                _ => format!("undefined `{name}`{at}"),
            };
            if !msgs.contains(&msg) {
                msgs.push(msg);
            }
        }
    }
    msgs.truncate(3);
    QueryError::Compile(format!("jq error: {}.", msgs.join("; ")))
}

fn undefined_filter(name: &str, arity: usize, at: &str) -> String {
    let mut msg = format!("undefined function `{name}/{arity}`{at}");
    let known = known_filters();
    let sig = format!("{name}/{arity}");
    if name == "env" {
        msg.push_str(" (environment access is disabled in this server)");
    } else if let Some((_, why)) = JQ_ONLY.iter().find(|(n, _)| *n == name || *n == sig) {
        msg.push_str(&format!(
            " (`{name}` exists in jq 1.7 but not in this jq engine (jaq): {why})"
        ));
    } else if let Some(arities) = known.get(name) {
        let list: Vec<String> = arities.iter().map(|a| format!("{name}/{a}")).collect();
        msg.push_str(&format!(" (defined as {})", list.join(", ")));
    } else if let Some(s) = suggest(name, known.keys().copied()) {
        msg.push_str(&format!(" (did you mean `{s}`?)"));
    }
    msg
}

fn undefined_var(name: &str, at: &str) -> String {
    let mut msg = format!("undefined variable `{name}`{at}");
    match name {
        "$ENV" => msg.push_str(" (environment access is disabled in this server)"),
        "$__loc__" | "$__prog_args" => {
            msg.push_str(" (exists in jq 1.7 but not in this jq engine (jaq))")
        }
        _ => {}
    }
    msg
}

/// The closest known name within a small edit distance.
fn suggest<'a>(name: &str, known: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let max = if name.len() <= 4 { 1 } else { 2 };
    known
        .map(|k| (edit_distance(name, k), k))
        .filter(|(d, _)| *d <= max)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

// --- running ------------------------------------------------------------------

/// The input values of a run: parsed lazily, with parse errors as messages.
pub(crate) type InputIter<'a> = Box<dyn Iterator<Item = Result<Val, String>> + 'a>;

/// Run `program` on every input and format the bounded answer.
///
/// With `leak` set, the input values are not freed (a worker process that is
/// about to exit saves the time of dropping a huge tree).
pub(crate) fn run(
    program: &Program,
    inputs: InputIter<'_>,
    limits: &Limits,
    leak: bool,
) -> Result<String, QueryError> {
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
) -> Option<Result<String, QueryError>> {
    reset();
    let mut out = Output::new(limits);
    drive(program, inputs, false, &mut out);
    finish_clean(out, &program.expression)
}

/// The answer collected in `out` by [`feed`] calls, or `None` as in
/// [`run_clean`].
pub(crate) fn finish_clean(out: Output, expression: &str) -> Option<Result<String, QueryError>> {
    let (log, log_dropped) = natives::take_log();
    if !out.errors.is_empty() || out.halted {
        return None;
    }
    Some(out.finish(expression, &log, log_dropped))
}

/// All results of `program` on every input, or `None` if any error or halt
/// occurred.
pub(crate) fn collect(program: &Program, inputs: InputIter<'_>) -> Option<Vec<Val>> {
    reset();
    let mut all = Collected::default();
    drive(program, inputs, false, &mut all);
    all.into_values()
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

/// Every result, for a program whose results feed another one.
#[derive(Default)]
pub(crate) struct Collected {
    values: Vec<Val>,
    failed: bool,
}

impl Collected {
    /// The results, or `None` if an error or halt occurred.
    pub(crate) fn into_values(self) -> Option<Vec<Val>> {
        (!self.failed).then_some(self.values)
    }
}

impl Sink for Collected {
    fn value(&mut self, v: Val) -> bool {
        self.values.push(v);
        true
    }
    fn error(&mut self, _: String) {
        self.failed = true;
    }
    fn halt(&mut self) {
        self.failed = true;
    }
    fn done(&self) -> bool {
        self.failed
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

    fn finish(self, expr: &str, log: &str, log_dropped: bool) -> Result<String, QueryError> {
        if self.total == 0 && !self.errors.is_empty() {
            let mut msg = self.errors[0].clone();
            if self.errors.len() > 1 {
                msg.push_str(&format!(" (and {} more errors)", self.errors.len() - 1));
            }
            if !log.is_empty() {
                msg.push_str(&format!(
                    "\n--- debug/stderr output ---\n{}",
                    log.trim_end()
                ));
            }
            return Err(QueryError::Runtime(msg));
        }
        let mut s = if self.total == 0 || self.all_null {
            "No results found.".to_string()
        } else {
            self.text
        };
        let total = if self.count_capped {
            format!("at least {}", self.total)
        } else {
            self.total.to_string()
        };
        if let Some(size) = self.oversize {
            let count = if self.count_capped {
                format!("at least {} results", self.total)
            } else {
                plural(self.total, "result")
            };
            s.push_str(&format!(
                "\n\n--- Truncated. The first result is {} of JSON; showing its first {} \
                 ({count} in total). ---\nNarrow the query, e.g. `keys`, `.[0:5]` or `.items[0:5]`.",
                human_bytes(size),
                human_bytes(self.limits.max_output_bytes),
            ));
        } else if self.shown < self.total && !self.all_null {
            let why = if self.bytes_full {
                format!(
                    " (output limit of {})",
                    human_bytes(self.limits.max_output_bytes)
                )
            } else {
                String::new()
            };
            s.push_str(&format!(
                "\n\n--- Truncated{why}. Showing {} of {total} results. ---\n\
                 Refine your query or slice, e.g. {}",
                self.shown,
                slice_hint(expr, self.shown),
            ));
        }
        if !self.errors.is_empty() {
            s.push_str(&format!(
                "\n\n--- jq error after {}: {} ---",
                plural(self.total, "result"),
                self.errors[0]
            ));
            if self.errors.len() > 1 {
                s.push_str(&format!("\n({} more errors)", self.errors.len() - 1));
            }
        }
        if !log.is_empty() {
            s.push_str("\n\n--- debug/stderr output ---\n");
            s.push_str(log.trim_end());
            if log_dropped {
                s.push_str("\n(more output dropped)");
            }
        }
        Ok(s)
    }
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

fn human_bytes(n: usize) -> String {
    if n >= 1024 * 1024 {
        format!("{:.1} MB", n as f64 / (1024.0 * 1024.0))
    } else if n >= 1024 {
        format!("{} KB", n / 1024)
    } else {
        format!("{n} bytes")
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

    #[test]
    fn slice_hints() {
        assert_eq!(slice_hint(".items[]", 100), ".items[100:200][]");
        assert_eq!(slice_hint(".[]", 100), ".[100:200][]");
        assert_eq!(slice_hint(".a[] | .b", 100), "[.a[] | .b][100:200][]");
        assert_eq!(slice_hint("# c\n.a[]", 100), ".items[100:200]");
    }

    #[test]
    fn suggestions() {
        assert_eq!(
            suggest("lenght", ["length", "keys"].into_iter()),
            Some("length")
        );
        assert_eq!(suggest("zzzzzz", ["length", "keys"].into_iter()), None);
    }
}
