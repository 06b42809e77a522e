//! One change, many files: a proposal whose `edits` name several files is one review and one
//! commit that writes all of them or none.
//!
//! The commit locates every file by handle, locks every directory involved (each once, in
//! device/inode order, so two commits never wait on each other in a cycle), and under those
//! locks checks every file against what the proposal saw (compare-and-swap). Any difference:
//! nothing is written and the conflict names the file. Otherwise each new content goes to a
//! temporary file in its directory (fsynced), then a journal naming every temporary file is
//! written and fsynced (the commit point), then the temporary files are renamed into place one
//! by one, and the journal is removed. Each rename is atomic, so every file is always either old
//! or new; a crash between renames leaves the journal behind, and the next call of any server
//! process rolls it forward (renames the temporary files that are still there) and says which
//! files it completed.

use std::ffi::OsString;
use std::fs;
use std::io::{self, Write};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use fs_mcp_sandbox::{DirHandle, EntryKind, FinalLink, Sandbox};
use serde::{Deserialize, Serialize};

use crate::atomic::{NewDirs, Replace, WriteReport, write_temp};
use crate::commit::{self, CommitFail, Current, ReadMode, identity, read_current};
use crate::committed::{CommitInfo, commit_failure, model_of};
use crate::diff::{DiffVersion, VersionDiff};
use crate::error::{AccessThen, EditError, Failure, NextStep};
use crate::outcome::{CrashCompleted, NotCompleted};
use crate::session::{FileIdentity, Fingerprint, MAX_FILE_BYTES, Registry};

/// The journal's file name in a sessions directory.
const JOURNAL: &str = "commit-journal.json";

/// Test-only fault injection: abort the process after this many renames of a multi-file commit
/// (to prove a crash mid-commit leaves every file old or new and is completed by the next call).
pub(crate) const CRASH_AFTER_RENAMES_ENV: &str = "FS_MCP_TEST_CRASH_AFTER_RENAMES";

/// One file of a multi-file commit.
pub(crate) struct Item {
    pub shown: String,
    pub identity: FileIdentity,
    /// What the proposal saw (`None`: the file did not exist).
    pub base: Option<Fingerprint>,
    pub base_model: String,
    pub bytes: Vec<u8>,
    pub target: PathBuf,
}

#[derive(Debug, Serialize, Deserialize)]
struct JournalEntry {
    /// The path as the client gave it (located again through the sandbox on recovery).
    shown: String,
    /// The temporary file's name (bytes), in the file's directory.
    temp: Vec<u8>,
    /// The final name (bytes).
    name: Vec<u8>,
    /// Device and inode of the file's directory: recovery renames only in that very directory.
    dir: (u64, u64),
}

/// What a server process writes before the renames of a multi-file commit, so that the next
/// process of the same workspace can complete them after a crash.
#[derive(Debug, Serialize, Deserialize)]
struct Journal {
    pid: u32,
    /// The allowed directories of the server that wrote it: only a server with the same ones
    /// completes it (another workspace's server leaves it alone).
    roots: Vec<PathBuf>,
    entries: Vec<JournalEntry>,
}

/// Where an item's file is: its directory and its name.
struct Located {
    dir: DirHandle,
    name: OsString,
}

/// Where an item's path leads now, checked against where it led when the change was proposed;
/// nothing is created yet, so every item is judged against the tree the proposal saw (two new
/// files in one new directory: the second is not judged after the first made the directory).
fn find(sandbox: &Sandbox, item: &Item) -> Result<fs_mcp_sandbox::Located, EditError> {
    let fail = |fail: CommitFail<EditError>| {
        commit_failure(fail, sandbox, &item.shown, &item.target, None, None)
    };
    sandbox
        .refuse_if_read_only(&item.shown)
        .map_err(|e| fail(CommitFail::Access(e)))?;
    let located = sandbox
        .locate(&item.shown, FinalLink::Follow)
        .map_err(|e| fail(CommitFail::Access(e)))?;
    let dir_meta = located.dir.meta().map_err(|e| fail(CommitFail::Io(e)))?;
    if !item.identity.is(identity(&dir_meta), &located.rest) {
        return Err(fail(CommitFail::Moved { now: located.path }));
    }
    if located.rest.is_empty() {
        return Err(fail(CommitFail::NotRegular(fs_mcp_sandbox::EntryKind::Dir)));
    }
    Ok(located)
}

