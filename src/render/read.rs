//! `read_files`' and `read_media_file`'s errors ([`ReadError`], [`MediaError`]) and the notes of a
//! reply ([`Note`]) as the model reads them: the crate's facts, then a next step naming only
//! listed tools.

use fs_mcp_read::{
    LineLen, MediaError, Note, ReadError, ReadOn, ReadWords, Shown, StructuredKind, format_size,
    thousands,
};
use fs_mcp_sandbox::{AccessError, EntryKind};
use fs_mcp_text::describe_io;

use super::{ListedTools, error_text, sandbox};

/// Words a `read_files` reply: its failed items and its notes, naming only listed tools.
pub struct ReplyWords<'a> {
    /// The tools the server lists.
    pub listed: &'a ListedTools,
}

impl ReadWords for ReplyWords<'_> {
    fn error(&self, error: &ReadError) -> String {
        read_error(error, self.listed)
    }

    fn note(&self, note: &Note) -> String {
        note_text(note, self.listed)
    }
}

/// The text of one note (after `[TAG] Note: `, or `[TAG] Cut: ` for a cut line).
pub fn note_text(note: &Note, listed: &ListedTools) -> String {
    match note {
        Note::ReplyCut {
            cap,
            shown,
            read_on,
        } => format!(
            "Reply limit ({} bytes) reached: {}. Read on with {}.",
            thousands(*cap as u64),
            shown_text(shown),
            read_on_text(read_on)
        ),
        Note::LineUnended {
            line: Some(line),
            scan,
            read_on,
        } => format!(
            "Line {} has no line break within {} after its shown part, so the lines after it were not read. Read on with {}.",
            thousands(*line),
            format_size(*scan),
            read_on_text(read_on)
        ),
        Note::LineUnended {
            line: None,
            scan,
            read_on,
        } => format!(
            "A line has no line break within {} after its shown part, so the lines after it were not read. Read them with {}.",
            format_size(*scan),
            read_on_text(read_on)
        ),
        Note::PatternNotFound { pattern, start } => format!(
            "Pattern '{pattern}' not found after line {start}; read to the end of the file."
        ),
        Note::PatternWorkSpent {
            pattern,
            line,
            shown,
            read_on,
        } => format!(
            "Stopped looking for pattern '{pattern}' at line {}: it is costly to run and one call searches a bounded amount of text with it; {}. Read on with {}, or use a simpler pattern or an end_line.",
            thousands(*line),
            shown_text(shown),
            read_on_text(read_on)
        ),
        Note::PatternLinesPartlySearched {
            pattern,
            lines,
            bytes,
        } => format!(
            "Pattern '{pattern}' is costly to run, so it was looked for only in the first {} bytes of each line: {} longer {} not searched past that.",
            thousands(*bytes as u64),
            thousands(*lines),
            if *lines == 1 {
                "line was"
            } else {
                "lines were"
            }
        ),
        Note::TailPartial { lines, scan } => format!(
            "Only the last {} lines are shown: the line before them is longer than the {} that tail searches back from the end.",
            thousands(*lines),
            format_size(*scan)
        ),
        Note::LongLastLine { scan, shown } => format!(
            "The last line has no line break in the last {} of the file, so only its last {} bytes are shown.",
            format_size(*scan),
            thousands(*shown as u64)
        ),
        Note::NotRead {
            cap,
            first,
            total,
            names,
        } => not_read_text(*cap, *first, *total, names),
        Note::LineCut {
            line,
            len,
            shown,
            by_budget,
            line_cap,
            cap,
        } => {
            let subject = match line {
                Some(n) => format!("line {}", thousands(*n)),
                None => "this line".to_string(),
            };
            let length = match len {
                LineLen::Exact(n) => format!("has {} bytes", thousands(*n)),
                LineLen::AtLeast(n) => format!("has more than {} bytes", thousands(*n)),
            };
            let mut hint = if *by_budget {
                "the rest does not fit in this reply".to_string()
            } else {
                format!(
                    "large_file_passthrough=true lifts the {}-byte line limit (the {}-byte reply limit stays)",
                    thousands(*line_cap as u64),
                    thousands(*cap as u64)
                )
            };
            if let Some(tool) = listed.any_of(&["grep_content"]) {
                hint.push_str(&format!("; {tool} finds text in it"));
            }
            format!(
                "{subject} {length}; the first {} are shown; {hint}.",
                thousands(*shown as u64)
            )
        }
    }
}

