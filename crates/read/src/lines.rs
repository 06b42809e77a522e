//! Streaming line primitives over an open file: skip, copy within limits, find where a tail
//! starts. Memory is the output budget plus one read buffer, whatever the file and its lines.

use std::fs::File;
use std::io::{self, BufRead};
use std::os::unix::fs::FileExt;

use regex::bytes::Regex;

/// Chunk size for reading a file backwards in `tail`.
const TAIL_CHUNK: usize = 64 * 1024;
/// How far past the shown part of a cut line its end is searched for (to say how long it is and
/// to reach the next line). A longer line ends the read there.
pub const LONG_LINE_SCAN: u64 = 8 << 20;
/// How far back from the end `tail` searches for line breaks.
pub const TAIL_SCAN: u64 = 8 << 20;

/// True when the file is binary by the shared rule ([`fs_mcp_text::is_binary`]), judged on what
/// the reader has buffered. Leaves the reader where it was.
pub fn starts_binary<R: BufRead>(reader: &mut R) -> io::Result<bool> {
    Ok(fs_mcp_text::is_binary(reader.fill_buf()?))
}

/// True when nothing is left to read.
pub fn at_eof<R: BufRead>(reader: &mut R) -> io::Result<bool> {
    Ok(reader.fill_buf()?.is_empty())
}

/// Skips up to `count` lines without decoding them. Returns how many were skipped; fewer than
/// `count` means the file ended first (a last line without `\n` counts as a line).
pub fn skip_lines<R: BufRead>(reader: &mut R, count: u64) -> io::Result<u64> {
    let mut skipped = 0;
    let mut in_partial_line = false;
    while skipped < count {
        let buffer = reader.fill_buf()?;
        if buffer.is_empty() {
            if in_partial_line {
                skipped += 1;
            }
            break;
        }
        let mut consumed = buffer.len();
        in_partial_line = true;
        for newline in memchr::memchr_iter(b'\n', buffer) {
            skipped += 1;
            if skipped == count {
                consumed = newline + 1;
                in_partial_line = false;
                break;
            }
        }
        if consumed == buffer.len() && buffer.last() == Some(&b'\n') {
            in_partial_line = false;
        }
        reader.consume(consumed);
    }
    Ok(skipped)
}

/// Skips the rest of the current line, its `\n` included, looking at most `max` bytes. Returns
/// the bytes skipped before the line break and whether the line ended (a break or end of file).
fn skip_rest_of_line<R: BufRead>(reader: &mut R, max: u64) -> io::Result<(u64, bool)> {
    let mut skipped = 0u64;
    loop {
        let buffer = reader.fill_buf()?;
        if buffer.is_empty() {
            return Ok((skipped, true));
        }
        if let Some(newline) = memchr::memchr(b'\n', buffer) {
            reader.consume(newline + 1);
            return Ok((skipped + newline as u64, true));
        }
        let len = buffer.len();
        reader.consume(len);
        skipped += len as u64;
        if skipped >= max {
            return Ok((skipped, false));
        }
    }
}

/// The length of a line that was cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineLen {
    /// Its exact length.
    Exact(u64),
    /// Its end was not found within [`LONG_LINE_SCAN`].
    AtLeast(u64),
}

/// A line shown only in part; the caller writes the marker that says so.
#[derive(Debug, Clone, Copy)]
pub struct CutLine {
    /// 0-based among the lines of this copy.
    pub index: u64,
    /// Bytes of it shown.
    pub shown: usize,
    pub len: LineLen,
    /// Cut by the reply's budget rather than by the line cap.
    pub by_budget: bool,
}

/// Why a copy stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// All the lines asked for were copied.
    Done,
    EndOfFile,
    /// A line matched the stop pattern (it is not copied).
    Pattern,
    /// The stop pattern's work bound could not pay for searching the next line (it is not
    /// copied).
    PatternWork,
    /// The next line did not fit in the budget (nothing of it is copied).
    Budget,
    /// A cut line's end was not found, so the lines after it were not reached.
    LineUnended,
}

/// How a copy went: lines copied (a cut line counts) and why it stopped.
#[derive(Debug, Clone, Copy)]
pub struct Copied {
    pub lines: u64,
    pub stop: Stop,
}

/// Where copied text goes and how much of it may.
pub struct Sink<'a> {
    pub out: &'a mut Vec<u8>,
    /// `out` never grows past this.
    pub limit: usize,
    /// Bytes kept free for the marker of a cut line.
    pub marker_room: usize,
}

