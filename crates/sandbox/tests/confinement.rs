//! Attacks on the handle-based sandbox: a directory swapped for a symlink to outside with
//! `renameat2(RENAME_EXCHANGE)` while paths are opened, FIFOs and devices, escaped names.

// Test code: a panic is how a test reports failure, and clippy's allow-unwrap-in-tests
// does not reach helpers outside #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;

use fs_mcp_sandbox::testing::{Fixture, write_at};
use fs_mcp_sandbox::{AccessError, EntryKind};

/// The shared fixture with `race/secret.txt` inside, `secret.txt` outside, and `swap`, a symlink
/// to outside, that the race tests exchange with `race`.
fn fixture() -> Fixture {
    let fx = Fixture::new();
    fx.write("race/secret.txt", "INSIDE");
    write_at(&fx.outside, "secret.txt", "OUTSIDE");
    fx.symlink(&fx.outside, "swap");
    fx
}

/// Swaps `a` and `b` atomically, over and over, on a thread of its own until stopped (at most
/// `max` swaps). Dropping it stops and joins the thread, so the thread never outlives the fixture
/// (it is declared after the fixture, and so dropped first), even when the test panics; a swap
/// that fails ends the loop instead of panicking on a fixture being removed.
struct Swapper {
    stop: Arc<AtomicBool>,
    thread: Option<thread::JoinHandle<Result<usize, String>>>,
}

impl Swapper {
    fn start(a: PathBuf, b: PathBuf, max: usize) -> Swapper {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = thread::spawn(move || {
            let mut swaps = 0;
            while !flag.load(Ordering::Relaxed) && swaps < max {
                rustix::fs::renameat_with(
                    rustix::fs::CWD,
                    &a,
                    rustix::fs::CWD,
                    &b,
                    rustix::fs::RenameFlags::EXCHANGE,
                )
                .map_err(|e| format!("swap {swaps} failed: {e}"))?;
                swaps += 1;
            }
            Ok(swaps)
        });
        Swapper {
            stop,
            thread: Some(thread),
        }
    }

    /// Stops the swapping and says how many swaps were made.
    fn finish(mut self) -> usize {
        self.stop.store(true, Ordering::Relaxed);
        let thread = self.thread.take().unwrap();
        thread.join().unwrap().unwrap()
    }
}

impl Drop for Swapper {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// An error a swap caused must be a refusal or "changed, try again"; never a raw OS error.
fn expect_race_refusal(error: AccessError) {
    assert!(
        matches!(
            error,
            AccessError::Outside { .. } | AccessError::Changed { .. }
        ),
        "unexpected error: {error} ({error:?})"
    );
}

#[test]
fn reads_never_leave_while_a_directory_is_swapped_for_a_symlink() {
    let fx = fixture();
    let racer = Swapper::start(fx.root.join("race"), fx.root.join("swap"), 200_000);
    let (mut inside, mut refused) = (0, 0);
    for _ in 0..3000 {
        match fx.sandbox.open_file("race/secret.txt") {
            Ok(mut opened) => {
                let mut text = String::new();
                opened.file.read_to_string(&mut text).unwrap();
                assert_eq!(
                    text, "INSIDE",
                    "read outside content through {:?}",
                    opened.path
                );
                assert!(opened.path.starts_with(&fx.root));
                inside += 1;
            }
            Err(e) => {
                expect_race_refusal(e);
                refused += 1;
            }
        }
        if let Err(e) = fx.sandbox.open_dir("race") {
            expect_race_refusal(e);
        }
    }
    let swaps = racer.finish();
    assert!(
        swaps > 0 && inside > 0 && refused > 0,
        "swaps {swaps} inside {inside} refused {refused}"
    );
}

#[test]
fn writes_never_land_outside_while_a_directory_is_swapped() {
    let fx = fixture();
    let racer = Swapper::start(fx.root.join("race"), fx.root.join("swap"), 200_000);
    for i in 0..1500 {
        let name = format!("race/new{i}.txt");
        match fx.sandbox.write_target(&name, false) {
            Ok(target) => {
                assert!(target.path.starts_with(&fx.root));
                if let Ok(mut file) = target.dir.create_new(&target.name, 0o644) {
                    file.write_all(b"x").unwrap();
                }
            }
            Err(e) => expect_race_refusal(e),
        }
        match fx.sandbox.create_dir_all(&format!("race/d{i}/e")) {
            Ok((dir, _)) => assert!(dir.path().starts_with(&fx.root)),
            Err(e) => expect_race_refusal(e),
        }
    }
    racer.finish();
    let leaked: Vec<_> = fs::read_dir(&fx.outside)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n != "secret.txt")
        .collect();
    assert!(leaked.is_empty(), "created outside: {leaked:?}");
}

