//! Programs that can run on one array element at a time.
//!
//! `.items[] | F`, `[.items[] | F] | G` and `.items | map(F) | G` never look
//! at `.items` as a whole: F sees one element, G sees F's results. Such a
//! program can stream the array out of the file, element by element, so the
//! array itself is never built. `.items | G` (`sort_by`, `group_by`,
//! `length`, …) streams too, as `[.items[]] | G`: the array G gets is built
//! from the streamed elements, and the rest of the document never is.
//! Everything else runs on a whole document.

use crate::ast::{Mode, leading_path, pipe_chain, print};
use jaq_core::load::parse::Term;

/// How a streamable program is split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Object keys from the document root to the streamed array.
    pub(crate) path: Vec<Vec<u8>>,
    /// Run on every element (jq source).
    pub(crate) each: String,
    /// `None`: the results of `each` are the program's results.
    /// `Some(g)`: they are collected into one array, and `g` runs on it.
    pub(crate) then: Option<String>,
}

/// The streamable shape of `program`, if it has one.
pub(crate) fn shape(program: &Term<&str>) -> Option<Shape> {
    let chain = pipe_chain(program);
    if let Some((path, iterated, used)) = leading_path(&chain) {
        let after = &chain[used..];
        if iterated {
            return Some(Shape {
                path,
                each: print_chain(after)?,
                then: None,
            });
        }
        // `PATH | map(F) | G`
        if let [Term::Call("map", args), rest @ ..] = after
            && let [f] = &args[..]
        {
            return Some(Shape {
                path,
                each: print(f, Mode::PLAIN)?,
                then: Some(print_chain(rest)?),
            });
        }
        // `PATH | G` is `[PATH[]] | G` when PATH is an array (the streamed
        // reader refuses anything else): G gets an array of the same elements
        if after.is_empty() {
            return None;
        }
        return Some(Shape {
            path,
            each: ".".into(),
            then: Some(print_chain(after)?),
        });
    }
    // `[PATH[] | F] | G`
    if let [Term::Arr(Some(inner)), rest @ ..] = &chain[..] {
        let inner_chain = pipe_chain(inner);
        let (path, true, used) = leading_path(&inner_chain)? else {
            return None;
        };
        return Some(Shape {
            path,
            each: print_chain(&inner_chain[used..])?,
            then: Some(print_chain(rest)?),
        });
    }
    None
}

fn print_chain(chain: &[&Term<&str>]) -> Option<String> {
    if chain.is_empty() {
        return Some(".".into());
    }
    let parts: Option<Vec<String>> = chain
        .iter()
        .map(|t| print(t, Mode::PLAIN).map(|s| format!("({s})")))
        .collect();
    Some(parts?.join(" | "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(code: &str) -> Option<(Vec<String>, bool)> {
        let term = crate::ast::parse(code).expect("parses");
        shape(&term).map(|s| {
            let path = s
                .path
                .iter()
                .map(|k| String::from_utf8_lossy(k).into_owned())
                .collect();
            (path, s.then.is_some())
        })
    }

    #[test]
    fn streamable_shapes() {
        let items = vec!["items".to_string()];
        assert_eq!(of(".items[] | .a"), Some((items.clone(), false)));
        assert_eq!(of(".items[]"), Some((items.clone(), false)));
        assert_eq!(of(".items | .[] | .a"), Some((items.clone(), false)));
        assert_eq!(of(".items | map(.a) | add"), Some((items.clone(), true)));
        assert_eq!(of("[.items[] | .a] | length"), Some((items.clone(), true)));
        assert_eq!(of(".[] | .a"), Some((vec![], false)));
        assert_eq!(of(".items | length"), Some((items.clone(), true)));
        assert_eq!(
            of(".items | sort_by(.score) | .[-1]"),
            Some((items.clone(), true))
        );
        assert_eq!(
            of(".a.\"b c\"[] | .x"),
            Some((vec!["a".into(), "b c".into()], false))
        );
    }

    #[test]
    fn whole_document_shapes() {
        for code in [
            ".items",
            ".items[0]",
            ".items[].a[]",
            ".items[1:]",
            ".[.k][]",
            "first(.items[])",
            ".items[] as $x | $x",
            "(.items[] | .a), .b",
        ] {
            assert_eq!(of(code), None, "{code}");
        }
    }
}