/// One line read into the sink.
enum One {
    EndOfFile,
    /// The whole line, with its `\n` if it has one.
    Whole,
    /// Only the first `room` bytes were kept; the line's length in all and whether it ended.
    Long {
        len: u64,
        ended: bool,
    },
}

/// Appends the next line to `out` if it is at most `room` bytes (without its `\n`); otherwise
/// appends its first `room` bytes and skips the rest, searching [`LONG_LINE_SCAN`] bytes at most.
fn next_line<R: BufRead>(reader: &mut R, out: &mut Vec<u8>, room: usize) -> io::Result<One> {
    let mut taken = 0usize;
    let mut first = true;
    loop {
        let buffer = reader.fill_buf()?;
        if buffer.is_empty() {
            return Ok(if first { One::EndOfFile } else { One::Whole });
        }
        first = false;
        let (text, newline) = match memchr::memchr(b'\n', buffer) {
            Some(at) => (at, 1),
            None => (buffer.len(), 0),
        };
        if taken + text <= room {
            out.extend_from_slice(&buffer[..text + newline]);
            reader.consume(text + newline);
            if newline == 1 {
                return Ok(One::Whole);
            }
            taken += text;
        } else {
            let fit = room - taken;
            out.extend_from_slice(&buffer[..fit]);
            reader.consume(fit);
            let (rest, ended) = skip_rest_of_line(reader, LONG_LINE_SCAN)?;
            return Ok(One::Long {
                len: room as u64 + rest,
                ended,
            });
        }
    }
}

/// The pattern a copy stops before, and the regex work it may still do: each line is searched
/// in its first `line_bytes` bytes at most, and every byte searched spends `weight` of
/// `work_left`; a line the rest cannot pay for is not searched and ends the copy
/// ([`Stop::PatternWork`]). A client's pathological pattern then costs a bounded time.
pub struct StopAt<'a> {
    /// The pattern.
    pub regex: &'a Regex,
    /// Positions it may track at once ([`fs_mcp_text::pattern_weight`]).
    pub weight: u64,
    /// Bytes of one line searched; the rest of a longer line is not looked at.
    pub line_bytes: usize,
    /// Work (positions × bytes) left, shared by the items of a call.
    pub work_left: &'a mut u64,
    /// Lines longer than `line_bytes`, searched only that far.
    pub lines_partly_searched: u64,
}

/// What the stop pattern says of a line.
enum Check {
    Copy,
    Matches,
    OutOfWork,
}

impl StopAt<'_> {
    fn check(&mut self, line: &[u8]) -> Check {
        let searched = &line[..line.len().min(self.line_bytes)];
        let cost = (searched.len() as u64).saturating_mul(self.weight);
        if cost > *self.work_left {
            return Check::OutOfWork;
        }
        *self.work_left -= cost;
        if searched.len() < line.len() {
            self.lines_partly_searched += 1;
        }
        if self.regex.is_match(searched) {
            Check::Matches
        } else {
            Check::Copy
        }
    }
}

/// Copies up to `count` lines into the sink. A line longer than `line_cap` bytes is cut there
/// (`mark` writes the marker after the shown part); a line that does not fit the budget stops the
/// copy before it, unless it is the first, which is then cut to fit. With `stop_at`, the copy
/// stops before the first line after the first one that matches it (or that its work bound
/// cannot search).
pub fn copy_lines<R: BufRead>(
    reader: &mut R,
    sink: &mut Sink<'_>,
    count: u64,
    line_cap: usize,
    mut stop_at: Option<&mut StopAt<'_>>,
    mark: &mut dyn FnMut(&mut Vec<u8>, CutLine),
) -> io::Result<Copied> {
    let mut copied = 0u64;
    while copied < count {
        let line_start = sink.out.len();
        let budget_room = sink.limit.saturating_sub(line_start + 1);
        let room = line_cap.min(budget_room);
        let line = next_line(reader, sink.out, room)?;
        if matches!(line, One::EndOfFile) {
            return Ok(Copied {
                lines: copied,
                stop: Stop::EndOfFile,
            });
        }
        let check = match stop_at.as_deref_mut() {
            Some(stop_at) if copied > 0 => stop_at.check(line_body(&sink.out[line_start..])),
            _ => Check::Copy,
        };
        let stop = match check {
            Check::Copy => None,
            Check::Matches => Some(Stop::Pattern),
            Check::OutOfWork => Some(Stop::PatternWork),
        };
        if let Some(stop) = stop {
            sink.out.truncate(line_start);
            return Ok(Copied {
                lines: copied,
                stop,
            });
        }
        match line {
            One::EndOfFile => {}
            One::Whole => copied += 1,
            One::Long { len, ended } => {
                let over_cap = len > line_cap as u64 || !ended;
                if !over_cap && copied > 0 {
                    // It fits the line limit but not the reply: leave it for the next call.
                    sink.out.truncate(line_start);
                    return Ok(Copied {
                        lines: copied,
                        stop: Stop::Budget,
                    });
                }
                let allowed = sink.limit.saturating_sub(sink.marker_room).max(line_start);
                sink.out.truncate(sink.out.len().min(allowed));
                trim_partial_char(sink.out, line_start);
                let cut = CutLine {
                    index: copied,
                    shown: sink.out.len() - line_start,
                    len: if ended {
                        LineLen::Exact(len)
                    } else {
                        LineLen::AtLeast(len)
                    },
                    by_budget: ((allowed - line_start) as u64) < (line_cap as u64).min(len),
                };
                mark(sink.out, cut);
                sink.out.push(b'\n');
                copied += 1;
                if !ended {
                    return Ok(Copied {
                        lines: copied,
                        stop: Stop::LineUnended,
                    });
                }
                if cut.by_budget {
                    return Ok(Copied {
                        lines: copied,
                        stop: Stop::Budget,
                    });
                }
            }
        }
    }
    Ok(Copied {
        lines: copied,
        stop: Stop::Done,
    })
}

