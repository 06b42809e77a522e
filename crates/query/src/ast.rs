//! jaq's syntax tree, for the modules that read queries before running
//! them: the read planner ([`crate::demand`], [`crate::shape`]) and the
//! rewrite ([`crate::rewrite`]). This is the one module that walks the tree
//! structurally: parsing, the visitor over every sub-term ([`visit`]), the
//! printer back to jq source ([`print`]), and the shapes the planner looks
//! for (literal keys and positions, pipe chains, paths from the root). The
//! demand analysis follows the tree in evaluation order with its own
//! semantics per construct, and uses these helpers for the syntax.

use jaq_core::load::lex::StrPart;
use jaq_core::load::parse::{BinaryOp, Def, Pattern, Term};
use jaq_core::ops::{Cmp, Math};
use jaq_core::path::{Opt, Part};

/// Parse a query as one term; `None` when it does not parse as a term (or
/// uses `import`/`include`).
pub(crate) fn parse(code: &str) -> Option<Term<&str>> {
    jaq_core::load::parse(code, |p| p.term())
}

/// What to rewrite while printing (see [`crate::rewrite`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mode {
    /// `p = v`, `p |= f`, ... become calls of the prelude's `_fs_*` helpers.
    pub(crate) updates: bool,
    /// `\(f)` in a plain string becomes `\((f) | _fs_tostring)`.
    pub(crate) interpolation: bool,
}

impl Mode {
    /// Print the program as it is.
    pub(crate) const PLAIN: Mode = Mode {
        updates: false,
        interpolation: false,
    };
}

/// Print a parsed term back to jq source (every sub-term parenthesised, so
/// that it parses back to the same tree); `None` for a shape the printer
/// does not know.
pub(crate) fn print(term: &Term<&str>, mode: Mode) -> Option<String> {
    let mut p = Printer {
        out: String::new(),
        mode,
    };
    p.term(term).ok()?;
    Some(p.out)
}

/// Parse and print without rewriting anything (for round-trip tests).
#[cfg(test)]
pub(crate) fn reprint(code: &str) -> Option<String> {
    print(&parse(code)?, Mode::PLAIN)
}

/// `=`, `|=`, `+=`, ... and `//=`.
pub(crate) fn is_update(op: &BinaryOp<&str>) -> bool {
    matches!(
        op,
        BinaryOp::Assign | BinaryOp::Update | BinaryOp::UpdateMath(_) | BinaryOp::UpdateAlt
    )
}

/// Call `f` on `t` and all its sub-terms.
pub(crate) fn visit<'s>(t: &Term<&'s str>, f: &mut dyn FnMut(&Term<&'s str>)) {
    f(t);
    match t {
        Term::Id | Term::Recurse | Term::Num(_) | Term::Var(_) | Term::Break(_) => {}
        Term::Str(_, parts) => {
            for part in parts {
                if let StrPart::Term(t) = part {
                    visit(t, f);
                }
            }
        }
        Term::Arr(t) => {
            if let Some(t) = t {
                visit(t, f);
            }
        }
        Term::Obj(kvs) => {
            for (k, v) in kvs {
                visit(k, f);
                if let Some(v) = v {
                    visit(v, f);
                }
            }
        }
        Term::Neg(t) | Term::Label(_, t) => visit(t, f),
        Term::BinOp(l, op, r) => {
            visit(l, f);
            if let BinaryOp::Pipe(Some(pat)) = op {
                visit_pattern(pat, f);
            }
            visit(r, f);
        }
        Term::Fold(_, xs, pat, args) => {
            visit(xs, f);
            visit_pattern(pat, f);
            for a in args {
                visit(a, f);
            }
        }
        Term::TryCatch(t, c) => {
            visit(t, f);
            if let Some(c) = c {
                visit(c, f);
            }
        }
        Term::IfThenElse(ite, e) => {
            for (i, t) in ite {
                visit(i, f);
                visit(t, f);
            }
            if let Some(e) = e {
                visit(e, f);
            }
        }
        Term::Def(defs, t) => {
            for d in defs {
                visit(&d.body, f);
            }
            visit(t, f);
        }
        Term::Call(_, args) => {
            for a in args {
                visit(a, f);
            }
        }
        Term::Path(t, path) => {
            visit(t, f);
            for (part, _) in &path.0 {
                match part {
                    Part::Index(i) => visit(i, f),
                    Part::Range(a, b) => {
                        if let Some(a) = a {
                            visit(a, f);
                        }
                        if let Some(b) = b {
                            visit(b, f);
                        }
                    }
                }
            }
        }
    }
}

