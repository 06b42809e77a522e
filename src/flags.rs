//! Flags shared by the serving command, `ui` and `proxy`: the serving options, the HTTP default
//! address and the schema profile. A leaf: it depends on no command module.

use std::ffi::OsString;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;

use clap::Args;
use gemini_compat::SchemaProfile;

use crate::context::ReviewVia;

/// The default address for `--http` given without a value.
pub const DEFAULT_HTTP_ADDR: &str = "127.0.0.1:8124";

/// `--http`'s value: `IP:PORT` (`[v6]:PORT`) or a bare port on 127.0.0.1.
pub fn parse_http_addr(value: &str) -> Result<SocketAddr, String> {
    if let Ok(port) = value.parse::<u16>() {
        return Ok(SocketAddr::from((Ipv4Addr::LOCALHOST, port)));
    }
    value.parse().map_err(|_| {
        format!(
            "`{value}` is not an address: give IP:PORT (e.g. 127.0.0.1:9000) or a port; a host name such as localhost is not resolved"
        )
    })
}

/// Whether a word after `--http` is meant as its address (not as a directory): an address or a
/// port, or something shaped like `host:port` (so a mistyped address is an error, not a directory).
fn looks_like_http_addr(word: &str) -> bool {
    if word.contains('/') {
        return false;
    }
    if parse_http_addr(word).is_ok() {
        return true;
    }
    word.rsplit_once(':').is_some_and(|(host, port)| {
        !host.is_empty() && !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit())
    })
}

/// Makes `--http DIR` mean "HTTP on the default address, serving DIR": clap's optional value would
/// take `DIR` as the address. A word after a bare `--http` that does not look like an address
/// (see [`looks_like_http_addr`]) stays in its place as a positional argument, and `--http`
/// becomes `--http=DEFAULT`, so the order of the directories is kept. Nothing after `--` changes
/// (a proxied command's own arguments).
pub fn normalize_http_args(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let args: Vec<OsString> = args.into_iter().collect();
    let mut out = Vec::with_capacity(args.len());
    let mut rest = args.into_iter().peekable();
    while let Some(arg) = rest.next() {
        if arg == "--" {
            out.push(arg);
            out.extend(rest);
            break;
        }
        let bare_flag = arg == "--http";
        out.push(arg);
        if !bare_flag {
            continue;
        }
        let next_is_a_dir = rest.peek().is_some_and(|next| match next.to_str() {
            Some(word) => !word.starts_with('-') && !looks_like_http_addr(word),
            None => true,
        });
        if next_is_a_dir && let Some(flag) = out.last_mut() {
            *flag = OsString::from(format!("--http={DEFAULT_HTTP_ADDR}"));
        }
    }
    out
}

/// `--schema-profile`: its values, their help and their parsing, all from the registry
/// (`gemini_compat::profile::PROFILES`), shared by the server and the proxy.
pub fn schema_profile_parser() -> impl clap::builder::TypedValueParser<Value = SchemaProfile> {
    let choices = SchemaProfile::choices()
        .into_iter()
        .map(|(name, summary)| clap::builder::PossibleValue::new(name).help(summary));
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(choices).try_map(|name: String| {
        SchemaProfile::by_name(&name).ok_or_else(|| format!("unknown schema profile {name:?}"))
    })
}

/// Help text of `--schema-profile` (the values are listed by `--help` from the registry).
pub const SCHEMA_PROFILE_HELP: &str = "Tool schemas served to clients";

/// Serving streamable HTTP instead of stdio: the flags the server and the proxy share.
#[derive(Debug, Clone, Args)]
pub struct HttpListen {
    /// Serve streamable HTTP at http://ADDR/mcp instead of stdio (default address 127.0.0.1:8124;
    /// ADDR is IP:PORT or a port).
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = DEFAULT_HTTP_ADDR,
          value_parser = parse_http_addr)]
    pub http: Option<SocketAddr>,

    /// Require `Authorization: Bearer TOKEN` on every HTTP request (with --http).
    #[arg(
        long,
        value_name = "TOKEN",
        env = "FS_MCP_HTTP_TOKEN",
        hide_env_values = true
    )]
    pub http_token: Option<String>,
}

