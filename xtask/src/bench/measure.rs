//! Timing statistics, waiting for children, and resident-memory sampling of a process tree
//! through `/proc`.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

/// Median, minimum and maximum of a set of timings.
#[derive(Debug, Clone, Copy)]
pub struct Stats {
    pub runs: usize,
    pub median: Duration,
    pub min: Duration,
    pub max: Duration,
}

impl Stats {
    /// `None` for no samples. The median of an even count is the mean of the middle two.
    pub fn of(samples: &[Duration]) -> Option<Stats> {
        let mut sorted = samples.to_vec();
        sorted.sort();
        let n = sorted.len();
        let (&min, &max) = (sorted.first()?, sorted.last()?);
        let median = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            (sorted[n / 2 - 1] + sorted[n / 2]) / 2
        };
        Some(Stats {
            runs: n,
            median,
            min,
            max,
        })
    }
}

/// A duration for people: `0.84 ms`, `12.3 ms`, `1.52 s`.
pub fn fmt_duration(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1e3;
    if ms < 10.0 {
        format!("{ms:.2} ms")
    } else if ms < 1000.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{:.2} s", ms / 1e3)
    }
}

/// Kibibytes for people: `64 KB`, `7.9 MB`, `1.23 GB` (binary units, as /proc reports them).
pub fn fmt_kb(kb: u64) -> String {
    let mb = kb as f64 / 1024.0;
    if kb < 1024 {
        // Only the size of a --quick input is this small.
        format!("{kb} KB")
    } else if mb < 1024.0 {
        format!("{mb:.1} MB")
    } else {
        format!("{:.2} GB", mb / 1024.0)
    }
}

/// How a waited-for child ended.
///
/// (No `wait4` maxrss: for a child started with `vfork`+`exec`, as `std::process` does, Linux
/// folds the parent's RSS high-water mark into the child's, so memory is sampled from `/proc`.)
#[derive(Debug, Clone, Copy, Default)]
pub struct Exit {
    /// Exit code, or `None` when killed by a signal (or unknown).
    pub code: Option<i32>,
}

/// One `waitpid` call; `Ok(None)` when `nohang` and the child is still running.
fn waitpid(pid: u32, nohang: bool) -> anyhow::Result<Option<Exit>> {
    let pid = libc::pid_t::try_from(pid).context("pid out of range")?;
    loop {
        let mut status: libc::c_int = 0;
        let flags = if nohang { libc::WNOHANG } else { 0 };
        // libc: no dependency of xtask wraps waitpid safely.
        #[allow(unsafe_code)]
        // SAFETY: `waitpid` only writes the status through the pointer, which points at a live
        // local.
        let ret = unsafe { libc::waitpid(pid, &mut status, flags) };
        if ret == pid {
            let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
            return Ok(Some(Exit { code }));
        }
        if ret == 0 {
            return Ok(None);
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(err).with_context(|| format!("waitpid({pid})"));
        }
    }
}

/// Waits for `pid` to exit, up to `timeout`; `None` if it is still running then.
pub fn wait_with_timeout(pid: u32, timeout: Duration) -> anyhow::Result<Option<Exit>> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(exit) = waitpid(pid, true)? {
            return Ok(Some(exit));
        }
        if Instant::now() >= deadline {
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Waits for `pid` to exit.
pub fn wait_blocking(pid: u32) -> anyhow::Result<Exit> {
    waitpid(pid, false)?.context("waitpid returned without a status")
}

/// A `kB` field of `/proc/PID/status` (`VmRSS`, `VmHWM`).
fn status_kb(pid: u32, field: &str) -> Option<u64> {
    let file = File::open(format!("/proc/{pid}/status")).ok()?;
    for line in BufReader::new(file).lines() {
        let line = line.ok()?;
        if let Some(rest) = line.strip_prefix(field)
            && let Some(value) = rest.strip_prefix(':')
        {
            return value.trim().trim_end_matches("kB").trim().parse().ok();
        }
    }
    None
}

/// Current resident set of one process, in kB.
pub fn rss_kb(pid: u32) -> Option<u64> {
    status_kb(pid, "VmRSS")
}

/// Peak resident set of one process since start (or since [`reset_hwm`]), in kB.
pub fn hwm_kb(pid: u32) -> Option<u64> {
    status_kb(pid, "VmHWM")
}

/// Resets the process's VmHWM to its current RSS (`echo 5 > /proc/PID/clear_refs`).
pub fn reset_hwm(pid: u32) -> bool {
    std::fs::write(format!("/proc/{pid}/clear_refs"), b"5").is_ok()
}

/// Direct children of `pid`: from `/proc/PID/task/*/children`, or by scanning every
/// `/proc/*/stat` when the kernel lacks that file.
fn children_of(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    if let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) {
        let mut any = false;
        for task in tasks.flatten() {
            if let Ok(text) = std::fs::read_to_string(task.path().join("children")) {
                any = true;
                out.extend(
                    text.split_whitespace()
                        .filter_map(|p| p.parse::<u32>().ok()),
                );
            }
        }
        if any {
            return out;
        }
    }
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in entries.flatten() {
        let Some(child) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // Fields after the command name (which may hold spaces) start after the last ')'.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        if ppid == Some(pid) {
            out.push(child);
        }
    }
    out
}

/// `root` and all its descendants.
pub fn tree_pids(root: u32) -> Vec<u32> {
    let mut all = vec![root];
    let mut i = 0;
    while i < all.len() {
        let kids = children_of(all[i]);
        all.extend(kids);
        i += 1;
    }
    all
}

