//! `read_files`' and `read_media_file`'s errors ([`ReadError`], [`MediaError`]) as the model
//! reads them: the crate's facts, then a next step naming only listed tools.

use fs_mcp_read::{MediaError, ReadError, StructuredKind};
use fs_mcp_sandbox::{AccessError, EntryKind};

use super::{ListedTools, error_text, sandbox};

/// Example queries shown when none could be made from the file.
const GENERIC_QUERIES: [&str; 3] = ["keys", ".[0:5]", "length"];

/// `Error: <what>. <next step>.`, for the frame of a failed item (after the reply's tag).
pub fn read_error(error: &ReadError, listed: &ListedTools) -> String {
    error_text(error, next_step(error, listed).as_deref())
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
        _ => return None,
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
        MediaError::NotFound { .. } => listed
            .any_of_or(
                &["search_files", "list_directory_with_sizes"],
                "directory_tree",
            )
            .map(|tools| format!("Check the name with {tools}")),
        MediaError::TooLarge { .. } => listed
            .any_of(&["get_file_info"])
            .map(|tool| format!("{tool} describes it without reading it")),
        _ => None,
    };
    error_text(error, step.as_deref())
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
