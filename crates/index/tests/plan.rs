//! The index through its API: what a plan holds, that grep with it answers as a scan, and that a
//! change made just before a plan is in it (the sync marker).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::fs;
use std::path::Path;
use std::time::Duration;

use fs_mcp_index::{Index, IndexConfig, Status};
use fs_mcp_sandbox::Sandbox;
use fs_mcp_search::{GrepControl, GrepNote, GrepOptions, GrepWords, grep_content};

/// grep's notes as data (their wording is the binary's): enough to compare two answers.
struct NotesAsData;

impl GrepWords for NotesAsData {
    fn note(&self, note: &GrepNote) -> String {
        format!("{note:?}")
    }
}

fn write(root: &Path, rel: &str, content: &[u8]) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, content).unwrap();
}

fn answers(sandbox: &Sandbox, index: &Index, pattern: &str) -> (String, String, usize) {
    let options = GrepOptions::new(pattern);
    // The index declines (the search would scan) while its watcher is behind, which a loaded
    // machine can make it for a moment: ask again.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let plan = loop {
        if let Some(plan) = index.plan(".", pattern, false, false, false) {
            break plan;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the index never answers"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let indexed = grep_content(
        sandbox,
        &options,
        &GrepControl {
            candidates: Some(&plan),
            ..GrepControl::default()
        },
        &NotesAsData,
    )
    .unwrap();
    let scanned = grep_content(sandbox, &options, &GrepControl::default(), &NotesAsData).unwrap();
    (indexed, scanned, plan.candidates.len())
}

#[test]
fn a_plan_leaves_out_what_cannot_match_and_answers_as_a_scan() {
    let tmp = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(tmp.path()).unwrap();
    write(&root, "a.txt", b"a needle here\n");
    write(&root, "sub/b.txt", b"nothing to see\n");
    write(&root, "sub/c.txt", b"more of nothing\n");
    write(&root, "bin.dat", b"needle\0binary\n");
    write(&root, ".hidden", b"needle\n");
    write(&root, ".gitignore", b"ignored.txt\n");
    write(&root, "ignored.txt", b"needle\n");
    // A second name in a hidden directory, which is neither walked nor watched.
    fs::create_dir(root.join(".cache")).unwrap();
    fs::hard_link(root.join("sub/c.txt"), root.join(".cache/c-link")).unwrap();
    let (sandbox, _) = Sandbox::new([&root]).unwrap();
    let index = Index::new(&sandbox, IndexConfig::default()).unwrap();
    assert!(
        index.plan(".", "needle", false, false, false).is_none(),
        "not built before it is started"
    );
    index.start();
    assert!(
        index.plan(".", "needle", false, false, false).is_none(),
        "a search never waits for the build"
    );
    let status = index.wait_ready(Duration::from_secs(30));
    let Status::Ready {
        files,
        text_bytes,
        index_bytes,
        ..
    } = status
    else {
        panic!("not ready: {status:?}");
    };
    assert_eq!(files, 4, "a.txt, sub/b.txt, sub/c.txt, bin.dat");
    assert!(text_bytes > 0 && index_bytes > 0);

    let plan = index.plan(".", "needle", false, false, false).unwrap();
    let names: Vec<_> = plan
        .candidates
        .iter()
        .map(|p| p.strip_prefix(&root).unwrap().to_path_buf())
        .collect();
    assert_eq!(
        names,
        [
            Path::new("a.txt"),
            Path::new("bin.dat"),
            Path::new("sub/c.txt")
        ],
        "sub/c.txt has two names: always searched"
    );
    assert_eq!(plan.excluded, 1);
    assert_eq!(plan.hidden, 3, ".hidden, .gitignore and .cache");
    assert!(plan.ignore_rules);
    assert!(index.plan(".", "needle", false, true, false).is_none());
    assert!(index.plan("a.txt", "needle", false, false, false).is_none());

    for pattern in ["needle", "nothing", "absent_word", "."] {
        let (indexed, scanned, _) = answers(&sandbox, &index, pattern);
        assert_eq!(indexed, scanned, "{pattern}");
    }

    // Written through the name nobody watches: still found.
    fs::write(
        root.join(".cache/c-link"),
        b"a needle through the other name\n",
    )
    .unwrap();
    let (indexed, scanned, _) = answers(&sandbox, &index, "needle");
    assert_eq!(indexed, scanned);
    assert!(indexed.contains("other name"), "{indexed}");

    // Changed just before the next plan: the plan sees it.
    fs::write(root.join("sub/b.txt"), b"now a needle too\n").unwrap();
    let (indexed, scanned, candidates) = answers(&sandbox, &index, "needle");
    assert_eq!(indexed, scanned);
    assert_eq!(candidates, 4);
    fs::rename(root.join("sub/c.txt"), root.join("sub/d.txt")).unwrap();
    fs::write(root.join("sub/new.txt"), b"needle fresh\n").unwrap();
    fs::remove_file(root.join("a.txt")).unwrap();
    let (indexed, scanned, candidates) = answers(&sandbox, &index, "needle");
    assert_eq!(indexed, scanned);
    assert_eq!(candidates, 4, "sub/b.txt, sub/d.txt, sub/new.txt, bin.dat");
}
