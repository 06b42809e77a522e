use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use super::*;
use fs_mcp_sandbox::testing::{Fixture, write_at};

fn opts(pattern: &str) -> GrepOptions {
    GrepOptions::new(pattern)
}

fn grep(fx: &Fixture, options: &GrepOptions) -> String {
    grep_content(&fx.sandbox, options, &GrepControl::default(), &Data).unwrap()
}

/// Renders the notes as the data they are (their wording is the binary's, tested there).
struct Data;

impl GrepWords for Data {
    fn note(&self, note: &GrepNote) -> String {
        format!("{note:?}")
    }
}

#[test]
fn context_lines_are_shown_with_numbers_and_indentation() {
    let fx = Fixture::new();
    fx.write(
        "notes.txt",
        "a\nb\n    Hello world\nc\nd\ne\nf\ng\n  hello again\nh\n",
    );
    let mut o = opts("(?i)hello");
    o.context_lines = 1;
    let out = grep(&fx, &o);
    assert_eq!(
        out,
        "File: notes.txt, Line: 3\n---\n2-b\n3:    Hello world\n4-c\n---\n\n\
         File: notes.txt, Line: 9\n---\n8-g\n9:  hello again\n10-h\n---"
    );
}

#[test]
fn overlapping_contexts_share_a_block_and_case_insensitive_works() {
    let fx = Fixture::new();
    fx.write("a.txt", "x\nFOO 1\ny\nfoo 2\nz\n");
    let mut o = opts("foo");
    o.case_insensitive = true;
    let out = grep(&fx, &o);
    assert_eq!(
        out,
        "File: a.txt, Lines: 2, 4\n---\n1-x\n2:FOO 1\n3-y\n4:foo 2\n5-z\n---"
    );
}

#[test]
fn results_are_sorted_by_path_then_line() {
    let fx = Fixture::new();
    for name in ["b/z.txt", "a.txt", "b/a.txt", "c.txt"] {
        fx.write(name, "needle\n");
    }
    let mut o = opts("needle");
    o.context_lines = 0;
    let out = grep(&fx, &o);
    let files: Vec<&str> = out.lines().filter(|l| l.starts_with("File: ")).collect();
    assert_eq!(
        files,
        [
            "File: a.txt, Line: 1",
            "File: b/a.txt, Line: 1",
            "File: b/z.txt, Line: 1",
            "File: c.txt, Line: 1"
        ]
    );
}

#[test]
fn global_cap_reports_the_total() {
    let fx = Fixture::new();
    for i in 0..5 {
        fx.write(&format!("f{i}.txt"), "hit\nmiss\nhit\nhit\n");
    }
    let mut o = opts("hit");
    o.max_matches = 4;
    o.context_lines = 0;
    let outcome = search(&fx.sandbox, &o, &GrepControl::default()).unwrap();
    assert_eq!(outcome.shown_matches, 4);
    assert_eq!(outcome.total_matches, 15);
    assert!(!outcome.total_is_lower_bound);
    let out = outcome.render(&Data);
    assert_eq!(out.matches("File: ").count(), 3, "{out}");
    assert!(
        out.starts_with("File: f0.txt, Line: 1\n---\n1:hit\n---\n\nFile: f0.txt, Lines: 3-4\n"),
        "{out}"
    );
    assert!(
        out.contains("File: f1.txt, Line: 1\n---\n1:hit\n---"),
        "{out}"
    );
    assert!(
        out.ends_with("\n\nMoreMatches { shown: 4, total: 15, at_least: false, files_with_matches: 5, files_searched: 5 }"),
        "{out}"
    );
}

#[test]
fn cap_inside_one_file_trims_context_at_the_next_match() {
    let fx = Fixture::new();
    fx.write("a.txt", "m1\nc\nm2\nc\nc\nc\nm3\n");
    let mut o = opts("^m");
    o.max_matches = 2;
    o.context_lines = 2;
    let outcome = search(&fx.sandbox, &o, &GrepControl::default()).unwrap();
    assert_eq!((outcome.shown_matches, outcome.total_matches), (2, 3));
    let out = outcome.render(&Data);
    assert!(out.starts_with("File: a.txt, Lines: 1, 3\n---\n1:m1\n2-c\n3:m2\n4-c\n5-c\n---\n\nMoreMatches { shown: 2, total: 3, at_least: false,"), "{out}");
}