/// How a whole-file copy ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Whole {
    /// Everything was copied.
    Complete,
    /// The budget ended after `lines` complete lines; the file goes on.
    Budget { lines: u64 },
    /// The first line alone is longer than the budget: it was cut (and marked).
    FirstLineCut { ended: bool },
}

/// Copies the rest of the file in bulk, up to the budget. When the budget ends first, the copy
/// is cut back to the last complete line (or, if there is none, the first line is cut and marked).
pub fn copy_all<R: BufRead>(
    reader: &mut R,
    sink: &mut Sink<'_>,
    mark: &mut dyn FnMut(&mut Vec<u8>, CutLine),
) -> io::Result<Whole> {
    let start = sink.out.len();
    loop {
        let buffer = reader.fill_buf()?;
        if buffer.is_empty() {
            return Ok(Whole::Complete);
        }
        let room = sink.limit.saturating_sub(sink.out.len());
        if buffer.len() <= room {
            let len = buffer.len();
            sink.out.extend_from_slice(buffer);
            reader.consume(len);
            continue;
        }
        sink.out.extend_from_slice(&buffer[..room]);
        reader.consume(room);
        break;
    }
    if let Some(newline) = memchr::memrchr(b'\n', &sink.out[start..]) {
        sink.out.truncate(start + newline + 1);
        let lines = memchr::memchr_iter(b'\n', &sink.out[start..]).count() as u64;
        return Ok(Whole::Budget { lines });
    }
    let taken = (sink.out.len() - start) as u64;
    let (rest, ended) = skip_rest_of_line(reader, LONG_LINE_SCAN)?;
    let keep = sink
        .out
        .len()
        .min(sink.limit.saturating_sub(sink.marker_room))
        .max(start);
    sink.out.truncate(keep);
    trim_partial_char(sink.out, start);
    let len = taken + rest;
    let cut = CutLine {
        index: 0,
        shown: sink.out.len() - start,
        len: if ended {
            LineLen::Exact(len)
        } else {
            LineLen::AtLeast(len)
        },
        by_budget: true,
    };
    mark(sink.out, cut);
    sink.out.push(b'\n');
    Ok(Whole::FirstLineCut { ended })
}

/// Where the last lines of a file begin, found by reading backwards from the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TailStart {
    /// The last `lines` lines start at `offset` (all of the file's lines when it has fewer).
    At { offset: u64, lines: u64 },
    /// Only `lines` lines were found within [`TAIL_SCAN`]: the line before them is longer.
    Partial { offset: u64, lines: u64 },
    /// The last line alone is longer than [`TAIL_SCAN`].
    LongLastLine,
}

