//! `read_files`: several files in one call, each whole or in part, without loading large files.
//!
//! Each request picks one mode: the whole file, `head`, `tail`, a `start_line`/`end_line` range, or
//! `start_line` + `read_to_next_pattern` (from a line up to, not including, the next line matching a
//! regex). Partial reads stream: `head` and ranges stop reading at their last line, `tail` reads the
//! file backwards from its end. Whole-file reads are guarded by size, so a model is steered to a
//! partial read or a query instead of flooding its context.
//!
//! Every file is opened once, through the sandbox's handle walk ([`Sandbox::open_file`]): regular
//! files only, never reopened by path. Every reply is bounded: [`ReadOptions::max_reply_bytes`] in
//! all, [`ReadOptions::max_line_bytes`] per line of a partial read; what is cut is said, with the
//! call that reads on. The framing (see the `frame` module) carries a random tag per reply, so
//! file content cannot imitate it.
//!
//! Line endings: `\n` ends a line; a `\r` before it is dropped from the output, so CRLF files read
//! like LF files and their lines are counted correctly. Output keeps every other byte as is.

mod error;
mod frame;
mod lines;
mod media;
mod messages;
mod request;

use std::borrow::Cow;
use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, BufReader, Seek, SeekFrom};

use fs_mcp_sandbox::{Sandbox, escape_os};
use fs_mcp_text::{Keep, Marker, truncate};
use regex::bytes::Regex;

pub use error::ReadError;
use frame::Reply;
pub use fs_mcp_text::{format_size, thousands};
pub use lines::LineLen;
use lines::{Copied, CutLine, Sink, Stop, StopAt, TailStart, Whole};
pub use media::{DEFAULT_MAX_MEDIA_BYTES, MediaError, MediaFile, MediaKind, read_media};
pub use messages::{Note, ReadOn, ReadWords, Shown};
pub use request::{
    DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_REPLY_BYTES, ExampleQueries, MAX_REQUESTS, MIN_REPLY_BYTES,
    PATTERN_WORK_PER_CALL, ReadOptions, ReadRequest, StructuredKind,
};

/// Room kept for the note on items not read.
const FINAL_NOTE_ROOM: usize = 600;
/// Room kept for a block's own notes (cut, pattern not found).
const BLOCK_NOTE_ROOM: usize = 700;
/// Room kept for the marker of a cut line.
const MARKER_ROOM: usize = 300;
/// Another block is started only with this much of the reply left for its body.
const MIN_BLOCK_ROOM: usize = 512;
/// Bytes of a structured file's start that example queries are built from.
const EXAMPLE_HEAD_BYTES: usize = 64 * 1024;

/// Reads every request and renders the answer: one block per request, in order, framed with a
/// fresh random tag (see [`read_files_tagged`]).
pub fn read_files(
    sandbox: &Sandbox,
    requests: &[ReadRequest],
    options: &ReadOptions,
    render: &dyn ReadWords,
) -> String {
    read_files_tagged(sandbox, requests, options, render, &frame::new_tag())
}

/// [`read_files`] with a given tag (tests use a fixed one; a server must use a fresh random tag
/// per reply, or file content could imitate the framing).
///
/// Each block starts with `[TAG] File: {name}`; a failing request has `[TAG] ` and
/// `render`'s text for the error (`Error: …`) instead of text and never fails the others. When
/// the reply cap is reached, a block ends with a `[TAG] Note:` saying how to read on (`render`
/// words each [`Note`]), and the requests not reached are named in a last note.
pub fn read_files_tagged(
    sandbox: &Sandbox,
    requests: &[ReadRequest],
    options: &ReadOptions,
    render: &dyn ReadWords,
    tag: &str,
) -> String {
    let cap = options.max_reply_bytes.max(MIN_REPLY_BYTES);
    let mut reply = Reply::new(tag);
    let mut pattern_work = options.pattern_work;
    for (index, request) in requests.iter().enumerate() {
        let shown = shown_name(&request.path);
        let header = reply.tag().len() + " File: \n\n".len() + shown.len();
        let body_limit = cap.saturating_sub(FINAL_NOTE_ROOM + BLOCK_NOTE_ROOM);
        if reply.len() + header + MIN_BLOCK_ROOM > body_limit {
            not_read(&mut reply, requests, index, cap, render);
            break;
        }
        reply.frame("File", &shown);
        let read = read_block(
            sandbox,
            request,
            options,
            render,
            &shown,
            &mut reply,
            body_limit,
            &mut pattern_work,
        );
        if let Err(error) = read {
            let body_start = reply.body_start();
            reply.buf.truncate(body_start);
            let room = cap.saturating_sub(reply.len() + FINAL_NOTE_ROOM + header);
            reply.message(&truncate(
                &render.error(&error),
                Keep::Bytes(room),
                Marker::Ellipsis,
            ));
        }
    }
    reply.into_string()
}