#[test]
fn counting_stops_with_at_least() {
    let fx = Fixture::new();
    fx.write("many.txt", "x\n".repeat(5_000));
    let mut o = opts("x");
    o.max_matches = 1;
    o.context_lines = 0;
    let outcome = search(&fx.sandbox, &o, &GrepControl::default()).unwrap();
    assert!(outcome.total_is_lower_bound);
    assert_eq!(outcome.total_matches, 2_000);
    let out = outcome.render(&Data);
    assert!(
        out.contains("MoreMatches { shown: 1, total: 2000, at_least: true,"),
        "{out}"
    );
}

#[test]
fn dash_pattern_is_a_pattern() {
    let fx = Fixture::new();
    fx.write("a.txt", "run --verbose now\n-foo\nplain\n");
    let mut o = opts("--verbose");
    o.context_lines = 0;
    assert_eq!(
        grep(&fx, &o),
        "File: a.txt, Line: 1\n---\n1:run --verbose now\n---"
    );
    let mut o = opts("-foo");
    o.context_lines = 0;
    assert_eq!(grep(&fx, &o), "File: a.txt, Line: 2\n---\n2:-foo\n---");
}

#[test]
fn bad_regex_is_a_clear_error() {
    let fx = Fixture::new();
    let err = grep_content(&fx.sandbox, &opts("foo("), &GrepControl::default(), &Data)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("invalid regex \"foo(\":"), "{err}");
    assert!(err.contains("unclosed group"), "{err}");
    let err = grep_content(&fx.sandbox, &opts(""), &GrepControl::default(), &Data)
        .unwrap_err()
        .to_string();
    assert!(err.contains("empty regex"), "{err}");
}

#[test]
fn missing_and_outside_paths_fail() {
    let fx = Fixture::new();
    let mut o = opts("x");
    o.search_path = "nope".into();
    assert_eq!(
        grep_content(&fx.sandbox, &o, &GrepControl::default(), &Data)
            .unwrap_err()
            .to_string(),
        "nope: not found"
    );
    o.search_path = "../outside".into();
    let err = grep_content(&fx.sandbox, &o, &GrepControl::default(), &Data)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("../outside: outside the roots"), "{err}");
}

#[test]
fn single_file_search_path() {
    let fx = Fixture::new();
    fx.write("src/a.txt", "one\ntwo\n");
    let mut o = opts("two");
    o.search_path = "src/a.txt".into();
    o.context_lines = 0;
    assert_eq!(grep(&fx, &o), "File: src/a.txt, Line: 2\n---\n2:two\n---");
}

#[test]
fn python_hints_by_default() {
    let fx = Fixture::new();
    fx.write(
        "pkg/mod.py",
        "import os\n\n\ndef alpha():\n    needle = 1\n    return needle\n\n\nclass Beta:\n    def gamma(self):\n        return 'needle'\n\n    def delta(self):\n        pass\n",
    );
    let mut o = opts("needle");
    o.context_lines = 0;
    let out = grep(&fx, &o);
    assert!(
        out.contains("File: pkg/mod.py, Lines: 5-6 (section end hint: L6)"),
        "{out}"
    );
    assert!(
        out.contains("File: pkg/mod.py, Line: 11 (section end hint: L11)"),
        "{out}"
    );
}

#[test]
fn rust_js_go_markdown_yaml_hints_by_default() {
    let fx = Fixture::new();
    fx.write(
        "a.rs",
        "fn one() {\n    let needle = 1;\n}\n\nfn two() {}\n",
    );
    fx.write(
        "b.js",
        "function one() {\n  needle();\n}\n\nexport const two = 2;\n",
    );
    fx.write(
        "c.go",
        "package x\n\nfunc One() {\n\tneedle()\n}\n\nfunc Two() {}\n",
    );
    fx.write("d.md", "# A\n\n## B\n\nneedle\n\n### C\n\ntext\n\n## D\n");
    fx.write("e.yaml", "a:\n  b: needle\n\nc: 1\n");
    fx.write("f.txt", "needle\n");
    let mut o = opts("needle");
    o.context_lines = 0;
    let out = grep(&fx, &o);
    for expected in [
        "File: a.rs, Line: 2 (section end hint: L3)",
        "File: b.js, Line: 2 (section end hint: L3)",
        "File: c.go, Line: 4 (section end hint: L5)",
        "File: d.md, Line: 5 (section end hint: L9)",
        "File: e.yaml, Line: 2 (section end hint: L2)",
        "File: f.txt, Line: 1\n",
    ] {
        assert!(out.contains(expected), "missing {expected:?} in\n{out}");
    }
}

