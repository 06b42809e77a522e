//! The search and navigation tools' errors ([`SearchError`]), `grep_content`'s notes
//! ([`GrepNote`]) and what `search_files` found ([`FoundFiles`]) as the model reads them, with
//! the parameters that bring back what a walk left out.

use std::time::Duration;

use fs_mcp_search::{
    FoundFiles, GrepNote, GrepWords, Include, LeftOut, SearchError, Stopped, UNSAFE_RULES_KINDS,
    WalkSkip,
};
use fs_mcp_text::{format_size, thousands};
use rmcp::model::CallToolResult;
use serde::Serialize;

use super::{ListedTools, error_text, sandbox};
use crate::params::{MAX_MATCHES, SECTION_PATTERNS};

/// The next step after `error`, if there is one to give.
pub fn next_step(error: &SearchError, listed: &ListedTools) -> Option<String> {
    Some(match error {
        SearchError::Access(access) => return sandbox::next_step(access, listed),
        SearchError::NotFound { .. } => sandbox::check_the_name(listed),
        SearchError::UnsafeIgnoreFile { .. } => {
            "Search with include_ignored=true (no rules read), or search a sub-directory".into()
        }
        SearchError::EmptyRegex => "Give a regex such as 'fn main' or 'TODO'".into(),
        SearchError::InvalidRegex {
            too_large: true, ..
        } => "Large counted repetitions such as a{1000}{1000} compile to huge automata; use a smaller count or a shorter literal".into(),
        SearchError::InvalidRegex { .. } => "The pattern is a Rust regex (ripgrep syntax) matched within one line (so no \\n); escape special characters like ( [ { . * + ? with a backslash, e.g. 'foo\\(' to find 'foo('".into(),
        SearchError::InvalidSectionPattern { .. } => format!("{} use Rust regex syntax (no look-around or back-references); escape special characters like ( [ {{ with a backslash", SECTION_PATTERNS.name),
        SearchError::InvalidGlob { reason: None, .. } => {
            "Use e.g. '*.rs' (file names at any depth) or 'src/**/*.rs' (paths under path)".into()
        }
        SearchError::InvalidGlob { .. } => "* matches within a name, ** any number of directories, ? one character, [abc] a set, {a,b} alternatives; escape a literal with a backslash".into(),
        SearchError::NoMatchesAllowed => {
            format!("Give {} of {} or more", MAX_MATCHES.name, MAX_MATCHES.min)
        }
        SearchError::NotADirectory { .. }
        | SearchError::NotSearchable { .. }
        | SearchError::Io { .. } => return None,
    })
}

/// `Error: <what>. <next step>.`
pub fn search_error(error: &SearchError, listed: &ListedTools) -> String {
    error_text(what_failed(error), next_step(error, listed).as_deref())
}

/// What failed, as the model reads it (the sentence before the next step). The crate's
/// `Display` states the same facts for logs; the words the model reads are these.
pub fn what_failed(error: &SearchError) -> String {
    match error {
        SearchError::Access(e) => sandbox::what_failed(e),
        SearchError::NotFound { path } => format!("{path} does not exist."),
        SearchError::NotADirectory { path } => format!("{path} is not a directory."),
        SearchError::NotSearchable { path, kind } => format!(
            "{path} is {}; only regular files (and directories of them) are searched.",
            kind.described()
        ),
        SearchError::UnsafeIgnoreFile { path } => format!(
            "{path} is {}, so it is not read as ignore rules, and the search that needs them is not run.",
            UNSAFE_RULES_KINDS
        ),
        SearchError::EmptyRegex => String::from("pattern is empty."),
        SearchError::InvalidRegex {
            pattern,
            reason,
            too_large: true,
        } => format!(
            "regex '{pattern}' is too large: {}.",
            reason.trim_end_matches('.')
        ),
        SearchError::InvalidRegex {
            pattern, reason, ..
        } => format!("invalid regex '{pattern}': {reason}"),
        SearchError::InvalidSectionPattern {
            pattern: Some(pattern),
            reason,
        } => format!(
            "invalid {} entry '{pattern}': {reason}",
            SECTION_PATTERNS.name
        ),
        SearchError::InvalidSectionPattern {
            pattern: None,
            reason,
        } => format!("invalid {}: {reason}", SECTION_PATTERNS.name),
        SearchError::InvalidGlob {
            pattern,
            reason: None,
        } => format!("empty glob pattern '{pattern}'."),
        SearchError::InvalidGlob {
            pattern,
            reason: Some(reason),
        } => format!("invalid glob '{pattern}': {reason}"),
        SearchError::NoMatchesAllowed => {
            String::from("the match limit is 0; it must be at least 1")
        }
        SearchError::Io { path, message } => format!("{path}: {message}."),
    }
}

