//! What query_json and query_yaml share: jq expressions over a file, evaluated in a child process
//! of this same binary (`fs-mcp-rs __query-worker`) so that a runaway query costs only its own
//! call.

use std::path::Path;
use std::time::Duration;

use fs_mcp_query::{InputFormat, Limits, QueryRequest};
use fs_mcp_read::StructuredKind;
use rmcp::RoleServer;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;

use crate::context::FsServer;
use crate::params::QUERY_TIMEOUT;
use crate::render;
use crate::tools::reply::{blocking, structured, text};
use crate::tools::spec::ResultBudget;

/// The hidden subcommand that evaluates one query.
pub const WORKER_SUBCOMMAND: &str = "__query-worker";
/// Room for the notes a query adds after its output cap.
const QUERY_NOTE_ROOM: usize = 1_024;

/// A query's result budget: its output cap and the notes after it.
pub fn query_budget() -> ResultBudget {
    ResultBudget::OwnCap(Limits::default().max_output_bytes + QUERY_NOTE_ROOM)
}

impl FsServer {
    pub(crate) async fn run_query(
        &self,
        file_path: &str,
        expression: String,
        format: InputFormat,
        timeout: Option<i64>,
        context: &RequestContext<RoleServer>,
    ) -> CallToolResult {
        // The file is opened here, through the sandbox's handle walk, and the worker reads that
        // descriptor: nothing resolves the path again between the check and the read.
        let sandbox = self.sandbox();
        let requested = file_path.to_string();
        let opened = match blocking(move || sandbox.open_file(&requested)).await {
            Ok(Ok(opened)) => opened,
            Ok(Err(e)) => return render::sandbox::access_failure(&e, self.listed_tools()),
            Err(e) => return render::failure(&e.message, None),
        };
        let seconds = QUERY_TIMEOUT.clamp_usize(timeout);
        let worker = match std::env::current_exe() {
            Ok(exe) => exe,
            Err(e) => {
                return render::failure(
                    format!("cannot locate the server binary to run the query: {e}"),
                    None,
                );
            }
        };
        let request = QueryRequest {
            file_path: opened.path,
            expression,
            format,
            limits: Limits::default(),
        };
        let cancelled = context.ct.clone();
        let result = fs_mcp_query::run_isolated(
            &worker,
            &[WORKER_SUBCOMMAND],
            request,
            opened.file,
            Duration::from_secs(seconds as u64),
            self.query_memory_limit(),
            async move { cancelled.cancelled().await },
        )
        .await;
        match result {
            Ok(answer) => {
                let body = render::query::answer_text(&answer);
                match results_of(&answer) {
                    Some(results) => structured(body, &serde_json::json!({ "results": results })),
                    None => text(body),
                }
            }
            Err(e) => render::query::query_failure(&e, self.listed_tools()),
        }
    }
}

/// The results as JSON values, when every one is shown and nothing follows them (no cut, no
/// error after some results, no debug output): each shown result is one compact JSON line.
fn results_of(answer: &fs_mcp_query::Answer) -> Option<Vec<serde_json::Value>> {
    if answer.is_empty() || !answer.notes.is_empty() {
        return None;
    }
    answer
        .results
        .lines()
        .map(|line| serde_json::from_str(line).ok())
        .collect()
}

/// Example queries for read_files' large-file guard, from the first bytes of the file (read by
/// read_files from the handle it opened; the path only gives the extension).
pub fn example_queries(path: &Path, kind: StructuredKind, head: &[u8]) -> Vec<String> {
    fs_mcp_query::example_queries(path, kind == StructuredKind::Yaml, head)
}

#[cfg(test)]
mod tests {
    use fs_mcp_query::{
        AnswerNote, Found, FunctionHelp, JqOnlyReason, Position, QueryError, ResultCount,
        SyntaxError, SyntaxHint, SyntaxProblem, VariableHelp,
    };

    use crate::render::query::{
        function_help_text, hint_text, note_text, variable_help_text, what_failed,
    };

    /// Every hint and note reads without naming a tool: a tool is named only in a next step,
    /// and only when listed.
    #[test]
    fn hints_and_notes_name_no_tool() {
        let hints = [
            SyntaxHint::AddMissing { close: ")".into() },
            SyntaxHint::DoubleQuotes,
            SyntaxHint::ValidEscapes,
            SyntaxHint::CompareWithDoubleEquals,
            SyntaxHint::EndsTooEarly,
            SyntaxHint::CheckStructure,
        ];
        let notes = [
            AnswerNote::FirstResultCut {
                result_bytes: 1,
                shown_bytes: 1,
                results: ResultCount {
                    counted: 1,
                    at_least: false,
                },
            },
            AnswerNote::Truncated {
                shown: 1,
                results: ResultCount {
                    counted: 2,
                    at_least: true,
                },
                output_limit_bytes: Some(1),
                next_query: ".[1:101]".into(),
            },
            AnswerNote::ErrorAfterResults {
                results: 1,
                error: "e".into(),
                more_errors: 1,
            },
            AnswerNote::Log {
                text: "x".into(),
                dropped: true,
            },
        ];
        let helps = [
            FunctionHelp::EnvironmentDisabled,
            FunctionHelp::JqOnly {
                why: JqOnlyReason::LineNumbersNotTracked,
            },
            FunctionHelp::JqOnly {
                why: JqOnlyReason::FileNameNotAvailable,
            },
            FunctionHelp::JqOnly {
                why: JqOnlyReason::ModulesUnsupported,
            },
            FunctionHelp::DefinedAs { arities: vec![1] },
            FunctionHelp::DidYouMean { name: "f".into() },
        ];
        let texts = hints
            .iter()
            .map(hint_text)
            .chain(notes.iter().map(note_text))
            .chain(helps.iter().map(|help| function_help_text("f", help)))
            .chain(
                [VariableHelp::EnvironmentDisabled, VariableHelp::JqOnly]
                    .iter()
                    .map(|help| variable_help_text(help).to_string()),
            );
        let tools: Vec<&'static str> = crate::tools::specs().iter().map(|s| s.name).collect();
        for text in texts {
            for tool in &tools {
                assert!(!text.contains(tool), "{text:?} names {tool}");
            }
        }
        // the syntax error itself names no tool either
        let syntax = QueryError::Syntax(Box::new(SyntaxError {
            at: Some(Position { line: 1, column: 2 }),
            problem: SyntaxProblem::Expected {
                expected: "term".into(),
                found: Found::EndOfQuery,
            },
            line_text: Some(".".into()),
            hint: Some(SyntaxHint::CheckStructure),
        }));
        let text = what_failed(&syntax);
        assert!(tools.iter().all(|tool| !text.contains(tool)), "{text}");
    }
}