/// Finds the start of the last `count` lines (`count` ≥ 1, `len` ≥ 1) of the file, reading at
/// most `scan` bytes backwards from its end. Reads by offset: the handle's position is unused.
pub fn tail_start(file: &File, len: u64, count: u64, scan: u64) -> io::Result<TailStart> {
    let mut last = [0u8; 1];
    file.read_exact_at(&mut last, len - 1)?;
    // A final `\n` ends the last line; it does not start another one.
    let scan_end = if last[0] == b'\n' { len - 1 } else { len };
    let floor = scan_end.saturating_sub(scan);
    let mut chunk = vec![0u8; TAIL_CHUNK.min((scan_end - floor) as usize)];
    let mut pos = scan_end;
    let mut found = 0u64;
    let mut earliest = None;
    while pos > floor {
        let size = (TAIL_CHUNK as u64).min(pos - floor) as usize;
        pos -= size as u64;
        file.read_exact_at(&mut chunk[..size], pos)?;
        for newline in memchr::memrchr_iter(b'\n', &chunk[..size]) {
            found += 1;
            earliest = Some(pos + newline as u64);
            if found == count {
                return Ok(TailStart::At {
                    offset: pos + newline as u64 + 1,
                    lines: count,
                });
            }
        }
    }
    if floor == 0 {
        return Ok(TailStart::At {
            offset: 0,
            lines: found + 1,
        });
    }
    Ok(match earliest {
        Some(newline) => TailStart::Partial {
            offset: newline + 1,
            lines: found,
        },
        None => TailStart::LongLastLine,
    })
}

/// Reads `want` bytes ending at `end` into `out` (fewer at the start of the file), starting at a
/// character boundary.
pub fn copy_end(file: &File, end: u64, want: usize, out: &mut Vec<u8>) -> io::Result<()> {
    let start = end.saturating_sub(want as u64);
    let at = out.len();
    out.resize(at + (end - start) as usize, 0);
    file.read_exact_at(&mut out[at..], start)?;
    // Drop continuation bytes of a character that began before the window.
    let lead = out[at..]
        .iter()
        .take(3)
        .take_while(|&&b| b & 0xC0 == 0x80)
        .count();
    out.drain(at..at + lead);
    Ok(())
}

/// Reads up to `max` bytes from the start of the file, by offset.
pub fn read_head(file: &File, max: usize) -> io::Result<Vec<u8>> {
    let mut head = vec![0u8; max];
    let mut filled = 0;
    while filled < max {
        match file.read_at(&mut head[filled..], filled as u64) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    head.truncate(filled);
    Ok(head)
}

/// The text of a line without its ending.
fn line_body(raw: &[u8]) -> &[u8] {
    let raw = raw.strip_suffix(b"\n").unwrap_or(raw);
    raw.strip_suffix(b"\r").unwrap_or(raw)
}

/// Drops a UTF-8 sequence left incomplete at the end of `out` by a cut (never before `floor`).
fn trim_partial_char(out: &mut Vec<u8>, floor: usize) {
    let tail = &out[floor..];
    let Some(lead_back) = tail.iter().rev().take(4).position(|&b| b & 0xC0 != 0x80) else {
        return;
    };
    let lead_at = out.len() - 1 - lead_back;
    let lead = out[lead_at];
    let needed = match lead {
        b if b < 0x80 => 1,
        b if b >= 0xF0 => 4,
        b if b >= 0xE0 => 3,
        b if b >= 0xC0 => 2,
        _ => 1,
    };
    if out.len() - lead_at < needed {
        out.truncate(lead_at);
    }
}

/// Turns CRLF line endings into LF in `buf[from..]`, in place, moving the text between them in
/// runs.
pub fn strip_cr(buf: &mut Vec<u8>, from: usize) {
    let finder = memchr::memmem::Finder::new(b"\r\n");
    let Some(first) = finder.find(&buf[from..]) else {
        return;
    };
    // `write` is where the next run goes; `read` is the start of the run after a dropped `\r`.
    let mut write = from + first;
    let mut read = write + 1;
    loop {
        match finder.find(&buf[read..]) {
            Some(at) => {
                buf.copy_within(read..read + at, write);
                write += at;
                read += at + 1;
            }
            None => {
                let rest = buf.len() - read;
                buf.copy_within(read.., write);
                write += rest;
                break;
            }
        }
    }
    buf.truncate(write);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_chars_are_trimmed_whole_ones_kept() {
        let mut v = "aé".as_bytes().to_vec();
        v.pop();
        trim_partial_char(&mut v, 0);
        assert_eq!(v, b"a");
        let mut v = "a€".as_bytes().to_vec();
        trim_partial_char(&mut v, 0);
        assert_eq!(v, "a€".as_bytes());
        let mut v = "a€".as_bytes().to_vec();
        v.pop();
        trim_partial_char(&mut v, 0);
        assert_eq!(v, b"a");
    }

    #[test]
    fn crlf_is_stripped_in_place() {
        let mut v = b"keep\r\nx\r\ny\rz\r\n".to_vec();
        strip_cr(&mut v, 0);
        assert_eq!(v, b"keep\nx\ny\rz\n");
    }
}