/// Every item found first, then the missing directories made (removed again when the change is
/// not written).
fn locate_all(sandbox: &Sandbox, items: &[Item]) -> Result<(Vec<Located>, NewDirs), EditError> {
    let found: Vec<fs_mcp_sandbox::Located> = items
        .iter()
        .map(|item| find(sandbox, item))
        .collect::<Result<_, _>>()?;
    let mut new_dirs = NewDirs::default();
    let mut located = Vec::with_capacity(items.len());
    for (item, found) in items.iter().zip(found) {
        let mut rest = found.rest;
        let name = rest.pop().unwrap_or_default();
        let dir = new_dirs.create_below(found.dir, &rest).map_err(|e| {
            commit_failure(
                CommitFail::Io(e),
                sandbox,
                &item.shown,
                &item.target,
                None,
                None,
            )
        })?;
        located.push(Located { dir, name });
    }
    Ok((located, new_dirs))
}

fn conflict(item: &Item, now: &Current, leader: &Path) -> EditError {
    EditError::new(Failure::MultiFileConflict {
        path: item.shown.clone(),
    })
    .with_next(NextStep::ReadAndProposeAgain { path: None })
    .with_diff(VersionDiff::new(
        &item.shown,
        (DiffVersion::WhenProposed, &item.base_model),
        (DiffVersion::OnDiskNow, &model_of(now)),
    ))
    .with_session_path(leader.display().to_string())
}

/// Writes every item or none (see the module documentation). `journal_dir` is the sessions
/// directory.
pub(crate) fn commit_all(
    sandbox: &Sandbox,
    items: &[Item],
    journal_dir: &Path,
    leader: &Path,
) -> Result<WriteReport, EditError> {
    for _ in 0..commit::MAX_ATTEMPTS {
        if let Some(done) = attempt(sandbox, items, journal_dir, leader)? {
            return Ok(done);
        }
    }
    Err(EditError::new(Failure::FilesKeptChanging)
        .with_next(NextStep::ReadAndProposeAgain { path: None }))
}

