//! The `schema check` report: a one-screen summary (how many tools, how many findings of each
//! severity, the few findings that matter), per-tool details with `--verbose`, everything as JSON
//! with `--json`.
//!
//! Findings are those of `gemini_compat::lint_report`: only what a tool can reach, with the
//! severities of its table. A tool is INCOMPATIBLE when what clients are served has a critical or
//! medium finding; low findings (a lost `title` or `default`) never make it so.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use gemini_compat::{Change, Issue, Rule, Severity};
use serde_json::{Value, json};

/// Whose tools are checked, which decides what "served" means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// fs-mcp-rs's own tools: served after the transform.
    Ours,
    /// Another server's tools: served as listed; `fs-mcp-rs proxy` would serve the transform.
    Server,
}

/// One tool's verdict.
pub struct ToolVerdict {
    pub name: String,
    /// The schema as written (ours: schemars output; another server's: as it lists it).
    pub original: Value,
    /// Findings in what `original` can reach.
    pub issues: Vec<Issue>,
    /// `$defs`/`definitions` entries of `original` nothing reachable uses (not linted).
    pub unused_definitions: Vec<String>,
    /// What `gemini_compat::transform` changes in `original`.
    pub changes: Vec<Change>,
    pub transformed: Value,
    /// Findings in `transformed`, plus a tool-name finding if any.
    pub transformed_issues: Vec<Issue>,
    /// Findings in what clients are served (ours: `transformed_issues`; another server's:
    /// `issues` plus a tool-name finding). Compatible means none above low.
    pub served_issues: Vec<Issue>,
}

impl ToolVerdict {
    pub fn new(name: &str, original: Value, source: Source) -> ToolVerdict {
        let raw = gemini_compat::lint_report(&original);
        let transformed = gemini_compat::transform(&original);
        let name_issue = gemini_compat::lint_tool_name(name);
        let mut transformed_issues = gemini_compat::lint(&transformed.schema);
        transformed_issues.extend(name_issue.clone());
        let served_issues = match source {
            Source::Ours => transformed_issues.clone(),
            Source::Server => {
                let mut served = raw.issues.clone();
                served.extend(name_issue);
                served
            }
        };
        ToolVerdict {
            name: name.to_string(),
            original,
            issues: raw.issues,
            unused_definitions: raw.unused_definitions,
            changes: transformed.changes,
            transformed: transformed.schema,
            transformed_issues,
            served_issues,
        }
    }

    pub fn compatible(&self) -> bool {
        !self.served_issues.iter().any(blocks)
    }
}

/// Whether a finding makes a tool incompatible: low findings only lose a hint.
fn blocks(issue: &Issue) -> bool {
    issue.severity != Severity::Low
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

/// Findings per severity.
#[derive(Default, Clone, Copy)]
struct Counts {
    critical: usize,
    medium: usize,
    low: usize,
}

impl Counts {
    fn of<'a>(issues: impl IntoIterator<Item = &'a Issue>) -> Counts {
        let mut counts = Counts::default();
        for issue in issues {
            match issue.severity {
                Severity::Critical => counts.critical += 1,
                Severity::Medium => counts.medium += 1,
                Severity::Low => counts.low += 1,
            }
        }
        counts
    }

    fn json(self) -> Value {
        json!({"critical": self.critical, "medium": self.medium, "low": self.low})
    }

    fn total(self) -> usize {
        self.critical + self.medium + self.low
    }

    fn text(self) -> String {
        format!(
            "{} critical, {} medium, {} low",
            self.critical, self.medium, self.low
        )
    }
}

