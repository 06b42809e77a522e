//! Reading a JSON file for a query without building all of it.
//!
//! A query over a 100 MB file usually looks at a few fields of each item.
//! Building jaq's value tree for the whole file costs about 18× the file
//! size in memory, so the query is analysed first ([`crate::demand`]): the
//! reader then builds only the parts the query can observe
//! ([`crate::projected`]), and programs shaped like `.items[] | F` run on
//! one element at a time ([`crate::shape`]). Whenever the shortcut cannot
//! promise the same answer (a runtime error, a halt, a file the fast reader
//! does not accept), the query runs again on the whole document.

use crate::answer::Answer;
use crate::engine::{self, Exact, Keeper, Output, Sink};
use crate::errors::QueryError;
use crate::fast::{self, Each};
use crate::need::Need;
use crate::program::{self, Program};
use crate::projected::{ElementSource, Judge};
use crate::projected_yaml::StreamTarget;
use crate::request::Limits;
use crate::{ast, demand, input, projected, shape};
use jaq_json::{Rc, Val};
use std::cell::RefCell;

/// How to read the input of one compiled query.
pub(crate) struct ReadPlan {
    /// What the whole program observes of each document.
    need: Need,
    stream: Option<Stream>,
}

/// A program split to run on the elements of one array.
struct Stream {
    path: Vec<Vec<u8>>,
    /// What `each` observes of one element (`None`: nothing at all, as in
    /// `.items | length`).
    element: Option<Need>,
    each: Rc<Program>,
    /// `each` run natively, when it is that simple.
    fast: Option<Rc<Each>>,
    then: Option<Program>,
    /// `then` when it only looks at a few elements at one end of a sort of
    /// the array.
    window: Option<Rc<Window>>,
    /// `then` when it only observes a sort of the array through a `map`.
    sort_map: Option<Rc<SortMap>>,
}

/// `sort_by(K)` (or `sort`) at the start of the program run on the streamed
/// array, then an optional `reverse`, then one index or slice with integer
/// literals (`.[0]`, `.[-1]`, `first`, `last`, `.[1000:1003]`, `.[-10:]`,
/// `.[:5]`), possibly followed by more of a path (`.[0].id`), or
/// `first(.[])` or `limit(N; .[])`; or `min_by(K)`/`max_by(K)` (`min`/`max`),
/// which are the sort's first and last element. `K` must run natively. The
/// index or slice observes a bounded run of elements at one end of the
/// stable sort, so the stream keeps at most that many elements (the least
/// keys, the first of equal ones first; or the greatest) instead of every
/// element of the array.
struct Window {
    key: Each,
    reversed: bool,
    take: Take,
    /// Which end of the sort is kept, and how many elements.
    keep: Keep,
    /// The rest of the program, run on what the index or slice gives.
    rest: Program,
}

/// An index or a slice with optional bounds, as written (negative counts
/// from the end).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Take {
    Index(i64),
    Slice(Option<i64>, Option<i64>),
}

/// What a [`Take`] observes of an array of a given length.
enum Observed {
    /// One position (`None`: out of range, which gives `null`).
    Index(Option<usize>),
    /// A run of positions (an empty one gives `[]`).
    Slice(std::ops::Range<usize>),
}

/// The elements of the sort kept: the `count` first or the `count` last.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Keep {
    last: bool,
    count: usize,
}

/// The most elements a [`Window`] keeps; a larger window sorts the whole
/// array as before.
const MOST_KEPT: usize = 10_000;

impl Take {
    /// The elements of an array that `self` can observe, at one end,
    /// whatever the array's length (`None`: no bounded run does).
    fn keep(self) -> Option<Keep> {
        let (last, count) = match self {
            Take::Index(i) if i >= 0 => (false, i.checked_add(1)?),
            Take::Index(i) => (true, i.checked_neg()?),
            // every observed position is before `b`
            Take::Slice(_, Some(b)) if b >= 0 => (false, b),
            // every observed position is at most `-a` from the end
            Take::Slice(Some(a), _) if a < 0 => (true, a.checked_neg()?),
            Take::Slice(..) => return None,
        };
        let count = usize::try_from(count).ok()?;
        (count <= MOST_KEPT).then_some(Keep { last, count })
    }

    /// The positions observed in an array of `len` elements, as jq resolves
    /// them.
    fn positions(self, len: usize) -> Observed {
        let count = i64::try_from(len).unwrap_or(i64::MAX);
        let at = |i: i64| if i < 0 { i.saturating_add(count) } else { i };
        // jq clamps slice bounds into the array
        let clamp = |i: i64| usize::try_from(at(i).clamp(0, count)).unwrap_or(0);
        match self {
            Take::Index(i) => Observed::Index(usize::try_from(at(i)).ok().filter(|&p| p < len)),
            Take::Slice(a, b) => {
                let start = a.map_or(0, clamp);
                let end = b.map_or(len, clamp).max(start);
                Observed::Slice(start..end)
            }
        }
    }
}

