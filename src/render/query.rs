//! `query_json`'s and `query_yaml`'s outcomes as the model reads them: the answer (with "no
//! results" and a lone result said in words, then its notes: what was cut and how to get the
//! rest, an error after some results, `debug` output) and the errors (a syntax error's hint),
//! with next steps naming only listed tools. The crate gives the notes and hints as data
//! ([`AnswerNote`], [`SyntaxHint`]); every sentence about them is here.

use fs_mcp_query::{
    Answer, AnswerNote, CompileError, CompileProblem, FunctionHelp, InputFormat, InputProblem,
    JqOnlyReason, QueryError, ResultCount, SyntaxHint, VariableHelp,
};
use std::time::Duration;

use rmcp::model::CallToolResult;

use super::{ListedTools, failure};
use crate::params::QUERY_TIMEOUT;

/// What an answer without results reads.
pub const NO_RESULTS: &str = "No results found.";

/// What a lone result is followed by.
pub const SINGLE_RESULT_NOTE: &str = "(1 result)";

/// The answer as text: the results (or [`NO_RESULTS`]), then the notes. A lone result with
/// nothing after it is followed by [`SINGLE_RESULT_NOTE`]: some clients (Gemini CLI) take a
/// text result that parses as JSON for structured content and then refuse anything but an
/// object, so a lone `3`, `["a","b"]` or `"x"` would fail the call there. With the note, no
/// output is a bare JSON value, and every client shows the same text.
pub fn answer_text(answer: &Answer) -> String {
    let mut text = if answer.is_empty() {
        NO_RESULTS.to_string()
    } else {
        answer.results.clone()
    };
    for note in &answer.notes {
        text.push_str("\n\n");
        text.push_str(&note_text(note));
    }
    if answer.shown == 1 && answer.notes.is_empty() {
        text.push('\n');
        text.push_str(SINGLE_RESULT_NOTE);
    }
    text
}

/// One note after the results (each follows a blank line).
pub fn note_text(note: &AnswerNote) -> String {
    match note {
        AnswerNote::FirstResultCut {
            result_bytes,
            shown_bytes,
            results,
        } => format!(
            "--- Truncated. The first result is {} of JSON; showing its first {} ({} in total). ---\n\
             Narrow the query, e.g. `keys`, `.[0:5]` or `.items[0:5]`.",
            human_bytes(*result_bytes),
            human_bytes(*shown_bytes),
            results_counted(results),
        ),
        AnswerNote::Truncated {
            shown,
            results,
            output_limit_bytes,
            next_query,
        } => {
            let why = output_limit_bytes
                .map(|limit| format!(" (output limit of {})", human_bytes(limit)))
                .unwrap_or_default();
            let at_least = if results.at_least { "at least " } else { "" };
            format!(
                "--- Truncated{why}. Showing {shown} of {at_least}{} results. ---\n\
                 Refine your query or slice, e.g. {next_query}",
                results.counted
            )
        }
        AnswerNote::ErrorAfterResults {
            results,
            error,
            more_errors,
        } => {
            let mut text = format!(
                "--- jq error after {}: {error} ---",
                plural(*results, "result")
            );
            if *more_errors > 0 {
                text.push_str(&format!("\n({more_errors} more errors)"));
            }
            text
        }
        AnswerNote::Log { text, dropped } => {
            let mut out = format!("{LOG_HEADING}\n{text}");
            if *dropped {
                out.push_str("\n(more output dropped)");
            }
            out
        }
    }
}

/// What heads the `debug`/`stderr` output, in an answer and after a runtime error.
const LOG_HEADING: &str = "--- debug/stderr output ---";

