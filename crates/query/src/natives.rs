//! Native filters added to jaq's standard library (see `prelude.jq`).

use crate::data::QData;
use crate::json_out::{to_json, write_num};
use jaq_core::box_iter::box_once;
use jaq_core::native::{Fun, run, v};
use jaq_core::{Cv, Error, Exn, ValXs};
use jaq_json::{Map, Rc, Val};
use jaq_std::ValT as _;
use std::cell::RefCell;

/// jq refuses to grow an array beyond this index ("Array index too large").
const MAX_ARRAY_INDEX: usize = 536_870_911;
/// Keep at most this much `debug`/`stderr` text per query.
const MAX_LOG_BYTES: usize = 8 * 1024;

thread_local! {
    /// Message of the last `halt_error`.
    static HALT_MESSAGE: RefCell<Option<String>> = const { RefCell::new(None) };
    /// Text written by `debug` and `stderr`.
    static LOG: RefCell<(String, bool)> = const { RefCell::new((String::new(), false)) };
}

/// Take the message of the last `halt_error` on this thread.
pub(crate) fn take_halt_message() -> Option<String> {
    HALT_MESSAGE.with(|m| m.borrow_mut().take())
}

/// Take the `debug`/`stderr` text of this thread; the flag says whether some
/// was dropped.
pub(crate) fn take_log() -> (String, bool) {
    LOG.with(|l| std::mem::take(&mut *l.borrow_mut()))
}

fn log(text: &str) {
    LOG.with(|l| {
        let (buf, dropped) = &mut *l.borrow_mut();
        if buf.len() + text.len() + 1 > MAX_LOG_BYTES {
            *dropped = true;
        } else {
            buf.push_str(text);
            buf.push('\n');
        }
    });
}

type R<'a> = ValXs<'a, Val>;

/// Our natives. `stderr_empty` and `debug_empty` replace jaq's versions.
/// (`builtins` is added by [`crate::library`], which knows every filter.)
pub(crate) fn funs() -> impl Iterator<Item = Fun<QData>> {
    let fs: [jaq_core::native::Filter<jaq_core::RunPtr<QData>>; 15] = [
        ("_fs_vivify", [jaq_core::Bind::Fun(())].into(), vivify),
        ("_fs_mkpath", v(1), mkpath),
        ("_fs_delpaths", v(1), delpaths),
        ("_fs_tojson", v(0), tojson),
        ("_fs_tostring", v(0), tostring),
        ("_fs_join", v(1), join),
        ("_fs_halt_error", v(1), halt_error),
        ("stderr_empty", v(0), stderr_empty),
        ("debug_empty", v(0), debug_empty),
        ("@csv", v(0), csv),
        ("@tsv", v(0), tsv),
        ("_fs_base32", v(0), base32),
        ("_fs_base32d", v(0), base32d),
        ("_fs_unique", v(0), unique),
        ("_fs_sort_by", [jaq_core::Bind::Fun(())].into(), sort_by),
    ];
    fs.into_iter().map(run::<QData>)
}

fn err<'a>(msg: String) -> R<'a> {
    box_once(Err(Exn::from(Error::str(msg))))
}

fn type_name(v: &Val) -> &'static str {
    match v {
        Val::Null => "null",
        Val::Bool(_) => "boolean",
        Val::Num(_) => "number",
        Val::TStr(_) | Val::BStr(_) => "string",
        Val::Arr(_) => "array",
        Val::Obj(_) => "object",
    }
}

/// `type (json)` with the JSON cut short, for error messages.
fn describe(v: &Val) -> String {
    format!(
        "{} ({})",
        type_name(v),
        crate::errors::shorten(&to_json(v), 60)
    )
}

// --- setpath support ----------------------------------------------------------

