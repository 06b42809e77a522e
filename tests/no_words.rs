//! One words layer: the tool crates return facts, and the binary's `src/render/` words them for
//! the model. This fails when a tool crate's own (non-test) source writes a sentence: a string
//! literal that reads as one (a capitalised word and more words, or a second sentence after
//! ". "). `gemini_compat` is left out: it is a library for others, whose reports are its API.

use std::path::{Path, PathBuf};

/// The crates whose words the binary writes.
const TOOL_CRATES: [&str; 8] = [
    "edit", "index", "query", "read", "sandbox", "search", "text", "worklog",
];

/// Files whose sentences are not the server's words. `query/natives.rs`: the error values of jq's
/// builtins ("Cannot iterate over …"), which a query can `try … catch` and compare; they mirror
/// jq's own messages and are part of the query language.
const SKIPPED: [&str; 1] = ["query/natives.rs"];

/// The string literals of `line` (plain `"…"` ones, escapes kept as written).
fn literals(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut chars = line.chars().peekable();
    let mut current: Option<String> = None;
    while let Some(c) = chars.next() {
        match (&mut current, c) {
            // A char literal ('"', '\'') or a lifetime: skip the quoted character.
            (None, '\'') => {
                let mut ahead = chars.clone();
                match (ahead.next(), ahead.next()) {
                    (Some('\\'), _) => {
                        chars.next();
                        chars.next();
                        if chars.peek() == Some(&'\'') {
                            chars.next();
                        }
                    }
                    (Some(_), Some('\'')) => {
                        chars.next();
                        chars.next();
                    }
                    _ => {}
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

/// Whether `literal` reads as a sentence for the model: a capitalised word followed by at least
/// two more runs of letters, or a second sentence after ". ". Reply framing ("File: {}, ",
/// "Line: {n}") has a capitalised label but is not a sentence: fewer than three words.
fn is_sentence(literal: &str) -> bool {
    let mut chars = literal.chars();
    let starts_capitalised = matches!(
        (chars.next(), chars.next()),
        (Some(a), Some(b)) if a.is_ascii_uppercase() && b.is_ascii_lowercase()
    );
    // Runs of letters: a named placeholder (`{error}`) counts, numbers and `{}` do not.
    let words = literal
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
        .count();
    let second_sentence = literal
        .match_indices(". ")
        .any(|(i, _)| literal[i + 2..].starts_with(|c: char| c.is_ascii_uppercase()));
    (starts_capitalised && literal.contains(' ') && words >= 3) || second_sentence
}

/// Every `.rs` file under `dir`, sorted.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("source folder") {
            let path = entry.expect("folder entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The sentence-like literals of a crate's non-test source: `file:line: "literal"`.
fn sentences_of(krate: &str) -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("crates")
        .join(krate)
        .join("src");
    let files = sources(&src);
    assert!(!files.is_empty(), "no source found in {}", src.display());
    let mut found = Vec::new();
    for path in files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // A file of tests only (`tests.rs`, `tests/…`) says what it likes.
        if name == "tests.rs" || path.components().any(|c| c.as_os_str() == "tests") {
            continue;
        }
        if SKIPPED.contains(&format!("{krate}/{name}").as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("source file");
        for (i, line) in text.lines().enumerate() {
            let trimmed = line.trim_start();
            // Inline test modules come last in every file of this workspace.
            if trimmed.starts_with("#[cfg(test)]") {
                break;
            }
            if trimmed.starts_with("//") {
                continue;
            }
            for literal in literals(line).into_iter().filter(|l| is_sentence(l)) {
                let shown = path
                    .strip_prefix(&src)
                    .unwrap_or(&path)
                    .display()
                    .to_string();
                found.push(format!(
                    "crates/{krate}/src/{shown}:{}: \"{literal}\"",
                    i + 1
                ));
            }
        }
    }
    found
}

#[test]
fn no_tool_crate_writes_a_sentence_for_the_model() {
    let found: Vec<String> = TOOL_CRATES.iter().flat_map(|k| sentences_of(k)).collect();
    assert!(
        found.is_empty(),
        "sentences for the model belong in src/render/, as the words of a fact the crate \
         returns (an enum variant with its values); Display stays a terse line for logs:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_recognises_sentences() {
    assert!(is_sentence("The review session has ended."));
    assert!(is_sentence("{what} had no exact match. Check the diff."));
    assert!(!is_sentence("could not remove the review {}: {e}"));
    assert!(!is_sentence("invalid UTF-8 at byte {offset}"));
    assert!(!is_sentence("LF"));
    // Reply framing: a label and a value, not a sentence.
    assert!(!is_sentence("File: {}, "));
    assert!(!is_sentence("Line: {n}"));
    assert!(!is_sentence("Lines: "));
    assert!(!is_sentence("Error: {e}"));
    // Sentences with placeholders still count; placeholders and numbers are not words.
    assert!(is_sentence("Cannot access '{}': {error}"));
    assert!(is_sentence(
        "The file is not valid JSON: {msg} at line {line}"
    ));
    assert!(is_sentence("Access denied: '{}' resolves to '{}'"));
    assert!(!is_sentence("Line {n}: {}"));
    assert!(!is_sentence("Total 12 of 40"));
    // A path of Rust items, as in `#[serde(skip_serializing_if = "Option::is_none")]`.
    assert!(!is_sentence("Option::is_none"));
    assert_eq!(
        literals(r#"f(b'"', "One two.", 'x', '\'', "a \" b")"#),
        ["One two.", r#"a \" b"#]
    );
}

#[test]
fn the_check_finds_a_sentence_in_a_crate() {
    // Every tool crate's folder is read: an empty list would pass vacuously.
    for krate in TOOL_CRATES {
        let src = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("crates")
            .join(krate)
            .join("src");
        assert!(src.join("lib.rs").exists(), "{krate}: no src/lib.rs");
    }
    let planted = literals(r#"return Err(Error::new("Nothing was written. Try again."));"#);
    assert!(planted.iter().any(|l| is_sentence(l)));
}