/// A failed search call: `Error: <what>. <next step>.`
pub fn failure(error: &SearchError, listed: &ListedTools) -> CallToolResult {
    super::failure(what_failed(error), next_step(error, listed).as_deref())
}

/// A search answer, or the call's failure.
pub fn answer(result: Result<String, SearchError>, listed: &ListedTools) -> CallToolResult {
    match result {
        Ok(body) => CallToolResult::success(vec![rmcp::model::ContentBlock::text(body)]),
        Err(e) => failure(&e, listed),
    }
}

/// Words `grep_content`'s notes.
pub struct GrepNotes;

impl GrepWords for GrepNotes {
    fn note(&self, note: &GrepNote) -> String {
        grep_note(note)
    }
}

/// The text of one note of a `grep_content` answer.
pub fn grep_note(note: &GrepNote) -> String {
    match note {
        GrepNote::NoMatches {
            stopped,
            files_searched,
        } => {
            let searched = plural(*files_searched, "file", "files");
            match stopped {
                Some(Stopped::Timeout(timeout)) => format!(
                    "No matches found before the search stopped at the {} timeout ({searched} searched). Narrow search_path or the pattern.",
                    seconds(*timeout)
                ),
                Some(Stopped::Cancelled(after)) => format!(
                    "No matches found before the search was cancelled after {} ({searched} searched).",
                    seconds(*after)
                ),
                None => "No matches found.".to_string(),
            }
        }
        GrepNote::NotSearched {
            skipped,
            binary_files,
            unreadable,
        } => {
            let mut parts: Vec<String> = skipped.iter().map(|skip| walk_skip(*skip)).collect();
            if *binary_files > 0 {
                parts.push(plural(*binary_files, "binary file", "binary files"));
            }
            if *unreadable > 0 {
                parts.push(format!(
                    "{} that could not be read",
                    plural(*unreadable, "entry", "entries")
                ));
            }
            format!("Not searched: {}.", parts.join("; "))
        }
        GrepNote::Stopped {
            stopped,
            shown,
            files_searched,
        } => {
            let stop = match stopped {
                Stopped::Timeout(timeout) => {
                    format!("Search stopped after {} (timeout)", seconds(*timeout))
                }
                Stopped::Cancelled(after) => format!("Search cancelled after {}", seconds(*after)),
            };
            format!(
                "Note: {stop}; showing {} from {} searched. Narrow search_path or the pattern.",
                plural(*shown, "match", "matches"),
                plural(*files_searched, "file", "files"),
            )
        }
        GrepNote::MoreMatches {
            shown,
            total,
            at_least: true,
            files_with_matches,
            files_searched,
        } => format!(
            "Note: showing {} of at least {} matching lines (counting stopped; {} with matches among {} searched). Narrow the search: pass a sub-directory as search_path, or a more specific pattern.",
            thousands(*shown),
            thousands(*total),
            plural(*files_with_matches, "file", "files"),
            plural(*files_searched, "file", "files"),
        ),
        GrepNote::MoreMatches {
            shown,
            total,
            files_with_matches,
            files_searched,
            ..
        } => format!(
            "Note: showing the first {} of {} matching lines ({} with matches, {} searched). Narrow the search: pass a sub-directory as search_path, or a more specific pattern.",
            thousands(*shown),
            thousands(*total),
            plural(*files_with_matches, "file", "files"),
            plural(*files_searched, "file", "files"),
        ),
        GrepNote::LongLines {
            lines,
            cap,
            by_pattern,
        } => {
            let cap = format_size(*cap);
            let (verb, pronoun) = if *lines == 1 {
                ("was", "its")
            } else {
                ("were", "their")
            };
            let why = if *by_pattern {
                " This pattern's counted repetitions make each byte costly, so less of a line is searched than usual; a pattern with fewer repeated parts searches further."
            } else {
                ""
            };
            format!(
                "Note: {} longer than {cap} {verb} searched only in {pronoun} first {cap} (a match further into such a line is not found).{why}",
                plural(*lines, "line", "lines"),
            )
        }
        GrepNote::Unreadable { count } => format!(
            "Note: {} could not be read.",
            plural(*count, "file or directory", "files or directories")
        ),
    }
}

