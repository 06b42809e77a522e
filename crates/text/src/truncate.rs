//! Cutting a long text short for output, in one place: at a character boundary always, and
//! marked so that a reader knows something was left out.

use std::borrow::Cow;

/// How much of the text to keep (the marker comes on top).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// At most this many characters.
    Chars(usize),
    /// At most this many bytes, moved back to a character boundary.
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
            let mut end = max;
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
        assert_eq!(truncate(text, Keep::Bytes(3), Marker::Ellipsis), "é…");
        assert_eq!(truncate(text, Keep::Bytes(1), Marker::Ellipsis), "…");
        assert_eq!(
            truncate("a😀b", Keep::Bytes(4), Marker::CountOfRest),
            "a … [+2 chars]"
        );
        assert_eq!(
            truncate("é😀ü😀é", Keep::Chars(1), Marker::EllipsisThenTail(2)),
            "é…😀é"
        );
    }
}
