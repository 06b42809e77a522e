//! The review workflow end to end. The tests stand in for the human by writing the session's
//! `future_` file, the way an editor saves (a new file renamed over the old one) or in place.

// Test code: a panic is how a test reports failure, and clippy's allow-unwrap-in-tests
// does not reach helpers outside #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use fs_mcp_edit::{
    AccessThen, Approval, CommitRefusal, Committed, Decision, Diagnosis, DiffVersion, EditError,
    EditSpec, ErrorKind, Failure, LaunchOutcome, Limit, NearMiss, NextStep, Note, ProposeRequest,
    Recovery, RecoveryStep, ReviewCommitted, ReviewConfig, ReviewManager, ReviewOutcome,
    ReviewOwner, ReviewScope, Searched, Undecided, UserAction, VersionDiff, WaitingInfo,
};
use fs_mcp_sandbox::Sandbox;
use serde_json::Value;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};
use tokio::task::JoinHandle;

const WAIT: Duration = Duration::from_secs(20);

struct Env {
    _tmp: tempfile::TempDir,
    base: PathBuf,
    ws: PathBuf,
    sandbox: Sandbox,
    mgr: Arc<ReviewManager>,
    waiting: UnboundedReceiver<WaitingInfo>,
}

fn env(configure: impl FnOnce(&mut ReviewConfig)) -> Env {
    let tmp = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(tmp.path()).unwrap();
    let ws = base.join("ws");
    fs::create_dir_all(&ws).unwrap();
    fs::create_dir_all(base.join("sessions")).unwrap();
    fs::create_dir_all(base.join("outside")).unwrap();
    let (sandbox, _) = Sandbox::new([&ws]).unwrap();
    let (tx, rx) = unbounded_channel();
    let mut config = ReviewConfig {
        review_command: None,
        review_timeout: Duration::from_secs(60),
        debounce: Duration::from_millis(50),
        sessions_parent: Some(base.join("sessions")),
        on_waiting: Some(Arc::new(move |info: &WaitingInfo| {
            let _ = tx.send(info.clone());
        })),
        ..ReviewConfig::default()
    };
    configure(&mut config);
    let mgr = Arc::new(ReviewManager::new(config).unwrap());
    Env {
        _tmp: tmp,
        base,
        ws,
        sandbox,
        mgr,
        waiting: rx,
    }
}

impl Env {
    fn propose(&self, req: ProposeRequest) -> JoinHandle<Result<ReviewOutcome, EditError>> {
        let mgr = Arc::clone(&self.mgr);
        let sb = self.sandbox.clone();
        tokio::spawn(async move {
            let owner = ReviewOwner::client(1, &sb);
            mgr.propose_and_review(&sb, req, &owner, std::future::pending())
                .await
        })
    }

    async fn propose_now(&self, req: ProposeRequest) -> Result<ReviewOutcome, EditError> {
        self.mgr
            .propose_and_review(&self.sandbox, req, &self.owner(), std::future::pending())
            .await
    }

    /// The one client of these tests.
    fn owner(&self) -> ReviewOwner {
        ReviewOwner::client(1, &self.sandbox)
    }

    async fn next_waiting(&mut self) -> WaitingInfo {
        tokio::time::timeout(WAIT, self.waiting.recv())
            .await
            .expect("no review started waiting")
            .expect("hook channel closed")
    }

    async fn commit_review(
        &self,
        session: &str,
        original: &str,
    ) -> Result<ReviewCommitted, EditError> {
        self.mgr
            .commit_review(&self.sandbox, session, original, &self.owner())
            .await
    }

    fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.ws.join(rel)).unwrap()
    }

    fn session_dirs(&self) -> usize {
        fs::read_dir(self.mgr.sessions_dir()).unwrap().count()
    }
}

async fn finish(
    task: JoinHandle<Result<ReviewOutcome, EditError>>,
) -> Result<ReviewOutcome, EditError> {
    tokio::time::timeout(WAIT, task)
        .await
        .expect("the proposal did not finish")
        .expect("the proposal task panicked")
}

/// Saves like most editors: a new file renamed over the old one.
fn human_save(future: &Path, content: impl AsRef<[u8]>) {
    let tmp = future.with_extension("editor-swap");
    fs::write(&tmp, content).unwrap();
    fs::rename(&tmp, future).unwrap();
}

/// Approves: saves the proposal unchanged.
fn human_approve(info: &WaitingInfo) {
    let content = fs::read(&info.future).unwrap();
    human_save(&info.future, content);
}

/// REVIEW: the hunks of the human's changes.
fn feedback_diff(outcome: &ReviewOutcome) -> Option<String> {
    feedback_version_diff(outcome).map(|d| d.hunks.text().to_string())
}

/// REVIEW: the diff of the human's changes.
fn feedback_version_diff(outcome: &ReviewOutcome) -> Option<VersionDiff> {
    match &outcome.decision {
        Decision::Feedback { diff, .. } => Some(diff.clone()),
        _ => None,
    }
}

/// Auto-approve: what was written.
fn auto_diff(outcome: &ReviewOutcome) -> Option<String> {
    match &outcome.decision {
        Decision::Committed(c) => c.diff.as_ref().map(|d| d.text().to_string()),
        _ => None,
    }
}

/// A plain commit of `files` approved as `approval`.
fn committed(files: &[&str], approval: Approval) -> Decision {
    Decision::Committed(Committed {
        files: files.iter().map(|f| f.to_string()).collect(),
        approval,
        comment: None,
        diff: None,
        cleanup_failed: None,
    })
}

/// A failed match's facts: (edit, in the session, found, expected).
fn count(e: &EditError) -> Option<(Option<usize>, bool, usize, usize)> {
    match *e.failure() {
        Failure::MatchCount {
            edit,
            in_session,
            found,
            expected,
        } => Some((edit, in_session, found, expected)),
        _ => None,
    }
}