impl Window {
    fn new(then: &str, code: &str) -> Option<Window> {
        use jaq_core::load::parse::Term;
        let term = ast::parse(then)?;
        let chain = ast::pipe_chain(&term);
        let (key, reversed, take, lead, rest) = match chain.split_first()? {
            // jaq's `min_by` keeps the first of equal least keys, `max_by` the last of equal
            // greatest: the stable sort's first and last element (`null` for no element).
            (Term::Call(name @ ("min_by" | "max_by"), args), rest) => match &args[..] {
                [key] => (
                    ast::print(key, ast::Mode::PLAIN)?,
                    false,
                    Take::Index(if *name == "min_by" { 0 } else { -1 }),
                    None,
                    rest,
                ),
                _ => return None,
            },
            (Term::Call(name @ ("min" | "max"), args), rest) if args.is_empty() => (
                ".".to_string(),
                false,
                Take::Index(if *name == "min" { 0 } else { -1 }),
                None,
                rest,
            ),
            _ => {
                let (key, reversed, chain) = sort_head(&chain)?;
                let (take, lead, rest) = take_head(chain)?;
                (key, reversed, take, lead, rest)
            }
        };
        // a reversed array's end is the sort's start, and the other way round
        let keep = take.keep().map(|k| Keep {
            last: k.last != reversed,
            ..k
        })?;
        let rest = match lead {
            Some(lead) => format!("({lead}) | {}", print_chain(rest)?),
            None => print_chain(rest)?,
        };
        Some(Window {
            key: Each::new(&key)?,
            reversed,
            take,
            keep,
            rest: program::compile_part(&rest, code)?,
        })
    }
}

/// The index or slice at the start of `chain` (after a sort), what of the
/// chain's first term runs on what it takes (`.id` of `.[0].id`, `.[]` of
/// `first(.[])`), and the rest of the chain.
#[allow(clippy::type_complexity)]
fn take_head<'t, 's>(
    chain: &'t [&'t jaq_core::load::parse::Term<&'s str>],
) -> Option<(
    Take,
    Option<String>,
    &'t [&'t jaq_core::load::parse::Term<&'s str>],
)> {
    use jaq_core::load::parse::Term;
    use jaq_core::path::{Part, Path};
    let literal = |t: &Term<&str>| -> Option<i64> {
        match t {
            Term::Num(n) if n.bytes().all(|b| b.is_ascii_digit()) => n.parse().ok(),
            Term::Neg(n) => match &**n {
                Term::Num(n) if n.bytes().all(|b| b.is_ascii_digit()) => {
                    n.parse::<i64>().ok()?.checked_neg()
                }
                _ => None,
            },
            _ => None,
        }
    };
    // `.[]`, which `first(f)` and `limit(n; f)` take the first outputs of
    let each = |t: &Term<&str>| {
        matches!(t, Term::Path(head, path) if matches!(**head, Term::Id)
            && matches!(&path.0[..], [(Part::Range(None, None), _)]))
    };
    let each_lead = Some(".[]".to_string());
    Some(match chain.split_first()? {
        (Term::Call("first", args), rest) if args.is_empty() => (Take::Index(0), None, rest),
        (Term::Call("last", args), rest) if args.is_empty() => (Take::Index(-1), None, rest),
        // the first output of `.[]`: none for no element, unlike `.[0]`
        (Term::Call("first", args), rest) => match &args[..] {
            [f] if each(f) => (Take::Slice(None, Some(1)), each_lead, rest),
            _ => return None,
        },
        (Term::Call("limit", args), rest) => match &args[..] {
            [n, f] if each(f) => {
                // a negative count gives every output (the prelude's `limit`)
                let n = literal(n).filter(|n| *n >= 0)?;
                (Take::Slice(None, Some(n)), each_lead, rest)
            }
            _ => return None,
        },
        (Term::Path(head, path), rest) if matches!(**head, Term::Id) => {
            let (first, more) = path.0.split_first()?;
            let take = match first {
                (Part::Index(at), _) => Take::Index(literal(at)?),
                (Part::Range(a, b), _) => {
                    let bound = |b: &Option<Term<&str>>| match b {
                        None => Some(None),
                        Some(t) => literal(t).map(Some),
                    };
                    Take::Slice(bound(a)?, bound(b)?)
                }
            };
            // `.[0].id` is `.[0] | .id`
            let lead = match more {
                [] => None,
                more => Some(ast::print(
                    &Term::Path(Box::new(Term::Id), Path(more.to_vec())),
                    ast::Mode::PLAIN,
                )?),
            };
            (take, lead, rest)
        }
        _ => return None,
    })
}