fn mkpath(mut cv: Cv<'_, QData>) -> R<'_> {
    let path = cv.0.pop_var();
    let Val::Arr(path) = path else {
        return err("Path must be specified as an array".into());
    };
    let mut v = cv.1;
    if needs_creation(&v, &path) {
        create(&mut v, &path);
    }
    box_once(Ok(v))
}

/// `_fs_vivify(p)`: make every path of `p` (on the input) assignable.
fn vivify(mut cv: Cv<'_, QData>) -> R<'_> {
    let (f, fc) = cv.0.pop_fun();
    let input = cv.1;
    let mut acc = input.clone();
    let mut path = Vec::new();
    for vp in f.paths((fc, (input, Default::default()))) {
        match vp {
            Ok((_v, rev_path)) => {
                path.clear();
                path.extend(rev_path.iter().cloned());
                path.reverse();
                if needs_creation(&acc, &path) {
                    create(&mut acc, &path);
                }
            }
            Err(e) => return box_once(Err(e)),
        }
    }
    box_once(Ok(acc))
}

/// Array index of `k` into an array of length `len` (negative counts from the
/// end), `None` if `k` is not an integer or lies before the start.
fn array_index(k: &Val, len: usize) -> Option<usize> {
    let i = k.as_isize()?;
    if i >= 0 {
        Some(i as usize)
    } else {
        let j = len as isize + i;
        (j >= 0).then_some(j as usize)
    }
}

fn is_str(v: &Val) -> bool {
    matches!(v, Val::TStr(_) | Val::BStr(_))
}

/// Whether jaq's native update along `path` would fail for lack of a
/// container or array element that jq would create.
fn needs_creation(v: &Val, path: &[Val]) -> bool {
    let Some((k, rest)) = path.split_first() else {
        return false;
    };
    match v {
        Val::Null => is_str(k) || matches!(k, Val::Num(_) | Val::Obj(_)),
        Val::Obj(o) if is_str(k) => match o.get(k) {
            Some(child) => needs_creation(child, rest),
            None => !rest.is_empty(),
        },
        Val::Arr(a) if matches!(k, Val::Num(_)) => match array_index(k, a.len()) {
            Some(i) if i < a.len() => needs_creation(&a[i], rest),
            Some(i) => i <= MAX_ARRAY_INDEX && k.as_isize().is_some_and(|k| k >= 0),
            None => false,
        },
        _ => false,
    }
}

/// Create what `needs_creation` found missing (copying shared containers on
/// the way only).
fn create(v: &mut Val, path: &[Val]) {
    let Some((k, rest)) = path.split_first() else {
        return;
    };
    if matches!(v, Val::Null) {
        *v = match k {
            k if is_str(k) => Val::obj(Map::default()),
            Val::Num(_) | Val::Obj(_) => Val::Arr(Rc::new(Vec::new())),
            _ => return,
        };
    }
    match v {
        Val::Obj(o) if is_str(k) => {
            if rest.is_empty() {
                return;
            }
            let o = Rc::make_mut(o);
            let child = o.entry(k.clone()).or_insert(Val::Null);
            if needs_creation(child, rest) {
                create(child, rest);
            }
        }
        Val::Arr(a) => {
            let Some(i) = array_index(k, a.len()) else {
                return;
            };
            if i > MAX_ARRAY_INDEX {
                return;
            }
            let a = Rc::make_mut(a);
            if i >= a.len() {
                a.resize(i + 1, Val::Null);
            }
            if needs_creation(&a[i], rest) {
                create(&mut a[i], rest);
            }
        }
        _ => {}
    }
}

// --- delpaths that keeps key order --------------------------------------------

fn delpaths(mut cv: Cv<'_, QData>) -> R<'_> {
    let paths = cv.0.pop_var();
    let Val::Arr(paths) = paths else {
        return err("Paths must be specified as an array".into());
    };
    let mut list: Vec<&Rc<Vec<Val>>> = Vec::with_capacity(paths.len());
    for p in paths.iter() {
        match p {
            Val::Arr(a) => list.push(a),
            other => {
                return err(format!(
                    "Path must be specified as an array, not {}",
                    describe(other)
                ));
            }
        }
    }
    // delete from the last path to the first so that array indices stay valid
    list.sort();
    list.dedup();
    let mut v = cv.1;
    for p in list.iter().rev() {
        if p.is_empty() {
            return box_once(Ok(Val::Null));
        }
        if let Err(e) = delete(&mut v, p) {
            return err(e);
        }
    }
    box_once(Ok(v))
}

fn delete(v: &mut Val, path: &[Val]) -> Result<(), String> {
    let Some((k, rest)) = path.split_first() else {
        return Ok(());
    };
    match v {
        Val::Null => Ok(()),
        Val::Obj(o) => {
            if !is_str(k) {
                return Err(format!(
                    "Cannot delete field at object index of {}",
                    describe(k)
                ));
            }
            match o.get(k) {
                None => Ok(()),
                Some(_) if rest.is_empty() => {
                    Rc::make_mut(o).shift_remove(k);
                    Ok(())
                }
                Some(Val::Null) => Ok(()),
                Some(_) => {
                    let o = Rc::make_mut(o);
                    match o.get_mut(k) {
                        Some(child) => delete(child, rest),
                        None => Ok(()),
                    }
                }
            }
        }
        Val::Arr(a) => match k {
            Val::Num(_) => {
                let Some(i) = array_index(k, a.len()).filter(|i| *i < a.len()) else {
                    if k.as_isize().is_none() {
                        return Err(format!(
                            "Cannot delete array element at index {}",
                            describe(k)
                        ));
                    }
                    return Ok(());
                };
                let a = Rc::make_mut(a);
                if rest.is_empty() {
                    a.remove(i);
                    Ok(())
                } else {
                    delete(&mut a[i], rest)
                }
            }
            Val::Obj(slice) if rest.is_empty() => {
                let len = a.len();
                let bound = |key: &str, default: usize| -> Result<usize, String> {
                    match slice.get(&Val::from(key.to_string())) {
                        None | Some(Val::Null) => Ok(default),
                        Some(n @ Val::Num(_)) => {
                            let f = n.as_f64().unwrap_or(0.0);
                            let f = if key == "start" { f.floor() } else { f.ceil() };
                            let f = if f < 0.0 { f + len as f64 } else { f };
                            Ok(f.clamp(0.0, len as f64) as usize)
                        }
                        Some(other) => Err(format!(
                            "Array slice bound must be a number, not {}",
                            describe(other)
                        )),
                    }
                };
                let start = bound("start", 0)?;
                let end = bound("end", len)?;
                if start < end {
                    Rc::make_mut(a).drain(start..end);
                }
                Ok(())
            }
            other => Err(format!(
                "Cannot delete array element at index {}",
                describe(other)
            )),
        },
        other => Err(format!(
            "Cannot delete field at index {} of {}",
            describe(k),
            describe(other)
        )),
    }
}

// --- arrays ---------------------------------------------------------------------

/// `unique` as a sort and a pass that drops repeats: the answer of jaq's
/// `[group_by(.)[] | .[0]]` (a stable sort, the first of equal values kept),
/// without a key array and a group per element (half the memory on a big
/// array, and faster).
fn unique(cv: Cv<'_, QData>) -> R<'_> {
    match cv.1 {
        Val::Arr(a) => {
            let mut a = Rc::try_unwrap(a).unwrap_or_else(|a| (*a).clone());
            a.sort();
            a.dedup();
            box_once(Ok(Val::Arr(Rc::new(a))))
        }
        // jaq's message for a value that is not an array
        other => box_once(Err(Exn::from(Error::typ(other, "array")))),
    }
}

/// A sort key: the outputs of `f` for one element; usually one value, kept
/// without a list around it.
enum SortKey {
    One(Val),
    Many(Vec<Val>),
}

impl SortKey {
    fn values(&self) -> &[Val] {
        match self {
            SortKey::One(v) => std::slice::from_ref(v),
            SortKey::Many(vs) => vs,
        }
    }
}

/// `sort_by(f)` as jaq's: `f` runs once per element, in order (the first
/// error is the answer), and the elements are sorted stably by the lists of
/// its outputs. A key of one output takes no list of its own, which saves a
/// third of the memory of sorting a big array.
fn sort_by(mut cv: Cv<'_, QData>) -> R<'_> {
    let (f, fc) = cv.0.pop_fun();
    let xs = match cv.1 {
        Val::Arr(a) => Rc::try_unwrap(a).unwrap_or_else(|a| (*a).clone()),
        // jaq's message for a value that is not an array
        other => return box_once(Err(Exn::from(Error::typ(other, "array")))),
    };
    let mut keyed: Vec<(SortKey, usize)> = Vec::with_capacity(xs.len());
    for (i, x) in xs.iter().enumerate() {
        let mut outs = f.run((fc.clone(), x.clone()));
        let key = match outs.next() {
            None => SortKey::Many(Vec::new()),
            Some(Err(e)) => return box_once(Err(e)),
            Some(Ok(first)) => match outs.next() {
                None => SortKey::One(first),
                Some(Err(e)) => return box_once(Err(e)),
                Some(Ok(second)) => {
                    let mut all = vec![first, second];
                    for out in outs {
                        match out {
                            Ok(y) => all.push(y),
                            Err(e) => return box_once(Err(e)),
                        }
                    }
                    SortKey::Many(all)
                }
            },
        };
        keyed.push((key, i));
    }
    // the position breaks ties: a stable sort
    keyed.sort_unstable_by(|(a, i), (b, j)| a.values().cmp(b.values()).then(i.cmp(j)));
    let order: Vec<usize> = keyed.into_iter().map(|(_, i)| i).collect();
    let sorted: Vec<Val> = order.iter().map(|&i| xs[i].clone()).collect();
    box_once(Ok(Val::Arr(Rc::new(sorted))))
}

// --- output like jq -------------------------------------------------------------

fn tojson(cv: Cv<'_, QData>) -> R<'_> {
    box_once(Ok(Val::from(to_json(&cv.1))))
}

fn tostring(cv: Cv<'_, QData>) -> R<'_> {
    match cv.1 {
        s @ (Val::TStr(_) | Val::BStr(_)) => box_once(Ok(s)),
        other => box_once(Ok(Val::from(to_json(&other)))),
    }
}

/// Text of a scalar for `join`, `@csv` and `@tsv`.
fn scalar_text(v: &Val, out: &mut String) {
    match v {
        Val::Null => {}
        Val::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Val::Num(n) => write_num(n, out),
        Val::TStr(b) | Val::BStr(b) => out.push_str(&String::from_utf8_lossy(b)),
        Val::Arr(_) | Val::Obj(_) => {}
    }
}

fn join(mut cv: Cv<'_, QData>) -> R<'_> {
    let sep = cv.0.pop_var();
    let sep = match &sep {
        Val::TStr(b) | Val::BStr(b) => String::from_utf8_lossy(b).into_owned(),
        other => {
            return err(format!(
                "join separator must be a string, not {}",
                describe(other)
            ));
        }
    };
    let items: Vec<Val> = match cv.1 {
        Val::Arr(a) => a.iter().cloned().collect(),
        Val::Obj(o) => o.values().cloned().collect(),
        other => return err(format!("Cannot iterate over {}", describe(&other))),
    };
    let mut out = String::new();
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(&sep);
        }
        if matches!(x, Val::Arr(_) | Val::Obj(_)) {
            return err(format!("Cannot join with {}", describe(x)));
        }
        scalar_text(x, &mut out);
    }
    box_once(Ok(Val::from(out)))
}

fn csv(cv: Cv<'_, QData>) -> R<'_> {
    format_row(&cv.1, "csv", ',', |s, out| {
        out.push('"');
        out.push_str(&s.replace('"', "\"\""));
        out.push('"');
    })
}

fn tsv(cv: Cv<'_, QData>) -> R<'_> {
    format_row(&cv.1, "tsv", '\t', |s, out| {
        for c in s.chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '\t' => out.push_str("\\t"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                c => out.push(c),
            }
        }
    })
}

/// `@csv`/`@tsv`: the scalars of an array joined by `sep`, strings written
/// by `string`.
fn format_row<'a>(v: &Val, name: &str, sep: char, string: fn(&str, &mut String)) -> R<'a> {
    let Val::Arr(a) = v else {
        return err(format!(
            "{} cannot be {name}-formatted, only an array can be",
            describe(v)
        ));
    };
    let mut out = String::new();
    for (i, x) in a.iter().enumerate() {
        if i > 0 {
            out.push(sep);
        }
        match x {
            Val::TStr(b) | Val::BStr(b) => string(&String::from_utf8_lossy(b), &mut out),
            Val::Arr(_) | Val::Obj(_) => {
                return err(format!("{} is not valid in a {name} row", describe(x)));
            }
            x => scalar_text(x, &mut out),
        }
    }
    box_once(Ok(Val::from(out)))
}

// --- halt_error, debug and stderr ------------------------------------------------

fn halt_error(mut cv: Cv<'_, QData>) -> R<'_> {
    let code = cv.0.pop_var();
    let Some(code) = code.as_isize().and_then(|c| i32::try_from(c).ok()) else {
        return err(format!(
            "halt_error/1: number required, got {}",
            describe(&code)
        ));
    };
    let msg = match &cv.1 {
        Val::TStr(b) | Val::BStr(b) => String::from_utf8_lossy(b).into_owned(),
        other => to_json(other),
    };
    HALT_MESSAGE.with(|m| *m.borrow_mut() = Some(msg));
    box_once(Err(Exn::halt(code)))
}

fn stderr_empty(cv: Cv<'_, QData>) -> R<'_> {
    match &cv.1 {
        Val::TStr(b) | Val::BStr(b) => log(&String::from_utf8_lossy(b)),
        other => log(&to_json(other)),
    }
    Box::new(std::iter::empty())
}

fn debug_empty(cv: Cv<'_, QData>) -> R<'_> {
    log(&format!("[\"DEBUG:\",{}]", to_json(&cv.1)));
    Box::new(std::iter::empty())
}

// --- base32 ---------------------------------------------------------------------

const BASE32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

fn base32(cv: Cv<'_, QData>) -> R<'_> {
    let bytes = match &cv.1 {
        Val::TStr(b) | Val::BStr(b) => b.to_vec(),
        other => return err(format!("{} cannot be base32-encoded", describe(other))),
    };
    let mut out = String::with_capacity(bytes.len().div_ceil(5) * 8);
    for chunk in bytes.chunks(5) {
        let mut buf = [0u8; 5];
        buf[..chunk.len()].copy_from_slice(chunk);
        let n = buf.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b));
        let chars = (chunk.len() * 8).div_ceil(5);
        for i in 0..8 {
            if i < chars {
                let idx = ((n >> (35 - 5 * i)) & 31) as usize;
                out.push(BASE32[idx] as char);
            } else {
                out.push('=');
            }
        }
    }
    box_once(Ok(Val::from(out)))
}

fn base32d(cv: Cv<'_, QData>) -> R<'_> {
    let text = match &cv.1 {
        Val::TStr(b) | Val::BStr(b) => b.to_vec(),
        other => return err(format!("{} cannot be base32-decoded", describe(other))),
    };
    let mut out = Vec::with_capacity(text.len() * 5 / 8);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &c in text
        .iter()
        .filter(|c| **c != b'=' && !c.is_ascii_whitespace())
    {
        let Some(v) = BASE32.iter().position(|b| *b == c.to_ascii_uppercase()) else {
            let shown = String::from_utf8_lossy(&text);
            return err(format!(
                "{} is not valid base32 data",
                crate::errors::shorten(&shown, 60)
            ));
        };
        acc = (acc << 5) | v as u32;
        bits += 5;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    box_once(Ok(Val::from(String::from_utf8_lossy(&out).into_owned())))
}