/// The typed error's data as a JSON value, to compare fields compactly.
fn err_json(e: &EditError) -> Value {
    let mut v = serde_json::json!({
        "error_type": e.kind().as_str(),
        "failure": format!("{:?}", e.failure()),
        "session_path": e.session_path(),
        "diff": e.diff().map(|d| d.hunks.text()),
    });
    if let Some(h) = e.hints() {
        v["line_count"] = h.line_count.into();
        v["occurrences"] = serde_json::json!(h.occurrences);
        v["suggested_grep_keywords"] = serde_json::json!(h.suggested_grep_keywords);
        v["suggestions"] = serde_json::json!(h.suggestions.as_ref().map(|s| {
            s.iter()
                .map(|s| {
                    serde_json::json!({
                        "line_start": s.line_start,
                        "line_end": s.line_end,
                        "similarity": s.similarity,
                        "preview": s.preview,
                    })
                })
                .collect::<Vec<_>>()
        }));
        v["outline"] = serde_json::json!(h.outline.as_ref().map(|o| {
            o.iter()
                .map(|o| serde_json::json!({"type": o.kind, "name": o.name}))
                .collect::<Vec<_>>()
        }));
    }
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn approve_unchanged_commits() {
    let mut e = env(|_| {});
    fs::write(e.ws.join("t.py"), "a\nb\nc\n").unwrap();
    let task = e.propose(ProposeRequest::single("t.py", "b", "B"));
    let info = e.next_waiting().await;
    assert_eq!(info.path, "t.py");
    assert_eq!(info.launch, LaunchOutcome::Disabled);
    assert_eq!(fs::read_to_string(&info.current).unwrap(), "a\nb\nc\n");
    assert_eq!(fs::read_to_string(&info.future).unwrap(), "a\nB\nc\n");
    assert!(info.future.ends_with("future_t.py"));
    // Private session directory.
    let dir = info.future.parent().unwrap();
    assert_eq!(fs::metadata(dir).unwrap().mode() & 0o777, 0o700);
    assert_eq!(
        fs::metadata(e.mgr.sessions_dir()).unwrap().mode() & 0o777,
        0o700
    );
    // Nothing written while waiting.
    assert_eq!(e.read("t.py"), "a\nb\nc\n");
    human_approve(&info);
    let resp = finish(task).await.unwrap();
    assert_eq!(resp.user_action(), UserAction::Committed);
    assert_eq!(resp.decision, committed(&["t.py"], Approval::Reviewed));
    assert!(resp.notes.is_empty());
    assert_eq!(resp.session_path(), None);
    assert_eq!(e.read("t.py"), "a\nB\nc\n");
    assert!(!dir.exists());
    assert_eq!(e.mgr.open_sessions(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edited_proposal_is_a_review_then_continues() {
    let mut e = env(|_| {});
    fs::write(e.ws.join("t.py"), "a\nb\nc\n").unwrap();
    let task = e.propose(ProposeRequest::single("t.py", "b", "B"));
    let info = e.next_waiting().await;
    // In-place save (same inode) of an edited version.
    fs::write(&info.future, "a\nBee\nc\n").unwrap();
    let resp = finish(task).await.unwrap();
    assert_eq!(resp.user_action(), UserAction::Review);
    let sp = resp.session_path().unwrap().to_string();
    assert_eq!(sp, info.session_path);
    assert!(matches!(
        resp.decision,
        Decision::Feedback {
            before_this_call: false,
            ..
        }
    ));
    assert_eq!(
        feedback_version_diff(&resp),
        Some(VersionDiff {
            name: "future_t.py".into(),
            old: DiffVersion::AgentProposal,
            new: DiffVersion::UserFeedback,
            hunks: "@@ -1,3 +1,3 @@\n a\n-B\n+Bee\n c\n".into(),
        })
    );
    assert_eq!(e.read("t.py"), "a\nb\nc\n");
    assert_eq!(fs::read_to_string(&info.current).unwrap(), "a\nBee\nc\n");

    // Continue against the user's version.
    let task = e.propose(ProposeRequest::single("t.py", "Bee", "BEE").in_session(&sp));
    let info2 = e.next_waiting().await;
    assert_eq!(info2.session_path, sp);
    assert_eq!(fs::read_to_string(&info2.current).unwrap(), "a\nBee\nc\n");
    assert_eq!(fs::read_to_string(&info2.future).unwrap(), "a\nBEE\nc\n");
    human_approve(&info2);
    let resp = finish(task).await.unwrap();
    assert_eq!(resp.user_action(), UserAction::Committed);
    assert_eq!(e.read("t.py"), "a\nBEE\nc\n");
    // The session is gone.
    let err = e.commit_review(&sp, "t.py").await.unwrap_err();
    assert!(
        matches!(err.failure(), Failure::BadSessionPath { .. }),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn commit_review_accepts_the_users_version() {
    let mut e = env(|_| {});
    fs::write(e.ws.join("t.py"), "a\nb\nc\n").unwrap();
    let task = e.propose(ProposeRequest::single("t.py", "b", "B"));
    let info = e.next_waiting().await;
    human_save(&info.future, "a\nB!\nc\n");
    let resp = finish(task).await.unwrap();
    let sp = resp.session_path().unwrap().to_string();
    // The wrong file is refused.
    fs::write(e.ws.join("other.py"), "x").unwrap();
    let err = e.commit_review(&sp, "other.py").await.unwrap_err();
    assert!(
        matches!(err.failure(), Failure::NotSessionFile { original_path, file, .. } if original_path == "other.py" && file == "t.py"),
        "{err}"
    );
    assert_eq!(e.read("other.py"), "x");
    // The user keeps editing after the REVIEW; commit_review takes the latest save.
    human_save(&info.future, "a\nB!!\nc\n");
    let done = e.commit_review(&sp, "t.py").await.unwrap();
    assert_eq!(
        done,
        ReviewCommitted {
            path: "t.py".into(),
            cleanup_failed: None,
            created_dirs: Vec::new()
        }
    );
    assert_eq!(e.read("t.py"), "a\nB!!\nc\n");
    assert_eq!(e.session_dirs(), 0);
    let err = e.commit_review(&sp, "t.py").await.unwrap_err();
    assert!(matches!(err.failure(), Failure::BadSessionPath { .. }));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_edits_and_sentinels() {
    let mut e = env(|_| {});
    fs::write(e.ws.join("b.txt"), "one\ntwo\nthree\n").unwrap();
    let task = e.propose(ProposeRequest::batch(
        "b.txt",
        vec![
            EditSpec::new("one", "1"),
            EditSpec::new("three", "3"),
            EditSpec::new("APPEND_TO_FILE", "four"),
        ],
    ));
    let info = e.next_waiting().await;
    assert_eq!(
        fs::read_to_string(&info.future).unwrap(),
        "1\ntwo\n3\nfour\n"
    );
    human_approve(&info);
    assert_eq!(
        finish(task).await.unwrap().user_action(),
        UserAction::Committed
    );
    assert_eq!(e.read("b.txt"), "1\ntwo\n3\nfour\n");

    // New file (""), with missing parent directories.
    let task = e.propose(ProposeRequest::single("sub/dir/new.txt", "", "hello\n"));
    let info = e.next_waiting().await;
    assert_eq!(fs::read_to_string(&info.current).unwrap(), "");
    assert_eq!(fs::read_to_string(&info.future).unwrap(), "hello\n");
    human_approve(&info);
    let resp = finish(task).await.unwrap();
    assert_eq!(
        resp.decision,
        committed(&["sub/dir/new.txt"], Approval::Reviewed)
    );
    assert_eq!(
        resp.notes,
        [Note::CreatedDirs(vec!["sub".into(), "sub/dir".into()])]
    );
    assert_eq!(e.read("sub/dir/new.txt"), "hello\n");

    // OVERWRITE_FILE keeps the file's final newline.
    let task = e.propose(ProposeRequest::single(
        "b.txt",
        "OVERWRITE_FILE",
        "whole\nnew",
    ));
    let info = e.next_waiting().await;
    assert_eq!(fs::read_to_string(&info.future).unwrap(), "whole\nnew\n");
    human_approve(&info);
    finish(task).await.unwrap();
    assert_eq!(e.read("b.txt"), "whole\nnew\n");

    // APPEND_TO_FILE on a file without a final newline starts a new line and keeps the style.
    fs::write(e.ws.join("n.txt"), "abc").unwrap();
    let task = e.propose(ProposeRequest::single("n.txt", "APPEND_TO_FILE", "def"));
    let info = e.next_waiting().await;
    assert_eq!(fs::read_to_string(&info.future).unwrap(), "abc\ndef");
    human_approve(&info);
    finish(task).await.unwrap();
    assert_eq!(e.read("n.txt"), "abc\ndef");

    // Blank match_text on an empty existing file replaces it.
    fs::write(e.ws.join("empty.txt"), "").unwrap();
    let task = e.propose(ProposeRequest::single("empty.txt", "  ", "filled"));
    let info = e.next_waiting().await;
    human_approve(&info);
    finish(task).await.unwrap();
    assert_eq!(e.read("empty.txt"), "filled");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validation_errors_and_hint_payloads() {
    let e = env(|_| {});
    fs::write(
        e.ws.join("existing_file.py"),
        "def hello():\n    return 'world'\n",
    )
    .unwrap();
    let p = |mt: &str, ns: &str| ProposeRequest::single("existing_file.py", mt, ns);

    // Blank match_text on a non-empty file (plain message).
    let err = e.propose_now(p("", "x")).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidRequest);
    assert!(matches!(
        err.failure(),
        Failure::BlankMatchText { edit: None }
    ));
    assert_eq!(err.next(), Some(&NextStep::ReadBeforeReplacing));
    let err = e.propose_now(p("   ", "x")).await.unwrap_err();
    assert!(matches!(
        err.failure(),
        Failure::BlankMatchText { edit: None }
    ));

    // Too long, and its bypass.
    let err = e.propose_now(p(&"x".repeat(2001), "y")).await.unwrap_err();
    assert!(matches!(
        err.failure(),
        Failure::MatchTextTooLong { edit: None }
    ));
    assert_eq!(err.next(), Some(&NextStep::ShortenMatchText));
    let mut bypass = p(&"x".repeat(2500), "y");
    bypass.bypass_match_text_limit = true;
    let err = e.propose_now(bypass).await.unwrap_err();
    assert!(
        matches!(err.failure(), Failure::MatchCount { found: 0, .. }),
        "{err}"
    );
    let err = e
        .propose_now(ProposeRequest::batch(
            "existing_file.py",
            vec![
                EditSpec::new("def hello", "def hi"),
                EditSpec::new("y".repeat(2001), "z"),
            ],
        ))
        .await
        .unwrap_err();
    assert!(
        matches!(err.failure(), Failure::MatchTextTooLong { edit: Some(1) }),
        "{err}"
    );

    // No changes.
    let err = e
        .propose_now(p("return 'world'", "return 'world'"))
        .await
        .unwrap_err();
    let v = err_json(&err);
    assert_eq!(v["error_type"], "validation_error");
    assert!(matches!(err.failure(), Failure::NoChanges));

    // Not found: a similar-block suggestion (relative path, sandbox-resolved).
    let err = e
        .propose_now(p("    return \"world\"", "x"))
        .await
        .unwrap_err();
    let v = err_json(&err);
    assert_eq!(count(&err), Some((None, false, 0, 1)));
    assert_eq!(v["line_count"], 3);
    assert_eq!(v["suggestions"][0]["line_start"], 2);
    assert_eq!(v["suggestions"][0]["line_end"], 2);
    assert!(v["suggestions"][0]["similarity"].as_u64().unwrap() >= 80);
    assert_eq!(v["suggestions"][0]["preview"], "    return 'world'");
    assert_eq!(
        err.hints().unwrap().recovery_steps[0],
        RecoveryStep::ReadLines {
            path: "existing_file.py".into(),
            start: 2,
            end: 2
        }
    );

    // Nothing similar: outline and grep keywords, never the file.
    let err = e
        .propose_now(p(
            "class TotallyDifferentThing:\n    some_attribute_name = compute_everything()",
            "x",
        ))
        .await
        .unwrap_err();
    let v = err_json(&err);
    assert_eq!(v["outline"][0]["type"], "function");
    assert_eq!(v["outline"][0]["name"], "hello");
    assert_eq!(v["suggested_grep_keywords"][0], "TotallyDifferentThing");
    assert_eq!(
        err.hints().unwrap().diagnosis,
        Diagnosis::NothingSimilar {
            with_keywords: true
        }
    );
    assert_eq!(v["line_count"], 3);
    assert!(!err.to_string().contains("return 'world'"));

    // Duplicates: occurrences, and expected_replacements.
    fs::write(e.ws.join("dup.py"), "x = 1\ny = 2\nx = 1\n").unwrap();
    let err = e
        .propose_now(ProposeRequest::single("dup.py", "x = 1", "x = 3"))
        .await
        .unwrap_err();
    let v = err_json(&err);
    assert_eq!(count(&err), Some((None, false, 2, 1)));
    assert_eq!(v["occurrences"], serde_json::json!([1, 3]));
    assert_eq!(
        err.hints().unwrap().diagnosis,
        Diagnosis::WrongCount {
            found: 2,
            expected: 1,
            more: false,
            can_set_expected: true
        }
    );
    let err = e
        .propose_now(ProposeRequest::batch(
            "dup.py",
            vec![EditSpec::new("x = 1", "x = 3")],
        ))
        .await
        .unwrap_err();
    assert_eq!(count(&err), Some((Some(0), false, 2, 1)));
    let err = e
        .propose_now(ProposeRequest::batch(
            "dup.py",
            vec![
                EditSpec::new("y = 2", "y = 3"),
                EditSpec::new("zzz_missing", "q"),
            ],
        ))
        .await
        .unwrap_err();
    assert_eq!(count(&err), Some((Some(1), false, 0, 1)));
    assert_eq!(err.hints().unwrap().searched, Searched::FileEdit(1));

    // Missing files.
    let err = e
        .propose_now(ProposeRequest::single("missing.py", "a", "b"))
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::FileNotFound);
    assert!(matches!(err.failure(), Failure::FileNotFound { path } if path == "missing.py"));
    let err = e
        .propose_now(ProposeRequest::batch(
            "missing.py",
            vec![EditSpec::new("OVERWRITE_FILE", "b")],
        ))
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::FileNotFound);
    let err = e
        .propose_now(ProposeRequest::single("missing.py", "APPEND_TO_FILE", "b"))
        .await
        .unwrap_err();
    assert!(matches!(
        err.failure(),
        Failure::AppendToMissingFile { edit: None }
    ));
    assert!(!e.ws.join("missing.py").exists());

    // Outside the sandbox.
    let err = e
        .propose_now(ProposeRequest::single("../outside/x.txt", "", "b"))
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::AccessDenied);
    assert!(!e.base.join("outside/x.txt").exists());

    // A directory.
    fs::create_dir(e.ws.join("adir")).unwrap();
    let err = e
        .propose_now(ProposeRequest::single("adir", "OVERWRITE_FILE", "b"))
        .await
        .unwrap_err();
    assert!(
        matches!(err.failure(), Failure::IsDirectory { path } if path == "adir"),
        "{err}"
    );

    // No session was created by any of this.
    assert_eq!(e.session_dirs(), 0);
    assert_eq!(
        e.read("existing_file.py"),
        "def hello():\n    return 'world'\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn near_miss_recovery_is_applied_and_reported() {
    let mut e = env(|_| {});
    fs::write(
        e.ws.join("q.md"),
        "He said \u{201C}hi\u{201D} \u{2014} twice.\nEnd.\n",
    )
    .unwrap();
    let task = e.propose(ProposeRequest::single(
        "q.md",
        "He said \"hi\" -- twice.",
        "He said hello.",
    ));
    let info = e.next_waiting().await;
    assert_eq!(
        fs::read_to_string(&info.future).unwrap(),
        "He said hello.\nEnd.\n"
    );
    human_approve(&info);
    let resp = finish(task).await.unwrap();
    assert_eq!(resp.user_action(), UserAction::Committed);
    assert!(
        matches!(
            &resp.notes[..],
            [Note::NearMiss(NearMiss {
                recovery: Recovery::Typographic,
                ..
            })]
        ),
        "{:?}",
        resp.notes
    );
    assert_eq!(e.read("q.md"), "He said hello.\nEnd.\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crlf_bom_final_newline_and_permissions_are_kept() {
    let mut e = env(|_| {});
    let path = e.ws.join("w.txt");
    fs::write(&path, "\u{FEFF}line1\r\nline2\r\nline3").unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o754)).unwrap();
    // The model works in LF.
    let task = e.propose(ProposeRequest::single(
        "w.txt",
        "line1\nline2",
        "line1\nLINE2\nextra",
    ));
    let info = e.next_waiting().await;
    assert_eq!(
        fs::read(&info.future).unwrap(),
        "\u{FEFF}line1\r\nLINE2\r\nextra\r\nline3".as_bytes()
    );
    human_approve(&info);
    finish(task).await.unwrap();
    assert_eq!(
        fs::read(&path).unwrap(),
        "\u{FEFF}line1\r\nLINE2\r\nextra\r\nline3".as_bytes()
    );
    assert_eq!(fs::metadata(&path).unwrap().mode() & 0o777, 0o754);

    // The human edits in an editor that writes LF: the diff is LF, the commit is CRLF again.
    let task = e.propose(ProposeRequest::single("w.txt", "extra", "EXTRA"));
    let info = e.next_waiting().await;
    human_save(&info.future, "line1\nLINE2\nEXTRA!\nline3");
    let resp = finish(task).await.unwrap();
    assert_eq!(resp.user_action(), UserAction::Review);
    let diff = feedback_diff(&resp).unwrap();
    assert!(
        !diff.contains('\r') && diff.contains("-EXTRA\n+EXTRA!\n"),
        "{diff}"
    );
    e.commit_review(resp.session_path().unwrap(), "w.txt")
        .await
        .unwrap();
    assert_eq!(
        fs::read(&path).unwrap(),
        "\u{FEFF}line1\r\nLINE2\r\nEXTRA!\r\nline3".as_bytes()
    );
    assert_eq!(fs::metadata(&path).unwrap().mode() & 0o777, 0o754);

    // An editor converting line endings only is still an approval.
    fs::write(e.ws.join("c.txt"), "a\r\nb\r\n").unwrap();
    let task = e.propose(ProposeRequest::single("c.txt", "b\n", "B\n"));
    let info = e.next_waiting().await;
    human_save(&info.future, "a\nB\n");
    assert_eq!(
        finish(task).await.unwrap().user_action(),
        UserAction::Committed
    );
    assert_eq!(e.read("c.txt"), "a\r\nB\r\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conflict_leaves_both_versions() {
    let mut e = env(|_| {});
    fs::write(e.ws.join("t.py"), "a\nb\n").unwrap();
    let task = e.propose(ProposeRequest::single("t.py", "b", "B"));
    let info = e.next_waiting().await;
    fs::write(e.ws.join("t.py"), "a\nb\nsomeone else\n").unwrap();
    human_approve(&info);
    let err = finish(task).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Conflict);
    let v = err_json(&err);
    assert_eq!(v["error_type"], "conflict");
    assert_eq!(v["session_path"], info.session_path.as_str());
    assert!(matches!(err.failure(), Failure::Conflict { path, .. } if path == "t.py"));
    assert_eq!(e.read("t.py"), "a\nb\nsomeone else\n");
    assert_eq!(fs::read_to_string(&info.future).unwrap(), "a\nB\n");
    // commit_review refuses too; the session stays.
    let err = e
        .commit_review(&info.session_path, "t.py")
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Conflict);
    assert_eq!(e.read("t.py"), "a\nb\nsomeone else\n");
    assert!(info.future.exists());

    // A new file that someone else creates meanwhile.
    let task = e.propose(ProposeRequest::single("fresh.txt", "", "mine"));
    let info = e.next_waiting().await;
    fs::write(e.ws.join("fresh.txt"), "theirs").unwrap();
    human_approve(&info);
    assert_eq!(finish(task).await.unwrap_err().kind(), ErrorKind::Conflict);
    assert_eq!(e.read("fresh.txt"), "theirs");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_path_abuse_is_refused_and_touches_nothing() {
    let e = env(|c| c.review_timeout = Duration::from_millis(200));
    fs::write(e.ws.join("t.py"), "a\nb\n").unwrap();
    // A directory that looks like a session, outside the sessions directory.
    let fake = e.base.join("outside/mcp_review_fake");
    fs::create_dir_all(&fake).unwrap();
    fs::write(fake.join("future_t.py"), "evil").unwrap();
    fs::write(fake.join("current_t.py"), "evil").unwrap();

    let resp = e
        .propose_now(ProposeRequest::single("t.py", "b", "B"))
        .await
        .unwrap();
    assert_eq!(resp.user_action(), UserAction::Timeout);
    let real = resp.session_path().unwrap().to_string();
    let real_path = PathBuf::from(&real);

    let candidates = vec![
        fake.display().to_string(),
        format!("{real}/../../outside/mcp_review_fake"),
        format!("{real}/.."),
        e.mgr.sessions_dir().display().to_string(),
        e.ws.display().to_string(),
        "relative/dir".to_string(),
        format!("{}/ws", e.base.display()),
        "/".to_string(),
    ];
    for sp in &candidates {
        let err = e.commit_review(sp, "t.py").await.unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Session, "{sp}: {err}");
        assert!(
            matches!(err.failure(), Failure::BadSessionPath { .. }),
            "{err}"
        );
        let err = e
            .propose_now(ProposeRequest::single("t.py", "b", "B").in_session(sp))
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ErrorKind::Session, "{sp}: {err}");
    }
    // Nothing was deleted or changed.
    assert_eq!(
        fs::read_to_string(fake.join("future_t.py")).unwrap(),
        "evil"
    );
    assert_eq!(
        fs::read_to_string(fake.join("current_t.py")).unwrap(),
        "evil"
    );
    assert_eq!(e.read("t.py"), "a\nb\n");
    assert!(real_path.is_dir());
    assert!(e.ws.is_dir());

    // A real session may not be used for another file.
    fs::write(e.ws.join("u.py"), "b\n").unwrap();
    let err = e
        .propose_now(ProposeRequest::single("u.py", "b", "B").in_session(&real))
        .await
        .unwrap_err();
    assert!(
        matches!(err.failure(), Failure::OtherFileSession { reviews, path, .. } if reviews == "t.py" && path == "u.py"),
        "{err}"
    );
    // The unreviewed proposal cannot be committed.
    let err = e.commit_review(&real, "t.py").await.unwrap_err();
    assert!(
        matches!(err.failure(), Failure::NotReviewed { .. }),
        "{err}"
    );
    assert_eq!(e.read("t.py"), "a\nb\n");
    // A trailing slash still names the session.
    human_save(&real_path.join("future_t.py"), "a\nB\n");
    e.commit_review(&format!("{real}/"), "t.py").await.unwrap();
    assert_eq!(e.read("t.py"), "a\nB\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn timeout_keeps_the_session_and_resumes() {
    let e = env(|c| c.review_timeout = Duration::from_millis(200));
    fs::write(e.ws.join("t.py"), "a\nb\n").unwrap();
    let resp = e
        .propose_now(ProposeRequest::single("t.py", "b", "B"))
        .await
        .unwrap();
    assert_eq!(resp.user_action(), UserAction::Timeout);
    let sp = resp.session_path().unwrap().to_string();
    assert_eq!(
        resp.decision,
        Decision::Undecided {
            session_path: sp.clone(),
            path: "t.py".into(),
            why: Undecided::TimedOut(Duration::from_millis(200)),
            editor_file: Some(PathBuf::from(&sp).join("future_t.py")),
        }
    );
    assert_eq!(e.read("t.py"), "a\nb\n");

    // Repeating the edit in the session waits again (and times out again).
    let resp = e
        .propose_now(ProposeRequest::single("t.py", "b", "B").in_session(&sp))
        .await
        .unwrap();
    assert_eq!(resp.user_action(), UserAction::Timeout);

    // The user edits after the call ended: the next call reports it instead of overwriting it.
    let future = PathBuf::from(&sp).join("future_t.py");
    fs::write(&future, "a\nB and more\n").unwrap();
    let resp = e
        .propose_now(ProposeRequest::single("t.py", "b", "X").in_session(&sp))
        .await
        .unwrap();
    assert_eq!(resp.user_action(), UserAction::Review);
    assert!(matches!(
        resp.decision,
        Decision::Feedback {
            before_this_call: true,
            ..
        }
    ));
    assert!(feedback_diff(&resp).unwrap().contains("+B and more"));
    assert_eq!(fs::read_to_string(&future).unwrap(), "a\nB and more\n");

    // The user approves a later proposal after the call timed out: the next call commits it.
    let resp = e
        .propose_now(ProposeRequest::single("t.py", "B and more", "B2").in_session(&sp))
        .await
        .unwrap();
    assert_eq!(resp.user_action(), UserAction::Timeout);
    human_save(&future, fs::read(&future).unwrap());
    let resp = e
        .propose_now(ProposeRequest::single("t.py", "B2", "B3").in_session(&sp))
        .await
        .unwrap();
    assert_eq!(resp.user_action(), UserAction::Committed);
    assert_eq!(
        resp.decision,
        committed(&["t.py"], Approval::BeforeThisCall)
    );
    assert_eq!(e.read("t.py"), "a\nB2\n");
    assert_eq!(e.mgr.open_sessions(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancellation_and_dropped_calls() {
    let mut e = env(|_| {});
    fs::write(e.ws.join("t.py"), "a\nb\n").unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let mgr = Arc::clone(&e.mgr);
    let sb = e.sandbox.clone();
    let task = tokio::spawn(async move {
        let owner = ReviewOwner::client(1, &sb);
        mgr.propose_and_review(
            &sb,
            ProposeRequest::single("t.py", "b", "B"),
            &owner,
            async {
                let _ = rx.await;
            },
        )
        .await
    });
    let info = e.next_waiting().await;
    tx.send(()).unwrap();
    let resp = finish(task).await.unwrap();
    assert_eq!(resp.user_action(), UserAction::Cancelled);
    assert_eq!(resp.session_path(), Some(info.session_path.as_str()));
    assert!(matches!(
        resp.decision,
        Decision::Undecided {
            why: Undecided::Cancelled,
            ..
        }
    ));
    assert_eq!(e.read("t.py"), "a\nb\n");

    // While a call waits, the session is busy.
    let task = e.propose(ProposeRequest::single("t.py", "b", "B").in_session(&info.session_path));
    e.next_waiting().await;
    let err = e
        .commit_review(&info.session_path, "t.py")
        .await
        .unwrap_err();
    assert!(
        matches!(err.failure(), Failure::SessionBusy { .. }),
        "{err}"
    );
    // Dropping the call (the client went away) frees the session again.
    task.abort();
    let _ = task.await;
    let task = e.propose(ProposeRequest::single("t.py", "b", "B").in_session(&info.session_path));
    let info2 = e.next_waiting().await;
    human_approve(&info2);
    assert_eq!(
        finish(task).await.unwrap().user_action(),
        UserAction::Committed
    );
    assert_eq!(e.read("t.py"), "a\nB\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_reviews_wait_at_once() {
    let mut e = env(|_| {});
    fs::write(e.ws.join("one.txt"), "1\n").unwrap();
    fs::write(e.ws.join("two.txt"), "2\n").unwrap();
    let t1 = e.propose(ProposeRequest::single("one.txt", "1", "one"));
    let t2 = e.propose(ProposeRequest::single("two.txt", "2", "two"));
    let a = e.next_waiting().await;
    let b = e.next_waiting().await;
    let (one, two) = if a.path == "one.txt" { (a, b) } else { (b, a) };
    assert_ne!(one.session_path, two.session_path);
    human_save(&two.future, "TWO\n");
    human_approve(&one);
    let r1 = finish(t1).await.unwrap();
    let r2 = finish(t2).await.unwrap();
    assert_eq!(r1.user_action(), UserAction::Committed);
    assert_eq!(r2.user_action(), UserAction::Review);
    assert_eq!(e.read("one.txt"), "one\n");
    assert_eq!(e.read("two.txt"), "2\n");
    assert_eq!(e.mgr.open_sessions(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_approve_commits_at_once() {
    let e = env(|c| c.auto_approve = true);
    fs::write(e.ws.join("t.py"), "a\nb\n").unwrap();
    let resp = e
        .propose_now(ProposeRequest::single("t.py", "b", "B"))
        .await
        .unwrap();
    assert_eq!(resp.user_action(), UserAction::Committed);
    assert!(
        matches!(&resp.decision, Decision::Committed(c) if c.approval == Approval::Auto && c.files == ["t.py"])
    );
    assert!(resp.notes.is_empty() && resp.session_path().is_none());
    assert_eq!(
        auto_diff(&resp).as_deref(),
        Some("--- a/t.py\n+++ b/t.py\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n")
    );
    assert_eq!(e.read("t.py"), "a\nB\n");
    assert_eq!(e.session_dirs(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn missing_editor_explains_how_to_open_by_hand() {
    let mut e = env(|c| {
        c.review_timeout = Duration::from_millis(200);
        c.review_command = Some(vec![
            "fs-mcp-no-such-editor-xyz".into(),
            "--diff".into(),
            "{current}".into(),
            "{future}".into(),
        ]);
    });
    fs::write(e.ws.join("t.py"), "a\nb\n").unwrap();
    let resp = e
        .propose_now(ProposeRequest::single("t.py", "b", "B"))
        .await
        .unwrap();
    let info = e.next_waiting().await;
    assert_eq!(
        info.launch,
        LaunchOutcome::NotFound {
            program: "fs-mcp-no-such-editor-xyz".into()
        }
    );
    assert_eq!(resp.user_action(), UserAction::Timeout);
    assert_eq!(
        resp.notes,
        [Note::EditorNotOpened {
            launch: LaunchOutcome::NotFound {
                program: "fs-mcp-no-such-editor-xyz".into()
            },
            current: info.current.clone(),
            future: info.future.clone(),
        }]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn editor_is_started_without_a_shell() {
    let mut e = env(|c| {
        c.review_timeout = Duration::from_millis(300);
        c.review_command = Some(vec!["true".into(), "{current}".into(), "{future}".into()]);
    });
    fs::write(e.ws.join("t.py"), "a\nb\n").unwrap();
    let resp = e
        .propose_now(ProposeRequest::single("t.py", "b", "B"))
        .await
        .unwrap();
    let info = e.next_waiting().await;
    assert_eq!(
        info.launch,
        LaunchOutcome::Launched {
            program: "true".into()
        }
    );
    assert!(resp.notes.is_empty(), "{:?}", resp.notes);

    // A file name full of shell syntax reaches the program as one literal argument.
    let evil = "a$(touch pwned);b `touch pwned2` 'q'.txt";
    fs::write(e.ws.join(evil), "x\n").unwrap();
    let copy = e.base.join("copied.txt");
    let mut e2 = env(|c| {
        c.review_timeout = Duration::from_secs(30);
        c.review_command = Some(vec![
            "cp".into(),
            "{future}".into(),
            copy.display().to_string(),
        ]);
    });
    fs::write(e2.ws.join(evil), "x\n").unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let mgr = Arc::clone(&e2.mgr);
    let sb = e2.sandbox.clone();
    let task = tokio::spawn(async move {
        let owner = ReviewOwner::client(1, &sb);
        mgr.propose_and_review(&sb, ProposeRequest::single(evil, "x", "y"), &owner, async {
            let _ = rx.await;
        })
        .await
    });
    let info = e2.next_waiting().await;
    assert!(
        info.future
            .to_string_lossy()
            .ends_with(&format!("future_{evil}"))
    );
    let mut copied = None;
    for _ in 0..200 {
        if let Ok(c) = fs::read_to_string(&copy) {
            copied = Some(c);
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!(copied.as_deref(), Some("y\n"));
    tx.send(()).unwrap();
    assert_eq!(
        finish(task).await.unwrap().user_action(),
        UserAction::Cancelled
    );
    for dir in [
        &e.base,
        &e.ws,
        &e2.base,
        &e2.ws,
        &std::env::current_dir().unwrap(),
    ] {
        assert!(!dir.join("pwned").exists() && !dir.join("pwned2").exists());
    }
    e2.waiting.close();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_manager_removes_the_sessions() {
    let e = env(|c| c.review_timeout = Duration::from_millis(100));
    fs::write(e.ws.join("t.py"), "a\nb\n").unwrap();
    let resp = e
        .propose_now(ProposeRequest::single("t.py", "b", "B"))
        .await
        .unwrap();
    assert_eq!(resp.user_action(), UserAction::Timeout);
    let root = e.mgr.sessions_dir().to_path_buf();
    assert!(root.is_dir());
    let Env { mgr, ws, .. } = e;
    drop(mgr);
    assert!(!root.exists());
    assert_eq!(fs::read_to_string(ws.join("t.py")).unwrap(), "a\nb\n");
}

#[test]
fn futures_are_send() {
    fn assert_send<T: Send>(_: &T) {}
    let tmp = tempfile::tempdir().unwrap();
    let (sb, _) = Sandbox::new([tmp.path()]).unwrap();
    let mgr = ReviewManager::new(ReviewConfig {
        sessions_parent: Some(tmp.path().to_path_buf()),
        ..ReviewConfig::default()
    })
    .unwrap();
    let owner = ReviewOwner::client(1, &sb);
    let f = mgr.propose_and_review(
        &sb,
        ProposeRequest::single("a", "", "b"),
        &owner,
        std::future::pending(),
    );
    assert_send(&f);
    let g = mgr.commit_review(&sb, "/x", "a", &owner);
    assert_send(&g);
    fn assert_sync<T: Send + Sync>() {}
    assert_sync::<ReviewManager>();
}

/// Every entry below `dir` with its content (symlinks as their target), to compare before and after.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let meta = fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                stack.push(path.clone());
                out.push((path, Vec::new()));
            } else if meta.file_type().is_symlink() {
                let target = fs::read_link(&path).unwrap();
                out.push((path, target.into_os_string().into_encoded_bytes()));
            } else {
                let bytes = fs::read(&path).unwrap();
                out.push((path, bytes));
            }
        }
    }
    out.sort();
    out
}

/// The review window: `d/` becomes a symlink to outside while the human reviews a new
/// file `d/new.txt`; the approval must not write outside.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_directory_swapped_for_a_symlink_during_review_is_not_written_through() {
    let mut e = env(|_| {});
    fs::create_dir_all(e.ws.join("d")).unwrap();
    let outside = e.base.join("outside");
    let before = snapshot(&outside);
    let task = e.propose(ProposeRequest::single(
        "d/new.txt",
        fs_mcp_edit::OVERWRITE_FILE,
        "planted\n",
    ));
    let info = e.next_waiting().await;
    fs::rename(e.ws.join("d"), e.ws.join("d_old")).unwrap();
    std::os::unix::fs::symlink(&outside, e.ws.join("d")).unwrap();
    human_approve(&info);
    let err = finish(task).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::AccessDenied, "{err}");
    assert!(
        matches!(
            err.failure(),
            Failure::CommitRefused {
                why: CommitRefusal::Access(_),
                ..
            }
        ),
        "{err}"
    );
    assert!(
        err.access_error().unwrap().to_string().contains("outside"),
        "{err}"
    );
    assert_eq!(err.session_path(), Some(info.session_path.as_str()));
    assert_eq!(snapshot(&outside), before, "something was written outside");
    assert!(!e.ws.join("d_old/new.txt").exists());
    // commit_review refuses the same way, and still writes nothing.
    let err = e
        .commit_review(&info.session_path, "d/new.txt")
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::AccessDenied, "{err}");
    assert!(
        matches!(
            err.failure(),
            Failure::Access {
                then: AccessThen::SessionStaysOpen,
                ..
            } | Failure::CommitRefused {
                why: CommitRefusal::Access(_),
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(snapshot(&outside), before);
    // Once `d` is a directory inside again, the approved version can be committed.
    fs::remove_file(e.ws.join("d")).unwrap();
    fs::rename(e.ws.join("d_old"), e.ws.join("d")).unwrap();
    e.commit_review(&info.session_path, "d/new.txt")
        .await
        .unwrap();
    assert_eq!(e.read("d/new.txt"), "planted\n");
}

/// File identity is the directory handle's (dev, ino) plus the names below it, never the path
/// re-resolved: a directory replaced by another at the same path, holding a file with the same
/// content, is another file (a resolved path would say "the same" and write into it); two
/// spellings of one file (through a symlinked directory inside) are the same file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn identity_is_the_directory_handle_not_the_resolved_path() {
    let mut e = env(|c| c.review_timeout = Duration::from_millis(300));
    fs::create_dir_all(e.ws.join("d")).unwrap();
    fs::write(e.ws.join("d/f.txt"), "one\n").unwrap();
    std::os::unix::fs::symlink("d", e.ws.join("via")).unwrap();

    // Two spellings, one file: the session continues with the other spelling.
    let resp = e
        .propose_now(ProposeRequest::single("d/f.txt", "one", "two"))
        .await
        .unwrap();
    let sp = resp.session_path().unwrap().to_string();
    e.next_waiting().await;
    let resp = e
        .propose_now(ProposeRequest::single("via/f.txt", "one", "three").in_session(&sp))
        .await
        .unwrap();
    assert_eq!(resp.user_action(), UserAction::Timeout);
    let info = e.next_waiting().await;

    // The directory is replaced by another one at the same path, with the same content.
    fs::rename(e.ws.join("d"), e.ws.join("d_old")).unwrap();
    fs::create_dir_all(e.ws.join("d")).unwrap();
    fs::write(e.ws.join("d/f.txt"), "one\n").unwrap();
    human_approve(&info);
    let err = e.commit_review(&sp, "d/f.txt").await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Session, "{err}");
    assert!(
        matches!(err.failure(), Failure::NotSessionFile { .. }),
        "{err}"
    );
    // Collecting the verdict (the approval) commits nothing into the new directory.
    let collect = ProposeRequest {
        path: "d/f.txt".into(),
        session_path: Some(sp.clone()),
        ..ProposeRequest::default()
    };
    let err = e.propose_now(collect).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Conflict, "{err}");
    assert!(
        matches!(
            err.failure(),
            Failure::CommitRefused {
                why: CommitRefusal::Moved { .. },
                ..
            }
        ),
        "{err}"
    );
    assert_eq!(e.read("d/f.txt"), "one\n", "written into the new directory");
    assert_eq!(e.read("d_old/f.txt"), "one\n");
}

/// With `--all` a model can swap the directory itself: propose on docs/notes.md, move docs to
/// docs_old, move a symlink to outside (vendored) to docs, then the approval.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moving_a_symlink_into_place_during_review_is_not_written_through() {
    let mut e = env(|_| {});
    fs::create_dir_all(e.ws.join("docs")).unwrap();
    fs::write(e.ws.join("docs/notes.md"), "notes\n").unwrap();
    let outside = e.base.join("outside");
    fs::write(outside.join("notes.md"), "notes\n").unwrap();
    std::os::unix::fs::symlink(&outside, e.ws.join("vendored")).unwrap();
    let before = snapshot(&outside);
    let task = e.propose(ProposeRequest::single("docs/notes.md", "notes", "hacked"));
    let info = e.next_waiting().await;
    fs_mcp_edit::move_file(&e.sandbox, "docs", "docs_old").unwrap();
    fs_mcp_edit::move_file(&e.sandbox, "vendored", "docs").unwrap();
    assert!(
        fs::symlink_metadata(e.ws.join("docs"))
            .unwrap()
            .file_type()
            .is_symlink(),
        "move_file moves the link itself"
    );
    human_approve(&info);
    let err = finish(task).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::AccessDenied, "{err}");
    assert_eq!(snapshot(&outside), before, "something was written outside");
    assert_eq!(e.read("docs_old/notes.md"), "notes\n");
}

/// A final symlink inside that is pointed elsewhere during the review: the commit notices that
/// the path now names another file and writes neither.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_that_moved_during_review_is_a_conflict() {
    let mut e = env(|_| {});
    fs::write(e.ws.join("a.txt"), "same\n").unwrap();
    fs::write(e.ws.join("b.txt"), "same\n").unwrap();
    std::os::unix::fs::symlink("a.txt", e.ws.join("link.txt")).unwrap();
    let task = e.propose(ProposeRequest::single("link.txt", "same", "changed"));
    let info = e.next_waiting().await;
    fs::remove_file(e.ws.join("link.txt")).unwrap();
    std::os::unix::fs::symlink("b.txt", e.ws.join("link.txt")).unwrap();
    human_approve(&info);
    let err = finish(task).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Conflict, "{err}");
    assert!(
        matches!(
            err.failure(),
            Failure::CommitRefused {
                why: CommitRefusal::Moved { now, .. },
                ..
            } if now == "b.txt"
        ),
        "{err}"
    );
    assert_eq!(e.read("a.txt"), "same\n");
    assert_eq!(e.read("b.txt"), "same\n");
}

/// A reviewed conflict says what changed on disk.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conflict_carries_the_diff_of_what_changed() {
    let mut e = env(|_| {});
    fs::write(e.ws.join("t.txt"), "one\ntwo\n").unwrap();
    let task = e.propose(ProposeRequest::single("t.txt", "two", "TWO"));
    let info = e.next_waiting().await;
    fs::write(e.ws.join("t.txt"), "one\ntwo\nthree\n").unwrap();
    human_approve(&info);
    let err = finish(task).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Conflict);
    let diff = err_json(&err)["diff"].as_str().unwrap().to_string();
    assert!(diff.contains("+three"), "{diff}");
    assert_eq!(e.read("t.txt"), "one\ntwo\nthree\n");
}

/// Parallel auto-approved proposals on one file apply one after the other: none vanishes.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn parallel_auto_approved_proposals_are_never_lost() {
    let e = env(|c| c.auto_approve = true);
    fs::write(e.ws.join("log.md"), "# log\r\nEND\r\n").unwrap();
    let tasks: Vec<_> = (0..40)
        .map(|i| {
            e.propose(ProposeRequest::single(
                "log.md",
                "END",
                format!("line {i:02}\nEND"),
            ))
        })
        .collect();
    let mut committed = Vec::new();
    let mut reapplied = 0;
    for (i, task) in tasks.into_iter().enumerate() {
        match finish(task).await {
            Ok(resp) => {
                assert_eq!(resp.user_action(), UserAction::Committed);
                if resp
                    .notes
                    .iter()
                    .any(|n| matches!(n, Note::Reapplied { .. }))
                {
                    reapplied += 1;
                }
                committed.push(i);
            }
            Err(err) => assert_eq!(err.kind(), ErrorKind::Conflict, "{err}"),
        }
    }
    eprintln!("{reapplied} of 40 were re-applied on top of another commit");
    let text = e.read("log.md");
    for i in &committed {
        assert!(
            text.contains(&format!("line {i:02}\r\n")),
            "line {i} lost:\n{text}"
        );
    }
    // Every edit matches exactly once on top of any other, so all of them apply.
    assert_eq!(committed.len(), 40, "{text}");
    assert_eq!(text.matches("\r\n").count(), 42, "CRLF kept: {text:?}");
    assert!(text.starts_with("# log\r\n") && text.ends_with("END\r\n"));
    assert_eq!(
        fs::read_dir(&e.ws).unwrap().count(),
        1,
        "no temporary file left"
    );
}

/// An auto-approved whole-file overwrite that lost the race is a conflict, never a silent
/// overwrite of the other commit.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn parallel_overwrites_either_commit_or_conflict() {
    let e = env(|c| c.auto_approve = true);
    fs::write(e.ws.join("o.txt"), "base\n").unwrap();
    let tasks: Vec<_> = (0..16)
        .map(|i| {
            e.propose(ProposeRequest::single(
                "o.txt",
                fs_mcp_edit::OVERWRITE_FILE,
                format!("version {i}\n"),
            ))
        })
        .collect();
    let mut committed = Vec::new();
    for (i, task) in tasks.into_iter().enumerate() {
        match finish(task).await {
            Ok(_) => committed.push(i),
            Err(err) => {
                assert_eq!(err.kind(), ErrorKind::Conflict, "{err}");
                assert!(err.diff().is_some(), "{err}");
            }
        }
    }
    // Each commit was made against the content it replaced: they form a chain that starts at
    // "base", so at least one committed and the file holds one of the committed versions.
    assert!(!committed.is_empty());
    eprintln!("{} of 16 overwrites committed", committed.len());
    let text = e.read("o.txt");
    assert!(
        committed.iter().any(|i| text == format!("version {i}\n")),
        "{text} not among {committed:?}"
    );
}

/// The model (or anyone) moves the file's directory away during the review: a conflict, and no
/// directory is created again for a write that does not happen.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_directory_moved_away_during_review_is_a_conflict_that_creates_nothing() {
    let mut e = env(|_| {});
    fs::create_dir_all(e.ws.join("docs")).unwrap();
    fs::write(e.ws.join("docs/notes.md"), "notes\n").unwrap();
    let task = e.propose(ProposeRequest::single("docs/notes.md", "notes", "edited"));
    let info = e.next_waiting().await;
    fs_mcp_edit::move_file(&e.sandbox, "docs", "docs_old").unwrap();
    human_approve(&info);
    let err = finish(task).await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Conflict, "{err}");
    assert!(
        matches!(
            err.failure(),
            Failure::Conflict { .. }
                | Failure::CommitRefused {
                    why: CommitRefusal::Moved { .. },
                    ..
                }
        ),
        "{err}"
    );
    assert!(!e.ws.join("docs").exists(), "a directory was created");
    assert_eq!(e.read("docs_old/notes.md"), "notes\n");
    assert_eq!(err.session_path(), Some(info.session_path.as_str()));
}

#[test]
fn a_read_only_sandbox_refuses_every_edit_tool() {
    let tmp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(tmp.path()).unwrap();
    std::fs::write(root.join("a.txt"), "a\n").unwrap();
    let (sandbox, _) = fs_mcp_sandbox::Sandbox::new([&root]).unwrap();
    let sandbox = sandbox.with_read_only(true);
    for result in [
        fs_mcp_edit::write_file(&sandbox, "b.txt", "x"),
        fs_mcp_edit::append_text(&sandbox, "a.txt", "more"),
        fs_mcp_edit::move_file(&sandbox, "a.txt", "c.txt"),
    ] {
        let err = result.unwrap_err();
        assert!(
            matches!(
                err.access_error(),
                Some(fs_mcp_sandbox::AccessError::ReadOnly { .. })
            ),
            "{err}"
        );
    }
    assert_eq!(std::fs::read_to_string(root.join("a.txt")).unwrap(), "a\n");
    assert!(!root.join("b.txt").exists() && !root.join("c.txt").exists());
}

/// The session path of an open proposal staged by `owner` (nothing shown to anyone).
async fn stage_open(e: &Env, req: ProposeRequest, owner: &ReviewOwner) -> String {
    match e.mgr.stage(&e.sandbox, req, owner).await.unwrap() {
        fs_mcp_edit::Staged::Open(open) => open.session_path.clone(),
        fs_mcp_edit::Staged::Done(outcome) => panic!("answered at once: {outcome:?}"),
    }
}

fn collect(path: &str, session_path: &str) -> ProposeRequest {
    ProposeRequest {
        path: path.to_string(),
        session_path: Some(session_path.to_string()),
        ..ProposeRequest::default()
    }
}

/// One client never reaches another's review: not to collect or continue it, not to commit it,
/// not in a review page link of its own, not through a form answer's state.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_client_never_reaches_another_clients_review() {
    let e = env(|_| {});
    fs::write(e.ws.join("t.py"), "a\nb\n").unwrap();
    let a = ReviewOwner::client(1, &e.sandbox);
    let b = ReviewOwner::client(2, &e.sandbox);
    let sp = stage_open(&e, ProposeRequest::single("t.py", "b", "B"), &a).await;

    let err = e.mgr.stage(&e.sandbox, collect("t.py", &sp), &b).await;
    assert!(err.is_err(), "B collected A's review");
    let err = e.mgr.stage(
        &e.sandbox,
        ProposeRequest {
            session_path: Some(sp.clone()),
            ..ProposeRequest::single("t.py", "a", "A")
        },
        &b,
    );
    assert!(err.await.is_err(), "B continued A's review");
    let err = e.mgr.commit_review(&e.sandbox, &sp, "t.py", &b).await;
    assert!(err.is_err(), "B committed A's review");

    assert!(
        e.mgr
            .open_reviews(&ReviewScope::Client(2))
            .reviews
            .is_empty()
    );
    assert_eq!(e.mgr.open_reviews(&ReviewScope::Client(1)).reviews.len(), 1);
    assert!(
        e.mgr
            .submit_verdict(
                &sp,
                fs_mcp_edit::Verdict::Approve { comment: None },
                &ReviewScope::Client(2)
            )
            .is_err()
    );
    assert_eq!(e.read("t.py"), "a\nb\n");

    // A's form state is A's alone, and a forged one names nothing.
    let open = match e
        .mgr
        .stage(&e.sandbox, collect("t.py", &sp), &a)
        .await
        .unwrap()
    {
        fs_mcp_edit::Staged::Open(open) => open,
        fs_mcp_edit::Staged::Done(outcome) => panic!("{outcome:?}"),
    };
    let state = e.mgr.input_state(&open).unwrap();
    drop(open);
    assert_eq!(e.mgr.session_of_input_state(&state, &a).unwrap(), sp);
    assert!(e.mgr.session_of_input_state(&state, &b).is_err());
    assert!(
        e.mgr.session_of_input_state(&sp, &a).is_err(),
        "a path is not a state"
    );
    assert!(e.mgr.session_of_input_state("00", &a).is_err());

    // A decides in its own page link; the commit is A's.
    e.mgr
        .submit_verdict(
            &sp,
            fs_mcp_edit::Verdict::Approve { comment: None },
            &ReviewScope::Client(1),
        )
        .unwrap();
    let done = e
        .mgr
        .stage(&e.sandbox, collect("t.py", &sp), &a)
        .await
        .unwrap();
    assert!(matches!(done, fs_mcp_edit::Staged::Done(_)));
    assert_eq!(e.read("t.py"), "a\nB\n");
}