/// The key of a `sort_by(K)` (`.` for `sort`) at the start of `chain`,
/// whether a `reverse` follows it, and the rest of the chain.
fn sort_head<'t, 's>(
    chain: &'t [&'t jaq_core::load::parse::Term<&'s str>],
) -> Option<(String, bool, &'t [&'t jaq_core::load::parse::Term<&'s str>])> {
    use jaq_core::load::parse::Term;
    let (key, chain) = match chain.split_first()? {
        (Term::Call("sort_by", args), rest) => match &args[..] {
            [key] => (ast::print(key, ast::Mode::PLAIN)?, rest),
            _ => return None,
        },
        (Term::Call("sort", args), rest) if args.is_empty() => (".".to_string(), rest),
        _ => return None,
    };
    match chain.split_first() {
        Some((Term::Call("reverse", args), rest)) if args.is_empty() => Some((key, true, rest)),
        _ => Some((key, false, chain)),
    }
}

/// The terms of a pipe chain as one program (`.` for none).
fn print_chain(chain: &[&jaq_core::load::parse::Term<&str>]) -> Option<String> {
    if chain.is_empty() {
        return Some(".".to_string());
    }
    Some(
        chain
            .iter()
            .map(|t| ast::print(t, ast::Mode::PLAIN).map(|p| format!("({p})")))
            .collect::<Option<Vec<_>>>()?
            .join(" | "),
    )
}

/// `sort_by(K) | map(F)` (or `sort`, with an optional `reverse` between)
/// at the start of the program run on the streamed array, with `K` and `F`
/// that run natively: the sorted array is only observed through `F`, so the
/// stream keeps each element's key and `F`'s result (`.id` of an item, not
/// the item), and sorts those.
struct SortMap {
    key: Each,
    reversed: bool,
    map: Each,
    /// The rest of the program, run on the array of `F`'s results.
    rest: Program,
}

impl SortMap {
    fn new(then: &str, code: &str) -> Option<SortMap> {
        use jaq_core::load::parse::Term;
        let term = ast::parse(then)?;
        let chain = ast::pipe_chain(&term);
        let (key, reversed, chain) = sort_head(&chain)?;
        let (Term::Call("map", args), rest) = chain.split_first()? else {
            return None;
        };
        let [map] = &args[..] else { return None };
        Some(SortMap {
            key: Each::new(&key)?,
            reversed,
            map: Each::new(&ast::print(map, ast::Mode::PLAIN)?)?,
            rest: program::compile_part(&print_chain(rest)?, code)?,
        })
    }
}

/// What a [`SortMap`] keeps, fed the elements of the array in order: each
/// element's key and what `F` gave for it.
struct SortMapped {
    sort: Rc<SortMap>,
    kept: Vec<(Option<Val>, Option<Val>)>,
}

impl SortMapped {
    fn new(sort: Rc<SortMap>) -> Self {
        SortMapped {
            sort,
            kept: Vec::new(),
        }
    }

    /// The array `sort_by(K) | map(F)` gives.
    fn into_value(self) -> Val {
        let mut kept = self.kept;
        // stable: equal keys keep the array's order
        kept.sort_by(|a, b| a.0.cmp(&b.0));
        let mapped = |(_, f): (Option<Val>, Option<Val>)| f;
        let values: Vec<Val> = match self.sort.reversed {
            false => kept.into_iter().filter_map(mapped).collect(),
            true => kept.into_iter().rev().filter_map(mapped).collect(),
        };
        Val::Arr(Rc::new(values))
    }
}

/// Not kept when a key or `F` cannot be computed natively.
impl Keeper for SortMapped {
    fn keep(&mut self, v: Val) -> bool {
        // `map(F)` leaves out an element `F` gives nothing for (`None`)
        let (Some(key), Some(mapped)) = (
            run_native(&self.sort.key, v.clone()),
            run_native(&self.sort.map, v),
        ) else {
            return false;
        };
        self.kept.push((key, mapped));
        true
    }
}

/// One element kept by a [`Windowed`] sink, ordered as the stable sort
/// orders it: by key (no key at all sorts first, as jq's empty list of
/// outputs), then by position in the array.
struct Kept {
    key: Option<Val>,
    position: usize,
    value: Val,
}

impl PartialEq for Kept {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}
impl Eq for Kept {}
impl PartialOrd for Kept {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Kept {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (&self.key, self.position).cmp(&(&other.key, other.position))
    }
}

