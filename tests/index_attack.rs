//! Attacks on `--index` from the outside: each test makes a change (or a file) the index might
//! not see as a scan does, then compares the indexed server's `grep_content` answer with the
//! answer of a server without the index on the same tree at the same moment. "Never stale, never
//! different from a scan" is the promise under attack.

use crate::common;

use std::fs;
use std::io::Write;
use std::time::{Duration, Instant};

use common::{StdioClient, Workspace};
use serde_json::{Value, json};

/// Logs the index's decisions, which the tests count.
const INDEX_ARGS: &[&str] = &["--index", "--log-level", "fs_mcp_index=debug"];
/// The debug line of a search answered from the index.
const USED: &str = "candidate files of";

fn grep(client: &mut StdioClient, arguments: Value) -> String {
    client.call_text("grep_content", arguments)
}

fn used(client: &StdioClient) -> usize {
    client.stderr.lock().unwrap().matches(USED).count()
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
        grep(client, json!({"pattern": "warm up"}));
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The indexed answer equals the scan's, and the index (not a fallback scan) gave it.
fn assert_same(indexed: &mut StdioClient, plain: &mut StdioClient, arguments: Value) {
    let before = used(indexed);
    let from_index = grep(indexed, arguments.clone());
    let from_scan = grep(plain, arguments.clone());
    assert_eq!(
        from_index, from_scan,
        "{arguments}: the indexed answer differs from a scan"
    );
    assert!(
        used(indexed) > before,
        "{arguments}: the index did not answer (a scan proves nothing): {}",
        indexed.stderr.lock().unwrap()
    );
}

/// Rewrites a file in place through `path` (no rename: the inode stays).
fn write_in_place(path: &std::path::Path, text: &str) {
    let mut file = fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(path)
        .unwrap();
    file.write_all(text.as_bytes()).unwrap();
}

/// A file of the allowed directory with a second name outside it: a write through the outside
/// name makes inotify report nothing in any watched directory (the event goes to the parent of
/// the name written through). The index must not trust a filter of such a file.
#[test]
fn a_write_through_a_hard_link_outside_is_seen() {
    let ws = Workspace::new();
    let inside = ws.write("linked.txt", "old text\n");
    ws.write("other.txt", "unrelated\n");
    let outside = ws.base.join("outside-name.txt");
    fs::hard_link(&inside, &outside).unwrap();
    let mut indexed = ws.start(INDEX_ARGS);
    let mut plain = ws.start(&[]);
    wait_until_used(&mut indexed);

    write_in_place(&outside, "fresh needle written outside\n");
    assert_same(&mut indexed, &mut plain, json!({"pattern": "fresh needle"}));
}

/// Two names of one file, both inside and walked: a write through one name reports only that
/// name; the other's filter must not be trusted either.
#[test]
fn a_write_through_a_hard_link_inside_updates_both_names() {
    let ws = Workspace::new();
    let first = ws.write("a/first.txt", "old text\n");
    ws.write("b/placeholder.txt", "unrelated\n");
    fs::hard_link(&first, ws.root.join("b/second.txt")).unwrap();
    let mut indexed = ws.start(INDEX_ARGS);
    let mut plain = ws.start(&[]);
    wait_until_used(&mut indexed);

    write_in_place(&ws.root.join("b/second.txt"), "fresh needle via b\n");
    assert_same(&mut indexed, &mut plain, json!({"pattern": "fresh needle"}));
}

/// A hard link made after the index was built: link(2) reports nothing to the watch of the
/// directory holding the first name, so the index keeps trusting that name's filter, and a
/// write through the new name (outside, or in a directory the walk ignores) is never seen.
#[test]
#[ignore = "not fixable in the index alone: link(2) and a write through the new name report nothing to any watched directory (inotify reports to the parent of the name used); needs fanotify (CAP_SYS_ADMIN) or an nlink check of every left-out file per search"]
fn a_hard_link_made_after_the_build_is_seen() {
    let ws = Workspace::new();
    let inside = ws.write("linked.txt", "old text\n");
    ws.write("other.txt", "unrelated\n");
    let mut indexed = ws.start(INDEX_ARGS);
    let mut plain = ws.start(&[]);
    wait_until_used(&mut indexed);

    let outside = ws.base.join("outside-name.txt");
    fs::hard_link(&inside, &outside).unwrap();
    write_in_place(&outside, "fresh needle written outside\n");
    assert_same(&mut indexed, &mut plain, json!({"pattern": "fresh needle"}));
}

/// The search transcodes a file with a UTF-16 byte order mark to UTF-8 before matching
/// (grep-searcher's BOM sniffing); text of CJK characters in UTF-16 has no NUL byte, so it is
/// not binary, and its raw bytes hold none of the pattern's UTF-8 trigrams.
#[test]
fn a_utf16_file_is_a_candidate_as_the_scan_transcodes_it() {
    let ws = Workspace::new();
    let text = "中文字符串";
    let mut le = vec![0xFF, 0xFE];
    let mut be = vec![0xFE, 0xFF];
    for unit in text.encode_utf16() {
        le.extend_from_slice(&unit.to_le_bytes());
        be.extend_from_slice(&unit.to_be_bytes());
    }
    assert!(
        !le.contains(&0) && !be.contains(&0),
        "the test needs text without NUL"
    );
    ws.write("utf16le.txt", &le);
    ws.write("utf16be.txt", &be);
    ws.write("plain.txt", "plain ascii\n");
    let mut indexed = ws.start(INDEX_ARGS);
    let mut plain = ws.start(&[]);
    wait_until_used(&mut indexed);

    let from_scan = grep(&mut plain, json!({"pattern": "文字"}));
    assert!(
        from_scan.contains("utf16le.txt") && from_scan.contains("utf16be.txt"),
        "the scan no longer transcodes UTF-16 (the test is moot): {from_scan}"
    );
    assert_same(&mut indexed, &mut plain, json!({"pattern": "文字"}));
}

/// `.gitignore` is a symlink to a file inside the allowed directory: the rules are read from
/// the target, so an edit of the target changes what the walk ignores, but the event names the
/// target (an ordinary file), not an ignore file.
#[test]
fn an_ignore_file_reached_through_a_symlink_is_watched() {
    let ws = Workspace::new();
    ws.write("rules/ignore-list.txt", "*.log\n");
    std::os::unix::fs::symlink("rules/ignore-list.txt", ws.root.join(".gitignore")).unwrap();
    ws.write("secret.txt", "needle in secret\n");
    ws.write("kept.txt", "needle kept\n");
    let mut indexed = ws.start(INDEX_ARGS);
    let mut plain = ws.start(&[]);
    wait_until_used(&mut indexed);

    write_in_place(
        &ws.root.join("rules/ignore-list.txt"),
        "*.log\nsecret.txt\n",
    );
    let from_scan = grep(&mut plain, json!({"pattern": "needle in"}));
    assert!(
        !from_scan.contains("secret.txt"),
        "the scan does not read rules through the symlink (the test is moot): {from_scan}"
    );
    // The rebuild a fix triggers answers by scanning meanwhile: compare first, then wait for
    // the index to answer again and compare once more.
    assert_eq!(
        grep(&mut indexed, json!({"pattern": "needle in"})),
        from_scan,
        "the indexed answer differs from a scan"
    );
    wait_until_used(&mut indexed);
    assert_same(&mut indexed, &mut plain, json!({"pattern": "needle in"}));
}

/// A submodule's `.git` is a file (`gitdir: ../.git/modules/sub`); its exclude rules live in the
/// pointed directory, which the index does not watch.
#[test]
fn a_submodule_exclude_file_is_watched() {
    let ws = Workspace::new();
    fs::create_dir_all(ws.root.join(".git/info")).unwrap();
    ws.write(".git/modules/sub/info/exclude", "# nothing yet\n");
    ws.write("sub/.git", "gitdir: ../.git/modules/sub\n");
    ws.write("sub/secret.txt", "needle in secret\n");
    ws.write("sub/kept.txt", "needle kept\n");
    let mut indexed = ws.start(INDEX_ARGS);
    let mut plain = ws.start(&[]);
    wait_until_used(&mut indexed);

    write_in_place(
        &ws.root.join(".git/modules/sub/info/exclude"),
        "secret.txt\n",
    );
    let from_scan = grep(&mut plain, json!({"pattern": "needle in"}));
    assert!(
        !from_scan.contains("secret.txt"),
        "the scan does not read the submodule's exclude file (the test is moot): {from_scan}"
    );
    assert_eq!(
        grep(&mut indexed, json!({"pattern": "needle in"})),
        from_scan,
        "the indexed answer differs from a scan"
    );
    wait_until_used(&mut indexed);
    assert_same(&mut indexed, &mut plain, json!({"pattern": "needle in"}));
}

/// Two names of one file, both in walked directories, the second made after the build: the
/// new name is read afresh, but link(2) reports nothing for the first name, whose filter would
/// then hide a write through the second.
#[test]
fn a_hard_link_made_inside_after_the_build_updates_both_names() {
    let ws = Workspace::new();
    let first = ws.write("a/first.txt", "old text\n");
    ws.write("b/placeholder.txt", "unrelated\n");
    let mut indexed = ws.start(INDEX_ARGS);
    let mut plain = ws.start(&[]);
    wait_until_used(&mut indexed);

    fs::hard_link(&first, ws.root.join("b/second.txt")).unwrap();
    write_in_place(&ws.root.join("b/second.txt"), "fresh needle via b\n");
    assert_same(&mut indexed, &mut plain, json!({"pattern": "fresh needle"}));
}

/// Nested allowed directories (`ws` and `ws/sub`): both indexes hold `ws/sub`'s files, and a
/// change there must reach both, not only the deepest.
#[test]
fn a_change_below_nested_allowed_directories_reaches_both_indexes() {
    let ws = Workspace::new();
    ws.write("top.txt", "top level\n");
    ws.write("sub/inner.txt", "old text\n");
    let (outer, inner) = (
        ws.root.to_str().unwrap().to_string(),
        ws.root.join("sub").to_str().unwrap().to_string(),
    );
    let mut args: Vec<&str> = INDEX_ARGS.to_vec();
    args.extend([outer.as_str(), inner.as_str()]);
    let mut indexed = StdioClient::start(&ws.base, &args);
    let mut plain = StdioClient::start(&ws.base, &[outer.as_str(), inner.as_str()]);
    wait_until_used(&mut indexed);

    write_in_place(&ws.root.join("sub/inner.txt"), "fresh needle below both\n");
    for search_path in [".", "sub"] {
        assert_same(
            &mut indexed,
            &mut plain,
            json!({"pattern": "fresh needle", "search_path": search_path}),
        );
    }
}

/// `.gitignore` → `link` → `rules/a.txt`: the rules follow both symlinks, so retargeting the
/// middle one (to `rules/b.txt`) changes them, yet neither the ignore file nor its final target
/// changed.
#[test]
fn an_ignore_file_behind_two_symlinks_is_watched_at_every_hop() {
    let ws = Workspace::new();
    ws.write("rules/a.txt", "*.log\n");
    ws.write("rules/b.txt", "*.log\nsecret.txt\n");
    std::os::unix::fs::symlink("rules/a.txt", ws.root.join("link")).unwrap();
    std::os::unix::fs::symlink("link", ws.root.join(".gitignore")).unwrap();
    ws.write("secret.txt", "needle in secret\n");
    ws.write("kept.txt", "needle kept\n");
    let mut indexed = ws.start(INDEX_ARGS);
    let mut plain = ws.start(&[]);
    wait_until_used(&mut indexed);

    // Retargeted atomically, as `ln -sfn` does: a new symlink renamed over the old one.
    std::os::unix::fs::symlink("rules/b.txt", ws.root.join("link.new")).unwrap();
    fs::rename(ws.root.join("link.new"), ws.root.join("link")).unwrap();
    let from_scan = grep(&mut plain, json!({"pattern": "needle in"}));
    assert!(
        !from_scan.contains("secret.txt"),
        "the scan does not follow the symlinks (the test is moot): {from_scan}"
    );
    assert_eq!(
        grep(&mut indexed, json!({"pattern": "needle in"})),
        from_scan,
        "the indexed answer differs from a scan"
    );
    wait_until_used(&mut indexed);
    assert_same(&mut indexed, &mut plain, json!({"pattern": "needle in"}));
}

/// The marker barrier under parallel calls: a writer replaces `counter.txt` (atomically, by
/// rename) with ever higher values; every grep sent after a value was written answers that
/// value or a later one, whichever of the parallel calls it is.
#[test]
fn parallel_greps_never_see_a_value_older_than_the_last_completed_write() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};

    let ws = Workspace::new();
    ws.write("counter.txt", "value 0\n");
    for i in 0..50 {
        ws.write(&format!("other/f{i}.txt"), format!("noise {i}\n"));
    }
    let mut indexed = ws.start(INDEX_ARGS);
    wait_until_used(&mut indexed);

    let written = Arc::new(AtomicU64::new(0));
    let (root, done) = (ws.root.clone(), Arc::clone(&written));
    let writer = std::thread::spawn(move || {
        for n in 1..=3_000u64 {
            let tmp = root.join(".counter.tmp");
            fs::write(&tmp, format!("value {n}\n")).unwrap();
            fs::rename(&tmp, root.join("counter.txt")).unwrap();
            done.store(n, Ordering::SeqCst);
        }
    });
    let before = used(&indexed);
    let mut checked = 0;
    for _ in 0..40 {
        let floor = written.load(Ordering::SeqCst);
        let ids: Vec<u64> = (0..4)
            .map(|_| {
                indexed.send_request(
                    "tools/call",
                    json!({"name": "grep_content", "arguments": {"pattern": "^value [0-9]+$"}}),
                )
            })
            .collect();
        for id in ids {
            let reply = indexed.wait_for(id);
            let text = common::text_of(&reply["result"]);
            let seen: u64 = text
                .lines()
                .filter_map(|l| l.strip_prefix("1:value "))
                .filter_map(|v| v.trim().parse().ok())
                .max()
                .unwrap_or_else(|| panic!("no value in {text}"));
            assert!(
                seen >= floor,
                "a grep sent after value {floor} was written answered {seen}: {text}"
            );
            checked += 1;
        }
    }
    writer.join().unwrap();
    assert!(checked > 0);
    assert!(
        used(&indexed) > before,
        "the index never answered: {}",
        indexed.stderr.lock().unwrap()
    );
}

