//! `fs-mcp-rs schema …`: the Gemini-safe schema contract as a command-line tool, for our own tools
//! and for any stdio MCP server. Output goes to stdout: these commands are not the MCP server.

mod remote;
mod report;

pub(crate) use report::{change_json, issue_json};

use std::io::{IsTerminal, Read};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Subcommand;
use serde_json::Value;

use crate::context::Tier;
use report::{Source, Style, ToolVerdict};

/// `fs-mcp-rs schema …`: the tools' schemas as clients get them.
#[derive(Debug, Subcommand)]
pub enum SchemaCommand {
    /// Lint what each tool's schema can reach, show what the transform changes, and confirm the
    /// schema clients are served is clean: a one-screen summary, details with --verbose.
    /// Exit 0 when all are compatible (low findings only), 1 otherwise.
    Check {
        /// Print the JSON report instead of text (every detail; field names in
        /// docs/GEMINI_SCHEMA_COMPAT.md).
        #[arg(long)]
        json: bool,
        /// After the summary, every tool's findings, transform changes and served schema.
        #[arg(long, short)]
        verbose: bool,
        /// Only this tool.
        #[arg(long, value_name = "NAME")]
        tool: Option<String>,
        /// Check another stdio MCP server instead of ours: `schema check --server -- CMD ARGS...`.
        #[arg(long, requires = "command")]
        server: bool,
        /// The server command, after `--`.
        #[arg(last = true, value_name = "CMD")]
        command: Vec<String>,
    },
    /// Show one of our tools' raw schema against the transformed one, as a unified diff.
    Diff {
        /// Tool name.
        tool: String,
    },
    /// Transform any JSON schema, or a whole `tools/list` result, read from FILE or stdin (`-`).
    Transform {
        /// The file; `-` or nothing reads stdin.
        file: Option<PathBuf>,
    },
}

/// Runs one `schema` command; the exit status says whether it found problems.
pub fn run(command: SchemaCommand) -> ExitCode {
    let result = match command {
        SchemaCommand::Check {
            json,
            verbose,
            tool,
            server,
            command,
        } => check(json, verbose, tool.as_deref(), server.then_some(command)),
        SchemaCommand::Diff { tool } => diff(&tool),
        SchemaCommand::Transform { file } => transform(file),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("fs-mcp-rs schema: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn check(
    json: bool,
    verbose: bool,
    only: Option<&str>,
    server: Option<Vec<String>>,
) -> anyhow::Result<ExitCode> {
    let source = if server.is_some() {
        Source::Server
    } else {
        Source::Ours
    };
    let tools: Vec<(String, Value)> = match server {
        Some(command) => remote::list_tool_schemas(&command)?,
        None => crate::server::schema_reports(Tier::All)
            .into_iter()
            .map(|r| (r.name, r.raw_input))
            .collect(),
    };
    let names: Vec<String> = tools.iter().map(|(n, _)| n.clone()).collect();
    let verdicts: Vec<ToolVerdict> = tools
        .into_iter()
        .filter(|(name, _)| only.is_none_or(|o| o == name))
        .map(|(name, schema)| ToolVerdict::new(&name, schema, source))
        .collect();
    if verdicts.is_empty() {
        anyhow::bail!(
            "no tool named {:?}; tools: {}",
            only.unwrap_or_default(),
            names.join(", ")
        );
    }
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report::to_json(&verdicts, source))?
        );
    } else {
        let style = Style {
            color: std::io::stdout().is_terminal(),
        };
        print!("{}", report::to_text(&verdicts, &style, source, verbose));
    }
    Ok(if verdicts.iter().all(ToolVerdict::compatible) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn diff(tool: &str) -> anyhow::Result<ExitCode> {
    let reports = crate::server::schema_reports(Tier::All);
    let Some(report) = reports.iter().find(|r| r.name == tool) else {
        let names: Vec<&str> = reports.iter().map(|r| r.name.as_str()).collect();
        anyhow::bail!("no tool named {tool:?}; tools: {}", names.join(", "));
    };
    let raw = serde_json::to_string_pretty(&report.raw_input)?;
    let transformed = serde_json::to_string_pretty(&report.transformed_input)?;
    // The review's diff builder: the same format, and its time limit on a huge schema.
    let diff = fs_mcp_edit::unified_diff(
        &raw,
        &transformed,
        &format!("{tool} (raw)"),
        &format!("{tool} (transformed)"),
    );
    print!("{}", crate::render::edit::diff_text(&diff));
    Ok(ExitCode::SUCCESS)
}

fn transform(file: Option<PathBuf>) -> anyhow::Result<ExitCode> {
    let text = match file.as_deref() {
        None => read_stdin()?,
        Some(p) if p.as_os_str() == "-" => read_stdin()?,
        Some(p) => {
            std::fs::read_to_string(p).with_context(|| format!("cannot read {}", p.display()))?
        }
    };
    let input: Value = serde_json::from_str(&text).context("the input is not JSON")?;
    let output = transform_document(input);
    println!("{}", serde_json::to_string_pretty(&output)?);
    Ok(ExitCode::SUCCESS)
}

fn read_stdin() -> anyhow::Result<String> {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .context("cannot read stdin")?;
    Ok(text)
}

/// A schema is transformed; a `tools/list` result (`{"tools": […]}`, possibly inside a JSON-RPC
/// response's `result`) has each tool's `inputSchema` and `outputSchema` transformed.
pub fn transform_document(mut input: Value) -> Value {
    let tools = if input.get("result").and_then(|r| r.get("tools")).is_some() {
        input.get_mut("result").and_then(|r| r.get_mut("tools"))
    } else {
        input.get_mut("tools")
    };
    match tools {
        Some(Value::Array(tools)) => {
            for tool in tools.iter_mut() {
                for key in ["inputSchema", "outputSchema"] {
                    if let Some(schema) = tool.get_mut(key) {
                        *schema = gemini_compat::transform(schema).schema;
                    }
                }
            }
            input
        }
        _ => gemini_compat::transform(&input).schema,
    }
}