/// The elements a [`Window`] keeps, fed the elements of the array in order:
/// a heap whose top is the element to drop next.
struct Windowed {
    window: Rc<Window>,
    /// For the first elements of the sort, the greatest kept is on top; for
    /// the last, the least (wrapped in `Reverse`).
    first: std::collections::BinaryHeap<Kept>,
    last: std::collections::BinaryHeap<std::cmp::Reverse<Kept>>,
    seen: usize,
}

impl Windowed {
    fn new(window: Rc<Window>) -> Self {
        Windowed {
            window,
            first: Default::default(),
            last: Default::default(),
            seen: 0,
        }
    }

    /// What the index or slice gives (`None`: a position it observes was
    /// not kept, which `Take::keep` rules out).
    fn into_value(self) -> Option<Val> {
        let Windowed {
            window,
            first,
            last,
            seen: len,
            ..
        } = self;
        // the kept run of the sorted array, and where it starts in it
        let (kept, offset): (Vec<Val>, usize) = match window.keep.last {
            false => (
                first
                    .into_sorted_vec()
                    .into_iter()
                    .map(|k| k.value)
                    .collect(),
                0,
            ),
            true => {
                let mut run: Vec<Kept> = last.into_iter().map(|r| r.0).collect();
                run.sort();
                let offset = len - run.len();
                (run.into_iter().map(|k| k.value).collect(), offset)
            }
        };
        // a position of the array the program sees (reversed or not) in the sort
        let in_sort = |p: usize| match window.reversed {
            false => p,
            true => len - 1 - p,
        };
        let at = |p: usize| {
            let kept = in_sort(p).checked_sub(offset).and_then(|i| kept.get(i));
            // `Take::keep` covers every position observed; should it not,
            // the whole sort answers instead
            debug_assert!(kept.is_some(), "position {p} of {len} is kept");
            kept.cloned()
        };
        match window.take.positions(len) {
            Observed::Index(None) => Some(Val::Null),
            Observed::Index(Some(p)) => at(p),
            Observed::Slice(range) => {
                let values = range.map(at).collect::<Option<Vec<Val>>>()?;
                Some(Val::Arr(Rc::new(values)))
            }
        }
    }
}

/// Not kept when the key cannot be computed natively.
impl Keeper for Windowed {
    fn keep(&mut self, v: Val) -> bool {
        let Some(key) = run_native(&self.window.key, v.clone()) else {
            return false;
        };
        let kept = Kept {
            key,
            position: self.seen,
            value: v,
        };
        self.seen += 1;
        let count = self.window.keep.count;
        if self.window.keep.last {
            // a later element wins a tie: it sorts after the kept one
            self.last.push(std::cmp::Reverse(kept));
            if self.last.len() > count {
                self.last.pop();
            }
        } else {
            self.first.push(kept);
            if self.first.len() > count {
                self.first.pop();
            }
        }
        true
    }
}

/// What a native filter gives for one element: its one result, or `None`
/// when it gives nothing (a sort key of no outputs, a `select` that drops);
/// `None` when only jaq can tell.
fn run_native(each: &Each, v: Val) -> Option<Option<Val>> {
    match each.run(v) {
        fast::Outcome::One(x) => Some(Some(x)),
        fast::Outcome::Nothing => Some(None),
        fast::Outcome::Unsure => None,
    }
}

impl ReadPlan {
    /// The plan for `code`, or `None` when the query may observe whole
    /// documents.
    pub(crate) fn new(code: &str) -> Option<ReadPlan> {
        let term = ast::parse(code)?;
        let need = demand::analyze(&term)?;
        // `$__loc__` reports line numbers, which differ in the split program
        let stream = match code.contains("$__loc__") {
            true => None,
            false => shape::shape(&term).and_then(|s| {
                let element = element_need(&need, &s.path);
                Some(Stream {
                    each: Rc::new(program::compile_part(&s.each, code)?),
                    fast: Each::new(&s.each).map(Rc::new),
                    then: match &s.then {
                        Some(g) => Some(program::compile_part(g, code)?),
                        None => None,
                    },
                    window: s
                        .then
                        .as_deref()
                        .and_then(|g| Window::new(g, code))
                        .map(Rc::new),
                    sort_map: s
                        .then
                        .as_deref()
                        .and_then(|g| SortMap::new(g, code))
                        .map(Rc::new),
                    path: s.path,
                    element,
                })
            }),
        };
        Some(ReadPlan { need, stream })
    }

    /// Whether the plan streams an array (for tests of the planner's reach).
    #[cfg(test)]
    pub(crate) fn streams(&self) -> bool {
        self.stream.is_some()
    }

