//! How a file's text is shown to the model and written back: line endings, UTF-8 BOM and the
//! final newline.
//!
//! The model always works on the *model view* of a file: no BOM, LF line endings. A
//! [`TextStyle`] detected from the file on disk turns a model-view text back into the file's own
//! style, so a CRLF file stays CRLF, a BOM stays, and a file that ended without a newline keeps
//! ending without one.
//!
//! Files with mixed line endings are written back in their dominant style (the one used by more
//! lines); [`TextStyle::mixed_line_endings`] tells the caller so it can say so.

use std::borrow::Cow;

/// The UTF-8 byte order mark as a character.
pub const BOM: char = '\u{FEFF}';

/// The line terminator a file uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEnding {
    /// `\n`
    Lf,
    /// `\r\n`
    Crlf,
}

impl LineEnding {
    /// The terminator itself.
    pub fn as_str(self) -> &'static str {
        match self {
            LineEnding::Lf => "\n",
            LineEnding::Crlf => "\r\n",
        }
    }
}

/// The text style of a file: what must be restored when model-view text is written back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextStyle {
    /// The file starts with a UTF-8 BOM.
    pub bom: bool,
    /// The file's (dominant) line ending.
    pub line_ending: LineEnding,
    /// `Some(true)`: the text ends with a newline; `Some(false)`: it does not; `None`: the text
    /// was empty, so there is no preference and proposals are written as given.
    pub final_newline: Option<bool>,
    /// The file used both CRLF and bare LF line endings.
    pub mixed_line_endings: bool,
}

impl Default for TextStyle {
    fn default() -> Self {
        TextStyle::PLAIN
    }
}

impl TextStyle {
    /// The style of a new file: no BOM, LF, no final-newline preference.
    pub const PLAIN: TextStyle = TextStyle {
        bom: false,
        line_ending: LineEnding::Lf,
        final_newline: None,
        mixed_line_endings: false,
    };

    /// Detects the style of a file's text as read from disk (BOM included, if any).
    pub fn detect(raw: &str) -> TextStyle {
        let (bom, body) = match raw.strip_prefix(BOM) {
            Some(rest) => (true, rest),
            None => (false, raw),
        };
        let crlf = body.matches("\r\n").count();
        let all_lf = body.bytes().filter(|&b| b == b'\n').count();
        let bare_lf = all_lf - crlf;
        TextStyle {
            bom,
            line_ending: if crlf > bare_lf {
                LineEnding::Crlf
            } else {
                LineEnding::Lf
            },
            final_newline: if body.is_empty() {
                None
            } else {
                Some(body.ends_with('\n'))
            },
            mixed_line_endings: crlf > 0 && bare_lf > 0,
        }
    }

    /// This style, with the final-newline preference taken from `model` (a model-view text).
    pub fn with_final_newline_of(self, model: &str) -> TextStyle {
        TextStyle {
            final_newline: if model.is_empty() {
                None
            } else {
                Some(model.ends_with('\n'))
            },
            ..self
        }
    }

    /// Adjusts the end of a model-view text to this style's final-newline preference: adds one
    /// `\n` if the file ended with a newline and the text does not, removes one if the file ended
    /// without a newline and the text has one. An empty text stays empty.
    pub fn apply_final_newline<'a>(&self, model: &'a str) -> Cow<'a, str> {
        match self.final_newline {
            Some(true) if !model.is_empty() && !model.ends_with('\n') => {
                Cow::Owned(format!("{model}\n"))
            }
            Some(false) => match model.strip_suffix('\n') {
                Some(rest) => Cow::Borrowed(rest),
                None => Cow::Borrowed(model),
            },
            _ => Cow::Borrowed(model),
        }
    }

    /// Renders a model-view text in this style, final newline adjusted (see
    /// [`apply_final_newline`](Self::apply_final_newline)).
    pub fn render(&self, model: &str) -> String {
        self.render_verbatim(&self.apply_final_newline(model))
    }

    /// Renders a model-view text with this style's BOM and line endings, keeping its end exactly
    /// as it is (used for text the human wrote).
    pub fn render_verbatim(&self, model: &str) -> String {
        let model = model.strip_prefix(BOM).unwrap_or(model);
        let mut out = String::with_capacity(model.len() + model.len() / 32 + 3);
        if self.bom {
            out.push(BOM);
        }
        match self.line_ending {
            LineEnding::Lf => out.push_str(model),
            LineEnding::Crlf => {
                // The model view has no CRLF, but text from a human may: keep those as they are.
                let mut prev_cr = false;
                for c in model.chars() {
                    if c == '\n' && !prev_cr {
                        out.push('\r');
                    }
                    out.push(c);
                    prev_cr = c == '\r';
                }
            }
        }
        out
    }
}