/// `3 results`, `at least 150 results`.
fn results_counted(count: &ResultCount) -> String {
    if count.at_least {
        format!("at least {} results", count.counted)
    } else {
        plural(count.counted, "result")
    }
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// `64 bytes`, `3 KB`, `1.5 MB`: the sizes in query notes.
fn human_bytes(n: usize) -> String {
    if n >= 1024 * 1024 {
        format!("{:.1} MB", n as f64 / (1024.0 * 1024.0))
    } else if n >= 1024 {
        format!("{} KB", n / 1024)
    } else {
        format!("{n} bytes")
    }
}

/// What most likely fixes a syntax error, in a sentence.
pub fn hint_text(hint: &SyntaxHint) -> String {
    match hint {
        SyntaxHint::AddMissing { close } => format!("Add the missing `{close}`."),
        SyntaxHint::DoubleQuotes => "jq strings use double quotes: \"text\", not 'text'.".into(),
        SyntaxHint::ValidEscapes => {
            "Valid escapes are \\\\ \\\" \\n \\t \\r \\b \\f \\/ \\uXXXX and \\(...).".into()
        }
        SyntaxHint::CompareWithDoubleEquals => "Use `==` to compare; `=` assigns.".into(),
        SyntaxHint::EndsTooEarly => {
            "The query ends too early: something is not closed or finished.".into()
        }
        SyntaxHint::CheckStructure => "Check for unclosed brackets or quotes, a missing `|`, `;` or `end`, and use double quotes for strings.".into(),
    }
}

/// A compile error with what is known of each undefined name: `jq error: undefined function
/// `lenght/0` at line 1, column 1 (did you mean `length`?).`
pub fn compile_text(error: &CompileError) -> String {
    let problems: Vec<String> = error
        .problems
        .iter()
        .map(|problem| {
            let help = match problem {
                CompileProblem::UndefinedFunction {
                    name,
                    help: Some(help),
                    ..
                } => function_help_text(name, help),
                CompileProblem::UndefinedVariable {
                    help: Some(help), ..
                } => variable_help_text(help).to_string(),
                _ => String::new(),
            };
            if help.is_empty() {
                problem.to_string()
            } else {
                format!("{problem} ({help})")
            }
        })
        .collect();
    format!("jq error: {}.", problems.join("; "))
}

/// Environment access, as both `env` and `$ENV` are refused.
const ENVIRONMENT_DISABLED: &str = "environment access is disabled in this server";

pub(crate) fn function_help_text(name: &str, help: &FunctionHelp) -> String {
    match help {
        FunctionHelp::EnvironmentDisabled => ENVIRONMENT_DISABLED.into(),
        FunctionHelp::JqOnly { why } => {
            let why = match why {
                JqOnlyReason::LineNumbersNotTracked => "input line numbers are not tracked".into(),
                JqOnlyReason::FileNameNotAvailable => {
                    "the file name is not available to the query".into()
                }
                JqOnlyReason::ModulesUnsupported => "modules are not supported".into(),
                JqOnlyReason::UseInstead { expression } => format!("use `{expression}`"),
            };
            format!("`{name}` exists in jq 1.7 but not in this jq engine (jaq): {why}")
        }
        FunctionHelp::DefinedAs { arities } => {
            let list: Vec<String> = arities.iter().map(|a| format!("{name}/{a}")).collect();
            format!("defined as {}", list.join(", "))
        }
        FunctionHelp::DidYouMean { name } => format!("did you mean `{name}`?"),
    }
}

pub(crate) fn variable_help_text(help: &VariableHelp) -> &'static str {
    match help {
        VariableHelp::EnvironmentDisabled => ENVIRONMENT_DISABLED,
        VariableHelp::JqOnly => "exists in jq 1.7 but not in this jq engine (jaq)",
    }
}

/// What went wrong, as the error's first part: a syntax error with its line, caret and hint; a
/// compile error with what is known of each name; a runtime error with the `debug`/`stderr`
/// output before it.
pub fn what_failed(error: &QueryError) -> String {
    match error {
        QueryError::Compile(compile) => compile_text(compile),
        QueryError::Syntax(syntax) => match &syntax.hint {
            Some(hint) => format!("{syntax}\nHint: {}", hint_text(hint)),
            None => syntax.to_string(),
        },
        QueryError::Runtime(runtime) if !runtime.log.is_empty() => {
            format!("{runtime}\n{LOG_HEADING}\n{}", runtime.log)
        }
        QueryError::Runtime(runtime) => runtime.to_string(),
        QueryError::Input(problem) => input_text(problem),
        QueryError::Io(message) => message.clone(),
        QueryError::ExpressionTooLong { bytes, max_bytes } => format!(
            "The expression is too long ({bytes} bytes); at most {} KiB can be run.",
            max_bytes / 1024
        ),
        QueryError::FileTooLargeToLoad {
            file_bytes,
            memory_limit_bytes,
        } => format!(
            "The file is {} MB, too large to query whole within the memory limit of {} MB.",
            file_bytes / (1024 * 1024),
            memory_limit_bytes / (1024 * 1024)
        ),
        QueryError::Timeout(limit) => {
            format!("Query timed out after {} seconds.", seconds(*limit))
        }
        QueryError::MemoryLimit(bytes) => format!(
            "The query exceeded the memory limit of {} MB.",
            bytes / (1024 * 1024)
        ),
        QueryError::Crashed => "The query crashed the evaluator (probably unbounded recursion, \
             e.g. `def f: 1+f; f`); nothing else was affected."
            .into(),
        QueryError::Cancelled => "The query was cancelled.".into(),
        QueryError::Worker(message) => format!("the query evaluator failed: {message}"),
    }
}

