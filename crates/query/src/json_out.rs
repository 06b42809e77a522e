//! Strict, compact JSON output for jaq values, printed the way jq 1.7 prints.
//!
//! * NaN prints as `null`; +Infinity and -Infinity print as
//!   `1.7976931348623157e+308` and `-1.7976931348623157e+308` (the largest
//!   finite doubles), exactly like jq.
//! * Computed floating-point numbers use the shortest representation that
//!   reads back to the same double, in jq's layout: integral values below
//!   1e17 print without a fraction (`3`, not `3.0`), very large or very small
//!   ones use an exponent with a sign and at least two digits (`1e+17`,
//!   `1e-05`).
//! * Number literals read from the file keep their spelling (`1.0`, `1.000`,
//!   `100000000000000000000`) unless they are not valid JSON or overflow a
//!   double (`1e1000` prints as `1.7976931348623157e+308`).
//! * Byte strings and strings holding invalid UTF-8 print as JSON strings with
//!   U+FFFD replacement characters.
//! * Object keys that are not strings (jaq allows them, jq does not) print as
//!   the string of their compact JSON text: `{(1): 2}` gives `{"1":2}`.

use jaq_json::{Num, Val};

/// Largest finite double, as jq prints it for +Infinity.
const MAX_F64_TEXT: &str = "1.7976931348623157e+308";

/// Where serialized text goes.
pub(crate) trait Sink {
    fn put(&mut self, s: &str);
}

impl Sink for String {
    fn put(&mut self, s: &str) {
        self.push_str(s);
    }
}

/// A sink that keeps at most `cap` bytes (cut at a character boundary) but
/// counts every byte it is given.
pub(crate) struct Bounded<'a> {
    out: &'a mut String,
    room: usize,
    pub(crate) total: usize,
    pub(crate) overflowed: bool,
}

impl<'a> Bounded<'a> {
    pub(crate) fn new(out: &'a mut String, cap: usize) -> Self {
        Self {
            out,
            room: cap,
            total: 0,
            overflowed: false,
        }
    }
}

impl Sink for Bounded<'_> {
    fn put(&mut self, s: &str) {
        self.total += s.len();
        if self.overflowed {
            return;
        }
        if s.len() <= self.room {
            self.out.push_str(s);
            self.room -= s.len();
        } else {
            let cut = floor_char_boundary(s, self.room);
            self.out.push_str(&s[..cut]);
            self.room = 0;
            self.overflowed = true;
        }
    }
}

/// Largest index `<= i` that is a char boundary of `s`.
pub(crate) fn floor_char_boundary(s: &str, i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    let mut i = i;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Compact JSON text of a value.
pub(crate) fn to_json(v: &Val) -> String {
    let mut s = String::new();
    write_val(v, &mut s);
    s
}

/// Write a value as compact, strict JSON.
pub(crate) fn write_val(v: &Val, out: &mut impl Sink) {
    match v {
        Val::Null => out.put("null"),
        Val::Bool(true) => out.put("true"),
        Val::Bool(false) => out.put("false"),
        Val::Num(n) => write_num(n, out),
        Val::TStr(b) | Val::BStr(b) => write_str(&String::from_utf8_lossy(b), out),
        Val::Arr(a) => {
            out.put("[");
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.put(",");
                }
                write_val(x, out);
            }
            out.put("]");
        }
        Val::Obj(o) => {
            out.put("{");
            for (i, (k, x)) in o.iter().enumerate() {
                if i > 0 {
                    out.put(",");
                }
                match k {
                    Val::TStr(b) | Val::BStr(b) => write_str(&String::from_utf8_lossy(b), out),
                    other => write_str(&to_json(other), out),
                }
                out.put(":");
                write_val(x, out);
            }
            out.put("}");
        }
    }
}

/// Write a JSON string literal (quotes included), escaping like jq: `"`, `\`,
/// control characters and DEL; everything else is written as is.
pub(crate) fn write_str(s: &str, out: &mut impl Sink) {
    out.put("\"");
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let esc: Option<&str> = match b {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            b'\n' => Some("\\n"),
            b'\t' => Some("\\t"),
            b'\r' => Some("\\r"),
            0x08 => Some("\\b"),
            0x0c => Some("\\f"),
            0..=0x1f | 0x7f => None,
            _ => continue,
        };
        if start < i {
            out.put(&s[start..i]);
        }
        match esc {
            Some(e) => out.put(e),
            None => out.put(&format!("\\u{b:04x}")),
        }
        start = i + 1;
    }
    if start < bytes.len() {
        out.put(&s[start..]);
    }
    out.put("\"");
}

