//! Example queries tailored to a file, from a look at its first bytes.

use std::path::Path;

/// Shape of the top level of a document, as far as the head shows it.
#[derive(Debug, Default)]
struct Shape {
    /// Top-level object keys in order, with the kind of their value.
    keys: Vec<(String, Kind)>,
    /// The top level is an array.
    array: bool,
    /// Keys of the first element of a top-level array, if it is an object.
    first_elem_keys: Vec<String>,
    /// The file holds a stream of top-level values (JSON Lines).
    stream: bool,
    /// The top-level key whose array is largest as far as the head shows: one the head ends
    /// inside counts as the largest (it is at least as long as the head allows).
    largest_array: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Array,
    Object,
    Scalar,
    Unknown,
}

/// Three ready-to-use jq expressions for exploring this file as JSON
/// (`is_yaml == false`) or as YAML, based on its beginning
/// (`file_head`, e.g. the first 64 KB) and its name (`.jsonl`/`.ndjson` files
/// are streams of records).
///
/// For an object with an array under `items` this gives `keys`,
/// `.items[0:5]` and `.items | length`; for a top-level array `length`,
/// `.[0:5]` and `.[0] | keys`.
pub fn example_queries(path: &Path, is_yaml: bool, file_head: &[u8]) -> Vec<String> {
    let head = String::from_utf8_lossy(file_head);
    let head = head.strip_prefix('\u{feff}').unwrap_or(&head);
    let mut shape = if is_yaml {
        yaml_shape(head)
    } else {
        json_shape(head)
    };
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    if !is_yaml && matches!(ext.as_str(), "jsonl" | "ndjson") {
        shape.stream = true;
    }
    queries(&shape)
}

fn queries(shape: &Shape) -> Vec<String> {
    let q = |v: &[String]| v.to_vec();
    if shape.stream {
        let third = match shape.keys.first() {
            Some((k, _)) => access(k),
            None => "keys".into(),
        };
        return q(&[
            "limit(5; ., inputs)".into(),
            "[., inputs] | length".into(),
            third,
        ]);
    }
    if shape.array {
        let third = match shape.first_elem_keys.first() {
            Some(k) => format!("map({}) | .[0:10]", access(k)),
            None => ".[0] | keys".into(),
        };
        return q(&["length".into(), ".[0:5]".into(), third]);
    }
    let first_array = shape
        .keys
        .iter()
        .find(|(_, kind)| *kind == Kind::Array)
        .map(|(k, _)| k);
    if let Some(k) = shape.largest_array.as_ref().or(first_array) {
        let k = access(k);
        return q(&["keys".into(), format!("{k}[0:5]"), format!("{k} | length")]);
    }
    if let Some((k, _)) = shape.keys.iter().find(|(_, kind)| *kind == Kind::Object) {
        let k = access(k);
        return q(&[
            "keys".into(),
            "map_values(type)".into(),
            format!("{k} | keys"),
        ]);
    }
    if !shape.keys.is_empty() {
        return q(&[
            "keys".into(),
            "map_values(type)".into(),
            "to_entries[0:5]".into(),
        ]);
    }
    q(&["type".into(), "length".into(), "[paths] | .[0:20]".into()])
}

/// `.key`, or `.["odd key"]` when the key is not an identifier.
fn access(key: &str) -> String {
    let ident = key
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if ident {
        format!(".{key}")
    } else {
        let mut s = String::from(".[");
        crate::json_out::write_str(key, &mut s);
        s.push(']');
        s
    }
}

// --- JSON ---------------------------------------------------------------------

/// A forgiving scanner over possibly truncated JSON.
struct Scan<'a> {
    b: &'a [u8],
    i: usize,
    /// Arrays met as object values by [`Scan::object_keys`]: key, items counted, and whether
    /// the head ended inside the array.
    arrays: Vec<(String, u64, bool)>,
}

