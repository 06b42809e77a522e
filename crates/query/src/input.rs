//! Reading the queried file: JSON with jaq's reader, YAML with serde-saphyr.

use crate::data::InputIter;
use crate::errors::{InputProblem, Position, QueryError, line_col, shorten};
use crate::request::InputFormat;
use crate::skip::{DepthScan, MAX_JSON_DEPTH};
use jaq_json::{Map, Val};
use serde_saphyr::{Budget, DuplicateKeyPolicy, NonFiniteFloatPolicy, Options};

/// How much of the file start is looked at to tell JSON from YAML (the binary sniff's window).
const SNIFF_BYTES: usize = fs_mcp_text::SNIFF_BYTES;

fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// Refuse binary and UTF-16/32 files.
fn check_text(bytes: &[u8], format: InputFormat) -> Result<(), QueryError> {
    if bytes.starts_with(b"\xFF\xFE") || bytes.starts_with(b"\xFE\xFF") {
        return Err(QueryError::Input(InputProblem::Utf16 { format }));
    }
    if fs_mcp_text::is_binary(bytes) {
        return Err(QueryError::Input(InputProblem::Binary { format }));
    }
    Ok(())
}

/// A 1-based line and column.
fn position((line, column): (usize, usize)) -> Position {
    Position { line, column }
}

/// The body of a JSON file: checked to be text and not nested too deeply,
/// without a byte order mark.
pub(crate) fn json_body(bytes: &[u8]) -> Result<&[u8], QueryError> {
    check_text(bytes, InputFormat::Json)?;
    let body = strip_bom(bytes);
    check_depth(body)?;
    Ok(body)
}

/// The values of a JSON file body (see [`json_body`]; several top-level values, as in JSON Lines, are
/// several inputs). The first value is parsed eagerly so that a file that is
/// not JSON at all fails with a clear error; later parse errors end the input
/// stream with a message.
pub(crate) fn json_inputs(body: &[u8]) -> Result<InputIter<'_>, QueryError> {
    let mut values = jaq_json::read::parse_many(body);
    let first = match values.next() {
        None => return Ok(Box::new(std::iter::empty())),
        Some(Ok(v)) => v,
        Some(Err(e)) => {
            let (message, line, column) = json_error_parts(body, &e);
            return Err(QueryError::Input(InputProblem::InvalidJson {
                message,
                at: Position { line, column },
                looks_like_yaml: looks_like_yaml(body),
            }));
        }
    };
    let mut index = 1;
    let rest = values.map(move |r| {
        index += 1;
        r.map_err(|e| {
            let (msg, line, col) = json_error_parts(body, &e);
            format!("invalid JSON in value {index} of the file: {msg} at line {line}, column {col}")
        })
    });
    Ok(Box::new(std::iter::once(Ok(first)).chain(rest)))
}

/// jq refuses JSON nested deeper than [`MAX_JSON_DEPTH`]; so do we, before
/// the recursive parser could exhaust the stack.
fn check_depth(body: &[u8]) -> Result<(), QueryError> {
    match DepthScan::default().feed(body) {
        None => Ok(()),
        Some(i) => Err(QueryError::Input(InputProblem::TooDeep {
            max_depth: MAX_JSON_DEPTH,
            at: position(line_col(body, i)),
        })),
    }
}

/// Message, line and column of a jaq JSON reader error (its text is
/// `byte offset N: message`).
fn json_error_parts(body: &[u8], e: &jaq_json::read::Error) -> (String, usize, usize) {
    let text = e.to_string();
    let (offset, msg) = text
        .strip_prefix("byte offset ")
        .and_then(|t| t.split_once(": "))
        .and_then(|(n, m)| Some((n.parse::<usize>().ok()?, m.to_string())))
        .unwrap_or((0, text.clone()));
    let (line, col) = line_col(body, offset);
    (shorten(&msg, 120), line, col)
}

/// A cheap guess whether a text that is not JSON is YAML.
fn looks_like_yaml(body: &[u8]) -> bool {
    let head = String::from_utf8_lossy(&body[..body.len().min(SNIFF_BYTES)]);
    let Some(first) = head
        .lines()
        .map(str::trim_end)
        .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
    else {
        return false;
    };
    if first.starts_with("---") || first.starts_with("%YAML") || first.starts_with("- ") {
        return true;
    }
    // `key: value` or `key:` at the start of a line
    match first.split_once(':') {
        Some((key, rest)) => {
            let key = key.trim();
            !key.is_empty()
                && !key.starts_with(['{', '[', '"'])
                && (rest.is_empty() || rest.starts_with(' '))
        }
        None => false,
    }
}

/// serde-saphyr options: YAML 1.2 booleans (`no` stays a string), merge keys,
/// last duplicate key wins, `.inf`/`.nan` allowed, and budgets that stop
/// alias bombs ("billion laughs") while allowing large files.
fn yaml_options() -> Options {
    let mut budget = Budget::default();
    budget.max_reader_input_bytes = None;
    budget.max_events = 200_000_000;
    budget.max_aliases = 100_000;
    budget.max_anchors = 100_000;
    budget.max_depth = 512;
    budget.max_documents = 1_000_000;
    budget.max_nodes = 100_000_000;
    budget.max_total_scalar_bytes = 2 << 30;
    budget.max_merge_keys = 100_000;
    serde_saphyr::options! {
        budget: Some(budget),
        strict_booleans: true,
        duplicate_keys: DuplicateKeyPolicy::LastWins,
        non_finite_float_policy: NonFiniteFloatPolicy::PassThrough,
        with_snippet: false,
    }
}

