use super::*;
use fs_mcp_sandbox::testing::Fixture;
use std::fs;
use std::path::Path;

fn fixture() -> Fixture {
    let fx = Fixture::new();
    let root = &fx.root;
    fs::write(root.join("five.txt"), "one\ntwo\nthree\nfour\nfive\n").unwrap();
    fs::write(root.join("nonl.txt"), "a\nb\nc").unwrap();
    fs::write(root.join("crlf.txt"), "r1\r\nr2\r\nr3\r\n").unwrap();
    fs::write(
        root.join("code.py"),
        "import os\n\ndef a():\n    return 1\n\ndef b():\n    return 2\n",
    )
    .unwrap();
    fs::write(root.join("empty.txt"), "").unwrap();
    fs::write(root.join("bin.dat"), b"\x89PNG\x00\x01\x02").unwrap();
    fs::write(root.join("latin1.txt"), b"ok\ncaf\xe9\n").unwrap();
    fs::create_dir(root.join("dir")).unwrap();
    fx
}

fn req(path: &str) -> ReadRequest {
    ReadRequest {
        path: path.into(),
        ..Default::default()
    }
}

fn read(f: &Fixture, r: ReadRequest) -> Result<String, String> {
    read_one(&f.sandbox, &r, &ReadOptions::default(), &Data).map_err(|e| e.to_string())
}

/// Renders what the crate gives the caller as the data it is (the wording is the binary's and
/// tested there): an error as `Error: {error}.`, a note as its `Debug` form.
struct Data;

impl ReadWords for Data {
    fn error(&self, error: &ReadError) -> String {
        format!("Error: {error}.")
    }

    fn note(&self, note: &Note) -> String {
        format!("{note:?}")
    }
}

#[test]
fn full_file_keeps_final_newline_or_its_absence() {
    let f = fixture();
    assert_eq!(
        read(&f, req("five.txt")).unwrap(),
        "one\ntwo\nthree\nfour\nfive\n"
    );
    assert_eq!(read(&f, req("nonl.txt")).unwrap(), "a\nb\nc");
    assert_eq!(read(&f, req("empty.txt")).unwrap(), "");
}

#[test]
fn crlf_reads_as_lf_with_correct_line_counts() {
    let f = fixture();
    assert_eq!(read(&f, req("crlf.txt")).unwrap(), "r1\nr2\nr3\n");
    let r = ReadRequest {
        tail: Some(1),
        ..req("crlf.txt")
    };
    assert_eq!(read(&f, r).unwrap(), "r3\n");
    let r = ReadRequest {
        start_line: Some(2),
        end_line: Some(2),
        ..req("crlf.txt")
    };
    assert_eq!(read(&f, r).unwrap(), "r2\n");
    let r = ReadRequest {
        head: Some(2),
        ..req("crlf.txt")
    };
    assert_eq!(read(&f, r).unwrap(), "r1\nr2\n");
}

#[test]
fn head_including_past_end() {
    let f = fixture();
    let r = ReadRequest {
        head: Some(2),
        ..req("five.txt")
    };
    assert_eq!(read(&f, r).unwrap(), "one\ntwo\n");
    let r = ReadRequest {
        head: Some(50),
        ..req("nonl.txt")
    };
    assert_eq!(read(&f, r).unwrap(), "a\nb\nc");
    let r = ReadRequest {
        head: Some(0),
        ..req("five.txt")
    };
    // 0 means "not given": the whole file.
    assert_eq!(read(&f, r).unwrap(), "one\ntwo\nthree\nfour\nfive\n");
}

#[test]
fn tail_including_zero_and_past_start() {
    let f = fixture();
    let r = ReadRequest {
        tail: Some(2),
        ..req("five.txt")
    };
    assert_eq!(read(&f, r).unwrap(), "four\nfive\n");
    let r = ReadRequest {
        tail: Some(2),
        ..req("nonl.txt")
    };
    assert_eq!(read(&f, r).unwrap(), "b\nc");
    let r = ReadRequest {
        tail: Some(0),
        ..req("five.txt")
    };
    assert_eq!(read(&f, r).unwrap(), "one\ntwo\nthree\nfour\nfive\n");
    let r = ReadRequest {
        tail: Some(99),
        ..req("five.txt")
    };
    assert_eq!(read(&f, r).unwrap(), "one\ntwo\nthree\nfour\nfive\n");
    let r = ReadRequest {
        tail: Some(3),
        ..req("empty.txt")
    };
    assert_eq!(read(&f, r).unwrap(), "");
}