/// The model view of a text: a leading BOM removed and every CRLF turned into LF. A lone CR is
/// kept (it can be part of the content).
pub fn to_model(raw: &str) -> String {
    let body = raw.strip_prefix(BOM).unwrap_or(raw);
    if body.contains("\r\n") {
        body.replace("\r\n", "\n")
    } else {
        body.to_string()
    }
}

/// CRLF → LF only (no BOM handling); for texts that come from the model.
pub fn normalize_newlines(text: &str) -> Cow<'_, str> {
    if text.contains("\r\n") {
        Cow::Owned(text.replace("\r\n", "\n"))
    } else {
        Cow::Borrowed(text)
    }
}

/// Why a file's bytes are not editable text (the shared rule, [`fs_mcp_text`]).
pub use fs_mcp_text::NotText;

/// Decodes a file's bytes as UTF-8 text, refusing binary files.
pub fn decode_text(bytes: Vec<u8>) -> Result<String, NotText> {
    fs_mcp_text::into_text(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_styles() {
        let s = TextStyle::detect("a\r\nb\r\n");
        assert_eq!(s.line_ending, LineEnding::Crlf);
        assert_eq!(s.final_newline, Some(true));
        assert!(!s.bom && !s.mixed_line_endings);
        let s = TextStyle::detect("\u{FEFF}a\nb");
        assert!(s.bom);
        assert_eq!(s.line_ending, LineEnding::Lf);
        assert_eq!(s.final_newline, Some(false));
        let s = TextStyle::detect("a\r\nb\r\nc\n");
        assert!(s.mixed_line_endings);
        assert_eq!(s.line_ending, LineEnding::Crlf);
        assert_eq!(TextStyle::detect("").final_newline, None);
    }

    #[test]
    fn round_trips() {
        for raw in [
            "a\r\nb\r\n",
            "\u{FEFF}a\r\nb",
            "x\ny\n",
            "x\ny",
            "",
            "\u{FEFF}",
            "a\rb\r\n",
        ] {
            let style = TextStyle::detect(raw);
            assert_eq!(style.render(&to_model(raw)), raw, "{raw:?}");
            assert_eq!(style.render_verbatim(&to_model(raw)), raw, "{raw:?}");
        }
    }

    #[test]
    fn final_newline_is_kept_or_left_out() {
        let with = TextStyle::detect("a\n");
        assert_eq!(with.render("b"), "b\n");
        assert_eq!(with.render(""), "");
        let without = TextStyle::detect("a");
        assert_eq!(without.render("b\n"), "b");
        assert_eq!(without.render("b\n\n"), "b\n");
        let crlf = TextStyle::detect("a\r\n");
        assert_eq!(crlf.render("x\ny"), "x\r\ny\r\n");
        assert_eq!(crlf.render_verbatim("x\r\ny"), "x\r\ny");
    }

    #[test]
    fn decodes_text_only() {
        assert_eq!(decode_text(b"ok".to_vec()).as_deref(), Ok("ok"));
        assert_eq!(decode_text(b"a\0b".to_vec()), Err(NotText::Binary));
        assert!(matches!(
            decode_text(vec![b'a', 0xff]),
            Err(NotText::InvalidUtf8 { valid_up_to: 1 })
        ));
    }
}