/// What a block cut at the reply cap shows.
fn shown_text(shown: &Shown) -> String {
    match shown {
        Shown::Lines { first, last } => {
            format!("lines {}–{} are shown", thousands(*first), thousands(*last))
        }
        Shown::NoLine => "no line is shown".to_string(),
        Shown::FirstLineCut => "line 1 does not fit and is cut".to_string(),
        Shown::TailLines { shown, of } => format!(
            "the first {} of the last {} lines are shown",
            thousands(*shown),
            thousands(*of)
        ),
    }
}

/// The arguments of the item that reads on, as the model passes them back.
fn read_on_text(read_on: &ReadOn) -> String {
    match read_on {
        ReadOn::From {
            path,
            start,
            end,
            pattern,
        } => {
            let mut text = format!("{{\"path\": {}, \"start_line\": {start}", json_quote(path));
            if let Some(end) = end {
                text.push_str(&format!(", \"end_line\": {end}"));
            }
            if let Some(pattern) = pattern {
                text.push_str(&format!(
                    ", \"read_to_next_pattern\": {}",
                    json_quote(pattern)
                ));
            }
            text.push('}');
            text
        }
        ReadOn::Tail { path, lines } => {
            format!("{{\"path\": {}, \"tail\": {lines}}}", json_quote(path))
        }
    }
}

/// A JSON string literal, every control character escaped (C1 and DEL too, unlike
/// [`json_string`], so a pattern's bytes cannot break the note's line).
fn json_quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The last note of a reply whose cap was reached before item `first` (0-based) of `total`.
fn not_read_text(cap: usize, first: usize, total: usize, names: &[String]) -> String {
    let total_text = thousands(total as u64);
    let items = if first + 1 == total {
        format!("item {total_text} of {total_text} was not read")
    } else {
        format!(
            "items {}–{total_text} of {total_text} were not read",
            thousands(first as u64 + 1)
        )
    };
    let mut list = names.join(", ");
    if total - first > names.len() {
        list.push_str(", …");
    }
    format!(
        "Reply limit ({} bytes) reached: {items} ({list}). Ask for them in another call.",
        thousands(cap as u64)
    )
}

/// Example queries shown when none could be made from the file.
const GENERIC_QUERIES: [&str; 3] = ["keys", ".[0:5]", "length"];

/// `Error: <what>. <next step>.`, for the frame of a failed item (after the reply's tag).
pub fn read_error(error: &ReadError, listed: &ListedTools) -> String {
    error_text(what_failed(error), next_step(error, listed).as_deref())
}

/// What failed, as the model reads it (the sentence before the next step). The crate's
/// `Display` states the same facts for logs; the words the model reads are these.
pub fn what_failed(error: &ReadError) -> String {
    match error {
        ReadError::Access { path, error } => match error {
            AccessError::NotFound { .. } => format!("File not found: {path}"),
            AccessError::NotRegular {
                kind: EntryKind::Dir,
                ..
            } => format!("{path} is a directory, not a file"),
            AccessError::NotRegular { kind, .. } => format!(
                "{path} is {}, not a regular file; only regular files are read (a pipe, socket or device could block or never end)",
                kind.described()
            ),
            other => sandbox::what_failed(other),
        },
        ReadError::Negative { name, value } => format!("{name}={value} is negative"),
        ReadError::MixedModes => {
            String::from("Cannot mix start_line/end_line/read_to_next_pattern with head/tail")
        }
        ReadError::HeadAndTail => String::from("Cannot use head and tail together"),
        ReadError::EndLineWithPattern { end_line, pattern } => format!(
            "end_line={end_line} and read_to_next_pattern='{pattern}' cannot be used together"
        ),
        ReadError::PatternWithoutStart { pattern } => format!(
            "read_to_next_pattern='{pattern}' needs a start_line to know where to begin scanning"
        ),
        ReadError::BadPattern { pattern, error } => {
            // The parser's error spans lines (the pattern, a caret); the reply's frame line
            // holds one.
            let error = error.to_string().replace('\n', " ");
            format!("Invalid read_to_next_pattern '{pattern}': {error}")
        }
        ReadError::EndBeforeStart { start, end } => {
            format!("end_line ({end}) is before start_line ({start})")
        }
        ReadError::StartPastEnd { path, start, lines } => {
            format!("Invalid start_line={start}: {path} only has {lines} lines")
        }
        ReadError::Binary { path } => format!("{path} is a binary file (not UTF-8 text)"),
        ReadError::NotUtf8 { path, line } => {
            format!("{path} is not valid UTF-8 text at line {line}")
        }
        ReadError::TooLarge {
            path,
            size,
            structured,
            ..
        } => {
            let kind = match structured {
                Some(StructuredKind::Json) => "a large JSON file",
                Some(StructuredKind::Yaml) => "a large YAML file",
                None => "large",
            };
            format!(
                "{path} is {kind} ({}, ~{} tokens); reading it whole may overflow your context window",
                format_size(*size),
                thousands(size / 4)
            )
        }
        ReadError::Io { path, error } => {
            format!("Cannot read {path}: {}", describe_io(error))
        }
    }
}