fn visit_pattern<'s>(p: &Pattern<&'s str>, f: &mut dyn FnMut(&Term<&'s str>)) {
    match p {
        Pattern::Var(_) => {}
        Pattern::Arr(ps) => ps.iter().for_each(|p| visit_pattern(p, f)),
        Pattern::Obj(kps) => {
            for (k, p) in kps {
                visit(k, f);
                visit_pattern(p, f);
            }
        }
    }
}

/// The printer failed on a term shape it does not know.
struct Unsupported;

struct Printer {
    out: String,
    mode: Mode,
}

impl Printer {
    fn s(&mut self, s: &str) {
        self.out.push_str(s);
    }

    /// `(t)`
    fn paren(&mut self, t: &Term<&str>) -> Result<(), Unsupported> {
        self.s("(");
        self.term(t)?;
        self.s(")");
        Ok(())
    }

    fn term(&mut self, t: &Term<&str>) -> Result<(), Unsupported> {
        match t {
            Term::Id => self.s("."),
            Term::Recurse => self.s(".."),
            Term::Num(n) => self.s(n),
            Term::Var(x) => self.s(x),
            Term::Break(x) => {
                self.s("break ");
                self.s(x);
            }
            Term::Str(fmt, parts) => self.string(*fmt, parts)?,
            Term::Arr(None) => self.s("[]"),
            Term::Arr(Some(t)) => {
                self.s("[");
                self.paren(t)?;
                self.s("]");
            }
            Term::Obj(kvs) => {
                self.s("{");
                for (i, (k, v)) in kvs.iter().enumerate() {
                    if i > 0 {
                        self.s(", ");
                    }
                    match (k, v) {
                        (Term::Var(x), None) => self.s(x),
                        (Term::Str(fmt, parts), None) => self.string(*fmt, parts)?,
                        (_, None) => return Err(Unsupported),
                        (k, Some(v)) => {
                            self.paren(k)?;
                            self.s(": ");
                            self.paren(v)?;
                        }
                    }
                }
                self.s("}");
            }
            Term::Neg(t) => {
                self.s("-");
                self.paren(t)?;
            }
            Term::BinOp(l, op, r) => self.binop(l, op, r)?,
            Term::Label(x, t) => {
                self.s("label ");
                self.s(x);
                self.s(" | ");
                self.paren(t)?;
            }
            Term::Fold(name, xs, pat, args) => {
                self.s(name);
                self.s(" ");
                self.paren(xs)?;
                self.s(" as ");
                self.pattern(pat)?;
                self.args(args)?;
            }
            Term::TryCatch(t, c) => {
                self.s("try ");
                self.paren(t)?;
                if let Some(c) = c {
                    self.s(" catch ");
                    self.paren(c)?;
                }
            }
            Term::IfThenElse(ite, e) => {
                for (i, (cond, then)) in ite.iter().enumerate() {
                    self.s(if i == 0 { "if " } else { " elif " });
                    self.paren(cond)?;
                    self.s(" then ");
                    self.paren(then)?;
                }
                if let Some(e) = e {
                    self.s(" else ");
                    self.paren(e)?;
                }
                self.s(" end");
            }
            Term::Def(defs, t) => {
                for d in defs {
                    self.def(d)?;
                    self.s(" ");
                }
                self.paren(t)?;
            }
            Term::Call(name, args) => {
                self.s(name);
                self.args(args)?;
            }
            Term::Path(head, path) => {
                if matches!(**head, Term::Id) {
                    self.s(".");
                } else {
                    self.paren(head)?;
                }
                for (part, opt) in &path.0 {
                    self.s("[");
                    match part {
                        Part::Index(i) => self.paren(i)?,
                        Part::Range(a, b) => {
                            if let Some(a) = a {
                                self.paren(a)?;
                            }
                            if a.is_some() || b.is_some() {
                                self.s(":");
                            }
                            if let Some(b) = b {
                                self.paren(b)?;
                            }
                        }
                    }
                    self.s("]");
                    if matches!(opt, Opt::Optional) {
                        self.s("?");
                    }
                }
            }
        }
        Ok(())
    }

