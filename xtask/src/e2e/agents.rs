//! The three agent CLIs: where they are installed, how each is configured with fs-mcp-rs (the
//! README's snippets), pointed at the stand-in model, and run headless.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::{Context, bail};
use serde_json::{Value, json};

use super::readme;
use crate::clients::agents::{bin_dir, node_bin_dir};
use crate::util;

/// The flags the harness adds to the README's server command: proposals commit without a human.
pub const SERVER_FLAGS: &[&str] = &["--auto-approve"];

/// The review scenarios' flags: no `--auto-approve`, so a human decides (the harness, on the
/// screen or in the page); a review nobody decides ends within a minute, inside the run's limit.
pub const REVIEW_FLAGS: &[&str] = &["--review-timeout", "60"];

/// The proxy run: the README's stdio command becomes `fs-mcp-rs proxy -- fs-mcp-rs
/// --auto-approve ARGS`, so every call of the script goes through `fs-mcp-rs proxy` to the server.
pub const PROXY_FLAGS: &[&str] = &["proxy", "--", "fs-mcp-rs", "--auto-approve"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cli {
    Gemini,
    Claude,
    OpenCode,
}

impl Cli {
    pub const ALL: [Cli; 3] = [Cli::Gemini, Cli::Claude, Cli::OpenCode];

    /// The name `--cli` takes and the README markers use.
    pub fn key(self) -> &'static str {
        match self {
            Cli::Gemini => "gemini",
            Cli::Claude => "claude",
            Cli::OpenCode => "opencode",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Cli::Gemini => "Gemini CLI",
            Cli::Claude => "Claude Code",
            Cli::OpenCode => "OpenCode",
        }
    }

    pub fn parse(name: &str) -> anyhow::Result<Cli> {
        Cli::ALL
            .into_iter()
            .find(|c| c.key() == name.to_ascii_lowercase())
            .with_context(|| format!("unknown CLI `{name}` (gemini, claude, opencode)"))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Stdio,
    Http,
    /// stdio, with `fs-mcp-rs proxy` between the CLI and the server.
    Proxy,
}

impl Transport {
    pub const ALL: [Transport; 3] = [Transport::Stdio, Transport::Http, Transport::Proxy];

    pub fn key(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "http",
            Transport::Proxy => "proxy",
        }
    }

    /// The README snippet the run configures the CLI with (the proxy wraps the stdio one).
    fn snippet_key(self) -> &'static str {
        match self {
            Transport::Http => "http",
            Transport::Stdio | Transport::Proxy => "stdio",
        }
    }

    /// What the harness inserts after the README's `fs-mcp-rs` (stdio runs).
    fn server_flags(self) -> &'static [&'static str] {
        match self {
            Transport::Proxy => PROXY_FLAGS,
            Transport::Stdio | Transport::Http => SERVER_FLAGS,
        }
    }

    pub fn parse(name: &str) -> anyhow::Result<Transport> {
        Transport::ALL
            .into_iter()
            .find(|t| t.key() == name.to_ascii_lowercase())
            .with_context(|| format!("unknown transport `{name}` (stdio, http, proxy)"))
    }
}

/// One CLI × transport run: its folders and endpoints.
pub struct Session {
    pub cli: Cli,
    pub transport: Transport,
    /// Everything of this run: project, home, logs.
    pub dir: PathBuf,
    pub project: PathBuf,
    pub home: PathBuf,
    /// The folder holding the `fs-mcp-rs` under test, put first on PATH as `cargo install` would.
    pub server_dir: PathBuf,
    pub model_url: String,
    /// `127.0.0.1:PORT` of the HTTP server (HTTP runs).
    pub http_addr: Option<String>,
    pub token: String,
    /// A review scenario: the server runs with [`REVIEW_FLAGS`] instead of `--auto-approve`.
    pub review: bool,
    /// A packaged command line that replaces the README's `fs-mcp-rs` (stdio runs of
    /// `cargo xtask dist test`: `npx … fs-mcp-rs`, `uvx … fs-mcp-rs`).
    pub server_command: Option<Vec<String>>,
    /// More environment for the CLI (and so the server command it starts).
    pub env: Vec<(String, String)>,
}

pub const PROMPT: &str = "Run the fs-mcp-rs end-to-end script.";

impl Session {
    fn snippet_name(&self) -> String {
        format!("{}-{}", self.cli.key(), self.transport.snippet_key())
    }

    /// The README's snippet for this run with the placeholders filled in.
    fn snippet(
        &self,
        snippets: &std::collections::BTreeMap<String, String>,
    ) -> anyhow::Result<String> {
        let name = self.snippet_name();
        let text = snippets
            .get(&name)
            .with_context(|| format!("README has no `{name}` snippet"))?;
        let addr = self.http_addr.as_deref().unwrap_or(readme::DEFAULT_ADDR);
        Ok(readme::fill(
            text,
            &self.project.display().to_string(),
            addr,
        ))
    }