/// The parameter (set) that brings back what a walk left out.
fn include_option(include: Include) -> &'static str {
    match include {
        Include::Hidden => "include_hidden=true",
        Include::Ignored => "include_ignored=true",
    }
}

/// `not entered: their .gitignore/.ignore/.git/info/exclude is a FIFO, …`
fn unsafe_rules_not_entered() -> String {
    format!("not entered: their .gitignore/.ignore/.git/info/exclude is {UNSAFE_RULES_KINDS}")
}

/// One part of `grep_content`'s `Not searched:` line: `4 hidden entries (include_hidden=true to
/// search them)`.
fn walk_skip(skip: WalkSkip) -> String {
    let what = match skip {
        WalkSkip::Hidden { entries } => plural(entries, "hidden entry", "hidden entries"),
        WalkSkip::IgnoreRules => "files excluded by .gitignore/.ignore".into(),
        WalkSkip::UnsafeRules { dirs } => format!(
            "{} {}",
            plural(dirs, "directory", "directories"),
            unsafe_rules_not_entered()
        ),
        WalkSkip::VcsDirs => "VCS directories such as .git".into(),
    };
    format!(
        "{what} ({} to search them)",
        include_option(skip.brought_back_by())
    )
}

/// What `search_files` found, as its structured content (`{"files", "total", "note"}`) and its
/// text: the paths one per line; after a blank line, the note.
#[derive(Debug, Serialize)]
pub struct Found {
    files: Vec<String>,
    total: u64,
    /// What was cut or left out, and how to get it (one line each).
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

impl From<FoundFiles> for Found {
    fn from(found: FoundFiles) -> Found {
        let note = found_note(&found);
        Found {
            files: found.files,
            total: found.total,
            note,
        }
    }
}

impl Found {
    /// The paths one per line (or `No matches found.`); after a blank line, the note. A path is
    /// never an empty line, so the note after the blank line cannot be a file's name.
    pub fn text(&self) -> String {
        let mut out = if self.files.is_empty() {
            String::from("No matches found.")
        } else {
            self.files.join("\n")
        };
        if let Some(note) = &self.note {
            out.push_str("\n\n");
            out.push_str(note);
        }
        out
    }
}

/// The cut listing's note, then the `Skipped:` line naming the parameters that list the rest.
fn found_note(found: &FoundFiles) -> Option<String> {
    let mut notes = Vec::new();
    let shown = found.files.len() as u64;
    if found.total > shown {
        notes.push(format!(
            "Note: showing the first {} of {} matching files (sorted by path). Narrow with a sub-directory as path or a more specific pattern.",
            thousands(shown),
            thousands(found.total),
        ));
    }
    if !found.left_out.is_empty() {
        let at_least = if found.counting_stopped_after.is_some() {
            "at least "
        } else {
            ""
        };
        let parts: Vec<String> = found
            .left_out
            .iter()
            .map(|left_out| {
                let what = match *left_out {
                    LeftOut::Hidden { files } => format!(
                        "{at_least}{} under hidden names",
                        plural(files, "matching file", "matching files")
                    ),
                    LeftOut::Ignored { files } => format!(
                        "{at_least}{} excluded by .gitignore/.ignore rules or inside VCS directories",
                        plural(files, "matching file", "matching files")
                    ),
                    LeftOut::IgnoredNotCounted => "files excluded by .gitignore/.ignore rules or inside VCS directories were not all counted".into(),
                    LeftOut::UnsafeRules { dirs } => format!(
                        "{} {}",
                        plural(dirs, "directory", "directories"),
                        unsafe_rules_not_entered()
                    ),
                };
                format!("{what} ({} lists them)", include_option(left_out.listed_by()))
            })
            .collect();
        let mut line = format!("Skipped: {}", parts.join("; "));
        if let Some(entries) = found.counting_stopped_after {
            line.push_str(&format!(
                " (counting stopped after {} entries)",
                thousands(entries)
            ));
        }
        line.push('.');
        notes.push(line);
    }
    (!notes.is_empty()).then(|| notes.join("\n"))
}

/// `1 file`, `2 files`, `1,000 files`.
pub(super) fn plural(n: u64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{} {many}", thousands(n))
    }
}