/// A client without sessions (2026-07-28 over HTTP) continues by the handle alone, but only on
/// the allowed directories the review was made on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateless_review_is_reached_by_its_handle_on_the_same_directories_only() {
    let e = env(|_| {});
    fs::write(e.ws.join("t.py"), "a\nb\n").unwrap();
    let sp = stage_open(
        &e,
        ProposeRequest::single("t.py", "b", "B"),
        &ReviewOwner::stateless(&e.sandbox),
    )
    .await;
    let (elsewhere, _) = Sandbox::new([&e.base.join("outside")]).unwrap();
    let err = e
        .mgr
        .stage(
            &elsewhere,
            collect("t.py", &sp),
            &ReviewOwner::stateless(&elsewhere),
        )
        .await;
    assert!(err.is_err(), "other allowed directories reached the review");
    let again = e
        .mgr
        .stage(
            &e.sandbox,
            collect("t.py", &sp),
            &ReviewOwner::stateless(&e.sandbox),
        )
        .await;
    assert!(matches!(again, Ok(fs_mcp_edit::Staged::Open(_))));
    // Its page link shows that review alone.
    let key = std::path::PathBuf::from(&sp);
    assert_eq!(
        e.mgr.open_reviews(&ReviewScope::Review(key)).reviews.len(),
        1
    );
    assert!(
        e.mgr
            .open_reviews(&ReviewScope::Client(1))
            .reviews
            .is_empty()
    );
}