/// Reads one request; `Ok(body)` is the text with its notes as the reply shows them (with the tag
/// `TAG`, the notes worded by `render`). For tests and tools that read one file.
pub fn read_one(
    sandbox: &Sandbox,
    request: &ReadRequest,
    options: &ReadOptions,
    render: &dyn ReadWords,
) -> Result<String, ReadError> {
    let shown = shown_name(&request.path);
    let cap = options.max_reply_bytes.max(MIN_REPLY_BYTES);
    let mut reply = Reply::new("TAG");
    reply.frame("File", &shown);
    let body_start = reply.len();
    let body_limit = cap.saturating_sub(FINAL_NOTE_ROOM + BLOCK_NOTE_ROOM);
    read_block(
        sandbox,
        request,
        options,
        render,
        &shown,
        &mut reply,
        body_limit,
        &mut { options.pattern_work },
    )?;
    let reply = reply.into_string();
    Ok(reply.get(body_start..).unwrap_or_default().to_string())
}

/// How a requested path is shown: as given, unless it holds characters that are shown escaped
/// (control characters, bidi controls); then it is escaped in full, so that passing the shown
/// text back names the same file. Backslashes alone keep it as given: it may be an escaped name
/// this server showed before.
fn shown_name(requested: &str) -> Cow<'_, str> {
    let escaped = escape_os(OsStr::new(requested));
    if matches!(escaped, Cow::Borrowed(_)) {
        return escaped;
    }
    let without_backslashes = requested.replace('\\', "");
    if matches!(
        escape_os(OsStr::new(&without_backslashes)),
        Cow::Borrowed(_)
    ) {
        return Cow::Borrowed(requested);
    }
    escaped
}

/// The last note of a reply cut before `first` of `requests`.
fn not_read(
    reply: &mut Reply,
    requests: &[ReadRequest],
    first: usize,
    cap: usize,
    render: &dyn ReadWords,
) {
    let names = requests[first..]
        .iter()
        .take(3)
        .map(|r| truncate(&shown_name(&r.path), Keep::Bytes(80), Marker::Ellipsis).into_owned())
        .collect::<Vec<_>>();
    let note = Note::NotRead {
        cap,
        first,
        total: requests.len(),
        names,
    };
    reply.frame("Note", &render.note(&note));
}

/// The mode a request asks for, after validation.
#[derive(Debug)]
enum Mode {
    Full,
    Head(u64),
    Tail(u64),
    Range {
        start: u64,
        end: Option<u64>,
    },
    ToPattern {
        start: u64,
        pattern: Regex,
        /// Its [`fs_mcp_text::pattern_weight`].
        weight: u64,
    },
}

/// Fewest bytes of a line searched for `read_to_next_pattern`, however costly the pattern.
const MIN_PATTERN_LINE_BYTES: u64 = 256;

/// Bytes of one line searched for a stop pattern of `weight` when a call may do `work`: one
/// search stays within [`fs_mcp_text::REGEX_WORK_PER_SEARCH`] and half the call's work.
fn pattern_line_bytes(weight: u64, work: u64) -> usize {
    let per_search = fs_mcp_text::REGEX_WORK_PER_SEARCH.min(work / 2);
    let bytes = (per_search / weight.max(1)).max(MIN_PATTERN_LINE_BYTES);
    usize::try_from(bytes).unwrap_or(usize::MAX)
}