fn attempt(
    sandbox: &Sandbox,
    items: &[Item],
    journal_dir: &Path,
    leader: &Path,
) -> Result<Option<WriteReport>, EditError> {
    let (located, new_dirs) = locate_all(sandbox, items)?;
    let io_error = |e: io::Error| EditError::new(Failure::CommitChange { error: e.into() });
    // Every directory once, in a fixed order.
    let mut dirs: Vec<((u64, u64), &DirHandle)> = located
        .iter()
        .map(|l| Ok((identity(&l.dir.meta()?), &l.dir)))
        .collect::<io::Result<_>>()
        .map_err(io_error)?;
    dirs.sort_by_key(|(id, _)| *id);
    dirs.dedup_by_key(|(id, _)| *id);
    let _locks: Vec<_> = dirs
        .iter()
        .map(|(_, d)| d.lock())
        .collect::<io::Result<_>>()
        .map_err(io_error)?;
    // Under the locks: every path still leads here, and every file is what the proposal saw.
    let mut currents = Vec::with_capacity(items.len());
    for (item, l) in items.iter().zip(&located) {
        let again = sandbox
            .locate(&item.shown, FinalLink::Follow)
            .map_err(|e| EditError::access(e, AccessThen::NothingWritten))?;
        if again.rest.as_slice() != [l.name.clone()]
            || identity(&again.dir.meta().map_err(io_error)?)
                != identity(&l.dir.meta().map_err(io_error)?)
        {
            return Ok(None);
        }
        let current = match read_current::<EditError>(
            &l.dir,
            &l.name,
            ReadMode::Whole {
                limit: MAX_FILE_BYTES,
            },
        ) {
            Ok(Some(c)) => c,
            Ok(None) => return Ok(None),
            Err(fail) => {
                return Err(commit_failure(
                    fail,
                    sandbox,
                    &item.shown,
                    &item.target,
                    None,
                    None,
                ));
            }
        };
        let now = current.exists().then(|| Fingerprint::of(&current.bytes));
        if now != item.base {
            return Err(conflict(item, &current, leader));
        }
        currents.push(current);
    }
    // Every new content next to its file; a failure removes what was written.
    let mut temps: Vec<OsString> = Vec::with_capacity(items.len());
    let cleanup = |temps: &[OsString]| {
        for (t, l) in temps.iter().zip(&located) {
            let _ = l.dir.unlink(t);
        }
    };
    for ((item, l), current) in items.iter().zip(&located).zip(&currents) {
        let mode = current.meta.map_or(Replace::New, Replace::Existing);
        match write_temp(&l.dir, &l.name, &item.bytes, mode) {
            Ok(t) => temps.push(t),
            Err(e) => {
                cleanup(&temps);
                return Err(io_error(e));
            }
        }
    }
    let mut entries = Vec::with_capacity(items.len());
    for ((item, l), t) in items.iter().zip(&located).zip(&temps) {
        let dir = match l.dir.meta() {
            Ok(meta) => (meta.dev, meta.ino),
            Err(e) => {
                cleanup(&temps);
                return Err(io_error(e));
            }
        };
        entries.push(JournalEntry {
            shown: item.shown.clone(),
            temp: t.as_bytes().to_vec(),
            name: l.name.as_bytes().to_vec(),
            dir,
        });
    }
    let journal = Journal {
        pid: std::process::id(),
        roots: sandbox.root_paths().to_vec(),
        entries,
    };
    let journal_path = journal_dir.join(JOURNAL);
    if let Err(e) = write_journal(&journal_path, &journal) {
        cleanup(&temps);
        return Err(io_error(e));
    }
    let crash_after: Option<usize> = std::env::var(CRASH_AFTER_RENAMES_ENV)
        .ok()
        .and_then(|v| v.parse().ok());
    let mut done = Vec::new();
    for (i, ((l, t), current)) in located.iter().zip(&temps).zip(&currents).enumerate() {
        if crash_after == Some(i) {
            std::process::abort();
        }
        if let Err(e) = l.dir.rename(t, &l.dir, &l.name, current.meta.is_none()) {
            // The journal stays: the next call completes the change or says what is left.
            return Err(EditError::new(Failure::PartlyCommitted {
                written: done,
                failed: items[i].shown.clone(),
                error: e.into(),
            })
            .with_next(NextStep::NextProposalCompletes));
        }
        done.push(items[i].shown.clone());
        let _ = l.dir.sync();
    }
    let _ = fs::remove_file(&journal_path);
    Ok(Some(WriteReport {
        created: currents.iter().any(|c| c.meta.is_none()),
        created_dirs: new_dirs.keep(),
    }))
}

fn write_journal(path: &Path, journal: &Journal) -> io::Result<()> {
    let bytes = serde_json::to_vec(journal).map_err(io::Error::other)?;
    let mut file = fs::File::create(path)?;
    file.write_all(&bytes)?;
    file.sync_all()?;
    if let Some(parent) = path.parent() {
        fs::File::open(parent)?.sync_all()?;
    }
    Ok(())
}

