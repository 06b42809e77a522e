//! `--scenario review`: `propose_and_review` without `--auto-approve`, a human deciding on the
//! channel each CLI gets (issue 21).
//!
//! - Claude Code, run interactively under tmux: the server asks through Claude Code's own form
//!   (MCP elicitation); the harness reads the form from the screen (`tmux capture-pane`), checks
//!   the diff is on it, and, in three runs, approves (Space on Approve, Down, Down to Accept,
//!   Enter), dismisses the form (Escape), or rejects with a comment (Down, the comment typed,
//!   Down to Accept, Enter). Every screen seen, and every key sent, is kept in `screens.txt`.
//! - Gemini CLI (no elicitation) with no `code` on PATH: the call answers at once with PENDING and
//!   the review page's link; the harness, as the human given the link, approves through the
//!   page's HTTP API (as `tests/review_channels.rs` does), and the model's next call, with the
//!   `session_path`, collects COMMITTED.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::{Value, json};

use super::agents::{Cli, Session, Transport};
use super::exchange::{self, Recorded};
use super::model::{self, StandIn};
use super::script::{self, FormAnswer, Outcome, REVIEW_COMMENT, REVIEW_FILE, RunEnd, Script};
use crate::util;

/// How long after a tool call its PENDING answer may reach the model.
const PENDING_WITHIN: Duration = Duration::from_secs(2);
/// Bound on waiting for Claude Code's form to appear (start, tool search, the call).
const FORM_WITHIN: Duration = Duration::from_secs(90);
/// Bound on each later wait on the screen or the model log.
const STEP_WITHIN: Duration = Duration::from_secs(30);
/// Claude Code ignores an Enter sent the instant the pointer lands on a button.
const SETTLE: Duration = Duration::from_millis(400);

fn session(
    cli: Cli,
    dir: &Path,
    project: PathBuf,
    home: PathBuf,
    server_dir: &Path,
    model: &StandIn,
) -> Session {
    Session {
        cli,
        transport: Transport::Stdio,
        dir: dir.to_path_buf(),
        project,
        home,
        server_dir: server_dir.to_path_buf(),
        model_url: model.base_url(),
        http_addr: None,
        token: String::new(),
        review: true,
        server_command: None,
        env: Vec::new(),
    }
}

fn outcome(scenario: &str, result: Result<String, String>) -> Outcome {
    let (pass, detail) = match result {
        Ok(detail) => (true, detail),
        Err(detail) => (false, detail),
    };
    Outcome {
        scenario: scenario.to_string(),
        pass,
        detail,
    }
}

// ---------------------------------------------------------------------------------------------
// Claude Code: its own form, on the screen.

/// One interactive Claude Code run: the model proposes, the harness answers the form.
pub fn claude_form(
    answer: FormAnswer,
    dir: &Path,
    server_dir: &Path,
    snippets: &std::collections::BTreeMap<String, String>,
    limit: Duration,
) -> anyhow::Result<Vec<Outcome>> {
    let (project, home) = super::prepare_project(dir)?;
    let script = Script::review_in_form(answer);
    let log_path = model::log_path(dir);
    let model = StandIn::start(Script::review_in_form(answer), &log_path)?;
    let session = session(Cli::Claude, dir, project.clone(), home, server_dir, &model);
    session.configure(snippets)?;
    session.prepare_interactive_claude()?;

    let started = Instant::now();
    let screen = Screen::start(&session.interactive_claude(), dir)?;
    let mut outcomes = Vec::new();
    let driven = drive_form(&screen, answer, &log_path, limit, &mut outcomes);
    // The model's final answer on screen ends the session.
    let finished = driven.is_ok()
        && screen
            .wait_for(STEP_WITHIN, |s| s.contains(script::FINAL))
            .is_ok();
    let last = screen.capture().unwrap_or_default();
    drop(screen);
    drop(model);
    let summary = match &driven {
        Ok(()) => format!(
            "Claude Code (tmux) ran {:.1}s; screens in {}",
            started.elapsed().as_secs_f64(),
            dir.join("screens.txt").display()
        ),
        Err(e) => format!("{e:#}; screens in {}", dir.join("screens.txt").display()),
    };
    let log = exchange::read_log(&log_path)?;
    let end = RunEnd {
        exited_ok: finished,
        summary,
        stdout: last,
        mcp_errors: Vec::new(),
    };
    outcomes.extend(script::evaluate(&script, &log, &project, &end));
    Ok(outcomes)
}