#[test]
fn tail_across_chunk_boundaries() {
    let f = fixture();
    let mut text = String::new();
    for i in 1..=40_000 {
        text.push_str(&format!(
            "line number {i} with some padding to cross chunks\n"
        ));
    }
    fs::write(f.root.join("big.txt"), &text).unwrap();
    let r = ReadRequest {
        tail: Some(3),
        ..req("big.txt")
    };
    assert_eq!(
        read(&f, r).unwrap(),
        "line number 39998 with some padding to cross chunks\nline number 39999 with some padding to cross chunks\nline number 40000 with some padding to cross chunks\n"
    );
    let r = ReadRequest {
        tail: Some(2500),
        ..req("big.txt")
    };
    let roomy = ReadOptions {
        max_reply_bytes: 1 << 20,
        ..Default::default()
    };
    let out = read_one(&f.sandbox, &r, &roomy, &Data).unwrap();
    assert_eq!(out.lines().count(), 2500);
    assert!(out.starts_with("line number 37501 "));
    let r = ReadRequest {
        start_line: Some(30_000),
        end_line: Some(30_001),
        ..req("big.txt")
    };
    assert_eq!(
        read(&f, r).unwrap(),
        "line number 30000 with some padding to cross chunks\nline number 30001 with some padding to cross chunks\n"
    );
}

#[test]
fn ranges() {
    let f = fixture();
    let r = ReadRequest {
        start_line: Some(2),
        end_line: Some(3),
        ..req("five.txt")
    };
    assert_eq!(read(&f, r).unwrap(), "two\nthree\n");
    let r = ReadRequest {
        start_line: Some(4),
        ..req("five.txt")
    };
    assert_eq!(read(&f, r).unwrap(), "four\nfive\n");
    let r = ReadRequest {
        end_line: Some(2),
        ..req("five.txt")
    };
    assert_eq!(read(&f, r).unwrap(), "one\ntwo\n");
    let r = ReadRequest {
        start_line: Some(4),
        end_line: Some(99),
        ..req("five.txt")
    };
    assert_eq!(read(&f, r).unwrap(), "four\nfive\n");
    // 0 means "not given": models fill unused integers with it.
    let r = ReadRequest {
        start_line: Some(0),
        end_line: Some(1),
        ..req("five.txt")
    };
    assert_eq!(read(&f, r).unwrap(), "one\n");
    let r = ReadRequest {
        start_line: Some(3),
        end_line: Some(3),
        ..req("nonl.txt")
    };
    assert_eq!(read(&f, r).unwrap(), "c");
}

#[test]
fn range_errors() {
    let f = fixture();
    let r = ReadRequest {
        start_line: Some(6),
        ..req("five.txt")
    };
    let e = read(&f, r).unwrap_err();
    assert_eq!(e, "five.txt: start line 6 past its 5 lines");
    let r = ReadRequest {
        start_line: Some(4),
        ..req("nonl.txt")
    };
    assert!(read(&f, r).unwrap_err().contains("past its 3 lines"));
    let r = ReadRequest {
        start_line: Some(3),
        end_line: Some(2),
        ..req("five.txt")
    };
    assert!(read(&f, r).unwrap_err().contains("before start line"));
    let r = ReadRequest {
        start_line: Some(-2),
        ..req("five.txt")
    };
    assert!(read(&f, r).unwrap_err().contains("negative"));
    let r = ReadRequest {
        tail: Some(-1),
        ..req("five.txt")
    };
    assert!(read(&f, r).unwrap_err().contains("negative tail: -1"));
    let r = ReadRequest {
        start_line: Some(1),
        ..req("empty.txt")
    };
    assert!(read(&f, r).unwrap_err().contains("past its 0 lines"));
}

