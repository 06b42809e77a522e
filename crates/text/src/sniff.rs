//! The one rule every tool uses to tell a binary file from text.
//!
//! A file is **binary** when its first [`SNIFF_BYTES`] bytes hold a NUL byte (the rule git and
//! ripgrep use). A file that is not binary but holds invalid UTF-8 is **not UTF-8 text**: a
//! separate answer, which tools that need text (edit, query) refuse with their own message and
//! tools that only describe a file (get_file_info) report without refusing.

/// How many leading bytes decide whether a file is binary.
pub const SNIFF_BYTES: usize = 8 * 1024;

/// True when the start of a file (`head`; only its first [`SNIFF_BYTES`] are looked at) holds a
/// NUL byte.
pub fn is_binary(head: &[u8]) -> bool {
    memchr::memchr(0, &head[..head.len().min(SNIFF_BYTES)]).is_some()
}

/// Why bytes are not usable as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotText {
    /// A NUL byte in the first [`SNIFF_BYTES`] (see [`is_binary`]).
    Binary,
    /// Not binary, but not valid UTF-8.
    InvalidUtf8 {
        /// Byte offset of the first invalid byte.
        valid_up_to: usize,
    },
}

impl std::fmt::Display for NotText {
    /// Terse, for logs: the binary words it for the model (`src/render/edit.rs`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotText::Binary => write!(f, "binary (NUL byte)"),
            NotText::InvalidUtf8 { valid_up_to } => {
                write!(f, "invalid UTF-8 at byte {valid_up_to}")
            }
        }
    }
}

/// `bytes` as UTF-8 text, or why not. `complete` says whether `bytes` is the whole file: when it
/// is only a prefix, a character cut at its end is not an error (the text before it is returned).
pub fn as_text(bytes: &[u8], complete: bool) -> Result<&str, NotText> {
    if is_binary(bytes) {
        return Err(NotText::Binary);
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(e) if !complete && e.error_len().is_none() => {
            // The prefix is valid UTF-8 by the error's own account.
            std::str::from_utf8(&bytes[..e.valid_up_to()]).map_err(|_| NotText::InvalidUtf8 {
                valid_up_to: e.valid_up_to(),
            })
        }
        Err(e) => Err(NotText::InvalidUtf8 {
            valid_up_to: e.valid_up_to(),
        }),
    }
}

/// Like [`as_text`] for a whole file held in a `Vec`, without copying it.
pub fn into_text(bytes: Vec<u8>) -> Result<String, NotText> {
    if is_binary(&bytes) {
        return Err(NotText::Binary);
    }
    String::from_utf8(bytes).map_err(|e| NotText::InvalidUtf8 {
        valid_up_to: e.utf8_error().valid_up_to(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_in_the_first_8_kib_is_binary() {
        assert!(is_binary(b"a\0b"));
        assert!(is_binary(b"\0"));
        let mut late = vec![b'a'; SNIFF_BYTES - 1];
        late.push(0);
        assert!(is_binary(&late), "the last sniffed byte counts");
    }

    #[test]
    fn nul_after_8_kib_or_none_is_not_binary() {
        assert!(!is_binary(b""));
        assert!(!is_binary(b"plain text\n"));
        assert!(!is_binary(b"\xff\xfe not utf-8 but no NUL"));
        let mut late = vec![b'a'; SNIFF_BYTES];
        late.push(0);
        assert!(
            !is_binary(&late),
            "a NUL past the sniff window is not looked at"
        );
    }

    #[test]
    fn text_answers() {
        assert_eq!(as_text(b"ok", true), Ok("ok"));
        assert_eq!(as_text(b"a\0b", true), Err(NotText::Binary));
        assert_eq!(
            as_text(b"a\xffb", true),
            Err(NotText::InvalidUtf8 { valid_up_to: 1 })
        );
        assert_eq!(into_text(b"ok".to_vec()).as_deref(), Ok("ok"));
        assert_eq!(into_text(b"a\0b".to_vec()), Err(NotText::Binary));
        assert_eq!(
            into_text(vec![b'a', 0xff]),
            Err(NotText::InvalidUtf8 { valid_up_to: 1 })
        );
    }

    #[test]
    fn a_character_cut_at_the_end_of_a_prefix_is_text() {
        let e_acute = "é".as_bytes();
        let cut = [b'a', e_acute[0]];
        assert_eq!(as_text(&cut, false), Ok("a"));
        assert_eq!(
            as_text(&cut, true),
            Err(NotText::InvalidUtf8 { valid_up_to: 1 })
        );
        // A bad byte in the middle is bad even in a prefix.
        assert_eq!(
            as_text(b"a\xffb", false),
            Err(NotText::InvalidUtf8 { valid_up_to: 1 })
        );
    }
}
