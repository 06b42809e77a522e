//! Building a proposal: applying validated edits to a model-view text (the step after
//! validation in docs/tools.md, `propose_and_review`).
//!
//! Differences from the original, on purpose:
//! * `match_text` is LF-normalised in every mode (the original skipped it when continuing).
//! * `OVERWRITE_FILE` works when continuing a session too.
//! * `expected_replacements` is honoured when continuing a single edit.
//! * `APPEND_TO_FILE` starts the appended text on a new line when the text does not end with one.
//! * A `match_text` with no exact hit gets the near-miss recovery of v1.32.1 (see
//!   [`crate::near_miss`]) before it is reported as not found.

use crate::error::{EditError, Failure};
use crate::hints;
use crate::near_miss;
use crate::validate::{Edit, Plan, Target};

/// Where the text being edited comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Base {
    /// The file on disk (a new session).
    File,
    /// The session's current version (the user's last version, or the file).
    Session,
}

/// A successful proposal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Built {
    /// The proposed model-view text (final newline not yet adjusted).
    pub text: String,
    /// The near-miss recoveries (for the response message).
    pub notes: Vec<near_miss::NearMiss>,
}

/// Appends `addition`, starting it on a new line unless `text` is empty or already ends with a
/// newline (or `addition` starts with one).
pub(crate) fn append(text: &str, addition: &str) -> String {
    let mut out = String::with_capacity(text.len() + addition.len() + 1);
    out.push_str(text);
    if !text.is_empty() && !text.ends_with('\n') && !addition.starts_with('\n') {
        out.push('\n');
    }
    out.push_str(addition);
    out
}

/// The size of `len` bytes of text once `count` copies of `removed` bytes are replaced with
/// `added` bytes: a proposal past the review limit is refused before it is built (a short
/// `match_text` found thousands of times with a long `new_string` asked for gigabytes).
fn grown(len: usize, count: usize, removed: usize, added: usize) -> Option<usize> {
    let size = len
        .checked_sub(count.checked_mul(removed)?)?
        .checked_add(count.checked_mul(added)?)?;
    (size as u64 <= crate::session::MAX_FILE_BYTES).then_some(size)
}

fn too_large(path: &str) -> EditError {
    EditError::new(Failure::ProposalWouldGrow {
        path: path.to_string(),
    })
}

fn replace_span(text: &str, span: std::ops::Range<usize>, with: &str) -> String {
    let mut out = String::with_capacity(text.len() + with.len());
    out.push_str(&text[..span.start]);
    out.push_str(with);
    out.push_str(&text[span.end..]);
    out
}

/// Applies `plan` to `base`. `path` is the client's path (for hints).
pub(crate) fn build(
    plan: &Plan,
    base: &str,
    origin: Base,
    expected: u32,
    path: &str,
) -> Result<Built, EditError> {
    if plan.batch {
        build_batch(&plan.edits, base, origin, path)
    } else {
        match plan.edits.first() {
            Some(edit) => build_single(edit, base, origin, expected, path),
            None => Err(EditError::new(Failure::NoEdit)),
        }
    }
}

fn build_single(
    edit: &Edit,
    base: &str,
    origin: Base,
    expected: u32,
    path: &str,
) -> Result<Built, EditError> {
    let mt = match &edit.target {
        Target::Append => {
            grown(base.len() + 1, 1, 0, edit.new_string.len()).ok_or_else(|| too_large(path))?;
            return Ok(Built {
                text: append(base, &edit.new_string),
                notes: Vec::new(),
            });
        }
        Target::Overwrite => {
            return Ok(Built {
                text: edit.new_string.clone(),
                notes: Vec::new(),
            });
        }
        Target::Text(mt) => mt,
    };
    let expected_n = expected as usize;
    let n = base.matches(mt.as_str()).count();
    let searched = match origin {
        Base::File => hints::Searched::File,
        Base::Session => hints::Searched::Session,
    };
    if n == 0
        && expected_n == 1
        && let Some((span, how)) = near_miss::recover(base, mt)
    {
        let note = near_miss::NearMiss::new(None, how, base, &span);
        return Ok(Built {
            text: replace_span(base, span, &edit.new_string),
            notes: vec![note],
        });
    }
    if n == 0 || n != expected_n {
        let failure = Failure::MatchCount {
            edit: None,
            in_session: origin == Base::Session,
            found: n,
            expected: expected_n,
        };
        let hints = if n == 0 {
            hints::not_found(mt, base, path, searched)
        } else {
            hints::wrong_count(mt, base, path, searched, n, expected_n, true)
        };
        return Err(EditError::new(failure).with_hints(Some(hints)));
    }
    grown(base.len(), n, mt.len(), edit.new_string.len()).ok_or_else(|| too_large(path))?;
    Ok(Built {
        text: base.replace(mt.as_str(), &edit.new_string),
        notes: Vec::new(),
    })
}