#[test]
fn read_to_next_pattern() {
    let f = fixture();
    let r = ReadRequest {
        start_line: Some(3),
        read_to_next_pattern: Some("^def ".into()),
        ..req("code.py")
    };
    assert_eq!(read(&f, r).unwrap(), "def a():\n    return 1\n\n");
    let r = ReadRequest {
        start_line: Some(6),
        read_to_next_pattern: Some("^class ".into()),
        ..req("code.py")
    };
    let out = read(&f, r).unwrap();
    assert_eq!(
        out,
        "def b():\n    return 2\n\n[TAG] Note: PatternNotFound { pattern: \"^class \", start: 6 }\n"
    );
    // An empty pattern is "not given": a plain range read.
    let r = ReadRequest {
        start_line: Some(7),
        read_to_next_pattern: Some(String::new()),
        ..req("code.py")
    };
    assert_eq!(read(&f, r).unwrap(), "    return 2\n");
}

/// A pathological `read_to_next_pattern` (`(?:a|b|c|d){500}x`: the engine steps 500 positions
/// on every byte of a line of `a`s; `{5000}` over 40 KB lines took half a second a line in a
/// release build) pinned a core for as long as the lines went on: it is searched within the
/// call's work bound (made small here, so that a debug build runs it quickly), each line in its
/// first bytes only, and the reply says where it stopped and what was searched in part.
#[test]
fn a_costly_stop_pattern_is_searched_within_a_work_bound() {
    let f = fixture();
    let long = "a".repeat(40_000);
    fs::write(
        f.root.join("minified.txt"),
        format!("start\n{}end\n", format!("{long}\n").repeat(8)),
    )
    .unwrap();
    let work = 4_000_000;
    let options = ReadOptions {
        max_reply_bytes: 1 << 20,
        max_line_bytes: 1 << 20,
        pattern_work: work,
        ..ReadOptions::default()
    };
    let read_wide = |pattern: &str| {
        let r = ReadRequest {
            start_line: Some(1),
            read_to_next_pattern: Some(pattern.into()),
            ..req("minified.txt")
        };
        read_one(&f.sandbox, &r, &options, &Data).unwrap()
    };
    let pattern = "(?:a|b|c|d){500}x";
    let weight = fs_mcp_text::pattern_weight(pattern, false);
    let per_line = pattern_line_bytes(weight, work);
    assert!(per_line < long.len(), "{per_line}");
    let searched_lines = work / (per_line as u64 * weight);
    assert!((1..8).contains(&searched_lines), "{searched_lines}");
    let out = read_wide(pattern);
    let tail = &out[out.len().saturating_sub(600)..];
    let stop_line = 2 + searched_lines;
    assert!(
        out.contains(&format!(
            "PatternWorkSpent {{ pattern: \"{pattern}\", line: {stop_line},"
        )),
        "{tail}"
    );
    assert!(
        out.contains(&format!(
            "PatternLinesPartlySearched {{ pattern: \"{pattern}\", lines: {searched_lines}, bytes: {per_line} }}"
        )),
        "{tail}"
    );
    // The lines before the stop are shown, the rest is not.
    assert_eq!(out.matches(&long).count() as u64, searched_lines);
    // A cheap pattern still searches whole lines and finds the end.
    let out = read_wide("^end");
    assert!(!out.contains("Note"), "{}", &out[out.len() - 300..]);
    assert_eq!(out.matches(&long).count(), 8);
}

#[test]
fn pattern_errors() {
    let f = fixture();
    let r = ReadRequest {
        end_line: Some(4),
        read_to_next_pattern: Some("x".into()),
        start_line: Some(1),
        ..req("code.py")
    };
    let e = read(&f, r).unwrap_err();
    assert_eq!(e, "end line 4 and stop pattern \"x\" in one request");
    let r = ReadRequest {
        read_to_next_pattern: Some("x".into()),
        ..req("code.py")
    };
    assert!(read(&f, r).unwrap_err().contains("without a start line"));
    let r = ReadRequest {
        start_line: Some(1),
        read_to_next_pattern: Some("(".into()),
        ..req("code.py")
    };
    assert!(read(&f, r).unwrap_err().contains("invalid stop pattern"));
    let r = ReadRequest {
        start_line: Some(99),
        read_to_next_pattern: Some("x".into()),
        ..req("code.py")
    };
    assert!(read(&f, r).unwrap_err().contains("past its 7 lines"));
}