/// Waits for the form, checks the diff is on it, answers it, and waits until the tool's result
/// reached the model. Pushes the "form" outcome.
fn drive_form(
    screen: &Screen,
    answer: FormAnswer,
    log_path: &Path,
    limit: Duration,
    outcomes: &mut Vec<Outcome>,
) -> anyhow::Result<()> {
    let scenario = "Claude Code shows the form with the diff";
    let form = match screen.wait_for(FORM_WITHIN.min(limit), is_form) {
        Ok(form) => form,
        Err(e) => {
            outcomes.push(outcome(scenario, Err(format!("{e:#}"))));
            return Err(e);
        }
    };
    let diff_shown = ["-version = 1", "+version = 2"]
        .iter()
        .all(|line| squeeze(&form).contains(&squeeze(line)));
    // Claude Code draws a line break in a field's description as U+FFFD, which ran the diff
    // lines together: the server marks line ends for it instead.
    let legible = !form.contains('\u{FFFD}');
    outcomes.push(outcome(
        scenario,
        if diff_shown && legible {
            Ok(format!(
                "form on screen: {}",
                script::excerpt(&form_excerpt(&form), 110)
            ))
        } else {
            Err(format!(
                "`-version = 1` / `+version = 2` not legibly on the screen (U+FFFD: {}): {}",
                !legible,
                script::excerpt(&form, 400)
            ))
        },
    ));
    match answer {
        FormAnswer::Approve => {
            // Space checks Approve; the screen changes when it did.
            screen.keys(&["Space"])?;
            screen
                .wait_for(STEP_WITHIN, |s| s != form)
                .context("Space did not check Approve")?;
            // Down to the comment, Down to Accept.
            screen.keys(&["Down"])?;
            std::thread::sleep(SETTLE);
            screen.keys(&["Down"])?;
            accept(screen)?;
        }
        FormAnswer::Cancel => {
            // As a person would, after reading it: the server takes a form closed within
            // 200 ms of being sent for a headless client's, not a rejection.
            std::thread::sleep(SETTLE);
            screen.keys(&["Escape"])?;
        }
        FormAnswer::RejectWithComment => {
            // Down to the comment, type it (it must show), Down to Accept.
            screen.keys(&["Down"])?;
            std::thread::sleep(SETTLE);
            screen.text(REVIEW_COMMENT)?;
            screen
                .wait_for(STEP_WITHIN, |s| s.contains(REVIEW_COMMENT))
                .context("the typed comment did not show in the form")?;
            screen.keys(&["Down"])?;
            accept(screen)?;
        }
    }
    screen
        .wait_for(STEP_WITHIN, |s| !is_form(s))
        .context("the form stayed on the screen after the answer")?;
    wait_for_log(log_path, STEP_WITHIN, |log| {
        log.iter().any(|r| {
            r.exchange.as_ref().is_some_and(|ex| {
                script::scripted_calls(ex)
                    .first()
                    .is_some_and(|&at| ex.result_for(at).is_some())
            })
        })
    })
    .context("the tool's result never reached the model")?;
    Ok(())
}