#[test]
fn custom_section_patterns_override_and_empty_disables() {
    let fx = Fixture::new();
    fx.write(
        "a.py",
        "def f():\n    needle\n    pass\n\n# ---\nx = 1\ndef g():\n    pass\n",
    );
    let mut o = opts("needle");
    o.context_lines = 0;
    o.section_patterns = Some(vec!["^# ---".into()]);
    assert!(grep(&fx, &o).contains("Line: 2 (section end hint: L3)"));
    o.section_patterns = Some(vec![]);
    assert_eq!(grep(&fx, &o), "File: a.py, Line: 2\n---\n2:    needle\n---");
    o.section_patterns = Some(vec!["(?<=x)".into()]);
    let err = grep_content(&fx.sandbox, &o, &GrepControl::default(), &Data)
        .unwrap_err()
        .to_string();
    assert!(err.contains("invalid section pattern"), "{err}");
}

#[test]
fn gitignore_respected_without_git_dir() {
    let fx = Fixture::new();
    fx.write(".gitignore", "*.log\nbuild/\n");
    fx.write("keep.txt", "needle\n");
    fx.write("debug.log", "needle\n");
    fx.write("build/out.txt", "needle\n");
    fx.write("sub/.ignore", "secret.txt\n");
    fx.write("sub/secret.txt", "needle\n");
    let mut o = opts("needle");
    o.context_lines = 0;
    let out = grep(&fx, &o);
    assert_eq!(out, "File: keep.txt, Line: 1\n---\n1:needle\n---");
    o.include_ignored = true;
    let out = grep(&fx, &o);
    for f in ["debug.log", "build/out.txt", "sub/secret.txt", "keep.txt"] {
        assert!(out.contains(&format!("File: {f},")), "{f} missing:\n{out}");
    }
}

#[test]
fn parent_gitignore_inside_the_sandbox_applies_to_a_subdirectory_search() {
    let fx = Fixture::new();
    fx.write(".gitignore", "node_modules/\n");
    fx.write("web/node_modules/lib.js", "needle\n");
    fx.write("web/app.js", "needle\n");
    let mut o = opts("needle");
    o.search_path = "web".into();
    o.context_lines = 0;
    o.section_patterns = Some(vec![]);
    assert_eq!(
        grep(&fx, &o),
        "File: web/app.js, Line: 1\n---\n1:needle\n---"
    );
}

#[test]
fn hidden_and_vcs_skipped_by_default() {
    let fx = Fixture::new();
    fx.write(".env", "needle\n");
    fx.write(".config/x.txt", "needle\n");
    fx.write(".git/config", "needle\n");
    let o = opts("needle");
    let out = grep(&fx, &o);
    assert!(
        out.starts_with(
            "NoMatches { stopped: None, files_searched: 0 }\nNotSearched { skipped: [Hidden { entries: 2 }], "
        ),
        "{out}"
    );
    let mut o = opts("needle");
    o.include_hidden = true;
    o.context_lines = 0;
    let out = grep(&fx, &o);
    assert!(
        out.contains("File: .env,") && out.contains("File: .config/x.txt,"),
        "{out}"
    );
    assert!(!out.contains(".git/config"), "{out}");
    o.include_ignored = true;
    assert!(grep(&fx, &o).contains("File: .git/config,"));
}

#[test]
fn binary_files_skipped() {
    let fx = Fixture::new();
    fx.write("bin.dat", b"needle\0\x01\x02needle\n");
    let out = grep(&fx, &opts("needle"));
    assert_eq!(
        out,
        "NoMatches { stopped: None, files_searched: 1 }\nNotSearched { skipped: [], binary_files: 1, unreadable: 0 }"
    );
}

