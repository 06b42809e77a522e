//! One query from source to answer: compile it, plan how to read its input
//! (unless the planner is off), read the file and run the program.

use crate::answer::Answer;
use crate::engine;
use crate::errors::QueryError;
use crate::input;
use crate::plan::{self, ReadPlan};
use crate::program::{self, Program};
use crate::request::{InputFormat, Limits, Planner};

/// A compiled query and how to read its input.
pub(crate) struct Query {
    pub(crate) program: Program,
    /// How to read a file without building all of it; `None`: build every
    /// document whole (the planner is off, or the query may observe all).
    pub(crate) plan: Option<ReadPlan>,
}

/// Compile `code` and, with the planner on, plan its reads; errors point
/// into `code`.
pub(crate) fn compile(code: &str, planner: Planner) -> Result<Query, QueryError> {
    let program = program::compile(code)?;
    let plan = match planner {
        Planner::On => ReadPlan::new(&program.expression),
        Planner::Off => None,
    };
    Ok(Query { program, plan })
}

/// Run `query` on the bytes of a file: along its plan when it has one and the
/// plan can promise the exact answer, else on the whole documents.
///
/// With `leak` set, the input values are not freed (a worker process that is
/// about to exit saves the time of dropping a huge tree).
pub(crate) fn run(
    query: &Query,
    input_bytes: &[u8],
    format: InputFormat,
    limits: &Limits,
    leak: bool,
) -> Result<Answer, QueryError> {
    let program = &query.program;
    let plan = query.plan.as_ref();
    let inputs = match format {
        InputFormat::Json => {
            let body = input::json_body(input_bytes)?;
            if let Some(result) = plan.and_then(|p| plan::run_json(p, program, body, limits)) {
                return result;
            }
            input::json_inputs(body)?
        }
        InputFormat::Yaml => {
            if let Some(result) = plan.and_then(|p| plan::run_yaml(p, program, input_bytes, limits))
            {
                return result;
            }
            input::yaml_inputs(input_bytes)?
        }
    };
    engine::run(program, inputs, limits, leak)
}

/// Run `query` on a file read from `file` (at its start) when its plan
/// streams an array: the file is read a window at a time (JSON) or as the
/// YAML parser goes (a file of one YAML document) and never held whole. `None` when there is no such plan, or the stream could
/// not promise the exact answer: read the file whole and [`run`] it then.
pub(crate) fn run_streamed(
    query: &Query,
    file: &mut (dyn std::io::Read + Send),
    format: InputFormat,
    limits: &Limits,
) -> Option<Result<Answer, QueryError>> {
    match format {
        InputFormat::Json => plan::run_json_reader(
            query.plan.as_ref()?,
            file,
            limits,
            crate::projected::WINDOW_BYTES,
        ),
        InputFormat::Yaml => plan::run_yaml_reader(query.plan.as_ref()?, file, limits),
    }
}

#[cfg(test)]
mod fuzz;
#[cfg(test)]
mod properties;

#[cfg(test)]
mod tests {
    use super::*;

