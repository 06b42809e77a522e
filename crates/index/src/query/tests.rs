use proptest::prelude::*;

use super::Required;
use crate::grams::Grams;

fn clauses(pattern: &str, ci: bool) -> Vec<Vec<String>> {
    Required::of(pattern, ci)
        .clauses()
        .iter()
        .map(|c| {
            c.iter()
                .map(|s| String::from_utf8_lossy(s).into_owned())
                .collect()
        })
        .collect()
}

#[test]
fn literals_concatenations_and_alternations_are_required() {
    assert_eq!(clauses("RFC 3986", false), [["rfc 3986"]]);
    assert_eq!(clauses("foo[bB]ar", false), [["foobar"]]);
    assert_eq!(clauses("(?i)Hello", false), [["hello"]]);
    assert_eq!(clauses("Hello", true), [["hello"]]);
    assert_eq!(clauses("alpha|beta", false), [["alpha", "beta"]]);
    assert_eq!(clauses("fn \\w+\\(x\\)", false), [vec!["(x)"], vec!["fn "]]);
    assert_eq!(clauses("\\bmain\\b", false), [["main"]]);
}

#[test]
fn a_regex_that_requires_nothing_checkable_filters_nothing() {
    for pattern in [
        ".", "\\w+", "a|bc", "(foo)?", "x*", "[a-z]{3}", "ab", "foo|.*",
    ] {
        assert!(Required::of(pattern, false).is_nothing(), "{pattern}");
    }
    assert!(Required::of("(", false).is_nothing());
}

/// Small regexes over a small alphabet, so that they often match generated texts.
fn regex_strategy() -> impl Strategy<Value = String> {
    let atom = prop_oneof![
        "[abcAB]{1,4}".prop_map(|s| s),
        Just(".".to_string()),
        Just("[ab]".to_string()),
        Just("[^a]".to_string()),
        Just("\\w".to_string()),
        Just("\\b".to_string()),
        Just("(?i)ab".to_string()),
        Just("é".to_string()),
        Just("\\s".to_string()),
    ];
    atom.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 1..4).prop_map(|v| v.concat()),
            prop::collection::vec(inner.clone(), 2..4).prop_map(|v| format!("(?:{})", v.join("|"))),
            (
                inner.clone(),
                prop_oneof![Just("*"), Just("+"), Just("?"), Just("{2}"), Just("{1,3}")]
            )
                .prop_map(|(r, q)| format!("(?:{r}){q}")),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// The candidates are a superset of the matching texts: a text a regex matches meets the
    /// regex's requirement, checked on the text itself and through its trigram filter.
    #[test]
    fn every_matching_text_meets_the_requirement(
        pattern in regex_strategy(),
        text in "[abcABé \n]{0,40}",
        case_insensitive in any::<bool>(),
    ) {
        let Ok(regex) = regex::RegexBuilder::new(&pattern)
            .case_insensitive(case_insensitive)
            .multi_line(true)
            .crlf(true)
            .build()
        else {
            return Ok(());
        };
        let required = Required::of(&pattern, case_insensitive);
        if regex.is_match(&text) {
            prop_assert!(required.holds_in(text.as_bytes()), "{pattern:?} matches {text:?}: {required:?}");
            prop_assert!(required.may_be_met_by(&Grams::of(text.as_bytes())), "{pattern:?} matches {text:?}: {required:?}");
        }
    }
}
