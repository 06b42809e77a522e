//! `--index` through the real binary: an indexed server's grep_content and search_files answer
//! exactly what a server without the index answers, over generated trees and patterns while a churn thread
//! edits, creates, deletes and renames files, directories and `.gitignore` rules; after a burst
//! that overflows the watcher's queue; and while a directory is swapped for a symlink to outside.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::{StdioClient, Workspace, swapper};
use serde_json::{Value, json};

/// Logs the index's decisions, which the tests count.
const INDEX_ARGS: &[&str] = &["--index", "--log-level", "fs_mcp_index=debug"];
/// The debug line of a search answered from the index.
const USED: &str = "candidate files of";
/// The debug line of a search_files call answered from the index.
const LISTED: &str = "left out for search_files";

const WORDS: &[&str] = &[
    "alpha",
    "beta",
    "gamma",
    "delta",
    "needle",
    "haystack",
    "Widget",
    "widget_id",
    "RFC 3986",
    "fn main",
    "TODO",
    "parse_url",
    "zeta",
    "omega",
    "lambda",
];

/// A small deterministic generator (xorshift), so a failure repeats.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn text(&mut self) -> String {
        let lines = 1 + self.below(8);
        let mut out = String::new();
        for _ in 0..lines {
            let words = self.below(5);
            let line: Vec<&str> = (0..words).map(|_| WORDS[self.below(WORDS.len())]).collect();
            out.push_str(&line.join(" "));
            out.push('\n');
        }
        out
    }
}

fn grep(client: &mut StdioClient, arguments: Value) -> String {
    client.call_text("grep_content", arguments)
}

fn used(client: &StdioClient) -> usize {
    client.stderr.lock().unwrap().matches(USED).count()
}

fn listed(client: &StdioClient) -> usize {
    client.stderr.lock().unwrap().matches(LISTED).count()
}

fn stderr_has(client: &StdioClient, needle: &str) -> bool {
    client.stderr.lock().unwrap().contains(needle)
}

/// Calls grep_content until the index answers one (the first call starts the build).
fn wait_until_used(client: &mut StdioClient) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let before = used(client);
    while used(client) == before {
        assert!(
            Instant::now() < deadline,
            "the index never answered: {}",
            client.stderr.lock().unwrap()
        );
        grep(client, json!({"pattern": "needle"}));
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Patterns of every kind: literals, alternations, case-insensitive, classes, ones that require
/// nothing checkable, ones that match nowhere.
fn patterns(rng: &mut Rng) -> Vec<Value> {
    let word = WORDS[rng.below(WORDS.len())];
    let other = WORDS[rng.below(WORDS.len())];
    let max = [1, 3, 100][rng.below(3)];
    vec![
        json!({"pattern": regex_escape(word), "max_matches": max}),
        json!({"pattern": format!("{}|{}", regex_escape(word), regex_escape(other)), "max_matches": max}),
        json!({"pattern": word.to_uppercase(), "case_insensitive": true}),
        json!({"pattern": "w[iI]dget(_id)?\\b"}),
        json!({"pattern": "nowhere_at_all"}),
        json!({"pattern": ".", "max_matches": 5, "context_lines": 0}),
        json!({"pattern": "[0-9]+", "search_path": "d1"}),
        json!({"pattern": regex_escape(word), "search_path": "d1", "max_matches": max}),
    ]
}

fn regex_escape(word: &str) -> String {
    word.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == ' ' {
                c.to_string()
            } else {
                format!("\\{c}")
            }
        })
        .collect()
}

/// Globs of every kind: by name, by relative path, matching directories (never listed) as well
/// as files, hidden names, ignored files, symlinks, from the root and from a sub-directory.
fn globs() -> Vec<Value> {
    vec![
        json!({"pattern": "*.txt"}),
        json!({"pattern": "*.{rs,log}"}),
        json!({"pattern": "*"}),
        json!({"pattern": "d*"}),
        json!({"pattern": "**/deep/**"}),
        json!({"pattern": "d1/*"}),
        json!({"pattern": ".*"}),
        json!({"pattern": "*moved*"}),
        json!({"pattern": "link*"}),
        json!({"pattern": "*.txt", "path": "d1"}),
        json!({"pattern": "sub/**", "path": "d1"}),
    ]
}

