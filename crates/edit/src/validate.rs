//! The first steps of a proposal: normalising the edits and validating every
//! `match_text` before any session is touched.

use crate::error::{EditError, Failure, NextStep};
use crate::request::{
    APPEND_TO_FILE, EditSpec, MATCH_TEXT_MAX_LENGTH, OVERWRITE_FILE, ProposeRequest,
};
use crate::text_style::normalize_newlines;

/// What an edit replaces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Target {
    /// This exact text (LF line endings, never empty).
    Text(String),
    /// The whole content (`OVERWRITE_FILE`, or a blank `match_text` on a blank or missing file).
    Overwrite,
    /// Nothing: `new_string` is appended.
    Append,
}

/// One validated edit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Edit {
    pub target: Target,
    /// LF line endings.
    pub new_string: String,
}

/// The validated edits of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Plan {
    /// The request used `edits`.
    pub batch: bool,
    pub edits: Vec<Edit>,
}

/// Validates the request against the file's model-view text (`None`: the file does not exist).
pub(crate) fn validate(req: &ProposeRequest, file: Option<&str>) -> Result<Plan, EditError> {
    let (batch, specs): (bool, Vec<EditSpec>) = match req.batch_edits() {
        Some(edits) => (true, edits.to_vec()),
        None => (
            false,
            vec![EditSpec::new(
                req.match_text.clone(),
                req.new_string.clone(),
            )],
        ),
    };
    let edit = |idx: usize| batch.then_some(idx);
    let file_blank = file.is_none_or(|t| t.trim().is_empty());
    // `edits` and `match_text`/`new_string` are two ways to say the change: one of them only,
    // and an empty `edits` with nothing else is no change (not a blank match_text).
    match req.edits.as_deref() {
        Some(edits)
            if !edits.is_empty() && (!req.match_text.is_empty() || !req.new_string.is_empty()) =>
        {
            return Err(EditError::new(Failure::EditsAndMatchText {
                edits: edits.len(),
            }));
        }
        Some([]) if req.match_text.is_empty() && req.new_string.is_empty() && !file_blank => {
            return Err(EditError::new(Failure::EmptyEdits));
        }
        _ => {}
    }

    // Loop 1, in index order: blank text, then sentinels.
    let mut targets = Vec::with_capacity(specs.len());
    for (idx, spec) in specs.iter().enumerate() {
        let mt = spec.match_text.as_str();
        let target = if mt.trim().is_empty() {
            if !file_blank {
                return Err(EditError::new(Failure::BlankMatchText { edit: edit(idx) })
                    .with_next(NextStep::ReadBeforeReplacing));
            }
            Target::Overwrite
        } else if mt == OVERWRITE_FILE {
            Target::Overwrite
        } else if mt == APPEND_TO_FILE {
            if file.is_none() {
                return Err(EditError::new(Failure::AppendToMissingFile {
                    edit: edit(idx),
                }));
            }
            Target::Append
        } else {
            Target::Text(normalize_newlines(mt).into_owned())
        };
        targets.push(target);
    }

    // Loop 2: length of the real (non-sentinel, non-blank) match texts.
    if !req.bypass_match_text_limit {
        for (idx, (spec, target)) in specs.iter().zip(&targets).enumerate() {
            if matches!(target, Target::Text(_))
                && spec.match_text.chars().count() > MATCH_TEXT_MAX_LENGTH
            {
                return Err(
                    EditError::new(Failure::MatchTextTooLong { edit: edit(idx) })
                        .with_next(NextStep::ShortenMatchText),
                );
            }
        }
    }

    Ok(Plan {
        batch,
        edits: specs
            .into_iter()
            .zip(targets)
            .map(|(spec, target)| Edit {
                target,
                new_string: normalize_newlines(&spec.new_string).into_owned(),
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(mt: &str) -> ProposeRequest {
        ProposeRequest::single("f.py", mt, "x")
    }

    #[test]
    fn blank_match_text() {
        let e = validate(&req("   "), Some("def hello(): pass\n")).unwrap_err();
        assert!(matches!(
            e.failure(),
            Failure::BlankMatchText { edit: None }
        ));
        assert_eq!(e.next(), Some(&NextStep::ReadBeforeReplacing));
        let plan = validate(&req(""), Some("  \n")).unwrap();
        assert_eq!(plan.edits[0].target, Target::Overwrite);
        let plan = validate(&req(""), None).unwrap();
        assert_eq!(plan.edits[0].target, Target::Overwrite);
    }

    #[test]
    fn edits_and_match_text_together_or_an_empty_edits_alone_are_refused() {
        let mut both = req("old");
        both.edits = Some(vec![EditSpec::new("a", "b")]);
        let e = validate(&both, Some("old a\n")).unwrap_err();
        assert!(
            matches!(e.failure(), Failure::EditsAndMatchText { edits: 1 }),
            "{e}"
        );
        let mut empty = ProposeRequest::single("f.py", "", "");
        empty.edits = Some(Vec::new());
        let e = validate(&empty, Some("content\n")).unwrap_err();
        assert!(matches!(e.failure(), Failure::EmptyEdits), "{e}");
        // `[]` still falls back to match_text/new_string, and proposes a new empty file
        // where there is none.
        let mut fallback = req("def");
        fallback.edits = Some(Vec::new());
        assert!(validate(&fallback, Some("def f\n")).is_ok());
        assert!(validate(&empty, None).is_ok());
    }

    #[test]
    fn length_limit_and_bypass() {
        assert!(validate(&req(&"x".repeat(2000)), Some("y")).is_ok());
        let e = validate(&req(&"x".repeat(2001)), Some("y")).unwrap_err();
        assert!(matches!(
            e.failure(),
            Failure::MatchTextTooLong { edit: None }
        ));
        assert_eq!(e.next(), Some(&NextStep::ShortenMatchText));
        let mut r = req(&"x".repeat(2500));
        r.bypass_match_text_limit = true;
        assert!(validate(&r, Some("y")).is_ok());
        // Characters, not bytes.
        assert!(validate(&req(&"é".repeat(2000)), Some("y")).is_ok());
    }

    #[test]
    fn batch_prefixes_and_order() {
        let r = ProposeRequest::batch(
            "f",
            vec![EditSpec::new("a".repeat(2001), "b"), EditSpec::new("", "c")],
        );
        // The blank-text loop runs first, so edit 1's blank error wins over edit 0's length.
        let e = validate(&r, Some("content")).unwrap_err();
        assert!(
            matches!(e.failure(), Failure::BlankMatchText { edit: Some(1) }),
            "{e}"
        );
        let r = ProposeRequest::batch(
            "f",
            vec![
                EditSpec::new("ok", "b"),
                EditSpec::new("a".repeat(2001), "c"),
            ],
        );
        assert!(matches!(
            validate(&r, Some("content")).unwrap_err().failure(),
            Failure::MatchTextTooLong { edit: Some(1) }
        ));
    }

    #[test]
    fn sentinels() {
        let plan = validate(&req(OVERWRITE_FILE), Some("abc")).unwrap();
        assert_eq!(plan.edits[0].target, Target::Overwrite);
        let plan = validate(&req(APPEND_TO_FILE), Some("abc")).unwrap();
        assert_eq!(plan.edits[0].target, Target::Append);
        let e = validate(&req(APPEND_TO_FILE), None).unwrap_err();
        assert!(matches!(
            e.failure(),
            Failure::AppendToMissingFile { edit: None }
        ));
        // `edits: []` falls back to single mode.
        let mut r = req("abc");
        r.edits = Some(vec![]);
        assert!(!validate(&r, Some("abc")).unwrap().batch);
    }
}