impl Scan<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && self.b[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    /// A string starting at the current `"`.
    fn string(&mut self) -> Option<String> {
        let start = self.i + 1;
        let mut i = start;
        while i < self.b.len() {
            match self.b[i] {
                b'\\' => i += 2,
                b'"' => {
                    self.i = i + 1;
                    let raw = std::str::from_utf8(&self.b[start - 1..=i]).ok()?;
                    return serde_json::from_str(raw).ok();
                }
                _ => i += 1,
            }
        }
        self.i = self.b.len();
        None
    }

    /// Skip one value; `false` if the head ends inside it.
    fn skip_value(&mut self) -> bool {
        let mut depth = 0usize;
        while let Some(c) = self.peek() {
            match c {
                b'"' => {
                    if self.string().is_none() && self.i >= self.b.len() {
                        return false;
                    }
                    if depth == 0 {
                        return true;
                    }
                    continue;
                }
                b'[' | b'{' => depth += 1,
                b']' | b'}' => {
                    if depth == 0 {
                        return true;
                    }
                    depth -= 1;
                    if depth == 0 {
                        self.i += 1;
                        return true;
                    }
                }
                b',' if depth == 0 => return true,
                c if depth == 0 && c.is_ascii_whitespace() => return true,
                _ => {}
            }
            self.i += 1;
        }
        false
    }

    /// Counts the items of the array starting at the current `[` and skips it; `false` if the
    /// head ends inside it (the count is then a lower bound).
    fn array_items(&mut self) -> (u64, bool) {
        self.i += 1;
        self.ws();
        if self.peek() == Some(b']') {
            self.i += 1;
            return (0, true);
        }
        let mut items = 0;
        loop {
            self.ws();
            if self.peek().is_none() || !self.skip_value() {
                return (items, false);
            }
            items += 1;
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return (items, true);
                }
                None => return (items, false),
                // Not JSON: stop counting, as if the array ended here.
                Some(_) => return (items, true),
            }
        }
    }

    /// Keys of the object starting at the current `{`, with value kinds.
    fn object_keys(&mut self) -> Vec<(String, Kind)> {
        let mut keys = Vec::new();
        self.i += 1;
        loop {
            self.ws();
            match self.peek() {
                Some(b'"') => {}
                _ => return keys,
            }
            let Some(key) = self.string() else {
                return keys;
            };
            self.ws();
            if self.peek() != Some(b':') {
                return keys;
            }
            self.i += 1;
            self.ws();
            let kind = match self.peek() {
                Some(b'[') => Kind::Array,
                Some(b'{') => Kind::Object,
                Some(_) => Kind::Scalar,
                None => Kind::Unknown,
            };
            if kind == Kind::Array {
                let (items, complete) = self.array_items();
                self.arrays.push((key.clone(), items, !complete));
                keys.push((key, kind));
                if !complete {
                    return keys;
                }
            } else {
                keys.push((key, kind));
                if !self.skip_value() {
                    return keys;
                }
            }
            self.ws();
            match self.peek() {
                Some(b',') => self.i += 1,
                _ => return keys,
            }
        }
    }
}

fn json_shape(head: &str) -> Shape {
    let mut s = Scan {
        b: head.as_bytes(),
        i: 0,
        arrays: Vec::new(),
    };
    let mut shape = Shape::default();
    s.ws();
    match s.peek() {
        Some(b'{') => {
            shape.keys = s.object_keys();
            // An array cut by the end of the head first, then the longest; the first of equals.
            shape.largest_array = s
                .arrays
                .iter()
                .enumerate()
                .max_by_key(|(i, (_, items, cut))| (*cut, *items, std::cmp::Reverse(*i)))
                .map(|(_, (key, _, _))| key.clone());
            // another value after the first one: a stream of records
            s.ws();
            if s.peek() == Some(b'}') {
                s.i += 1;
                s.ws();
                shape.stream = matches!(s.peek(), Some(b'{' | b'['));
            }
        }
        Some(b'[') => {
            shape.array = true;
            s.i += 1;
            s.ws();
            if s.peek() == Some(b'{') {
                shape.first_elem_keys = s.object_keys().into_iter().map(|(k, _)| k).collect();
            }
        }
        _ => {}
    }
    shape
}

// --- YAML ---------------------------------------------------------------------