/// A multi-file proposal is one unit: a verdict or a collect naming one of its other files'
/// sessions (never shown, but on disk) is refused, and nothing is written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hidden_file_of_a_multi_file_proposal_cannot_be_decided_alone() {
    let e = env(|_| {});
    fs::write(e.ws.join("a.txt"), "alpha\n").unwrap();
    fs::write(e.ws.join("b.txt"), "beta\n").unwrap();
    let a = e.owner();
    let req = ProposeRequest {
        edits: Some(vec![
            EditSpec::new("alpha", "ALPHA"),
            EditSpec::new("beta", "BETA").in_file("b.txt"),
        ]),
        ..ProposeRequest::single("a.txt", "", "")
    };
    let leader = stage_open(&e, req, &a).await;
    let member = fs::read_dir(e.mgr.sessions_dir())
        .unwrap()
        .map(|d| d.unwrap().path().display().to_string())
        .find(|p| *p != leader)
        .expect("the other file's session");
    let approve = fs_mcp_edit::Verdict::Approve { comment: None };
    assert!(
        e.mgr
            .submit_verdict(&member, approve.clone(), &ReviewScope::All)
            .is_err()
    );
    assert!(
        e.mgr
            .stage(&e.sandbox, collect("b.txt", &member), &a)
            .await
            .is_err()
    );
    assert!(
        e.mgr
            .commit_review(&e.sandbox, &member, "b.txt", &a)
            .await
            .is_err()
    );
    assert_eq!(
        (e.read("a.txt"), e.read("b.txt")),
        ("alpha\n".into(), "beta\n".into())
    );
    // The whole proposal, decided through its own session, is written whole.
    e.mgr
        .submit_verdict(&leader, approve, &ReviewScope::All)
        .unwrap();
    e.mgr
        .stage(&e.sandbox, collect("a.txt", &leader), &a)
        .await
        .unwrap();
    assert_eq!(
        (e.read("a.txt"), e.read("b.txt")),
        ("ALPHA\n".into(), "BETA\n".into())
    );
}