fn process_alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// Completes multi-file commits that a crashed server process of this workspace left half
/// done: for each journal of a dead process among the sessions directories next to `own_root`,
/// renames the temporary files still there into place. Returns one note per journal, naming the
/// files. Only this server's own kind of directory is read (ours: same user, mode 0700, not a
/// link), only a journal written for the same allowed directories is acted on, and only temp
/// files of this server's form in the very directory the journal names are renamed; anything
/// else is left alone, never deleted.
pub(crate) fn recover(sandbox: &Sandbox, own_root: &Path) -> Vec<CrashCompleted> {
    let Some(parent) = own_root.parent() else {
        return Vec::new();
    };
    // Whose directories are ours: the owner of the one this process made.
    let Ok(own) = fs::symlink_metadata(own_root) else {
        return Vec::new();
    };
    let uid = std::os::unix::fs::MetadataExt::uid(&own);
    let Ok(entries) = fs::read_dir(parent) else {
        return Vec::new();
    };
    let mut notes = Vec::new();
    for entry in entries.flatten() {
        let dir = entry.path();
        let named_ours = entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with("fs-mcp-rs-reviews-"));
        if !named_ours || dir == own_root {
            continue;
        }
        let journal_path = dir.join(JOURNAL);
        let Some(bytes) = read_journal(&dir, uid) else {
            continue;
        };
        let Ok(journal) = serde_json::from_slice::<Journal>(&bytes) else {
            continue;
        };
        let all_ours = journal
            .entries
            .iter()
            .all(|e| is_temp_for(&e.temp, &e.name));
        if journal.roots != sandbox.root_paths() || !all_ours || process_alive(journal.pid) {
            continue;
        }
        let (note, complete) = roll_forward(sandbox, &journal);
        notes.push(note);
        // A journal with a file left to do stays, for the next process to try again.
        if complete {
            let _ = fs::remove_file(&journal_path);
            let _ = fs::remove_dir_all(&dir);
        }
    }
    notes
}

