//! Cutting a long text short for output, in one place: at a character boundary always, and
//! marked so that a reader knows something was left out.

use std::borrow::Cow;

/// How much of the text to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// The first this many characters; the marker comes on top (for text shown to a reader,
    /// where characters are what counts).
    Chars(usize),
    /// At most this many bytes in all, the marker included (for a reply under a byte cap);
    /// the cut moves back to a character boundary.
    Bytes(usize),
}

/// How a cut is marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    /// `…` right after the kept text.
    Ellipsis,
    /// `...` right after the kept text (ASCII, for text that may be read by plain terminals).
    Dots,
    /// ` … [+N chars]`: how many characters were left out, for lines of file content.
    CountOfRest,
    /// `…` and then the last this many characters of the text, for an error quoting a long
    /// value whose end says as much as its start. Text that is at most this many characters
    /// longer than what is kept is not cut (the cut would save nothing).
    EllipsisThenTail(usize),
}

/// `text` cut to `keep`, with `marker` where it was cut; borrowed when it fits.
pub fn truncate(text: &str, keep: Keep, marker: Marker) -> Cow<'_, str> {
    let end = match keep {
        Keep::Chars(max) => match text.char_indices().nth(max) {
            None => return Cow::Borrowed(text),
            Some((end, _)) => end,
        },
        Keep::Bytes(max) => {
            if text.len() <= max {
                return Cow::Borrowed(text);
            }
            let mut end = max.saturating_sub(marker_bytes(text, marker));
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            end
        }
    };
    let (head, rest) = text.split_at(end);
    Cow::Owned(match marker {
        Marker::Ellipsis => format!("{head}…"),
        Marker::Dots => format!("{head}..."),
        Marker::CountOfRest => format!("{head} … [+{} chars]", rest.chars().count()),
        Marker::EllipsisThenTail(tail) => {
            let rest_chars = rest.chars().count();
            if rest_chars <= tail {
                return Cow::Borrowed(text);
            }
            match rest.char_indices().nth(rest_chars - tail) {
                Some((start, _)) => format!("{head}…{}", &rest[start..]),
                None => format!("{head}…"),
            }
        }
    })
}

/// The most bytes `marker` can take when cutting `text` (an upper bound for the counted one).
fn marker_bytes(text: &str, marker: Marker) -> usize {
    match marker {
        Marker::Ellipsis => ELLIPSIS.len(),
        Marker::Dots => 3,
        Marker::CountOfRest => format!(" {ELLIPSIS} [+{} chars]", text.len()).len(),
        Marker::EllipsisThenTail(tail) => {
            let tail_bytes = text
                .chars()
                .rev()
                .take(tail)
                .map(char::len_utf8)
                .sum::<usize>();
            ELLIPSIS.len() + tail_bytes
        }
    }
}

/// The ellipsis that marks most cuts.
const ELLIPSIS: &str = "…";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fitting_text_is_borrowed_whole() {
        for marker in [
            Marker::Ellipsis,
            Marker::Dots,
            Marker::CountOfRest,
            Marker::EllipsisThenTail(3),
        ] {
            assert!(matches!(
                truncate("abc", Keep::Chars(3), marker),
                Cow::Borrowed("abc")
            ));
            assert!(matches!(
                truncate("abc", Keep::Bytes(3), marker),
                Cow::Borrowed("abc")
            ));
            assert_eq!(truncate("", Keep::Chars(0), marker), "");
        }
    }

    #[test]
    fn each_marker_says_where_it_was_cut() {
        assert_eq!(truncate("abcdef", Keep::Chars(2), Marker::Ellipsis), "ab…");
        assert_eq!(truncate("abcdef", Keep::Chars(2), Marker::Dots), "ab...");
        assert_eq!(
            truncate("abcdef", Keep::Chars(2), Marker::CountOfRest),
            "ab … [+4 chars]"
        );
        assert_eq!(
            truncate("abcdefghij", Keep::Chars(2), Marker::EllipsisThenTail(3)),
            "ab…hij"
        );
        // Only three more characters than kept: nothing would be saved.
        assert_eq!(
            truncate("abcde", Keep::Chars(2), Marker::EllipsisThenTail(3)),
            "abcde"
        );
    }

    #[test]
    fn cuts_fall_on_character_boundaries() {
        let text = "ééé"; // two bytes each
        assert_eq!(truncate(text, Keep::Chars(1), Marker::Ellipsis), "é…");
        // Bytes count the marker too (3 bytes for "…").
        assert_eq!(truncate(text, Keep::Bytes(6), Marker::Ellipsis), "ééé");
        assert_eq!(truncate(text, Keep::Bytes(5), Marker::Ellipsis), "é…");
        assert_eq!(truncate(text, Keep::Bytes(6), Marker::Dots), "ééé");
        assert_eq!(truncate("éééé", Keep::Bytes(7), Marker::Dots), "éé...");
        assert_eq!(truncate(text, Keep::Bytes(1), Marker::Ellipsis), "…");
        let long = "a😀b".repeat(10);
        let cut = truncate(&long, Keep::Bytes(30), Marker::CountOfRest);
        assert!(cut.len() <= 30, "{cut}");
        assert!(cut.ends_with(" chars]"), "{cut}");
        assert_eq!(
            truncate("é😀ü😀é", Keep::Chars(1), Marker::EllipsisThenTail(2)),
            "é…😀é"
        );
    }
}