/// Why the file is not input the tool reads, in a sentence.
fn input_text(problem: &InputProblem) -> String {
    match problem {
        InputProblem::Utf16 { format } => format!(
            "The file is UTF-16 encoded; only UTF-8 {} can be queried.",
            format_name(*format)
        ),
        InputProblem::Binary { format } => format!(
            "The file is binary (it contains NUL bytes), not {}.",
            format_name(*format)
        ),
        InputProblem::TooDeep { max_depth, at } => format!(
            "The file nests arrays/objects more than {max_depth} levels deep (at {at}); it cannot be queried."
        ),
        InputProblem::InvalidJson {
            message,
            at,
            looks_like_yaml,
        } => {
            let yaml = if *looks_like_yaml {
                " It looks like YAML."
            } else {
                ""
            };
            format!("The file is not valid JSON: {message} at {at}.{yaml}")
        }
        InputProblem::NotUtf8 { at } => {
            format!("The file is not valid UTF-8 text (first bad byte at {at}); it is not YAML.")
        }
        InputProblem::InvalidYaml {
            message,
            at: Some(at),
        } => format!("The file is not valid YAML: {message} at {at}."),
        InputProblem::InvalidYaml { message, at: None } => {
            format!("The file is not valid YAML: {message}.")
        }
    }
}

/// `JSON`, `YAML`.
fn format_name(format: InputFormat) -> &'static str {
    match format {
        InputFormat::Json => "JSON",
        InputFormat::Yaml => "YAML",
    }
}