    /// A clean environment: nothing of the caller's (API keys, a surrounding agent's variables)
    /// leaks into the CLI.
    pub fn base_command(&self, program: &str) -> Command {
        let mut command = Command::new(bin_dir().join(program));
        let path = [
            self.server_dir.clone(),
            node_bin_dir(),
            bin_dir(),
            PathBuf::from("/usr/local/bin"),
            PathBuf::from("/usr/bin"),
            PathBuf::from("/bin"),
        ];
        let path = std::env::join_paths(path).unwrap_or_default();
        command
            .env_clear()
            .current_dir(&self.project)
            .env("PATH", path)
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            .env("XDG_DATA_HOME", self.home.join(".local/share"))
            .env("XDG_CACHE_HOME", self.home.join(".cache"))
            .env("XDG_STATE_HOME", self.home.join(".local/state"))
            .env("PWD", &self.project)
            // Git stops looking for a repository above the run's folder.
            .env("GIT_CEILING_DIRECTORIES", &self.dir)
            .env("TERM", "dumb")
            .env("NO_COLOR", "1")
            .env("LANG", "C.UTF-8")
            .env("CI", "true");
        if self.transport == Transport::Http {
            command.env("FS_MCP_HTTP_TOKEN", &self.token);
        }
        command.envs(self.env.iter().map(|(k, v)| (k, v)));
        command
    }

    /// Writes the CLI's configuration: the README's fs-mcp-rs snippet where the README puts it,
    /// and the harness's own settings (model endpoint, no telemetry or updates) beside it.
    pub fn configure(
        &self,
        snippets: &std::collections::BTreeMap<String, String>,
    ) -> anyhow::Result<()> {
        let snippet = self.snippet(snippets)?;
        match self.cli {
            Cli::Gemini => {
                let mut config = readme::json(&snippet)?;
                self.flag_stdio(&mut config)?;
                write_json(&self.project.join(".gemini/settings.json"), &config)?;
                write_json(
                    &self.home.join(".gemini/settings.json"),
                    &json!({
                        "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
                        "privacy": {"usageStatisticsEnabled": false},
                        "telemetry": {"enabled": false},
                        "security": {"auth": {"selectedType": "gemini-api-key"}},
                        "ide": {"enabled": false},
                    }),
                )
            }
            Cli::OpenCode => {
                let mut config = readme::json(&snippet)?;
                self.flag_stdio(&mut config)?;
                write_json(&self.project.join("opencode.json"), &config)?;
                write_json(
                    &self.home.join(".config/opencode/opencode.json"),
                    &json!({
                        "$schema": "https://opencode.ai/config.json",
                        "provider": {"google": {"options": {"baseURL": format!("{}/v1beta", self.model_url)}}},
                        "autoupdate": false,
                        "share": "disabled",
                    }),
                )
            }
            Cli::Claude => {
                let token = self.token.clone();
                let env = move |name: &str| (name == "FS_MCP_HTTP_TOKEN").then(|| token.clone());
                let commands = readme::shell_commands(&snippet, &env)?;
                for mut words in commands {
                    if words.first().map(String::as_str) != Some("claude") {
                        bail!(
                            "README `{}`: expected a `claude` command, got {words:?}",
                            self.snippet_name()
                        );
                    }
                    if self.transport != Transport::Http {
                        let at = words
                            .iter()
                            .position(|w| w.ends_with("fs-mcp-rs"))
                            .context("README claude-stdio: no `fs-mcp-rs` in the command")?;
                        for (i, flag) in self.server_flags().iter().enumerate() {
                            words.insert(at + 1 + i, flag.to_string());
                        }
                        if let Some(packaged) = &self.server_command {
                            words.splice(at..=at, packaged.iter().cloned());
                        }
                    }
                    let mut command = self.base_command("claude");
                    command.args(&words[1..]);
                    let output = util::output_within(&mut command, Duration::from_secs(60))?;
                    if !output.status.success() {
                        bail!(
                            "`{}` failed: {}{}",
                            words.join(" "),
                            String::from_utf8_lossy(&output.stdout),
                            String::from_utf8_lossy(&output.stderr)
                        );
                    }
                }
                Ok(())
            }
        }
    }