/// Open reviews are bounded in number and in bytes, for each client and for all clients
/// together; a refusal makes nothing, and says how to go on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_reviews_are_bounded_in_count_and_bytes() {
    let e = env(|_| {});
    let per_client = fs_mcp_edit::MAX_REVIEWS_PER_CLIENT;
    for i in 0..fs_mcp_edit::MAX_OPEN_REVIEWS {
        fs::write(e.ws.join(format!("f{i}.txt")), "x\n").unwrap();
        let owner = ReviewOwner::client((i / per_client) as u64 + 1, &e.sandbox);
        stage_open(
            &e,
            ProposeRequest::single(format!("f{i}.txt"), "x", "y"),
            &owner,
        )
        .await;
    }
    fs::write(e.ws.join("one-more.txt"), "x\n").unwrap();
    let refused = |owner: ReviewOwner| {
        let mgr = Arc::clone(&e.mgr);
        let sandbox = e.sandbox.clone();
        async move {
            mgr.stage(
                &sandbox,
                ProposeRequest::single("one-more.txt", "x", "y"),
                &owner,
            )
            .await
            .err()
            .expect("refused")
            .failure()
            .clone()
        }
    };
    let mine = refused(ReviewOwner::client(1, &e.sandbox)).await;
    assert!(
        matches!(mine, Failure::Limit(Limit::ClientReviews)),
        "{mine:?}"
    );
    let all = refused(ReviewOwner::client(99, &e.sandbox)).await;
    assert!(
        matches!(all, Failure::Limit(Limit::ServerReviews)),
        "{all:?}"
    );
    // The way on is data the binary words (naming only tools it lists), not a sentence here.
    let next = e
        .mgr
        .stage(
            &e.sandbox,
            ProposeRequest::single("one-more.txt", "x", "y"),
            &ReviewOwner::client(99, &e.sandbox),
        )
        .await
        .err()
        .expect("refused");
    assert!(
        matches!(
            next.next(),
            Some(fs_mcp_edit::NextStep::FinishOpenReviews { idle_minutes }) if *idle_minutes > 0
        ),
        "{:?}",
        next.next()
    );
    assert!(!next.to_string().contains("propose_and_review"), "{next}");
    assert_eq!(e.mgr.open_sessions(), fs_mcp_edit::MAX_OPEN_REVIEWS);

    // Bytes: a few large files fill a client's byte share long before the count.
    let e = env(|_| {});
    let a = e.owner();
    let line = "y".repeat(10 << 20);
    let large = format!("head\n{line}\n{line}\n{line}\n");
    let mut refused = None;
    for i in 0..20 {
        fs::write(e.ws.join(format!("big{i}.txt")), &large).unwrap();
        match e
            .mgr
            .stage(
                &e.sandbox,
                ProposeRequest::single(format!("big{i}.txt"), "head", "HEAD"),
                &a,
            )
            .await
        {
            Ok(_) => {}
            Err(err) => {
                refused = Some((i, err.failure().clone()));
                break;
            }
        }
    }
    let (at, message) = refused.expect("the byte bound was never reached");
    assert!(
        at > 0 && matches!(message, Failure::Limit(Limit::ClientBytes { .. })),
        "{at}: {message:?}"
    );
    let held: u64 = fs::read_dir(e.mgr.sessions_dir())
        .unwrap()
        .flat_map(|d| fs::read_dir(d.unwrap().path()).unwrap())
        .map(|f| f.unwrap().metadata().unwrap().len())
        .sum();
    assert!(
        held as usize <= fs_mcp_edit::MAX_REVIEW_BYTES_PER_CLIENT,
        "{held}"
    );
}