/// `30 s`, `1.5 s`.
fn seconds(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(seconds(Duration::from_secs(30)), "30 s");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5 s");
    }

    /// The refusal of a cap of 0 names the parameter and its least value as declared.
    #[test]
    fn no_matches_allowed_says_the_declared_least_value() {
        let text = search_error(&SearchError::NoMatchesAllowed, &ListedTools::default());
        assert!(text.ends_with(". Give max_matches of 1 or more."), "{text}");
    }

    /// The next step after a bad section pattern names the declared parameter, worded as before.
    #[test]
    fn a_bad_section_pattern_says_the_syntax() {
        let error = SearchError::InvalidSectionPattern {
            pattern: Some("(".into()),
            reason: "unclosed group".into(),
        };
        assert_eq!(
            search_error(&error, &ListedTools::default()),
            "Error: invalid section_patterns entry '(': unclosed group. section_patterns use Rust regex syntax (no look-around or back-references); escape special characters like ( [ { with a backslash."
        );
    }

    #[test]
    fn counts() {
        assert_eq!(plural(1, "file", "files"), "1 file");
        assert_eq!(plural(2500, "file", "files"), "2,500 files");
    }

    #[test]
    fn grep_notes_keep_their_wording() {
        assert_eq!(
            grep_note(&GrepNote::MoreMatches {
                shown: 4,
                total: 15,
                at_least: false,
                files_with_matches: 5,
                files_searched: 5,
            }),
            "Note: showing the first 4 of 15 matching lines (5 files with matches, 5 files searched). Narrow the search: pass a sub-directory as search_path, or a more specific pattern."
        );
        assert_eq!(
            grep_note(&GrepNote::Stopped {
                stopped: Stopped::Timeout(Duration::from_secs(30)),
                shown: 1,
                files_searched: 5000,
            }),
            "Note: Search stopped after 30 s (timeout); showing 1 match from 5,000 files searched. Narrow search_path or the pattern."
        );
        assert_eq!(
            grep_note(&GrepNote::NoMatches {
                stopped: Some(Stopped::Timeout(Duration::ZERO)),
                files_searched: 0,
            }),
            "No matches found before the search stopped at the 0 s timeout (0 files searched). Narrow search_path or the pattern."
        );
        assert_eq!(
            grep_note(&GrepNote::NotSearched {
                skipped: vec![],
                binary_files: 1,
                unreadable: 0,
            }),
            "Not searched: 1 binary file."
        );
        assert_eq!(
            grep_note(&GrepNote::LongLines {
                lines: 1,
                cap: 8 << 20,
                by_pattern: false,
            }),
            "Note: 1 line longer than 8.00 MB was searched only in its first 8.00 MB (a match further into such a line is not found)."
        );
        assert_eq!(
            grep_note(&GrepNote::LongLines {
                lines: 2,
                cap: 13_421,
                by_pattern: true,
            }),
            "Note: 2 lines longer than 13.11 KB were searched only in their first 13.11 KB (a match further into such a line is not found). This pattern's counted repetitions make each byte costly, so less of a line is searched than usual; a pattern with fewer repeated parts searches further."
        );
    }

    #[test]
    fn what_a_walk_left_out_names_the_parameter_that_brings_it_back() {
        assert_eq!(
            grep_note(&GrepNote::NotSearched {
                skipped: vec![
                    WalkSkip::Hidden { entries: 4 },
                    WalkSkip::IgnoreRules,
                    WalkSkip::UnsafeRules { dirs: 1 },
                    WalkSkip::VcsDirs,
                ],
                binary_files: 2,
                unreadable: 1,
            }),
            format!(
                "Not searched: 4 hidden entries (include_hidden=true to search them); files excluded by .gitignore/.ignore (include_ignored=true to search them); 1 directory not entered: their .gitignore/.ignore/.git/info/exclude is {UNSAFE_RULES_KINDS} (include_ignored=true to search them); VCS directories such as .git (include_ignored=true to search them); 2 binary files; 1 entry that could not be read."
            )
        );
    }

    #[test]
    fn found_files_say_what_was_cut_and_left_out() {
        let found = Found::from(FoundFiles {
            files: vec!["a.rs".into()],
            total: 1_200,
            left_out: vec![
                LeftOut::Hidden { files: 1 },
                LeftOut::Ignored { files: 5_000 },
                LeftOut::UnsafeRules { dirs: 2 },
            ],
            counting_stopped_after: Some(5_000),
        });
        assert_eq!(
            found.text(),
            format!(
                "a.rs\n\nNote: showing the first 1 of 1,200 matching files (sorted by path). Narrow with a sub-directory as path or a more specific pattern.\nSkipped: at least 1 matching file under hidden names (include_hidden=true lists them); at least 5,000 matching files excluded by .gitignore/.ignore rules or inside VCS directories (include_ignored=true lists them); 2 directories not entered: their .gitignore/.ignore/.git/info/exclude is {UNSAFE_RULES_KINDS} (include_ignored=true lists them) (counting stopped after 5,000 entries)."
            )
        );
        let none = Found::from(FoundFiles {
            files: vec![],
            total: 0,
            left_out: vec![LeftOut::IgnoredNotCounted],
            counting_stopped_after: Some(5_000),
        });
        assert_eq!(
            none.text(),
            "No matches found.\n\nSkipped: files excluded by .gitignore/.ignore rules or inside VCS directories were not all counted (include_ignored=true lists them) (counting stopped after 5,000 entries)."
        );
        let plain = Found::from(FoundFiles {
            files: vec!["a.rs".into(), "b.rs".into()],
            total: 2,
            left_out: vec![],
            counting_stopped_after: None,
        });
        assert_eq!(plain.text(), "a.rs\nb.rs");
        assert_eq!(
            serde_json::to_value(&plain).unwrap(),
            serde_json::json!({"files": ["a.rs", "b.rs"], "total": 2})
        );
    }

    #[test]
    fn a_missing_path_names_only_listed_tools() {
        let missing = SearchError::NotFound {
            path: "nope".into(),
        };
        let listed = ListedTools::new(["directory_tree".to_string()]);
        assert_eq!(
            search_error(&missing, &listed),
            "Error: nope does not exist. Check the name with directory_tree."
        );
    }

    #[test]
    fn a_bad_pattern_gets_its_hint_as_the_next_step() {
        let bad = SearchError::InvalidGlob {
            pattern: "[a".into(),
            reason: Some("unclosed character class; missing ']'".into()),
        };
        assert_eq!(
            search_error(&bad, &ListedTools::default()),
            "Error: invalid glob '[a': unclosed character class; missing ']'. * matches within a name, ** any number of directories, ? one character, [abc] a set, {a,b} alternatives; escape a literal with a backslash."
        );
        let huge = SearchError::InvalidRegex {
            pattern: "a{1000}{1000}".into(),
            reason: "Compiled regex exceeds size limit of 10485760 bytes.".into(),
            too_large: true,
        };
        assert_eq!(
            search_error(&huge, &ListedTools::default()),
            "Error: regex 'a{1000}{1000}' is too large: Compiled regex exceeds size limit of 10485760 bytes. Large counted repetitions such as a{1000}{1000} compile to huge automata; use a smaller count or a shorter literal."
        );
    }
}
