//! Compiling jq programs with jaq, with errors that point into the query and
//! name what would fix them (as data: the caller words the hint).

use crate::data::QData;
use crate::errors::{
    CompileError, CompileProblem, Found, FunctionHelp, JqOnlyReason, QueryError, SyntaxError,
    SyntaxHint, SyntaxProblem, VariableHelp, position, shorten,
};
use crate::library::{known_filters, natives, prelude_defs};
use crate::rewrite;
use jaq_core::Compiler;
use jaq_core::compile::Undefined;
use jaq_core::load::{self, Arena, File, Loader, lex};

/// jq 1.7 builtins (name, or name/arity) that jaq does not provide and we could not add; named
/// in "undefined function" errors.
fn jq_only(name: &str, arity: usize) -> Option<JqOnlyReason> {
    let signature = format!("{name}/{arity}");
    let use_instead = |expression: &str| JqOnlyReason::UseInstead {
        expression: expression.into(),
    };
    [name, signature.as_str()]
        .into_iter()
        .find_map(|key| match key {
            "input_line_number" => Some(JqOnlyReason::LineNumbersNotTracked),
            "input_filename" => Some(JqOnlyReason::FileNameNotAvailable),
            "get_search_list" | "get_prog_origin" | "get_jq_origin" | "modulemeta" => {
                Some(JqOnlyReason::ModulesUnsupported)
            }
            "lgamma_r" => Some(use_instead("lgamma")),
            "isvalid" => Some(use_instead("try (f | true) catch false")),
            _ => None,
        })
}

/// A compiled query.
pub(crate) struct Program {
    pub(crate) filter: jaq_core::Filter<QData>,
    /// The expression as the user wrote it (for hints).
    pub(crate) expression: String,
}

/// Compile a jq program; errors point into `code`. (How to read its input
/// is planned apart, by [`crate::plan`].)
pub(crate) fn compile(code: &str) -> Result<Program, QueryError> {
    // like jq, an empty program (or only comments) is the identity
    let blank = code
        .lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'));
    let code = if blank { "." } else { code };
    Ok(Program {
        filter: compile_with_rewrite(code)?,
        expression: code.to_string(),
    })
}

/// Compile `code`, a part of the user's `expression` (hints quote the
/// whole expression).
pub(crate) fn compile_part(code: &str, expression: &str) -> Option<Program> {
    Some(Program {
        filter: compile_with_rewrite(code).ok()?,
        expression: expression.to_string(),
    })
}

fn compile_with_rewrite(code: &str) -> Result<jaq_core::Filter<QData>, QueryError> {
    let filter = compile_code(code)?;
    // Compile the rewritten program for jq's update and interpolation
    // semantics; keep the original if the rewrite fails for any reason.
    Ok(match rewrite::rewrite(code) {
        Some(rw) => compile_code(&rw).unwrap_or(filter),
        None => filter,
    })
}

/// Compile exactly `code`, without the rewrite (for tests).
#[cfg(test)]
pub(crate) fn compile_exact(code: &str) -> Result<Program, QueryError> {
    Ok(Program {
        filter: compile_code(code)?,
        expression: code.to_string(),
    })
}

fn compile_code(code: &str) -> Result<jaq_core::Filter<QData>, QueryError> {
    let arena = Arena::default();
    let loader = Loader::new(prelude_defs().iter().cloned());
    let modules = loader
        .load(&arena, File { code, path: () })
        .map_err(|errs| load_error(code, errs))?;
    Compiler::default()
        .with_funs(natives())
        .compile(modules)
        .map_err(|errs| compile_error(code, errs))
}

/// Byte offset of `part` in `whole`, if `part` points into it.
fn offset_in(whole: &str, part: &str) -> Option<usize> {
    let start = whole.as_ptr() as usize;
    let p = part.as_ptr() as usize;
    (p >= start && p <= start + whole.len()).then(|| p - start)
}

/// Longest query line shown under a syntax error (with a caret under the column).
const MAX_SHOWN_LINE_CHARS: usize = 160;

/// A syntax error at byte `offset` of `code`.
fn syntax_error(code: &str, offset: usize, problem: SyntaxProblem, hint: SyntaxHint) -> QueryError {
    let at = position(code.as_bytes(), offset);
    let line_text = Some(code.lines().nth(at.line - 1).unwrap_or(""))
        .filter(|text| text.chars().count() <= MAX_SHOWN_LINE_CHARS)
        .map(str::to_string);
    QueryError::Syntax(Box::new(SyntaxError {
        at: Some(at),
        problem,
        line_text,
        hint: Some(hint),
    }))
}

/// A syntax error without detail (the parser gave none).
fn unknown_syntax_error() -> QueryError {
    QueryError::Syntax(Box::new(SyntaxError {
        at: None,
        problem: SyntaxProblem::Unknown,
        line_text: None,
        hint: None,
    }))
}