fn build_batch(edits: &[Edit], base: &str, origin: Base, path: &str) -> Result<Built, EditError> {
    let mut content = base.to_string();
    let mut notes = Vec::new();
    for (i, edit) in edits.iter().enumerate() {
        // Each step grows the text by at most its new_string (one replacement, or an append).
        grown(content.len() + 1, 1, 0, edit.new_string.len()).ok_or_else(|| too_large(path))?;
        match &edit.target {
            Target::Append => content = append(&content, &edit.new_string),
            Target::Overwrite => {
                if origin == Base::File && edits.len() > 1 {
                    return Err(EditError::new(Failure::OverwriteInBatch));
                }
                content = edit.new_string.clone();
            }
            Target::Text(mt) => {
                let n = content.matches(mt.as_str()).count();
                let searched = match origin {
                    Base::File => hints::Searched::FileEdit(i),
                    Base::Session => hints::Searched::SessionEdit(i),
                };
                if n == 0
                    && let Some((span, how)) = near_miss::recover(&content, mt)
                {
                    notes.push(near_miss::NearMiss::new(Some(i), how, &content, &span));
                    content = replace_span(&content, span, &edit.new_string);
                    continue;
                }
                if n != 1 {
                    let failure = Failure::MatchCount {
                        edit: Some(i),
                        in_session: origin == Base::Session,
                        found: n,
                        expected: 1,
                    };
                    // Not-found hints point at the text as it is on disk (or in the session), so
                    // their line numbers work with read_files; duplicates are located where
                    // they are.
                    let hints = if n == 0 {
                        hints::not_found(mt, base, path, searched)
                    } else {
                        hints::wrong_count(mt, &content, path, searched, n, 1, false)
                    };
                    return Err(EditError::new(failure).with_hints(Some(hints)));
                }
                content = content.replacen(mt.as_str(), &edit.new_string, 1);
            }
        }
    }
    Ok(Built {
        text: content,
        notes,
    })
}

