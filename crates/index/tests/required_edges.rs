//! What a regex requires, on the cases the crate's property test does not generate: Unicode
//! case folding (Kelvin sign, long s, capital sharp s, Turkish i, titlecase digraphs), bytes
//! that are not UTF-8, literals past the kept length, joins past the set cap, counted
//! repetitions. Whenever the regex (compiled as grep compiles it) matches a text, the text
//! meets the requirement: a file left out by the index never holds a match.

use fs_mcp_index::Required;

const PATTERNS: &[&str] = &[
    "key",
    "(?i)key",
    "(?i)KEY",
    "(?i)stop",
    "(?i)ſtop",
    "(?i)straße",
    "(?i)STRASSE",
    "(?i)ǅemal",
    "(?i)istanbul",
    "(?i)İstanbul",
    "(?i)ıstanbul",
    "(?i)café",
    "(?i)ΣΊΣΥΦΟΣ",
    "(?-u:\\xFF)abc",
    "(?i-u:\\xFF)ABC",
    "[a-p][a-p]xyz",
    "(?i)[a-c]bc",
    "\\bfoo\\b",
    "(abc){2,}",
    "(?:abc|)def",
    "(?:ab|cd)(?:ef|gh)(?:ij|kl)(?:mn|op)(?:qr|st)(?:uv|wx)(?:yz|01)",
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdefTAIL[xy]",
    "0123456789abcdef0123456789abcdef0123456789abcdef012345678901[xyz]q",
    "é",
    "e\u{301}",
    "(?i)Ω",
    "a{3}",
    "(?i)ﬀ",
    "x(?:\\r\\n|\\n)?y{2}z",
];

fn texts() -> Vec<Vec<u8>> {
    let mut texts: Vec<Vec<u8>> = [
        "KEY",
        "\u{212A}EY",
        "\u{212A}ey",
        "ſtop",
        "STOP",
        "ſTOP",
        "STRAẞE",
        "straße",
        "STRASSE",
        "Ǆemal",
        "ǆEMAL",
        "ǅemal",
        "İSTANBUL",
        "ıstanbul",
        "ISTANBUL",
        "istanbul",
        "CAFÉ",
        "café",
        "σίσυφος",
        "ΣΊΣΥΦΟς",
        "foo",
        "a foo b",
        "abcabc",
        "abcdef",
        "def",
        "acegikmoqsuwyz",
        "bdfhjlnprtvx01",
        "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdefTAILx",
        "0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdefTAILy",
        "0123456789abcdef0123456789abcdef0123456789abcdef012345678901zq",
        "e\u{301}",
        "é",
        "ω",
        "Ω",
        "\u{2126}",
        "aaa",
        "ﬀ",
        "FF",
        "xyyz",
        "x\nyyz",
        "xyz",
        "ppxyz",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    texts.push(b"\xFFabc".to_vec());
    texts.push(b"\xFFABC".to_vec());
    texts.push(b"pre \xFF\xFEabc post".to_vec());
    texts
}

#[test]
fn every_matching_text_meets_the_requirement_on_unicode_and_byte_edges() {
    let texts = texts();
    let mut matched = 0;
    for pattern in PATTERNS {
        for case_insensitive in [false, true] {
            let regex = regex::bytes::RegexBuilder::new(pattern)
                .case_insensitive(case_insensitive)
                .multi_line(true)
                .crlf(true)
                .build()
                .unwrap_or_else(|e| panic!("{pattern}: {e}"));
            let required = Required::of(pattern, case_insensitive);
            for text in &texts {
                if regex.is_match(text) {
                    matched += 1;
                    assert!(
                        required.holds_in(text),
                        "{pattern:?} (case_insensitive {case_insensitive}) matches {:?} but requires {:?}",
                        String::from_utf8_lossy(text),
                        required
                    );
                }
            }
        }
    }
    assert!(matched > 40, "too few matches to mean anything: {matched}");
}
