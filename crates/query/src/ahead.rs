//! Reading a file a window ahead on a second thread: the next window is read
//! (copied out of the page cache, or waited for from the disk) while the
//! current one is parsed, so a streamed query costs its parse, not its parse
//! plus its reads.
//!
//! At most [`IN_FLIGHT`] windows exist besides the one being parsed, so the
//! memory stays bounded whatever the file's size. If the thread cannot be
//! started (the memory limit), the file is read on the calling thread.

use std::io::Read;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Mutex, PoisonError};

/// Bytes left free before the data of every window: the unparsed end of the
/// previous window (a part of one element) is put there instead of the new
/// window being copied behind it.
pub(crate) const HEADROOM: usize = 64 << 10;

/// Windows read ahead and buffers kept for reuse, besides the one in use.
const IN_FLIGHT: usize = 2;

/// What the reading thread hands over.
enum Window {
    /// [`HEADROOM`] bytes of room, then the bytes read (at least one).
    Data(Vec<u8>),
    End,
    Failed,
}

/// The windows of a file, read ahead (or, when no thread could be started,
/// on demand).
pub(crate) struct Windows<'r> {
    source: Source<'r>,
    window: usize,
}

enum Source<'r> {
    Ahead {
        windows: Receiver<Window>,
        spare: SyncSender<Vec<u8>>,
    },
    Here(&'r mut (dyn Read + Send)),
}

impl<'r> Windows<'r> {
    /// The windows of `reader`, read on this thread as they are asked for.
    #[cfg(test)]
    pub(crate) fn here(reader: &'r mut (dyn Read + Send), window: usize) -> Self {
        Windows {
            source: Source::Here(reader),
            window: window.max(1),
        }
    }

    /// The next window: [`HEADROOM`] bytes of room, then at least one byte
    /// of the file; `Ok(None)` at its end; `Err` on a read error.
    pub(crate) fn next(&mut self) -> Result<Option<Vec<u8>>, std::io::Error> {
        match &mut self.source {
            Source::Ahead { windows, .. } => match windows.recv() {
                Ok(Window::Data(bytes)) => Ok(Some(bytes)),
                Ok(Window::End) => Ok(None),
                Ok(Window::Failed) | Err(_) => Err(std::io::Error::other("read failed")),
            },
            Source::Here(reader) => {
                let bytes = read_window(*reader, Vec::new(), self.window)?;
                Ok((bytes.len() > HEADROOM).then_some(bytes))
            }
        }
    }

    /// Give a window's buffer back for a later window (unless it grew
    /// beyond one: its memory is freed then).
    pub(crate) fn recycle(&self, buffer: Vec<u8>) {
        if let Source::Ahead { spare, .. } = &self.source
            && buffer.capacity() <= HEADROOM + self.window
        {
            // a full queue drops it
            let _ = spare.try_send(buffer);
        }
    }
}

/// Fill `buffer` with [`HEADROOM`] bytes of room and up to `window` bytes
/// of `reader` (fewer only at its end, or when the memory limit leaves no
/// room for a whole window: then smaller ones, down to [`HEADROOM`] bytes,
/// rather than an abort).
fn read_window(
    reader: &mut dyn Read,
    mut buffer: Vec<u8>,
    window: usize,
) -> std::io::Result<Vec<u8>> {
    let mut size = HEADROOM + window;
    while buffer
        .try_reserve_exact(size.saturating_sub(buffer.len()))
        .is_err()
    {
        if size <= 2 * HEADROOM {
            return Err(std::io::ErrorKind::OutOfMemory.into());
        }
        size = HEADROOM + (size - HEADROOM) / 2;
    }
    buffer.resize(size, 0);
    let mut filled = HEADROOM;
    while filled < buffer.len() {
        match reader.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    buffer.truncate(filled);
    Ok(buffer)
}

/// Run `parse` on the windows of `reader` (`window` bytes each), read ahead
/// on a second thread; the thread ends when `parse` returns (it may stop
/// before the end of the file).
pub(crate) fn read_ahead<T>(
    reader: &mut (dyn Read + Send),
    window: usize,
    parse: impl FnOnce(Windows<'_>) -> T,
) -> T {
    let window = window.max(1);
    // the thread's, unless it cannot start
    let shared = Mutex::new(reader);
    std::thread::scope(|scope| {
        let (to_parser, windows) = sync_channel::<Window>(IN_FLIGHT - 1);
        let (spare, spares) = sync_channel::<Vec<u8>>(IN_FLIGHT);
        let reader = &shared;
        let started = std::thread::Builder::new()
            .name("query-read-ahead".into())
            .spawn_scoped(scope, move || {
                let Ok(mut reading) = reader.lock() else {
                    let _ = to_parser.send(Window::Failed);
                    return;
                };
                loop {
                    let buffer = spares.try_recv().unwrap_or_default();
                    let sent = match read_window(&mut **reading, buffer, window) {
                        Ok(bytes) if bytes.len() > HEADROOM => to_parser.send(Window::Data(bytes)),
                        Ok(_) => {
                            let _ = to_parser.send(Window::End);
                            return;
                        }
                        Err(_) => {
                            let _ = to_parser.send(Window::Failed);
                            return;
                        }
                    };
                    // the parser stopped early
                    if sent.is_err() {
                        return;
                    }
                }
            });
        match started {
            Ok(_) => parse(Windows {
                source: Source::Ahead { windows, spare },
                window,
            }),
            Err(_) => {
                // (no thread ever held it)
                let mut reading = shared.lock().unwrap_or_else(PoisonError::into_inner);
                parse(Windows {
                    source: Source::Here(&mut **reading),
                    window,
                })
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(mut windows: Windows<'_>) -> Vec<Vec<u8>> {
        let mut got = Vec::new();
        while let Ok(Some(w)) = windows.next() {
            got.push(w[HEADROOM..].to_vec());
            windows.recycle(w);
        }
        got
    }

    #[test]
    fn windows_are_the_file_in_order() {
        let file: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        for window in [1, 7, 4096, 99_999, 100_000, 1 << 20] {
            let mut reader = &file[..];
            let got = read_ahead(&mut reader, window, all);
            assert!(got.iter().all(|w| !w.is_empty() && w.len() <= window));
            assert_eq!(got.concat(), file, "window {window}");
            let mut reader = &file[..];
            assert_eq!(all(Windows::here(&mut reader, window)).concat(), file);
        }
        let mut empty: &[u8] = b"";
        assert!(read_ahead(&mut empty, 8, all).is_empty());
    }

    #[test]
    fn stopping_early_ends_the_thread() {
        let file = vec![b'x'; 1 << 20];
        let mut reader = &file[..];
        let first = read_ahead(&mut reader, 1024, |mut w| {
            w.next().ok().flatten().map(|w| w.len())
        });
        assert_eq!(first, Some(HEADROOM + 1024));
    }
}