/// The index's memory as its log reports it counts the names it keeps of skipped (ignored or
/// hidden) entries, so the cap bounds them: here 20,000 ignored files with 150-byte names.
#[test]
fn the_names_of_skipped_entries_count_toward_the_index_memory() {
    let ws = Workspace::new();
    ws.write(".gitignore", "*.log\n");
    ws.write("kept.txt", "kept\n");
    let pad = "x".repeat(140);
    for i in 0..20_000 {
        fs::write(ws.root.join(format!("{pad}{i:05}.log")), "").unwrap();
    }
    let mut indexed = ws.start(INDEX_ARGS);
    wait_until_used(&mut indexed);
    let log = indexed.stderr.lock().unwrap().clone();
    let reported: usize = log
        .lines()
        .find_map(|l| {
            let rest = l.split(" bytes of text in ").nth(1)?;
            rest.split(' ').next()?.parse().ok()
        })
        .unwrap_or_else(|| panic!("no ready line in the log: {log}"));
    assert!(
        reported >= 20_000 * 145,
        "the index reports {reported} bytes while keeping 20,000 names of 145 bytes"
    );
}

/// Names with a newline, invalid UTF-8 and a backslash: the indexed answer shows them (escaped)
/// exactly as a scan does, in the same order, also when the cap cuts the list.
#[test]
fn odd_names_are_answered_as_a_scan_answers_them() {
    use std::os::unix::ffi::OsStrExt;

    let ws = Workspace::new();
    let names: [&[u8]; 5] = [
        b"line\nbreak.txt",
        b"bad\xffutf8.txt",
        b"back\\slash.txt",
        b"a-b/x.txt",
        b"a/x.txt",
    ];
    for (i, name) in names.iter().enumerate() {
        let path = ws.root.join(std::ffi::OsStr::from_bytes(name));
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, format!("needle {i}\nneedle again {i}\n")).unwrap();
    }
    ws.write("plain.txt", "nothing\n");
    let mut indexed = ws.start(INDEX_ARGS);
    let mut plain = ws.start(&[]);
    wait_until_used(&mut indexed);

    for max in [1, 3, 100] {
        assert_same(
            &mut indexed,
            &mut plain,
            json!({"pattern": "needle", "max_matches": max}),
        );
    }
}

