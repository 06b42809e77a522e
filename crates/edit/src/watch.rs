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
//! taken for an approval.

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

/// Stats, then reads, a file.
pub(crate) fn read_with_stamp(path: &Path) -> io::Result<(Vec<u8>, FileStamp)> {
    let meta = std::fs::metadata(path)?;
    let bytes = std::fs::read(path)?;
    Ok((bytes, FileStamp::of(&meta)))
}

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

    async fn check(
        &self,
        known_stamp: Option<FileStamp>,
        known_bytes: &[u8],
    ) -> io::Result<Option<(Vec<u8>, FileStamp)>> {
        match read_with_stamp_async(&self.future).await {
            Ok((bytes, stamp)) => {
                if Some(stamp) != known_stamp || bytes != known_bytes {
                    Ok(Some((bytes, stamp)))
                } else {
                    Ok(None)
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }
}
