//! The arguments of `propose_and_review`, as plain Rust.

use serde::{Deserialize, Serialize};

/// `match_text` sentinel: replace the whole file with `new_string`.
pub const OVERWRITE_FILE: &str = "OVERWRITE_FILE";
/// `match_text` sentinel: append `new_string` to the file (starting on a new line).
pub const APPEND_TO_FILE: &str = "APPEND_TO_FILE";
/// Longest `match_text`, in characters, accepted without `bypass_match_text_limit`.
pub const MATCH_TEXT_MAX_LENGTH: usize = 2000;
/// How often `match_text` must occur when the request does not say.
pub const DEFAULT_EXPECTED_REPLACEMENTS: u32 = 1;

/// One edit of a batch.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EditSpec {
    /// The file this edit changes, when not the request's `path` (a multi-file proposal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The exact text to replace (or a sentinel).
    pub match_text: String,
    /// The replacement.
    pub new_string: String,
}

impl EditSpec {
    /// An edit replacing `match_text` with `new_string`.
    pub fn new(match_text: impl Into<String>, new_string: impl Into<String>) -> EditSpec {
        EditSpec {
            path: None,
            match_text: match_text.into(),
            new_string: new_string.into(),
        }
    }

    /// The same edit, of `path`.
    pub fn in_file(mut self, path: impl Into<String>) -> EditSpec {
        self.path = Some(path.into());
        self
    }
}

/// One file's edits of a multi-file proposal, each with its place in the request's `edits`.
pub type PlacedEdits = Vec<(usize, EditSpec)>;

/// The arguments of `propose_and_review`.
///
/// * `match_text = ""` on a missing file proposes a new file; on an empty file it replaces the
///   (empty) content. On a non-empty file it is refused.
/// * `match_text = "OVERWRITE_FILE"` replaces the whole file; `"APPEND_TO_FILE"` appends.
/// * `edits` (when non-empty) is a batch applied in order; each `match_text` must then occur
///   exactly once, and `match_text`/`new_string`/`expected_replacements` are ignored.
/// * `session_path` continues a review session returned by an earlier call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProposeRequest {
    /// The file to edit (resolved through the sandbox).
    pub path: String,
    /// The exact text to replace, or a sentinel.
    #[serde(default)]
    pub match_text: String,
    /// The replacement text.
    #[serde(default)]
    pub new_string: String,
    /// How many times `match_text` must occur (single edits); all of them are replaced.
    #[serde(default = "one")]
    pub expected_replacements: u32,
    /// Continue this review session (from a previous `REVIEW`, timeout or cancellation).
    #[serde(default)]
    pub session_path: Option<String>,
    /// A batch of edits, applied in order.
    #[serde(default)]
    pub edits: Option<Vec<EditSpec>>,
    /// Allow `match_text` longer than [`MATCH_TEXT_MAX_LENGTH`] characters.
    #[serde(default)]
    pub bypass_match_text_limit: bool,
}

fn one() -> u32 {
    DEFAULT_EXPECTED_REPLACEMENTS
}

impl Default for ProposeRequest {
    fn default() -> Self {
        ProposeRequest {
            path: String::new(),
            match_text: String::new(),
            new_string: String::new(),
            expected_replacements: DEFAULT_EXPECTED_REPLACEMENTS,
            session_path: None,
            edits: None,
            bypass_match_text_limit: false,
        }
    }
}

impl ProposeRequest {
    /// A single edit of `path`.
    pub fn single(
        path: impl Into<String>,
        match_text: impl Into<String>,
        new_string: impl Into<String>,
    ) -> ProposeRequest {
        ProposeRequest {
            path: path.into(),
            match_text: match_text.into(),
            new_string: new_string.into(),
            ..ProposeRequest::default()
        }
    }

    /// A batch of edits of `path`.
    pub fn batch(path: impl Into<String>, edits: Vec<EditSpec>) -> ProposeRequest {
        ProposeRequest {
            path: path.into(),
            edits: Some(edits),
            ..ProposeRequest::default()
        }
    }

    /// The same request, continuing `session_path`.
    pub fn in_session(mut self, session_path: impl Into<String>) -> ProposeRequest {
        self.session_path = Some(session_path.into());
        self
    }

    /// The session to continue, if any (a blank string counts as none).
    pub fn session(&self) -> Option<&str> {
        self.session_path
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
    }

    /// A call that only collects the verdict on an open session: `session_path` and no edit
    /// (`match_text`, `new_string` and `edits` all empty).
    pub fn is_collect(&self) -> bool {
        self.session().is_some()
            && self.match_text.is_empty()
            && self.new_string.is_empty()
            && self.batch_edits().is_none()
    }

    /// A multi-file proposal: the files and their edits in the order first named (the request's
    /// `path` first), each edit with its place in `edits` (0-based), when some edit names a file
    /// other than `path`; `None` otherwise.
    pub fn files(&self) -> Option<Vec<(String, PlacedEdits)>> {
        let edits = self.batch_edits()?;
        let file_of = |e: &EditSpec| {
            e.path
                .as_deref()
                .filter(|p| !p.trim().is_empty())
                .unwrap_or(&self.path)
                .to_string()
        };
        if edits.iter().all(|e| file_of(e) == self.path) {
            return None;
        }
        let mut files: Vec<(String, PlacedEdits)> = Vec::new();
        for (place, edit) in edits.iter().enumerate() {
            let file = file_of(edit);
            let mut edit = edit.clone();
            edit.path = None;
            match files.iter_mut().find(|(f, _)| *f == file) {
                Some((_, list)) => list.push((place, edit)),
                None => files.push((file, vec![(place, edit)])),
            }
        }
        Some(files)
    }

    /// The batch, if `edits` is non-empty (`[]` means single mode, as in the original).
    pub fn batch_edits(&self) -> Option<&[EditSpec]> {
        self.edits.as_deref().filter(|e| !e.is_empty())
    }
}
