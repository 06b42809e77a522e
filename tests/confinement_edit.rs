//! The edit tools against the real binary under attack: the review window (a directory swapped
//! for a symlink to outside while the human reviews, or moved away by the model itself with
//! `--all`), a directory swapped with `renameat2(RENAME_EXCHANGE)` in a loop while every write
//! tool runs, parallel proposals on one file from one and from two server processes, and FIFOs
//! and sockets as write targets.

use crate::common;

use common::swapper;

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use common::{StdioClient, Workspace, text_of};
use serde_json::{Value, json};

const EDITOR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/fake_editor.py");

/// Every entry below `dir` with its content (a symlink as its target), to compare before/after.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let meta = fs::symlink_metadata(&path).unwrap();
            let content = if meta.is_dir() {
                stack.push(path.clone());
                b"<dir>".to_vec()
            } else if meta.file_type().is_symlink() {
                fs::read_link(&path)
                    .unwrap()
                    .into_os_string()
                    .into_encoded_bytes()
            } else {
                fs::read(&path).unwrap()
            };
            out.insert(path, content);
        }
    }
    out
}

/// `ws` plus `outside` (a sibling of the allowed directory) holding a file that must never change.
fn workspace_with_outside() -> (Workspace, PathBuf) {
    let ws = Workspace::new();
    let outside = ws.base.join("outside");
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("secret.txt"), "OUTSIDE\n").unwrap();
    (ws, outside)
}

/// Starts a review whose editor only records the proposal file, so the test plays the human.
fn start_recorded(ws: &Workspace, extra: &[&str]) -> (StdioClient, PathBuf) {
    let record = ws.base.join("opened.txt");
    let command = format!(
        "python3 {EDITOR} record {} {{current}} {{future}}",
        record.display()
    );
    let mut args = vec!["--review-command", command.as_str()];
    args.extend_from_slice(extra);
    (ws.start(&args), record)
}

/// Waits until the review editor was started; returns the proposal file the human saves.
fn wait_for_review(record: &Path) -> PathBuf {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if let Ok(text) = fs::read_to_string(record)
            && let Some(line) = text.lines().next()
        {
            return PathBuf::from(line);
        }
        thread::sleep(Duration::from_millis(20));
    }
    panic!("the review did not start");
}

/// Saves the proposal unchanged, as an editor does (new file renamed over it): an approval.
fn approve(future: &Path) {
    let content = fs::read(future).unwrap();
    let tmp = future.with_extension("swp");
    fs::write(&tmp, content).unwrap();
    fs::rename(&tmp, future).unwrap();
}

fn call_async(c: &mut StdioClient, id: u64, tool: &str, arguments: Value) {
    c.send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments}}));
}

#[test]
fn review_window_a_directory_swapped_for_a_symlink_is_not_written_through() {
    let (ws, outside) = workspace_with_outside();
    fs::create_dir_all(ws.root.join("d")).unwrap();
    let before = snapshot(&outside);
    let (mut c, record) = start_recorded(&ws, &[]);
    call_async(
        &mut c,
        500,
        "propose_and_review",
        json!({"path": "d/new.txt", "match_text": "OVERWRITE_FILE", "new_string": "planted\n"}),
    );
    let future = wait_for_review(&record);
    fs::rename(ws.root.join("d"), ws.root.join("d_old")).unwrap();
    symlink(&outside, ws.root.join("d")).unwrap();
    approve(&future);
    let result = c.wait_for(500)["result"].clone();
    assert_eq!(result["isError"], true, "{result}");
    let message = text_of(&result);
    assert!(
        message.contains("outside") && message.contains("Nothing was written"),
        "{message}"
    );
    assert_eq!(snapshot(&outside), before, "written outside");
    assert!(!ws.root.join("d_old/new.txt").exists());
}