/// Enter on Accept once the pointer settled there (Claude Code ignores an Enter sent the
/// instant it lands); one more if the form is still up 3 s later, as a human would.
fn accept(screen: &Screen) -> anyhow::Result<()> {
    std::thread::sleep(SETTLE);
    screen.keys(&["Enter"])?;
    if screen
        .wait_for(Duration::from_secs(3), |s| !is_form(s))
        .is_err()
    {
        screen.keys(&["Enter"])?;
    }
    Ok(())
}

/// Claude Code's elicitation form: "MCP server “fs” requests your input" (matched on text).
fn is_form(screen: &str) -> bool {
    screen.contains("requests your input")
}

/// The form's lines from its title on, for the report.
fn form_excerpt(screen: &str) -> String {
    let from = screen.find("MCP server").unwrap_or(0);
    screen[from..].to_string()
}

/// Text with every whitespace run removed: box borders and wrapping never split a match.
fn squeeze(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// A terminal of our own: a tmux server on a socket in the run's folder, one window of
/// 200×50 running the command (its environment exactly the command's), every distinct screen
/// appended to `screens.txt`. Dropping it ends the tmux server, and the program with it.
struct Screen {
    socket: PathBuf,
    screens: PathBuf,
    started: Instant,
    last: std::sync::Mutex<String>,
}

use crate::clients::TMUX;

impl Screen {
    fn start(program: &Command, dir: &Path) -> anyhow::Result<Screen> {
        // A Unix socket's path holds at most 107 bytes: a deep target dir falls back to /tmp.
        let mut socket = dir.join("tmux.sock");
        if socket.as_os_str().len() > 100 {
            let name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
            socket = std::env::temp_dir().join(format!(
                "fs-mcp-e2e-{}-{}.sock",
                std::process::id(),
                name.unwrap_or_default()
            ));
        }
        let mut tmux = Command::new(TMUX);
        tmux.env_clear();
        for (key, value) in program.get_envs() {
            if let Some(value) = value {
                tmux.env(key, value);
            }
        }
        if let Some(cwd) = program.get_current_dir() {
            tmux.current_dir(cwd);
        }
        tmux.arg("-S")
            .arg(&socket)
            .args([
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-s",
                "e2e",
                "-x",
                "200",
                "-y",
                "50",
                "--",
            ])
            .arg(program.get_program())
            .args(program.get_args())
            // Keep the window when the program exits, so its last screen can be read.
            .args([";", "set-option", "-g", "remain-on-exit", "on"]);
        let output = util::output_within(&mut tmux, Duration::from_secs(10))
            .context("start tmux (apt-get install tmux, or `cargo xtask clients install`)")?;
        if !output.status.success() {
            bail!(
                "tmux new-session failed ({}): {}",
                output.status,
                String::from_utf8_lossy(&output.stderr).trim()
            );
        }
        Ok(Screen {
            socket,
            screens: dir.join("screens.txt"),
            started: Instant::now(),
            last: std::sync::Mutex::new(String::new()),
        })
    }

    fn tmux(&self, args: &[&str]) -> anyhow::Result<String> {
        let mut command = Command::new(TMUX);
        command.arg("-S").arg(&self.socket).args(args);
        let output = util::output_within(&mut command, Duration::from_secs(10))?;
        if !output.status.success() {
            bail!(
                "tmux {} failed: {}",
                args.join(" "),
                String::from_utf8_lossy(&output.stderr).trim()
            );
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }

    /// The visible screen, wrapped lines joined; a new one is kept in `screens.txt`.
    fn capture(&self) -> anyhow::Result<String> {
        let text = self.tmux(&["capture-pane", "-p", "-J", "-t", "e2e"])?;
        if let Ok(mut last) = self.last.lock()
            && *last != text
        {
            if let Ok(mut file) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.screens)
            {
                let _ = writeln!(
                    file,
                    "===== screen at {:.1}s =====\n{}",
                    self.started.elapsed().as_secs_f64(),
                    text.trim_end()
                );
            }
            *last = text.clone();
        }
        Ok(text)
    }

    /// Types `text` literally.
    fn text(&self, text: &str) -> anyhow::Result<()> {
        self.note(&format!("text {text:?}"));
        self.tmux(&["send-keys", "-t", "e2e", "-l", text])
            .map(|_| ())
    }

    fn note(&self, what: &str) {
        if let Ok(mut file) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.screens)
        {
            let _ = writeln!(
                file,
                "===== {what} at {:.1}s =====",
                self.started.elapsed().as_secs_f64()
            );
        }
    }

    fn keys(&self, keys: &[&str]) -> anyhow::Result<()> {
        self.note(&format!("keys {}", keys.join(" ")));
        let mut args = vec!["send-keys", "-t", "e2e"];
        args.extend_from_slice(keys);
        self.tmux(&args).map(|_| ())
    }

    /// Polls the screen until `wanted` holds, at most `limit`; returns that screen.
    fn wait_for(&self, limit: Duration, wanted: impl Fn(&str) -> bool) -> anyhow::Result<String> {
        let deadline = Instant::now() + limit;
        loop {
            let screen = self.capture()?;
            if wanted(&screen) {
                return Ok(screen);
            }
            if Instant::now() > deadline {
                bail!(
                    "not on the screen within {}s; the screen ends: {}",
                    limit.as_secs(),
                    script::excerpt(screen.trim_end(), 300)
                );
            }
            std::thread::sleep(Duration::from_millis(150));
        }
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        // Our own tmux server, by its socket: nothing else's.
        let _ = self.tmux(&["kill-server"]);
        let _ = std::fs::remove_file(&self.socket);
    }
}

