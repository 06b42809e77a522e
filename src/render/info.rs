//! `get_file_info`'s answer as the model reads it: the facts, the analysis and the advice on how
//! to read a file, worded from the crate's data ([`FileInfo`]); the advice names only the tools
//! this server lists.
//!
//! ```text
//! Path: logs/app.log
//! Type: File
//! Size: 1.21 MB (1,268,736 bytes)
//! Modified: 2026-11-21T10:22:33Z
//!
//! --- Text File Analysis ---
//! Lines: 15,230
//! Estimated tokens: ~317,184 (bytes ÷ 4)
//!
//! --- Chunking Strategy ---
//! Large file: read it in parts, not whole.
//!   1. Sample the start: read_files(files=[{"path": "logs/app.log", "head": 50}])
//!   2. Then chunks of ~480 lines (~32 chunks), e.g.
//!      read_files(files=[{"path": "logs/app.log", "start_line": 1, "end_line": 480}])
//!      read_files(files=[{"path": "logs/app.log", "start_line": 481, "end_line": 960}])
//!   3. Or find the part you need first: grep_content(pattern="...", search_path="logs/app.log")
//! Estimated tokens per chunk: ~10,000
//! ```

use fs_mcp_search::{
    ChunkPlan, DataFormat, Details, FileInfo, FirstValue, InfoBatch, InfoItem, JsonKeys,
    JsonPreview, JsonType, LIST_COLUMNS, LIST_KEYS, MAX_INFO_PATHS, Preview, Reading, TextAnalysis,
    TextEnds,
};
use fs_mcp_text::{Keep, Marker, format_size, thousands, truncate};
use serde::Serialize;

use super::ListedTools;
use super::search::plural;

/// Characters of a first or last line shown in a text file's preview.
const PREVIEW_CHARS: usize = 100;

/// One file's answer: `Path:`, `Type:`, `Size:`, `Modified:` lines, then the analysis.
pub fn file_text(info: &FileInfo, listed: &ListedTools) -> String {
    let mut out = vec![format!("Path: {}", info.path)];
    let details = detail_lines(info, listed);
    let mut details = details.iter();
    // The type line of a file or directory is the kind; another entry's says what it is (and
    // is the first line of its details).
    match info.details {
        Details::Directory(_) => out.push("Type: Directory".into()),
        Details::Other(_) => out.extend(details.next().cloned()),
        Details::Unanalyzed(_) | Details::Binary { .. } | Details::Text(_) => {
            out.push("Type: File".into())
        }
    }
    if let Some(size) = info.size {
        out.push(format!(
            "Size: {} ({} bytes)",
            format_size(size),
            thousands(size)
        ));
    }
    out.push(format!("Modified: {}", info.modified));
    out.extend(details.cloned());
    out.join("\n")
}

/// Several paths' answers, each starting with its `Path:` line, separated by a blank line; a
/// failed path's block is its `Path:` line and its error; a last note names the paths left out.
pub fn batch_text(batch: &InfoBatch, listed: &ListedTools) -> String {
    let mut blocks: Vec<String> = batch
        .files
        .iter()
        .map(|item| match item {
            InfoItem::Described(info) => file_text(info, listed),
            InfoItem::Failed { path, error } => {
                format!(
                    "Path: {path}\n{}",
                    super::search::search_error(error, listed)
                )
            }
        })
        .collect();
    if let Some(rest) = &batch.not_described {
        let next = serde_json::to_string(&rest.next).unwrap_or_default();
        blocks.push(format!(
            "Note: {} more paths not described ({MAX_INFO_PATHS} per call): call again with the rest, from {next} on.",
            thousands(rest.count)
        ));
    }
    blocks.join("\n\n")
}