/// Proposals made at the same time are all counted: the bytes admitted are reserved until the
/// session exists, so parallel proposals cannot pass a bound together.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parallel_proposals_cannot_pass_the_byte_bound_together() {
    let e = env(|_| {});
    let line = "z".repeat(4 << 20);
    let large = format!("head\n{line}\n{line}\n");
    let per_session = 3 * large.len();
    let fits = fs_mcp_edit::MAX_REVIEW_BYTES_PER_CLIENT / per_session;
    let mut calls = Vec::new();
    for i in 0..fits + 6 {
        fs::write(e.ws.join(format!("p{i}.txt")), &large).unwrap();
        let (mgr, sandbox, owner) = (Arc::clone(&e.mgr), e.sandbox.clone(), e.owner());
        calls.push(tokio::spawn(async move {
            mgr.stage(
                &sandbox,
                ProposeRequest::single(format!("p{i}.txt"), "head", "HEAD"),
                &owner,
            )
            .await
            .is_ok()
        }));
    }
    let mut admitted = 0;
    for call in calls {
        admitted += usize::from(call.await.unwrap());
    }
    assert!(admitted <= fits, "{admitted} admitted, {fits} fit");
    assert!(admitted > 0);
}

/// An open proposal of `owner`, staged (nothing shown to anyone).
async fn stage_open_review(
    e: &Env,
    req: ProposeRequest,
    owner: &ReviewOwner,
) -> fs_mcp_edit::OpenReview {
    match e.mgr.stage(&e.sandbox, req, owner).await.unwrap() {
        fs_mcp_edit::Staged::Open(open) => open,
        fs_mcp_edit::Staged::Done(outcome) => panic!("answered at once: {outcome:?}"),
    }
}

