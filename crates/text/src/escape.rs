//! Which characters change what a reader sees, so that output shows them escaped.
//!
//! A file name (`fs-mcp-sandbox`'s `escape_os`) and a line of file content (`fs-mcp-search`'s
//! `escape_content`) escape the same class; this is that class, kept in one place.

/// True for a character that could forge a line of output or change what a reader sees: a
/// control character (C0, DEL, C1: newline, carriage return, tab, ANSI escape…), the line and
/// paragraph separators, and the bidirectional controls (marks, embeddings, overrides, isolates).
pub fn changes_what_a_reader_sees(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{200E}' | '\u{200F}' | '\u{061C}'
        )
        || ('\u{202A}'..='\u{202E}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_separators_and_bidi_are_in_letters_and_spaces_are_not() {
        for c in [
            '\n', '\r', '\t', '\u{1b}', '\u{7f}', '\u{85}', '\u{2028}', '\u{202e}', '\u{2066}',
            '\u{61c}',
        ] {
            assert!(changes_what_a_reader_sees(c), "{c:?}");
        }
        for c in ['a', ' ', 'é', '\\', '中', '\u{2030}'] {
            assert!(!changes_what_a_reader_sees(c), "{c:?}");
        }
    }
}
