//! The search and navigation tools' errors ([`SearchError`]) and `grep_content`'s notes
//! ([`GrepNote`]) as the model reads them.

use std::time::Duration;

use fs_mcp_search::{GrepNote, GrepWords, SearchError, Stopped};
use fs_mcp_text::{format_size, thousands};
use rmcp::model::CallToolResult;

use super::{ListedTools, error_text, failure, sandbox};

/// The next step after `error`, if there is one to give.
pub fn next_step(error: &SearchError, listed: &ListedTools) -> Option<String> {
    Some(match error {
        SearchError::Access(access) => return sandbox::next_step(access, listed),
        SearchError::NotFound { .. } => {
            match listed.any_of_or(&["search_files", "list_directory_with_sizes"], "directory_tree")
            {
                Some(tools) => format!("Check the name with {tools}"),
                None => {
                    "Check the name; a relative path resolves against the first allowed directory"
                        .into()
                }
            }
        }
        SearchError::UnsafeIgnoreFile { .. } => {
            "Search with include_ignored=true (no rules read), or search a sub-directory".into()
        }
        SearchError::EmptyRegex => "Give a regex such as 'fn main' or 'TODO'".into(),
        SearchError::InvalidRegex {
            too_large: true, ..
        } => "Large counted repetitions such as a{1000}{1000} compile to huge automata; use a smaller count or a shorter literal".into(),
        SearchError::InvalidRegex { .. } => "The pattern is a Rust regex (ripgrep syntax) matched within one line (so no \\n); escape special characters like ( [ { . * + ? with a backslash, e.g. 'foo\\(' to find 'foo('".into(),
        SearchError::InvalidSectionPattern { .. } => "section_patterns use Rust regex syntax (no look-around or back-references); escape special characters like ( [ { with a backslash".into(),
        SearchError::InvalidGlob { reason: None, .. } => {
            "Use e.g. '*.rs' (file names at any depth) or 'src/**/*.rs' (paths under path)".into()
        }
        SearchError::InvalidGlob { .. } => "* matches within a name, ** any number of directories, ? one character, [abc] a set, {a,b} alternatives; escape a literal with a backslash".into(),
        SearchError::NoMatchesAllowed => "Give max_matches of 1 or more".into(),
        SearchError::NotADirectory { .. }
        | SearchError::NotSearchable { .. }
        | SearchError::Io { .. } => return None,
        _ => return None,
    })
}

/// `Error: <what>. <next step>.`
pub fn search_error(error: &SearchError, listed: &ListedTools) -> String {
    error_text(error, next_step(error, listed).as_deref())
}

/// A search answer, or the call's failure.
pub fn answer(result: Result<String, SearchError>, listed: &ListedTools) -> CallToolResult {
    match result {
        Ok(body) => crate::tools::text(body),
        Err(e) => failure(&e, next_step(&e, listed).as_deref()),
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
            let mut parts = Vec::new();
            if let Some(skipped) = skipped {
                parts.push(skipped.clone());
            }
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
        GrepNote::LongLines { lines, cap } => {
            let cap = format_size(*cap);
            let (verb, pronoun) = if *lines == 1 {
                ("was", "its")
            } else {
                ("were", "their")
            };
            format!(
                "Note: {} longer than {cap} {verb} searched only in {pronoun} first {cap} (a match further into such a line is not found).",
                plural(*lines, "line", "lines"),
            )
        }
        GrepNote::Unreadable { count } => format!(
            "Note: {} could not be read.",
            plural(*count, "file or directory", "files or directories")
        ),
    }
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
                skipped: None,
                binary_files: 1,
                unreadable: 0,
            }),
            "Not searched: 1 binary file."
        );
        assert_eq!(
            grep_note(&GrepNote::LongLines {
                lines: 1,
                cap: 8 << 20,
            }),
            "Note: 1 line longer than 8.00 MB was searched only in its first 8.00 MB (a match further into such a line is not found)."
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