    /// What the harness inserts after the README's `fs-mcp-rs` (stdio runs).
    fn server_flags(&self) -> &'static [&'static str] {
        if self.review {
            REVIEW_FLAGS
        } else {
            self.transport.server_flags()
        }
    }

    fn flag_stdio(&self, config: &mut Value) -> anyhow::Result<()> {
        if self.transport != Transport::Http
            && readme::add_server_flags(config, self.server_flags()) == 0
        {
            bail!(
                "README `{}`: no server entry starting `fs-mcp-rs`",
                self.snippet_name()
            );
        }
        if let Some(packaged) = &self.server_command {
            readme::replace_server_command(config, packaged);
        }
        Ok(())
    }

    /// The headless run of the CLI against the stand-in model.
    pub fn run_command(&self) -> Command {
        match self.cli {
            Cli::Gemini => {
                let mut command = self.base_command("gemini");
                command
                    // --debug: MCP connection errors on stderr, for the report.
                    .args(["-p", PROMPT, "--approval-mode", "yolo", "--debug"])
                    .env("GEMINI_API_KEY", "e2e-stand-in")
                    .env("GOOGLE_GEMINI_BASE_URL", &self.model_url)
                    // Headless runs have no trust prompt; an untrusted folder disables MCP.
                    .env("GEMINI_CLI_TRUST_WORKSPACE", "true");
                command
            }
            Cli::Claude => {
                let mut command = self.base_command("claude");
                command.args(["-p", PROMPT, "--dangerously-skip-permissions"]);
                self.claude_env(&mut command);
                command
            }
            Cli::OpenCode => {
                let mut command = self.base_command("opencode");
                command
                    .args(["run", "-m", "google/gemini-2.5-pro", PROMPT])
                    .env("GOOGLE_GENERATIVE_AI_API_KEY", "e2e-stand-in")
                    .env("OPENCODE_DISABLE_AUTOUPDATE", "1")
                    .env("OPENCODE_DISABLE_MODELS_FETCH", "1")
                    .env("OPENCODE_DISABLE_LSP_DOWNLOAD", "1")
                    .env("OPENCODE_DISABLE_DEFAULT_PLUGINS", "1")
                    .env("OPENCODE_DISABLE_SHARE", "1")
                    .env("OPENCODE_DISABLE_CLAUDE_CODE", "1")
                    .env("OPENCODE_DISABLE_EXTERNAL_SKILLS", "1");
                command
            }
        }
    }
}

impl Session {
    /// Claude Code's environment: the stand-in model, nothing sent elsewhere.
    fn claude_env(&self, command: &mut Command) {
        command
            .env("ANTHROPIC_BASE_URL", &self.model_url)
            .env("ANTHROPIC_API_KEY", CLAUDE_API_KEY)
            // Root may skip permissions only in a declared sandbox.
            .env("IS_SANDBOX", "1")
            // As against Anthropic's API: MCP tools deferred behind ToolSearch.
            .env("ENABLE_TOOL_SEARCH", "true")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_ERROR_REPORTING", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
    }

    /// Claude Code interactive (run under tmux by the review scenario): a human answers its
    /// prompts, and only `propose_and_review` runs without asking.
    pub fn interactive_claude(&self) -> Command {
        let mut command = self.base_command("claude");
        // The prompt first: after --allowedTools it would be read as another tool name.
        command.args([
            PROMPT,
            "--permission-mode",
            "default",
            "--allowedTools",
            CLAUDE_REVIEW_TOOL,
        ]);
        self.claude_env(&mut command);
        command
    }

    /// What an interactive Claude Code asks once per machine or folder, answered beforehand in
    /// `~/.claude.json` (kept beside what `claude mcp add` wrote there): onboarding done, the
    /// stand-in's API key approved, the project folder trusted.
    pub fn prepare_interactive_claude(&self) -> anyhow::Result<()> {
        let path = self.home.join(".claude.json");
        let mut config: Value = match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text)
                .with_context(|| format!("{} is not JSON", path.display()))?,
            Err(_) => json!({}),
        };
        let Some(object) = config.as_object_mut() else {
            bail!("{} is not a JSON object", path.display());
        };
        object.insert("hasCompletedOnboarding".into(), json!(true));
        object.insert("theme".into(), json!("dark"));
        // Claude Code remembers a key by its last 20 characters.
        let key: String = {
            let chars: Vec<char> = CLAUDE_API_KEY.trim().chars().collect();
            chars[chars.len().saturating_sub(20)..].iter().collect()
        };
        object.insert(
            "customApiKeyResponses".into(),
            json!({"approved": [key], "rejected": []}),
        );
        let projects = object.entry("projects").or_insert_with(|| json!({}));
        let project = &mut projects[self.project.display().to_string()];
        if !project.is_object() {
            *project = json!({});
        }
        project["hasTrustDialogAccepted"] = json!(true);
        project["hasCompletedProjectOnboarding"] = json!(true);
        write_json(&path, &config)
    }
}

/// The API key Claude Code is given (the stand-in accepts any).
const CLAUDE_API_KEY: &str = "e2e-stand-in";
/// The one tool the interactive review run lets Claude Code call without asking.
pub const CLAUDE_REVIEW_TOOL: &str = "mcp__fs__propose_and_review";

fn write_json(path: &Path, value: &Value) -> anyhow::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let text = serde_json::to_string_pretty(value)?;
    std::fs::write(path, text).with_context(|| format!("write {}", path.display()))
}