    /// Whether the program keeps a bounded window of a sort of the streamed
    /// array.
    #[cfg(test)]
    pub(crate) fn keeps_a_window(&self) -> bool {
        self.stream.as_ref().is_some_and(|s| s.window.is_some())
    }

    /// Whether the program sorts only what a `map` gives of the elements of
    /// the streamed array.
    #[cfg(test)]
    pub(crate) fn sorts_mapped(&self) -> bool {
        self.stream.as_ref().is_some_and(|s| s.sort_map.is_some())
    }

    /// Whether the streamed per-element filter runs natively.
    #[cfg(test)]
    pub(crate) fn runs_natively(&self) -> bool {
        self.stream.as_ref().is_some_and(|s| s.fast.is_some())
    }

    /// The same plan with every element run by jaq (the reader before the
    /// native filters), to compare the two.
    #[cfg(test)]
    pub(crate) fn without_native(mut self) -> ReadPlan {
        if let Some(s) = &mut self.stream {
            s.fast = None;
            s.window = None;
            s.sort_map = None;
        }
        self
    }
}

/// What the program observes of the elements of the array at `path`;
/// `None` when it never looks at one (not even at its kind).
fn element_need(root: &Need, path: &[Vec<u8>]) -> Option<Need> {
    let mut node = Some(root);
    for key in path {
        node = node.and_then(|n| if n.is_full() { Some(n) } else { n.key(key) });
    }
    match node {
        Some(n) if n.is_full() => Some(n.clone()),
        Some(n) => n.each.as_deref().cloned(),
        None => None,
    }
}

/// Run `program` on a JSON file body along its `plan`. `None`: the plan
/// does not apply (or could not promise the exact answer); run it on the
/// whole documents instead.
pub(crate) fn run_json(
    plan: &ReadPlan,
    program: &Program,
    body: &[u8],
    limits: &Limits,
) -> Option<Result<Answer, QueryError>> {
    if let Some(stream) = &plan.stream
        && let Some(result) = run_stream(stream, body, limits)
    {
        return Some(result);
    }
    let docs = projected::read_all(body, &plan.need).ok()?;
    engine::run_clean(program, Box::new(docs.into_iter().map(Ok)), limits)
}

/// Run `program` on a YAML file along its plan (only the observed parts are
/// built, and `.items[]`-shaped programs stream). `None` as for
/// [`run_json`].
pub(crate) fn run_yaml(
    plan: &ReadPlan,
    program: &Program,
    bytes: &[u8],
    limits: &Limits,
) -> Option<Result<Answer, QueryError>> {
    if let Some(stream) = &plan.stream
        && let Some(result) = run_yaml_stream(stream, bytes, limits)
    {
        return Some(result);
    }
    let docs = input::yaml_projected(bytes, &plan.need)?;
    engine::run_clean(program, Box::new(docs.into_iter().map(Ok)), limits)
}

/// Stream the array of a YAML file through `each`, feeding the results to
/// `sink`; the sink back if the stream was exact.
fn feed_yaml<S: Sink + 'static>(
    s: &Stream,
    parse: impl FnOnce(StreamTarget) -> Option<()>,
    sink: S,
) -> Option<S> {
    let sink = Rc::new(RefCell::new(sink));
    let (native, into) = (s.fast.clone(), sink.clone());
    let each = s.each.clone();
    let target = StreamTarget {
        path: s.path.clone(),
        element: s.element.clone(),
        feed: Box::new(move |v| feed_one(&each, native.as_deref(), v, &mut *into.borrow_mut())),
    };
    engine::reset();
    parse(target)?;
    Rc::into_inner(sink).map(RefCell::into_inner)
}

fn run_yaml_stream(
    s: &Stream,
    bytes: &[u8],
    limits: &Limits,
) -> Option<Result<Answer, QueryError>> {
    run_yaml_parse(s, |target| input::yaml_stream(bytes, target), limits)
}

/// Run `program` on a YAML file read from `reader` along its plan, without
/// holding the file: only plans that stream an array, and files of one
/// document. `None` as for [`run_yaml`] (the caller then reads the file
/// whole).
pub(crate) fn run_yaml_reader(
    plan: &ReadPlan,
    reader: &mut dyn std::io::Read,
    limits: &Limits,
) -> Option<Result<Answer, QueryError>> {
    let s = plan.stream.as_ref()?;
    run_yaml_parse(s, |target| input::yaml_stream_read(reader, target), limits)
}

