//! Building only the observed parts of YAML documents: the serde side of
//! [`crate::projected`]. serde-saphyr drives a visitor that follows a
//! [`Need`] trie and skips (with `IgnoredAny`) what the query never observes.
//!
//! Scalars are turned into values exactly as `jaq_json::Val`'s own
//! `Deserialize` does, and non-string keys into their JSON text, as the
//! ordinary YAML path does after parsing.

use crate::need::{Level, Need};
use jaq_json::{Map, Num, Rc, Val};
use serde::Deserialize;
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::cell::RefCell;
use std::fmt;

thread_local! {
    /// The trie for the documents being read on this thread (serde gives a
    /// top-level `Deserialize` no arguments).
    static ROOT: RefCell<Option<Rc<Need>>> = const { RefCell::new(None) };
}

/// One YAML document, built as far as the trie set by [`with_need`] asks.
pub(crate) struct Doc(pub(crate) Val);

/// Run `read` with `need` as the trie for every [`Doc`] it deserializes.
pub(crate) fn with_need<T>(need: &Need, read: impl FnOnce() -> T) -> T {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            ROOT.with(|r| r.borrow_mut().take());
        }
    }
    ROOT.with(|r| *r.borrow_mut() = Some(Rc::new(need.clone())));
    let _reset = Reset;
    read()
}

impl<'de> Deserialize<'de> for Doc {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Doc, D::Error> {
        match ROOT.with(|r| r.borrow().clone()) {
            Some(need) => Seed(&need).deserialize(d).map(Doc),
            None => Val::deserialize(d).map(Doc),
        }
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
        Ok(Val::utf8_str(v.as_bytes().to_vec()))
    }
    fn visit_string<E>(self, v: String) -> Result<Val, E> {
        Ok(Val::utf8_str(v.into_bytes()))
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
        let mut obj = Map::default();
        while let Some(k) = map.next_key::<Val>()? {
            let (text, key) = key_text(k);
            match need.key(&text) {
                Some(node) => {
                    let v = map.next_value_seed(Seed(node))?;
                    obj.insert(key, v);
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                    if need.keeps_all_keys() {
                        obj.insert(key, Val::Null);
                    }
                }
            }
        }
        Ok(Val::obj(obj))
    }
}