/// The next step after `error`, if there is one to give.
pub fn next_step(error: &ReadError, listed: &ListedTools) -> Option<String> {
    Some(match error {
        ReadError::Access { error, .. } => return access_step(error, listed),
        ReadError::Negative { name, .. } => {
            let what = match *name {
                "head" | "tail" => "a number of lines, 1 or more",
                _ => "a 1-based line number",
            };
            format!("Give {name} as {what}")
        }
        ReadError::MixedModes => {
            "Use head or tail alone, or start_line with end_line or read_to_next_pattern".into()
        }
        ReadError::HeadAndTail => {
            "Make two requests for the same path, one with head and one with tail".into()
        }
        ReadError::EndLineWithPattern { .. } => {
            "Choose one way to end the read: end_line or read_to_next_pattern".into()
        }
        ReadError::PatternWithoutStart { .. } => "Provide a start_line".into(),
        ReadError::BadPattern { .. } => "Use a valid regular expression (Rust regex syntax; no look-around or back-references); escape special characters such as ( [ { with a backslash".into(),
        ReadError::EndBeforeStart { start, .. } => format!(
            "Use an end_line of at least {start}, or leave it out to read to the end of the file"
        ),
        ReadError::StartPastEnd { lines: 0, .. } => {
            "The file is empty; read it without start_line".into()
        }
        ReadError::StartPastEnd { lines, .. } => {
            let mut step = format!("Choose a start_line between 1 and {lines}");
            if let Some(grep) = listed.any_of(&["grep_content"]) {
                step.push_str(&format!("; {grep} finds line numbers"));
            }
            step
        }
        ReadError::Binary { .. } => {
            let media = listed
                .any_of(&["read_media_file"])
                .map(|tool| format!("{tool} for images and audio"));
            let info = listed
                .any_of(&["get_file_info"])
                .map(|tool| format!("{tool} to see its type and size"));
            match (media, info) {
                (Some(media), Some(info)) => format!("Use {media}, or {info}"),
                (Some(one), None) | (None, Some(one)) => format!("Use {one}"),
                (None, None) => return None,
            }
        }
        ReadError::NotUtf8 { .. } => match listed.any_of(&["get_file_info"]) {
            Some(info) => format!("Read a line range before it, or inspect the file with {info}"),
            None => "Read a line range before it".into(),
        },
        ReadError::TooLarge {
            path,
            structured,
            examples,
            ..
        } => too_large_step(path, *structured, examples, listed),
        ReadError::Io { .. } => return None,
    })
}

/// What to do with a path the sandbox would not open for reading.
fn access_step(error: &AccessError, listed: &ListedTools) -> Option<String> {
    match error {
        AccessError::NotFound { .. } => {
            let mut step = "Check the path".to_string();
            if let Some(tools) = listed.any_of(&["search_files", "directory_tree"]) {
                let verb = if tools.contains(" or ") {
                    "show"
                } else {
                    "shows"
                };
                step.push_str(&format!("; {tools} {verb} what exists"));
            }
            step.push_str("; relative paths resolve against the first allowed directory");
            if listed.has("list_allowed_directories") {
                step.push_str(" (list_allowed_directories)");
            }
            Some(step)
        }
        AccessError::NotRegular {
            kind: EntryKind::Dir,
            ..
        } => Some(
            match listed.any_of_or(
                &["directory_tree", "list_directory_with_sizes"],
                "list_directory",
            ) {
                Some(tools) => {
                    format!("Use {tools} to see what it contains, then read a file in it")
                }
                None => "Read a file in it".to_string(),
            },
        ),
        AccessError::NotRegular { .. } => {
            let mut step = "Read the regular file that holds the data instead".to_string();
            if let Some(info) = listed.any_of(&["get_file_info"]) {
                step.push_str(&format!("; {info} shows what a path is"));
            }
            Some(step)
        }
        other => sandbox::next_step(other, listed),
    }
}