#[test]
fn walked_paths_never_follow_a_swapped_component() {
    let fx = fixture();
    let racer = Swapper::start(fx.root.join("race"), fx.root.join("swap"), 200_000);
    let walked = fx.root.join("race/secret.txt");
    for _ in 0..3000 {
        match fx.sandbox.open_walked(&walked) {
            Ok(mut opened) => {
                let mut text = String::new();
                opened.file.read_to_string(&mut text).unwrap();
                assert_eq!(text, "INSIDE");
            }
            Err(e) => expect_race_refusal(e),
        }
        match fx.sandbox.open_walked_dir(&fx.root.join("race")) {
            Ok(dir) => {
                let names: Vec<_> = dir.entries().unwrap().into_iter().map(|e| e.name).collect();
                assert!(
                    names
                        .iter()
                        .all(|n| !n.to_string_lossy().starts_with("outside-only"))
                );
            }
            Err(e) => expect_race_refusal(e),
        }
    }
    racer.finish();
}

#[test]
fn fifos_sockets_and_devices_are_refused_without_blocking() {
    let fx = fixture();
    let fifo = fx.root.join("pipe");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    match fx.sandbox.open_file("pipe") {
        Err(AccessError::NotRegular { kind, .. }) => assert_eq!(kind, EntryKind::Fifo),
        other => panic!("{other:?}"),
    }
    let msg = fx.sandbox.open_file("pipe").unwrap_err().to_string();
    assert_eq!(msg, "pipe: not a regular file (a named pipe (FIFO))");
    let _listener = std::os::unix::net::UnixListener::bind(fx.root.join("sock")).unwrap();
    assert!(matches!(
        fx.sandbox.open_file("sock"),
        Err(AccessError::NotRegular {
            kind: EntryKind::Socket,
            ..
        })
    ));
    symlink("/dev/null", fx.root.join("null")).unwrap();
    assert!(matches!(
        fx.sandbox.open_file("null"),
        Err(AccessError::Outside { .. })
    ));
    assert!(matches!(
        fx.sandbox.open_file("race"),
        Err(AccessError::NotRegular {
            kind: EntryKind::Dir,
            ..
        })
    ));
}

#[test]
fn escaped_names_round_trip_to_the_same_file() {
    let fx = fixture();
    use std::os::unix::ffi::OsStrExt;
    let odd = Path::new(std::ffi::OsStr::from_bytes(b"bad\xff.txt"));
    fs::write(fx.root.join(odd), "odd bytes").unwrap();
    fs::write(fx.root.join("bad\u{fffd}.txt"), "lossy twin").unwrap();
    fs::write(fx.root.join("evil\nname.txt"), "newline").unwrap();
    let shown = fx.sandbox.display(&fx.root.join(odd));
    assert_eq!(shown, "bad\\xff.txt");
    let mut text = String::new();
    fx.sandbox
        .open_file(&shown)
        .unwrap()
        .file
        .read_to_string(&mut text)
        .unwrap();
    assert_eq!(text, "odd bytes");
    let shown = fx.sandbox.display(&fx.root.join("evil\nname.txt"));
    assert_eq!(shown, "evil\\nname.txt");
    text.clear();
    fx.sandbox
        .open_file(&shown)
        .unwrap()
        .file
        .read_to_string(&mut text)
        .unwrap();
    assert_eq!(text, "newline");
}

#[test]
fn symlinks_inside_keep_working_absolute_and_relative() {
    let fx = fixture();
    symlink(fx.root.join("race"), fx.root.join("abs-link")).unwrap();
    symlink("race/secret.txt", fx.root.join("rel-file")).unwrap();
    let mut text = String::new();
    fx.sandbox
        .open_file("abs-link/secret.txt")
        .unwrap()
        .file
        .read_to_string(&mut text)
        .unwrap();
    assert_eq!(text, "INSIDE");
    text.clear();
    fx.sandbox
        .open_file("rel-file")
        .unwrap()
        .file
        .read_to_string(&mut text)
        .unwrap();
    assert_eq!(text, "INSIDE");
    assert!(fx.sandbox.open_file("swap/secret.txt").is_err());
}

#[test]
fn a_read_only_sandbox_refuses_every_write() {
    let fx = fixture();
    let sandbox = fx.sandbox.clone().with_read_only(true);
    assert!(matches!(
        sandbox.write_target("race/new.txt", true),
        Err(AccessError::ReadOnly { .. })
    ));
    assert!(matches!(
        sandbox.create_dir_all("newdir"),
        Err(AccessError::ReadOnly { .. })
    ));
    assert!(sandbox.open_file("race/secret.txt").is_ok());
    assert!(!fx.root.join("newdir").exists());
}

#[test]
fn a_directory_lock_excludes_other_clones_of_the_same_handle() {
    let fx = fixture();
    let root = fx.sandbox.root_handles()[0].clone();
    let guard = root.lock().unwrap();
    // Another clone shares the root's descriptor: its flock must still see the lock as taken.
    let other = fx.sandbox.root_handles()[0].clone();
    let err = rustix::fs::flock(
        other.fd(),
        rustix::fs::FlockOperation::NonBlockingLockExclusive,
    )
    .unwrap_err();
    assert_eq!(err, rustix::io::Errno::WOULDBLOCK);
    drop(guard);
    rustix::fs::flock(
        other.fd(),
        rustix::fs::FlockOperation::NonBlockingLockExclusive,
    )
    .unwrap();
    rustix::fs::flock(other.fd(), rustix::fs::FlockOperation::Unlock).unwrap();
}
