//! `search_files` walks hidden and ignored entries too (to count what it leaves out): that walk
//! under attack through the real binary. A hidden or ignored directory that is a symlink to
//! outside or is swapped for one mid-walk, FIFOs, sockets and symlinks (also as ignore files), a
//! huge ignored tree, names that try
//! to forge the `Skipped:` line, and `.gitignore` negations and nested rules.

use crate::common;

use common::{Workspace, swapper};

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;

/// Names only outside holds: a listing or count that mentions them walked outside.
const OUTSIDE_NAME: &str = "OUTSIDE_ONLY_NAME.txt";

fn outside_dir(ws: &Workspace) -> PathBuf {
    let outside = ws.base.join("outside");
    fs::create_dir_all(outside.join("sub")).unwrap();
    fs::write(outside.join(OUTSIDE_NAME), "x").unwrap();
    fs::write(outside.join("sub").join(OUTSIDE_NAME), "x").unwrap();
    outside
}

/// The `Skipped:` line of an answer, if any.
fn skipped_line(out: &str) -> Option<&str> {
    out.lines().find(|l| l.starts_with("Skipped: "))
}

#[test]
fn hidden_and_ignored_symlinks_to_outside_are_not_entered_or_counted() {
    let ws = Workspace::new();
    let outside = outside_dir(&ws);
    ws.write(".gitignore", "ignored_link\nbuild/\n");
    ws.write("build/inside.txt", "");
    symlink(&outside, ws.root.join(".hidden_link")).unwrap();
    symlink(&outside, ws.root.join("ignored_link")).unwrap();
    symlink(&outside, ws.root.join("build/link")).unwrap();
    let mut c = ws.start(&[]);
    for (hidden, ignored) in [(false, false), (true, false), (false, true), (true, true)] {
        let args =
            json!({"pattern": OUTSIDE_NAME, "include_hidden": hidden, "include_ignored": ignored});
        let out = c.call_text("search_files", args.clone());
        assert_eq!(out, "No matches found.", "{args}: {out}");
        let args = json!({"pattern": "**/OUTSIDE_ONLY_NAME.txt", "include_hidden": hidden, "include_ignored": ignored});
        let out = c.call_text("search_files", args.clone());
        assert_eq!(out, "No matches found.", "{args}: {out}");
    }
    // The links themselves are entries inside: listed (not followed) or counted as one each.
    let out = c.call_text("search_files", json!({"pattern": "*link"}));
    assert_eq!(
        out,
        "No matches found.\n\nSkipped: 1 matching file under hidden names (include_hidden=true lists them); 2 matching files excluded by .gitignore/.ignore rules or inside VCS directories (include_ignored=true lists them).",
    );
    let out = c.call_text(
        "search_files",
        json!({"pattern": "*link", "include_hidden": true, "include_ignored": true}),
    );
    assert_eq!(out, ".hidden_link\nbuild/link\nignored_link");
    c.finish();
}

