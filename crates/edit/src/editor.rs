//! Opening the diff window: a command template run without a shell.
//!
//! The template is a list of arguments; `{current}` and `{future}` inside any argument are
//! replaced by the two session files (in one pass, so a file name containing a placeholder is
//! not expanded again). The program is started directly (no shell), with stdin, stdout and
//! stderr detached, so file names such as `$(rm -rf ~)` or `a;b` are passed literally and the
//! editor cannot write into the stdio transport.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;

/// Called when a proposal starts waiting for the human (e.g. to send the MCP client a log
/// message saying which files to compare).
pub type WaitingHook = Arc<dyn Fn(&WaitingInfo) + Send + Sync>;

/// What a waiting review looks like, for [`crate::ReviewConfig::on_waiting`].
#[derive(Debug, Clone)]
pub struct WaitingInfo {
    /// The session directory (what `session_path` will be).
    pub session_path: String,
    /// The file under review, as the client named it.
    pub path: String,
    /// The "before" file of the diff.
    pub current: PathBuf,
    /// The proposal the human saves (unchanged to approve, edited to give feedback).
    pub future: PathBuf,
    /// Whether the diff window was opened (if not, the human opens `current` and `future` by
    /// hand).
    pub launch: LaunchOutcome,
}

/// Shows a proposal to the human: starts the review `command` on the two files (`None` opens
/// nothing), logs where the review waits, and calls `hook`. What became of the window, with the
/// files to open by hand.
pub(crate) fn show(
    command: Option<&[String]>,
    hook: Option<&WaitingHook>,
    session_path: &str,
    shown: &str,
    current: &Path,
    future: &Path,
) -> WaitingInfo {
    let launched = launch(command, current, future);
    let (before, after) = (current.display(), future.display());
    match &launched {
        LaunchOutcome::Launched { program } => {
            tracing::info!(
                "waiting for the review of '{shown}' (opened with '{program}'); save {after} to decide"
            );
        }
        LaunchOutcome::Disabled => {
            tracing::info!("waiting for the review of '{shown}': diff {before} {after}");
        }
        other => tracing::warn!("{other}; to review '{shown}': diff {before} {after}"),
    }
    let waiting = WaitingInfo {
        session_path: session_path.to_string(),
        path: shown.to_string(),
        current: current.to_path_buf(),
        future: future.to_path_buf(),
        launch: launched,
    };
    if let Some(hook) = hook {
        hook(&waiting);
    }
    waiting
}

/// The default review command, in the form the `--review-command` option takes.
pub const DEFAULT_REVIEW_COMMAND: &str = "code --diff {current} {future}";

/// The default review command as a template.
pub fn default_review_command() -> Vec<String> {
    vec![
        "code".into(),
        "--diff".into(),
        "{current}".into(),
        "{future}".into(),
    ]
}

/// Splits a command line into arguments the way a POSIX shell splits words, without running a
/// shell: whitespace separates words; `'…'` is literal; `"…"` is literal except for `\"`,
/// `\\`, `\$` and `` \` ``; a backslash outside quotes escapes the next character. No
/// expansion of any kind happens (`$HOME`, `*`, `~` stay as written).
///
/// If no argument mentions `{current}` or `{future}`, the two are appended, so
/// `"meld"` works as `meld {current} {future}`.
pub fn parse_command_template(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(ch) => word.push(ch),
                        None => return Err("unterminated single quote".into()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(ch @ ('"' | '\\' | '$' | '`')) => word.push(ch),
                            Some('\n') => {}
                            Some(ch) => {
                                word.push('\\');
                                word.push(ch);
                            }
                            None => return Err("unterminated double quote".into()),
                        },
                        Some(ch) => word.push(ch),
                        None => return Err("unterminated double quote".into()),
                    }
                }
            }
            '\\' => match chars.next() {
                Some('\n') => {}
                Some(ch) => {
                    in_word = true;
                    word.push(ch);
                }
                None => return Err("a trailing backslash escapes nothing".into()),
            },
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() {
        return Err("the review command is empty".into());
    }
    if !words
        .iter()
        .any(|w| w.contains("{current}") || w.contains("{future}"))
    {
        words.push("{current}".into());
        words.push("{future}".into());
    }
    Ok(words)
}

