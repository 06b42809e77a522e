//! Source-to-source rewriting of user programs, to get jq 1.7 behaviour that
//! jaq's interpreter does not have.
//!
//! jaq compiles `p = v`, `p |= f`, `p += v`, ... natively, and its native
//! update fails on missing containers (`{} | .a.b = 1`) and out-of-range array
//! indices. It also prints interpolated numbers its own way (`"\(1.5*2)"` is
//! `"3.0"`, jq says `"3"`). Neither can be changed through definitions, so we
//! parse the program with jaq's parser, print it back with every
//!
//! * update operator replaced by a call of a prelude helper
//!   (`p = v` → `_fs_assign((p); (v))`, see `prelude.jq`), and every
//! * plain string interpolation `\(f)` replaced by `\((f) | _fs_tostring)`,
//!
//! and compile that instead. Every sub-term is parenthesised, so the printed
//! program parses back to the same tree; anything the printer does not know
//! makes it give up, and the caller then compiles the original program.

use crate::ast::{self, Mode, is_update, visit};
use jaq_core::load::lex::StrPart;
use jaq_core::load::parse::Term;

/// Rewrite `code` if it contains something worth rewriting.
///
/// Returns `None` when nothing needs rewriting or the program cannot be
/// handled (it does not parse, or uses `import`/`include`).
pub(crate) fn rewrite(code: &str) -> Option<String> {
    let term = ast::parse(code)?;
    let mode = Mode {
        updates: true,
        interpolation: true,
    };
    if !needs_rewrite(&term, mode) {
        return None;
    }
    ast::print(&term, mode)
}

fn needs_rewrite(t: &Term<&str>, mode: Mode) -> bool {
    let mut found = false;
    visit(t, &mut |t| match t {
        Term::BinOp(_, op, _) if mode.updates && is_update(op) => found = true,
        Term::Str(None, parts)
            if mode.interpolation && parts.iter().any(|p| matches!(p, StrPart::Term(_))) =>
        {
            found = true
        }
        _ => {}
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrite_only_when_needed() {
        assert_eq!(rewrite(".a | keys"), None);
        assert_eq!(rewrite("\"plain\""), None);
        assert_eq!(rewrite("@base64 \"\\(.a)\""), None);
        let rw = rewrite(".a.b = 1").unwrap();
        assert_eq!(rw, "_fs_assign((.[(\"a\")][(\"b\")]); (1))");
        let rw = rewrite("\"x\\(.a)\"").unwrap();
        assert_eq!(rw, "\"x\\((.[(\"a\")]) | _fs_tostring)\"");
        // programs that do not parse as a term are left alone
        assert_eq!(rewrite("include \"x\"; .a = 1"), None);
        assert_eq!(rewrite(".a = "), None);
    }
}
