//! Errors of a query: what went wrong, with the data (where the parser stopped and what would
//! help there, the limit); the binary's renderer adds the `Error:` prefix, the hint and the next
//! step.

use fs_mcp_text::{Keep, Marker, truncate};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::time::Duration;

use crate::request::InputFormat;

/// A place in the query: 1-based line and column (in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}

/// A jq expression that does not parse: where, what the parser met, and what would fix it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SyntaxError {
    /// Where the parser stopped (`None` when it gave no place).
    pub at: Option<Position>,
    /// What the parser met there.
    pub problem: SyntaxProblem,
    /// The query's line at [`at`](Self::at), shown with a caret under the column (`None` when
    /// it is too long to show).
    pub line_text: Option<String>,
    /// What most likely fixes it (worded by the caller).
    pub hint: Option<SyntaxHint>,
}

/// What the parser met.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "problem", rename_all = "snake_case")]
pub enum SyntaxProblem {
    /// A bracket or quote `open`ed at `opened_at` is never closed by `close`.
    Unclosed {
        /// The opening bracket or quote.
        open: String,
        /// Where it opens.
        opened_at: Position,
        /// What would close it.
        close: String,
    },
    /// A `'`, which jq does not use for strings.
    SingleQuote,
    /// An escape sequence jq does not know, in a string.
    InvalidEscape,
    /// The parser expected `expected` (its own words for a token, `term`, `else or end`…).
    Expected {
        /// What the parser expected.
        expected: String,
        /// What it found.
        found: Found,
    },
    /// The parser gave no detail.
    Unknown,
}

/// What the parser found where it expected something else.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "found", content = "token", rename_all = "snake_case")]
pub enum Found {
    /// The query ended.
    EndOfQuery,
    /// A token (its first line, cut short).
    Token(String),
}

/// What most likely fixes a syntax error. Exhaustive: a new hint does not compile until the
/// caller words it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "hint", rename_all = "snake_case")]
pub enum SyntaxHint {
    /// Add the missing `close`.
    AddMissing {
        /// The bracket or quote to add.
        close: String,
    },
    /// Strings take double quotes.
    DoubleQuotes,
    /// The escapes jq knows.
    ValidEscapes,
    /// `=` was written where `==` compares.
    CompareWithDoubleEquals,
    /// The query ends before something is closed or finished.
    EndsTooEarly,
    /// The usual suspects: brackets, quotes, `|`, `;`, `end`.
    CheckStructure,
}

/// A jq expression that parses but does not compile: up to three problems, each once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompileError {
    /// The problems, in the order of the query.
    pub problems: Vec<CompileProblem>,
}

/// One reason a query does not compile.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "problem", rename_all = "snake_case")]
pub enum CompileProblem {
    /// A function `name/arity` that is not defined.
    UndefinedFunction {
        /// Its name.
        name: String,
        /// Its number of arguments.
        arity: usize,
        /// Where the query calls it.
        at: Option<Position>,
        /// What is known of the name (worded by the caller).
        help: Option<FunctionHelp>,
    },
    /// A variable that is not defined.
    UndefinedVariable {
        /// Its name, `$` included.
        name: String,
        /// Where the query uses it.
        at: Option<Position>,
        /// What is known of the name (worded by the caller).
        help: Option<VariableHelp>,
    },
    /// A label that is not defined.
    UndefinedLabel {
        /// Its name.
        name: String,
        /// Where the query uses it.
        at: Option<Position>,
    },
    /// A module path (modules are not supported).
    Module {
        /// The module's name.
        name: String,
        /// Where the query names it.
        at: Option<Position>,
    },
    /// Anything else undefined.
    Undefined {
        /// Its name.
        name: String,
        /// Where the query uses it.
        at: Option<Position>,
    },
    /// `import`/`include` (modules are not supported).
    ModulesUnsupported {
        /// The loader's words on what it could not load.
        detail: String,
    },
}

/// What is known of an undefined function's name. Exhaustive: a new case does not compile
/// until the caller words it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "help", rename_all = "snake_case")]
pub enum FunctionHelp {
    /// `env`: the environment is not reachable from a query.
    EnvironmentDisabled,
    /// A jq 1.7 builtin that this engine (jaq) lacks.
    JqOnly {
        /// Why, or what to use instead.
        why: JqOnlyReason,
    },
    /// The name is defined, with other numbers of arguments.
    DefinedAs {
        /// The numbers of arguments it takes.
        arities: Vec<usize>,
    },
    /// A known name close to it.
    DidYouMean {
        /// The known name.
        name: String,
    },
}

