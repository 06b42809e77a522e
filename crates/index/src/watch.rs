//! One inotify instance watching the walked directories and the index's private marker
//! directory, with a reader thread handing batches of events, in queue order, to a callback.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask, Watches};

/// One event, its watch resolved to a path.
#[derive(Debug)]
pub(crate) enum Change {
    /// Something happened to this path (an entry of a watched directory, or one itself).
    Path(PathBuf),
    /// The kernel's queue overflowed: events were lost.
    Overflow,
}

/// What the watch listens to: every change to a directory's entries and to the directory
/// itself. Not IN_OPEN/IN_ACCESS/IN_CLOSE_NOWRITE: reads are no change, and every search reads.
fn mask() -> WatchMask {
    WatchMask::MODIFY
        | WatchMask::ATTRIB
        | WatchMask::CREATE
        | WatchMask::DELETE
        | WatchMask::MOVED_FROM
        | WatchMask::MOVED_TO
        | WatchMask::DELETE_SELF
        | WatchMask::MOVE_SELF
        | WatchMask::DONT_FOLLOW
        | WatchMask::ONLYDIR
}

struct Registry {
    watches: Watches,
    paths: HashMap<WatchDescriptor, PathBuf>,
}

/// A running watch. Dropping it stops its reader (woken by `wake`).
pub(crate) struct Watcher {
    registry: Arc<Mutex<Registry>>,
    stop: Arc<AtomicBool>,
    wake: PathBuf,
}

impl Watcher {
    /// Starts an instance; `on_changes` gets every batch of events in queue order, `on_error`
    /// a read error (after which nothing more is delivered). `wake` is a file in a watched
    /// directory the drop touches to wake the reader.
    pub(crate) fn start(
        wake: PathBuf,
        on_changes: impl Fn(Vec<Change>) -> bool + Send + 'static,
        on_error: impl FnOnce(std::io::Error) + Send + 'static,
    ) -> std::io::Result<Watcher> {
        let mut inotify = Inotify::init()?;
        let registry = Arc::new(Mutex::new(Registry {
            watches: inotify.watches(),
            paths: HashMap::new(),
        }));
        let stop = Arc::new(AtomicBool::new(false));
        let (reader_registry, reader_stop) = (Arc::clone(&registry), Arc::clone(&stop));
        std::thread::Builder::new()
            .name("fs-mcp-index-watch".into())
            .spawn(move || {
                let mut buffer = vec![0u8; 64 << 10];
                loop {
                    let events = match inotify.read_events_blocking(&mut buffer) {
                        Ok(events) => events,
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                        Err(e) => {
                            if !reader_stop.load(Ordering::Relaxed) {
                                on_error(e);
                            }
                            return;
                        }
                    };
                    if reader_stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let mut changes = Vec::new();
                    {
                        let mut registry =
                            reader_registry.lock().unwrap_or_else(|e| e.into_inner());
                        for event in events {
                            if event.mask.contains(EventMask::Q_OVERFLOW) {
                                changes.push(Change::Overflow);
                                continue;
                            }
                            if event.mask.contains(EventMask::IGNORED) {
                                registry.paths.remove(&event.wd);
                                continue;
                            }
                            let Some(dir) = registry.paths.get(&event.wd) else {
                                continue;
                            };
                            changes.push(Change::Path(match event.name {
                                Some(name) => dir.join(name),
                                None => dir.clone(),
                            }));
                        }
                    }
                    if !on_changes(changes) {
                        return;
                    }
                }
            })?;
        Ok(Watcher {
            registry,
            stop,
            wake,
        })
    }

    /// Watches the directory `dir` (not following a symlink). The registry stays locked while
    /// the watch is added, so the reader resolves the watch's first event to its path.
    pub(crate) fn watch(&self, dir: &Path) -> std::io::Result<()> {
        let mut registry = self.registry.lock().unwrap_or_else(|e| e.into_inner());
        let wd = registry.watches.add(dir, mask())?;
        registry.paths.insert(wd, dir.to_path_buf());
        Ok(())
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // The reader sleeps in read(2): an event in the marker directory wakes it.
        let _ = std::fs::File::create(&self.wake);
        let _ = std::fs::remove_file(&self.wake);
    }
}

/// The marker's number, if `name` is one (`sync-N`).
pub(crate) fn marker_number(name: Option<&std::ffi::OsStr>) -> Option<u64> {
    name?.to_str()?.strip_prefix("sync-")?.parse().ok()
}

/// A marker's file name.
pub(crate) fn marker_name(n: u64) -> OsString {
    format!("sync-{n}").into()
}