    /// `(a1; a2; ...)`, or nothing without arguments.
    fn args(&mut self, args: &[Term<&str>]) -> Result<(), Unsupported> {
        if args.is_empty() {
            return Ok(());
        }
        self.s("(");
        for (i, a) in args.iter().enumerate() {
            if i > 0 {
                self.s("; ");
            }
            self.paren(a)?;
        }
        self.s(")");
        Ok(())
    }

    fn def(&mut self, d: &Def<&str, Term<&str>>) -> Result<(), Unsupported> {
        self.s("def ");
        self.s(d.name);
        if !d.args.is_empty() {
            self.s("(");
            self.s(&d.args.join("; "));
            self.s(")");
        }
        self.s(": ");
        self.paren(&d.body)?;
        self.s(";");
        Ok(())
    }

    fn binop(
        &mut self,
        l: &Term<&str>,
        op: &BinaryOp<&str>,
        r: &Term<&str>,
    ) -> Result<(), Unsupported> {
        if self.mode.updates && is_update(op) {
            let helper = match op {
                BinaryOp::Assign => "_fs_assign",
                BinaryOp::Update => "_fs_modify",
                BinaryOp::UpdateMath(Math::Add) => "_fs_add",
                BinaryOp::UpdateMath(Math::Sub) => "_fs_sub",
                BinaryOp::UpdateMath(Math::Mul) => "_fs_mul",
                BinaryOp::UpdateMath(Math::Div) => "_fs_div",
                BinaryOp::UpdateMath(Math::Rem) => "_fs_mod",
                BinaryOp::UpdateAlt => "_fs_alt",
                _ => return Err(Unsupported),
            };
            self.s(helper);
            self.s("(");
            self.paren(l)?;
            self.s("; ");
            self.paren(r)?;
            self.s(")");
            return Ok(());
        }
        self.paren(l)?;
        match op {
            BinaryOp::Pipe(None) => self.s(" | "),
            BinaryOp::Pipe(Some(pat)) => {
                self.s(" as ");
                self.pattern(pat)?;
                self.s(" | ");
            }
            BinaryOp::Comma => self.s(", "),
            BinaryOp::Alt => self.s(" // "),
            BinaryOp::Or => self.s(" or "),
            BinaryOp::And => self.s(" and "),
            BinaryOp::Math(m) => {
                self.s(" ");
                self.s(m.as_str());
                self.s(" ");
            }
            BinaryOp::Cmp(c) => {
                self.s(" ");
                self.s(cmp_str(c));
                self.s(" ");
            }
            BinaryOp::Assign => self.s(" = "),
            BinaryOp::Update => self.s(" |= "),
            BinaryOp::UpdateMath(m) => {
                self.s(" ");
                self.s(m.as_str());
                self.s("= ");
            }
            BinaryOp::UpdateAlt => self.s(" //= "),
        }
        self.paren(r)
    }

    fn pattern(&mut self, p: &Pattern<&str>) -> Result<(), Unsupported> {
        match p {
            Pattern::Var(x) => self.s(x),
            Pattern::Arr(ps) => {
                self.s("[");
                for (i, p) in ps.iter().enumerate() {
                    if i > 0 {
                        self.s(", ");
                    }
                    self.pattern(p)?;
                }
                self.s("]");
            }
            Pattern::Obj(kps) => {
                self.s("{");
                for (i, (k, p)) in kps.iter().enumerate() {
                    if i > 0 {
                        self.s(", ");
                    }
                    self.paren(k)?;
                    self.s(": ");
                    self.pattern(p)?;
                }
                self.s("}");
            }
        }
        Ok(())
    }