/// The documents of a YAML file, each one input. A file that is not YAML but
/// is JSON (JSON that YAML rejects, e.g. with duplicate keys) is read as JSON.
pub(crate) fn yaml_inputs(bytes: &[u8]) -> Result<InputIter<'_>, QueryError> {
    let (body, text) = yaml_text(bytes)?;
    match serde_saphyr::from_multiple_with_options::<Val>(text, yaml_options()) {
        Ok(docs) => Ok(Box::new(docs.into_iter().map(|d| Ok(string_keys(d))))),
        Err(e) => {
            let json: Result<Vec<Val>, _> = jaq_json::read::parse_many(body).collect();
            if let Ok(values) = json {
                return Ok(Box::new(values.into_iter().map(Ok)));
            }
            Err(QueryError::Input(yaml_problem(&e)))
        }
    }
}

/// The text of a YAML file, checked to be UTF-8 text, without a byte order
/// mark (also as bytes).
fn yaml_text(bytes: &[u8]) -> Result<(&[u8], &str), QueryError> {
    check_text(bytes, InputFormat::Yaml)?;
    let body = strip_bom(bytes);
    let text = std::str::from_utf8(body).map_err(|e| {
        QueryError::Input(InputProblem::NotUtf8 {
            at: position(line_col(body, e.valid_up_to())),
        })
    })?;
    Ok((body, text))
}

/// The documents of a YAML file, built only as far as `need` asks (see
/// [`crate::projected_yaml`]); `None` on any problem (the ordinary path then
/// reports it).
pub(crate) fn yaml_projected(bytes: &[u8], need: &crate::need::Need) -> Option<Vec<Val>> {
    let (_, text) = yaml_text(bytes).ok()?;
    let docs = crate::projected_yaml::with_need(need, || {
        serde_saphyr::from_multiple_with_options::<crate::projected_yaml::Doc>(text, yaml_options())
    })
    .ok()?;
    Some(docs.into_iter().map(|d| string_keys(d.0)).collect())
}

/// Stream the target array of a YAML file (see
/// [`crate::projected_yaml::with_stream`]); `None` unless the file parsed,
/// holds one document and the array was found exactly once.
pub(crate) fn yaml_stream(bytes: &[u8], target: crate::projected_yaml::StreamTarget) -> Option<()> {
    let (_, text) = yaml_text(bytes).ok()?;
    let (docs, report) = crate::projected_yaml::with_stream(target, || {
        serde_saphyr::from_multiple_with_options::<crate::projected_yaml::Doc>(text, yaml_options())
    });
    (docs.ok()?.len() == 1 && report.exact).then_some(())
}

/// Stream the target array of a YAML file read from `reader` (see
/// [`yaml_stream`]) without holding the file; `None` unless the file is
/// text of one document that parsed and held the array exactly once.
pub(crate) fn yaml_stream_read(
    reader: &mut dyn std::io::Read,
    target: crate::projected_yaml::StreamTarget,
) -> Option<()> {
    use std::io::Read;
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    reader
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut head)
        .ok()?;
    check_text(&head, InputFormat::Yaml).ok()?;
    let start = strip_bom(&head);
    let rest = start.chain(reader);
    let (doc, report) = crate::projected_yaml::with_stream(target, || {
        serde_saphyr::from_reader_with_options::<_, crate::projected_yaml::Doc>(
            rest,
            yaml_options(),
        )
    });
    (doc.is_ok() && report.exact).then_some(())
}

fn yaml_problem(e: &serde_saphyr::Error) -> InputProblem {
    let full = e.to_string();
    // the plain message is the first line; drop a trailing location
    let msg = full.lines().next().unwrap_or(&full).trim();
    let msg = msg
        .rsplit_once(" at line ")
        .map_or(msg, |(m, _)| m)
        .trim_end_matches(':');
    InputProblem::InvalidYaml {
        message: shorten(msg, 160),
        at: e
            .location()
            .filter(|loc| loc.line() > 0)
            .map(|loc| Position {
                line: usize::try_from(loc.line()).unwrap_or(usize::MAX),
                column: usize::try_from(loc.column()).unwrap_or(usize::MAX),
            }),
    }
}

/// YAML allows non-string keys (`1: a`, `true: b`); jq only knows string
/// keys, so convert them to their JSON text, as yq does.
fn string_keys(v: Val) -> Val {
    fn needs(v: &Val) -> bool {
        match v {
            Val::Arr(a) => a.iter().any(needs),
            Val::Obj(o) => o
                .iter()
                .any(|(k, x)| !matches!(k, Val::TStr(_) | Val::BStr(_)) || needs(x)),
            _ => false,
        }
    }
    fn convert(v: Val) -> Val {
        match v {
            Val::Arr(a) => Val::Arr(jaq_json::Rc::new(a.iter().cloned().map(convert).collect())),
            Val::Obj(o) => {
                let mut m = Map::default();
                for (k, x) in o.iter() {
                    let k = match k {
                        Val::TStr(_) | Val::BStr(_) => k.clone(),
                        other => Val::from(crate::json_out::to_json(other)),
                    };
                    m.insert(k, convert(x.clone()));
                }
                Val::obj(m)
            }
            v => v,
        }
    }
    if needs(&v) { convert(v) } else { v }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_guess() {
        assert!(looks_like_yaml(b"# c\nname: x\nitems:\n  - 1\n"));
        assert!(looks_like_yaml(b"---\na: 1\n"));
        assert!(looks_like_yaml(b"- a\n- b\n"));
        assert!(!looks_like_yaml(b"{\"a\": }"));
        assert!(!looks_like_yaml(b"hello world"));
    }
}
