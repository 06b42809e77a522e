//! `search_files` from the index's listing answers what its scan answers: names, order, the cap
//! and the notes (hidden, ignored and unsafe-rules counts, walked below the left-out entries
//! now), over a tree of every kind of entry, before and after changes.

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use fs_mcp_index::{Index, IndexConfig, Status};
use fs_mcp_sandbox::Sandbox;
use fs_mcp_search::{FindOptions, IndexedListing, ListingSource, find_files, find_files_with};

fn write(root: &Path, rel: &str, content: &[u8]) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, content).unwrap();
}

fn fifo(path: &Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .expect("mkfifo");
    assert!(status.success());
}

/// The index as a listing source that counts its answers.
struct Counted<'a> {
    index: &'a Index,
    answered: AtomicUsize,
}

impl ListingSource for Counted<'_> {
    fn listing(&self, root: &Path, wanted: &dyn Fn(&Path) -> bool) -> Option<IndexedListing> {
        let listing = self.index.listing(root, wanted);
        if listing.is_some() {
            self.answered.fetch_add(1, Ordering::Relaxed);
        }
        listing
    }
}

const PATTERNS: &[&str] = &[
    "*",
    "*.rs",
    "*.txt",
    "**/*.txt",
    "sub/*",
    "**/deep/**",
    "link*",
    "pipe",
    ".*",
    "*secret*",
    "odd*",
    "nothing_matches",
    "{a,b}*.{rs,txt}",
];

/// Compares the indexed and the scanned answer of every pattern from `path`, with a cap that
/// cuts and one that does not; returns how many the index answered.
fn compare(sandbox: &Sandbox, index: &Index, path: &str) -> usize {
    let source = Counted {
        index,
        answered: AtomicUsize::new(0),
    };
    for pattern in PATTERNS {
        for max_results in [3, FindOptions::DEFAULT_MAX_RESULTS] {
            let options = FindOptions {
                max_results,
                ..FindOptions::default()
            };
            // The watcher may be behind on a loaded machine for a moment: then the search scans.
            let deadline = Instant::now() + Duration::from_secs(30);
            let before = source.answered.load(Ordering::Relaxed);
            let indexed = loop {
                let found = find_files_with(sandbox, path, pattern, &options, Some(&source));
                if source.answered.load(Ordering::Relaxed) > before {
                    break found;
                }
                assert!(
                    Instant::now() < deadline,
                    "the index never answers: {:?}",
                    index.status()
                );
                std::thread::sleep(Duration::from_millis(20));
            };
            let scanned = find_files(sandbox, path, pattern, &options);
            assert_eq!(
                indexed.map_err(|e| e.to_string()),
                scanned.map_err(|e| e.to_string()),
                "{path}: {pattern} (max {max_results})"
            );
        }
    }
    source.answered.into_inner()
}