/// Reads one request into the reply after its `File` frame, never past `limit` (the body) or the
/// notes' room. `Err` is what the `Error` frame that replaces the body says.
// The reply and the call's two bounds (its body's bytes, its pattern work) are each its own.
#[allow(clippy::too_many_arguments)]
fn read_block(
    sandbox: &Sandbox,
    request: &ReadRequest,
    options: &ReadOptions,
    render: &dyn ReadWords,
    shown: &str,
    reply: &mut Reply,
    limit: usize,
    pattern_work: &mut u64,
) -> Result<(), ReadError> {
    let opened = sandbox
        .open_file(&request.path)
        .map_err(|error| ReadError::Access {
            path: shown.to_string(),
            error,
        })?;
    let mode = choose_mode(request)?;
    let file = opened.file;
    let io_error = |error: io::Error| ReadError::Io {
        path: shown.to_string(),
        error,
    };
    if matches!(mode, Mode::Full) && !options.large_file_passthrough {
        messages::check_size_guards(shown, &opened.path, opened.meta.len, options, || {
            lines::read_head(&file, EXAMPLE_HEAD_BYTES).unwrap_or_default()
        })?;
    }
    let mut reader = BufReader::with_capacity(64 * 1024, &file);
    if lines::starts_binary(&mut reader).map_err(io_error)? {
        return Err(ReadError::Binary {
            path: shown.to_string(),
        });
    }
    let line_cap = if options.large_file_passthrough {
        usize::MAX
    } else {
        options.max_line_bytes.max(1)
    };
    let cap = options.max_reply_bytes.max(MIN_REPLY_BYTES);
    let tag = reply.tag().to_string();
    let body_start = reply.len();
    let first_line = match &mode {
        Mode::Full | Mode::Head(_) => Some(1),
        Mode::Range { start, .. } | Mode::ToPattern { start, .. } => Some(*start),
        Mode::Tail(_) => None,
    };
    let mut mark = |out: &mut Vec<u8>, cut: CutLine| {
        let line = first_line.map(|n| n + cut.index);
        let note = Note::LineCut {
            line,
            len: cut.len,
            shown: cut.shown,
            by_budget: cut.by_budget,
            line_cap,
            cap,
        };
        // The marker's room is kept in the sink; a longer wording is cut to it.
        let words = render.note(&note);
        let room = MARKER_ROOM.saturating_sub(tag.len() + " Cut: ".len() + 1);
        let words = truncate(&words, Keep::Bytes(room), Marker::Ellipsis);
        out.extend_from_slice(format!(" {tag} Cut: {words}").as_bytes());
    };
    let mut sink = Sink {
        out: &mut reply.buf,
        limit,
        marker_room: MARKER_ROOM,
    };
    let notes: Vec<Note> = match &mode {
        Mode::Full => {
            let whole = lines::copy_all(&mut reader, &mut sink, &mut mark).map_err(io_error)?;
            match whole {
                Whole::Complete => Vec::new(),
                Whole::Budget { lines } => vec![Note::ReplyCut {
                    cap,
                    shown: Shown::Lines {
                        first: 1,
                        last: lines,
                    },
                    read_on: read_on_from(shown, lines + 1, None, None),
                }],
                Whole::FirstLineCut { .. } => vec![Note::ReplyCut {
                    cap,
                    shown: Shown::FirstLineCut,
                    read_on: read_on_from(shown, 2, None, None),
                }],
            }
        }
        Mode::Head(count) => {
            let copied =
                lines::copy_lines(&mut reader, &mut sink, *count, line_cap, None, &mut mark)
                    .map_err(io_error)?;
            range_notes(shown, cap, 1, Some(*count), None, copied)
        }
        Mode::Range { start, end } => {
            skip_to(&mut reader, shown, *start, &io_error)?;
            let count = end.map_or(u64::MAX, |end| end - start + 1);
            let copied =
                lines::copy_lines(&mut reader, &mut sink, count, line_cap, None, &mut mark)
                    .map_err(io_error)?;
            range_notes(shown, cap, *start, *end, None, copied)
        }
        Mode::ToPattern {
            start,
            pattern,
            weight,
        } => {
            skip_to(&mut reader, shown, *start, &io_error)?;
            let mut stop_at = StopAt {
                regex: pattern,
                weight: *weight,
                line_bytes: pattern_line_bytes(*weight, options.pattern_work),
                work_left: pattern_work,
                lines_partly_searched: 0,
            };
            let copied = lines::copy_lines(
                &mut reader,
                &mut sink,
                u64::MAX,
                line_cap,
                Some(&mut stop_at),
                &mut mark,
            )
            .map_err(io_error)?;
            let mut notes = if copied.stop == Stop::EndOfFile {
                vec![Note::PatternNotFound {
                    pattern: pattern.as_str().to_string(),
                    start: *start,
                }]
            } else {
                range_notes(shown, cap, *start, None, Some(pattern.as_str()), copied)
            };
            if stop_at.lines_partly_searched > 0 {
                notes.push(Note::PatternLinesPartlySearched {
                    pattern: pattern.as_str().to_string(),
                    lines: stop_at.lines_partly_searched,
                    bytes: stop_at.line_bytes,
                });
            }
            notes
        }
        Mode::Tail(count) => {
            drop(reader);
            read_tail(&file, *count, line_cap, shown, cap, &mut sink, &mut mark)
                .map_err(io_error)?
        }
    };
    if let Err(e) = std::str::from_utf8(&reply.buf[body_start..]) {
        let valid = &reply.buf[body_start..body_start + e.valid_up_to()];
        let line = first_line
            .filter(|_| !matches!(mode, Mode::Full))
            .map_or(0, |n| n + memchr::memchr_iter(b'\n', valid).count() as u64);
        return Err(if line == 0 {
            ReadError::Binary {
                path: shown.to_string(),
            }
        } else {
            ReadError::NotUtf8 {
                path: shown.to_string(),
                line,
            }
        });
    }
    lines::strip_cr(&mut reply.buf, body_start);
    for note in notes {
        reply.frame("Note", &render.note(&note));
    }
    Ok(())
}