/// Replaces `{current}` and `{future}` in one argument, in one pass.
fn substitute(arg: &str, current: &str, future: &str) -> String {
    let mut out = String::with_capacity(arg.len());
    let mut rest = arg;
    while let Some(pos) = rest.find('{') {
        out.push_str(&rest[..pos]);
        let tail = &rest[pos..];
        if let Some(after) = tail.strip_prefix("{current}") {
            out.push_str(current);
            rest = after;
        } else if let Some(after) = tail.strip_prefix("{future}") {
            out.push_str(future);
            rest = after;
        } else {
            out.push('{');
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    out
}

/// The arguments of a template with the placeholders filled in.
pub fn expand_template(template: &[String], current: &Path, future: &Path) -> Vec<String> {
    let current = current.to_string_lossy();
    let future = future.to_string_lossy();
    template
        .iter()
        .map(|a| substitute(a, &current, &future))
        .collect()
}

/// What happened when the diff window was to be opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LaunchOutcome {
    /// The program was started (it may still fail on its own).
    Launched {
        /// The program (first argument of the command).
        program: String,
    },
    /// The program is not installed (not found on `PATH`).
    NotFound {
        /// The program (first argument of the command).
        program: String,
    },
    /// Starting the program failed for another reason.
    Failed {
        /// The program (first argument of the command).
        program: String,
        /// The operating system's error.
        error: String,
    },
    /// No review command is configured.
    Disabled,
}

impl LaunchOutcome {
    /// True unless the program was started.
    pub fn needs_manual_open(&self) -> bool {
        !matches!(self, LaunchOutcome::Launched { .. })
    }
}

impl fmt::Display for LaunchOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LaunchOutcome::Launched { program } => write!(f, "launched '{program}'"),
            LaunchOutcome::NotFound { program } => {
                write!(
                    f,
                    "the review editor '{program}' is not installed (not found on PATH)"
                )
            }
            LaunchOutcome::Failed { program, error } => {
                write!(
                    f,
                    "the review editor '{program}' could not be started: {error}"
                )
            }
            LaunchOutcome::Disabled => write!(f, "no review command is configured"),
        }
    }
}

/// Starts the review command for the two files. The child is not waited for; a detached thread
/// reaps it when it exits, so no zombie is left and no async runtime is needed.
pub(crate) fn launch(template: Option<&[String]>, current: &Path, future: &Path) -> LaunchOutcome {
    let Some(template) = template.filter(|t| !t.is_empty()) else {
        return LaunchOutcome::Disabled;
    };
    let args = expand_template(template, current, future);
    let Some((program, rest)) = args.split_first() else {
        return LaunchOutcome::Disabled;
    };
    let spawned = std::process::Command::new(program)
        .args(rest)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    match spawned {
        Ok(mut child) => {
            let reaper = std::thread::Builder::new()
                .name("fs-mcp-review-editor".into())
                .spawn(move || {
                    let _ = child.wait();
                });
            if let Err(e) = reaper {
                tracing::debug!("cannot start a thread to reap the review editor: {e}");
            }
            LaunchOutcome::Launched {
                program: program.clone(),
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => LaunchOutcome::NotFound {
            program: program.clone(),
        },
        Err(e) => LaunchOutcome::Failed {
            program: program.clone(),
            error: e.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_like_a_shell_without_one() {
        assert_eq!(
            parse_command_template("code --diff {current} {future}").unwrap(),
            default_review_command()
        );
        assert_eq!(
            parse_command_template(r#"  "my editor" --opt='a b' x\ y "q\"t" $HOME  "#).unwrap(),
            vec![
                "my editor",
                "--opt=a b",
                "x y",
                "q\"t",
                "$HOME",
                "{current}",
                "{future}"
            ]
        );
        assert_eq!(
            parse_command_template("meld").unwrap(),
            vec!["meld", "{current}", "{future}"]
        );
        assert_eq!(
            parse_command_template("vim -d '' {future}").unwrap(),
            vec!["vim", "-d", "", "{future}"]
        );
        assert!(parse_command_template("a 'b").is_err());
        assert!(parse_command_template("a \"b").is_err());
        assert!(parse_command_template("   ").is_err());
    }

    #[test]
    fn substitutes_once() {
        let t = vec!["--left={current}".to_string(), "{future}{x}".to_string()];
        let out = expand_template(&t, Path::new("/s/current_{future}"), Path::new("/s/f"));
        assert_eq!(out, vec!["--left=/s/current_{future}", "/s/f{x}"]);
    }
}