/// Why a jq 1.7 builtin is missing here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "why", rename_all = "snake_case")]
pub enum JqOnlyReason {
    /// Input line numbers are not tracked.
    LineNumbersNotTracked,
    /// The file name is not given to the query.
    FileNameNotAvailable,
    /// Modules are not supported.
    ModulesUnsupported,
    /// This jq expression does the same.
    UseInstead {
        /// The expression to use.
        expression: String,
    },
}

/// What is known of an undefined variable's name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "help", rename_all = "snake_case")]
pub enum VariableHelp {
    /// `$ENV`: the environment is not reachable from a query.
    EnvironmentDisabled,
    /// A jq 1.7 variable that this engine (jaq) lacks.
    JqOnly,
}

/// An evaluation that failed before producing any result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuntimeError {
    /// The first error, as jq states it (a long value quoted in it cut short).
    pub message: String,
    /// Errors after the first.
    pub more_errors: usize,
    /// What `debug`/`stderr` printed before the error (empty if nothing).
    pub log: String,
}

/// Why the queried file is not input the tool can read. Exhaustive: a new case does not compile
/// until the caller words it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "problem", rename_all = "snake_case")]
pub enum InputProblem {
    /// The file starts with a UTF-16 byte order mark.
    Utf16 {
        /// What the tool reads.
        format: InputFormat,
    },
    /// The file has NUL bytes.
    Binary {
        /// What the tool reads.
        format: InputFormat,
    },
    /// JSON nested deeper than jq takes.
    TooDeep {
        /// The deepest nesting taken.
        max_depth: usize,
        /// Where the limit is passed.
        at: Position,
    },
    /// The JSON parser stopped on the first value.
    InvalidJson {
        /// The parser's words (cut short).
        message: String,
        /// Where it stopped.
        at: Position,
        /// The text looks like YAML.
        looks_like_yaml: bool,
    },
    /// A YAML file that is not UTF-8.
    NotUtf8 {
        /// The first bad byte.
        at: Position,
    },
    /// The YAML parser refused the file.
    InvalidYaml {
        /// The parser's words (cut short, without its location).
        message: String,
        /// Where it stopped, when it says.
        at: Option<Position>,
    },
}

/// Why a query produced no answer. `Display` states what went wrong (no next step, no tool
/// names).
#[derive(Debug, Clone, PartialEq)]
pub enum QueryError {
    /// The jq expression does not parse (boxed: the other variants are small).
    Syntax(Box<SyntaxError>),
    /// The expression parses but names something undefined (a function, a
    /// variable, a label) or uses modules.
    Compile(CompileError),
    /// The evaluation failed before producing any result (`error(...)`,
    /// `halt_error`, a type error, ...).
    Runtime(RuntimeError),
    /// The file is not what the tool expects: not JSON (or not YAML), binary,
    /// not UTF-8, or has a parse error (with line and column).
    Input(InputProblem),
    /// The expression (with the request around it) is longer than a worker takes.
    ExpressionTooLong {
        /// The request's size.
        bytes: usize,
        /// The most a worker takes.
        max_bytes: usize,
    },
    /// The query reads the whole file, and the file is larger than half the memory limit.
    FileTooLargeToLoad {
        /// The file's size.
        file_bytes: u64,
        /// The worker's memory limit.
        memory_limit_bytes: u64,
    },
    /// The file could not be read.
    Io(String),
    /// The query ran longer than the timeout; the evaluator was killed.
    Timeout(Duration),
    /// The evaluator hit its memory limit (in bytes) and was killed.
    MemoryLimit(u64),
    /// The evaluator crashed, most likely from unbounded recursion.
    Crashed,
    /// The caller cancelled the query; the evaluator was killed.
    Cancelled,
    /// The worker process could not be run or answered garbage.
    Worker(String),
}

