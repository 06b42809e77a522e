//! Compiling jq programs with jaq, with error messages that point into the
//! query and say what to do next.

use crate::data::QData;
use crate::errors::{QueryError, line_col, shorten};
use crate::library::{known_filters, natives, prelude_defs};
use crate::rewrite;
use jaq_core::Compiler;
use jaq_core::compile::Undefined;
use jaq_core::load::{self, Arena, File, Loader, lex};

/// jq 1.7 builtins (name, arity) that jaq does not provide and we could not
/// add; named in "undefined function" errors.
const JQ_ONLY: &[(&str, &str)] = &[
    ("input_line_number", "input line numbers are not tracked"),
    (
        "input_filename",
        "the file name is not available to the query",
    ),
    ("get_search_list", "modules are not supported"),
    ("get_prog_origin", "modules are not supported"),
    ("get_jq_origin", "modules are not supported"),
    ("modulemeta", "modules are not supported"),
    ("lgamma_r", "use `lgamma`"),
    ("isvalid", "use `try (f | true) catch false`"),
];

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

/// `line L, column C` plus the source line with a caret under the column.
fn locate(code: &str, offset: usize) -> (String, String) {
    let (line, col) = line_col(code.as_bytes(), offset);
    let at = format!("line {line}, column {col}");
    let text = code.lines().nth(line - 1).unwrap_or("");
    let snippet = if text.chars().count() <= 160 {
        format!("\n  {text}\n  {}^", " ".repeat(col.saturating_sub(1)))
    } else {
        String::new()
    };
    (at, snippet)
}

const SYNTAX_HINT: &str = "Check for unclosed brackets or quotes, a missing `|`, `;` or `end`, \
    and use double quotes for strings.";

fn load_error(code: &str, errs: load::Errors<&str, ()>) -> QueryError {
    // Errors in our own prelude cannot happen; report the user's.
    let Some((file, err)) = errs.into_iter().find(|(f, _)| f.code == code) else {
        return QueryError::Syntax("jq syntax error in the query".into());
    };
    let code = file.code;
    match err {
        load::Error::Lex(errs) => {
            let Some((expect, rest)) = errs.into_iter().next() else {
                return QueryError::Syntax("jq syntax error".into());
            };
            let offset = offset_in(code, rest).unwrap_or(code.len());
            let (what, hint, offset) = match expect {
                lex::Expect::Delim(open) => {
                    let open_at = offset_in(code, open).unwrap_or(offset);
                    let (at, _) = locate(code, open_at);
                    let close = match open {
                        "(" => ")",
                        "[" => "]",
                        "{" => "}",
                        _ => "\"",
                    };
                    (
                        format!("`{open}` opened at {at} is never closed (expected `{close}`)"),
                        format!("Add the missing `{close}`."),
                        offset,
                    )
                }
                lex::Expect::Token if rest.starts_with('\'') => (
                    "unexpected `'`".to_string(),
                    "jq strings use double quotes: \"text\", not 'text'.".to_string(),
                    offset,
                ),
                lex::Expect::Escape => (
                    "invalid escape sequence in string".to_string(),
                    "Valid escapes are \\\\ \\\" \\n \\t \\r \\b \\f \\/ \\uXXXX and \\(...)."
                        .to_string(),
                    offset,
                ),
                e => (
                    format!("expected {}, found {}", e.as_str(), found_text(rest)),
                    SYNTAX_HINT.to_string(),
                    offset,
                ),
            };
            let (at, snippet) = locate(code, offset);
            QueryError::Syntax(format!(
                "jq syntax error at {at}: {what}{snippet}\nHint: {hint}"
            ))
        }
        load::Error::Parse(errs) => {
            let Some((expect, found)) = errs.into_iter().next() else {
                return QueryError::Syntax("jq syntax error".into());
            };
            let offset = offset_in(code, found).unwrap_or(code.len());
            let (at, snippet) = locate(code, offset);
            let hint = match found {
                "=" => "Use `==` to compare; `=` assigns.",
                "" => "The query ends too early: something is not closed or finished.",
                _ if found.starts_with('\'') => "jq strings use double quotes.",
                _ => SYNTAX_HINT,
            };
            QueryError::Syntax(format!(
                "jq syntax error at {at}: expected {}, found {}{snippet}\nHint: {hint}",
                expect.as_str(),
                found_text(found),
            ))
        }
        load::Error::Io(errs) => {
            let what = errs
                .first()
                .map(|(p, e)| format!("{p}: {e}"))
                .unwrap_or_default();
            QueryError::Compile(format!(
                "jq error: modules (import/include) are not supported ({what})."
            ))
        }
    }
}

/// A found token for messages: `end of query` or the token, cut short.
fn found_text(found: &str) -> String {
    if found.is_empty() {
        return "end of query".into();
    }
    let first_line = found.lines().next().unwrap_or(found);
    format!("`{}`", shorten(first_line, 30))
}

fn compile_error(code: &str, errs: jaq_core::compile::Errors<&str, ()>) -> QueryError {
    let mut msgs = Vec::new();
    for (_file, errs) in errs {
        for (name, undef) in errs {
            let pos = offset_in(code, name).map(|o| locate(code, o).0);
            let at = pos.map(|p| format!(" at {p}")).unwrap_or_default();
            let msg = match undef {
                Undefined::Filter(arity) => undefined_filter(name, arity, &at),
                Undefined::Var => undefined_var(name, &at),
                Undefined::Label => format!("undefined label `{name}`{at}"),
                Undefined::Mod => format!("modules are not supported (`{name}`{at})"),
                _ => format!("undefined `{name}`{at}"),
            };
            if !msgs.contains(&msg) {
                msgs.push(msg);
            }
        }
    }
    msgs.truncate(3);
    QueryError::Compile(format!("jq error: {}.", msgs.join("; ")))
}

fn undefined_filter(name: &str, arity: usize, at: &str) -> String {
    let mut msg = format!("undefined function `{name}/{arity}`{at}");
    let known = known_filters();
    let sig = format!("{name}/{arity}");
    if name == "env" {
        msg.push_str(" (environment access is disabled in this server)");
    } else if let Some((_, why)) = JQ_ONLY.iter().find(|(n, _)| *n == name || *n == sig) {
        msg.push_str(&format!(
            " (`{name}` exists in jq 1.7 but not in this jq engine (jaq): {why})"
        ));
    } else if let Some(arities) = known.get(name) {
        let list: Vec<String> = arities.iter().map(|a| format!("{name}/{a}")).collect();
        msg.push_str(&format!(" (defined as {})", list.join(", ")));
    } else if let Some(s) = suggest(name, known.keys().copied()) {
        msg.push_str(&format!(" (did you mean `{s}`?)"));
    }
    msg
}

fn undefined_var(name: &str, at: &str) -> String {
    let mut msg = format!("undefined variable `{name}`{at}");
    match name {
        "$ENV" => msg.push_str(" (environment access is disabled in this server)"),
        "$__loc__" | "$__prog_args" => {
            msg.push_str(" (exists in jq 1.7 but not in this jq engine (jaq))")
        }
        _ => {}
    }
    msg
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