/// `30`, `2.5`: seconds without a useless fraction.
fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{}", s as u64)
    } else {
        let t = format!("{s:.3}");
        t.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// The next step after `error`, if there is one to give.
pub fn next_step(error: &QueryError, listed: &ListedTools) -> Option<String> {
    match error {
        QueryError::Input(InputProblem::InvalidJson {
            looks_like_yaml: true,
            ..
        }) => listed
            .any_of(&["query_yaml"])
            .map(|tool| format!("Query it with {tool}")),
        QueryError::Timeout(_) => Some(format!(
            "Simplify the query or narrow it to part of the file (e.g. `.items[0:100]`), or give a longer {} (at most {} seconds)",
            QUERY_TIMEOUT.name,
            QUERY_TIMEOUT.max.unwrap_or(QUERY_TIMEOUT.default)
        )),
        QueryError::MemoryLimit(_) => {
            Some("Narrow the query to part of the file, e.g. `keys` or `.items[0:5]`".into())
        }
        QueryError::ExpressionTooLong { .. } => Some("Shorten it".into()),
        QueryError::FileTooLargeToLoad { .. } => Some(
            "Only queries that stream an array, such as `.items[] | …`, read a file of any size; write the query that way, or narrow it to such a stream"
                .into(),
        ),
        // The error's own text carries its hint; nothing to call instead.
        QueryError::Syntax(_)
        | QueryError::Compile(_)
        | QueryError::Runtime(_)
        | QueryError::Input(_)
        | QueryError::Io(_)
        | QueryError::Crashed
        | QueryError::Worker(_)
        | QueryError::Cancelled => None,
    }
}

/// A failed query in the one error format.
pub fn query_failure(error: &QueryError, listed: &ListedTools) -> CallToolResult {
    failure(what_failed(error), next_step(error, listed).as_deref())
}

#[cfg(test)]
mod tests {
    use fs_mcp_query::{Limits, Position, RuntimeError};

    use super::*;
    use crate::render::error_text;

    fn answer(results: &str, shown: usize, notes: Vec<AnswerNote>) -> Answer {
        Answer {
            results: results.into(),
            shown,
            notes,
        }
    }

    fn count(counted: usize, at_least: bool) -> ResultCount {
        ResultCount { counted, at_least }
    }

    /// The crate's answer to `expression` on `input`, as the model reads it.
    fn evaluated(input: &str, expression: &str, limits: &Limits) -> String {
        let answer =
            fs_mcp_query::evaluate(input.as_bytes(), InputFormat::Json, expression, limits)
                .expect("the query runs");
        answer_text(&answer)
    }

    #[test]
    fn no_results_and_a_lone_result_are_said() {
        assert_eq!(answer_text(&answer("", 0, vec![])), "No results found.");
        assert_eq!(answer_text(&answer("3", 1, vec![])), "3\n(1 result)");
        assert_eq!(answer_text(&answer("1\n2", 2, vec![])), "1\n2");
        let log = AnswerNote::Log {
            text: "x".into(),
            dropped: false,
        };
        assert_eq!(
            answer_text(&answer("", 0, vec![log])),
            "No results found.\n\n--- debug/stderr output ---\nx"
        );
    }

    /// Each note keeps the wording it had when the crate wrote it.
    #[test]
    fn notes_keep_their_wording() {
        let truncated = AnswerNote::Truncated {
            shown: 100,
            results: count(250, false),
            output_limit_bytes: None,
            next_query: "[range(250)][100:200][]".into(),
        };
        assert_eq!(
            note_text(&truncated),
            "--- Truncated. Showing 100 of 250 results. ---\nRefine your query or slice, e.g. [range(250)][100:200][]"
        );
        let by_bytes = AnswerNote::Truncated {
            shown: 7,
            results: count(150, true),
            output_limit_bytes: Some(100),
            next_query: ".items[7:107][]".into(),
        };
        assert_eq!(
            note_text(&by_bytes),
            "--- Truncated (output limit of 100 bytes). Showing 7 of at least 150 results. ---\nRefine your query or slice, e.g. .items[7:107][]"
        );
        let first_cut = AnswerNote::FirstResultCut {
            result_bytes: 3 * 1024 + 5,
            shown_bytes: 64,
            results: count(1, false),
        };
        assert_eq!(
            note_text(&first_cut),
            "--- Truncated. The first result is 3 KB of JSON; showing its first 64 bytes (1 result in total). ---\nNarrow the query, e.g. `keys`, `.[0:5]` or `.items[0:5]`."
        );
        let error = AnswerNote::ErrorAfterResults {
            results: 1,
            error: "bad".into(),
            more_errors: 2,
        };
        assert_eq!(
            note_text(&error),
            "--- jq error after 1 result: bad ---\n(2 more errors)"
        );
        let log = AnswerNote::Log {
            text: "[\"DEBUG:\",1]".into(),
            dropped: true,
        };
        assert_eq!(
            note_text(&log),
            "--- debug/stderr output ---\n[\"DEBUG:\",1]\n(more output dropped)"
        );
    }

    /// The crate's notes, through the renderer: the text the model read before the notes were
    /// data.
    #[test]
    fn evaluated_answers_read_as_before() {
        let out = evaluated("null", "range(250)", &Limits::default());
        assert!(
            out.ends_with(
                "99\n\n--- Truncated. Showing 100 of 250 results. ---\nRefine your query or slice, e.g. [range(250)][100:200][]"
            ),
            "{out}"
        );
        let capped = Limits {
            max_output_bytes: 1_500,
            ..Limits::default()
        };
        let out = evaluated("null", "[range(1000)]", &capped);
        assert!(
            out.ends_with("\n\n--- Truncated. The first result is 3 KB of JSON; showing its first 1 KB (1 result in total). ---\nNarrow the query, e.g. `keys`, `.[0:5]` or `.items[0:5]`."),
            "{out}"
        );
        let out = evaluated("1", "debug | . + 1 | stderr", &Limits::default());
        assert_eq!(out, "2\n\n--- debug/stderr output ---\n[\"DEBUG:\",1]\n2");
        let out = evaluated(
            "[1,2]",
            ".[] | if . == 2 then error(\"bad\") else . end",
            &Limits::default(),
        );
        assert_eq!(out, "1\n\n--- jq error after 1 result: bad ---");
    }

    fn failed(expression: &str) -> String {
        let error =
            fs_mcp_query::evaluate(b"{}", InputFormat::Json, expression, &Limits::default())
                .expect_err("the query fails");
        error_text(
            what_failed(&error),
            next_step(&error, &ListedTools::default()).as_deref(),
        )
    }

    #[test]
    fn syntax_errors_read_as_before() {
        assert_eq!(
            failed(".a | select(.b == )"),
            "Error: jq syntax error at line 1, column 19: expected term, found `)`\n  .a | select(.b == )\n                    ^\nHint: Check for unclosed brackets or quotes, a missing `|`, `;` or `end`, and use double quotes for strings."
        );
        assert_eq!(
            failed(".a\n| map(.b"),
            "Error: jq syntax error at line 2, column 9: `(` opened at line 2, column 6 is never closed (expected `)`)\n  | map(.b\n          ^\nHint: Add the missing `)`."
        );
        assert_eq!(
            failed(".a == 'x'"),
            "Error: jq syntax error at line 1, column 7: unexpected `'`\n  .a == 'x'\n        ^\nHint: jq strings use double quotes: \"text\", not 'text'."
        );
        assert!(
            failed("if . then 1").ends_with(
                "expected else or end, found end of query\n  if . then 1\n             ^\nHint: The query ends too early: something is not closed or finished."
            ),
            "{}",
            failed("if . then 1")
        );
        assert!(failed(".a = ").contains("\nHint: "), "{}", failed(".a = "));
        assert!(
            failed(r#""\q""#)
                .ends_with(r#"Hint: Valid escapes are \\ \" \n \t \r \b \f \/ \uXXXX and \(...)."#)
        );
    }

    #[test]
    fn compile_errors_read_as_before() {
        assert_eq!(
            failed(".a | frobnicate(1)"),
            "Error: jq error: undefined function `frobnicate/1` at line 1, column 6."
        );
        assert_eq!(
            failed("lenght"),
            "Error: jq error: undefined function `lenght/0` at line 1, column 1 (did you mean `length`?)."
        );
        assert_eq!(
            failed("input_line_number"),
            "Error: jq error: undefined function `input_line_number/0` at line 1, column 1 (`input_line_number` exists in jq 1.7 but not in this jq engine (jaq): input line numbers are not tracked)."
        );
        assert_eq!(
            failed("isvalid(.)"),
            "Error: jq error: undefined function `isvalid/1` at line 1, column 1 (`isvalid` exists in jq 1.7 but not in this jq engine (jaq): use `try (f | true) catch false`)."
        );
        assert_eq!(
            failed("splits"),
            "Error: jq error: undefined function `splits/0` at line 1, column 1 (defined as splits/1, splits/2)."
        );
        assert_eq!(
            failed("env | $ENV | $__loc__ | $nope"),
            "Error: jq error: undefined function `env/0` at line 1, column 1 (environment access is disabled in this server); undefined variable `$ENV` at line 1, column 7 (environment access is disabled in this server); undefined variable `$__loc__` at line 1, column 14 (exists in jq 1.7 but not in this jq engine (jaq))."
        );
    }

    #[test]
    fn a_runtime_error_shows_the_debug_output_before_it() {
        let error = QueryError::Runtime(RuntimeError {
            message: "boom".into(),
            more_errors: 1,
            log: "[\"DEBUG:\",1]".into(),
        });
        assert_eq!(
            error_text(what_failed(&error), None),
            "Error: jq error: boom (and 1 more errors)\n--- debug/stderr output ---\n[\"DEBUG:\",1]."
        );
        assert_eq!(failed("error(\"boom\")"), "Error: jq error: boom.");
    }

    #[test]
    fn yaml_in_query_json_points_to_query_yaml_when_listed() {
        let e = QueryError::Input(InputProblem::InvalidJson {
            message: "x".into(),
            at: Position { line: 1, column: 5 },
            looks_like_yaml: true,
        });
        let listed = ListedTools::new(["query_yaml".to_string()]);
        assert_eq!(
            error_text(what_failed(&e), next_step(&e, &listed).as_deref()),
            "Error: The file is not valid JSON: x at line 1, column 5. It looks like YAML. Query it with query_yaml."
        );
        assert_eq!(
            error_text(
                what_failed(&e),
                next_step(&e, &ListedTools::default()).as_deref()
            ),
            "Error: The file is not valid JSON: x at line 1, column 5. It looks like YAML."
        );
    }

    #[test]
    fn a_timeout_says_what_to_do() {
        let e = QueryError::Timeout(Duration::from_secs(2));
        let text = error_text(
            what_failed(&e),
            next_step(&e, &ListedTools::default()).as_deref(),
        );
        assert!(
            text.starts_with("Error: Query timed out after 2 seconds. Simplify the query"),
            "{text}"
        );
        // the parameter and its bound as declared
        assert!(
            text.ends_with("or give a longer timeout (at most 600 seconds)."),
            "{text}"
        );
    }

    /// The errors the recorded run does not hold, in their words (moved from the crate's
    /// `Display`, which is now a log line).
    #[test]
    fn limits_and_ends_in_words() {
        let cases = [
            (
                QueryError::Timeout(Duration::from_secs(30)),
                "Query timed out after 30 seconds.",
            ),
            (
                QueryError::Timeout(Duration::from_millis(2500)),
                "Query timed out after 2.5 seconds.",
            ),
            (
                QueryError::MemoryLimit(512 * 1024 * 1024),
                "The query exceeded the memory limit of 512 MB.",
            ),
            (
                QueryError::Crashed,
                "The query crashed the evaluator (probably unbounded recursion, e.g. `def f: 1+f; f`); nothing else was affected.",
            ),
            (QueryError::Cancelled, "The query was cancelled."),
            (
                QueryError::Worker("exit status 3".into()),
                "the query evaluator failed: exit status 3",
            ),
            (
                QueryError::ExpressionTooLong {
                    bytes: 70_000,
                    max_bytes: 64 * 1024,
                },
                "The expression is too long (70000 bytes); at most 64 KiB can be run.",
            ),
            (
                QueryError::FileTooLargeToLoad {
                    file_bytes: 3 << 30,
                    memory_limit_bytes: 4 << 30,
                },
                "The file is 3072 MB, too large to query whole within the memory limit of 4096 MB.",
            ),
        ];
        for (error, words) in cases {
            assert_eq!(what_failed(&error), words);
            assert_ne!(error.to_string(), words);
        }
    }

    /// Each input problem's sentence, from the crate's facts (the position as the parser gave
    /// it, the depth limit as declared).
    #[test]
    fn input_problems_in_words() {
        let at = Position {
            line: 2,
            column: 14,
        };
        let cases = [
            (
                InputProblem::Utf16 {
                    format: InputFormat::Json,
                },
                "The file is UTF-16 encoded; only UTF-8 JSON can be queried.",
            ),
            (
                InputProblem::Binary {
                    format: InputFormat::Yaml,
                },
                "The file is binary (it contains NUL bytes), not YAML.",
            ),
            (
                InputProblem::TooDeep {
                    max_depth: 10_000,
                    at,
                },
                "The file nests arrays/objects more than 10000 levels deep (at line 2, column 14); it cannot be queried.",
            ),
            (
                InputProblem::InvalidJson {
                    message: "value expected".into(),
                    at,
                    looks_like_yaml: false,
                },
                "The file is not valid JSON: value expected at line 2, column 14.",
            ),
            (
                InputProblem::NotUtf8 { at },
                "The file is not valid UTF-8 text (first bad byte at line 2, column 14); it is not YAML.",
            ),
            (
                InputProblem::InvalidYaml {
                    message: "did not find expected ','".into(),
                    at: Some(at),
                },
                "The file is not valid YAML: did not find expected ',' at line 2, column 14.",
            ),
            (
                InputProblem::InvalidYaml {
                    message: "recursion limit exceeded".into(),
                    at: None,
                },
                "The file is not valid YAML: recursion limit exceeded.",
            ),
        ];
        for (problem, words) in cases {
            let error = QueryError::Input(problem);
            assert_eq!(what_failed(&error), words);
            assert_eq!(
                next_step(&error, &ListedTools::new(["query_yaml".to_string()])),
                None
            );
        }
    }
}