#[test]
fn search_files_from_the_index_answers_as_a_scan() {
    let tmp = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(tmp.path()).unwrap().join("root");
    let outside = root.parent().unwrap().join("outside");
    write(&outside, "secret.txt", b"x");
    write(&root, "a.rs", b"");
    write(&root, "b.txt", b"");
    write(&root, "sub/a.rs", b"");
    write(&root, "sub/deep/b.txt", b"");
    write(&root, "sub/deep/er/c.txt", b"");
    write(&root, ".hidden.txt", b"");
    write(&root, ".cache/deep/x.txt", b"");
    write(&root, ".cache/.git/y.txt", b"");
    write(&root, "sub/.secret.rs", b"");
    write(&root, ".gitignore", b"*.log\nbuild/\ntarget\n");
    write(&root, "app.log", b"");
    write(&root, "build/out.txt", b"");
    write(&root, "build/more/b.rs", b"");
    write(&root, "build/.hid/a.txt", b"");
    // An ignored directory with rules that must not be read inside it (counted, not entered).
    write(&root, "build/locked/a.txt", b"");
    fifo(&root.join("build/locked/.gitignore"));
    write(&root, "sub/.ignore", b"skip*\n");
    write(&root, "sub/skipped.txt", b"");
    write(&root, ".git/config", b"");
    write(&root, "_darcs/patch.txt", b"");
    std::os::unix::fs::symlink(&outside, root.join("link_out")).unwrap();
    std::os::unix::fs::symlink(root.join("sub"), root.join("link_sub")).unwrap();
    std::os::unix::fs::symlink("a.rs", root.join("sub/link.rs")).unwrap();
    fifo(&root.join("pipe"));
    write(&root, "odd\nname.txt", b"");
    let invalid = std::ffi::OsString::from(OsStr::from_bytes(b"odd\xff.txt"));
    fs::write(root.join(&invalid), b"").unwrap();

    let (sandbox, _) = Sandbox::new([&root]).unwrap();
    let index = Index::new(&sandbox, IndexConfig::default()).unwrap();
    assert!(
        index.listing(&root, &|_| true).is_none(),
        "not built before it is started"
    );
    index.start();
    let status = index.wait_ready(Duration::from_secs(30));
    assert!(matches!(status, Status::Ready { .. }), "{status:?}");

    let listing = index.listing(&root, &|_| true).unwrap();
    let rel = |paths: &[std::path::PathBuf]| {
        let mut names: Vec<String> = paths
            .iter()
            .map(|p| {
                p.strip_prefix(&root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect();
        names.sort();
        names
    };
    assert!(
        rel(&listing.listed).contains(&"sub/link.rs".to_string())
            && rel(&listing.listed).contains(&"pipe".to_string()),
        "symlinks and FIFOs are listed: {:?}",
        rel(&listing.listed)
    );
    assert_eq!(
        rel(&listing.left_out),
        [
            ".cache",
            ".git",
            ".gitignore",
            ".hidden.txt",
            "_darcs",
            "app.log",
            "build",
            "sub/.ignore",
            "sub/.secret.rs",
            "sub/skipped.txt"
        ]
    );

    for path in [".", "sub"] {
        assert!(compare(&sandbox, &index, path) > 0);
    }
    // Not served: the options ask for more than the walk holds, or the directory is not walked.
    assert!(index.listing(&root.join("build"), &|_| true).is_none());
    assert!(index.listing(&root.join(".cache"), &|_| true).is_none());

    // Changes just before the next search are in its answer: created, removed, renamed, a file
    // swapped for a symlink, new content below left-out directories, and new rules.
    write(&root, "sub/deep/new.rs", b"");
    fs::remove_file(root.join("b.txt")).unwrap();
    fs::rename(root.join("sub/a.rs"), root.join("sub/deep/er/moved.rs")).unwrap();
    fs::remove_file(root.join("sub/deep/b.txt")).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("sub/deep/b.txt")).unwrap();
    write(&root, ".cache/later.rs", b"");
    write(&root, "build/later/c.rs", b"");
    for path in [".", "sub"] {
        compare(&sandbox, &index, path);
    }
    // New rules rebuild the index: the searches scan meanwhile, then it answers again. (Saved
    // whole: a truncated `.gitignore` read in between would let the rebuild enter `build/`,
    // whose unreadable rules leave the index unusable for a while.)
    write(&root, "rules.tmp", b"*.rs\nbuild/\n!sub/deep/new.rs\n");
    fs::rename(root.join("rules.tmp"), root.join(".gitignore")).unwrap();
    compare(&sandbox, &index, ".");
}

/// A VCS directory other than `.git` (`.hg`, `.svn`, `_darcs`, …) is left out by the walk; the
/// index keeps its name, so the listing again after the build does not take it for a new
/// repository (which rebuilt the index for ever, every search scanning).
#[test]
fn other_vcs_directories_do_not_rebuild_the_index_for_ever() {
    let tmp = tempfile::tempdir().unwrap();
    let root = fs::canonicalize(tmp.path()).unwrap();
    write(&root, "a.txt", b"needle\n");
    write(&root, ".hg/store/data", b"needle\n");
    write(&root, "sub/.svn/entries", b"needle\n");
    write(&root, "sub/_darcs/patch", b"needle\n");
    let (sandbox, _) = Sandbox::new([&root]).unwrap();
    let index = Index::new(&sandbox, IndexConfig::default()).unwrap();
    index.start();
    let status = index.wait_ready(Duration::from_secs(30));
    assert!(matches!(status, Status::Ready { .. }), "{status:?}");
    std::thread::sleep(Duration::from_millis(200));
    assert!(
        matches!(index.status(), Status::Ready { .. }),
        "{:?}",
        index.status()
    );
    assert!(index.plan(".", "needle", false, false, false).is_some());
}