impl QueryError {
    /// A stable, short name of the variant (used in the worker protocol).
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Syntax(_) => "syntax",
            Self::Compile(_) => "compile",
            Self::Runtime(_) => "runtime",
            Self::Input(_) => "input",
            Self::ExpressionTooLong { .. } => "too_long",
            Self::FileTooLargeToLoad { .. } => "too_large",
            Self::Io(_) => "io",
            Self::Timeout(_) => "timeout",
            Self::MemoryLimit(_) => "memory",
            Self::Crashed => "crashed",
            Self::Cancelled => "cancelled",
            Self::Worker(_) => "worker",
        }
    }

    /// What a variant carries, as the worker protocol sends it with its [`kind`](Self::kind):
    /// the message, or the JSON of a structured error (empty for variants without data).
    pub(crate) fn message(&self) -> String {
        match self {
            Self::Syntax(e) => serde_json::to_string(e).unwrap_or_default(),
            Self::Runtime(e) => serde_json::to_string(e).unwrap_or_default(),
            Self::Compile(e) => serde_json::to_string(e).unwrap_or_default(),
            Self::Input(e) => serde_json::to_string(e).unwrap_or_default(),
            Self::Io(m) | Self::Worker(m) => m.clone(),
            Self::ExpressionTooLong { bytes, max_bytes } => format!("{bytes} {max_bytes}"),
            Self::FileTooLargeToLoad {
                file_bytes,
                memory_limit_bytes,
            } => format!("{file_bytes} {memory_limit_bytes}"),
            _ => String::new(),
        }
    }

    /// Rebuild a variant from its kind and [`message`](Self::message) (worker protocol).
    pub(crate) fn from_kind(kind: &str, message: String) -> Self {
        let structured = |what: &str, e: serde_json::Error| {
            Self::Worker(format!("unreadable {what} error ({e}): {message}"))
        };
        match kind {
            "syntax" => {
                serde_json::from_str(&message).map_or_else(|e| structured(kind, e), Self::Syntax)
            }
            "compile" => {
                serde_json::from_str(&message).map_or_else(|e| structured(kind, e), Self::Compile)
            }
            "runtime" => {
                serde_json::from_str(&message).map_or_else(|e| structured(kind, e), Self::Runtime)
            }
            "input" => {
                serde_json::from_str(&message).map_or_else(|e| structured(kind, e), Self::Input)
            }
            "too_long" | "too_large" => {
                let numbers: Vec<u64> = message.split(' ').filter_map(|n| n.parse().ok()).collect();
                match (kind, numbers.as_slice()) {
                    ("too_long", &[bytes, max_bytes]) => Self::ExpressionTooLong {
                        bytes: usize::try_from(bytes).unwrap_or(usize::MAX),
                        max_bytes: usize::try_from(max_bytes).unwrap_or(usize::MAX),
                    },
                    ("too_large", &[file_bytes, memory_limit_bytes]) => Self::FileTooLargeToLoad {
                        file_bytes,
                        memory_limit_bytes,
                    },
                    _ => Self::Worker(format!("unreadable {kind} error: {message}")),
                }
            }
            "io" => Self::Io(message),
            "crashed" => Self::Crashed,
            "cancelled" => Self::Cancelled,
            _ => Self::Worker(message),
        }
    }
}

/// A terse line for logs. The model reads the binary's words for these facts
/// (`src/render/query.rs`), never this.
impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Syntax(e) => e.fmt(f),
            Self::Compile(e) => e.fmt(f),
            Self::Runtime(e) => e.fmt(f),
            Self::Input(problem) => write!(f, "input: {problem:?}"),
            Self::Io(m) => write!(f, "io: {m}"),
            Self::ExpressionTooLong { bytes, max_bytes } => {
                write!(f, "expression too long: {bytes} bytes, max {max_bytes}")
            }
            Self::FileTooLargeToLoad {
                file_bytes,
                memory_limit_bytes,
            } => write!(
                f,
                "file too large to load: {file_bytes} bytes, memory limit {memory_limit_bytes}"
            ),
            Self::Timeout(d) => write!(f, "timeout after {d:?}"),
            Self::MemoryLimit(bytes) => write!(f, "memory limit of {bytes} bytes exceeded"),
            Self::Crashed => f.write_str("evaluator crashed"),
            Self::Cancelled => f.write_str("cancelled"),
            Self::Worker(m) => write!(f, "worker: {m}"),
        }
    }
}

impl std::error::Error for QueryError {}