/// How a proposal was put before the human (form or page) is its own session's: another
/// client's many reviews, each handed and ended (more than a process-wide table held), never
/// displace it, and it ends with the session.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn how_a_review_was_handed_is_its_own_and_ends_with_it() {
    use fs_mcp_edit::{Handed, Verdict};
    let e = env(|_| {});
    fs::write(e.ws.join("a.txt"), "a\n").unwrap();
    fs::write(e.ws.join("b.txt"), "b\n").unwrap();
    let a = ReviewOwner::client(1, &e.sandbox);
    let b = ReviewOwner::client(2, &e.sandbox);
    let open = stage_open_review(&e, ProposeRequest::single("a.txt", "a", "A"), &a).await;
    e.mgr.hand(&open, Handed::Page);
    let sp = open.session_path.clone();
    drop(open);
    for _ in 0..1100 {
        let open = stage_open_review(&e, ProposeRequest::single("b.txt", "b", "B"), &b).await;
        e.mgr.hand(&open, Handed::Form(std::time::Instant::now()));
        e.mgr
            .decide(&e.sandbox, open, Verdict::Reject { comment: None })
            .await
            .unwrap();
    }
    let open = stage_open_review(&e, collect("a.txt", &sp), &a).await;
    assert_eq!(e.mgr.handed(&open), Some(Handed::Page));
    e.mgr
        .decide(&e.sandbox, open, Verdict::Reject { comment: None })
        .await
        .unwrap();
    // A new review has been handed nowhere yet.
    let open = stage_open_review(&e, ProposeRequest::single("a.txt", "a", "A"), &a).await;
    assert_eq!(e.mgr.handed(&open), None);
}