fn load_error(code: &str, errs: load::Errors<&str, ()>) -> QueryError {
    // Errors in our own prelude cannot happen; report the user's.
    let Some((file, err)) = errs.into_iter().find(|(f, _)| f.code == code) else {
        return unknown_syntax_error();
    };
    let code = file.code;
    match err {
        load::Error::Lex(errs) => {
            let Some((expect, rest)) = errs.into_iter().next() else {
                return unknown_syntax_error();
            };
            let offset = offset_in(code, rest).unwrap_or(code.len());
            let (problem, hint) = match expect {
                lex::Expect::Delim(open) => {
                    let open_at = offset_in(code, open).unwrap_or(offset);
                    let close = match open {
                        "(" => ")",
                        "[" => "]",
                        "{" => "}",
                        _ => "\"",
                    };
                    (
                        SyntaxProblem::Unclosed {
                            open: open.to_string(),
                            opened_at: position(code.as_bytes(), open_at),
                            close: close.to_string(),
                        },
                        SyntaxHint::AddMissing {
                            close: close.to_string(),
                        },
                    )
                }
                lex::Expect::Token if rest.starts_with('\'') => {
                    (SyntaxProblem::SingleQuote, SyntaxHint::DoubleQuotes)
                }
                lex::Expect::Escape => (SyntaxProblem::InvalidEscape, SyntaxHint::ValidEscapes),
                e => (
                    SyntaxProblem::Expected {
                        expected: e.as_str().to_string(),
                        found: found(rest),
                    },
                    SyntaxHint::CheckStructure,
                ),
            };
            syntax_error(code, offset, problem, hint)
        }
        load::Error::Parse(errs) => {
            let Some((expect, found_token)) = errs.into_iter().next() else {
                return unknown_syntax_error();
            };
            let offset = offset_in(code, found_token).unwrap_or(code.len());
            let hint = match found_token {
                "=" => SyntaxHint::CompareWithDoubleEquals,
                "" => SyntaxHint::EndsTooEarly,
                _ if found_token.starts_with('\'') => SyntaxHint::DoubleQuotes,
                _ => SyntaxHint::CheckStructure,
            };
            let problem = SyntaxProblem::Expected {
                expected: expect.as_str().to_string(),
                found: found(found_token),
            };
            syntax_error(code, offset, problem, hint)
        }
        load::Error::Io(errs) => {
            let what = errs
                .first()
                .map(|(p, e)| format!("{p}: {e}"))
                .unwrap_or_default();
            QueryError::Compile(CompileError {
                problems: vec![CompileProblem::ModulesUnsupported { detail: what }],
            })
        }
    }
}

/// A found token for messages: the end of the query or the token's first line, cut short.
fn found(token: &str) -> Found {
    if token.is_empty() {
        return Found::EndOfQuery;
    }
    let first_line = token.lines().next().unwrap_or(token);
    Found::Token(shorten(first_line, 30))
}

fn compile_error(code: &str, errs: jaq_core::compile::Errors<&str, ()>) -> QueryError {
    let mut problems = Vec::new();
    for (_file, errs) in errs {
        for (name, undef) in errs {
            let at = offset_in(code, name).map(|o| position(code.as_bytes(), o));
            let problem = match undef {
                Undefined::Filter(arity) => CompileProblem::UndefinedFunction {
                    name: name.to_string(),
                    arity,
                    at,
                    help: function_help(name, arity),
                },
                Undefined::Var => CompileProblem::UndefinedVariable {
                    name: name.to_string(),
                    at,
                    help: match name {
                        "$ENV" => Some(VariableHelp::EnvironmentDisabled),
                        "$__loc__" | "$__prog_args" => Some(VariableHelp::JqOnly),
                        _ => None,
                    },
                },
                Undefined::Label => CompileProblem::UndefinedLabel {
                    name: name.to_string(),
                    at,
                },
                Undefined::Mod => CompileProblem::Module {
                    name: name.to_string(),
                    at,
                },
                _ => CompileProblem::Undefined {
                    name: name.to_string(),
                    at,
                },
            };
            if !problems.contains(&problem) {
                problems.push(problem);
            }
        }
    }
    problems.truncate(3);
    QueryError::Compile(CompileError { problems })
}

/// What is known of a function name that is not defined with `arity` arguments.
fn function_help(name: &str, arity: usize) -> Option<FunctionHelp> {
    let known = known_filters();
    if name == "env" {
        Some(FunctionHelp::EnvironmentDisabled)
    } else if let Some(why) = jq_only(name, arity) {
        Some(FunctionHelp::JqOnly { why })
    } else if let Some(arities) = known.get(name) {
        Some(FunctionHelp::DefinedAs {
            arities: arities.clone(),
        })
    } else {
        suggest(name, known.keys().copied()).map(|s| FunctionHelp::DidYouMean { name: s.into() })
    }
}

/// The closest known name within a small edit distance.
fn suggest<'a>(name: &str, known: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let max = if name.len() <= 4 { 1 } else { 2 };
    known
        .map(|k| (edit_distance(name, k), k))
        .filter(|(d, _)| *d <= max)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        assert_eq!(
            suggest("lenght", ["length", "keys"].into_iter()),
            Some("length")
        );
        assert_eq!(suggest("zzzzzz", ["length", "keys"].into_iter()), None);
    }
}