fn yaml_shape(head: &str) -> Shape {
    let mut shape = Shape::default();
    let lines: Vec<&str> = head
        .lines()
        .filter(|l| {
            let t = l.trim();
            !t.is_empty() && !t.starts_with('#') && !t.starts_with('%')
        })
        .collect();
    let mut start = 0;
    while start < lines.len() && lines[start].trim_end().starts_with("---") {
        start += 1;
    }
    let lines = &lines[start..];
    let Some(first) = lines.first() else {
        return shape;
    };
    if first.starts_with("- ") || first.trim_end() == "-" {
        shape.array = true;
        let item = first.trim_start_matches('-').trim_start();
        if let Some((k, _)) = yaml_key(item) {
            shape.first_elem_keys.push(k);
        }
        return shape;
    }
    if first.trim_start().starts_with(['{', '[']) {
        // flow style: scan it like JSON
        return json_shape(first.trim_start());
    }
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with([' ', '\t']) || line.starts_with("---") {
            continue;
        }
        let Some((key, rest)) = yaml_key(line) else {
            continue;
        };
        let rest = rest.split(" #").next().unwrap_or("").trim();
        // an anchor (`&name`) or a tag before the value
        let rest = rest
            .split_whitespace()
            .filter(|w| !w.starts_with('&') && !w.starts_with('!'))
            .collect::<Vec<_>>()
            .join(" ");
        let kind = if rest.starts_with('[') {
            Kind::Array
        } else if rest.starts_with('{') {
            Kind::Object
        } else if !rest.is_empty() {
            Kind::Scalar
        } else {
            match lines.get(i + 1) {
                Some(next) => {
                    let t = next.trim_start();
                    if t.starts_with("- ") || t == "-" {
                        Kind::Array
                    } else if next.starts_with([' ', '\t']) {
                        Kind::Object
                    } else {
                        Kind::Scalar
                    }
                }
                None => Kind::Unknown,
            }
        };
        if !shape.keys.iter().any(|(k, _)| *k == key) {
            shape.keys.push((key, kind));
        }
    }
    shape
}

/// `key: rest` at the start of `line` (plain or quoted key).
fn yaml_key(line: &str) -> Option<(String, &str)> {
    let line = line.trim_end();
    let (key, rest) = if let Some(q) = line.strip_prefix('"') {
        let end = q.find('"')?;
        (q[..end].to_string(), q[end + 1..].strip_prefix(':')?)
    } else if let Some(q) = line.strip_prefix('\'') {
        let end = q.find('\'')?;
        (q[..end].to_string(), q[end + 1..].strip_prefix(':')?)
    } else {
        let colon = line
            .find(": ")
            .or_else(|| line.ends_with(':').then(|| line.len() - 1))?;
        let key = line[..colon].trim();
        if key.is_empty() || key.starts_with(['-', '{', '[', '&', '*', '!', '?']) {
            return None;
        }
        (key.to_string(), &line[colon + 1..])
    };
    Some((key, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(name: &str, yaml: bool, head: &str) -> Vec<String> {
        example_queries(Path::new(name), yaml, head.as_bytes())
    }

    #[test]
    fn json_object_with_array() {
        let head = r#"{"name": "x", "meta": {"a": [1]}, "items": [{"id": 1}, {"id": 2"#;
        assert_eq!(
            ex("a.json", false, head),
            ["keys", ".items[0:5]", ".items | length"]
        );
    }

    #[test]
    fn json_odd_keys_and_objects() {
        let head = r#"{"the-data": {"x": 1}, "b": 2}"#;
        assert_eq!(
            ex("a.json", false, head),
            ["keys", "map_values(type)", r#".["the-data"] | keys"#]
        );
    }

    #[test]
    fn json_array_and_stream() {
        assert_eq!(
            ex("a.json", false, r#"[{"id": 1, "n": "a"}, {"id": 2"#),
            ["length", ".[0:5]", "map(.id) | .[0:10]"]
        );
        assert_eq!(
            ex("a.jsonl", false, "{\"ts\": 1}\n{\"ts\": 2}\n"),
            ["limit(5; ., inputs)", "[., inputs] | length", ".ts"]
        );
        assert_eq!(
            ex("log.json", false, "{\"ts\": 1}\n{\"ts\": 2}\n")[0],
            "limit(5; ., inputs)"
        );
    }

    #[test]
    fn yaml_shapes() {
        let head = "# config\nversion: 3\nservices:\n  web:\n    image: x\nvolumes:\n  - a\n";
        assert_eq!(
            ex("c.yaml", true, head),
            ["keys", ".volumes[0:5]", ".volumes | length"]
        );
        let head = "---\napiVersion: v1\nmetadata:\n  name: x\n";
        assert_eq!(
            ex("k.yml", true, head),
            ["keys", "map_values(type)", ".metadata | keys"]
        );
        assert_eq!(
            ex("l.yaml", true, "- name: a\n  v: 1\n- name: b\n"),
            ["length", ".[0:5]", "map(.name) | .[0:10]"]
        );
    }
}