#[test]
fn review_window_the_model_moving_a_symlink_into_place_is_not_written_through() {
    let (ws, outside) = workspace_with_outside();
    ws.write("docs/notes.md", "notes\n");
    fs::write(outside.join("notes.md"), "notes\n").unwrap();
    symlink(&outside, ws.root.join("vendored")).unwrap();
    let before = snapshot(&outside);
    let (mut c, record) = start_recorded(&ws, &["--all"]);
    call_async(
        &mut c,
        600,
        "propose_and_review",
        json!({"path": "docs/notes.md", "match_text": "notes", "new_string": "hacked"}),
    );
    let future = wait_for_review(&record);
    c.call_text(
        "move_file",
        json!({"source": "docs", "destination": "docs_old"}),
    );
    c.call_text(
        "move_file",
        json!({"source": "vendored", "destination": "docs"}),
    );
    assert!(
        fs::symlink_metadata(ws.root.join("docs"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    approve(&future);
    let result = c.wait_for(600)["result"].clone();
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(snapshot(&outside), before, "written outside");
    assert_eq!(
        fs::read_to_string(ws.root.join("docs_old/notes.md")).unwrap(),
        "notes\n"
    );
}

/// Sends `count` auto-approved proposals at once, each replacing the marker with its own line
/// plus the marker; returns (committed tags, other answers).
fn send_parallel_proposals(c: &mut StdioClient, tag: &str, count: u64) -> Vec<u64> {
    for i in 0..count {
        call_async(
            c,
            1000 + i,
            "propose_and_review",
            json!({"path": "shared.md", "match_text": "END", "new_string": format!("{tag} {i:02}\nEND")}),
        );
    }
    (0..count).map(|i| 1000 + i).collect()
}

/// Collects the answers: the lines that were COMMITTED; anything else must be an explicit
/// conflict.
fn committed_lines(c: &mut StdioClient, tag: &str, ids: &[u64]) -> Vec<String> {
    let mut committed = Vec::new();
    for &id in ids {
        let result = c.wait_for(id)["result"].clone();
        let text = text_of(&result);
        if result["isError"] == true {
            assert!(
                text.contains("\"conflict\""),
                "neither committed nor a conflict: {text}"
            );
            continue;
        }
        let answer: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(answer["user_action"], "COMMITTED", "{answer}");
        committed.push(format!("{tag} {:02}\n", id - 1000));
    }
    committed
}

#[test]
fn forty_parallel_proposals_on_one_file_are_all_kept() {
    let ws = Workspace::new();
    ws.write("shared.md", "# shared\nEND\n");
    let mut c = ws.start(&["--auto-approve", "--review-command", "none"]);
    let ids = send_parallel_proposals(&mut c, "line", 40);
    let committed = committed_lines(&mut c, "line", &ids);
    let text = fs::read_to_string(ws.root.join("shared.md")).unwrap();
    for line in &committed {
        assert!(text.contains(line.as_str()), "{line:?} lost:\n{text}");
    }
    // Each edit applies on top of any other, so none needs to conflict.
    assert_eq!(committed.len(), 40, "{text}");
    assert_eq!(text.lines().count(), 42, "{text}");
    assert_eq!(
        fs::read_dir(&ws.root).unwrap().count(),
        1,
        "temp files left"
    );
}

#[test]
fn two_server_processes_on_one_workspace_lose_no_proposal() {
    let ws = Workspace::new();
    ws.write("shared.md", "# shared\nEND\n");
    let mut a = ws.start(&["--auto-approve", "--review-command", "none"]);
    let mut b = ws.start(&["--auto-approve", "--review-command", "none"]);
    let ids_a = send_parallel_proposals(&mut a, "from-a", 20);
    let ids_b = send_parallel_proposals(&mut b, "from-b", 20);
    let mut committed = committed_lines(&mut a, "from-a", &ids_a);
    committed.extend(committed_lines(&mut b, "from-b", &ids_b));
    let text = fs::read_to_string(ws.root.join("shared.md")).unwrap();
    for line in &committed {
        assert!(text.contains(line.as_str()), "{line:?} lost:\n{text}");
    }
    assert_eq!(committed.len(), 40, "{text}");
    assert_eq!(text.lines().count(), 42, "{text}");
}

#[test]
fn write_tools_never_reach_outside_while_a_directory_is_swapped_for_a_symlink() {
    let (ws, outside) = workspace_with_outside();
    fs::create_dir_all(ws.root.join("race")).unwrap();
    fs::write(ws.root.join("race/p.txt"), "END\n").unwrap();
    fs::write(ws.root.join("race/m0.txt"), "move me\n").unwrap();
    // The same names exist outside, so a write that went through the symlink would show.
    fs::write(outside.join("p.txt"), "END\n").unwrap();
    fs::write(outside.join("m0.txt"), "outside m0\n").unwrap();
    symlink(&outside, ws.root.join("swap")).unwrap();
    let before = snapshot(&outside);
    let mut c = ws.start(&["--all", "--auto-approve", "--review-command", "none"]);

    let stop = Arc::new(AtomicBool::new(false));
    let racer = swapper(
        ws.root.join("race"),
        ws.root.join("swap"),
        Arc::clone(&stop),
        2_000_000,
    );
    let started = Instant::now();
    let (mut ok, mut refused) = (0, 0);
    let mut moved_to = 0;
    for i in 0..150 {
        if started.elapsed() > Duration::from_secs(20) {
            break;
        }
        let calls = [
            (
                "write_file",
                json!({"path": "race/w.txt", "content": format!("w {i}\n")}),
            ),
            (
                "append_text",
                json!({"path": "race/a.txt", "content": format!("a {i}\n")}),
            ),
            (
                "propose_and_review",
                json!({"path": "race/p.txt", "match_text": "END", "new_string": format!("p {i}\nEND")}),
            ),
            (
                "move_file",
                json!({"source": format!("race/m{moved_to}.txt"), "destination": format!("race/m{}.txt", moved_to + 1)}),
            ),
        ];
        for (tool, args) in calls {
            let result = c.call(tool, args);
            if result["isError"] == true {
                refused += 1;
            } else {
                ok += 1;
                if tool == "move_file" {
                    moved_to += 1;
                }
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = racer.finish();
    // Put the directory back where it was, to look at it.
    if fs::symlink_metadata(ws.root.join("race"))
        .unwrap()
        .file_type()
        .is_symlink()
    {
        rustix::fs::renameat_with(
            rustix::fs::CWD,
            ws.root.join("race"),
            rustix::fs::CWD,
            ws.root.join("swap"),
            rustix::fs::RenameFlags::EXCHANGE,
        )
        .unwrap();
    }
    assert_eq!(snapshot(&outside), before, "something outside changed");
    assert!(swaps > 0, "the swapper ran");
    assert!(ok > 0, "some calls got through ({refused} refused)");
    // What did land is inside and whole: no temporary file was left behind.
    let inside: Vec<_> = fs::read_dir(ws.root.join("race"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        inside.iter().all(|n| !n.ends_with(".fsmcp-tmp")),
        "{inside:?}"
    );
    eprintln!("{ok} calls wrote, {refused} refused, {swaps} swaps");
}

#[test]
fn fifos_and_sockets_are_refused_as_write_targets_without_blocking() {
    let ws = Workspace::new();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        ws.root.join("pipe"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    let _socket = std::os::unix::net::UnixListener::bind(ws.root.join("sock")).unwrap();
    let mut c = ws.start(&["--all", "--auto-approve", "--review-command", "none"]);
    for (name, what) in [("pipe", "named pipe"), ("sock", "socket")] {
        for (tool, args) in [
            ("write_file", json!({"path": name, "content": "x"})),
            ("append_text", json!({"path": name, "content": "x"})),
            (
                "propose_and_review",
                json!({"path": name, "match_text": "APPEND_TO_FILE", "new_string": "x"}),
            ),
        ] {
            let result = c.call(tool, args);
            assert_eq!(result["isError"], true, "{tool} {name}: {result}");
            let message = text_of(&result);
            assert!(message.contains(what), "{tool} {name}: {message}");
        }
    }
    use std::os::unix::fs::FileTypeExt;
    assert!(
        fs::symlink_metadata(ws.root.join("pipe"))
            .unwrap()
            .file_type()
            .is_fifo()
    );
}