/// Sum of the current resident sets of `root` and its descendants, in kB.
pub fn tree_rss_kb(root: u32) -> u64 {
    tree_pids(root).into_iter().filter_map(rss_kb).sum()
}

#[derive(Debug, Default)]
struct Peaks {
    /// Largest sum of VmRSS over the tree seen in one sample.
    tree_sum_kb: u64,
    /// Largest VmHWM of any process of the tree seen (catches short peaks between samples).
    hwm_kb: u64,
}

/// Samples the resident memory of a process tree in a background thread.
pub struct RssSampler {
    root: u32,
    stop: Arc<AtomicBool>,
    peaks: Arc<Mutex<Peaks>>,
    handle: Option<JoinHandle<()>>,
}

impl RssSampler {
    pub fn start(root: u32, interval: Duration) -> anyhow::Result<RssSampler> {
        let stop = Arc::new(AtomicBool::new(false));
        let peaks = Arc::new(Mutex::new(Peaks::default()));
        let (thread_stop, thread_peaks) = (Arc::clone(&stop), Arc::clone(&peaks));
        let handle = std::thread::Builder::new()
            .name("rss-sampler".into())
            .spawn(move || {
                while !thread_stop.load(Ordering::Relaxed) {
                    let pids = tree_pids(root);
                    let sum: u64 = pids.iter().filter_map(|&p| rss_kb(p)).sum();
                    let hwm = pids.iter().filter_map(|&p| hwm_kb(p)).max().unwrap_or(0);
                    {
                        let mut p = thread_peaks.lock().unwrap_or_else(PoisonError::into_inner);
                        p.tree_sum_kb = p.tree_sum_kb.max(sum);
                        p.hwm_kb = p.hwm_kb.max(hwm);
                    }
                    std::thread::sleep(interval);
                }
            })
            .context("cannot start the RSS sampler thread")?;
        Ok(RssSampler {
            root,
            stop,
            peaks,
            handle: Some(handle),
        })
    }

    /// Starts a new measurement window: forgets the peaks so far and resets the root's VmHWM.
    pub fn begin(&self) {
        reset_hwm(self.root);
        let mut p = self.peaks.lock().unwrap_or_else(PoisonError::into_inner);
        *p = Peaks::default();
        p.tree_sum_kb = tree_rss_kb(self.root);
    }

    /// Peak resident memory of the tree since [`RssSampler::begin`] (or the start), in kB: the
    /// larger of the sampled tree sum and any process's own high-water mark.
    pub fn peak_kb(&self) -> u64 {
        let p = self.peaks.lock().unwrap_or_else(PoisonError::into_inner);
        let root_hwm = hwm_kb(self.root).unwrap_or(0);
        p.tree_sum_kb.max(p.hwm_kb).max(root_hwm)
    }
}

impl Drop for RssSampler {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}

/// An external command run to completion.
#[derive(Debug)]
pub struct CommandRun {
    /// Spawn to exit, with all of stdout read.
    pub elapsed: Duration,
    pub exit: Exit,
    /// Peak RSS of the command (and its children), sampled every millisecond, in kB.
    pub peak_kb: u64,
    pub stdout_bytes: u64,
    /// Lines of stdout starting with the given prefix.
    pub prefixed_lines: u64,
    /// The first `keep` bytes of stdout.
    pub head: Vec<u8>,
    /// Killed after `stop_after` prefixed lines.
    pub stopped: bool,
}

/// Runs `command`, reading its stdout as it comes (counting lines that start with `prefix`,
/// keeping the first `keep` bytes), its stderr appended to `log`. With `stop_after`, the command
/// is killed once that many prefixed lines were read, and `elapsed` ends at that line.
pub fn run_command(
    command: &mut Command,
    prefix: &[u8],
    keep: usize,
    stop_after: Option<u64>,
    log: &Path,
) -> anyhow::Result<CommandRun> {
    let stderr = File::options()
        .create(true)
        .append(true)
        .open(log)
        .with_context(|| format!("cannot open {}", log.display()))?;
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(stderr);
    let shown = format!("{command:?}");
    let start = Instant::now();
    let mut child = command
        .spawn()
        .with_context(|| format!("cannot run {shown}"))?;
    let sampler = RssSampler::start(child.id(), Duration::from_millis(1))?;
    let stdout = child.stdout.take().context("no stdout pipe")?;
    let mut reader = BufReader::with_capacity(1 << 20, stdout);
    let (mut bytes, mut lines, mut head) = (0u64, 0u64, Vec::new());
    let mut buf = Vec::with_capacity(4096);
    let mut stopped_at = None;
    loop {
        buf.clear();
        let n = reader
            .read_until(b'\n', &mut buf)
            .with_context(|| format!("reading the output of {shown}"))?;
        if n == 0 {
            break;
        }
        bytes += n as u64;
        if !prefix.is_empty() && buf.starts_with(prefix) {
            lines += 1;
        }
        if head.len() < keep {
            let take = (keep - head.len()).min(buf.len());
            head.extend_from_slice(&buf[..take]);
        }
        if stop_after.is_some_and(|n| lines >= n) {
            stopped_at = Some(start.elapsed());
            let _ = child.kill();
            break;
        }
    }
    drop(reader);
    let peak_kb = sampler.peak_kb();
    let exit = wait_blocking(child.id())?;
    let elapsed = stopped_at.unwrap_or_else(|| start.elapsed());
    drop(sampler);
    if exit.code.is_none() && stopped_at.is_none() {
        bail!("{shown} was killed by a signal");
    }
    Ok(CommandRun {
        elapsed,
        exit,
        peak_kb,
        stdout_bytes: bytes,
        prefixed_lines: lines,
        head,
        stopped: stopped_at.is_some(),
    })
}