/// The JSON report; the field names are documented in docs/GEMINI_SCHEMA_COMPAT.md
/// ("Checking schemas") and only ever added to.
pub fn to_json(verdicts: &[ToolVerdict], source: Source) -> Value {
    let compatible = verdicts.iter().filter(|v| v.compatible()).count();
    let findings = Counts::of(verdicts.iter().flat_map(|v| &v.issues));
    json!({
        "source": match source { Source::Ours => "fs-mcp-rs", Source::Server => "server" },
        "summary": {
            "total": verdicts.len(),
            "compatible": compatible,
            "incompatible": verdicts.len() - compatible,
            "findings": findings.json(),
            "unused_definitions": verdicts.iter().map(|v| v.unused_definitions.len()).sum::<usize>(),
            "changes": verdicts.iter().map(|v| v.changes.len()).sum::<usize>(),
            "transformed_clean": verdicts.iter().filter(|v| !v.transformed_issues.iter().any(blocks)).count(),
        },
        "tools": verdicts.iter().map(|v| json!({
            "name": v.name,
            "status": if v.compatible() { "COMPATIBLE" } else { "INCOMPATIBLE" },
            "findings": Counts::of(&v.issues).json(),
            "issues": v.issues.iter().map(issue_json).collect::<Vec<_>>(),
            "unused_definitions": v.unused_definitions,
            "served_issues": v.served_issues.iter().map(issue_json).collect::<Vec<_>>(),
            "transformed_issues": v.transformed_issues.iter().map(issue_json).collect::<Vec<_>>(),
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

/// Most kinds of finding the summary shows; `--verbose` shows every finding.
const WORST_SHOWN: usize = 6;
/// Most depth groups shown past `WORST_SHOWN`.
const DEPTH_EXTRA: usize = 3;
/// Most tool names listed on the summary's "incompatible" line.
const NAMES_SHOWN: usize = 8;

/// The text report: the summary, then (with `verbose`) every tool's details, then the verdict line.
pub fn to_text(verdicts: &[ToolVerdict], style: &Style, source: Source, verbose: bool) -> String {
    let mut out = String::new();
    summary(&mut out, verdicts, style, source);
    if verbose {
        for v in verdicts {
            out.push('\n');
            details(&mut out, v, style, source);
        }
    }
    let compatible = verdicts.iter().filter(|v| v.compatible()).count();
    let verdict = format!(
        "{} tools: {} compatible, {} incompatible",
        verdicts.len(),
        compatible,
        verdicts.len() - compatible
    );
    let verdict = if compatible == verdicts.len() {
        style.good(&verdict)
    } else {
        style.bad(&verdict)
    };
    let _ = writeln!(out, "\n{verdict}");
    out
}

fn summary(out: &mut String, verdicts: &[ToolVerdict], style: &Style, source: Source) {
    let incompatible: Vec<&str> = verdicts
        .iter()
        .filter(|v| !v.compatible())
        .map(|v| v.name.as_str())
        .collect();
    let findings = Counts::of(verdicts.iter().flat_map(|v| &v.issues));
    let changes: usize = verdicts.iter().map(|v| v.changes.len()).sum();
    let transformed_dirty: Vec<&str> = verdicts
        .iter()
        .filter(|v| v.transformed_issues.iter().any(blocks))
        .map(|v| v.name.as_str())
        .collect();
    let what = match source {
        Source::Ours => format!(
            "fs-mcp-rs's {} tools, served after the transform",
            verdicts.len()
        ),
        Source::Server => format!("{} tools, as the server lists them", verdicts.len()),
    };
    let _ = writeln!(out, "{}", style.bold(&format!("schema check: {what}")));
    let status = if incompatible.is_empty() {
        style.good("none")
    } else {
        style.bad(&format!(
            "{} ({})",
            incompatible.len(),
            names_line(&incompatible)
        ))
    };
    let _ = writeln!(out, "  incompatible: {status}");
    let written = match source {
        Source::Ours => "schemas as written",
        Source::Server => "findings",
    };
    let _ = writeln!(out, "  {written}: {}", findings.text());
    let served = match source {
        Source::Ours => "served schemas",
        Source::Server => "through `fs-mcp-rs proxy`",
    };
    let cleaned = if transformed_dirty.is_empty() {
        style.good("all clean")
    } else {
        style.bad(&format!(
            "{} still with findings ({})",
            transformed_dirty.len(),
            names_line(&transformed_dirty)
        ))
    };
    let _ = writeln!(
        out,
        "  {served}: {cleaned} ({}{})",
        plural(changes, "transform change"),
        if changes == 0 {
            String::new()
        } else {
            format!(": {}", rule_tally(verdicts.iter().flat_map(|v| &v.changes)))
        }
    );

    // What matters: what breaks clients as served; for our own tools (served clean), what the
    // transform protects against.
    let (title, pool): (&str, Vec<(&str, &Issue)>) = {
        let served: Vec<(&str, &Issue)> = verdicts
            .iter()
            .flat_map(|v| v.served_issues.iter().map(move |i| (v.name.as_str(), i)))
            .collect();
        if source == Source::Ours && !served.iter().any(|(_, i)| blocks(i)) {
            let raw = verdicts
                .iter()
                .flat_map(|v| v.issues.iter().map(move |i| (v.name.as_str(), i)))
                .collect();
            ("What the transform fixes in the schemas as written", raw)
        } else {
            ("Worst findings", served)
        }
    };
    let groups = worst(&pool);
    if groups.is_empty() {
        return;
    }
    let title = if groups.iter().all(|g| g.severity == Severity::Low) {
        "Only low findings (a hint is lost; no measured client fails)"
    } else {
        title
    };
    let _ = writeln!(out, "\n{title}:");
    let shown = groups.len().min(WORST_SHOWN);
    let mut listed: Vec<&Group> = groups.iter().take(shown).collect();
    // Depth findings show even past the cap (nothing else says a schema nests too deep), a
    // few of them: their messages differ by depth, so they do not group.
    listed.extend(
        groups
            .iter()
            .skip(shown)
            .filter(|g| g.rule == Rule::R13 && g.severity != Severity::Low)
            .take(DEPTH_EXTRA),
    );
    for g in &listed {
        let label = format!("{:<8} {:<3}", g.severity.as_str(), g.rule.as_str());
        let label = if g.severity == Severity::Low {
            style.dim(&label)
        } else {
            style.bad(&label)
        };
        let _ = writeln!(out, "  {label} {}", g.message);
        let (tool, path) = g.first;
        let more = match (g.count - 1, g.tools.len()) {
            (0, _) => String::new(),
            (1, 1) => " and 1 more place".to_string(),
            (1, t) => format!(" and 1 more place ({t} tools)"),
            (n, 1) => format!(" and {n} more places"),
            (n, t) => format!(" and {n} more places ({t} tools)"),
        };
        let _ = writeln!(
            out,
            "  {}",
            style.dim(&format!("{:12} at {tool} {}{more}", "", pointer(path)))
        );
    }
    let hidden = groups.len() - listed.len();
    let more = if hidden > 0 {
        let kinds = if hidden == 1 { "kind" } else { "kinds" };
        format!("{hidden} more {kinds} of finding; ")
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "  {}",
        style.dim(&format!(
            "({more}--verbose lists every finding per tool, --json gives everything)"
        ))
    );
}

/// Findings with the same severity, rule and message, across tools.
struct Group<'a> {
    severity: Severity,
    rule: Rule,
    message: &'a str,
    count: usize,
    /// Tools with the finding, in order of appearance.
    tools: Vec<&'a str>,
    /// (tool, path) of the first occurrence.
    first: (&'a str, &'a str),
}

/// Groups of findings, worst first: critical, then medium (depth first), then low; a group
/// of low findings only when there is nothing worse. More frequent groups first.
fn worst<'a>(pool: &[(&'a str, &'a Issue)]) -> Vec<Group<'a>> {
    let any_blocking = pool.iter().any(|(_, i)| blocks(i));
    // Keyed for a deterministic order before the frequency sort.
    let mut groups: BTreeMap<(Severity, bool, Rule, &str), Group> = BTreeMap::new();
    for &(tool, issue) in pool {
        if any_blocking && !blocks(issue) {
            continue;
        }
        let key = (
            issue.severity,
            issue.rule != Rule::R13,
            issue.rule,
            issue.message.as_str(),
        );
        let group = groups.entry(key).or_insert_with(|| Group {
            severity: issue.severity,
            rule: issue.rule,
            message: &issue.message,
            count: 0,
            tools: Vec::new(),
            first: (tool, &issue.path),
        });
        group.count += 1;
        if !group.tools.contains(&tool) {
            group.tools.push(tool);
        }
    }
    let mut out: Vec<Group> = groups.into_values().collect();
    // Stable: ties keep the key order (rule, then message).
    out.sort_by_key(|g| (g.severity, g.rule != Rule::R13, std::cmp::Reverse(g.count)));
    out
}

/// `1 change`, `2 changes`.
fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn names_line(names: &[&str]) -> String {
    let mut line = names
        .iter()
        .take(NAMES_SHOWN)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > NAMES_SHOWN {
        let _ = write!(line, ", +{} more", names.len() - NAMES_SHOWN);
    }
    line
}

/// One tool's details (`--verbose`): findings once, unused definitions as a count, the
/// transform's changes, and what remains in the served (or proxied) schema.
fn details(out: &mut String, v: &ToolVerdict, style: &Style, source: Source) {
    let status = if v.compatible() {
        style.good("COMPATIBLE")
    } else {
        style.bad("INCOMPATIBLE")
    };
    let counts = Counts::of(&v.issues);
    let _ = writeln!(out, "{}  {status}", style.bold(&v.name));
    let written = match source {
        Source::Ours => "as written",
        Source::Server => "as listed",
    };
    if counts.total() == 0 {
        let _ = writeln!(out, "  {written}: clean");
    } else {
        let _ = writeln!(out, "  {written}: {}", counts.text());
        write_issues(out, &v.issues, style);
    }
    if !v.unused_definitions.is_empty() {
        let _ = writeln!(
            out,
            "  {}",
            style.dim(&format!(
                "{} ignored",
                plural(v.unused_definitions.len(), "unused definition")
            ))
        );
    }
    if !v.changes.is_empty() {
        let _ = writeln!(
            out,
            "  transform: {} ({})",
            plural(v.changes.len(), "change"),
            rule_tally(&v.changes)
        );
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
    let served = match source {
        Source::Ours => "served (transformed) schema",
        Source::Server => "through `fs-mcp-rs proxy`",
    };
    // For another server, the listed schema's findings are above; only the transform's
    // leftovers (normally none) belong here.
    let remaining = &v.transformed_issues;
    if remaining.is_empty() {
        let _ = writeln!(out, "  {served}: {}", style.good("clean"));
    } else {
        let _ = writeln!(
            out,
            "  {served}: {}",
            style.bad(&Counts::of(remaining).text())
        );
        write_issues(out, remaining, style);
    }
}

/// `R1 ×3, R9 ×2`, rules in order.
fn rule_tally<'a>(changes: impl IntoIterator<Item = &'a Change>) -> String {
    let mut tally: BTreeMap<Rule, usize> = BTreeMap::new();
    for change in changes {
        *tally.entry(change.rule).or_default() += 1;
    }
    tally
        .into_iter()
        .map(|(rule, n)| {
            if n == 1 {
                rule.to_string()
            } else {
                format!("{rule} ×{n}")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn write_issues(out: &mut String, issues: &[Issue], style: &Style) {
    for issue in issues {
        let label = format!("[{} {}]", issue.rule, issue.severity);
        let label = if blocks(issue) {
            style.bad(&label)
        } else {
            style.dim(&label)
        };
        let _ = writeln!(
            out,
            "    {label} {} {}",
            pointer(&issue.path),
            issue.message
        );
    }
}

fn pointer(path: &str) -> &str {
    if path.is_empty() { "(root)" } else { path }
}