/// A whole read over the size guard: a query (for JSON/YAML), a partial read, a search.
fn too_large_step(
    path: &str,
    structured: Option<StructuredKind>,
    examples: &[String],
    listed: &ListedTools,
) -> String {
    let quoted = json_string(path);
    let query_tool = match structured {
        Some(StructuredKind::Json) => listed.any_of(&["query_json"]),
        Some(StructuredKind::Yaml) => listed.any_of(&["query_yaml"]),
        None => None,
    };
    let mut steps = Vec::new();
    if let Some(tool) = query_tool {
        let queries: Vec<String> = if examples.is_empty() {
            GENERIC_QUERIES.iter().map(|q| q.to_string()).collect()
        } else {
            examples.to_vec()
        };
        let calls: Vec<String> = queries
            .iter()
            .map(|q| format!("{tool}({quoted}, {})", json_string(q)))
            .collect();
        steps.push(format!("Query it instead: {}", calls.join(", ")));
    }
    steps.push(format!(
        "Read part of it: {{\"path\": {quoted}, \"head\": 200}}, {{\"path\": {quoted}, \"start_line\": 1000, \"end_line\": 1200}} or {{\"path\": {quoted}, \"tail\": 100}}"
    ));
    if let Some(grep) = listed.any_of(&["grep_content"]) {
        steps.push(format!("find the lines you need with {grep}"));
    }
    steps.push("as a last resort, set large_file_passthrough=true".into());
    steps.join("; ")
}

/// A JSON string literal (a name or a query as the model passes it back).
fn json_string(text: &str) -> String {
    serde_json::Value::String(text.to_string()).to_string()
}

/// `Error: <what>. <next step>.` for `read_media_file`.
pub fn media_error(error: &MediaError, listed: &ListedTools) -> String {
    let step = match error {
        MediaError::Access(access) => sandbox::next_step(access, listed),
        MediaError::NotFound { .. } => Some(sandbox::check_the_name(listed)),
        MediaError::TooLarge { .. } => listed
            .any_of(&["get_file_info"])
            .map(|tool| format!("{tool} describes it without reading it")),
        MediaError::NotRegular { .. } | MediaError::Io { .. } => None,
    };
    error_text(media_what_failed(error), step.as_deref())
}

