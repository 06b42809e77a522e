//! Building only the observed parts of YAML documents: the serde side of
//! [`crate::projected`]. serde-saphyr drives a visitor that follows a
//! [`Need`] trie and skips (with `IgnoredAny`) what the query never observes.
//!
//! Arrays on a simple path (`.items[] | F`) can also be streamed: their
//! elements go to a callback one at a time and are never held together.
//!
//! Scalars are turned into values exactly as `jaq_json::Val`'s own
//! `Deserialize` does, and non-string keys into their JSON text, as the
//! ordinary YAML path does after parsing.

use crate::need::{Level, Need};
use jaq_json::{Map, Num, Rc, Val};
use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;

/// How [`Doc`]s are read on this thread (serde gives a top-level
/// `Deserialize` no arguments, so the mode is set around the parse).
enum Mode {
    /// Build each document as far as the trie asks.
    Build(Rc<Need>),
    /// Stream one array's elements to a callback; the document is not built.
    Stream(Streaming),
}

thread_local! {
    static MODE: RefCell<Option<Mode>> = const { RefCell::new(None) };
    /// Object keys kept so far: every item of a big array has the same few
    /// keys, so they are shared instead of allocated again.
    static KEYS: RefCell<HashMap<Vec<u8>, Val>> = RefCell::new(HashMap::new());
    /// Short string values kept so far (a group, a status, a region): the
    /// same few recur in every item, so they are built once and shared too.
    static STRINGS: RefCell<HashMap<Box<[u8]>, Val>> = RefCell::new(HashMap::new());
}

/// The shared copy of a kept object key.
fn intern(text: Vec<u8>, key: Val) -> Val {
    KEYS.with(|k| k.borrow_mut().entry(text).or_insert(key).clone())
}

/// Only string values this short are shared ...
const MAX_SHARED_STRING_BYTES: usize = 32;
/// ... and only this many distinct ones (a file of unique names must not
/// grow the table without bound).
const MAX_SHARED_STRINGS: usize = 1 << 16;

/// A string value, shared with its earlier copies when it is short (jq
/// values have no identity, so one copy can stand for all).
fn string(text: &[u8]) -> Val {
    if text.len() > MAX_SHARED_STRING_BYTES {
        return Val::utf8_str(text.to_vec());
    }
    STRINGS.with(|table| {
        let mut table = table.borrow_mut();
        if let Some(v) = table.get(text) {
            return v.clone();
        }
        let v = Val::utf8_str(text.to_vec());
        if table.len() < MAX_SHARED_STRINGS {
            table.insert(text.into(), v.clone());
        }
        v
    })
}

/// One YAML document, read as the mode set by [`with_need`] or
/// [`with_stream`] says.
pub(crate) struct Doc(pub(crate) Val);

/// An array to stream: where it is, what is observed of each element, and
/// what receives the elements (`false`: no more wanted).
pub(crate) struct StreamTarget {
    pub(crate) path: Vec<Vec<u8>>,
    /// What is observed of each element (`None`: nothing; `null` stands for it).
    pub(crate) element: Option<Need>,
    pub(crate) feed: Box<dyn FnMut(Val) -> bool>,
}

/// A stream in progress.
struct Streaming {
    target: StreamTarget,
    /// How often the array was found (exactly once is required).
    found: usize,
    /// A key on the path occurred twice in one mapping.
    duplicate: bool,
}

/// Whether a streamed read saw the array exactly once, with no duplicate
/// key on its path.
pub(crate) struct StreamReport {
    pub(crate) exact: bool,
}

/// Clears the mode when a read ends, even by unwinding.
struct Reset;

impl Drop for Reset {
    fn drop(&mut self) {
        MODE.with(|m| m.borrow_mut().take());
        KEYS.with(|k| k.borrow_mut().clear());
        STRINGS.with(|k| k.borrow_mut().clear());
    }
}

/// Run `read` with `need` as the trie for every [`Doc`] it deserializes.
pub(crate) fn with_need<T>(need: &Need, read: impl FnOnce() -> T) -> T {
    MODE.with(|m| *m.borrow_mut() = Some(Mode::Build(Rc::new(need.clone()))));
    let _reset = Reset;
    read()
}

/// Run `read`, streaming the target array of every [`Doc`] it
/// deserializes to the target's callback.
pub(crate) fn with_stream<T>(target: StreamTarget, read: impl FnOnce() -> T) -> (T, StreamReport) {
    let streaming = Streaming {
        target,
        found: 0,
        duplicate: false,
    };
    MODE.with(|m| *m.borrow_mut() = Some(Mode::Stream(streaming)));
    let reset = Reset;
    let out = read();
    let exact = match MODE.with(|m| m.borrow_mut().take()) {
        Some(Mode::Stream(s)) => s.found == 1 && !s.duplicate,
        _ => false,
    };
    drop(reset);
    (out, StreamReport { exact })
}