fn run_yaml_parse(
    s: &Stream,
    parse: impl FnOnce(StreamTarget) -> Option<()>,
    limits: &Limits,
) -> Option<Result<Answer, QueryError>> {
    if let Some(window) = &s.window {
        let taken = feed_yaml(s, parse, Exact::new(Windowed::new(window.clone())))?
            .into_kept()?
            .into_value()?;
        return engine::run_clean(&window.rest, Box::new(std::iter::once(Ok(taken))), limits);
    }
    if let Some(sort) = &s.sort_map {
        let sorted = feed_yaml(s, parse, Exact::new(SortMapped::new(sort.clone())))?
            .into_kept()?
            .into_value();
        return engine::run_clean(&sort.rest, Box::new(std::iter::once(Ok(sorted))), limits);
    }
    match &s.then {
        None => {
            let out = feed_yaml(s, parse, Output::new(limits))?;
            engine::finish_clean(out, &s.each.expression)
        }
        Some(then) => {
            let results = feed_yaml(s, parse, Exact::new(Vec::new()))?.into_kept()?;
            let array = Val::Arr(Rc::new(results));
            engine::run_clean(then, Box::new(std::iter::once(Ok(array))), limits)
        }
    }
}

fn run_stream(s: &Stream, body: &[u8], limits: &Limits) -> Option<Result<Answer, QueryError>> {
    let elements = projected::Elements::new(body, &s.path, s.element.as_ref());
    run_elements(s, elements, limits)
}

/// Run `program` on a JSON file read from `reader` along its plan, a window
/// at a time, so that the file is never held whole: only plans that stream
/// an array. `None` as for [`run_json`] (the caller then reads the file
/// whole); `window` is the least read at once.
pub(crate) fn run_json_reader(
    plan: &ReadPlan,
    reader: &mut (dyn std::io::Read + Send),
    limits: &Limits,
    window: usize,
) -> Option<Result<Answer, QueryError>> {
    let s = plan.stream.as_ref()?;
    // the next window is read while this one is parsed
    crate::ahead::read_ahead(reader, window, |windows| {
        let elements = projected::ReadElements::new(windows, &s.path, s.element.as_ref());
        run_elements(s, elements, limits)
    })
}

fn run_elements<E: ElementSource>(
    s: &Stream,
    elements: E,
    limits: &Limits,
) -> Option<Result<Answer, QueryError>> {
    if let Some(window) = &s.window {
        let taken = feed_json(s, elements, Exact::new(Windowed::new(window.clone())))?
            .into_kept()?
            .into_value()?;
        return engine::run_clean(&window.rest, Box::new(std::iter::once(Ok(taken))), limits);
    }
    if let Some(sort) = &s.sort_map {
        let sorted = feed_json(s, elements, Exact::new(SortMapped::new(sort.clone())))?
            .into_kept()?
            .into_value();
        return engine::run_clean(&sort.rest, Box::new(std::iter::once(Ok(sorted))), limits);
    }
    match &s.then {
        None => {
            let out = feed_json(s, elements, Output::new(limits))?;
            engine::finish_clean(out, &s.each.expression)
        }
        Some(then) => {
            let results = feed_json(s, elements, Exact::new(Vec::new()))?.into_kept()?;
            let array = Val::Arr(Rc::new(results));
            engine::run_clean(then, Box::new(std::iter::once(Ok(array))), limits)
        }
    }
}

/// Run `each` on one element into `sink`, natively when it is simple enough
/// (`native`); `false` once the sink wants no more.
fn feed_one(each: &Program, native: Option<&Each>, v: Val, sink: &mut dyn Sink) -> bool {
    if let Some(native) = native {
        match native.run(v.clone()) {
            fast::Outcome::One(x) => return sink.value(x) && !sink.done(),
            fast::Outcome::Nothing => return !sink.done(),
            fast::Outcome::Unsure => {}
        }
    }
    engine::feed(each, v, sink)
}