    /// Documents with the shapes the plans must get right: missing keys,
    /// nulls, wrong types, nested arrays, escaped and duplicate keys.
    const DOCS: &[&str] = &[
        r#"{"meta": {"first": 2, "name": "m"}, "items": [
            {"id": 1, "name": "a", "active": true, "score": 10, "group": "g1",
             "tags": ["x", "y"], "owner": {"name": "o1", "region": "eu"}, "history": [1, 2]},
            {"id": 2, "name": "b", "active": false, "score": 99.5, "group": "g2",
             "tags": [], "owner": {"name": "o2", "region": "us"}, "history": []},
            {"id": 3, "name": "c", "active": null, "score": -3, "group": "g1",
             "owner": null, "extra": {"deep": [{"k": 1}]}},
            {"id": 4, "name": "d\u00e9", "score": 1e2, "group": "g2", "tags": ["z"],
             "owner": {"name": "o4"}, "a\u0062": 5},
            {"id": 5, "score": 7, "group": "g3", "owner": {"region": "ap"}, "id": 6}
        ], "empty": [], "n": 3}"#,
        r#"[{"id": 1, "score": 2}, {"id": 2, "score": 5, "tags": ["t"]}, 7, "s", null]"#,
        "{\"id\": 1, \"items\": [1, 2]}\n{\"id\": 2, \"items\": []}\n{\"id\": 3}\n",
        r#"{"items": {"a": {"id": 1, "score": 3}, "b": {"id": 2, "score": 4}}}"#,
        r#"{"items": [{"id": 1}], "items": [{"id": 2}, {"id": 3}]}"#,
        r#"{"items": "not an array", "meta": 1}"#,
        r#"{"items": [1, {"id": 2}, [3], "x", true]}"#,
        "42",
    ];

    /// Queries the analysis handles (all plan or stream), and a few it
    /// gives up on.
    const QUERIES: &[&str] = &[
        ".items | length",
        ".items[] | .id",
        ".items[] | select(.active and .score > 5) | {id, name}",
        ".items | map(select(.group == \"g1\")) | group_by(.owner.region) \
         | map({region: .[0].owner.region, n: length, total: (map(.score) | add)})",
        "[.items[] | .score] | add",
        ".items | map(.name) | join(\",\")",
        ".items[0]",
        ".items[-1].owner",
        ".items[1:3] | length",
        ".items[1:3][] | .id",
        ".items | keys",
        ".items | .[] | has(\"tags\")",
        ".items[] | .tags // [\"none\"]",
        ".items[] | .tags[]?",
        ".items[]? | .owner?.region?",
        ".items[] | (.owner | type), (.tags | length?)",
        ".meta as $m | .items[] | select(.id == $m.first) | .name",
        "reduce .items[] as $i (0; . + ($i.score // 0))",
        "foreach .items[] as $i (0; . + 1; [., $i.id])",
        ".items[] as {id: $x, owner: {region: $r}} | [$x, $r]",
        ".items | to_entries | map(.key)",
        ".items | to_entries | map(select(.value.score > 5) | .value.id)",
        ".items | sort_by(.score) | map(.id)",
        ".items | sort_by(.score) | .[-1] | {id, score}",
        ".items | sort_by(.owner.region) | .[0] | .id",
        ".items | sort_by(.tags) | .[-1]",
        ".empty | sort_by(.id) | .[0]",
        ".items | unique_by(.group) | length",
        ".items | min_by(.score) | .id",
        ".items | max_by(.score).name",
        ".items | first, last | .id?",
        "first(.items[] | select(.score > 5)) | .id",
        "limit(2; .items[] | .id)",
        ".items | any(.active)",
        ".items | all(.score > 0)",
        ".items | map(.tags | length?) | add",
        "if .n then .items | length else .meta end",
        ".items[] | if .active then \"on\" elif .active == false then \"off\" else .name end",
        ".items[] | \"\\(.id)-\\(.name)\"",
        ".items[] | .owner.region | select(. != null) | ascii_downcase",
        ".items[] | {(.name // \"?\"): .score}",
        ".items[] | .[\"ab\"]",
        ".items[] | .ab",
        ".items[] | .extra.deep[0].k",
        ".items | [.[] | .id] | reverse",
        ".items | map(.score) | sort | .[0]",
        ".items[] | objects | .id",
        ".items[] | numbers",
        ".items | .[] | values | type",
        ".[] | .id?",
        ".[]?",
        ".items[] | .id | 1",
        ".items[] | select(.active) | .id",
        ".items[] | select(.owner) | .name",
        ".items[] | select(.tags) | .tags | length",
        ".items | map(has(\"extra\")) | any",
        ".items[] | .owner | keys",
        "[.items[] | .owner | length] | max",
        "[.items[] | select(.score > 5)] | length",
        ".items[] | select(has(\"tags\")) | .tags | length",
        ".items[] | keys_unsorted",
        ".items[] | length",
        ".items[] | to_entries | length",
        ".items[] | tostring",
        ".meta | .name, .first",
        ".empty | length, .[0]",
        "[.items[].id] | add",
        ".items | length as $n | .[] | .score / $n",
        "label $out | .items[] | if .id == 3 then ., break $out else .id end",
        ".items[] | try .owner.region",
        ".items[] | .score |= . + 1",
        "..",
        "tostring",
        "def f: .id; .items[] | f",
        "try (.items[] | .name | ascii_downcase) catch \"err\"",
        ".items[] | .name | ascii_downcase",
        ".items | map(.id) | error",
        "input",
        ".items[] | halt",
    ];

    fn json(query: &Query, body: &str) -> Result<Answer, QueryError> {
        run(
            query,
            body.as_bytes(),
            InputFormat::Json,
            &Limits::default(),
            false,
        )
    }

    fn planned(code: &str) -> Query {
        compile(code, Planner::On).expect("compiles")
    }

    fn whole(code: &str) -> Query {
        let query = compile(code, Planner::Off).expect("compiles");
        assert!(query.plan.is_none(), "the planner is off for {code}");
        query
    }

    /// Every query gives exactly the answer of the whole-document run, on
    /// every document.
    #[test]
    fn plans_answer_like_whole_documents() {
        let mut with_plan = 0;
        let mut shortcut = 0;
        for code in QUERIES {
            let query = planned(code);
            with_plan += usize::from(query.plan.is_some());
            let whole = whole(code);
            for doc in DOCS {
                assert_eq!(
                    json(&query, doc),
                    json(&whole, doc),
                    "query {code}\non {doc}"
                );
            }
            let main = DOCS[0].as_bytes();
            let taken = query
                .plan
                .as_ref()
                .and_then(|plan| plan::run_json(plan, &query.program, main, &Limits::default()));
            if taken.is_some() {
                shortcut += 1;
            } else {
                eprintln!("whole document: {code}");
            }
        }
        // the shortcut is really taken, not just always refused
        assert!(with_plan >= QUERIES.len() - 10, "{with_plan} planned");
        assert!(shortcut >= QUERIES.len() - 12, "{shortcut} shortcuts");
    }

    /// YAML documents: merge keys, anchors, non-string keys, several
    /// documents, YAML 1.2 booleans.
    const YAML_DOCS: &[&str] = &[
        "meta:\n  first: 2\nbase: &b\n  group: g1\n  owner: {name: o, region: eu}\n\
         items:\n  - id: 1\n    name: a\n    active: true\n    score: 10\n    tags: [x, y]\n    <<: *b\n\
         \n  - id: 2\n    name: b\n    active: no\n    score: 99.5\n    group: g2\n\
         \n  - {id: 3, name: c, score: -3, owner: null, 1: one, true: t}\nn: 3\n",
        "---\nitems: [1, 2]\nid: 1\n---\nitems: []\nid: 2\n---\nid: 3\n",
        "- id: 1\n  score: 2\n- id: 2\n  score: .inf\n- 7\n- s\n",
        "items:\n  a: {id: 1, score: 3}\n  b: {id: 2, score: 4}\n",
        "{\"items\": [{\"id\": 1}], \"items\": [{\"id\": 2}]}",
        "base: &b\n  items: [{id: 9, score: 1}]\n<<: *b\n",
        "base: &b\n  items: [{id: 9}]\n<<: *b\nitems: [{id: 10, score: 6}]\n",
        "items: &i [{id: 1, score: 9}]\nagain: *i\n",
    ];

    #[test]
    fn yaml_plans_answer_like_whole_documents() {
        let mut shortcut = 0;
        for code in QUERIES {
            let query = planned(code);
            let whole = whole(code);
            for doc in YAML_DOCS {
                let yaml = |q: &Query| {
                    run(
                        q,
                        doc.as_bytes(),
                        InputFormat::Yaml,
                        &Limits::default(),
                        false,
                    )
                };
                assert_eq!(yaml(&query), yaml(&whole), "query {code}\non {doc}");
            }
            let main = YAML_DOCS[0].as_bytes();
            let taken = query
                .plan
                .as_ref()
                .and_then(|plan| plan::run_yaml(plan, &query.program, main, &Limits::default()));
            shortcut += usize::from(taken.is_some());
        }
        assert!(shortcut >= QUERIES.len() / 2, "{shortcut} shortcuts");
    }

    #[test]
    fn parse_errors_come_from_the_ordinary_reader() {
        let query = planned(".items[] | .id");
        let err = json(&query, "{\"items\": [{\"id\": 1}, {\"id\": }]}").unwrap_err();
        assert!(
            matches!(
                err,
                QueryError::Input(crate::errors::InputProblem::InvalidJson { at, .. }) if at.line == 1
            ),
            "{err:?}"
        );
        let err = json(&query, "{\"items\": [1, 2}").unwrap_err();
        assert!(
            matches!(
                err,
                QueryError::Input(crate::errors::InputProblem::InvalidJson { .. })
            ),
            "{err:?}"
        );
    }
}