/// One path as structured content (`get_file_info`'s outputSchema): the facts, and the analysis
/// as the text says it; or the path and its error.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Facts {
    /// A described path.
    Described {
        /// As displayed.
        path: String,
        /// `file`, `directory` or `other`.
        #[serde(rename = "type")]
        kind: &'static str,
        /// A file's bytes.
        #[serde(skip_serializing_if = "Option::is_none")]
        size: Option<u64>,
        /// UTC, RFC 3339.
        modified: String,
        /// A text file's lines.
        #[serde(skip_serializing_if = "Option::is_none")]
        lines: Option<u64>,
        /// The text after the facts.
        #[serde(skip_serializing_if = "String::is_empty")]
        details: String,
    },
    /// A path that could not be described.
    Failed {
        /// As given.
        path: String,
        /// The error, as the text says it.
        error: String,
    },
}

/// The structured content of one path.
pub fn facts(item: &InfoItem, listed: &ListedTools) -> Facts {
    match item {
        InfoItem::Described(info) => Facts::Described {
            path: info.path.clone(),
            kind: info.kind(),
            size: info.size,
            modified: info.modified.clone(),
            lines: info.lines(),
            details: detail_lines(info, listed).join("\n").trim().to_string(),
        },
        InfoItem::Failed { path, error } => Facts::Failed {
            path: path.clone(),
            error: super::search::search_error(error, listed),
        },
    }
}

/// What the text says after the facts, one line each (a blank line before each section); for
/// an entry that is neither file nor directory, its first line is the type line.
fn detail_lines(info: &FileInfo, listed: &ListedTools) -> Vec<String> {
    match &info.details {
        Details::Directory(Some(entries)) => vec![format!(
            "Entries: {} ({}, {})",
            thousands(entries.dirs + entries.files),
            plural(entries.dirs, "directory", "directories"),
            plural(entries.files, "file", "files")
        )],
        Details::Directory(None) => vec!["Entries: unreadable (permission denied?)".into()],
        Details::Other(kind) => vec![format!(
            "Type: Other ({}; its content is not read)",
            kind.described()
        )],
        Details::Unanalyzed(reason) => vec![format!(
            "\nWarning: could not analyze the content: {reason}"
        )],
        Details::Binary { mime } => {
            let mut section =
                format!("--- Binary File ---\nMIME Type: {mime}\nNote: this is not a text file");
            match tool(listed, "read_media_file") {
                Some(media) => section.push_str(&format!("; use {media} for images and audio.")),
                None => section.push('.'),
            }
            vec![String::new(), section]
        }
        Details::Text(text) => {
            let size = info.size.unwrap_or_default();
            [
                analysis(text),
                chunking(&info.path, text, listed),
                preview(&info.path, size, &text.preview, listed),
            ]
            .into_iter()
            .flat_map(|section| [String::new(), section])
            .collect()
        }
    }
}

/// `tool` if the server lists it.
fn tool<'a>(listed: &ListedTools, tool: &'a str) -> Option<&'a str> {
    listed.has(tool).then_some(tool)
}

fn analysis(text: &TextAnalysis) -> String {
    let lines = match text.sampled_bytes {
        Some(sample) => format!(
            "~{} (estimated from the first and last {}; the file is too large to count every line quickly)",
            thousands(text.lines),
            format_size(sample)
        ),
        None => thousands(text.lines),
    };
    let mut s = format!(
        "--- Text File Analysis ---\nLines: {lines}\nEstimated tokens: ~{} (bytes ÷ 4)",
        thousands(text.tokens)
    );
    if let Some(offset) = text.invalid_utf8_at {
        s.push_str(&format!(
            "\nEncoding: not UTF-8 text (first invalid byte at offset {offset}); reading and editing it as text needs UTF-8."
        ));
    }
    s
}

fn quoted(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
}