/// The journal in `dir`, when `dir` is shaped as this server makes it (a directory of `uid`
/// nobody else may enter, not a link) and the journal is a regular file of `uid`. Both are opened
/// by handle and checked on the handle, the journal without blocking: whatever is swapped in
/// between a check and the open (a FIFO, a link) is what gets checked, and cannot hang recovery.
/// At most 1 MiB is read (a journal names a handful of files).
fn read_journal(dir: &Path, uid: u32) -> Option<Vec<u8>> {
    use std::io::Read;
    let handle = DirHandle::open_root(dir).ok()?;
    let here = handle.meta().ok()?;
    if here.uid != uid || here.mode & 0o077 != 0 {
        return None;
    }
    let (file, meta) = handle.open_read(std::ffi::OsStr::new(JOURNAL)).ok()?;
    if meta.kind != EntryKind::File || meta.uid != uid {
        return None;
    }
    let mut bytes = Vec::new();
    file.take(1 << 20).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// Whether `temp` is a temp file name this server makes for `name` (`.NAME.HEX.fsmcp-tmp`).
fn is_temp_for(temp: &[u8], name: &[u8]) -> bool {
    temp.starts_with(b".")
        && temp.ends_with(b".fsmcp-tmp")
        && temp.len() > name.len().min(100) + 1
        && temp[1..].starts_with(&name[..name.len().min(100)])
        && !temp.contains(&b'/')
}

/// Renames what is left of `journal`; what was done, and whether nothing is left.
fn roll_forward(sandbox: &Sandbox, journal: &Journal) -> (CrashCompleted, bool) {
    let mut completed = Vec::new();
    let mut already = Vec::new();
    let mut failed = Vec::new();
    for entry in &journal.entries {
        let temp = OsString::from_vec(entry.temp.clone());
        let name = OsString::from_vec(entry.name.clone());
        let io = |e: io::Error| NotCompleted::Io(e.into());
        let result = sandbox
            .locate(&entry.shown, FinalLink::Follow)
            .map_err(|e| NotCompleted::Access(e.into()))
            .and_then(|l| {
                let mut rest = l.rest;
                rest.pop();
                let mut dir = l.dir;
                for c in &rest {
                    dir = dir.open_subdir(c).map_err(io)?;
                }
                let here = dir.meta().map_err(io)?;
                if (here.dev, here.ino) != entry.dir {
                    return Err(NotCompleted::OtherDirectory);
                }
                match dir.stat(&temp) {
                    Ok(_) => dir
                        .rename(&temp, &dir, &name, false)
                        .map(|()| true)
                        .map_err(io),
                    Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
                    Err(e) => Err(io(e)),
                }
            });
        match result {
            Ok(true) => completed.push(entry.shown.clone()),
            Ok(false) => already.push(entry.shown.clone()),
            Err(e) => failed.push((entry.shown.clone(), e)),
        }
    }
    let complete = failed.is_empty();
    let note = CrashCompleted {
        pid: journal.pid,
        written_before: already,
        completed_now: completed,
        failed,
    };
    (note, complete)
}

/// The commit of an approved multi-file proposal led by session `leader`; removes its sessions.
pub(crate) fn commit_group(
    registry: &Registry,
    sandbox: &Sandbox,
    leader: &Path,
) -> Result<CommitInfo, EditError> {
    let items: Vec<Item> = {
        let sessions = registry.lock();
        let lead = sessions
            .get(leader)
            .ok_or_else(|| EditError::new(Failure::SessionEnded))?;
        std::iter::once(leader.to_path_buf())
            .chain(lead.members.iter().cloned())
            .map(|key| {
                let s = sessions
                    .get(&key)
                    .ok_or_else(|| EditError::new(Failure::SessionEnded))?;
                Ok(Item {
                    shown: s.shown.clone(),
                    identity: s.identity.clone(),
                    base: s.base,
                    base_model: s.base_model.clone(),
                    bytes: s.style.render_verbatim(&s.proposal).into_bytes(),
                    target: s.target.clone(),
                })
            })
            .collect::<Result<_, EditError>>()?
    };
    let report = commit_all(sandbox, &items, registry.root(), leader)?;
    let cleanup_error = registry.remove_group(leader);
    Ok(CommitInfo {
        report,
        cleanup_error,
        session_path: leader.display().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    use super::*;

    /// A journal of a dead process swapped, in a `RENAME_EXCHANGE` loop, with a FIFO of the same
    /// user: recovery never opens the FIFO in a way that blocks (it used to check the path, then
    /// open it by path, blocking).
    #[test]
    fn a_fifo_swapped_for_a_journal_never_hangs_recovery() {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        let ws = base.join("ws");
        fs::create_dir(&ws).unwrap();
        let (sandbox, _) = Sandbox::new([&ws]).unwrap();
        let own = base.join("fs-mcp-rs-reviews-own");
        let dead = base.join("fs-mcp-rs-reviews-dead");
        for dir in [&own, &dead] {
            fs::DirBuilder::new().mode(0o700).create(dir).unwrap();
        }
        // For other allowed directories: read and judged, then left alone, so the race stays.
        let journal = Journal {
            pid: u32::MAX,
            roots: vec![base.join("another-workspace")],
            entries: Vec::new(),
        };
        let journal_path = dead.join(JOURNAL);
        let fifo = dead.join("fifo");
        write_journal(&journal_path, &journal).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let swapper = {
            let (a, b, stop) = (journal_path.clone(), fifo.clone(), Arc::clone(&stop));
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let exchanged = rustix::fs::renameat_with(
                        rustix::fs::CWD,
                        &a,
                        rustix::fs::CWD,
                        &b,
                        rustix::fs::RenameFlags::EXCHANGE,
                    );
                    if exchanged.is_err() {
                        break;
                    }
                }
            })
        };
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        let recovering = {
            let (sandbox, own, stop) = (sandbox.clone(), own.clone(), Arc::clone(&stop));
            std::thread::spawn(move || {
                // The window between a check and an open is a few microseconds: many passes.
                let until = std::time::Instant::now() + Duration::from_secs(5);
                while std::time::Instant::now() < until && !stop.load(Ordering::Relaxed) {
                    assert!(recover(&sandbox, &own).is_empty());
                }
                let _ = done_tx.send(());
            })
        };
        let finished = done_rx.recv_timeout(Duration::from_secs(60)).is_ok();
        stop.store(true, Ordering::Relaxed);
        if !finished {
            // Open the FIFO for writing once, so a recovery stuck opening it returns and the
            // test can end (and report) instead of hanging.
            for path in [&journal_path, &fifo] {
                let _ = fs::OpenOptions::new()
                    .write(true)
                    .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
                    .open(path);
            }
        }
        let _ = swapper.join();
        let _ = recovering.join();
        assert!(
            finished,
            "recovery blocked on a FIFO swapped in for the journal"
        );
    }
}