/// Compares right after a change (the index may be rebuilding: then it scans), then once the
/// index answers again.
fn compare_now_and_settled(indexed: &mut StdioClient, plain: &mut StdioClient, arguments: Value) {
    assert_eq!(
        grep(indexed, arguments.clone()),
        grep(plain, arguments.clone()),
        "{arguments}: right after the change, the indexed answer differs from a scan"
    );
    wait_until_used(indexed);
    assert_same(indexed, plain, arguments);
}

/// Changes of the walk itself, one after the other: a populated directory moved in from
/// outside, `.gitignore` replaced by a rename, a nested repository created (the root's
/// `.gitignore` no longer applies below it), `.git/info/exclude` renamed into place, and a
/// directory exchanged with a symlink to outside and back (`renameat2(RENAME_EXCHANGE)`).
#[test]
fn changes_of_the_walk_itself_are_answered_as_a_scan_answers_them() {
    let ws = Workspace::new();
    ws.write(".gitignore", "*.secret\n");
    ws.write("top.txt", "needle top\n");
    ws.write("sub/x.secret", "needle in a secret\n");
    ws.write("swap/inside.txt", "needle inside swap\n");
    fs::create_dir_all(ws.root.join(".git/info")).unwrap();
    let moved = ws.base.join("moved-in");
    fs::create_dir_all(moved.join("deeper")).unwrap();
    fs::write(moved.join("deeper/m.txt"), "needle moved in\n").unwrap();
    let outside = ws.base.join("outside");
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("inside.txt"), "needle OUTSIDE secret\n").unwrap();
    std::os::unix::fs::symlink(&outside, ws.root.join("link")).unwrap();
    let mut indexed = ws.start(INDEX_ARGS);
    let mut plain = ws.start(&[]);
    wait_until_used(&mut indexed);
    let needle = json!({"pattern": "needle"});

    fs::rename(&moved, ws.root.join("moved")).unwrap();
    compare_now_and_settled(&mut indexed, &mut plain, needle.clone());

    fs::write(ws.root.join("new-rules"), "*.secret\ntop.txt\n").unwrap();
    fs::rename(ws.root.join("new-rules"), ws.root.join(".gitignore")).unwrap();
    compare_now_and_settled(&mut indexed, &mut plain, needle.clone());

    fs::create_dir_all(ws.root.join("sub/.git")).unwrap();
    compare_now_and_settled(&mut indexed, &mut plain, needle.clone());

    fs::write(ws.root.join(".git/exclude.new"), "moved/\n").unwrap();
    fs::rename(
        ws.root.join(".git/exclude.new"),
        ws.root.join(".git/info/exclude"),
    )
    .unwrap();
    compare_now_and_settled(&mut indexed, &mut plain, needle.clone());

    let exchange = || {
        rustix::fs::renameat_with(
            rustix::fs::CWD,
            ws.root.join("swap"),
            rustix::fs::CWD,
            ws.root.join("link"),
            rustix::fs::RenameFlags::EXCHANGE,
        )
        .unwrap();
    };
    exchange();
    let swapped = grep(&mut indexed, needle.clone());
    assert!(!swapped.contains("OUTSIDE"), "outside content: {swapped}");
    compare_now_and_settled(&mut indexed, &mut plain, needle.clone());
    exchange();
    compare_now_and_settled(&mut indexed, &mut plain, needle);
}