fn chunking(shown: &str, text: &TextAnalysis, listed: &ListedTools) -> String {
    let p = quoted(shown);
    let read_tool = tool(listed, "read_files");
    // The read as a call of the read tool, or as its item when the read tool is not listed.
    let read = |args: String| match read_tool {
        Some(read) => format!("{read}(files=[{{\"path\": {p}{args}}}])"),
        None => format!("{{\"path\": {p}{args}}}"),
    };
    let plan: &ChunkPlan = match &text.reading {
        Reading::Whole => {
            return format!(
                "--- Chunking Strategy ---\nSmall enough to read in one call: {}",
                read(String::new())
            );
        }
        Reading::Chunks(plan) => plan,
    };
    let rec = plan.lines_per_chunk;
    let mut s = format!(
        "--- Chunking Strategy ---\nLarge file: read it in parts, not whole.\n  1. Sample the start: {}\n  2. Then chunks of ~{} lines (~{} chunks), e.g.\n     {}\n     {}",
        read(", \"head\": 50".to_string()),
        thousands(rec),
        thousands(plan.chunks),
        read(format!(", \"start_line\": 1, \"end_line\": {rec}")),
        read(format!(
            ", \"start_line\": {}, \"end_line\": {}",
            rec + 1,
            rec * 2
        )),
    );
    if let Some(grep) = tool(listed, "grep_content") {
        s.push_str(&format!(
            "\n  3. Or find the part you need first: {grep}(pattern=\"...\", search_path={p})"
        ));
    }
    let query = match text.data_format {
        Some(DataFormat::Json) => tool(listed, "query_json"),
        Some(DataFormat::Yaml) => tool(listed, "query_yaml"),
        None => None,
    };
    if let Some(query) = query {
        s.push_str(&format!(
            "\n  Structured data: query it instead, e.g. {query} with the expression 'keys'."
        ));
    }
    if plan.one_line {
        s.push_str(
            "\n  Note: the file is one long line (minified?); line ranges will not split it.",
        );
    }
    s.push_str(&format!(
        "\nEstimated tokens per chunk: ~{}",
        thousands(plan.tokens_per_chunk)
    ));
    s
}

fn preview(shown: &str, size: u64, preview: &Preview, listed: &ListedTools) -> String {
    match preview {
        Preview::Json(json) => json_preview(shown, size, json, listed),
        Preview::JsonLines { records, first } => {
            let mut s = format!(
                "--- JSON Lines Preview ---\nRecords (lines): {}",
                thousands(*records)
            );
            match first {
                Some(FirstValue::Object(keys)) => s.push_str(&format!(
                    "\nFirst record keys ({}): {}",
                    keys.total,
                    key_list(keys)
                )),
                Some(FirstValue::Other(kind)) => {
                    s.push_str(&format!("\nFirst record: {}", type_name(*kind)))
                }
                Some(FirstValue::NotJson) => {
                    s.push_str("\nFirst record: not valid JSON (or longer than 64 KiB)")
                }
                None => {}
            }
            s
        }
        Preview::Csv {
            columns,
            total_columns,
            rows,
        } => {
            let mut s = format!(
                "--- CSV Structure ---\nColumns ({total_columns}): {}",
                columns.join(", ")
            );
            if *total_columns > LIST_COLUMNS {
                s.push_str(&format!(", … ({} more)", total_columns - LIST_COLUMNS));
            }
            s.push_str(&format!(
                "\nRows: {} (lines after the header; quoted multi-line cells would make it fewer)",
                thousands(*rows)
            ));
            s
        }
        Preview::Text(TextEnds::Empty) => "--- Content Preview ---\n(empty file)".into(),
        Preview::Text(TextEnds::Lines { first, last }) => format!(
            "--- Content Preview ---\nFirst line: {}\nLast line: {}",
            truncate(first, Keep::Chars(PREVIEW_CHARS), Marker::CountOfRest),
            truncate(last, Keep::Chars(PREVIEW_CHARS), Marker::CountOfRest)
        ),
    }
}