/// Stream the elements of a JSON array through `each`, feeding the results
/// to `sink`; the sink back if the stream was exact. Elements that the
/// leading `select`s of a native `each` drop are judged on a smaller
/// projection and never built further.
fn feed_json<S: Sink, E: ElementSource>(s: &Stream, mut elements: E, mut sink: S) -> Option<S> {
    engine::reset();
    let native = s.fast.as_deref();
    // judge the leading selects first, when that reads less than an element
    let judge = native
        .filter(|f| f.keys().is_some() || f.need().is_some())
        .map(|f| f as &dyn Judge);
    loop {
        let next = elements.next_judged(judge).ok()?;
        let Some(v) = next else { break };
        if !feed_one(&s.each, native, v, &mut sink) {
            break;
        }
    }
    elements.finish().ok()?;
    Some(sink)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(code: &str) -> ReadPlan {
        ReadPlan::new(code).unwrap_or_else(|| panic!("{code} is planned"))
    }

    #[test]
    fn streams_the_typical_shapes() {
        for code in [
            ".items[] | select(.score > 5) | .id",
            ".items | map(select(.group == \"g1\")) | length",
            "[.items[] | .score] | add",
        ] {
            assert!(plan(code).stream.is_some(), "{code} streams");
        }
        // read from the file a window at a time, with the body's answer
        let doc = r#"{"meta": 1, "items": [{"id": 1, "score": 9, "group": "a"}, {"id": 2, "score": 4, "group": "a"}]}"#;
        for code in [
            ".items | length",
            ".items | group_by(.group) | map(length)",
            ".items | sort_by(.score) | .[-1] | {id, score}",
            "[.items[] | select(.score > 5) | {id}] | length",
        ] {
            let plan = plan(code);
            let program = program::compile(code).expect("compiles");
            let body = run_json(&plan, &program, doc.as_bytes(), &Limits::default());
            let mut reader = doc.as_bytes();
            let read = run_json_reader(&plan, &mut reader, &Limits::default(), 7);
            assert!(read.is_some(), "{code}");
            assert_eq!(read, body, "{code}");
        }
        assert!(plan(".items").stream.is_none());
        // the whole array is handed on, built from the streamed elements
        let count = plan(".items | length").stream.expect("streams");
        assert!(count.element.is_none(), "length never looks at an element");
    }

    /// The bench's per-element filters run natively (and the selects judge
    /// a smaller projection first).
    #[test]
    fn simple_filters_run_natively() {
        for (code, probes) in [
            (
                ".items[] | select(.active and .score > 997) | {id, name}",
                true,
            ),
            (
                "[.items[] | select(.score > 990) | {id, name}] | length",
                true,
            ),
            ("[.items[] | .owner.name] | unique | length", false),
            (".items | map(select(.group == \"g07\")) | length", true),
        ] {
            let stream = plan(code).stream.expect("streams");
            let fast = stream.fast.as_ref().expect("native");
            assert_eq!(fast.keys().is_some(), probes, "{code}");
        }
    }

    /// Items with equal keys, missing keys and `null` keys, and an empty
    /// array, for the sort shortcuts.
    const SORTABLE: &str = r#"{"items": [{"id": 1, "s": 2}, {"id": 2, "s": 9}, {"id": 3, "s": 2},
            {"id": 4, "s": 9}, {"id": 5}, {"id": 6, "s": null}, {"id": 7}], "empty": []}"#;

    /// What [`run_json`] gives.
    type Planned = Option<Result<Answer, QueryError>>;

    /// `code`'s answer on `doc` along `plan`, and along the plan that builds
    /// every element and runs the rest with jaq (the whole sort).
    fn planned_and_whole(plan: ReadPlan, code: &str, doc: &str) -> (Planned, Planned) {
        let program = program::compile(code).expect("compiles");
        let planned = run_json(&plan, &program, doc.as_bytes(), &Limits::default());
        let whole = run_json(
            &plan.without_native(),
            &program,
            doc.as_bytes(),
            &Limits::default(),
        );
        (planned, whole)
    }

    /// A sort of which a bounded run at one end is taken keeps that run, not
    /// the array, and answers as the whole sort does (the first of equal
    /// least keys first; `null` or `[]` past the end).
    #[test]
    fn keeps_a_window_of_a_sort() {
        for (code, window) in [
            (".items | sort_by(.s) | .[-1] | {id, s}", true),
            (".items | sort_by(.s) | .[0] | .id", true),
            (".items | sort_by(.s) | .[-1]", true),
            (".items | sort_by(select(.s != null) | .s) | .[0]", true),
            (".empty | sort_by(.s) | .[-1] | .id", true),
            (".empty | sort_by(.s) | .[:3]", true),
            (".items | sort_by(.s) | .[1] | .id", true),
            (".items | sort_by(.s) | .[-2] | .id", true),
            (".items | sort_by(.s) | .[6]", true),
            (".items | sort_by(.s) | .[7]", true),
            (".items | sort_by(.s) | .[-7] | .id", true),
            (".items | sort_by(.s) | .[-8]", true),
            (".items | sort_by(.s) | .[-1:] | map(.id)", true),
            (".items | sort_by(.s) | .[-3:] | map(.id)", true),
            (".items | sort_by(.s) | .[:3] | map(.id)", true),
            (".items | sort_by(.s) | .[1:3] | map(.id)", true),
            (".items | sort_by(.s) | .[3:1]", true),
            (".items | sort_by(.s) | .[5:20] | map(.id)", true),
            (".items | sort_by(.s) | .[-3:-1] | map(.id)", true),
            (".items | sort_by(.s) | .[-20:2] | map(.id)", true),
            (".items | sort_by(.s) | .[-2:9] | map(.id)", true),
            (".items | sort_by(.s) | first | .id", true),
            (".items | sort_by(.s) | last | .id", true),
            (".items | sort_by(.s) | reverse | .[0] | .id", true),
            (".items | sort_by(.s) | reverse | .[:3] | map(.id)", true),
            (".items | sort_by(.s) | reverse | .[-2:] | map(.id)", true),
            (".items | sort_by(.s) | reverse | .[-1] | .id", true),
            (".items | map(.s) | sort | .[-3:]", true),
            ("[.items[] | .id] | sort | reverse | .[:2]", true),
            (".items | sort_by(.s, .id) | .[0] | .id", false),
            (".items | sort_by(.s) | .[2:] | map(.id)", false),
            (".items | sort_by(.s) | .[:-2] | map(.id)", false),
            (".items | sort_by(.s) | .[1.5]", false),
            (".items | sort_by(.s) | .[:20000] | length", false),
        ] {
            let plan = plan(code);
            let stream = plan.stream.as_ref().expect("streams");
            assert_eq!(stream.window.is_some(), window, "{code}");
            let (taken, sorted) = planned_and_whole(plan, code, SORTABLE);
            assert!(taken.is_some() || !window, "{code}");
            assert_eq!(taken, sorted, "{code}");
        }
        // a key that jq cannot take of an element: the whole sort decides
        let odd = r#"{"items": [{"s": 1}, 5]}"#;
        let code = ".items | sort_by(.s) | .[-1]";
        let program = program::compile(code).expect("compiles");
        assert!(run_json(&plan(code), &program, odd.as_bytes(), &Limits::default()).is_none());
    }

    /// A sort observed only through a `map` keeps each element's key and
    /// mapped value, and answers as the whole sort does.
    #[test]
    fn sorts_only_what_a_map_keeps() {
        for (code, mapped) in [
            (".items | sort_by(.s) | map(.id)", true),
            (".items | sort_by(.s) | reverse | map(.id)", true),
            (
                ".items | sort_by(.s) | map(select(.id > 2) | {id, s})",
                true,
            ),
            (".items | sort_by(.s) | map(.id) | .[2:4]", true),
            (".items | sort_by(.s) | map(.id) | tojson | length", true),
            ("[.items[] | .id] | sort | reverse | map(.)", true),
            ("[.items[] | .s] | sort | map(. == null)", false),
            (".empty | sort_by(.s) | map(.id)", true),
            (".items | sort_by(.s) | map(.id, .s)", false),
            (".items | sort_by(.s) | map(tostring)", false),
        ] {
            let plan = plan(code);
            let stream = plan.stream.as_ref().expect("streams");
            assert_eq!(stream.sort_map.is_some(), mapped, "{code}");
            let (sorted, whole) = planned_and_whole(plan, code, SORTABLE);
            assert!(sorted.is_some() || !mapped, "{code}");
            assert_eq!(sorted, whole, "{code}");
        }
        // many equal keys, past what a sort does by insertion: still stable
        let items: Vec<String> = (0..300)
            .map(|i| format!(r#"{{"id": {i}, "s": {}}}"#, (i * 7) % 3))
            .collect();
        let doc = format!(r#"{{"items": [{}]}}"#, items.join(", "));
        for code in [
            ".items | sort_by(.s) | map(.id)",
            ".items | sort_by(.s) | reverse | map(.id)",
            ".items | sort_by(.s) | .[95:105] | map(.id)",
            ".items | sort_by(.s) | reverse | .[:10] | map(.id)",
        ] {
            let (sorted, whole) = planned_and_whole(plan(code), code, &doc);
            assert!(sorted.is_some(), "{code}");
            assert_eq!(sorted, whole, "{code}");
        }
    }

    /// The streamed shapes really stream a YAML file, not just plan to.
    #[test]
    fn yaml_streams_the_typical_shapes() {
        let doc = "meta:\n  first: 2\nbase: &b\n  group: g1\n  owner: {name: o, region: eu}\n\
         items:\n  - id: 1\n    name: a\n    active: true\n    score: 10\n    tags: [x, y]\n    <<: *b\n\
         \n  - id: 2\n    name: b\n    active: no\n    score: 99.5\n    group: g2\n\
         \n  - {id: 3, name: c, score: -3, owner: null, 1: one, true: t}\nn: 3\n";
        for code in [".items[] | .id", "[.items[] | .score] | add"] {
            let stream = plan(code).stream.expect("streams");
            let answer = run_yaml_stream(&stream, doc.as_bytes(), &Limits::default());
            assert!(answer.is_some(), "{code}");
            // and as the file is read, never held whole
            let mut reader = doc.as_bytes();
            let read = run_yaml_reader(&plan(code), &mut reader, &Limits::default());
            assert_eq!(read, answer, "{code}");
        }
    }
}