    fn string(
        &mut self,
        fmt: Option<&str>,
        parts: &[StrPart<&str, Term<&str>>],
    ) -> Result<(), Unsupported> {
        if let Some(fmt) = fmt {
            self.s(fmt);
            self.s(" ");
        }
        self.s("\"");
        for part in parts {
            match part {
                StrPart::Str(s) => self.s(s),
                StrPart::Char(c) => self.escaped_char(*c),
                StrPart::Term(t) => {
                    self.s("\\(");
                    if fmt.is_none() && self.mode.interpolation {
                        self.paren(t)?;
                        self.s(" | _fs_tostring");
                    } else {
                        self.term(t)?;
                    }
                    self.s(")");
                }
            }
        }
        self.s("\"");
        Ok(())
    }

    fn escaped_char(&mut self, c: char) {
        match c {
            '"' => self.s("\\\""),
            '\\' => self.s("\\\\"),
            '\n' => self.s("\\n"),
            '\t' => self.s("\\t"),
            '\r' => self.s("\\r"),
            '\u{8}' => self.s("\\b"),
            '\u{c}' => self.s("\\f"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let code = c as u32;
                self.s(&format!("\\u{code:04x}"));
            }
            c => self.out.push(c),
        }
    }
}

fn cmp_str(c: &Cmp) -> &'static str {
    match c {
        Cmp::Lt => "<",
        Cmp::Le => "<=",
        Cmp::Gt => ">",
        Cmp::Ge => ">=",
        Cmp::Eq => "==",
        Cmp::Ne => "!=",
    }
}

/// A path index that names a fixed key (`.a`, `.["a"]`) or position
/// (`.[0]`, `.[-1]`).
pub(crate) enum Literal {
    Key(Vec<u8>),
    Position,
}

/// The fixed key or position that the path index `t` names, if any.
pub(crate) fn literal(t: &Term<&str>) -> Option<Literal> {
    match t {
        Term::Num(_) => Some(Literal::Position),
        Term::Neg(n) if matches!(**n, Term::Num(_)) => Some(Literal::Position),
        Term::Str(None, parts) => literal_str(parts).map(Literal::Key),
        _ => None,
    }
}

/// The text of a string literal without interpolation.
pub(crate) fn literal_str(parts: &[StrPart<&str, Term<&str>>]) -> Option<Vec<u8>> {
    let mut s = String::new();
    for p in parts {
        match p {
            StrPart::Str(x) => s.push_str(x),
            StrPart::Char(c) => s.push(*c),
            StrPart::Term(_) => return None,
        }
    }
    Some(s.into_bytes())
}

/// `a | b | c` as `[a, b, c]` (pipes without `as` bindings associate).
pub(crate) fn pipe_chain<'t, 's>(t: &'t Term<&'s str>) -> Vec<&'t Term<&'s str>> {
    match t {
        Term::BinOp(l, BinaryOp::Pipe(None), r) => {
            let mut v = pipe_chain(l);
            v.extend(pipe_chain(r));
            v
        }
        t => vec![t],
    }
}