fn json_preview(shown: &str, size: u64, json: &JsonPreview, listed: &ListedTools) -> String {
    let mut s = String::from("--- JSON Structure Preview ---\n");
    match json {
        JsonPreview::TooLarge { limit } => {
            s.push_str(&format!(
                "Too large to preview ({} > {}).",
                format_size(size),
                format_size(*limit),
            ));
            if let Some(query) = tool(listed, "query_json") {
                s.push_str(&format!(
                    " Explore it with {query}, e.g. file_path={} and jq_expression 'keys' or 'length'.",
                    quoted(shown)
                ));
            }
        }
        JsonPreview::NotReread => s.push_str("Could not re-read the file."),
        JsonPreview::Invalid(reason) => s.push_str(&format!("Invalid JSON: {reason}")),
        JsonPreview::Object(keys) => {
            s.push_str(&format!(
                "Type: JSON Object\nTop-level keys ({}): {}",
                thousands(keys.total as u64),
                key_list(keys)
            ));
            for (key, kind) in &keys.first {
                s.push_str(&format!("\n  - {}: {}", quoted(key), type_name(*kind)));
            }
        }
        JsonPreview::Array { items, first } => {
            s.push_str(&format!(
                "Type: JSON Array\nTotal items: {}",
                thousands(*items)
            ));
            match first {
                Some(FirstValue::Object(keys)) => s.push_str(&format!(
                    "\nFirst item keys ({}): {}",
                    keys.total,
                    key_list(keys)
                )),
                Some(FirstValue::Other(kind)) => {
                    s.push_str(&format!("\nFirst item: {}", type_name(*kind)))
                }
                Some(FirstValue::NotJson) | None => {}
            }
        }
        JsonPreview::Scalar(kind) => s.push_str(&format!("Type: JSON {}", type_name(*kind))),
    }
    s
}

fn type_name(kind: JsonType) -> String {
    match kind {
        JsonType::Null => "null".into(),
        JsonType::Boolean => "boolean".into(),
        JsonType::Number => "number".into(),
        JsonType::String => "string".into(),
        JsonType::Array(n) => format!("array with {} items", thousands(n)),
        JsonType::Object(n) => format!("object with {} keys", thousands(n)),
    }
}

