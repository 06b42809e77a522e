//! One change, many files (issue 21): an `edits` item may name its own `path`; the files get
//! one diff, one verdict and a commit that writes all of them or none, also under races, a
//! directory swapped for a symlink during the review, and a crash between the renames.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{StdioClient, Workspace, text_of};
use serde_json::{Value, json};

fn response(result: &Value) -> Value {
    serde_json::from_str(&text_of(result)).unwrap_or_else(|e| panic!("not JSON ({e}): {result}"))
}

fn read(ws: &Workspace, rel: &str) -> String {
    std::fs::read_to_string(ws.root.join(rel)).unwrap()
}

/// A server with no editor on PATH (proposals go to the review page) and its own TMPDIR.
fn start(ws: &Workspace, extra: &[&str], env: &[(&str, &Path)]) -> StdioClient {
    let bin = ws.base.join("empty-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let root = ws.root.to_str().unwrap().to_string();
    let mut args: Vec<&str> = extra.to_vec();
    args.push(&root);
    let mut all: Vec<(&str, &Path)> = vec![("PATH", bin.as_path())];
    all.extend_from_slice(env);
    StdioClient::start_with_env(&ws.base, &args, &all)
}

fn three_file_edit() -> Value {
    json!({"path": "a.txt", "edits": [
        {"match_text": "alpha", "new_string": "ALPHA"},
        {"path": "b.txt", "match_text": "beta", "new_string": "BETA"},
        {"path": "sub/c.txt", "match_text": "gamma", "new_string": "GAMMA"}
    ]})
}

fn three_files(ws: &Workspace) {
    ws.write("a.txt", "alpha\n");
    ws.write("b.txt", "beta\n");
    ws.write("sub/c.txt", "gamma\n");
}

/// Approves [`three_file_edit`] on a server (sessions under `tmp`) that aborts after the
/// first of the commit's renames, and waits for it to be gone.
fn crash_after_one_rename(ws: &Workspace, tmp: &Path) {
    let one = PathBuf::from("1");
    let mut crashing = start(
        ws,
        &["--auto-approve"],
        &[
            ("TMPDIR", tmp),
            ("FS_MCP_TEST_CRASH_AFTER_RENAMES", one.as_path()),
        ],
    );
    let id = crashing.send_request(
        "tools/call",
        json!({"name": "propose_and_review", "arguments": three_file_edit()}),
    );
    assert!(crashing.try_wait_for(id, Duration::from_secs(20)).is_none());
    assert!(
        crashing.wait_exit(Duration::from_secs(10)).is_some(),
        "the server did not stop"
    );
}

async fn approve_in_page(message: &str, session: &str) {
    let (base, token) = common::review_link(message);
    let status = reqwest::Client::new()
        .post(format!("{base}/api/reviews/decide"))
        .header("x-fs-mcp-token", token)
        .json(&json!({"session_path": session}))
        .send()
        .await
        .expect("decide")
        .status();
    assert_eq!(status, reqwest::StatusCode::OK);
}

#[tokio::test]
async fn three_files_are_one_proposal_one_review_and_one_commit() {
    let ws = Workspace::new();
    three_files(&ws);
    let mut c = start(&ws, &[], &[]);
    let r = response(&c.call("propose_and_review", three_file_edit()));
    assert_eq!(r["user_action"], "PENDING", "{r}");
    let diff = r["diff"].as_str().unwrap();
    for line in ["+ALPHA", "+BETA", "+GAMMA", "b/sub/c.txt"] {
        assert!(diff.contains(line), "{line} missing in {diff}");
    }
    let session = r["session_path"].as_str().unwrap().to_string();
    approve_in_page(r["message"].as_str().unwrap(), &session).await;
    let v = response(&c.call(
        "propose_and_review",
        json!({"path": "a.txt", "session_path": session}),
    ));
    assert_eq!(v["user_action"], "COMMITTED", "{v}");
    assert!(
        v["message"].as_str().unwrap().contains("'sub/c.txt'"),
        "{v}"
    );
    assert_eq!(
        (
            read(&ws, "a.txt"),
            read(&ws, "b.txt"),
            read(&ws, "sub/c.txt")
        ),
        ("ALPHA\n".into(), "BETA\n".into(), "GAMMA\n".into())
    );
}

#[tokio::test]
async fn a_file_changed_before_the_approval_writes_nothing_and_is_named() {
    let ws = Workspace::new();
    three_files(&ws);
    let mut c = start(&ws, &[], &[]);
    let r = response(&c.call("propose_and_review", three_file_edit()));
    let session = r["session_path"].as_str().unwrap().to_string();
    ws.write("b.txt", "beta\nsomeone else's line\n");
    approve_in_page(r["message"].as_str().unwrap(), &session).await;
    let v = c.call(
        "propose_and_review",
        json!({"path": "a.txt", "session_path": session}),
    );
    assert_eq!(v["isError"], true, "{v}");
    let e = text_of(&v);
    assert!(
        e.starts_with("Error: Conflict: 'b.txt' changed on disk")
            && e.contains("+someone else's line"),
        "{e}"
    );
    assert_eq!(read(&ws, "a.txt"), "alpha\n");
    assert_eq!(read(&ws, "b.txt"), "beta\nsomeone else's line\n");
    assert_eq!(read(&ws, "sub/c.txt"), "gamma\n");
}

#[tokio::test]
async fn a_directory_swapped_for_a_symlink_during_the_review_writes_nothing() {
    let ws = Workspace::new();
    three_files(&ws);
    // Same content elsewhere inside the sandbox: only identity tells the two apart.
    ws.write("elsewhere/c.txt", "gamma\n");
    let mut c = start(&ws, &[], &[]);
    let r = response(&c.call("propose_and_review", three_file_edit()));
    let session = r["session_path"].as_str().unwrap().to_string();
    std::fs::rename(ws.root.join("sub"), ws.root.join("sub-old")).unwrap();
    std::os::unix::fs::symlink(ws.root.join("elsewhere"), ws.root.join("sub")).unwrap();
    approve_in_page(r["message"].as_str().unwrap(), &session).await;
    let v = c.call(
        "propose_and_review",
        json!({"path": "a.txt", "session_path": session}),
    );
    assert_eq!(v["isError"], true, "{v}");
    assert!(text_of(&v).contains("sub/c.txt"), "{v}");
    assert_eq!(read(&ws, "a.txt"), "alpha\n");
    assert_eq!(read(&ws, "b.txt"), "beta\n");
    assert_eq!(read(&ws, "elsewhere/c.txt"), "gamma\n");
    assert_eq!(read(&ws, "sub-old/c.txt"), "gamma\n");
}

/// Two servers commit overlapping two-file changes as fast as they can: each change lands in
/// both files or in neither, so the files always hold the same lines.
#[test]
fn parallel_overlapping_changes_land_whole_or_not_at_all() {
    let ws = Workspace::new();
    ws.write("a.txt", "start\n");
    ws.write("b.txt", "start\n");
    let rounds = 15;
    let workers: Vec<_> = ["x", "y"]
        .into_iter()
        .map(|tag| {
            let root = ws.root.clone();
            let base = ws.base.clone();
            std::thread::spawn(move || {
                let root_s = root.to_str().unwrap().to_string();
                let mut c = StdioClient::start(&base, &["--auto-approve", &root_s]);
                let mut committed = 0;
                for i in 0..rounds {
                    let line = format!("{tag}{i}");
                    let result = c.call(
                        "propose_and_review",
                        json!({"path": "a.txt", "edits": [
                            {"match_text": "APPEND_TO_FILE", "new_string": line},
                            {"path": "b.txt", "match_text": "APPEND_TO_FILE", "new_string": line}
                        ]}),
                    );
                    if result["isError"] == false {
                        committed += 1;
                    } else {
                        assert!(text_of(&result).starts_with("Error: Conflict:"), "{result}");
                    }
                }
                committed
            })
        })
        .collect();
    let committed: usize = workers.into_iter().map(|w| w.join().unwrap()).sum();
    let (a, b) = (read(&ws, "a.txt"), read(&ws, "b.txt"));
    assert_eq!(a, b);
    assert_eq!(a.lines().count(), 1 + committed, "{a}");
    assert!(committed > 0);
}

/// A crash between the renames (the documented fault-injection variable aborts the process
/// after the first rename, as a kill -9 would stop it): every file is old or new, and the next
/// server's first call completes the change and says so.
#[test]
fn a_crash_mid_commit_leaves_old_or_new_and_the_next_call_completes_it() {
    let ws = Workspace::new();
    three_files(&ws);
    let tmp: PathBuf = ws.base.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    crash_after_one_rename(&ws, &tmp);
    let states = [
        read(&ws, "a.txt"),
        read(&ws, "b.txt"),
        read(&ws, "sub/c.txt"),
    ];
    assert_eq!(states[0], "ALPHA\n", "{states:?}");
    assert_eq!(states[1], "beta\n", "{states:?}");
    assert_eq!(states[2], "gamma\n", "{states:?}");

    let mut next = start(&ws, &["--auto-approve"], &[("TMPDIR", tmp.as_path())]);
    ws.write("d.txt", "delta\n");
    let r = response(&next.call(
        "propose_and_review",
        json!({"path": "d.txt", "match_text": "delta", "new_string": "DELTA"}),
    ));
    let message = r["message"].as_str().unwrap();
    assert!(message.contains("interrupted by a crash"), "{message}");
    assert!(
        message.contains("'b.txt'") && message.contains("'sub/c.txt'"),
        "{message}"
    );
    assert_eq!(
        [
            read(&ws, "a.txt"),
            read(&ws, "b.txt"),
            read(&ws, "sub/c.txt")
        ],
        ["ALPHA\n", "BETA\n", "GAMMA\n"]
    );
    // No temporary file is left next to the files.
    let leftovers: Vec<_> = std::fs::read_dir(&ws.root)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains("fsmcp-tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// Identity comes from handles, not from a path resolved again (issue 24 item 6b): the
/// directory is replaced by another one holding the same bytes at the same canonical path, so a
/// path comparison sees nothing; the commit refuses, and neither file is written.
#[tokio::test]
async fn a_directory_replaced_at_the_same_path_is_another_file() {
    let ws = Workspace::new();
    ws.write("sub/c.txt", "gamma\n");
    let mut c = start(&ws, &[], &[]);
    let r = response(&c.call(
        "propose_and_review",
        json!({"path": "sub/c.txt", "match_text": "gamma", "new_string": "GAMMA"}),
    ));
    assert_eq!(r["user_action"], "PENDING", "{r}");
    let session = r["session_path"].as_str().unwrap().to_string();
    std::fs::rename(ws.root.join("sub"), ws.root.join("sub-old")).unwrap();
    ws.write("sub/c.txt", "gamma\n");
    approve_in_page(r["message"].as_str().unwrap(), &session).await;
    let v = c.call(
        "propose_and_review",
        json!({"path": "sub/c.txt", "session_path": session}),
    );
    assert_eq!(v["isError"], true, "{v}");
    assert_eq!(read(&ws, "sub/c.txt"), "gamma\n");
    assert_eq!(read(&ws, "sub-old/c.txt"), "gamma\n");
}

/// commit_review writes one file: for a multi-file proposal it is refused, so the change stays
/// all or none.
#[test]
fn commit_review_cannot_write_one_file_of_a_multi_file_proposal() {
    let ws = Workspace::new();
    three_files(&ws);
    let mut c = start(&ws, &[], &[]);
    let r = response(&c.call("propose_and_review", three_file_edit()));
    let session = r["session_path"].as_str().unwrap().to_string();
    let refused = c.call(
        "commit_review",
        json!({"session_path": session, "original_path": "a.txt"}),
    );
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(text_of(&refused).contains("multi-file"), "{refused}");
    assert_eq!(read(&ws, "a.txt"), "alpha\n");
}

/// A crashed server's journal belongs to its workspace: a server of another workspace sharing
/// the temp directory leaves it alone (it once consumed it, saying files were written that were
/// not), and the next server of the right workspace completes it.
#[test]
fn a_crash_journal_is_completed_only_by_a_server_of_its_own_workspace() {
    let ws = Workspace::new();
    three_files(&ws);
    let other = Workspace::new();
    other.write("d.txt", "delta\n");
    let tmp: PathBuf = ws.base.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    crash_after_one_rename(&ws, &tmp);

    let mut stranger = start(&other, &["--auto-approve"], &[("TMPDIR", tmp.as_path())]);
    let r = response(&stranger.call(
        "propose_and_review",
        json!({"path": "d.txt", "match_text": "delta", "new_string": "DELTA"}),
    ));
    let message = r["message"].as_str().unwrap();
    assert!(!message.contains("crash"), "{message}");
    assert_eq!(
        read(&ws, "b.txt"),
        "beta\n",
        "another workspace completed it"
    );

    let mut next = start(&ws, &["--auto-approve"], &[("TMPDIR", tmp.as_path())]);
    ws.write("e.txt", "eps\n");
    let r = response(&next.call(
        "propose_and_review",
        json!({"path": "e.txt", "match_text": "eps", "new_string": "EPS"}),
    ));
    let message = r["message"].as_str().unwrap();
    assert!(message.contains("interrupted by a crash"), "{message}");
    assert_eq!(
        [
            read(&ws, "a.txt"),
            read(&ws, "b.txt"),
            read(&ws, "sub/c.txt")
        ],
        ["ALPHA\n", "BETA\n", "GAMMA\n"]
    );
}

/// A journal planted in the temp directory cannot make the server rename files: one naming a
/// file that is not a temp file of this server, one in a directory others may enter, and one
/// written for other allowed directories are all left alone (they once renamed `junk.txt` over
/// `important.txt` on an unrelated, unapproved proposal).
#[test]
fn planted_journals_rename_nothing() {
    use std::os::unix::fs::PermissionsExt;
    let ws = Workspace::new();
    ws.write("important.txt", "precious\n");
    ws.write("junk.txt", "attacker-chosen\n");
    ws.write(
        ".important.txt.0123456789abcdef.fsmcp-tmp",
        "attacker-chosen\n",
    );
    ws.write("x.txt", "x\n");
    let tmp: PathBuf = ws.base.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let roots = json!([std::fs::canonicalize(&ws.root).unwrap()]);
    let entry = |temp: &str| {
        json!({"shown": "important.txt", "temp": temp.as_bytes(), "name": b"important.txt",
               "dir": [0, 0]})
    };
    let plant = |dir: &str, mode: u32, journal: Value| {
        let d = tmp.join(dir);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("commit-journal.json"), journal.to_string()).unwrap();
        std::fs::set_permissions(&d, std::fs::Permissions::from_mode(mode)).unwrap();
        d
    };
    let planted = [
        // Not a temp file of this server.
        plant(
            "fs-mcp-rs-reviews-AAAAAAAA",
            0o700,
            json!({"pid": 4194303, "roots": roots, "entries": [entry("junk.txt")]}),
        ),
        // A directory others may write.
        plant(
            "fs-mcp-rs-reviews-BBBBBBBB",
            0o777,
            json!({"pid": 4194303, "roots": roots,
                   "entries": [entry(".important.txt.0123456789abcdef.fsmcp-tmp")]}),
        ),
        // Another workspace's.
        plant(
            "fs-mcp-rs-reviews-CCCCCCCC",
            0o700,
            json!({"pid": 4194303, "roots": ["/elsewhere"],
                   "entries": [entry(".important.txt.0123456789abcdef.fsmcp-tmp")]}),
        ),
        // The right form and workspace, but not the directory the journal names.
        plant(
            "fs-mcp-rs-reviews-DDDDDDDD",
            0o700,
            json!({"pid": 4194303, "roots": roots,
                   "entries": [entry(".important.txt.0123456789abcdef.fsmcp-tmp")]}),
        ),
    ];
    let mut c = start(&ws, &["--review-via", "page"], &[("TMPDIR", tmp.as_path())]);
    let r = response(&c.call(
        "propose_and_review",
        json!({"path": "x.txt", "match_text": "x", "new_string": "y"}),
    ));
    assert_eq!(r["user_action"], json!("PENDING"), "{r}");
    assert_eq!(read(&ws, "important.txt"), "precious\n");
    assert_eq!(read(&ws, "junk.txt"), "attacker-chosen\n");
    assert_eq!(read(&ws, "x.txt"), "x\n");
    // They stay where they are (only completed journals are removed).
    for dir in &planted {
        assert!(
            dir.join("commit-journal.json").exists(),
            "{}",
            dir.display()
        );
    }
}

/// Two new files in one new directory (and one deeper), in one change: every file is judged
/// against the tree the proposal saw, so the directory the first file makes does not turn the
/// second into a conflict ("now leads to" itself).
#[test]
fn new_files_in_new_directories_are_written_together() {
    let ws = Workspace::new();
    ws.write("a.txt", "alpha\n");
    let mut c = start(&ws, &["--auto-approve"], &[]);
    let v = response(&c.call(
        "propose_and_review",
        json!({"path": "fresh/x.txt", "edits": [
            {"match_text": "", "new_string": "x\n"},
            {"path": "fresh/y.txt", "match_text": "", "new_string": "y\n"},
            {"path": "fresh/deeper/z.txt", "match_text": "", "new_string": "z\n"},
            {"path": "a.txt", "match_text": "alpha", "new_string": "ALPHA"}
        ]}),
    ));
    assert_eq!(v["user_action"], "COMMITTED", "{v}");
    assert_eq!(
        (
            read(&ws, "fresh/x.txt"),
            read(&ws, "fresh/y.txt"),
            read(&ws, "fresh/deeper/z.txt"),
            read(&ws, "a.txt")
        ),
        ("x\n".into(), "y\n".into(), "z\n".into(), "ALPHA\n".into())
    );
}

/// A change that is not written leaves no directory it would have made.
#[tokio::test]
async fn a_change_not_written_leaves_no_new_directory_behind() {
    let ws = Workspace::new();
    three_files(&ws);
    let mut c = start(&ws, &[], &[]);
    let r = response(&c.call(
        "propose_and_review",
        json!({"path": "fresh/deeper/x.txt", "edits": [
            {"match_text": "", "new_string": "x\n"},
            {"path": "fresh/y.txt", "match_text": "", "new_string": "y\n"},
            {"path": "b.txt", "match_text": "beta", "new_string": "BETA"}
        ]}),
    ));
    let session = r["session_path"].as_str().unwrap().to_string();
    ws.write("b.txt", "beta\nsomeone else's line\n");
    approve_in_page(r["message"].as_str().unwrap(), &session).await;
    let v = c.call(
        "propose_and_review",
        json!({"path": "fresh/deeper/x.txt", "session_path": session}),
    );
    assert_eq!(v["isError"], true, "{v}");
    assert!(text_of(&v).contains("Conflict: 'b.txt'"), "{v}");
    assert!(
        !ws.root.join("fresh").exists(),
        "a created directory stayed"
    );
}
