//! The crate returns facts; the binary's `src/render/edit.rs` words them for the model. This
//! fails when the crate's own (non-test) source writes a sentence again: a string literal that
//! reads as one (a capitalised word, then more words; or a second sentence after ". "), or an
//! error or note that carries free text instead of its values.

// Test code: a panic is how a test reports failure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::path::Path;

/// The string literals of `line` (plain `"…"` ones, escapes kept as written).
fn literals(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut chars = line.chars().peekable();
    let mut current: Option<String> = None;
    while let Some(c) = chars.next() {
        match (&mut current, c) {
            (None, '\'') => {
                // A char literal ('"') or a lifetime: skip a quoted character.
                if chars.peek() == Some(&'\\') {
                    chars.next();
                    chars.next();
                    if chars.peek() == Some(&'\'') {
                        chars.next();
                    }
                } else {
                    let mut ahead = chars.clone();
                    ahead.next();
                    if ahead.peek() == Some(&'\'') {
                        chars.next();
                        chars.next();
                    }
                }
            }
            (None, '"') => current = Some(String::new()),
            (Some(text), '\\') => {
                text.push('\\');
                if let Some(next) = chars.next() {
                    text.push(next);
                }
            }
            (Some(_), '"') => found.extend(current.take()),
            (Some(text), other) => text.push(other),
            (None, _) => {}
        }
    }
    found
}

/// Whether `literal` reads as a sentence for the model.
fn is_sentence(literal: &str) -> bool {
    let mut chars = literal.chars();
    let starts_capitalised = matches!(
        (chars.next(), chars.next()),
        (Some(a), Some(b)) if a.is_ascii_uppercase() && b.is_ascii_lowercase()
    );
    let second_sentence = literal
        .match_indices(". ")
        .any(|(i, _)| literal[i + 2..].starts_with(|c: char| c.is_ascii_uppercase()));
    (starts_capitalised && literal.contains(' ')) || second_sentence
}

/// Whether `literal` is a diff header naming more than the file: `a/{shown} (when proposed)`
/// (the versions a diff shows are data, worded by the binary).
fn is_diff_label(literal: &str) -> bool {
    ["a/", "b/", "--- ", "+++ "]
        .iter()
        .filter_map(|prefix| literal.strip_prefix(prefix))
        .any(|rest| rest.contains(' '))
}

/// Whether `literal` puts words into a diff: two words in a row. A diff holds the files' lines
/// and where it was cut, as data; the words of a cut are the binary's.
fn has_words(literal: &str) -> bool {
    let is_word = |w: &str| w.len() > 1 && w.chars().all(|c| c.is_ascii_alphabetic());
    literal
        .split(|c: char| !c.is_ascii_alphabetic() && c != ' ')
        .any(|part| {
            part.split(' ')
                .collect::<Vec<_>>()
                .windows(2)
                .any(|pair| is_word(pair[0]) && is_word(pair[1]))
        })
}

/// Every (file, line number, line) of the crate's source before its tests, comments left out.
fn source_lines() -> Vec<(String, usize, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut lines = Vec::new();
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    assert!(
        files.len() > 10,
        "the crate's sources were not found in {dir:?}"
    );
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = fs::read_to_string(&path).unwrap();
        for (i, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("#[cfg(test)]") {
                break;
            }
            if line.trim_start().starts_with("//") {
                continue;
            }
            lines.push((name.clone(), i + 1, line.to_string()));
        }
    }
    lines
}

#[test]
fn the_sentence_check_recognises_sentences() {
    assert!(is_sentence("The review session has ended."));
    assert!(is_sentence("{what} had no exact match. Check the diff."));
    assert!(!is_sentence("a/{shown} (when proposed)"));
    assert!(is_diff_label("a/{shown} (when proposed)"));
    assert!(is_diff_label("b/{} (on disk now)"));
    assert!(is_diff_label("+++ b/{name} (user feedback)"));
    assert!(!is_diff_label("a/{shown}"));
    assert!(!is_diff_label("b/{}"));
    assert!(!is_sentence("could not remove the review {}: {e}"));
    assert!(!is_sentence("LF"));
    assert!(has_words("… [{} more characters]"));
    assert!(has_words(
        "@@ diff cut: {} more lines not shown (the whole proposal is in the review files) @@"
    ));
    assert!(!has_words("a/{shown}"));
    assert!(!has_words("@@ -{} +{} @@"));
    assert_eq!(
        literals(r#"f(b'"', "One two.", 'x', "a \" b")"#),
        ["One two.", r#"a \" b"#]
    );
}

#[test]
fn the_crate_writes_no_sentence_for_the_model() {
    let sentences: Vec<String> = source_lines()
        .into_iter()
        .flat_map(|(file, n, line)| {
            let diff_body = file == "diff.rs";
            literals(&line)
                .into_iter()
                .filter(move |l| is_sentence(l) || is_diff_label(l) || (diff_body && has_words(l)))
                .map(move |l| format!("{file}:{n}: \"{l}\""))
        })
        .collect();
    assert!(
        sentences.is_empty(),
        "sentences for the model belong in src/render/edit.rs, as the words of a fact:\n{}",
        sentences.join("\n")
    );
}

/// The types the binary words (errors, notes, hints, near misses) hold values, not text.
#[test]
fn errors_and_notes_carry_values_not_text() {
    let worded = ["error.rs", "outcome.rs", "hints.rs", "near_miss.rs"];
    let free_text: Vec<String> = source_lines()
        .into_iter()
        .filter(|(file, _, line)| {
            worded.contains(&file.as_str())
                && (line.contains("Text(String)")
                    || line.contains("message: String")
                    || line.contains("instructions: String")
                    || line.contains("hint: String")
                    || line.contains("message: impl Into<String>"))
        })
        .map(|(file, n, line)| format!("{file}:{n}: {}", line.trim()))
        .collect();
    assert!(free_text.is_empty(), "{}", free_text.join("\n"));
}