/// The starting tree: nested directories, hidden files, ignore rules, an ignored directory.
fn generated_tree(ws: &Workspace, rng: &mut Rng) {
    for i in 0..40 {
        let dir = ["", "d1/", "d1/sub/", "d2/", "d2/deep/er/"][i % 5];
        let text = rng.text();
        ws.write(&format!("{dir}f{i}.txt"), text);
    }
    ws.write(".hidden.txt", "needle in a hidden file\n");
    ws.write("d1/.secret", "needle hidden too\n");
    ws.write(".gitignore", "*.log\nbuild/\n");
    ws.write("d2/.ignore", "skip*\n");
    ws.write("app.log", "needle in a log\n");
    ws.write("build/out.txt", "needle in build output\n");
    ws.write("d2/skipped.txt", "needle skipped\n");
    ws.write("bin.dat", b"needle\0binary\n");
    ws.write(".cache/deep/c.txt", "hidden below\n");
    ws.write("build/sub/x.rs", "ignored below\n");
    std::os::unix::fs::symlink("d1", ws.root.join("link_d1")).unwrap();
}

/// All regular files below `root` (not following symlinks), relative.
fn files_below(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                stack.push(entry.path());
            } else if kind.is_file() {
                out.push(entry.path().strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// One random change of the tree: mostly file edits, creates, deletes and renames; sometimes
/// rules, directories, hidden and ignored files.
fn churn_once(root: &Path, rng: &mut Rng, step: usize) {
    let files = files_below(root);
    let pick = |rng: &mut Rng| files.get(rng.below(files.len().max(1))).cloned();
    match rng.below(15) {
        0..=3 => {
            if let Some(f) = pick(rng) {
                fs::write(root.join(f), rng.text()).unwrap();
            }
        }
        4 | 5 => {
            let dir = ["", "d1/", "d1/sub/", "d2/"][rng.below(4)];
            let ext = ["txt", "log", "rs"][rng.below(3)];
            fs::write(root.join(format!("{dir}new{step}.{ext}")), rng.text()).ok();
        }
        6 => {
            if let Some(f) = pick(rng) {
                fs::remove_file(root.join(f)).ok();
            }
        }
        7 => {
            if let Some(f) = pick(rng) {
                let dir = ["", "d1/", "d2/deep/"][rng.below(3)];
                let name = [
                    format!("moved{step}.txt"),
                    format!(".moved{step}"),
                    format!("skip{step}.txt"),
                ][rng.below(3)]
                .clone();
                let target = root.join(dir).join(name);
                fs::create_dir_all(target.parent().unwrap()).ok();
                fs::rename(root.join(f), target).ok();
            }
        }
        8 => {
            let rules = [
                "*.log\nbuild/\n",
                "*.log\n",
                "build/\nd1/sub/\n",
                "moved*\n!moved1*\n",
                "",
            ][rng.below(5)];
            fs::write(root.join(".gitignore"), rules).unwrap();
        }
        9 => {
            let dir = root.join(format!("d{}", 3 + rng.below(3)));
            fs::create_dir_all(&dir).ok();
            fs::write(dir.join(format!("in{step}.txt")), rng.text()).ok();
        }
        10 => {
            let (a, b) = (root.join("d2/deep"), root.join("d1/deep"));
            if a.exists() {
                fs::rename(a, b).ok();
            } else if b.exists() {
                fs::rename(b, a).ok();
            }
        }
        12 => {
            // Below left-out directories: a hidden one, an ignored one, one that comes and goes.
            let dir = [".cache/deep", "build/sub", "d1/.hid", "d2/build"][rng.below(4)];
            let path = root.join(dir).join(format!("under{}.txt", rng.below(3)));
            if path.exists() {
                fs::remove_file(path).ok();
            } else {
                fs::create_dir_all(path.parent().unwrap()).ok();
                fs::write(path, "below\n").ok();
            }
        }
        13 => {
            // A symlink (listed, never followed) appears or goes.
            let link = root.join(format!("d{}/link{}", 1 + rng.below(2), rng.below(2)));
            if fs::symlink_metadata(&link).is_ok() {
                fs::remove_file(link).ok();
            } else {
                std::os::unix::fs::symlink("../d1", link).ok();
            }
        }
        _ => {
            let hidden = root.join(format!("d1/.tmp{}", rng.below(4)));
            if hidden.exists() {
                fs::remove_file(hidden).ok();
            } else {
                fs::write(hidden, "needle\n").ok();
            }
        }
    }
}

/// Differential test: after every burst of changes by the churn thread, each pattern's indexed
/// answer equals a plain server's scan of the same (quiesced) tree, and the index answers most
/// of them; the churn never waits for the index to catch up.
#[test]
fn indexed_answers_equal_scans_under_churn() {
    let ws = Workspace::new();
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    generated_tree(&ws, &mut rng);
    let mut indexed = ws.start(INDEX_ARGS);
    let mut plain = ws.start(&[]);
    wait_until_used(&mut indexed);

    const ROUNDS: usize = 40;
    let (to_main, quiesced) = mpsc::channel::<usize>();
    let (to_churn, go) = mpsc::channel::<()>();
    let root = ws.root.clone();
    let churn = std::thread::spawn(move || {
        let mut rng = Rng(0x0c4a_0a11_77ee_5eed);
        for round in 0..ROUNDS {
            for step in 0..1 + rng.below(4) {
                churn_once(&root, &mut rng, round * 10 + step);
            }
            to_main.send(round).unwrap();
            if go.recv().is_err() {
                return;
            }
        }
    });

    let (mut compared, mut compared_globs) = (0, 0);
    let used_before = used(&indexed);
    let listed_before = listed(&indexed);
    while let Ok(round) = quiesced.recv() {
        for arguments in patterns(&mut rng) {
            let from_index = grep(&mut indexed, arguments.clone());
            let from_scan = grep(&mut plain, arguments.clone());
            assert_eq!(
                from_index, from_scan,
                "round {round}, {arguments}: the indexed answer differs from a scan"
            );
            compared += 1;
        }
        for arguments in globs() {
            let from_index = indexed.call_text("search_files", arguments.clone());
            let from_scan = plain.call_text("search_files", arguments.clone());
            assert_eq!(
                from_index, from_scan,
                "round {round}, search_files {arguments}: the indexed answer differs from a scan"
            );
            compared_globs += 1;
        }
        to_churn.send(()).unwrap();
    }
    churn.join().unwrap();
    let answered = used(&indexed) - used_before;
    assert!(
        answered >= compared / 4,
        "the index answered only {answered} of {compared} searches: {}",
        indexed.stderr.lock().unwrap()
    );
    let answered = listed(&indexed) - listed_before;
    assert!(
        answered >= compared_globs / 4,
        "the index answered only {answered} of {compared_globs} search_files calls: {}",
        indexed.stderr.lock().unwrap()
    );
}

/// A burst of many thousands of new files and writes overflows the watcher's queue (16,384
/// events by default): the server notices, scans meanwhile, rebuilds, and answers right all
/// along.
#[test]
fn a_burst_that_overflows_the_queue_falls_back_to_scans() {
    let ws = Workspace::new();
    let mut rng = Rng(0xb0a5_7000_0000_0001);
    generated_tree(&ws, &mut rng);
    let burst = ws.root.join("d1");
    let mut indexed = ws.start(INDEX_ARGS);
    let mut plain = ws.start(&[]);
    wait_until_used(&mut indexed);

    // Four writers, 24,000 files in an existing directory: two events each, 48,000 in all.
    let writers: Vec<_> = (0..4)
        .map(|w| {
            let dir = burst.clone();
            std::thread::spawn(move || {
                for i in 0..6_000 {
                    fs::write(
                        dir.join(format!("b{w}_{i}.txt")),
                        format!("burst {w} {i}\n"),
                    )
                    .unwrap();
                }
            })
        })
        .collect();
    for writer in writers {
        writer.join().unwrap();
    }
    // Then 200,000 one-byte appends in turn to 64 open files: events come far faster than any
    // reader can apply them (each is a file read), so the queue overflows whatever the load.
    let mut open: Vec<fs::File> = (0..64)
        .map(|i| {
            fs::OpenOptions::new()
                .append(true)
                .open(burst.join(format!("b0_{i}.txt")))
                .unwrap()
        })
        .collect();
    for n in 0..200_000 {
        std::io::Write::write_all(&mut open[n % 64], b"x").unwrap();
    }
    drop(open);
    fs::write(burst.join("last.txt"), "the very last needle\n").unwrap();
    for arguments in [
        json!({"pattern": "very last needle"}),
        json!({"pattern": "burst 3 5999$"}),
        // Fewer matches than the cap: a scan's count never stops early (it would vary).
        json!({"pattern": "burst [0-3] 123[0-9]?$"}),
    ] {
        assert_eq!(
            grep(&mut indexed, arguments.clone()),
            grep(&mut plain, arguments.clone()),
            "{arguments}"
        );
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    while !stderr_has(&indexed, "queue overflowed") {
        assert!(
            Instant::now() < deadline,
            "no overflow noticed: {}",
            indexed.stderr.lock().unwrap()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // Rebuilt, the index answers again, and right.
    wait_until_used(&mut indexed);
    for arguments in [
        json!({"pattern": "very last needle"}),
        json!({"pattern": "burst 2 59[0-9]0$"}),
    ] {
        let from_index = grep(&mut indexed, arguments.clone());
        assert_eq!(
            from_index,
            grep(&mut plain, arguments.clone()),
            "{arguments}; the indexed server's log:\n{}",
            indexed.stderr.lock().unwrap()
        );
    }
}

/// A directory swapped for a symlink to outside (RENAME_EXCHANGE, in a loop) never makes an
/// outside file's content reach an indexed answer; once the swapping stops, answers equal scans.
#[test]
fn a_directory_swapped_for_a_symlink_never_leaks_outside_content() {
    let ws = Workspace::new();
    ws.write("race/inside.txt", "inside text\n");
    ws.write("race/sub/inner.txt", "inside too\n");
    ws.write("top.txt", "top level\n");
    let outside = ws.base.join("outside");
    fs::create_dir_all(outside.join("sub")).unwrap();
    fs::write(outside.join("inside.txt"), "NEEDLE outside secret\n").unwrap();
    fs::write(outside.join("sub/inner.txt"), "NEEDLE deeper\n").unwrap();
    fs::write(outside.join("outside_only.txt"), "x\n").unwrap();
    fs::write(outside.join(".outside_hidden.txt"), "x\n").unwrap();
    ws.write("race/.hid/h.txt", "hidden inside\n");
    std::os::unix::fs::symlink(&outside, ws.root.join("swap")).unwrap();
    let mut indexed = ws.start(INDEX_ARGS);
    let mut plain = ws.start(&[]);
    wait_until_used(&mut indexed);

    let stop = Arc::new(AtomicBool::new(false));
    let swaps = swapper(
        ws.root.join("race"),
        ws.root.join("swap"),
        Arc::clone(&stop),
        200_000,
    );
    for i in 0..60 {
        let path = ["race", ".", "race/sub"][i % 3];
        let result = indexed.call(
            "grep_content",
            json!({"pattern": "NEEDLE|secret|deeper", "search_path": path}),
        );
        let text = result.to_string();
        assert!(
            !text.contains("NEEDLE") && !text.contains("outside secret"),
            "outside content in an answer: {text}"
        );
        // search_files from the index: no outside name listed, none counted (the only hidden
        // matching file inside is race/.hid/h.txt).
        let text = indexed
            .call("search_files", json!({"pattern": "*.txt", "path": path}))
            .to_string();
        assert!(
            !text.contains("outside_only") && !text.contains("2 matching files under hidden"),
            "an outside name in an answer: {text}"
        );
    }
    stop.store(true, Ordering::Relaxed);
    let swapped = swaps.finish();
    assert!(swapped > 0);
    for arguments in [
        json!({"pattern": "inside|NEEDLE"}),
        json!({"pattern": "top"}),
        json!({"pattern": "nothing here"}),
    ] {
        assert_eq!(
            grep(&mut indexed, arguments.clone()),
            grep(&mut plain, arguments.clone()),
            "{arguments}"
        );
    }
    for arguments in [
        json!({"pattern": "*.txt"}),
        json!({"pattern": "*"}),
        json!({"pattern": "*.txt", "path": "race"}),
    ] {
        assert_eq!(
            indexed.call_text("search_files", arguments.clone()),
            plain.call_text("search_files", arguments.clone()),
            "{arguments}"
        );
    }
}