/// Write a number as jq 1.7 prints it.
pub(crate) fn write_num(n: &Num, out: &mut impl Sink) {
    match n {
        Num::Int(i) => out.put(&i.to_string()),
        Num::BigInt(i) => out.put(&i.to_string()),
        Num::Float(f) => out.put(&format_f64(*f)),
        Num::Dec(s) => {
            if is_json_number(s) {
                match s.parse::<f64>() {
                    Ok(f) if f.is_finite() => out.put(s),
                    Ok(f) => out.put(&format_f64(f)),
                    Err(_) => out.put(s),
                }
            } else {
                out.put(&format_f64(s.parse::<f64>().unwrap_or(f64::NAN)));
            }
        }
    }
}

/// Format a double the way jq does (shortest round-trip digits, jq's layout).
pub(crate) fn format_f64(x: f64) -> String {
    if x.is_nan() {
        return "null".into();
    }
    if x.is_infinite() {
        return if x > 0.0 {
            MAX_F64_TEXT.into()
        } else {
            format!("-{MAX_F64_TEXT}")
        };
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // Rust's `{:e}` gives the shortest digits that read back to `x`.
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let nd = digits.len() as i32;
    // position of the decimal point relative to the first digit
    let decpt = exp + 1;
    let mut s = String::with_capacity(24);
    if x < 0.0 {
        s.push('-');
    }
    if decpt <= -4 || decpt > nd + 15 {
        s.push_str(&digits[..1]);
        if nd > 1 {
            s.push('.');
            s.push_str(&digits[1..]);
        }
        let e = decpt - 1;
        s.push('e');
        s.push(if e < 0 { '-' } else { '+' });
        s.push_str(&format!("{:02}", e.abs()));
    } else if decpt <= 0 {
        s.push_str("0.");
        for _ in 0..(-decpt) {
            s.push('0');
        }
        s.push_str(&digits);
    } else if decpt >= nd {
        s.push_str(&digits);
        for _ in 0..(decpt - nd) {
            s.push('0');
        }
    } else {
        s.push_str(&digits[..decpt as usize]);
        s.push('.');
        s.push_str(&digits[decpt as usize..]);
    }
    s
}

/// Whether `s` is a number in strict JSON syntax.
fn is_json_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if b.first() == Some(&b'-') {
        i += 1;
    }
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let int_len = i - int_start;
    if int_len == 0 || (int_len > 1 && b[int_start] == b'0') {
        return false;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let frac_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == frac_start {
            return false;
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let exp_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == exp_start {
            return false;
        }
    }
    i == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_like_jq() {
        let cases = [
            (3.0, "3"),
            (1.5, "1.5"),
            (-2.25, "-2.25"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e16, "1e+16"),
            (1e17, "1e+17"),
            (123456789012345680.0, "123456789012345680"),
            (1e15, "1000000000000000"),
            (1e-5, "1e-05"),
            (0.0001, "0.0001"),
            (1.5e-7, "1.5e-07"),
            (1e100, "1e+100"),
            (f64::NAN, "null"),
            (f64::INFINITY, "1.7976931348623157e+308"),
            (f64::NEG_INFINITY, "-1.7976931348623157e+308"),
            (-0.0, "-0"),
            (0.0, "0"),
            (f64::MAX, "1.7976931348623157e+308"),
        ];
        for (x, want) in cases {
            assert_eq!(format_f64(x), want, "{x:?}");
        }
    }

    #[test]
    fn json_numbers() {
        for ok in ["0", "-1", "1.0", "1.000", "1e2", "1E+2", "-0.5e-3"] {
            assert!(is_json_number(ok), "{ok}");
        }
        for bad in ["", "-", "+1", "01", "1.", ".5", "1e", "NaN"] {
            assert!(!is_json_number(bad), "{bad}");
        }
    }

    #[test]
    fn string_escapes() {
        let mut s = String::new();
        write_str("a\"b\\c\n\u{1}\u{7f}é", &mut s);
        assert_eq!(s, r#""a\"b\\c\n\u0001\u007fé""#);
    }

    #[test]
    fn bounded_sink_cuts_at_char_boundary() {
        let mut s = String::new();
        let mut b = Bounded::new(&mut s, 3);
        b.put("aé");
        b.put("bc");
        assert!(b.overflowed);
        assert_eq!(b.total, 5);
        assert_eq!(s, "aé");
    }
}