/// The review page's list is built from what the reviews hold (the diff computed once, when
/// staged), not by reading and diffing the review files on every poll, and it is bounded: each
/// diff cut (saying how much), the whole list within its bytes and count, the rest counted. One
/// review's detail has its whole diff and the proposed text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_review_list_is_built_from_memory_and_bounded() {
    use fs_mcp_edit::{
        MAX_LISTED_DIFF_BYTES, MAX_LISTED_DIFF_BYTES_EACH, MAX_LISTED_REVIEWS, OVERWRITE_FILE,
        Verdict,
    };
    let e = env(|_| {});
    let a = ReviewOwner::client(1, &e.sandbox);
    fs::write(e.ws.join("a.txt"), "a\n").unwrap();
    let sp = stage_open(&e, ProposeRequest::single("a.txt", "a", "A"), &a).await;
    // Its files on disk change behind the page's back: the list shows what was proposed.
    fs::write(Path::new(&sp).join("future_a.txt"), "changed behind\n").unwrap();
    fs::write(Path::new(&sp).join("current_a.txt"), "also changed\n").unwrap();
    let list = e.mgr.open_reviews(&ReviewScope::Client(1));
    assert_eq!(list.reviews.len(), 1);
    assert!(
        list.reviews[0].diff.text().contains("+A\n"),
        "{}",
        list.reviews[0].diff.text()
    );
    assert!(
        !list.reviews[0].diff.text().contains("changed"),
        "{}",
        list.reviews[0].diff.text()
    );
    e.mgr
        .submit_verdict(
            &sp,
            Verdict::Reject { comment: None },
            &ReviewScope::Client(1),
        )
        .unwrap();
    let done = e
        .mgr
        .stage(&e.sandbox, collect("a.txt", &sp), &a)
        .await
        .unwrap();
    assert!(matches!(done, fs_mcp_edit::Staged::Done(_)));

    // Big proposals of three clients: the list stays within its bytes, each diff cut.
    let original: String = (0..1500)
        .map(|i| format!("line {i} of the original\n"))
        .collect();
    let proposed: String = (0..1500)
        .map(|i| format!("LINE {i} as proposed\n"))
        .collect();
    let mut sessions = Vec::new();
    for i in 0..33 {
        let file = format!("big{i}.txt");
        fs::write(e.ws.join(&file), &original).unwrap();
        let owner = ReviewOwner::client(10 + i / 11, &e.sandbox);
        let req = ProposeRequest::single(&file, OVERWRITE_FILE, &proposed);
        sessions.push((stage_open(&e, req, &owner).await, 10 + i / 11, file));
    }
    let list = e.mgr.open_reviews(&ReviewScope::All);
    let bytes: usize = list.reviews.iter().map(|r| r.diff.len()).sum();
    assert!(bytes <= MAX_LISTED_DIFF_BYTES, "{bytes}");
    assert!(
        !list.reviews.is_empty() && list.left_out > 0,
        "{}",
        list.left_out
    );
    assert_eq!(list.reviews.len() + list.left_out, 33);
    for r in &list.reviews {
        assert!(
            r.diff.len() <= MAX_LISTED_DIFF_BYTES_EACH,
            "{}",
            r.diff.len()
        );
        assert!(
            r.diff_cut > 0 && r.diff.text().ends_with('\n'),
            "{} {} {:?}",
            r.diff.len(),
            r.diff_cut,
            &r.diff.text()[r.diff.len().saturating_sub(80)..]
        );
    }
    let (session, client, _) = &sessions[0];
    let detail = e
        .mgr
        .review_detail(session, &ReviewScope::Client(*client))
        .unwrap();
    assert_eq!(detail.proposed.as_deref(), Some(proposed.as_str()));
    assert!(
        detail.diff.len() > MAX_LISTED_DIFF_BYTES_EACH,
        "{}",
        detail.diff.len()
    );
    if let Some(listed) = list.reviews.iter().find(|r| r.session_path == *session) {
        assert_eq!(detail.diff.len(), listed.diff.len() + listed.diff_cut);
        assert!(detail.diff.text().starts_with(listed.diff.text()));
    }
    assert!(
        e.mgr
            .review_detail(session, &ReviewScope::Client(client + 1))
            .is_err(),
        "another client's link reached the detail"
    );

    // Small ones: the count bound.
    for (session, client, file) in &sessions {
        e.mgr
            .submit_verdict(
                session,
                Verdict::Reject { comment: None },
                &ReviewScope::Client(*client),
            )
            .unwrap();
        let owner = ReviewOwner::client(*client, &e.sandbox);
        let done = e
            .mgr
            .stage(&e.sandbox, collect(file, session), &owner)
            .await
            .unwrap();
        assert!(matches!(done, fs_mcp_edit::Staged::Done(_)));
    }
    let mut left = 0;
    for i in 0..(MAX_LISTED_REVIEWS + 2) {
        let file = format!("small{i}.txt");
        fs::write(e.ws.join(&file), "s\n").unwrap();
        let owner = ReviewOwner::client(100 + (i / 16) as u64, &e.sandbox);
        stage_open(&e, ProposeRequest::single(&file, "s", "S"), &owner).await;
        left += 1;
    }
    let list = e.mgr.open_reviews(&ReviewScope::All);
    assert_eq!(list.reviews.len(), MAX_LISTED_REVIEWS);
    assert_eq!(list.left_out, left - MAX_LISTED_REVIEWS);
}

/// A review view's verdict (MCP Apps) is taken by its token alone, for its own client, once:
/// another client's call, a path, a forged or a spent token name nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_view_verdict_is_its_clients_own_and_taken_once() {
    let e = env(|_| {});
    fs::write(e.ws.join("t.py"), "a\nb\n").unwrap();
    let a = ReviewOwner::client(1, &e.sandbox);
    let b = ReviewOwner::client(2, &e.sandbox);
    let open = match e
        .mgr
        .stage(&e.sandbox, ProposeRequest::single("t.py", "b", "B"), &a)
        .await
        .unwrap()
    {
        fs_mcp_edit::Staged::Open(open) => open,
        fs_mcp_edit::Staged::Done(outcome) => panic!("{outcome:?}"),
    };
    let token = e.mgr.app_token(&open).unwrap();
    let view = e.mgr.proposal_view(&open);
    assert_eq!(view.files.len(), 1);
    assert!(view.files[0].diff.text().contains("+B"), "{:?}", view.files);
    assert_eq!(view.proposed.as_deref(), Some("a\nB\n"));
    let sp = open.session_path.clone();
    drop(open);
    let approve = || fs_mcp_edit::Verdict::Approve { comment: None };

    assert!(
        e.mgr.submit_app_verdict(&token, &b, approve()).is_err(),
        "B decided A's review"
    );
    assert!(
        e.mgr.submit_app_verdict(&sp, &a, approve()).is_err(),
        "a path is not a token"
    );
    assert!(e.mgr.submit_app_verdict("00", &a, approve()).is_err());
    assert_eq!(e.mgr.submit_app_verdict(&token, &a, approve()).unwrap(), sp);
    assert!(
        e.mgr
            .submit_app_verdict(&token, &a, fs_mcp_edit::Verdict::Reject { comment: None })
            .is_err(),
        "a second verdict with the same token"
    );
    assert_eq!(
        e.read("t.py"),
        "a\nb\n",
        "nothing is written before the call collects it"
    );
    let done = e
        .mgr
        .stage(&e.sandbox, collect("t.py", &sp), &a)
        .await
        .unwrap();
    assert!(matches!(done, fs_mcp_edit::Staged::Done(_)));
    assert_eq!(e.read("t.py"), "a\nB\n");
}

/// A multi-file proposal is prepared file by file, but a failed edit is named by its place in
/// the request's `edits` (what the model sent), not by its place among its file's edits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_edit_of_a_multi_file_proposal_is_named_by_its_place_in_edits() {
    let e = env(|_| {});
    fs::write(e.ws.join("a.txt"), "alpha\n").unwrap();
    fs::write(e.ws.join("b.txt"), "beta\n").unwrap();
    let a = e.owner();
    let failed = |edits: Vec<EditSpec>| {
        let req = ProposeRequest {
            edits: Some(edits),
            ..ProposeRequest::single("a.txt", "", "")
        };
        let e = &e;
        let a = &a;
        async move {
            match e.mgr.stage(&e.sandbox, req, a).await {
                Err(err) => (err.failure().clone(), err.hints().map(|h| h.searched)),
                Ok(_) => panic!("the missing match_text was proposed"),
            }
        }
    };
    // The third edit, the second of b.txt's.
    let (failure, searched) = failed(vec![
        EditSpec::new("alpha", "ALPHA"),
        EditSpec::new("beta", "BETA").in_file("b.txt"),
        EditSpec::new("gone", "x").in_file("b.txt"),
    ])
    .await;
    assert!(
        matches!(
            failure,
            Failure::MatchCount {
                edit: Some(2),
                found: 0,
                ..
            }
        ),
        "{failure:?}"
    );
    assert_eq!(searched, Some(Searched::FileEdit(2)));
    // The second edit, b.txt's only one (prepared as a single match_text).
    let (failure, searched) = failed(vec![
        EditSpec::new("alpha", "ALPHA"),
        EditSpec::new("gone", "x").in_file("b.txt"),
    ])
    .await;
    assert!(
        matches!(
            failure,
            Failure::MatchCount {
                edit: Some(1),
                found: 0,
                ..
            }
        ),
        "{failure:?}"
    );
    assert_eq!(searched, Some(Searched::FileEdit(1)));
}
