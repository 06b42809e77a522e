//! Every ignore file `grep_content` and `search_files` read (`.gitignore`, `.ignore`, a
//! repository's `info/exclude`, the `.git` and `commondir` pointers leading to it) is read by the
//! server through a handle: a FIFO never hangs a call, a symlink never makes it read a device,
//! its own stdin or rules from outside, a huge file is never read, and swapping any of them
//! with `renameat2(RENAME_EXCHANGE)` mid-call never lets outside rules decide what is listed.
//! (The `ignore` crate used to open them by path, following symlinks.)

use crate::common;

use common::{StdioClient, Workspace, swapper, text_of};

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::{Value, json};

/// The server's address space: a rules file read whole (a 3 GB sparse one, `/dev/zero`) needed
/// a 4 GiB allocation.
const MEMORY_CEILING: &str = "--as=1073741824";

/// How long one call may take before the test calls it hung (debug build, busy machine).
const CALL_LIMIT: Duration = Duration::from_secs(40);

/// The name outside rules exclude: listed iff outside rules were not applied.
const SECRET: &str = "secret_name.txt";
/// A file next to it that no rule excludes: listed iff its directory was entered.
const CONTROL: &str = "control.txt";

/// Where each kind of ignore file of directory `dir` lives.
const KINDS: [&str; 3] = [".gitignore", ".ignore", ".git/info/exclude"];

fn start_limited(ws: &Workspace) -> StdioClient {
    let root = ws.root.to_str().expect("utf8 path").to_string();
    StdioClient::start_wrapped(&ws.base, &["prlimit", MEMORY_CEILING, "--"], &[&root])
}

