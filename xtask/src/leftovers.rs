//! Nothing a test run starts may outlive it. `cargo xtask test` marks its own environment with
//! `FS_MCP_TEST_RUN=<mark>` before it starts anything, so every process of the run (cargo, the
//! test binaries, the servers, clients, agent CLIs and browsers they start, in whatever session
//! or process group) inherits the mark; when the run ends (passed, failed or interrupted), the
//! processes still carrying it are listed, killed, and counted as a failure.

use std::sync::atomic::{AtomicBool, Ordering};

const VARIABLE: &str = "FS_MCP_TEST_RUN";

/// Set by SIGINT, SIGTERM or SIGHUP: the run stops after the step under way, then sweeps.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Marks this process's environment (inherited by everything it starts from now on) and
/// catches the signals that interrupt a run, so the sweep still happens. Call it first, while
/// the process has one thread.
pub fn mark_run() -> String {
    let mark = format!(
        "{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default()
    );
    #[allow(unsafe_code)]
    // SAFETY: called at the start of `cargo xtask test`, before any other thread exists, so no
    // thread reads the environment while it changes; the handler only stores to an atomic.
    unsafe {
        std::env::set_var(VARIABLE, &mark);
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            libc::signal(signal, on_signal as *const () as libc::sighandler_t);
        }
    }
    mark
}

extern "C" fn on_signal(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// True once the run was interrupted.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Every process other than this one whose environment carries `mark`, each as
/// `pid: command line`, after sending it SIGKILL.
pub fn end_marked(mark: &str) -> Vec<String> {
    let wanted = format!("{VARIABLE}={mark}");
    let me = std::process::id();
    let mut ended = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse::<u32>().ok())
            .filter(|&pid| pid != me)
        else {
            continue;
        };
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if !environ
            .split(|&b| b == 0)
            .any(|pair| pair == wanted.as_bytes())
        {
            continue;
        }
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let Ok(pid_t) = libc::pid_t::try_from(pid) else {
            continue;
        };
        #[allow(unsafe_code)]
        // SAFETY: kill(2) on one process id that was just read from /proc.
        unsafe {
            libc::kill(pid_t, libc::SIGKILL);
        }
        ended.push(format!(
            "{pid}: {}",
            String::from_utf8_lossy(&cmdline)
                .replace('\0', " ")
                .trim_end()
        ));
    }
    ended
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader};
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};

    use super::*;

    #[test]
    fn a_marked_process_in_a_session_of_its_own_is_found_and_ended() {
        let mark = format!("sweep-test-{}", std::process::id());
        // A shell and the `sleep` it started (which killing the shell alone would leave running),
        // in a process group of their own.
        let mut child = Command::new("sh")
            .args(["-c", "sleep 60 & echo started; wait"])
            .env(VARIABLE, &mark)
            .stdout(Stdio::piped())
            .process_group(0)
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(line, "started\n");
        let mut unmarked = Command::new("sleep").arg("60").spawn().unwrap();

        let ended = end_marked(&mark);
        assert_eq!(ended.len(), 2, "{ended:?}");
        assert!(child.wait().is_ok());
        // A killed process is not found again once it has exited.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while !end_marked(&mark).is_empty() {
            assert!(
                std::time::Instant::now() < deadline,
                "still found after SIGKILL"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(
            unmarked.try_wait().unwrap().is_none(),
            "an unmarked process is left alone"
        );
        let _ = unmarked.kill();
        let _ = unmarked.wait();
    }
}
