//! Small formatting helpers shared by the tools: timestamps, lines as shown (cut, escaped).
//! (Sizes and counts are `fs-mcp-text`'s; the sentences around them are the binary's.)

use std::time::{SystemTime, UNIX_EPOCH};

/// A timestamp as UTC ISO-8601 with seconds: `2026-11-21T10:22:33Z`.
pub fn format_utc(time: SystemTime) -> String {
    let (secs, negative) = match time.duration_since(UNIX_EPOCH) {
        Ok(d) => (d.as_secs() as i64, false),
        Err(e) => (e.duration().as_secs() as i64, true),
    };
    let secs = if negative { -secs } else { secs };
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to a proleptic Gregorian (year, month, day).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    // Shift the epoch to 0000-03-01 so that leap days fall at the end of a 400-year era.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Longest line shown in search output; longer lines (minified code, data) are cut.
pub const MAX_LINE_CHARS: usize = 300;

/// Decodes one line for display: lossy UTF-8, line terminator removed, cut at [`MAX_LINE_CHARS`]
/// characters with a note of how much was left out. Leading whitespace is kept.
/// Control characters (except tab), line/paragraph separators and bidi controls are shown
/// escaped (`\x1b`, `\r`, `\u{202e}`), so a line of content is always one line of output and
/// cannot move the cursor, recolour or reorder what a reader sees.
pub fn display_line(bytes: &[u8]) -> String {
    let bytes = strip_terminator(bytes);
    // Common case: a short UTF-8 line (at most MAX_LINE_CHARS bytes, so as many characters).
    if bytes.len() <= MAX_LINE_CHARS
        && let Ok(text) = std::str::from_utf8(bytes)
    {
        return escape_content(text);
    }
    let mut shown = String::new();
    let (mut count, mut rest) = (0usize, 0usize);
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if count < MAX_LINE_CHARS {
                shown.push(c);
                count += 1;
            } else {
                rest += 1;
            }
        }
        if !chunk.invalid().is_empty() {
            if count < MAX_LINE_CHARS {
                shown.push(char::REPLACEMENT_CHARACTER);
                count += 1;
            } else {
                rest += 1;
            }
        }
    }
    let mut out = escape_content(&shown);
    if rest > 0 {
        out.push_str(&format!(" … [+{rest} chars]"));
    }
    out
}

/// True for characters that a line of content shows escaped: the shared class
/// ([`fs_mcp_text::changes_what_a_reader_sees`]) but tab, which content keeps.
fn is_unsafe_in_line(c: char) -> bool {
    c != '\t' && fs_mcp_text::changes_what_a_reader_sees(c)
}

/// `text` with [`is_unsafe_in_line`] characters escaped; borrowed-cheap when there are none.
pub fn escape_content(text: &str) -> String {
    // Common case, checked by bytes: ASCII with no control character but tab.
    if text
        .bytes()
        .all(|b| (b' '..0x7f).contains(&b) || b == b'\t')
    {
        return text.to_string();
    }
    if !text.chars().any(is_unsafe_in_line) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\t' => out.push('\t'),
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            c if c.is_ascii_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if is_unsafe_in_line(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Removes a trailing `\n` or `\r\n`.
pub fn strip_terminator(bytes: &[u8]) -> &[u8] {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    bytes.strip_suffix(b"\r").unwrap_or(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn utc_timestamps() {
        assert_eq!(format_utc(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let t = UNIX_EPOCH + Duration::from_secs(951_782_400 + 3661); // 2000-02-29 01:01:01
        assert_eq!(format_utc(t), "2000-02-29T01:01:01Z");
        let t = UNIX_EPOCH + Duration::from_secs(1_795_000_000);
        assert_eq!(format_utc(t), "2026-11-18T11:06:40Z");
    }

    #[test]
    fn lines_are_cut_and_terminators_dropped() {
        assert_eq!(display_line(b"  x\r\n"), "  x");
        let long = "é".repeat(MAX_LINE_CHARS + 5);
        let shown = display_line(long.as_bytes());
        assert!(shown.ends_with(" … [+5 chars]"), "{shown}");
        assert_eq!(display_line(b"a\xffb\n"), "a\u{fffd}b");
        let huge = "x".repeat(5_000_000);
        let shown = display_line(huge.as_bytes());
        assert!(shown.ends_with(" … [+4999700 chars]"), "{}", &shown[290..]);
    }

    #[test]
    fn control_characters_in_lines_are_escaped() {
        assert_eq!(
            display_line(b"a\x1b[31mred\rFile: b.txt\x0b\n"),
            "a\\x1b[31mred\\rFile: b.txt\\x0b"
        );
        assert_eq!(
            display_line("rtl\u{202e}x\tt".as_bytes()),
            "rtl\\u{202e}x\tt"
        );
    }
}