/// Keys from the root at the start of the chain (`.a.b`, `.a | .b`), and
/// whether they end in an iteration (`.a.b[]`); `None` if the chain does
/// not start with a path from the root. Also returns how many chain
/// elements the path used.
pub(crate) fn leading_path(chain: &[&Term<&str>]) -> Option<(Vec<Vec<u8>>, bool, usize)> {
    let mut keys = Vec::new();
    let mut used = 0;
    for t in chain {
        let Term::Path(head, path) = t else { break };
        if !matches!(**head, Term::Id) {
            break;
        }
        used += 1;
        let parts = &path.0;
        for (i, (part, _)) in parts.iter().enumerate() {
            match part {
                Part::Index(Term::Str(None, s)) => keys.push(literal_str(s)?),
                Part::Range(None, None) if i + 1 == parts.len() => {
                    return Some((keys, true, used));
                }
                _ => return None,
            }
        }
    }
    (used > 0).then_some((keys, false, used))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Programs covering every construct the printer handles.
    pub(crate) const CORPUS: &[&str] = &[
        ".",
        "..",
        ".a",
        ".a.b",
        ".a?.b?",
        ".[\"a\"]",
        ".\"a\".b",
        ".a[\"c\"][0]",
        ".a.c[-1]",
        ".a.c[1:]",
        ".a.c[:2]",
        ".a.c[1:2]",
        ".a.c[]?",
        ".items[].name",
        "(.a).b",
        "(.a | .c)[0]",
        "try .msg.x",
        "try error(\"x\") catch .",
        ".msg.x?",
        "(.msg.x)?",
        "[.a.c[] | . * 2]",
        "[]",
        "{}",
        "{a: 1, \"b c\": 2, (.k): 3, $__fs_never: 4}",
        "{a, msg}",
        ".a as $x | {$x}",
        "{\"a\"}",
        "{(.msg, .k): 1}",
        "{a: (1, 2)}",
        "{a: 1 | . + 1}",
        "-1",
        "-(.a.b)",
        "1 - -2",
        "1 + 2 * 3 - 4 / 2 % 3",
        "(1 + 2) * 3",
        ".a.b == 2 and .a.b != 3 or false",
        "[1 < 2, 1 <= 2, 1 > 2, 1 >= 2]",
        ".x // .a.b",
        "1, 2 | . + 10",
        ".a.c[] as $x | $x * 10",
        ".a as {b: $b, c: [$c0, $c1]} | $b + $c0 + $c1",
        ".a as {$b} | $b",
        ".a as {\"c\": [$first]} | $first",
        ".a as {(.x // \"b\"): $v} | $v",
        "reduce .a.c[] as $x (0; . + $x)",
        "foreach .a.c[] as $x (0; . + $x)",
        "foreach .a.c[] as $x (0; . + $x; [$x, .])",
        "label $out | foreach .a.c[] as $x (0; . + $x; if . > 2 then ., break $out else . end)",
        "if .a.b > 1 then \"big\" elif .a.b > 0 then \"small\" else \"none\" end",
        "if .a.b > 1 then \"big\" end",
        "def f: . + 1; def g(h): h | h; def k($n; m): $n + m; [.a.b | f, g(f)], k(1; 2)",
        "def f(x): x * 2; .a.c | map(f(.))",
        "[.a | .., paths]",
        "\"\\(.msg) \\(.a.b) \\(1 + 2)\"",
        "\"tab\\there \\\" quote \\\\ back \\u00e9 \\n\"",
        "@base64 \"x\\(.msg)y\"",
        "@json \"v: \\(.a)\"",
        "@base64",
        ".msg | @base64 | @base64d",
        "\"outer \\(\"inner \\(.a.b)\")\"",
        "[limit(2; .a.c[])]",
        "first(.a.c[]), last(.a.c[])",
        "[.items[] | select(.price > 1) | .name]",
        "[paths(type == \"number\")]",
        "path(.a.c[0])",
        "[.a.c[] | tostring] | join(\",\")",
        "to_entries | map(.key)",
        "with_entries(select(.key != \"a\"))",
        ".a.b = 5",
        ".a.c[0] |= . + 1",
        ".a.b += 1 | .a.b -= 1 | .a.b *= 3 | .a.b /= 2 | .a.b %= 2",
        ".x //= 7",
        ".a.c |= map(. * 2)",
        "del(.a)",
        "$__fs_never",
        "not",
        "[.[] | type]",
        "input_never_defined",
    ];

    #[test]
    fn reprint_is_stable() {
        for code in CORPUS {
            let printed = reprint(code).unwrap_or_else(|| panic!("cannot reprint {code}"));
            let again = reprint(&printed).unwrap_or_else(|| panic!("cannot reparse {printed}"));
            assert_eq!(printed, again, "printing is not stable for {code}");
        }
    }

    #[test]
    fn paths_from_the_root() {
        let of = |code: &str| {
            let term = parse(code).expect("parses");
            let chain = pipe_chain(&term);
            leading_path(&chain).map(|(keys, iterated, used)| {
                let keys: Vec<String> = keys
                    .iter()
                    .map(|k| String::from_utf8_lossy(k).into_owned())
                    .collect();
                (keys.join("/"), iterated, used)
            })
        };
        assert_eq!(of(".a.b | .c"), Some(("a/b/c".into(), false, 2)));
        assert_eq!(of(".a | .[] | .x"), Some(("a".into(), true, 2)));
        assert_eq!(of(".[\"b c\"][]"), Some(("b c".into(), true, 1)));
        assert_eq!(of(".a[0]"), None);
        assert_eq!(of("length"), None);
    }
}