/// `jq syntax error at line 1, column 19: expected term, found `)``, then the query's line with
/// a caret under the column (the hint is the caller's to word).
impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("jq syntax error")?;
        if let Some(at) = self.at {
            write!(f, " at {at}")?;
        }
        match &self.problem {
            SyntaxProblem::Unclosed {
                open,
                opened_at,
                close,
            } => write!(
                f,
                ": `{open}` opened at {opened_at} is never closed (expected `{close}`)"
            )?,
            SyntaxProblem::SingleQuote => f.write_str(": unexpected `'`")?,
            SyntaxProblem::InvalidEscape => f.write_str(": invalid escape sequence in string")?,
            SyntaxProblem::Expected { expected, found } => {
                write!(f, ": expected {expected}, found {found}")?
            }
            SyntaxProblem::Unknown => {}
        }
        if let (Some(at), Some(text)) = (self.at, &self.line_text) {
            write!(
                f,
                "\n  {text}\n  {}^",
                " ".repeat(at.column.saturating_sub(1))
            )?;
        }
        Ok(())
    }
}

/// `jq error: undefined function `f/1` at line 1, column 6; undefined variable `$x`.` (what is
/// known of each name is the caller's to word).
impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let problems: Vec<String> = self.problems.iter().map(ToString::to_string).collect();
        write!(f, "jq error: {}.", problems.join("; "))
    }
}

/// `undefined function `f/1` at line 1, column 6`.
impl fmt::Display for CompileProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = |at: &Option<Position>| at.map(|p| format!(" at {p}")).unwrap_or_default();
        match self {
            Self::UndefinedFunction {
                name, arity, at: a, ..
            } => write!(f, "undefined function `{name}/{arity}`{}", at(a)),
            Self::UndefinedVariable { name, at: a, .. } => {
                write!(f, "undefined variable `{name}`{}", at(a))
            }
            Self::UndefinedLabel { name, at: a } => write!(f, "undefined label `{name}`{}", at(a)),
            Self::Module { name, at: a } => {
                write!(f, "modules are not supported (`{name}`{})", at(a))
            }
            Self::Undefined { name, at: a } => write!(f, "undefined `{name}`{}", at(a)),
            Self::ModulesUnsupported { detail } => {
                write!(f, "modules (import/include) are not supported ({detail})")
            }
        }
    }
}

/// `end of query`, or the token in backquotes.
impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Found::EndOfQuery => f.write_str("end of query"),
            Found::Token(token) => write!(f, "`{token}`"),
        }
    }
}

/// `jq error: boom (and 2 more errors)` (the `debug`/`stderr` output is the caller's to show).
impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "jq error: {}", self.message)?;
        if self.more_errors > 0 {
            write!(f, " (and {} more errors)", self.more_errors)?;
        }
        Ok(())
    }
}

/// Cut a long text (for example an error quoting a huge value) to about
/// `max` characters: the head, `…`, and a short tail.
pub(crate) fn shorten(s: &str, max: usize) -> String {
    let tail = (max / 5).min(40);
    truncate(s, Keep::Chars(max), Marker::EllipsisThenTail(tail)).into_owned()
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub(crate) fn position(text: &[u8], offset: usize) -> Position {
    let (line, column) = line_col(text, offset);
    Position { line, column }
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub(crate) fn line_col(text: &[u8], offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let col = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    (line, col)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_errors_cross_the_worker_protocol_as_data() {
        for error in [
            QueryError::ExpressionTooLong {
                bytes: 70_000,
                max_bytes: 64 * 1024,
            },
            QueryError::FileTooLargeToLoad {
                file_bytes: 3 << 30,
                memory_limit_bytes: 4 << 30,
            },
        ] {
            assert_eq!(QueryError::from_kind(error.kind(), error.message()), error);
            assert!(!error.to_string().contains("query_"), "{error}");
        }
        assert!(matches!(
            QueryError::from_kind("too_large", "garbage".into()),
            QueryError::Worker(_)
        ));
    }

    /// `Display` is a log line of the facts, not the model's sentence.
    #[test]
    fn log_lines() {
        assert_eq!(
            QueryError::Timeout(Duration::from_millis(2500)).to_string(),
            "timeout after 2.5s"
        );
        assert_eq!(
            QueryError::MemoryLimit(512 * 1024 * 1024).to_string(),
            "memory limit of 536870912 bytes exceeded"
        );
        assert_eq!(QueryError::Crashed.to_string(), "evaluator crashed");
    }

    #[test]
    fn shorten_and_positions() {
        let long = "x".repeat(1000);
        let s = shorten(&long, 200);
        assert_eq!(s.chars().count(), 200 + 1 + 40);
        assert!(s.contains('…'));
        assert_eq!(shorten("short", 200), "short");
        assert_eq!(line_col(b"ab\ncd", 4), (2, 2));
        assert_eq!(line_col("é\nxé".as_bytes(), 6), (2, 3));
    }
}
