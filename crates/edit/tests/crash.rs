//! A process killed (SIGKILL) in the middle of a commit leaves the old file or the new one,
//! never a truncated or mixed file.
//!
//! This test binary (`harness = false`) re-runs itself as a child that commits two large
//! versions of a file (rendered in the file's CRLF style, as a commit does) in a loop through
//! the crate's atomic writer (by directory handle, as every commit writes); the parent kills it at random moments and checks the file after
//! every kill.

// Test code: a panic is how a test reports failure, and clippy's allow-unwrap-in-tests
// does not reach helpers outside #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::hash_map::RandomState;
use std::fs;
use std::hash::{BuildHasher, Hasher};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use fs_mcp_edit::atomic::{Replace, replace_in};
use fs_mcp_edit::text_style::{TextStyle, to_model};
use fs_mcp_sandbox::DirHandle;

const CHILD_ENV: &str = "FS_MCP_EDIT_CRASH_CHILD";
const KILLS: usize = 30;

/// Two versions of ~4 MiB, CRLF, different lengths.
fn versions() -> (String, String) {
    let mut old = String::new();
    let mut new = String::new();
    for i in 0..60_000 {
        old.push_str(&format!("old line {i:06} with some padding text here\r\n"));
        new.push_str(&format!(
            "NEW line {i:06} with other padding, a bit longer!\r\n"
        ));
    }
    (old, new)
}

fn random_below(n: u64) -> u64 {
    let mut h = RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    h.finish() % n
}

fn child(path: &Path) -> ExitCode {
    let (old, new) = versions();
    // Rendered once, as a commit renders the model's LF text back into the file's CRLF style.
    let style = TextStyle::detect(&old);
    let old_bytes = style.render(&to_model(&old)).into_bytes();
    let new_bytes = style.render(&to_model(&new)).into_bytes();
    // Tell the parent the expensive set-up is done and the commits start now.
    {
        use std::io::Write;
        let mut out = std::io::stdout();
        let _ = out.write_all(b"ready\n");
        let _ = out.flush();
    }
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        eprintln!("child: {} has no parent", path.display());
        return ExitCode::FAILURE;
    };
    let dir = match DirHandle::open_root(parent) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("child: cannot open {}: {e}", parent.display());
            return ExitCode::FAILURE;
        }
    };
    loop {
        for bytes in [&new_bytes, &old_bytes] {
            let written = dir
                .stat(name)
                .and_then(|meta| replace_in(&dir, name, bytes, Replace::Existing(meta)));
            if let Err(e) = written {
                eprintln!("child: write failed: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
}

fn main() -> ExitCode {
    if let Some(path) = std::env::var_os(CHILD_ENV) {
        return child(&PathBuf::from(path));
    }
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("crash test: no temp dir: {e}");
            return ExitCode::FAILURE;
        }
    };
    let path = dir.path().join("big.txt");
    let (old, new) = versions();
    if let Err(e) = fs::write(&path, &old) {
        eprintln!("crash test: {e}");
        return ExitCode::FAILURE;
    }
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("crash test: {e}");
            return ExitCode::FAILURE;
        }
    };
    let started = Instant::now();
    let (mut saw_old, mut saw_new) = (0, 0);
    for i in 0..KILLS {
        let mut child = match Command::new(&exe)
            .env(CHILD_ENV, &path)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
        {
            Ok(c) => c,
            Err(e) => {
                eprintln!("crash test: cannot start the child: {e}");
                return ExitCode::FAILURE;
            }
        };
        if let Some(out) = child.stdout.as_mut() {
            let mut buf = [0u8; 6];
            let _ = std::io::Read::read_exact(out, &mut buf);
        }
        std::thread::sleep(Duration::from_micros(random_below(150_000)));
        // SIGKILL: no destructor, no cleanup runs in the child.
        let _ = child.kill();
        let _ = child.wait();
        let now = match fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("crash test: after kill {i} the file is unreadable: {e}");
                return ExitCode::FAILURE;
            }
        };
        if now == old.as_bytes() {
            saw_old += 1;
        } else if now == new.as_bytes() {
            saw_new += 1;
        } else {
            eprintln!(
                "crash test: after kill {i} the file is neither version ({} bytes; old {}, new {})",
                now.len(),
                old.len(),
                new.len()
            );
            return ExitCode::FAILURE;
        }
    }
    let leftovers = fs::read_dir(dir.path())
        .map(|r| r.count().saturating_sub(1))
        .unwrap_or(0);
    println!(
        "crash test: {KILLS} SIGKILLs during commits, file intact every time (old {saw_old}, new {saw_new}; {leftovers} stray temp files) in {:.1?}",
        started.elapsed()
    );
    ExitCode::SUCCESS
}
