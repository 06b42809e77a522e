//! The `schema check` report: per tool, what its schema would break, what the transform changes,
//! and whether what clients are served is clean.

use std::fmt::Write as _;

use serde_json::{Value, json};

/// One tool's verdict.
pub struct ToolVerdict {
    pub name: String,
    /// The schema as written (ours: schemars output; another server's: as it lists it).
    pub original: Value,
    /// Lint issues of `original`.
    pub issues: Vec<gemini_compat::Issue>,
    /// What `gemini_compat::transform` changes in `original`.
    pub changes: Vec<gemini_compat::Change>,
    pub transformed: Value,
    /// Lint issues of what clients are served (ours: `transformed`; another server's: `original`),
    /// plus a tool-name issue if any. Compatible means none.
    pub served_issues: Vec<gemini_compat::Issue>,
}

impl ToolVerdict {
    /// `served_is_transformed`: true for our own tools, which are served after the transform.
    pub fn new(name: &str, original: Value, served_is_transformed: bool) -> ToolVerdict {
        let issues = gemini_compat::lint(&original);
        let transformed = gemini_compat::transform(&original);
        let mut served_issues = if served_is_transformed {
            gemini_compat::lint(&transformed.schema)
        } else {
            issues.clone()
        };
        if let Some(issue) = gemini_compat::lint_tool_name(name) {
            served_issues.push(issue);
        }
        ToolVerdict {
            name: name.to_string(),
            original,
            issues,
            changes: transformed.changes,
            transformed: transformed.schema,
            served_issues,
        }
    }

    pub fn compatible(&self) -> bool {
        self.served_issues.is_empty()
    }
}

/// One lint finding as JSON (the `--json` report and the ui show the same shape).
pub(crate) fn issue_json(issue: &gemini_compat::Issue) -> Value {
    json!({
        "path": issue.path,
        "rule": issue.rule.to_string(),
        "severity": issue.severity.to_string(),
        "message": issue.message,
    })
}

/// One change of the transform as JSON.
pub(crate) fn change_json(change: &gemini_compat::Change) -> Value {
    json!({"path": change.path, "rule": change.rule.to_string(), "message": change.message})
}

/// `{summary:{total,compatible,incompatible}, tools:[{name,status,issues,changes,original,transformed}]}`.
pub fn to_json(verdicts: &[ToolVerdict]) -> Value {
    let compatible = verdicts.iter().filter(|v| v.compatible()).count();
    json!({
        "summary": {
            "total": verdicts.len(),
            "compatible": compatible,
            "incompatible": verdicts.len() - compatible,
        },
        "tools": verdicts.iter().map(|v| json!({
            "name": v.name,
            "status": if v.compatible() { "COMPATIBLE" } else { "INCOMPATIBLE" },
            "issues": v.issues.iter().map(issue_json).collect::<Vec<_>>(),
            "served_issues": v.served_issues.iter().map(issue_json).collect::<Vec<_>>(),
            "changes": v.changes.iter().map(change_json).collect::<Vec<_>>(),
            "original": v.original,
            "transformed": v.transformed,
        })).collect::<Vec<_>>(),
    })
}

/// Terminal colours, used only when stdout is a terminal.
pub struct Style {
    pub color: bool,
}

impl Style {
    fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }
    fn good(&self, t: &str) -> String {
        self.paint("32", t)
    }
    fn bad(&self, t: &str) -> String {
        self.paint("31", t)
    }
    fn dim(&self, t: &str) -> String {
        self.paint("2", t)
    }
    fn bold(&self, t: &str) -> String {
        self.paint("1", t)
    }
}

/// The human-readable report. `served_label` names what clients get ("transformed" or "as listed").
pub fn to_text(verdicts: &[ToolVerdict], style: &Style, served_is_transformed: bool) -> String {
    let mut out = String::new();
    for v in verdicts {
        let status = if v.compatible() {
            style.good("COMPATIBLE")
        } else {
            style.bad("INCOMPATIBLE")
        };
        let _ = writeln!(out, "{}  {}", style.bold(&v.name), status);
        if v.issues.is_empty() {
            let _ = writeln!(out, "  schema as written: clean");
        } else {
            let _ = writeln!(out, "  schema as written: {} issue(s)", v.issues.len());
            write_issues(&mut out, &v.issues);
        }
        if !v.changes.is_empty() {
            let _ = writeln!(out, "  transform changes: {}", v.changes.len());
            for change in &v.changes {
                let _ = writeln!(
                    out,
                    "    {}",
                    style.dim(&format!(
                        "{} {} {}",
                        change.rule,
                        pointer(&change.path),
                        change.message
                    ))
                );
            }
        }
        let served = if served_is_transformed {
            "served (transformed) schema"
        } else {
            "served schema (as listed)"
        };
        if v.served_issues.is_empty() {
            let _ = writeln!(out, "  {served}: {}", style.good("clean"));
        } else {
            let _ = writeln!(
                out,
                "  {served}: {}",
                style.bad(&format!("{} issue(s)", v.served_issues.len()))
            );
            write_issues(&mut out, &v.served_issues);
        }
        out.push('\n');
    }
    let compatible = verdicts.iter().filter(|v| v.compatible()).count();
    let summary = format!(
        "{} tools: {} compatible, {} incompatible",
        verdicts.len(),
        compatible,
        verdicts.len() - compatible
    );
    let summary = if compatible == verdicts.len() {
        style.good(&summary)
    } else {
        style.bad(&summary)
    };
    let _ = writeln!(out, "{summary}");
    out
}

fn write_issues(out: &mut String, issues: &[gemini_compat::Issue]) {
    for issue in issues {
        let _ = writeln!(
            out,
            "    [{} {}] {} {}",
            issue.rule,
            issue.severity,
            pointer(&issue.path),
            issue.message
        );
    }
}

fn pointer(path: &str) -> &str {
    if path.is_empty() { "(root)" } else { path }
}