/// Skips to line `start`, which must exist.
fn skip_to(
    reader: &mut BufReader<&File>,
    shown: &str,
    start: u64,
    io_error: &dyn Fn(io::Error) -> ReadError,
) -> Result<(), ReadError> {
    let available = lines::skip_lines(reader, start - 1).map_err(io_error)?;
    if available < start - 1 || lines::at_eof(reader).map_err(io_error)? {
        return Err(ReadError::StartPastEnd {
            path: shown.to_string(),
            start,
            lines: available,
        });
    }
    Ok(())
}

/// The notes after a forward read of lines `start..=end` (or to the end, or to the pattern).
fn range_notes(
    shown: &str,
    cap: usize,
    start: u64,
    end: Option<u64>,
    pattern: Option<&str>,
    copied: Copied,
) -> Vec<Note> {
    let next = start + copied.lines;
    if end.is_some_and(|end| next > end) {
        return Vec::new();
    }
    let shown_lines = if copied.lines == 0 {
        Shown::NoLine
    } else {
        Shown::Lines {
            first: start,
            last: next - 1,
        }
    };
    let read_on = read_on_from(shown, next, end, pattern);
    match copied.stop {
        Stop::Budget => vec![Note::ReplyCut {
            cap,
            shown: shown_lines,
            read_on,
        }],
        Stop::LineUnended => vec![Note::LineUnended {
            line: Some(next - 1),
            scan: lines::LONG_LINE_SCAN,
            read_on,
        }],
        Stop::PatternWork => vec![Note::PatternWorkSpent {
            pattern: pattern.unwrap_or_default().to_string(),
            line: next,
            shown: shown_lines,
            read_on,
        }],
        Stop::Done | Stop::EndOfFile | Stop::Pattern => Vec::new(),
    }
}

/// The item that reads on from line `start` of `shown`.
fn read_on_from(shown: &str, start: u64, end: Option<u64>, pattern: Option<&str>) -> ReadOn {
    ReadOn::From {
        path: shown.to_string(),
        start,
        end,
        pattern: pattern.map(str::to_string),
    }
}

