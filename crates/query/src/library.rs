//! The filters a query can call: jaq's definitions and natives, our prelude
//! (`prelude.jq`) and natives ([`crate::natives`]), minus those that must not
//! be reachable; and the list of every known filter, for error hints and
//! `builtins`.

use crate::data::QData;
use crate::natives;
use jaq_core::load::{self, parse};
use jaq_core::native::{Fun, run, v};
use jaq_core::{Cv, ValXs};
use jaq_json::Val;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// Our definitions, loaded after jaq's standard library.
const PRELUDE: &str = include_str!("prelude.jq");

pub(crate) type Def = parse::Def<&'static str>;

/// jaq's definitions followed by ours, parsed once.
pub(crate) fn prelude_defs() -> &'static [Def] {
    static DEFS: OnceLock<Vec<Def>> = OnceLock::new();
    DEFS.get_or_init(|| {
        // Compiled in and checked by `prelude_parses`; were it broken, queries would still run
        // on jaq's library (ours failing as unknown filters) instead of panicking the worker.
        let ours: Vec<Def> = load::parse(PRELUDE, |p| p.defs()).unwrap_or_default();
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

/// Every native filter a query can call, in the order the compiler gets them.
pub(crate) fn natives() -> impl Iterator<Item = Fun<QData>> {
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
        .chain(std::iter::once(run::<QData>(("builtins", v(0), builtins))))
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

/// `builtins`: every known filter as `name/arity` (it lives here, beside the
/// list it shows, so that the natives need not know the whole library).
fn builtins(_cv: Cv<'_, QData>) -> ValXs<'_, Val> {
    let list: Vec<Val> = known_filters()
        .iter()
        .flat_map(|(name, arities)| {
            arities
                .iter()
                .map(move |a| Val::from(format!("{name}/{a}")))
        })
        .collect();
    jaq_core::box_iter::box_once(Ok(list.into_iter().collect()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn prelude_parses() {
        let defs = jaq_core::load::parse(super::PRELUDE, |p| p.defs());
        assert!(defs.is_some_and(|d: Vec<super::Def>| !d.is_empty()));
    }
}
