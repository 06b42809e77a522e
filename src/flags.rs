//! Flags shared by the serving command, `ui` and `proxy`: the serving options, the HTTP default
//! address and the schema profile. A leaf: it depends on no command module.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, ValueEnum};

/// The default address for `--http` given without a value.
pub const DEFAULT_HTTP_ADDR: &str = "127.0.0.1:8124";

/// `--review-via`: where the human reviews a proposal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum ReviewVia {
    /// Best first: the client's own form when it declares elicitation, else the review command
    /// when its program is on PATH (or `--review-command none`: the files are opened by hand),
    /// else the review page this server serves on 127.0.0.1 (the call answers at once with its
    /// link).
    #[default]
    Auto,
    /// The client's own form (MCP elicitation); the review page when the client has none.
    Elicitation,
    /// The review command (`--review-command`); the review page when its program is missing.
    Command,
    /// The review page on 127.0.0.1 (the call answers at once with its link).
    Page,
}

/// `--schema-profile`: which schemas clients are served (see `gemini_compat::profile`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum SchemaProfileArg {
    /// The Gemini-safe schema (valid JSON Schema every converter passes): the default.
    #[default]
    Gemini,
    /// Gemini-safe plus OpenAI strict mode: every property required (optional ones accept
    /// null), `additionalProperties: false` on every object with properties, descriptions cut to
    /// 1024 characters.
    OpenaiStrict,
    /// openai-strict for clients whose `clientInfo.name` contains codex or openai, else gemini.
    Auto,
}

impl From<SchemaProfileArg> for gemini_compat::SchemaProfile {
    fn from(arg: SchemaProfileArg) -> Self {
        match arg {
            SchemaProfileArg::Gemini => gemini_compat::SchemaProfile::Gemini,
            SchemaProfileArg::OpenaiStrict => gemini_compat::SchemaProfile::OpenaiStrict,
            SchemaProfileArg::Auto => gemini_compat::SchemaProfile::Auto,
        }
    }
}

/// Help text of `--schema-profile`, shared by the server and the proxy.
pub const SCHEMA_PROFILE_HELP: &str = "Tool schemas served: gemini (the default, for every client), \
openai-strict (for OpenAI strict mode; a null argument is read as left out) or auto (decided per \
client session by its name)";