/// The inotify watch limit, lowered to 30 for the server alone (a user namespace has its own):
/// the first build fits; 40 new directories make the rebuild hit the limit, and from then on
/// every answer is a scan's.
#[test]
fn the_watch_limit_reached_by_a_rebuild_falls_back_to_scans() {
    let probe = std::process::Command::new("unshare")
        .args([
            "-Ur",
            "sh",
            "-c",
            "echo 30 > /proc/sys/user/max_inotify_watches",
        ])
        .status();
    if !probe.is_ok_and(|s| s.success()) {
        eprintln!("skipped: no user namespace with its own inotify limit here");
        return;
    }
    let ws = Workspace::new();
    for i in 0..10 {
        ws.write(&format!("d{i}/f.txt"), format!("needle old {i}\n"));
    }
    let root = ws.root.to_str().unwrap().to_string();
    let mut args: Vec<&str> = INDEX_ARGS.to_vec();
    args.push(&root);
    let wrapper = [
        "unshare",
        "-Ur",
        "sh",
        "-c",
        "echo 30 > /proc/sys/user/max_inotify_watches && exec \"$0\" \"$@\"",
    ];
    let mut indexed = StdioClient::start_wrapped(&ws.base, &wrapper, &args);
    let mut plain = ws.start(&[]);
    wait_until_used(&mut indexed);
    assert_same(&mut indexed, &mut plain, json!({"pattern": "needle"}));

    for i in 0..40 {
        ws.write(&format!("n{i}/g.txt"), format!("needle new {i}\n"));
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        assert_eq!(
            grep(&mut indexed, json!({"pattern": "needle"})),
            grep(&mut plain, json!({"pattern": "needle"})),
            "the indexed answer differs from a scan"
        );
        if indexed.stderr.lock().unwrap().contains("watch limit") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the limit was never reached: {}",
            indexed.stderr.lock().unwrap()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let before = used(&indexed);
    for pattern in ["needle new 39", "needle old 3", "nowhere"] {
        assert_eq!(
            grep(&mut indexed, json!({"pattern": pattern})),
            grep(&mut plain, json!({"pattern": pattern})),
            "{pattern}"
        );
    }
    assert_eq!(
        used(&indexed),
        before,
        "an index past the watch limit answered"
    );
}

/// A file made with `O_TMPFILE` and linked into the tree (`linkat`): later writes through the
/// still open descriptor are reported under the kernel's name for the unnamed file (`#<inode>`),
/// not under the name it was linked as.
#[test]
fn a_write_through_an_o_tmpfile_descriptor_after_linkat_is_seen() {
    use std::os::fd::AsRawFd;

    let ws = Workspace::new();
    ws.write("other.txt", "unrelated\n");
    let mut indexed = ws.start(INDEX_ARGS);
    let mut plain = ws.start(&[]);
    wait_until_used(&mut indexed);

    let fd = rustix::fs::openat(
        rustix::fs::CWD,
        &ws.root,
        rustix::fs::OFlags::TMPFILE | rustix::fs::OFlags::RDWR,
        rustix::fs::Mode::from_raw_mode(0o644),
    )
    .unwrap();
    let mut file = fs::File::from(fd);
    file.write_all(b"first text\n").unwrap();
    rustix::fs::linkat(
        rustix::fs::CWD,
        format!("/proc/self/fd/{}", file.as_raw_fd()),
        rustix::fs::CWD,
        ws.root.join("linked.txt"),
        rustix::fs::AtFlags::SYMLINK_FOLLOW,
    )
    .unwrap();
    assert_same(&mut indexed, &mut plain, json!({"pattern": "first text"}));
    file.write_all(b"fresh needle after the link\n").unwrap();
    assert_same(&mut indexed, &mut plain, json!({"pattern": "fresh needle"}));
}

/// The same through an `O_TMPFILE` made *outside* and linked in: the link count is 1, and the
/// writes after the link are reported to the outside directory only.
#[test]
#[ignore = "not fixable in the index alone: the events of an O_TMPFILE descriptor go to the directory it was opened in (outside), and the file linked in has one name; needs fanotify (CAP_SYS_ADMIN)"]
fn a_write_through_an_outside_o_tmpfile_linked_in_is_seen() {
    use std::os::fd::AsRawFd;

    let ws = Workspace::new();
    ws.write("other.txt", "unrelated\n");
    let mut indexed = ws.start(INDEX_ARGS);
    let mut plain = ws.start(&[]);
    wait_until_used(&mut indexed);

    let fd = rustix::fs::openat(
        rustix::fs::CWD,
        &ws.base,
        rustix::fs::OFlags::TMPFILE | rustix::fs::OFlags::RDWR,
        rustix::fs::Mode::from_raw_mode(0o644),
    )
    .unwrap();
    let mut file = fs::File::from(fd);
    file.write_all(b"first text\n").unwrap();
    rustix::fs::linkat(
        rustix::fs::CWD,
        format!("/proc/self/fd/{}", file.as_raw_fd()),
        rustix::fs::CWD,
        ws.root.join("linked.txt"),
        rustix::fs::AtFlags::SYMLINK_FOLLOW,
    )
    .unwrap();
    assert_same(&mut indexed, &mut plain, json!({"pattern": "first text"}));
    file.write_all(b"fresh needle after the link\n").unwrap();
    assert_same(&mut indexed, &mut plain, json!({"pattern": "fresh needle"}));
}