/// `a, b, c, … (4 more)`, each key escaped: a key with a newline would start a line of its own,
/// which could pass for the server's.
fn key_list(keys: &JsonKeys) -> String {
    let mut s = keys
        .first
        .iter()
        .take(LIST_KEYS)
        .map(|(k, _)| fs_mcp_sandbox::escape_os(std::ffi::OsStr::new(k)))
        .collect::<Vec<_>>()
        .join(", ");
    if keys.total > LIST_KEYS {
        s.push_str(&format!(
            ", … ({} more)",
            thousands((keys.total - LIST_KEYS) as u64)
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use fs_mcp_sandbox::testing::Fixture;
    use fs_mcp_search::{InfoOptions, file_info, get_files_info};

    /// The answers for the shared fixture's files.
    trait Describe {
        fn info(&self, path: &str) -> String;
        fn info_with(&self, path: &str, listed: &ListedTools, options: &InfoOptions) -> String;
    }

    impl Describe for Fixture {
        /// The answer for `path` with every tool listed, as `--all` lists them.
        fn info(&self, path: &str) -> String {
            self.info_with(path, &all_tools(), &InfoOptions::default())
        }

        fn info_with(&self, path: &str, listed: &ListedTools, options: &InfoOptions) -> String {
            file_text(&file_info(&self.sandbox, path, options).unwrap(), listed)
        }
    }

    fn all_tools() -> ListedTools {
        ListedTools::new(
            [
                "read_files",
                "grep_content",
                "read_media_file",
                "query_json",
                "query_yaml",
            ]
            .map(String::from),
        )
    }

    #[test]
    fn advice_names_only_the_listed_tools() {
        let fx = Fixture::new();
        let line = "x".repeat(79) + "\n";
        fx.write("logs/big.log", line.repeat(5_000));
        fx.write("big.json", format!("[{}1]", "1,".repeat(60_000)));
        fx.write("c.yaml", format!("k: {}\n", "v".repeat(100_000)));
        fx.write("bin.dat", b"\x89PNG\x00\x01");
        let too_large = InfoOptions {
            json_preview_max_bytes: 10,
            ..InfoOptions::default()
        };
        let tools = [
            "read_files",
            "grep_content",
            "read_media_file",
            "query_json",
            "query_yaml",
        ];
        for path in ["logs/big.log", "big.json", "c.yaml", "bin.dat"] {
            // With all listed, each tool that applies is named; with none, no tool is.
            let all = fx.info_with(path, &all_tools(), &too_large);
            let none = fx.info_with(path, &ListedTools::default(), &too_large);
            for tool in tools {
                assert!(!none.contains(tool), "{path} names {tool}: {none}");
            }
            assert!(tools.iter().any(|t| all.contains(t)), "{path}: {all}");
            // A server whose read tool is disabled: the rest of the advice stays.
            let without_read = ListedTools::new(
                tools
                    .iter()
                    .filter(|t| **t != "read_files")
                    .map(|t| t.to_string()),
            );
            let out = fx.info_with(path, &without_read, &too_large);
            assert!(!out.contains("read_files"), "{path}: {out}");
        }
        let out = fx.info_with("logs/big.log", &ListedTools::default(), &too_large);
        assert!(
            out.contains("1. Sample the start: {\"path\": \"logs/big.log\", \"head\": 50}\n"),
            "{out}"
        );
        let out = fx.info_with("bin.dat", &ListedTools::default(), &too_large);
        assert!(out.ends_with("Note: this is not a text file."), "{out}");
        let out = fx.info("c.yaml");
        assert!(
            out.contains("e.g. query_yaml with the expression 'keys'."),
            "{out}"
        );
        let out = fx.info_with("big.json", &all_tools(), &too_large);
        assert!(
            out.contains("Explore it with query_json, e.g. file_path=\"big.json\""),
            "{out}"
        );
    }

    #[test]
    fn the_structured_details_are_the_text_after_the_facts() {
        let fx = Fixture::new();
        fx.write("a.txt", "one\ntwo\n");
        std::fs::create_dir(fx.root.join("d")).unwrap();
        let listed = all_tools();
        for path in ["a.txt", "d"] {
            let info = file_info(&fx.sandbox, path, &InfoOptions::default()).unwrap();
            let text = file_text(&info, &listed);
            let value = serde_json::to_value(facts(&InfoItem::Described(info), &listed)).unwrap();
            let details = value["details"].as_str().unwrap();
            assert!(text.ends_with(details), "{text}\n---\n{details}");
            assert!(!details.starts_with('\n'), "{details}");
        }
    }

    #[test]
    fn small_text_file() {
        let fx = Fixture::new();
        fx.write("notes/a.txt", "first\nmiddle\nlast\n");
        let out = fx.info("notes/a.txt");
        assert!(
            out.starts_with("Path: notes/a.txt\nType: File\nSize: 18.00 B (18 bytes)\nModified: "),
            "{out}"
        );
        let (_, analysis) = out.split_once("Z\n\n").unwrap();
        assert_eq!(
            analysis,
            "--- Text File Analysis ---\nLines: 3\nEstimated tokens: ~4 (bytes ÷ 4)\n\n--- Chunking Strategy ---\nSmall enough to read in one call: read_files(files=[{\"path\": \"notes/a.txt\"}])\n\n--- Content Preview ---\nFirst line: first\nLast line: last"
        );
        fx.write("empty.txt", "");
        assert!(
            fx.info("empty.txt")
                .ends_with("--- Content Preview ---\n(empty file)")
        );
        fx.write("long.txt", "y".repeat(150));
        assert!(
            fx.info("long.txt")
                .contains(&format!("First line: {} … [+50 chars]", "y".repeat(100)))
        );
    }

    #[test]
    fn large_file_gets_chunking_advice_with_full_path() {
        let fx = Fixture::new();
        let line = "x".repeat(79) + "\n";
        fx.write("logs/big.log", line.repeat(5_000)); // 400 KB, 100,000 tokens, 20 tokens/line
        let out = fx.info("logs/big.log");
        assert!(
            out.contains(
                "--- Chunking Strategy ---\nLarge file: read it in parts, not whole.\n  1. Sample the start: read_files(files=[{\"path\": \"logs/big.log\", \"head\": 50}])\n  2. Then chunks of ~500 lines (~10 chunks), e.g.\n     read_files(files=[{\"path\": \"logs/big.log\", \"start_line\": 1, \"end_line\": 500}])\n     read_files(files=[{\"path\": \"logs/big.log\", \"start_line\": 501, \"end_line\": 1000}])\n  3. Or find the part you need first: grep_content(pattern=\"...\", search_path=\"logs/big.log\")\nEstimated tokens per chunk: ~10,000\n\n"
            ),
            "{out}"
        );
        assert!(
            out.contains("Lines: 5,000\nEstimated tokens: ~100,000"),
            "{out}"
        );
        fx.write("min.json", format!("[{}1]", "1,".repeat(60_000)));
        let out = fx.info("min.json");
        assert!(
            out.contains("\n  Structured data: query it instead, e.g. query_json with the expression 'keys'.\n  Note: the file is one long line (minified?); line ranges will not split it.\nEstimated tokens per chunk: ~"),
            "{out}"
        );
    }

    #[test]
    fn json_previews() {
        let fx = Fixture::new();
        fx.write(
            "o.json",
            r#"{"name": "x", "items": [1, 2], "meta": {"a": 1}, "n": null}"#,
        );
        let out = fx.info("o.json");
        assert!(
            out.ends_with("--- JSON Structure Preview ---\nType: JSON Object\nTop-level keys (4): name, items, meta, n\n  - \"name\": string\n  - \"items\": array with 2 items\n  - \"meta\": object with 1 keys\n  - \"n\": null"),
            "{out}"
        );
        fx.write("a.json", r#"[{"id": 1, "b": 2}, {"id": 2}]"#);
        assert!(
            fx.info("a.json")
                .ends_with("Type: JSON Array\nTotal items: 2\nFirst item keys (2): id, b")
        );
        fx.write("s.json", r#"["x"]"#);
        assert!(
            fx.info("s.json")
                .ends_with("Total items: 1\nFirst item: string")
        );
        fx.write("n.json", "42");
        assert!(fx.info("n.json").ends_with("\nType: JSON number"));
        fx.write("bad.json", "{oops");
        assert!(fx.info("bad.json").contains("\nInvalid JSON: "));
        let many: Vec<String> = (0..12).map(|i| format!("\"k{i}\": true")).collect();
        fx.write("many.json", format!("{{{}}}", many.join(", ")));
        assert!(
            fx.info("many.json")
                .contains("Top-level keys (12): k0, k1, k2, k3, k4, k5, k6, k7, k8, k9, … (2 more)\n  - \"k0\": boolean")
        );
        let small = InfoOptions {
            json_preview_max_bytes: 10,
            ..InfoOptions::default()
        };
        let out = fx.info_with("o.json", &all_tools(), &small);
        assert!(
            out.ends_with("--- JSON Structure Preview ---\nToo large to preview (59.00 B > 10.00 B). Explore it with query_json, e.g. file_path=\"o.json\" and jq_expression 'keys' or 'length'."),
            "{out}"
        );
        fx.write("r.jsonl", "{\"a\":1,\"b\":2}\n{\"a\":3}\n");
        assert!(fx.info("r.jsonl").ends_with(
            "--- JSON Lines Preview ---\nRecords (lines): 2\nFirst record keys (2): a, b"
        ));
        fx.write("bad.jsonl", "{oops\n");
        assert!(
            fx.info("bad.jsonl")
                .ends_with("First record: not valid JSON (or longer than 64 KiB)")
        );
    }

    #[test]
    fn a_json_key_cannot_start_a_line() {
        let fx = Fixture::new();
        fx.write("k.json", r#"{"a\nPath: forged": 1}"#);
        let out = fx.info("k.json");
        assert!(!out.contains("\nPath: forged"), "{out}");
        assert!(out.contains("a\\nPath: forged"), "{out}");
    }

    #[test]
    fn csv_preview_counts_rows_and_columns() {
        let fx = Fixture::new();
        fx.write("t.csv", "id, \"name, full\",age\n1,a,2\n2,b,3\n");
        assert!(fx.info("t.csv").ends_with(
            "--- CSV Structure ---\nColumns (3): id, name, full, age\nRows: 2 (lines after the header; quoted multi-line cells would make it fewer)"
        ));
        fx.write("t.tsv", "a\tb\n1\t2\n");
        assert!(fx.info("t.tsv").contains("Columns (2): a, b\nRows: 1 "));
        let wide: Vec<String> = (0..22).map(|i| format!("c{i}")).collect();
        fx.write("wide.csv", wide.join(",") + "\n");
        assert!(
            fx.info("wide.csv")
                .contains("c18, c19, … (2 more)\nRows: 0 ")
        );
    }

    #[test]
    fn binary_directory_and_other_entries() {
        let fx = Fixture::new();
        fx.write("img.png", b"\x89PNG\r\n\x1a\n\0\0\0");
        let out = fx.info("img.png");
        assert!(
            out.ends_with("\n\n--- Binary File ---\nMIME Type: image/png\nNote: this is not a text file; use read_media_file for images and audio."),
            "{out}"
        );
        fx.write("d/x.txt", "x");
        std::fs::create_dir(fx.root.join("d/sub")).unwrap();
        let out = fx.info("d");
        assert!(
            out.starts_with("Path: d\nType: Directory\nModified: "),
            "{out}"
        );
        assert!(
            out.ends_with("Z\nEntries: 2 (1 directory, 1 file)"),
            "{out}"
        );
        rustix::fs::mknodat(
            rustix::fs::CWD,
            fx.root.join("pipe"),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let out = fx.info("pipe");
        assert!(
            out.starts_with(
                "Path: pipe\nType: Other (a named pipe (FIFO); its content is not read)\nModified: "
            ),
            "{out}"
        );
    }

    #[test]
    fn a_batch_renders_each_path_and_a_note_on_the_rest() {
        let fx = Fixture::new();
        let mut paths: Vec<String> = (0..MAX_INFO_PATHS + 2)
            .map(|i| format!("f{i}.txt"))
            .collect();
        for p in &paths {
            fx.write(p, "x\n");
        }
        paths[1] = "missing.txt".into();
        let listed = ListedTools::new(["search_files".to_string()]);
        let batch = get_files_info(&fx.sandbox, &paths, &InfoOptions::default());
        let text = batch_text(&batch, &listed);
        assert_eq!(text.matches("Path: ").count(), MAX_INFO_PATHS);
        assert!(
            text.contains("\n\nPath: missing.txt\nError: missing.txt does not exist. Check the name with search_files.\n\nPath: f2.txt\n"),
            "{text}"
        );
        assert!(
            text.ends_with(&format!(
                "Note: 2 more paths not described ({MAX_INFO_PATHS} per call): call again with the rest, from \"f{MAX_INFO_PATHS}.txt\" on."
            )),
            "{text}"
        );
        let value = serde_json::to_value(facts(&batch.files[1], &listed)).unwrap();
        assert_eq!(
            value,
            serde_json::json!({"path": "missing.txt", "error": "Error: missing.txt does not exist. Check the name with search_files."})
        );
    }

    #[test]
    fn encoding_and_sampled_line_counts_are_said() {
        let fx = Fixture::new();
        fx.write("latin1.txt", b"caf\xe9\nna\xefve\n");
        let out = fx.info("latin1.txt");
        assert!(
            out.contains(
                "--- Text File Analysis ---\nLines: 2\nEstimated tokens: ~2 (bytes ÷ 4)\nEncoding: not UTF-8 text (first invalid byte at offset 3); reading and editing it as text needs UTF-8.\n"
            ),
            "{out}"
        );
        // A file too large to count every line (built as data: the crate decides when to sample).
        let huge = FileInfo {
            path: "huge.log".into(),
            size: Some(100 << 20),
            modified: "2026-11-27T00:00:00Z".into(),
            details: Details::Text(Box::new(TextAnalysis {
                lines: 1_234_567,
                sampled_bytes: Some(fs_mcp_search::SAMPLE_BYTES),
                tokens: 100 << 18,
                invalid_utf8_at: None,
                reading: Reading::Whole,
                data_format: None,
                preview: Preview::Text(TextEnds::Empty),
            })),
        };
        assert!(file_text(&huge, &all_tools()).contains(
            "Lines: ~1,234,567 (estimated from the first and last 1.00 MB; the file is too large to count every line quickly)\n"
        ));
    }
}