/// What a failed `read_media_file` met, in words (every variant; the crate's `Display` is for
/// logs).
fn media_what_failed(error: &MediaError) -> String {
    match error {
        MediaError::Access(access) => sandbox::what_failed(access),
        MediaError::NotFound { path } => format!("{path} does not exist"),
        MediaError::NotRegular { path, kind } => {
            format!("{path} is {}, not a regular file", kind.described())
        }
        MediaError::TooLarge { path, size, limit } => format!(
            "{path} is {} ({} bytes), larger than the {} limit",
            format_size(*size),
            thousands(*size),
            format_size(*limit)
        ),
        MediaError::Io { path, error } => format!("{path}: {}", describe_io(error)),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn all() -> ListedTools {
        ListedTools::new(
            [
                "read_files",
                "grep_content",
                "search_files",
                "directory_tree",
                "list_allowed_directories",
                "query_json",
                "get_file_info",
                "read_media_file",
            ]
            .map(String::from),
        )
    }

    fn missing() -> ReadError {
        ReadError::Access {
            path: "a.txt".into(),
            error: AccessError::NotFound {
                requested: "a.txt".into(),
                path: PathBuf::from("/w/a.txt"),
            },
        }
    }

    #[test]
    fn a_missing_file_says_how_to_find_it() {
        assert_eq!(
            read_error(&missing(), &all()),
            "Error: File not found: a.txt. Check the path; search_files or directory_tree show what exists; relative paths resolve against the first allowed directory (list_allowed_directories)."
        );
        assert_eq!(
            read_error(&missing(), &ListedTools::new(["read_files".to_string()])),
            "Error: File not found: a.txt. Check the path; relative paths resolve against the first allowed directory."
        );
    }

    #[test]
    fn a_large_json_file_is_steered_to_listed_queries() {
        let big = ReadError::TooLarge {
            path: "big.json".into(),
            size: 400_000,
            structured: Some(StructuredKind::Json),
            examples: vec![".items[0:3]".into()],
        };
        assert_eq!(
            read_error(&big, &all()),
            "Error: big.json is a large JSON file (390.62 KB, ~100,000 tokens); reading it whole may overflow your context window. Query it instead: query_json(\"big.json\", \".items[0:3]\"); Read part of it: {\"path\": \"big.json\", \"head\": 200}, {\"path\": \"big.json\", \"start_line\": 1000, \"end_line\": 1200} or {\"path\": \"big.json\", \"tail\": 100}; find the lines you need with grep_content; as a last resort, set large_file_passthrough=true."
        );
        let text = read_error(&big, &ListedTools::new(["read_files".to_string()]));
        assert!(
            !text.contains("query_json") && !text.contains("grep_content"),
            "{text}"
        );
    }

    #[test]
    fn a_start_past_the_end_says_the_range() {
        let past = ReadError::StartPastEnd {
            path: "five.txt".into(),
            start: 6,
            lines: 5,
        };
        assert_eq!(
            read_error(&past, &all()),
            "Error: Invalid start_line=6: five.txt only has 5 lines. Choose a start_line between 1 and 5; grep_content finds line numbers."
        );
    }

    #[test]
    fn notes_keep_their_wording() {
        let listed = all();
        let cut = Note::ReplyCut {
            cap: 4096,
            shown: Shown::Lines { first: 1, last: 87 },
            read_on: ReadOn::From {
                path: "parts.txt".into(),
                start: 88,
                end: None,
                pattern: None,
            },
        };
        assert_eq!(
            note_text(&cut, &listed),
            "Reply limit (4,096 bytes) reached: lines 1–87 are shown. Read on with {\"path\": \"parts.txt\", \"start_line\": 88}."
        );
        let not_read = Note::NotRead {
            cap: 4096,
            first: 1,
            total: 3,
            names: vec!["five.txt".into(), "nonl.txt".into()],
        };
        assert_eq!(
            note_text(&not_read, &listed),
            "Reply limit (4,096 bytes) reached: items 2–3 of 3 were not read (five.txt, nonl.txt). Ask for them in another call."
        );
        let pattern = Note::PatternNotFound {
            pattern: "^class ".into(),
            start: 6,
        };
        assert_eq!(
            note_text(&pattern, &listed),
            "Pattern '^class ' not found after line 6; read to the end of the file."
        );
        let tail = Note::LineUnended {
            line: None,
            scan: 8 << 20,
            read_on: ReadOn::Tail {
                path: "a\"b".into(),
                lines: 3,
            },
        };
        assert_eq!(
            note_text(&tail, &listed),
            "A line has no line break within 8.00 MB after its shown part, so the lines after it were not read. Read them with {\"path\": \"a\\\"b\", \"tail\": 3}."
        );
    }

    #[test]
    fn media_errors_are_worded_here() {
        let listed = all();
        let too_large = MediaError::TooLarge {
            path: "big.png".into(),
            size: 2048,
            limit: 1024,
        };
        assert_eq!(
            media_what_failed(&too_large),
            "big.png is 2.00 KB (2,048 bytes), larger than the 1.00 KB limit"
        );
        let fifo = MediaError::NotRegular {
            path: "pipe".into(),
            kind: EntryKind::Fifo,
        };
        assert_eq!(
            media_what_failed(&fifo),
            format!(
                "pipe is {}, not a regular file",
                EntryKind::Fifo.described()
            )
        );
        let missing = MediaError::NotFound {
            path: "x.png".into(),
        };
        assert_eq!(media_what_failed(&missing), "x.png does not exist");
        let io = MediaError::Io {
            path: "y.png".into(),
            error: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
        };
        assert_eq!(media_what_failed(&io), "y.png: permission denied");
        // The crate's Display is a log line, never the model's sentence.
        assert_ne!(too_large.to_string(), media_what_failed(&too_large));
        assert!(media_error(&missing, &listed).starts_with("Error: x.png does not exist."));
    }

    #[test]
    fn a_cut_line_names_grep_content_only_when_listed() {
        let cut = Note::LineCut {
            line: Some(1),
            len: LineLen::Exact(20),
            shown: 4,
            by_budget: false,
            line_cap: 5,
            cap: 50_000,
        };
        assert_eq!(
            note_text(&cut, &ListedTools::default()),
            "line 1 has 20 bytes; the first 4 are shown; large_file_passthrough=true lifts the 5-byte line limit (the 50,000-byte reply limit stays)."
        );
        assert_eq!(
            note_text(&cut, &all()),
            "line 1 has 20 bytes; the first 4 are shown; large_file_passthrough=true lifts the 5-byte line limit (the 50,000-byte reply limit stays); grep_content finds text in it."
        );
    }

    #[test]
    fn a_binary_file_names_what_is_listed() {
        let binary = ReadError::Binary {
            path: "x.png".into(),
        };
        assert_eq!(
            read_error(&binary, &all()),
            "Error: x.png is a binary file (not UTF-8 text). Use read_media_file for images and audio, or get_file_info to see its type and size."
        );
        assert_eq!(
            read_error(&binary, &ListedTools::default()),
            "Error: x.png is a binary file (not UTF-8 text)."
        );
    }
}