fn mkfifo(path: &Path) {
    rustix::fs::mknodat(
        rustix::fs::CWD,
        path,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
}

/// Outside rules that exclude [`SECRET`], and an outside repository whose exclude does.
fn outside(ws: &Workspace) -> (PathBuf, PathBuf) {
    let rules = ws.base.join("outside_rules");
    fs::write(&rules, format!("{SECRET}\n")).unwrap();
    let repo = ws.base.join("outside_repo");
    fs::create_dir_all(repo.join("info")).unwrap();
    fs::write(repo.join("info/exclude"), format!("{SECRET}\n")).unwrap();
    (rules, repo)
}

/// Calls `tool` and waits at most [`CALL_LIMIT`]; panics (naming `what`) if it hangs.
fn call(c: &mut StdioClient, tool: &str, args: Value, what: &str) -> (bool, String) {
    let id = c.send_request("tools/call", json!({"name": tool, "arguments": args}));
    let Some(reply) = c.try_wait_for(id, CALL_LIMIT) else {
        panic!("{tool} did not answer (hung or crashed) on {what}");
    };
    let result = &reply["result"];
    (result["isError"] == json!(true), text_of(result))
}

/// Both tools over `dir` (relative to the root), checked: no hang, and whenever the directory
/// was entered ([`CONTROL`] shown), [`SECRET`] is shown too.
fn check_both(c: &mut StdioClient, dir: &str, what: &str) -> Vec<(bool, String)> {
    let mut answers = Vec::new();
    for (tool, args) in [
        ("search_files", json!({"path": ".", "pattern": "*.txt"})),
        (
            "grep_content",
            json!({"search_path": ".", "pattern": "needle", "timeout": 3}),
        ),
    ] {
        let (is_error, text) = call(c, tool, args, what);
        let control = format!("{dir}/{CONTROL}");
        let secret = format!("{dir}/{SECRET}");
        assert!(
            !text.contains(&control) || text.contains(&secret),
            "{tool} applied outside rules ({what}): {text}"
        );
        answers.push((is_error, text));
    }
    answers
}

fn hostile_dir(ws: &Workspace, dir: &str, kind: &str) -> PathBuf {
    ws.write(&format!("{dir}/{CONTROL}"), "needle\n");
    ws.write(&format!("{dir}/{SECRET}"), "needle\n");
    let file = ws.root.join(dir).join(kind);
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    file
}

/// FIFOs, symlinks to outside rules, to `/dev/zero`, to `/proc/self/fd/0` and 3 GB sparse files
/// as each kind of ignore file, below the root and at the root: every call answers, within the
/// memory ceiling, without outside rules; a directory whose rules cannot be read is not entered,
/// and a searched directory whose rules cannot be read is refused with the way out.
#[test]
fn hostile_ignore_files_never_hang_leak_or_crash() {
    type Make = fn(&Path, &Path);
    let makers: [(&str, Make); 5] = [
        ("a FIFO", |file, _| mkfifo(file)),
        ("a symlink to outside rules", |file, rules| {
            symlink(rules, file).unwrap()
        }),
        ("a symlink to /dev/zero", |file, _| {
            symlink("/dev/zero", file).unwrap()
        }),
        ("a symlink to /proc/self/fd/0", |file, _| {
            symlink("/proc/self/fd/0", file).unwrap()
        }),
        ("a 3 GB sparse file", |file, _| {
            fs::File::create(file).unwrap().set_len(3 << 30).unwrap()
        }),
    ];
    for kind in KINDS {
        for (form, make) in makers {
            let what = format!("{kind} as {form}");
            let ws = Workspace::new();
            let (rules, _) = outside(&ws);
            ws.write("top.txt", "needle\n");
            make(&hostile_dir(&ws, "d", kind), &rules);
            let mut c = start_limited(&ws);
            for (is_error, text) in check_both(&mut c, "d", &what) {
                assert!(!is_error, "{what}: {text}");
                assert!(text.contains("top.txt"), "{what}: {text}");
                assert!(!text.contains(CONTROL), "{what}: entered: {text}");
            }
            let (_, text) = call(&mut c, "search_files", json!({"pattern": "*.txt"}), &what);
            assert!(text.contains("1 directory not entered"), "{what}: {text}");
            // The same file at the searched directory itself: refused, with the way out.
            for (tool, args) in [
                ("search_files", json!({"path": "d", "pattern": "*.txt"})),
                (
                    "grep_content",
                    json!({"search_path": "d", "pattern": "needle"}),
                ),
            ] {
                let (is_error, text) = call(&mut c, tool, args, &what);
                assert!(is_error, "{tool} {what}: {text}");
                assert!(
                    text.contains("include_ignored=true"),
                    "{tool} {what}: {text}"
                );
            }
            // Without rules, nothing is read and everything is listed.
            let (_, text) = call(
                &mut c,
                "search_files",
                json!({"pattern": "*.txt", "include_ignored": true}),
                &what,
            );
            assert!(text.contains(&format!("d/{SECRET}")), "{what}: {text}");
            c.finish();
        }
    }
}

/// A `.git` file (`gitdir: …`) or symlink leading to an outside repository is not followed: its
/// exclude rules are not applied. One leading inside (a worktree, with `commondir`) is, through
/// handles; a `commondir` that is a FIFO or leads outside is not followed and hangs nothing.
#[test]
fn git_pointers_are_followed_only_inside() {
    let ws = Workspace::new();
    let (_, repo) = outside(&ws);
    // `.git` files and a `.git` symlink to the outside repository.
    hostile_dir(&ws, "gitfile_abs", ".git");
    fs::write(
        ws.root.join("gitfile_abs/.git"),
        format!("gitdir: {}\n", repo.display()),
    )
    .unwrap();
    hostile_dir(&ws, "gitfile_rel", ".git");
    fs::write(
        ws.root.join("gitfile_rel/.git"),
        "gitdir: ../../outside_repo\n",
    )
    .unwrap();
    symlink(&repo, hostile_dir(&ws, "gitlink", ".git")).unwrap();
    // A worktree-like pointer inside whose commondir is a FIFO, and one whose commondir leads
    // outside.
    fs::create_dir_all(ws.root.join("gitdirs/fifo")).unwrap();
    mkfifo(&ws.root.join("gitdirs/fifo/commondir"));
    fs::write(
        hostile_dir(&ws, "wt_fifo", ".git"),
        "gitdir: ../gitdirs/fifo\n",
    )
    .unwrap();
    fs::create_dir_all(ws.root.join("gitdirs/out")).unwrap();
    fs::write(
        ws.root.join("gitdirs/out/commondir"),
        format!("{}\n", repo.display()),
    )
    .unwrap();
    fs::write(
        hostile_dir(&ws, "wt_out", ".git"),
        "gitdir: ../gitdirs/out\n",
    )
    .unwrap();
    // A real worktree layout inside: its exclude applies.
    ws.write("main/.git/info/exclude", "by_common_exclude.txt\n");
    ws.write("main/.git/worktrees/w/commondir", "../..\n");
    ws.write("wt/.git", "gitdir: ../main/.git/worktrees/w\n");
    ws.write("wt/by_common_exclude.txt", "needle\n");
    ws.write("wt/kept.txt", "needle\n");
    let mut c = start_limited(&ws);
    for dir in ["gitfile_abs", "gitfile_rel", "gitlink", "wt_fifo", "wt_out"] {
        for (is_error, text) in check_both(&mut c, dir, dir) {
            assert!(!is_error, "{dir}: {text}");
            assert!(
                text.contains(&format!("{dir}/{SECRET}")),
                "{dir}: outside rules applied: {text}"
            );
        }
    }
    let (_, text) = call(&mut c, "search_files", json!({"pattern": "*.txt"}), "wt");
    assert!(
        text.contains("wt/kept.txt") && !text.contains("wt/by_common_exclude.txt"),
        "{text}"
    );
    c.finish();
}

/// Each kind of ignore file swapped, by `renameat2(RENAME_EXCHANGE)`, with a symlink to outside
/// rules and with a FIFO while the tools run (bounded): no call hangs, and no answer that shows
/// the directory's files leaves out the one the outside rules name.
#[test]
fn ignore_files_swapped_mid_call_never_hang_or_apply_outside_rules() {
    const CALLS: usize = 60;
    for kind in KINDS {
        for partner in ["symlink", "fifo"] {
            let what = format!("{kind} swapped with a {partner}");
            let ws = Workspace::new();
            let (rules, _) = outside(&ws);
            let file = hostile_dir(&ws, "d", kind);
            fs::write(&file, "nothing_is_named_so\n").unwrap();
            let other = file.with_file_name(format!(
                "{}.swap",
                file.file_name().unwrap().to_string_lossy()
            ));
            match partner {
                "symlink" => symlink(&rules, &other).unwrap(),
                _ => mkfifo(&other),
            }
            let mut c = start_limited(&ws);
            let stop = Arc::new(AtomicBool::new(false));
            let swaps = swapper(file.clone(), other.clone(), Arc::clone(&stop), usize::MAX);
            let mut entered = 0;
            for _ in 0..CALLS / 2 {
                for (_, text) in check_both(&mut c, "d", &what) {
                    entered += usize::from(text.contains(CONTROL));
                }
            }
            stop.store(true, Ordering::Relaxed);
            let swapped = swaps.finish();
            assert!(swapped > 0, "{what}: no swap happened");
            // Some calls must have read the plain file, or the test proved nothing.
            assert!(entered > 0, "{what}: the directory was never entered");
            c.finish();
        }
    }
}

/// Thirty directories with a megabyte of globs each: building their matchers took the old walk
/// minutes per call, whatever `timeout` said. A search reads at most 20,000 rule lines; the
/// directories beyond are not entered, and the answer says so.
#[test]
fn megabytes_of_rules_cost_a_bounded_time() {
    let ws = Workspace::new();
    for d in 0..30 {
        let mut rules = String::new();
        let mut i = 0;
        while rules.len() < (1 << 20) - 100 {
            rules.push_str(&format!("**/a{d}x{i}*b*c?[0-9]*/**/*.{}x\n", i % 7));
            i += 1;
        }
        ws.write(&format!("d{d:02}/.gitignore"), rules);
        ws.write(&format!("d{d:02}/{CONTROL}"), "needle\n");
    }
    ws.write("top.txt", "needle\n");
    let mut c = start_limited(&ws);
    for (tool, args) in [
        ("search_files", json!({"pattern": "*.txt"})),
        ("grep_content", json!({"pattern": "needle", "timeout": 3})),
    ] {
        let (is_error, text) = call(&mut c, tool, args, "megabytes of rules");
        assert!(!is_error, "{tool}: {text}");
        assert!(text.contains("top.txt"), "{tool}: {text}");
        if tool == "search_files" {
            assert!(
                text.contains("directories not entered") && text.contains("20,000 lines"),
                "{tool}: {text}"
            );
        }
    }
    c.finish();
}

/// One long glob costs memory and time by its length: a single 1 MB line of `[ab]?` took 800 MB
/// to build (an abort under a 1 GiB ceiling) and, copied into 40 directories, kept
/// `search_files` busy for 95 s. A rule line over 4 KiB keeps its directory from being entered,
/// and all rules of a search together are at most 512 KiB.
#[test]
fn long_globs_cost_bounded_memory_and_time() {
    let ws = Workspace::new();
    let long_line = format!("*{}\n", "[ab]?".repeat(200_000));
    ws.write("long/.gitignore", long_line);
    ws.write(&format!("long/{CONTROL}"), "needle\n");
    // Many directories of 4 KiB lines: the byte budget, not each line, stops them.
    let line = format!("*{}\n", "[ab]?".repeat(800));
    for d in 0..200 {
        ws.write(&format!("many{d:03}/.gitignore"), line.repeat(4));
        ws.write(&format!("many{d:03}/{CONTROL}"), "needle\n");
    }
    ws.write("top.txt", "needle\n");
    let mut c = start_limited(&ws);
    for (tool, args) in [
        ("search_files", json!({"pattern": "*.txt"})),
        ("grep_content", json!({"pattern": "needle", "timeout": 10})),
    ] {
        let (is_error, text) = call(&mut c, tool, args, "long globs");
        assert!(!is_error, "{tool}: {text}");
        assert!(text.contains("top.txt"), "{tool}: {text}");
        assert!(!text.contains("long/"), "{tool}: {text}");
    }
    // Still serving.
    let (is_error, text) = call(
        &mut c,
        "search_files",
        json!({"pattern": "top.txt"}),
        "after long globs",
    );
    assert!(!is_error && text.contains("top.txt"), "{text}");
    c.finish();
}

/// The `.git` directory itself swapped with a `.git` symlink to an outside repository while the
/// tools run: the outside repository's exclude never applies.
#[test]
fn a_git_directory_swapped_with_a_link_to_an_outside_repository_never_applies_its_rules() {
    const CALLS: usize = 60;
    let ws = Workspace::new();
    let (_, repo) = outside(&ws);
    hostile_dir(&ws, "d", ".git");
    ws.write("d/.git/info/exclude", "nothing_is_named_so\n");
    let other = ws.root.join("d/.git_swap");
    symlink(&repo, &other).unwrap();
    let mut c = start_limited(&ws);
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = swapper(ws.root.join("d/.git"), other, Arc::clone(&stop), usize::MAX);
    let mut entered = 0;
    for _ in 0..CALLS / 2 {
        for (_, text) in check_both(&mut c, "d", ".git swapped with a symlink") {
            entered += usize::from(text.contains(CONTROL));
        }
    }
    stop.store(true, Ordering::Relaxed);
    assert!(swaps.finish() > 0);
    assert!(entered > 0, "the directory was never entered");
    c.finish();
}