/// Polls the stand-in's log until `wanted` holds, at most `limit`.
fn wait_for_log(
    log_path: &Path,
    limit: Duration,
    wanted: impl Fn(&[Recorded]) -> bool,
) -> anyhow::Result<()> {
    let deadline = Instant::now() + limit;
    loop {
        if exchange::read_log(log_path).is_ok_and(|log| wanted(&log)) {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!("not in the model's log within {}s", limit.as_secs());
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

// ---------------------------------------------------------------------------------------------
// Gemini CLI: the review page.

/// One headless Gemini CLI run with no `code` on PATH: PENDING with a link, the harness
/// approves in the page, the model's next call collects COMMITTED.
pub fn gemini_page(
    dir: &Path,
    server_dir: &Path,
    snippets: &std::collections::BTreeMap<String, String>,
    limit: Duration,
) -> anyhow::Result<Vec<Outcome>> {
    let (project, home) = super::prepare_project(dir)?;
    let script = Script::review_in_page();
    let log_path = model::log_path(dir);
    let model = StandIn::start(Script::review_in_page(), &log_path)?;
    let session = session(Cli::Gemini, dir, project.clone(), home, server_dir, &model);
    session.configure(snippets)?;
    let mut command = session.run_command();
    if let Some(found) = on_path(&command, "code") {
        bail!(
            "`code` is on the run's PATH ({}), so the review command would be chosen instead of the page",
            found.display()
        );
    }

    // The human: reads the link the model got, and approves in the page.
    let stop = Arc::new(AtomicBool::new(false));
    let human = {
        let stop = stop.clone();
        let log_path = log_path.clone();
        let file = project.join(REVIEW_FILE);
        std::thread::spawn(move || approve_in_page(&log_path, &file, &stop, limit))
    };
    let started = Instant::now();
    let output = util::output_within(&mut command, limit).context("run Gemini CLI")?;
    let elapsed = started.elapsed();
    stop.store(true, Ordering::SeqCst);
    let approved = human
        .join()
        .unwrap_or_else(|_| Err("the human's thread panicked".into()));
    std::fs::write(dir.join("cli.stdout"), &output.stdout)?;
    std::fs::write(dir.join("cli.stderr"), &output.stderr)?;
    drop(model);

    let log = exchange::read_log(&log_path)?;
    let end = RunEnd {
        exited_ok: output.status.success(),
        summary: format!(
            "Gemini CLI exited {} after {:.1}s",
            output.status,
            elapsed.as_secs_f64()
        ),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        mcp_errors: Vec::new(),
    };
    let mut outcomes = vec![
        outcome("review page: PENDING within 2 s", pending_time(&log)),
        outcome("review page: approved through the link", approved),
    ];
    outcomes.extend(script::evaluate(&script, &log, &project, &end));
    Ok(outcomes)
}

/// Where `program` is found on the PATH `command` runs with, if anywhere.
fn on_path(command: &Command, program: &str) -> Option<PathBuf> {
    let path = command
        .get_envs()
        .find(|(k, _)| *k == "PATH")
        .and_then(|(_, v)| v.map(|v| v.to_os_string()))?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

/// From the model's call of propose_and_review to its PENDING result reaching the model.
fn pending_time(log: &[Recorded]) -> Result<String, String> {
    let mains: Vec<&Recorded> = log
        .iter()
        .filter(|r| r.exchange.as_ref().is_some_and(|e| e.is_main()))
        .collect();
    let asked = mains
        .iter()
        .find(|r| {
            r.reply["call"]
                .as_str()
                .is_some_and(|n| script::names_tool(n, "propose_and_review"))
        })
        .ok_or("the model never called propose_and_review")?;
    let answered = mains
        .iter()
        .find(|r| {
            r.exchange.as_ref().is_some_and(|ex| {
                script::scripted_calls(ex)
                    .first()
                    .and_then(|&at| ex.result_for(at))
                    .is_some_and(|result| result.text.contains("PENDING"))
            })
        })
        .ok_or("no PENDING result reached the model")?;
    let (Some(from), Some(to)) = (asked.ms, answered.ms) else {
        return Err("the model's log has no times".into());
    };
    let took = Duration::from_millis(to.saturating_sub(from));
    if took <= PENDING_WITHIN {
        Ok(format!(
            "the call's PENDING answer reached the model {} ms after it asked",
            took.as_millis()
        ))
    } else {
        Err(format!(
            "the PENDING answer reached the model {:.1}s after it asked (at most {}s)",
            took.as_secs_f64(),
            PENDING_WITHIN.as_secs()
        ))
    }
}

/// The human given the link: waits for it in what the model received, checks the file is
/// untouched, and once the model is collecting the verdict (its call with the `session_path`
/// waits), lists the reviews in the page (with the token from the link), checks the proposal
/// and its diff are there, and approves.
fn approve_in_page(
    log_path: &Path,
    file: &Path,
    stop: &AtomicBool,
    limit: Duration,
) -> Result<String, String> {
    let deadline = Instant::now() + limit;
    let wait = |what: &str, found: &dyn Fn(&str) -> bool| -> Result<String, String> {
        loop {
            let text = std::fs::read_to_string(log_path).unwrap_or_default();
            if found(&text) {
                return Ok(text);
            }
            if stop.load(Ordering::SeqCst) || Instant::now() > deadline {
                return Err(format!("{what} never reached the model"));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    let text = wait("a review page link", &|t| page_link(t).is_some())?;
    let link = page_link(&text).ok_or("no link")?;
    let now = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    if now != script::UNREVIEWED {
        return Err(format!("{REVIEW_FILE} changed while pending: {now:?}"));
    }
    // The stand-in's call carrying the session_path: the agent now waits on the verdict.
    wait("the collecting call", &|t| {
        t.lines().any(|l| {
            serde_json::from_str::<Value>(l)
                .is_ok_and(|entry| entry["reply"]["args"]["session_path"].is_string())
        })
    })?;
    std::thread::sleep(Duration::from_millis(300));
    let listed = http(&link.addr, "GET", "/api/reviews", &link.token, None)?;
    let reviews = listed["reviews"].as_array().cloned().unwrap_or_default();
    let review = reviews
        .iter()
        .find(|r| r.to_string().contains(REVIEW_FILE))
        .ok_or_else(|| format!("the page lists no review of {REVIEW_FILE}: {listed}"))?;
    if !review.to_string().contains("+version = 2") {
        return Err(format!("the page's review has no `+version = 2`: {review}"));
    }
    let session = review["session_path"]
        .as_str()
        .ok_or_else(|| format!("the page's review has no session_path: {review}"))?;
    http(
        &link.addr,
        "POST",
        "/api/reviews/decide",
        &link.token,
        Some(&json!({"session_path": session})),
    )?;
    Ok(format!(
        "{REVIEW_FILE} untouched while pending; the page at {} listed the diff; approved it while the model's next call waited",
        link.addr
    ))
}

struct Link {
    /// `127.0.0.1:PORT`.
    addr: String,
    token: String,
}

/// The first `http://127.0.0.1:PORT/?token=…` in a text.
fn page_link(text: &str) -> Option<Link> {
    let start = text.find("http://127.0.0.1:")? + "http://".len();
    let rest = &text[start..];
    let (addr, after) = rest.split_once("/?token=")?;
    if addr.len() > "127.0.0.1:65535".len() {
        return None;
    }
    let token: String = after
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect();
    (!token.is_empty()).then(|| Link {
        addr: addr.to_string(),
        token,
    })
}

/// One request to the review page (HTTP/1.1, one connection), its JSON answer; an error unless
/// 200.
fn http(
    addr: &str,
    method: &str,
    path: &str,
    token: &str,
    body: Option<&Value>,
) -> Result<Value, String> {
    let fail = |e: std::io::Error| format!("{method} {path}: {e}");
    let socket: std::net::SocketAddr = addr.parse().map_err(|e| format!("{addr}: {e}"))?;
    let mut stream = TcpStream::connect_timeout(&socket, Duration::from_secs(5)).map_err(fail)?;
    stream
        .set_read_timeout(Some(Duration::from_secs(15)))
        .map_err(fail)?;
    let body = body.map(Value::to_string).unwrap_or_default();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nhost: {addr}\r\nx-fs-mcp-token: {token}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .map_err(fail)?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response).map_err(fail)?;
    let response = String::from_utf8_lossy(&response);
    let (head, body) = response
        .split_once("\r\n\r\n")
        .ok_or_else(|| format!("{method} {path}: no HTTP answer"))?;
    let status = head.lines().next().unwrap_or_default();
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_string()
    };
    if !status.contains(" 200") {
        return Err(format!(
            "{method} {path}: {status}: {}",
            script::excerpt(&body, 200)
        ));
    }
    Ok(serde_json::from_str(&body).unwrap_or(Value::String(body)))
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || rest.len() < size {
            break;
        }
        out.push_str(&rest[..size]);
        body = rest[size..].trim_start_matches("\r\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_link_and_its_token_are_read_from_escaped_json() {
        let text =
            r#"{"output":"{\"message\":\"Open http://127.0.0.1:40123/?token=Ab-9_x to review\"}"}"#;
        let link = page_link(text).unwrap();
        assert_eq!(link.addr, "127.0.0.1:40123");
        assert_eq!(link.token, "Ab-9_x");
        assert!(page_link("http://127.0.0.1:1/ no token").is_none());
    }

    #[test]
    fn chunked_bodies_are_joined() {
        assert_eq!(dechunk("4\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\n\r\n"), "{\"a\":1}");
    }

    #[test]
    fn the_session_path_is_found_in_wrapped_results() {
        let inner = json!({"user_action": "PENDING", "session_path": "/tmp/s1"}).to_string();
        assert_eq!(
            script::session_path_in(&json!({"output": inner}).to_string()).as_deref(),
            Some("/tmp/s1")
        );
        assert_eq!(
            script::session_path_in(&format!("result: {inner}")).as_deref(),
            Some("/tmp/s1")
        );
    }
}