#[test]
fn symlinks_to_outside_and_loops_are_not_searched() {
    let fx = Fixture::new();
    write_at(&fx.outside, "secret.txt", "needle\n");
    fx.symlink(fx.outside.join("secret.txt"), "file-link.txt");
    fx.symlink(&fx.outside, "dir-link");
    fx.mkdir("d");
    fx.symlink(fx.root.clone(), "d/loop");
    fx.write("d/real.txt", "needle\n");
    let mut o = opts("needle");
    o.context_lines = 0;
    assert_eq!(
        grep(&fx, &o),
        "File: d/real.txt, Line: 1\n---\n1:needle\n---"
    );
    // A symlinked search_path is judged by its target.
    o.search_path = "dir-link".into();
    assert!(grep_content(&fx.sandbox, &o, &GrepControl::default(), &Data).is_err());
}

#[test]
fn cancel_flag_returns_partial_results_with_note() {
    let fx = Fixture::new();
    fx.write("a.txt", "needle\n");
    let cancel = AtomicBool::new(true);
    let control = GrepControl {
        cancel: Some(&cancel),
        progress: None,
        candidates: None,
    };
    let outcome = search(&fx.sandbox, &opts("needle"), &control).unwrap();
    assert_eq!(outcome.stopped, Some(StopReason::Cancelled));
    let out = outcome.render(&Data);
    assert!(
        out.starts_with("NoMatches { stopped: Some(Cancelled("),
        "{out}"
    );
    assert!(out.ends_with("files_searched: 0 }"), "{out}");
}

#[test]
fn timeout_note_with_partial_results() {
    let fx = Fixture::new();
    fx.write("a.txt", "needle\n");
    let mut o = opts("needle");
    o.timeout = Duration::ZERO;
    let outcome = search(&fx.sandbox, &o, &GrepControl::default()).unwrap();
    assert_eq!(outcome.stopped, Some(StopReason::Timeout));
    assert_eq!(
        outcome.render(&Data),
        "NoMatches { stopped: Some(Timeout(0ns)), files_searched: 0 }"
    );
    // Rendering of partial results found before a stop.
    let mut partial = outcome.clone();
    partial.timeout = Duration::from_secs(30);
    partial.files_searched = 5_000;
    partial.shown_matches = 1;
    partial.total_matches = 1;
    partial.files = vec![FileMatches {
        path: "a.txt".into(),
        lines: vec![GrepLine {
            number: 1,
            is_match: true,
            text: "needle".into(),
        }],
        hints: vec![],
    }];
    assert_eq!(
        partial.render(&Data),
        "File: a.txt, Line: 1\n---\n1:needle\n---\n\nStopped { stopped: Timeout(30s), shown: 1, files_searched: 5000 }"
    );
}

#[test]
fn progress_is_reported() {
    let fx = Fixture::new();
    fx.write("a.txt", "needle\n");
    fx.write("b.txt", "other\n");
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let control = GrepControl {
        cancel: None,
        progress: Some(Arc::new(move |p: Progress| sink.lock().unwrap().push(p))),
        candidates: None,
    };
    search(&fx.sandbox, &opts("needle"), &control).unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(
        seen.last(),
        Some(&Progress {
            files_searched: 2,
            matches: 1
        })
    );
}

#[test]
fn crlf_and_long_lines() {
    let fx = Fixture::new();
    fx.write("w.txt", "alpha\r\nneedle$\r\n");
    let mut o = opts("needle\\$$");
    o.context_lines = 1;
    assert_eq!(
        grep(&fx, &o),
        "File: w.txt, Line: 2\n---\n1-alpha\n2:needle$\n---"
    );
    fx.write("min.js", format!("var a='{}needle';\n", "x".repeat(1000)));
    let mut o = opts("needle");
    o.search_path = "min.js".into();
    let out = grep(&fx, &o);
    assert!(out.contains(" … [+") && out.len() < 600, "{out}");
}