/// Serving options (the default command).
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Directories the tools may access (default: the current directory, replaced by the client's
    /// MCP roots if it has them). Relative paths given to tools resolve against the first one.
    /// They may follow --http: `--http ~/project`.
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

    /// Where to serve HTTP, if not stdio.
    #[command(flatten)]
    pub listen: HttpListen,

    /// Command that shows a proposed edit to the human, without a shell; {current} and {future}
    /// are replaced by the two files. Use "none" to launch nothing.
    #[arg(long, value_name = "COMMAND", default_value = fs_mcp_edit::DEFAULT_REVIEW_COMMAND)]
    pub review_command: String,

    /// Where the human reviews proposals: auto (a view in the chat when the client renders MCP
    /// Apps, else the client's own form, else the review command when installed, else a review
    /// page on 127.0.0.1), app, elicitation, command or page.
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

    /// Open MCP sessions allowed over HTTP at once; at the cap the longest-idle session is closed
    /// to make room for a new client (never one with a request running).
    #[arg(long, value_name = "N", default_value_t = 100)]
    pub http_max_sessions: usize,

    /// Seconds an HTTP session may go unused before it is closed (the client then initializes again).
    #[arg(long, value_name = "SECONDS", default_value_t = 300)]
    pub http_session_timeout: u64,

    /// Milliseconds an HTTP client (or the `ui` page) has to send a request's headers, also how
    /// long an idle connection stays open; a body gets three times as long (for tests; default 10 s).
    #[arg(long, value_name = "MS", default_value_t = 10_000, hide = true)]
    pub http_header_timeout_ms: u64,

    /// Keep a trigram index of the allowed directories' text files, so that repeated grep_content
    /// calls open only the files that may match (same answers as without it). Built in the
    /// background on the first grep_content and kept fresh with inotify (Linux); costs memory
    /// (docs/tools.md says how much).
    #[arg(long)]
    pub index: bool,

    /// Tool schemas served to clients (the values and their help come from the profile registry).
    #[arg(long, value_name = "PROFILE", default_value = "gemini", value_parser = schema_profile_parser(), help = SCHEMA_PROFILE_HELP)]
    pub schema_profile: SchemaProfile,

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
                    crate::render::edit::manual_instructions(&waiting.current, &waiting.future)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn normalized(args: &[&str]) -> Vec<String> {
        normalize_http_args(args.iter().map(OsString::from))
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect()
    }

    #[test]
    fn a_word_after_http_that_is_no_address_stays_a_directory() {
        let default = format!("--http={DEFAULT_HTTP_ADDR}");
        assert_eq!(
            normalized(&["fs", "--http", "/path/to/project"]),
            ["fs", &default, "/path/to/project"]
        );
        assert_eq!(
            normalized(&["fs", "--http", "project", "b"]),
            ["fs", &default, "project", "b"]
        );
        for kept in [
            &["fs", "--http", "127.0.0.1:9000", "/p"][..],
            &["fs", "--http", "9000"],
            &["fs", "--http", "localhost:9000"],
            &["fs", "--http", "[::1]:9000"],
            &["fs", "--http", "--all", "/p"],
            &["fs", "--http"],
            &["fs", "--http-token", "/p"],
            &["fs", "proxy", "--", "fs", "--http", "/p"],
        ] {
            assert_eq!(normalized(kept), kept.to_vec(), "{kept:?}");
        }
    }

    #[test]
    fn an_http_address_is_ip_and_port_or_a_port() {
        assert_eq!(
            parse_http_addr("9000").unwrap(),
            "127.0.0.1:9000".parse::<SocketAddr>().unwrap()
        );
        assert!(parse_http_addr("[::1]:80").is_ok());
        let refused = parse_http_addr("localhost:9000").unwrap_err();
        assert!(refused.contains("IP:PORT"), "{refused}");
    }
}