/// Serving options (the default command).
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Directories the tools may access (default: the current directory, replaced by the client's
    /// MCP roots if it has them). Relative paths given to tools resolve against the first one.
    #[arg(value_name = "DIR")]
    pub dirs: Vec<PathBuf>,

    /// Expose the full tool tier, including tools that write without review (write_file, append_text, move_file).
    #[arg(long)]
    pub all: bool,

    /// List only tools that do not write (readOnlyHint), and refuse every write in the sandbox.
    #[arg(long)]
    pub read_only: bool,

    /// Leave these tools out of the list, comma-separated (e.g. `--disable-tools move_file,write_file`).
    /// An unknown name is an error.
    #[arg(long, value_name = "TOOLS", value_delimiter = ',')]
    pub disable_tools: Vec<String>,

    /// Serve streamable HTTP at http://ADDR/mcp instead of stdio (default address 127.0.0.1:8124).
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = DEFAULT_HTTP_ADDR)]
    pub http: Option<SocketAddr>,

    /// Require `Authorization: Bearer TOKEN` on every HTTP request.
    #[arg(
        long,
        value_name = "TOKEN",
        env = "FS_MCP_HTTP_TOKEN",
        hide_env_values = true
    )]
    pub http_token: Option<String>,

    /// Command that shows a proposed edit to the human, without a shell; {current} and {future}
    /// are replaced by the two files. Use "none" to launch nothing.
    #[arg(long, value_name = "COMMAND", default_value = fs_mcp_edit::DEFAULT_REVIEW_COMMAND)]
    pub review_command: String,

    /// Where the human reviews proposals: auto (the client's own form, else the review command
    /// when installed, else a review page on 127.0.0.1), elicitation, command or page.
    #[arg(long, value_enum, value_name = "CHANNEL", default_value = "auto")]
    pub review_via: ReviewVia,

    /// Seconds propose_and_review waits for the human before answering TIMEOUT.
    #[arg(long, value_name = "SECONDS", default_value_t = 600)]
    pub review_timeout: u64,

    /// Commit proposals at once without a human (for headless CI agents); responses carry the diff.
    #[arg(long)]
    pub auto_approve: bool,

    /// Cap on one read_files reply, in bytes (frames and notes included; at least 4096). The default
    /// 50000 is what Claude Code keeps inline (larger MCP results are saved to a file and replaced
    /// by a short preview); what is cut is named with the call that reads on.
    #[arg(long, value_name = "BYTES", default_value_t = fs_mcp_read::DEFAULT_MAX_REPLY_BYTES)]
    pub max_reply_bytes: usize,

    /// Cap on one line in read_files' head, tail, line ranges and read_to_next_pattern, in bytes; a
    /// longer line is cut with a marker saying how long it is (large_file_passthrough lifts it).
    #[arg(long, value_name = "BYTES", default_value_t = fs_mcp_read::DEFAULT_MAX_LINE_BYTES)]
    pub max_line_bytes: usize,

    /// Memory cap of one query_json/query_yaml evaluation, in MiB (it runs in its own process).
    #[arg(long, value_name = "MIB", default_value_t = 4096)]
    pub query_memory_mb: u64,

    /// Open MCP sessions allowed over HTTP at once; a client beyond it is refused with an error
    /// saying so.
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub http_max_sessions: usize,

    /// Seconds an HTTP session may go unused before it is closed (the client then initializes again).
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    pub http_session_timeout: u64,

    /// Milliseconds an HTTP client has to send a request's headers, also how long an idle
    /// connection stays open; a body gets three times as long (for tests; default 10 s).
    #[arg(long, value_name = "MS", default_value_t = 10_000, hide = true)]
    pub http_header_timeout_ms: u64,

    #[arg(long, value_enum, value_name = "PROFILE", default_value = "gemini", help = SCHEMA_PROFILE_HELP)]
    pub schema_profile: SchemaProfileArg,

    /// Log level for stderr (error, warn, info, debug, trace); RUST_LOG takes precedence.
    /// Default: warn, so a normal start prints nothing (clients show any stderr line as an error);
    /// with --http, info for this server, so the start shows the URL.
    #[arg(long, value_name = "LEVEL")]
    pub log_level: Option<String>,
}

impl ServeArgs {
    /// The review settings these options describe.
    pub fn review_config(&self) -> Result<fs_mcp_edit::ReviewConfig, String> {
        let command = self.review_command.trim();
        let review_command = if command.is_empty() || command.eq_ignore_ascii_case("none") {
            None
        } else {
            Some(fs_mcp_edit::parse_command_template(command)?)
        };
        Ok(fs_mcp_edit::ReviewConfig {
            review_command,
            review_timeout: std::time::Duration::from_secs(self.review_timeout.max(1)),
            auto_approve: self.auto_approve,
            on_waiting: Some(std::sync::Arc::new(|waiting: &fs_mcp_edit::WaitingInfo| {
                tracing::info!(
                    "review waiting for {}: {}",
                    waiting.path,
                    waiting.instructions
                );
            })),
            ..fs_mcp_edit::ReviewConfig::default()
        })
    }

    /// The HTTP limits these options describe.
    pub fn http_limits(&self) -> crate::http::HttpLimits {
        crate::http::HttpLimits {
            header_timeout: std::time::Duration::from_millis(self.http_header_timeout_ms.max(1)),
            body_timeout: std::time::Duration::from_millis(
                self.http_header_timeout_ms.max(1).saturating_mul(3),
            ),
            max_sessions: self.http_max_sessions.max(1),
            session_idle: std::time::Duration::from_secs(self.http_session_timeout.max(1)),
            ..crate::http::HttpLimits::default()
        }
    }

    /// The allowed directories, defaulting to the current directory.
    pub fn allowed_dirs(&self) -> Vec<PathBuf> {
        if self.dirs.is_empty() {
            vec![PathBuf::from(".")]
        } else {
            self.dirs.clone()
        }
    }
}