#[test]
fn over_long_lines_are_searched_up_to_the_cap_and_line_numbers_stay_right() {
    let fx = Fixture::new();
    let cap = MAX_SEARCHED_LINE_BYTES as usize;
    let mut text = b"first\n".to_vec();
    // Line 2: an early match, then more than the cap, then a match past the cap.
    text.extend_from_slice(b"EARLY");
    text.extend(std::iter::repeat_n(b'x', cap + 100));
    text.extend_from_slice(b"LATE\n");
    // Line 3 and 4 follow the cut line: their numbers must not shift.
    text.extend_from_slice(b"LATE on three\nEARLY on four\n");
    fx.write("long.txt", &text);
    let mut o = opts("EARLY|LATE");
    o.context_lines = 0;
    let outcome = search(&fx.sandbox, &o, &GrepControl::default()).unwrap();
    assert_eq!(outcome.long_lines, 1);
    let lines: Vec<(u64, &str)> = outcome.files[0]
        .lines
        .iter()
        .map(|l| (l.number, &l.text[..l.text.len().min(13)]))
        .collect();
    assert_eq!(
        lines,
        [
            (2, "EARLYxxxxxxxx"),
            (3, "LATE on three"),
            (4, "EARLY on four")
        ]
    );
    let out = outcome.render(&Data);
    assert!(
        out.contains("LongLines { lines: 1, cap: 8388608, by_pattern: false }"),
        "{}",
        &out[out.len().saturating_sub(300)..]
    );
}

#[test]
fn the_line_cap_holds_across_reads_of_any_size() {
    // A reader over a line made of many small reads still cuts at the cap, and keeps the newline.
    let fx = Fixture::new();
    let cap = MAX_SEARCHED_LINE_BYTES as usize;
    let mut text = vec![b'y'; cap * 2];
    text.extend_from_slice(b"\nnext\n");
    let path = fx.write("l.txt", &text);
    let file = std::fs::File::open(path).unwrap();
    let o = opts("x");
    let matcher = build_matcher(&o.pattern, false).unwrap();
    let shared = Shared {
        sandbox: &fx.sandbox,
        matcher,
        hint_mode: HintMode::Off,
        cap: 1,
        count_limit: 1,
        context: 0,
        line_cap: MAX_SEARCHED_LINE_BYTES,
        deadline: None,
        started: Instant::now(),
        cancel: None,
        progress: None,
        stop: AtomicU8::new(0),
        counted: AtomicU64::new(0),
        cap_reached: AtomicBool::new(false),
        cap_reached_at_ms: AtomicU64::new(0),
        lower_bound: AtomicBool::new(false),
        files_searched: AtomicU64::new(0),
        files_with_matches: AtomicU64::new(0),
        binary_files: AtomicU64::new(0),
        unreadable: AtomicU64::new(0),
        long_lines: AtomicU64::new(0),
        last_progress_ms: AtomicU64::new(0),
        kept: Mutex::new(Kept::default()),
    };
    for chunk in [1000usize, 64 * 1024, cap + 7] {
        use std::io::{Read, Seek};
        (&file).seek(std::io::SeekFrom::Start(0)).unwrap();
        let mut reader = shared.reader(&file);
        let mut out = Vec::new();
        let mut buf = vec![0u8; chunk];
        loop {
            let n = reader.read(&mut buf).unwrap();
            if n == 0 {
                break;
            }
            assert!(n <= cap, "a read handed on {n} bytes, over the cap {cap}");
            out.extend_from_slice(&buf[..n]);
        }
        assert_eq!(out.len(), cap + "\nnext\n".len(), "chunk {chunk}");
        assert!(out.ends_with(b"y\nnext\n"), "chunk {chunk}");
        assert_eq!(reader.cut_lines, 1, "chunk {chunk}");
    }
}