#[test]
fn mode_mixing_errors() {
    let f = fixture();
    let r = ReadRequest {
        head: Some(1),
        start_line: Some(2),
        ..req("five.txt")
    };
    assert!(
        read(&f, r)
            .unwrap_err()
            .starts_with("a line range or stop pattern with head or tail")
    );
    let r = ReadRequest {
        head: Some(1),
        tail: Some(2),
        ..req("five.txt")
    };
    assert!(
        read(&f, r)
            .unwrap_err()
            .starts_with("head and tail in one request")
    );
}

#[test]
fn directories_binaries_missing_and_bad_utf8() {
    let f = fixture();
    assert!(
        read(&f, req("dir"))
            .unwrap_err()
            .contains("dir: not a regular file (a directory)")
    );
    assert!(
        read(&f, req("bin.dat"))
            .unwrap_err()
            .contains("binary, not UTF-8 text")
    );
    let r = ReadRequest {
        head: Some(1),
        ..req("bin.dat")
    };
    assert!(read(&f, r).unwrap_err().contains("binary, not UTF-8 text"));
    assert!(
        read(&f, req("missing.txt"))
            .unwrap_err()
            .contains("missing.txt: not found")
    );
    assert!(
        read(&f, req("latin1.txt"))
            .unwrap_err()
            .contains("binary, not UTF-8 text")
    );
    let r = ReadRequest {
        head: Some(1),
        ..req("latin1.txt")
    };
    assert_eq!(read(&f, r).unwrap(), "ok\n");
    let r = ReadRequest {
        head: Some(2),
        ..req("latin1.txt")
    };
    assert!(read(&f, r).unwrap_err().contains("not UTF-8 at line 2"));
}

#[test]
fn sandbox_refusals_are_per_file() {
    let f = fixture();
    let out = read_files_tagged(
        &f.sandbox,
        &[
            req("five.txt"),
            req("/etc/passwd"),
            req("../x"),
            req("nonl.txt"),
        ],
        &ReadOptions::default(),
        &Data,
        "TAG",
    );
    let blocks: Vec<&str> = out.split("[TAG] File: ").skip(1).collect();
    assert_eq!(blocks.len(), 4, "{out}");
    assert_eq!(blocks[0], "five.txt\none\ntwo\nthree\nfour\nfive\n\n");
    assert!(blocks[1].starts_with("/etc/passwd\n[TAG] Error: /etc/passwd: outside the roots"));
    assert!(blocks[2].starts_with("../x\n[TAG] Error: ../x: outside the roots"));
    assert_eq!(blocks[3], "nonl.txt\na\nb\nc");
    assert_eq!(
        read_files_tagged(&f.sandbox, &[], &ReadOptions::default(), &Data, "TAG"),
        ""
    );
}

#[test]
fn large_structured_guard_points_to_queries_only_for_whole_reads() {
    let f = fixture();
    let mut json = String::from("{\"items\": [");
    for i in 0..10_000 {
        json.push_str(&format!("{{\"id\": {i}}},"));
    }
    json.push_str("{}]}\n");
    fs::write(f.root.join("big.json"), &json).unwrap();
    let e = read_one(&f.sandbox, &req("big.json"), &ReadOptions::default(), &Data).unwrap_err();
    assert!(
        matches!(
            &e,
            ReadError::TooLarge {
                structured: Some(StructuredKind::Json),
                ..
            }
        ),
        "{e:?}"
    );
    let r = ReadRequest {
        head: Some(1),
        ..req("big.json")
    };
    assert!(read(&f, r).unwrap().starts_with("{\"items\""));
    let options = ReadOptions {
        large_file_passthrough: true,
        max_reply_bytes: 1 << 20,
        ..Default::default()
    };
    assert_eq!(
        read_one(&f.sandbox, &req("big.json"), &options, &Data).unwrap(),
        json
    );

    fs::write(f.root.join("big.yml"), "a: 1\n".repeat(20_000)).unwrap();
    let e = read_one(&f.sandbox, &req("big.yml"), &ReadOptions::default(), &Data).unwrap_err();
    assert!(
        matches!(
            &e,
            ReadError::TooLarge {
                structured: Some(StructuredKind::Yaml),
                ..
            }
        ),
        "{e:?}"
    );

    fn examples(_: &Path, _: StructuredKind, _: &[u8]) -> Vec<String> {
        vec![".items[0:3]".into()]
    }
    let options = ReadOptions {
        example_queries: Some(examples),
        ..Default::default()
    };
    let e = read_one(&f.sandbox, &req("big.json"), &options, &Data).unwrap_err();
    assert!(
        matches!(
            &e,
            ReadError::TooLarge { structured: Some(StructuredKind::Json), examples, .. }
                if examples == &[".items[0:3]"]
        ),
        "{e:?}"
    );
}

