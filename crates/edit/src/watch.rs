//! Detecting the human's save of the proposal file.
//!
//! The session directory (the parent of `future_<name>`) is watched non-recursively with
//! `notify-debouncer-full`, and events are filtered by path: watching the file itself would lose
//! every save after the first atomic replace, because inotify follows the inode. If the native
//! watcher cannot be created (inotify limits, some network mounts), notify's polling watcher with
//! content comparison takes over. Events are bridged into Tokio through an unbounded channel.
//!
//! A save is recognised by the file's stamp (size, mtime, ctime, inode) or content differing
//! from what was last known, so an event that did not change the file (opening it, say) is not
//! taken for an approval. A save is taken only once it has settled: the stamp is the same before
//! and after the read and still the same one settle interval later. An editor (or a script) that
//! truncates and then writes would otherwise be read in between, and the empty file taken as the
//! human's version.

use std::fs::Metadata;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use notify::event::{AccessKind, AccessMode};
use notify::{EventKind, PollWatcher, RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{
    DebounceEventResult, DebouncedEvent, Debouncer, RecommendedCache, new_debouncer,
    new_debouncer_opt,
};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

/// What identifies one version of a file on disk, short of its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileStamp {
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
    ino: u64,
    dev: u64,
}

impl FileStamp {
    pub fn of(meta: &Metadata) -> FileStamp {
        FileStamp {
            len: meta.len(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
            ino: meta.ino(),
            dev: meta.dev(),
        }
    }
}

/// Reads a file whole, with the stamp it had while being read: stat, read, stat, again while a
/// writer is changing it (a few times), so a read is never half of one save and half of the next.
pub(crate) fn read_with_stamp(path: &Path) -> io::Result<(Vec<u8>, FileStamp)> {
    let mut tries = 0;
    loop {
        let stamp = FileStamp::of(&std::fs::metadata(path)?);
        let bytes = std::fs::read(path)?;
        tries += 1;
        if tries == CONSISTENT_READ_TRIES || FileStamp::of(&std::fs::metadata(path)?) == stamp {
            return Ok((bytes, stamp));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// How often [`read_with_stamp`] reads a file that keeps changing before it takes what it read.
const CONSISTENT_READ_TRIES: u32 = 5;

async fn read_with_stamp_async(path: &Path) -> io::Result<(Vec<u8>, FileStamp)> {
    let meta = tokio::fs::metadata(path).await?;
    let bytes = tokio::fs::read(path).await?;
    Ok((bytes, FileStamp::of(&meta)))
}

// The debouncer is only held: dropping it stops the watch.
#[allow(dead_code)]
enum AnyDebouncer {
    Native(Debouncer<RecommendedWatcher, RecommendedCache>),
    Poll(Debouncer<PollWatcher, RecommendedCache>),
}

/// A running watch on one session's proposal file. Dropping it stops watching.
pub(crate) struct SaveWatcher {
    _debouncer: AnyDebouncer,
    rx: UnboundedReceiver<DebounceEventResult>,
    future: PathBuf,
    settle: Duration,
}

impl SaveWatcher {
    /// Starts watching `future`'s directory.
    pub fn start(future: &Path, debounce: Duration) -> io::Result<SaveWatcher> {
        let dir = future
            .parent()
            .ok_or_else(|| io::Error::other("the proposal file has no directory"))?
            .to_path_buf();
        let (tx, rx) = unbounded_channel();
        let native_tx = tx.clone();
        let native = new_debouncer(debounce, None, move |res: DebounceEventResult| {
            let _ = native_tx.send(res);
        })
        .and_then(|mut d| d.watch(&dir, RecursiveMode::NonRecursive).map(|()| d));
        let debouncer = match native {
            Ok(d) => AnyDebouncer::Native(d),
            Err(e) => {
                tracing::warn!(
                    "native file watching of {} failed ({e}); falling back to polling",
                    dir.display()
                );
                let config = notify::Config::default()
                    .with_poll_interval(Duration::from_millis(500))
                    .with_compare_contents(true);
                let mut d = new_debouncer_opt::<_, PollWatcher, RecommendedCache>(
                    debounce,
                    None,
                    move |res: DebounceEventResult| {
                        let _ = tx.send(res);
                    },
                    RecommendedCache::new(),
                    config,
                )
                .map_err(io::Error::other)?;
                d.watch(&dir, RecursiveMode::NonRecursive)
                    .map_err(io::Error::other)?;
                AnyDebouncer::Poll(d)
            }
        };
        Ok(SaveWatcher {
            _debouncer: debouncer,
            rx,
            future: future.to_path_buf(),
            settle: debounce,
        })
    }

    fn concerns(&self, event: &DebouncedEvent) -> bool {
        if event.need_rescan() {
            return true;
        }
        let kind_matters = match event.kind {
            EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
            EventKind::Access(_) | EventKind::Remove(_) => false,
            _ => true,
        };
        kind_matters && event.paths.iter().any(|p| p == &self.future)
    }

    /// Waits until the proposal file holds something other than `known` (a save), and returns
    /// it. A missing file (between a rename-away and the new file) is waited out.
    pub async fn next_save(
        &mut self,
        known_stamp: Option<FileStamp>,
        known_bytes: &[u8],
    ) -> io::Result<(Vec<u8>, FileStamp)> {
        // A save between writing the proposal and starting the watch is not lost.
        if let Some(found) = self.check(known_stamp, known_bytes).await? {
            return Ok(found);
        }
        loop {
            let batch = self
                .rx
                .recv()
                .await
                .ok_or_else(|| io::Error::other("the file watcher stopped"))?;
            let relevant = match batch {
                Ok(events) => events.iter().any(|e| self.concerns(e)),
                Err(errors) => {
                    for e in errors {
                        tracing::warn!("file watcher error: {e}");
                    }
                    true
                }
            };
            if relevant && let Some(found) = self.check(known_stamp, known_bytes).await? {
                return Ok(found);
            }
        }
    }

    /// Reads the file once it has settled; `None` when it holds what was known (or is missing).
    async fn check(
        &self,
        known_stamp: Option<FileStamp>,
        known_bytes: &[u8],
    ) -> io::Result<Option<(Vec<u8>, FileStamp)>> {
        loop {
            let (bytes, stamp) = match read_with_stamp_async(&self.future).await {
                Ok(found) => found,
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(e),
            };
            if Some(stamp) == known_stamp && bytes == known_bytes {
                return Ok(None);
            }
            // Taken only if no writer changed it during the read or the settle interval after;
            // otherwise the next look reads the finished file.
            let read_whole = self.stamp_now().await? == Some(stamp);
            tokio::time::sleep(self.settle).await;
            if read_whole && self.stamp_now().await? == Some(stamp) {
                return Ok(Some((bytes, stamp)));
            }
        }
    }

    async fn stamp_now(&self) -> io::Result<Option<FileStamp>> {
        match tokio::fs::metadata(&self.future).await {
            Ok(meta) => Ok(Some(FileStamp::of(&meta))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A writer that truncates, then writes a moment later (the CI failure: the truncated file
    /// was read in between and taken for the human's version).
    #[tokio::test]
    async fn a_save_is_taken_only_once_written_whole() {
        let dir = tempfile::tempdir().unwrap();
        let future = dir.path().join("future_t.py");
        std::fs::write(&future, "a\nB\nc\n").unwrap();
        let (known_bytes, known_stamp) = read_with_stamp(&future).unwrap();
        let mut watcher = SaveWatcher::start(&future, Duration::from_millis(200)).unwrap();
        let mut file = std::fs::File::create(&future).unwrap(); // truncated, not yet written
        let writer = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            file.write_all(b"a\nBee\nc\n").unwrap();
        });
        let (bytes, _) = watcher
            .next_save(Some(known_stamp), &known_bytes)
            .await
            .unwrap();
        writer.await.unwrap();
        assert_eq!(bytes, b"a\nBee\nc\n");
    }
}