#[test]
fn oversized_regexes_are_refused_with_a_hint() {
    let fx = Fixture::new();
    fx.write("a.txt", "aaaa\n");
    let err = grep_content(
        &fx.sandbox,
        &opts("a{1000}{1000}"),
        &GrepControl::default(),
        &Data,
    )
    .unwrap_err();
    assert!(
        matches!(
            &err,
            SearchError::InvalidRegex {
                too_large: true,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("exceeds size limit"), "{err}");
}

#[test]
fn a_pattern_weighs_its_positions_with_counted_repetitions_spelt_out() {
    assert_eq!(pattern_weight("needle", false), 6);
    assert_eq!(pattern_weight("(?i)needle", false), 6);
    assert_eq!(pattern_weight("foo|bar", false), 6);
    assert_eq!(pattern_weight("(?:a|b|c|d){50000}", false), 50_000);
    assert_eq!(pattern_weight("[a-z]{2,5}", false), 5);
    // Characters of several bytes may be in progress at each of a class's bytes.
    assert_eq!(pattern_weight(r"\w+Error", false), 4 + 5);
    assert_eq!(pattern_weight(".{1000}", false), 4_000);
    assert_eq!(pattern_weight("(", false), u64::MAX);
}

#[test]
fn the_searched_stretch_bounds_the_work_of_one_regex_search() {
    // Patterns a person types keep the usual cap; every other one searches less of a line, so
    // that one regex search between two deadline checks stays within the work budget.
    for pattern in [
        "needle",
        r"fn\s+\w+",
        r"[A-Z][a-z]+Exception",
        "(?i)todo|fixme",
    ] {
        assert_eq!(
            searched_line_bytes(pattern_weight(pattern, false)),
            MAX_SEARCHED_LINE_BYTES,
            "{pattern}"
        );
    }
    for pattern in [
        "(?:a|b|c|d){50000}",
        r"\w{150}",
        ".{1000}",
        "(?:ab|cd){2000}x",
        "(",
    ] {
        let weight = pattern_weight(pattern, false);
        let line = searched_line_bytes(weight);
        assert!(line < MAX_SEARCHED_LINE_BYTES, "{pattern}");
        assert!(
            line == MIN_SEARCHED_LINE_BYTES || line.saturating_mul(weight) <= SEARCH_WORK_PER_CALL,
            "{pattern}: {line} bytes of weight {weight}"
        );
    }
}

/// Issue #32: a 50 MB one-line file and `(?:a|b|c|d){50000}` with `timeout: 3` answered after
/// 25 s of CPU: the deadline was checked between reads, and one regex search covered a whole
/// (8 MiB) line, whatever the pattern cost per byte. Now the search answers, with the timeout
/// or the cut line noted, after at most one bounded regex search past the deadline. (Before the
/// fix this search of one 4 MiB line took hours: the watchdog fails it.)
#[test]
fn a_costly_pattern_over_one_huge_line_answers_with_what_was_cut() {
    let fx = Fixture::new();
    let mut line = vec![b'a'; 4 << 20];
    line.push(b'\n');
    fx.write("bundle.min.js", &line);
    let mut options = opts("(?:a|b|c|d){50000}x");
    options.timeout = Duration::from_secs(1);
    options.threads = 1;
    let (sender, receiver) = std::sync::mpsc::channel();
    let sandbox = fx.sandbox.clone();
    std::thread::spawn(move || {
        let _ = sender.send(search(&sandbox, &options, &GrepControl::default()));
    });
    let outcome = receiver
        .recv_timeout(Duration::from_secs(120))
        .expect("the search did not answer within 120 s")
        .unwrap();
    assert_eq!(outcome.total_matches, 0);
    assert!(
        outcome.stopped == Some(StopReason::Timeout) || outcome.long_lines == 1,
        "{outcome:?}"
    );
    assert!(outcome.searched_line_bytes < 64 * 1024, "{outcome:?}");
    let text = outcome.render(&Data);
    assert!(
        text.contains("Timeout") || text.contains("by_pattern: true"),
        "{text}"
    );
}

#[test]
fn a_costly_pattern_scans_instead_of_trusting_an_index_plan() {
    // The plan leaves out a.txt (it cannot match) but a.txt holds a line longer than this
    // pattern's line cap: the scan notes it, so the planned answer must too.
    let fx = Fixture::new();
    let mut long = vec![b'y'; 20_000];
    long.push(b'\n');
    fx.write("a.txt", &long);
    let b = fx.write("b.txt", "needle\n");
    let options = opts("(?:needle){3000}|needle");
    assert!(searched_line_bytes(pattern_weight(&options.pattern, false)) < 20_000);
    let plan = CandidatePlan {
        root: fx.root.clone(),
        candidates: vec![b],
        excluded: 1,
        hidden: 0,
        ignore_rules: false,
    };
    let planned = search(
        &fx.sandbox,
        &options,
        &GrepControl {
            candidates: Some(&plan),
            ..GrepControl::default()
        },
    )
    .unwrap();
    let scanned = search(&fx.sandbox, &options, &GrepControl::default()).unwrap();
    assert_eq!(scanned.long_lines, 1);
    assert_eq!(planned.long_lines, scanned.long_lines);
    assert_eq!(planned.render(&Data), scanned.render(&Data));
}