/// `tail`: finds where the last `count` lines start by reading backwards (at most
/// [`lines::TAIL_SCAN`] bytes), then copies them forward from the same handle.
fn read_tail(
    file: &File,
    count: u64,
    line_cap: usize,
    shown: &str,
    cap: usize,
    sink: &mut Sink<'_>,
    mark: &mut dyn FnMut(&mut Vec<u8>, CutLine),
) -> io::Result<Vec<Note>> {
    let len = file.metadata()?.len();
    if count == 0 || len == 0 {
        return Ok(Vec::new());
    }
    let (offset, lines, partial) = match lines::tail_start(file, len, count, lines::TAIL_SCAN)? {
        TailStart::At { offset, lines } => (offset, lines, false),
        TailStart::Partial { offset, lines } => (offset, lines, true),
        TailStart::LongLastLine => {
            let room = sink.limit.saturating_sub(sink.out.len());
            let want = line_cap.min(room);
            lines::copy_end(file, len, want, sink.out)?;
            return Ok(vec![Note::LongLastLine {
                scan: lines::TAIL_SCAN,
                shown: want,
            }]);
        }
    };
    let mut handle = file;
    handle.seek(SeekFrom::Start(offset))?;
    let mut reader = BufReader::with_capacity(64 * 1024, handle);
    let copied = lines::copy_lines(&mut reader, sink, lines, line_cap, None, mark)?;
    let mut notes = Vec::new();
    if partial {
        notes.push(Note::TailPartial {
            lines,
            scan: lines::TAIL_SCAN,
        });
    }
    let rest = lines.saturating_sub(copied.lines);
    if rest > 0 {
        let read_on = ReadOn::Tail {
            path: shown.to_string(),
            lines: rest,
        };
        match copied.stop {
            Stop::Budget => notes.push(Note::ReplyCut {
                cap,
                shown: Shown::TailLines {
                    shown: copied.lines,
                    of: lines,
                },
                read_on,
            }),
            Stop::LineUnended => notes.push(Note::LineUnended {
                line: None,
                scan: lines::LONG_LINE_SCAN,
                read_on,
            }),
            _ => {}
        }
    }
    Ok(notes)
}

/// Validates the combination of mode parameters. `0` for `head`, `tail`, `start_line` and
/// `end_line` means "not given" (models often fill unused integers with 0); negative values are
/// errors.
fn choose_mode(request: &ReadRequest) -> Result<Mode, ReadError> {
    let non_negative = |name: &'static str, value: Option<i64>| -> Result<Option<u64>, ReadError> {
        match value {
            Some(value) if value < 0 => Err(ReadError::Negative { name, value }),
            Some(v) => Ok(Some(v as u64)),
            None => Ok(None),
        }
    };
    let head = non_negative("head", request.head)?.filter(|&v| v > 0);
    let tail = non_negative("tail", request.tail)?.filter(|&v| v > 0);
    let start = non_negative("start_line", request.start_line)?.filter(|&v| v > 0);
    let end = non_negative("end_line", request.end_line)?.filter(|&v| v > 0);
    let pattern = request
        .read_to_next_pattern
        .as_deref()
        .filter(|p| !p.is_empty());

    if let (Some(end), Some(pattern)) = (end, pattern) {
        return Err(ReadError::EndLineWithPattern {
            end_line: end,
            pattern: pattern.to_string(),
        });
    }
    if let (Some(pattern), None) = (pattern, start) {
        return Err(ReadError::PatternWithoutStart {
            pattern: pattern.to_string(),
        });
    }
    if (head.is_some() || tail.is_some()) && (start.is_some() || end.is_some() || pattern.is_some())
    {
        return Err(ReadError::MixedModes);
    }
    if let (Some(_), Some(_)) = (head, tail) {
        return Err(ReadError::HeadAndTail);
    }
    if let Some(pattern) = pattern {
        let regex = Regex::new(pattern).map_err(|error| ReadError::BadPattern {
            pattern: pattern.to_string(),
            error,
        })?;
        return Ok(Mode::ToPattern {
            start: start.unwrap_or(1),
            pattern: regex,
            weight: fs_mcp_text::pattern_weight(pattern, false),
        });
    }
    if let Some(n) = head {
        return Ok(Mode::Head(n));
    }
    if let Some(n) = tail {
        return Ok(Mode::Tail(n));
    }
    if start.is_some() || end.is_some() {
        let start = start.unwrap_or(1);
        if let Some(end) = end
            && end < start
        {
            return Err(ReadError::EndBeforeStart { start, end });
        }
        return Ok(Mode::Range { start, end });
    }
    Ok(Mode::Full)
}

#[cfg(test)]
mod tests;