impl<'de> Deserialize<'de> for Doc {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Doc, D::Error> {
        let Some(mode) = MODE.with(|m| m.borrow_mut().take()) else {
            return Val::deserialize(d).map(Doc);
        };
        let (result, mode) = match mode {
            Mode::Build(need) => (Seed(&need).deserialize(d), Mode::Build(need)),
            Mode::Stream(mut s) => {
                let r = match s.target.path.is_empty() {
                    true => ArraySeed(&mut s).deserialize(d),
                    false => PathSeed {
                        s: &mut s,
                        depth: 0,
                    }
                    .deserialize(d),
                };
                (r.map(|()| Val::Null), Mode::Stream(s))
            }
        };
        MODE.with(|m| *m.borrow_mut() = Some(mode));
        result.map(Doc)
    }
}

/// Walks the mappings on the path to the streamed array, skipping the rest.
struct PathSeed<'s> {
    s: &'s mut Streaming,
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for PathSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for PathSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a mapping on the path to the streamed array")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let key = self.s.target.path[self.depth].clone();
        let last = self.depth + 1 == self.s.target.path.len();
        let mut seen = false;
        while let Some(k) = map.next_key::<Val>()? {
            if key_text(k).0 != key {
                map.next_value::<IgnoredAny>()?;
            } else if seen {
                self.s.duplicate = true;
                map.next_value::<IgnoredAny>()?;
            } else {
                seen = true;
                match last {
                    true => map.next_value_seed(ArraySeed(&mut *self.s))?,
                    false => map.next_value_seed(PathSeed {
                        s: &mut *self.s,
                        depth: self.depth + 1,
                    })?,
                }
            }
        }
        Ok(())
    }
}

/// Hands the elements of the streamed array to the callback.
struct ArraySeed<'s>(&'s mut Streaming);

impl<'de> DeserializeSeed<'de> for ArraySeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ArraySeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("the streamed array")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.0.found += 1;
        let StreamTarget { element, feed, .. } = &mut self.0.target;
        loop {
            let v = match element {
                Some(element) => seq.next_element_seed(Seed(element))?,
                None => seq.next_element::<IgnoredAny>()?.map(|_| Val::Null),
            };
            let Some(v) = v else { break };
            if !feed(v) {
                // the rest is still parsed: the file must be valid YAML
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                break;
            }
        }
        Ok(())
    }
}

struct Seed<'n>(&'n Need);

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Val;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Val, D::Error> {
        if self.0.is_full() {
            Val::deserialize(d)
        } else {
            d.deserialize_any(self)
        }
    }
}

/// A key as the ordinary path stores it: strings as they are, other keys
/// as their JSON text.
fn key_text(k: Val) -> (Vec<u8>, Val) {
    match &k {
        Val::TStr(b) | Val::BStr(b) => (b.to_vec(), k),
        other => {
            let text = crate::json_out::to_json(other);
            (text.clone().into_bytes(), Val::from(text))
        }
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = Val;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Val, E> {
        Ok(Val::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Val, E> {
        Ok(Val::Num(Num::from_integral(v)))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Val, E> {
        Ok(Val::Num(Num::from_integral(v)))
    }
    fn visit_i128<E>(self, v: i128) -> Result<Val, E> {
        Ok(Val::Num(Num::from_integral(v)))
    }
    fn visit_u128<E>(self, v: u128) -> Result<Val, E> {
        Ok(Val::Num(Num::from_integral(v)))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Val, E> {
        Ok(Val::Num(Num::Float(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Val, E> {
        Ok(string(v.as_bytes()))
    }
    fn visit_string<E>(self, v: String) -> Result<Val, E> {
        Ok(match v.len() > MAX_SHARED_STRING_BYTES {
            true => Val::utf8_str(v.into_bytes()),
            false => string(v.as_bytes()),
        })
    }
    fn visit_none<E>(self) -> Result<Val, E> {
        Ok(Val::Null)
    }
    fn visit_unit<E>(self) -> Result<Val, E> {
        Ok(Val::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Val, D::Error> {
        self.deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Val, A::Error> {
        let need = self.0;
        let mut arr = Vec::new();
        match need.each.as_deref() {
            Some(each) => {
                while let Some(v) = seq.next_element_seed(Seed(each))? {
                    arr.push(v);
                }
            }
            None => {
                while seq.next_element::<IgnoredAny>()?.is_some() {
                    if need.level >= Level::Shallow {
                        arr.push(Val::Null);
                    }
                }
            }
        }
        Ok(Val::Arr(Rc::new(arr)))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Val, A::Error> {
        let need = self.0;
        // sized for the keys kept (see the JSON reader)
        let mut obj = match need.keeps_all_keys() {
            true => Map::default(),
            false => Map::with_capacity_and_hasher(need.keys.len(), Default::default()),
        };
        while let Some(k) = map.next_key::<Val>()? {
            let (text, key) = key_text(k);
            match need.key(&text) {
                Some(node) => {
                    let v = map.next_value_seed(Seed(node))?;
                    obj.insert(intern(text, key), v);
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                    if need.keeps_all_keys() {
                        obj.insert(intern(text, key), Val::Null);
                    }
                }
            }
        }
        Ok(Val::obj(obj))
    }
}