/// Applies `plan` again on a newer `base` (the file changed while the proposal was being
/// committed), strictly: every `match_text` must occur exactly as often as it did for the
/// proposal (once in a batch, `expected` times for a single edit), with no near-miss recovery,
/// and a whole-file overwrite is never re-applied (it would erase the other change). `None`:
/// the edit does not apply cleanly any more.
pub(crate) fn reapply(plan: &Plan, base: &str, expected: u32) -> Option<String> {
    let mut content = base.to_string();
    for edit in &plan.edits {
        match &edit.target {
            Target::Append => {
                grown(content.len() + 1, 1, 0, edit.new_string.len())?;
                content = append(&content, &edit.new_string);
            }
            Target::Overwrite => return None,
            Target::Text(mt) => {
                let want = if plan.batch { 1 } else { expected as usize };
                if mt.is_empty() || want == 0 || content.matches(mt.as_str()).count() != want {
                    return None;
                }
                grown(content.len(), want, mt.len(), edit.new_string.len())?;
                content = if plan.batch {
                    content.replacen(mt.as_str(), &edit.new_string, 1)
                } else {
                    content.replace(mt.as_str(), &edit.new_string)
                };
            }
        }
    }
    Some(content)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2,000 copies of "x" each replaced by 3.5 MiB asked for a 7 GiB string (and the process
    /// died): refused before anything is built, and so is a re-application.
    #[test]
    fn a_proposal_past_the_review_limit_is_refused_before_it_is_built() {
        let base = "x\n".repeat(2000);
        let plan = single(Target::Text("x".into()), &"y".repeat(7 << 19));
        let err = build(&plan, &base, Base::File, 2000, "f.txt")
            .err()
            .unwrap();
        assert!(
            matches!(err.failure(), Failure::ProposalWouldGrow { path } if path == "f.txt"),
            "{err}"
        );
        assert!(reapply(&plan, &base, 2000).is_none());
        let fits = single(Target::Text("x".into()), "yy");
        assert_eq!(
            build(&fits, &base, Base::File, 2000, "f.txt")
                .unwrap()
                .text
                .len(),
            6000
        );
    }

    fn single(target: Target, new: &str) -> Plan {
        Plan {
            batch: false,
            edits: vec![Edit {
                target,
                new_string: new.into(),
            }],
        }
    }

    fn text(s: &str) -> Target {
        Target::Text(s.into())
    }

    /// A failed match's facts: (edit, in the session, found, expected).
    fn count(e: &EditError) -> Option<(Option<usize>, bool, usize, usize)> {
        match *e.failure() {
            Failure::MatchCount {
                edit,
                in_session,
                found,
                expected,
            } => Some((edit, in_session, found, expected)),
            _ => None,
        }
    }

    #[test]
    fn single_edits() {
        let b = build(&single(text("b"), "B"), "a\nb\nc\n", Base::File, 1, "f").unwrap();
        assert_eq!(b.text, "a\nB\nc\n");
        let e = build(&single(text("zz"), "B"), "a\nb\n", Base::File, 1, "f").unwrap_err();
        assert_eq!(count(&e), Some((None, false, 0, 1)));
        assert!(e.hints().is_some());
        let e = build(&single(text("x"), "y"), "x x", Base::File, 1, "f").unwrap_err();
        assert_eq!(count(&e), Some((None, false, 2, 1)));
        let b = build(&single(text("x"), "y"), "x x", Base::File, 2, "f").unwrap();
        assert_eq!(b.text, "y y");
        let b = build(&single(Target::Append, "d"), "abc", Base::File, 1, "f").unwrap();
        assert_eq!(b.text, "abc\nd");
        let b = build(&single(Target::Append, "d"), "abc\n", Base::File, 1, "f").unwrap();
        assert_eq!(b.text, "abc\nd");
        let b = build(
            &single(Target::Overwrite, "new"),
            "old",
            Base::Session,
            1,
            "f",
        )
        .unwrap();
        assert_eq!(b.text, "new");
    }

    #[test]
    fn session_messages() {
        let e = build(&single(text("q"), "y"), "abc", Base::Session, 1, "f").unwrap_err();
        assert_eq!(count(&e), Some((None, true, 0, 1)));
        assert_eq!(e.hints().unwrap().searched, hints::Searched::Session);
    }

    #[test]
    fn batch_edits_apply_in_order() {
        let plan = Plan {
            batch: true,
            edits: vec![
                Edit {
                    target: text("one"),
                    new_string: "two".into(),
                },
                Edit {
                    target: text("two"),
                    new_string: "three".into(),
                },
                Edit {
                    target: Target::Append,
                    new_string: "tail\n".into(),
                },
            ],
        };
        let b = build(&plan, "one\n", Base::File, 1, "f").unwrap();
        assert_eq!(b.text, "three\ntail\n");
        let plan = Plan {
            batch: true,
            edits: vec![
                Edit {
                    target: text("a"),
                    new_string: "b".into(),
                },
                Edit {
                    target: text("nope"),
                    new_string: "x".into(),
                },
            ],
        };
        let e = build(&plan, "a\n", Base::File, 1, "f").unwrap_err();
        assert_eq!(count(&e), Some((Some(1), false, 0, 1)));
        assert_eq!(e.hints().unwrap().searched, hints::Searched::FileEdit(1));
        let plan = Plan {
            batch: true,
            edits: vec![Edit {
                target: text("a"),
                new_string: "b".into(),
            }],
        };
        let e = build(&plan, "a a", Base::Session, 1, "f").unwrap_err();
        assert_eq!(count(&e), Some((Some(0), true, 2, 1)));
        let plan = Plan {
            batch: true,
            edits: vec![
                Edit {
                    target: Target::Overwrite,
                    new_string: "b".into(),
                },
                Edit {
                    target: text("b"),
                    new_string: "c".into(),
                },
            ],
        };
        let e = build(&plan, "a", Base::File, 1, "f").unwrap_err();
        assert!(matches!(e.failure(), Failure::OverwriteInBatch), "{e}");
        assert_eq!(build(&plan, "a", Base::Session, 1, "f").unwrap().text, "c");
    }

    #[test]
    fn reapply_is_strict() {
        let plan = single(text("END"), "mine\nEND");
        assert_eq!(
            reapply(&plan, "a\ntheirs\nEND\n", 1).as_deref(),
            Some("a\ntheirs\nmine\nEND\n")
        );
        assert_eq!(reapply(&plan, "END END", 1), None);
        assert_eq!(reapply(&plan, "gone", 1), None);
        // A typographic near miss is not enough on a re-apply.
        assert_eq!(reapply(&single(text("it's"), "x"), "it\u{2019}s", 1), None);
        assert_eq!(reapply(&single(Target::Overwrite, "x"), "y", 1), None);
        assert_eq!(
            reapply(&single(Target::Append, "z"), "y", 1).as_deref(),
            Some("y\nz")
        );
    }

    #[test]
    fn near_miss_is_applied_and_noted() {
        let b = build(
            &single(text("it's \"ok\""), "fine"),
            "x = it\u{2019}s \"ok\"\n",
            Base::File,
            1,
            "f",
        )
        .unwrap();
        assert_eq!(b.text, "x = fine\n");
        assert_eq!(
            b.notes,
            [near_miss::NearMiss {
                edit: None,
                line: 1,
                recovery: near_miss::Recovery::Typographic
            }]
        );
    }
}