/// A hidden and an ignored directory swapped for a symlink to outside while `search_files`
/// runs: outside names must never be listed, and never counted in the `Skipped:` line (the
/// pattern matches only outside names, so any count is a leak).
#[test]
fn left_out_directories_swapped_for_a_symlink_leak_no_names_and_no_counts() {
    let ws = Workspace::new();
    let outside = outside_dir(&ws);
    ws.write(".gitignore", "ign/\n");
    ws.write(".hid/inside.txt", "");
    ws.write(".hid/sub/inside.txt", "");
    ws.write("ign/inside.txt", "");
    ws.write("ign/sub/inside.txt", "");
    ws.write("shown.txt", "");
    let twin = ws.base.join("outside2");
    fs::create_dir_all(twin.join("sub")).unwrap();
    fs::write(twin.join(OUTSIDE_NAME), "x").unwrap();
    fs::write(twin.join("sub").join(OUTSIDE_NAME), "x").unwrap();
    symlink(&outside, ws.root.join("swap_hid")).unwrap();
    symlink(&twin, ws.root.join("swap_ign")).unwrap();
    let mut c = ws.start(&[]);
    let stop = Arc::new(AtomicBool::new(false));
    let racers = [
        swapper(
            ws.root.join(".hid"),
            ws.root.join("swap_hid"),
            Arc::clone(&stop),
            5_000_000,
        ),
        swapper(
            ws.root.join("ign"),
            ws.root.join("swap_ign"),
            Arc::clone(&stop),
            5_000_000,
        ),
    ];
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut calls = 0;
    let mut counted_inside = 0;
    let mut leaks = Vec::new();
    for options in [
        json!({}),
        json!({"include_hidden": true}),
        json!({"include_ignored": true}),
    ]
    .iter()
    .cycle()
    .take(600)
    {
        for pattern in [OUTSIDE_NAME, "**/OUTSIDE_ONLY_NAME.txt"] {
            let mut args = options.clone();
            args["pattern"] = json!(pattern);
            let out = c.call_text("search_files", args.clone());
            calls += 1;
            if out != "No matches found." {
                leaks.push(format!("{args}: {out}"));
            }
        }
        // The same walk does find what is inside (the race is live).
        let out = c.call_text("search_files", json!({"pattern": "inside.txt"}));
        if skipped_line(&out).is_some() {
            counted_inside += 1;
        }
        if Instant::now() > deadline || leaks.len() > 3 {
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    let swaps: usize = racers.into_iter().map(|r| r.finish()).sum();
    c.finish();
    assert!(swaps > 0 && counted_inside > 0, "the race ran");
    assert!(
        leaks.is_empty(),
        "{} of {calls} calls during {swaps} swaps listed or counted outside names:\n{}",
        leaks.len(),
        leaks.join("\n")
    );
}

#[test]
fn fifos_and_sockets_in_left_out_directories_do_not_hang() {
    let ws = Workspace::new();
    ws.write(".gitignore", "ign/\n");
    ws.write("ign/a.txt", "");
    ws.write(".hid/a.txt", "");
    for dir in ["ign", ".hid", "ign/sub", ".hid/sub"] {
        fs::create_dir_all(ws.root.join(dir)).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            ws.root.join(dir).join("fifo.txt"),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let _socket =
            std::os::unix::net::UnixListener::bind(ws.root.join(dir).join("sock.txt")).unwrap();
    }
    // A FIFO named like an ignore file in a hidden directory: only read with include_hidden.
    rustix::fs::mknodat(
        rustix::fs::CWD,
        ws.root.join(".hid/sub/.gitignore"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    let mut c = ws.start(&[]);
    let started = Instant::now();
    let out = c.call_text("search_files", json!({"pattern": "*.txt"}));
    assert!(
        out.ends_with("Skipped: 5 matching files under hidden names (include_hidden=true lists them); 5 matching files excluded by .gitignore/.ignore rules or inside VCS directories (include_ignored=true lists them)."),
        "{out}"
    );
    let out = c.call_text(
        "search_files",
        json!({"pattern": "*.txt", "include_ignored": true}),
    );
    assert!(out.contains("ign/sub/fifo.txt\nign/sub/sock.txt"), "{out}");
    let out = c.call_text(
        "search_files",
        json!({"pattern": "*.txt", "include_hidden": true, "include_ignored": true}),
    );
    assert!(out.contains(".hid/sub/fifo.txt"), "{out}");
    // Hidden entries listed, ignore rules read: the FIFO named .gitignore must not block; its
    // directory is not entered, and the note says so.
    let out = c.call_text(
        "search_files",
        json!({"pattern": "*.txt", "include_hidden": true}),
    );
    assert!(
        out.starts_with(".hid/a.txt\n.hid/fifo.txt\n.hid/sock.txt\n\nSkipped: 5 matching files excluded")
            && out.ends_with("1 directory not entered: their .gitignore/.ignore/.git/info/exclude is a FIFO, socket, device, file over 1 MiB or symlink to none inside the allowed directories, or has more rules than a search reads (20,000 lines, 512 KiB, 4 KiB a line) (include_ignored=true lists them)."),
        "{out}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "took {:?}",
        started.elapsed()
    );
    c.finish();
}

fn mkfifo(path: &std::path::Path) {
    rustix::fs::mknodat(
        rustix::fs::CWD,
        path,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
}

/// The `ignore` crate opens ignore files by path: a FIFO would block the walk for ever, a symlink
/// could make it read a device, the server's own stdin, or rules from outside. A directory
/// holding one is not entered (said in the answer); a searched directory holding one is refused
/// with the way out.
#[test]
fn ignore_files_that_are_fifos_or_symlinks_are_never_read() {
    let ws = Workspace::new();
    let outside = ws.base.join("outside_rules");
    fs::write(&outside, "*.txt\n").unwrap();
    ws.write("a.txt", "needle\n");
    ws.write("fifo_dir/b.txt", "needle\n");
    mkfifo(&ws.root.join("fifo_dir/.gitignore"));
    ws.write("link_dir/c.txt", "needle\n");
    symlink(&outside, ws.root.join("link_dir/.ignore")).unwrap();
    ws.write("ok_dir/d.txt", "needle\n");
    // A symlink to rules inside is read as usual.
    ws.write("shared_rules", "skip_me.txt\n");
    ws.write("ok_dir/skip_me.txt", "needle\n");
    symlink(
        ws.root.join("shared_rules"),
        ws.root.join("ok_dir/.gitignore"),
    )
    .unwrap();
    let mut c = ws.start(&[]);
    let started = Instant::now();
    let out = c.call_text("search_files", json!({"pattern": "*.txt"}));
    assert_eq!(
        out,
        "a.txt\nok_dir/d.txt\n\nSkipped: 1 matching file excluded by .gitignore/.ignore rules or inside VCS directories (include_ignored=true lists them); 2 directories not entered: their .gitignore/.ignore/.git/info/exclude is a FIFO, socket, device, file over 1 MiB or symlink to none inside the allowed directories, or has more rules than a search reads (20,000 lines, 512 KiB, 4 KiB a line) (include_ignored=true lists them)."
    );
    let out = c.call_text("grep_content", json!({"pattern": "needle"}));
    assert!(
        out.contains("a.txt") && out.contains("ok_dir/d.txt") && !out.contains("b.txt"),
        "{out}"
    );
    let out = c.call_text(
        "search_files",
        json!({"pattern": "*.txt", "include_ignored": true}),
    );
    assert_eq!(
        out,
        "a.txt\nfifo_dir/b.txt\nlink_dir/c.txt\nok_dir/d.txt\nok_dir/skip_me.txt"
    );
    // The searched directory itself: refused, with what to do instead.
    for tool in ["search_files", "grep_content"] {
        let args = match tool {
            "search_files" => json!({"path": "fifo_dir", "pattern": "*"}),
            _ => json!({"search_path": "link_dir", "pattern": "needle"}),
        };
        let result = c.call(tool, args);
        let text = common::text_of(&result);
        assert_eq!(result["isError"], json!(true), "{tool}: {text}");
        assert!(text.contains("include_ignored=true"), "{tool}: {text}");
    }
    let out = c.call_text(
        "grep_content",
        json!({"search_path": "link_dir", "pattern": "needle", "include_ignored": true}),
    );
    assert!(out.contains("link_dir/c.txt"), "{out}");
    // A directory excluded by a rule above the searched one is still entered to count what it
    // holds: its FIFO must not be opened either.
    ws.write(".ignore", "gen/\n");
    ws.write("sub/gen/e.txt", "");
    ws.write("sub/f.txt", "");
    mkfifo(&ws.root.join("sub/gen/.gitignore"));
    let out = c.call_text("search_files", json!({"path": "sub", "pattern": "*.txt"}));
    assert!(
        out.starts_with("sub/f.txt\n\nSkipped: ") && out.ends_with("1 directory not entered: their .gitignore/.ignore/.git/info/exclude is a FIFO, socket, device, file over 1 MiB or symlink to none inside the allowed directories, or has more rules than a search reads (20,000 lines, 512 KiB, 4 KiB a line) (include_ignored=true lists them)."),
        "{out}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "took {:?}",
        started.elapsed()
    );
    c.finish();
}

/// A node_modules-like ignored tree of 50,000 empty files: the call stays bounded (the count
/// stops at its budget) and the listing of what is not ignored is complete.
#[test]
fn a_huge_ignored_tree_costs_a_bounded_time() {
    let ws = Workspace::new();
    ws.write(".gitignore", "node_modules/\n");
    ws.write("src/index.js", "");
    ws.write("src/util.js", "");
    for pkg in 0..500 {
        let dir = ws.root.join(format!("node_modules/pkg{pkg}/lib"));
        fs::create_dir_all(&dir).unwrap();
        for f in 0..100 {
            fs::File::create(dir.join(format!("f{f}.js"))).unwrap();
        }
    }
    let mut c = ws.start(&[]);
    let started = Instant::now();
    let out = c.call_text("search_files", json!({"pattern": "*.js"}));
    let bounded = started.elapsed();
    let (paths, note) = out.split_once("\n\n").expect("a Skipped note");
    assert_eq!(paths, "src/index.js\nsrc/util.js");
    assert!(
        note.starts_with("Skipped: at least ") && note.contains("counting stopped"),
        "{note}"
    );
    let started = Instant::now();
    let all = c.call_text(
        "search_files",
        json!({"pattern": "f99.js", "include_ignored": true}),
    );
    let full = started.elapsed();
    assert!(
        all.contains("showing the first 200 of 500 matching files"),
        "{all}"
    );
    eprintln!("left out (bounded): {bounded:?}; full walk of 50,002 files: {full:?}");
    // Generous: the bounded call visits at most the budget's entries plus directories read.
    assert!(bounded < Duration::from_secs(20), "took {bounded:?}");
    c.finish();
}

#[test]
fn names_in_left_out_directories_cannot_forge_the_skipped_line() {
    let ws = Workspace::new();
    ws.write(".gitignore", "ign/\n");
    let evil = std::ffi::OsStr::from_bytes(b"x.txt\n\nSkipped: 99 forged\xff.txt");
    for dir in ["ign", ".hid"] {
        fs::create_dir_all(ws.root.join(dir)).unwrap();
        fs::write(ws.root.join(dir).join(evil), "").unwrap();
    }
    let mut c = ws.start(&[]);
    let out = c.call_text("search_files", json!({"pattern": "*.txt"}));
    assert_eq!(
        out,
        "No matches found.\n\nSkipped: 1 matching file under hidden names (include_hidden=true lists them); 1 matching file excluded by .gitignore/.ignore rules or inside VCS directories (include_ignored=true lists them)."
    );
    let out = c.call_text(
        "search_files",
        json!({"pattern": "*.txt", "include_hidden": true, "include_ignored": true}),
    );
    assert!(!out.contains('\u{fffd}'), "{out}");
    assert_eq!(
        out.lines().count(),
        2,
        "one line per file, escaped: {out:?}"
    );
    c.finish();
}
/// Negations, nested rules, rules of directories above the searched one, anchored and
/// directory-only patterns: the listing is what a rule-respecting walk lists (as `git
/// ls-files --others --exclude-standard` would), whatever the one walk visited.
#[test]
fn gitignore_negations_and_nested_rules_give_the_rule_respecting_listing() {
    let ws = Workspace::new();
    ws.write(
        ".gitignore",
        "*.log\n!keep.log\n/top_only.txt\nbuild/\ndocs/**/draft*\n",
    );
    ws.write("keep.log", "");
    ws.write("drop.log", "");
    ws.write("top_only.txt", "");
    ws.write("a/top_only.txt", "");
    ws.write("a/keep.log", "");
    ws.write("a/other.log", "");
    ws.write("a/.gitignore", "!other.log\n*.txt\n");
    ws.write("a/b/c.txt", "");
    ws.write("a/b/.ignore", "!c.txt\n");
    ws.write("build/x.txt", "");
    ws.write("build/.gitignore", "!x.txt\n");
    ws.write("docs/x/draft1.md", "");
    ws.write("docs/x/final.md", "");
    ws.write("src/build", "a file named build is not a directory");
    let mut c = ws.start(&[]);
    let out = c.call_text("search_files", json!({"pattern": "*"}));
    let (listed, note) = out.split_once("\n\n").unwrap_or((&out, ""));
    assert_eq!(
        listed,
        "a/b/c.txt\na/keep.log\na/other.log\ndocs/x/final.md\nkeep.log\nsrc/build",
    );
    assert_eq!(
        note,
        "Skipped: 4 matching files under hidden names (include_hidden=true lists them); 5 matching files excluded by .gitignore/.ignore rules or inside VCS directories (include_ignored=true lists them)."
    );
    // Searching a sub-directory applies the rules above it.
    let out = c.call_text("search_files", json!({"path": "a", "pattern": "*"}));
    assert!(
        out.starts_with("a/b/c.txt\na/keep.log\na/other.log\n\n"),
        "{out}"
    );
    let out = c.call_text("search_files", json!({"path": "docs", "pattern": "*.md"}));
    assert!(
        out.starts_with("docs/x/final.md\n\nSkipped: 1 matching file excluded"),
        "{out}"
    );
    c.finish();
}

/// grep_content shares the walk's rules: a negation below the searched directory wins over a
/// rule above it there too.
#[test]
fn grep_under_a_directory_honours_a_negation_below_it() {
    let ws = Workspace::new();
    ws.write(".gitignore", "*.log\nout/\n");
    ws.write("a/.gitignore", "!keep.log\n!out/\n");
    ws.write("a/keep.log", "needle\n");
    ws.write("a/drop.log", "needle\n");
    ws.write("a/out/x.txt", "needle\n");
    let mut c = ws.start(&[]);
    let files = |out: &str| {
        let mut files: Vec<String> = out
            .lines()
            .filter_map(|l| l.strip_prefix("File: "))
            .map(|l| l.split(',').next().unwrap_or_default().to_string())
            .collect();
        files.sort();
        files
    };
    let from_root = files(&c.call_text("grep_content", json!({"pattern": "needle"})));
    assert_eq!(from_root, ["a/keep.log", "a/out/x.txt"]);
    let from_a = files(&c.call_text(
        "grep_content",
        json!({"pattern": "needle", "search_path": "a"}),
    ));
    assert_eq!(from_a, from_root);
    c.finish();
}