#[test]
fn large_text_guard() {
    let f = fixture();
    fs::write(f.root.join("huge.log"), "x".repeat(300 * 1024)).unwrap();
    let e = read_one(&f.sandbox, &req("huge.log"), &ReadOptions::default(), &Data).unwrap_err();
    assert!(
        matches!(
            &e,
            ReadError::TooLarge {
                size: 307_200,
                structured: None,
                ..
            }
        ),
        "{e:?}"
    );
}

#[test]
fn sizes_format_like_the_original() {
    assert_eq!(format_size(98), "98.00 B");
    assert_eq!(format_size(1843), "1.80 KB");
    assert_eq!(thousands(1234567), "1,234,567");
    assert_eq!(thousands(12), "12");
}

#[test]
fn long_lines_are_cut_at_a_character_boundary_with_a_marker() {
    let f = fixture();
    fs::write(
        f.root.join("wide.txt"),
        format!("{}\nnext\n", "é".repeat(10)),
    )
    .unwrap();
    let options = ReadOptions {
        max_line_bytes: 5,
        ..Default::default()
    };
    let r = ReadRequest {
        head: Some(2),
        ..req("wide.txt")
    };
    assert_eq!(
        read_one(&f.sandbox, &r, &options, &Data).unwrap(),
        "éé [TAG] Cut: LineCut { line: Some(1), len: Exact(20), shown: 4, by_budget: false, line_cap: 5, cap: 50000 }\nnext\n"
    );
    // Passthrough lifts the line cap; a whole read never had one.
    let passthrough = ReadOptions {
        large_file_passthrough: true,
        ..options.clone()
    };
    assert_eq!(
        read_one(&f.sandbox, &r, &passthrough, &Data).unwrap(),
        format!("{}\nnext\n", "é".repeat(10))
    );
    assert_eq!(
        read_one(&f.sandbox, &req("wide.txt"), &options, &Data).unwrap(),
        format!("{}\nnext\n", "é".repeat(10))
    );
}

#[test]
fn the_reply_cap_cuts_at_a_line_and_names_the_items_not_read() {
    let f = fixture();
    let text: String = (0..200)
        .map(|i| format!("line {i:03} of a file read in parts\n"))
        .collect();
    fs::write(f.root.join("parts.txt"), &text).unwrap();
    let options = ReadOptions {
        max_reply_bytes: MIN_REPLY_BYTES,
        ..Default::default()
    };
    let out = read_files_tagged(
        &f.sandbox,
        &[req("parts.txt"), req("five.txt"), req("nonl.txt")],
        &options,
        &Data,
        "TAG",
    );
    assert!(out.len() <= MIN_REPLY_BYTES, "{}", out.len());
    let (body, notes) = out
        .strip_prefix("[TAG] File: parts.txt\n")
        .and_then(|rest| rest.split_once("\n[TAG] Note: "))
        .unwrap_or_else(|| panic!("{out}"));
    let shown = body.lines().count();
    assert!(shown > 10 && text.starts_with(body) && body.ends_with('\n'));
    assert_eq!(
        notes,
        format!(
            "ReplyCut {{ cap: 4096, shown: Lines {{ first: 1, last: {shown} }}, read_on: From {{ path: \"parts.txt\", start: {}, end: None, pattern: None }} }}\n[TAG] Note: NotRead {{ cap: 4096, first: 1, total: 3, names: [\"five.txt\", \"nonl.txt\"] }}\n",
            shown + 1
        )
    );
}
