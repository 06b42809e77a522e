//! Search and navigation: grep_content, search_files, directory_tree, listings, file info,
//! create_directory and read_media_file.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use base64::Engine;
use fs_mcp_read::MediaKind;
use fs_mcp_search::{
    FindOptions, GrepControl, GrepOptions, InfoOptions, Progress, ProgressFn, SearchError,
    TreeOptions,
};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, ProgressNotificationParam};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, tool, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::lenient;
use crate::server::FsServer;
use crate::tools::{blocking, failure, text};

/// Bounds on what a client may ask for, so one call cannot hold the server for long.
const MAX_MATCHES_LIMIT: i64 = 1000;
const MAX_TIMEOUT_SECS: i64 = 300;
const MAX_CONTEXT_LINES: i64 = 20;
const MEDIA_LIMIT_BYTES: u64 = 10 * 1024 * 1024;

fn dot() -> String {
    ".".to_string()
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct GrepContentParams {
    /// Regex to search for (ripgrep / Rust regex syntax), e.g. "fn main", "class \\w+Error", "TODO|FIXME". A pattern starting with "-" is fine.
    pub pattern: String,
    /// File or directory to search, relative to the first allowed directory. Default ".".
    #[serde(default = "dot")]
    pub search_path: String,
    /// Match case-insensitively. Default false.
    #[serde(default, deserialize_with = "lenient::bool_or_default")]
    pub case_insensitive: bool,
    /// Lines of context shown before and after each match. Default 2.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub context_lines: Option<i64>,
    /// Regexes of lines that start a section, for the section end hints. Leave out for the built-in ones per language (functions, classes, headings, top-level keys); [] turns hints off. With custom patterns the hint L{m} is the last line of the block: the line before the next line matching one of them after the match (blank lines before that line not counted), or EOF; so read_files with end_line = m reads the block.
    #[serde(default)]
    pub section_patterns: Option<Vec<String>>,
    /// Most matching lines to show (all files together). Default 100.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub max_matches: Option<i64>,
    /// Also search files that .gitignore/.ignore exclude. Default false.
    #[serde(default, deserialize_with = "lenient::bool_or_default")]
    pub include_ignored: bool,
    /// Also search hidden files and directories. Default false.
    #[serde(default, deserialize_with = "lenient::bool_or_default")]
    pub include_hidden: bool,
    /// Seconds before the search stops and returns what it found. Default 30.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub timeout: Option<i64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchFilesParams {
    /// Directory to search in, relative to the first allowed directory. Default ".".
    #[serde(default = "dot")]
    pub path: String,
    /// Glob. Without "/" it matches file names at any depth ("*.rs", "Cargo.toml"); with "/" or "**" it matches the path relative to `path` (path "web" with "src/*.ts" finds web/src/index.ts). Results are shown relative to the first allowed directory, like every other path.
    pub pattern: String,
    /// Also match hidden files. Default false.
    #[serde(default, deserialize_with = "lenient::bool_or_default")]
    pub include_hidden: bool,
    /// Also match files that .gitignore/.ignore exclude. Default false.
    #[serde(default, deserialize_with = "lenient::bool_or_default")]
    pub include_ignored: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DirectoryTreeParams {
    /// Directory to show, relative to the first allowed directory. Default ".".
    #[serde(default = "dot")]
    pub path: String,
    /// Levels below `path` to show. Default 4.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub max_depth: Option<i64>,
    /// Directory names to leave out. Leave out for the defaults (.git, node_modules, target, .venv, __pycache__, .pytest_cache, dist, build); [] shows everything.
    #[serde(default)]
    pub exclude_dirs: Option<Vec<String>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct PathParams {
    /// Path, relative to the first allowed directory or absolute inside an allowed directory.
    pub path: String,
}

/// A search answer, or the error the model reads.
fn answer(result: Result<String, SearchError>) -> CallToolResult {
    match result {
        Ok(body) => text(body),
        Err(e) => failure(e.to_string()),
    }
}

fn bounded(value: Option<i64>, default: i64, min: i64, max: i64) -> i64 {
    value.unwrap_or(default).clamp(min, max)
}

#[tool_router(router = search_tools, vis = "pub(crate)")]
impl FsServer {
    #[tool(
        description = "Search file contents with a regex (ripgrep engine, in-process). Respects .gitignore, skips hidden and binary files.\n\
Each match: 'File: {path}, Line: {n} (section end hint: L{m})' and the lines around it ('n:' match, 'n-' context). The hint is the last line of the function/class/section the match is in, so you can read exactly that block next: read_files [{\"path\": ..., \"start_line\": n, \"end_line\": m}].\n\
At most max_matches (default 100) matching lines are shown, with a note of the total; narrow search_path or the pattern for more.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn grep_content(
        &self,
        Parameters(p): Parameters<GrepContentParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let sandbox = self.sandbox();
        let mut options = GrepOptions::new(p.pattern);
        options.search_path = p.search_path;
        options.case_insensitive = p.case_insensitive;
        options.context_lines = bounded(p.context_lines, 2, 0, MAX_CONTEXT_LINES) as usize;
        options.section_patterns = p.section_patterns;
        options.max_matches = bounded(p.max_matches, 100, 1, MAX_MATCHES_LIMIT) as usize;
        options.include_ignored = p.include_ignored;
        options.include_hidden = p.include_hidden;
        options.timeout = Duration::from_secs(bounded(p.timeout, 30, 1, MAX_TIMEOUT_SECS) as u64);

        // MCP cancellation stops the walk; the partial result is still returned.
        let cancel = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&cancel);
        let cancelled = context.ct.clone();
        let cancel_watch = tokio::spawn(async move {
            cancelled.cancelled().await;
            flag.store(true, Ordering::SeqCst);
        });
        let (progress, forwarding) = progress_forwarder(&context).unzip();
        let body = blocking(move || {
            let control = GrepControl {
                cancel: Some(&cancel),
                progress,
            };
            fs_mcp_search::grep_content(&sandbox, &options, &control)
        })
        .await;
        cancel_watch.abort();
        // The search is over, so the progress channel is closed: let the last notifications out
        // before the result, as clients expect.
        if let Some(forwarding) = forwarding {
            let _ = tokio::time::timeout(Duration::from_secs(2), forwarding).await;
        }
        Ok(answer(body?))
    }

    #[tool(
        description = "Find files by name or path glob (\"*.rs\", \"Cargo.toml\", \"src/**/test_*.py\"). A glob with \"/\" matches the path relative to `path`; the results are paths relative to the first allowed directory (as everywhere), sorted, ready for read_files, capped with a note. Respects .gitignore, skips hidden files and VCS directories; a last line after a blank line says how many were skipped and how to include them.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn search_files(
        &self,
        Parameters(p): Parameters<SearchFilesParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let sandbox = self.sandbox();
        let options = FindOptions {
            include_hidden: p.include_hidden,
            include_ignored: p.include_ignored,
            ..FindOptions::default()
        };
        let body =
            blocking(move || fs_mcp_search::search_files(&sandbox, &p.path, &p.pattern, &options))
                .await?;
        Ok(answer(body))
    }

    #[tool(
        description = "The directory structure as compact JSON ({name, type, children}), max_depth levels deep (default 4). Build output and VCS directories are listed but not expanded (\"excluded\": true); directories cut by max_depth are marked \"truncated\": true.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn directory_tree(
        &self,
        Parameters(p): Parameters<DirectoryTreeParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let sandbox = self.sandbox();
        let options = TreeOptions {
            max_depth: bounded(p.max_depth, 4, 0, 64) as usize,
            exclude_dirs: p.exclude_dirs,
            ..TreeOptions::default()
        };
        let body =
            blocking(move || fs_mcp_search::directory_tree(&sandbox, &p.path, &options)).await?;
        Ok(answer(body))
    }

    #[tool(
        description = "List a directory's entries as '[DIR] name' and '[FILE] name' lines, directories first.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn list_directory(
        &self,
        Parameters(p): Parameters<PathParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let sandbox = self.sandbox();
        let body = blocking(move || fs_mcp_search::list_directory(&sandbox, &p.path)).await?;
        Ok(answer(body))
    }

    #[tool(
        description = "List a directory's entries with their sizes ('[FILE] name  1.80 KB'), directories first, with totals.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn list_directory_with_sizes(
        &self,
        Parameters(p): Parameters<PathParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let sandbox = self.sandbox();
        let body =
            blocking(move || fs_mcp_search::list_directory_with_sizes(&sandbox, &p.path)).await?;
        Ok(answer(body))
    }

    #[tool(
        description = "Size, modification time, line count and token estimate of a file, with advice on how to read it in chunks, plus a structure preview for JSON (keys) and CSV (columns). Streams: safe on huge files.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn get_file_info(
        &self,
        Parameters(p): Parameters<PathParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let sandbox = self.sandbox();
        let body = blocking(move || {
            fs_mcp_search::get_file_info(&sandbox, &p.path, &InfoOptions::default())
        })
        .await?;
        Ok(answer(body))
    }

    #[tool(
        description = "Create a directory and any missing parents. An existing directory is fine.",
        annotations(
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn create_directory(
        &self,
        Parameters(p): Parameters<PathParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let sandbox = self.sandbox();
        let body = blocking(move || fs_mcp_edit::create_directory(&sandbox, &p.path)).await?;
        Ok(match body {
            Ok(body) => text(body),
            Err(e) => failure(e.to_string()),
        })
    }

    #[tool(
        description = "Read an image (png, jpg, gif, webp, svg, …) or audio file (mp3, wav, ogg, …) and return it as MCP image/audio content, up to 10 MB. For text files use read_files.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn read_media_file(
        &self,
        Parameters(p): Parameters<PathParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let sandbox = self.sandbox();
        let path = p.path.clone();
        let media =
            blocking(move || fs_mcp_read::read_media(&sandbox, &p.path, Some(MEDIA_LIMIT_BYTES)))
                .await?;
        let media = match media {
            Ok(media) => media,
            Err(message) => return Ok(failure(message)),
        };
        let data = base64::engine::general_purpose::STANDARD.encode(&media.data);
        let content = match media.kind {
            MediaKind::Image => ContentBlock::image(data, media.mime_type),
            MediaKind::Audio => ContentBlock::audio(data, media.mime_type),
            MediaKind::Text => {
                let shown = fs_mcp_sandbox::escape_os(path.as_ref());
                return Ok(failure(format!(
                    "{shown} is a text file ({}), not an image or audio file. Read it with read_files: {{\"files\": [{{\"path\": {}}}]}}.",
                    media.mime_type,
                    serde_json::Value::String(shown.to_string())
                )));
            }
            MediaKind::Other => {
                return Ok(failure(format!(
                    "{} is {}, not an image or audio file. Use get_file_info to inspect it, or read_files if it is text.",
                    fs_mcp_sandbox::escape_os(path.as_ref()),
                    media.mime_type
                )));
            }
        };
        Ok(CallToolResult::success(vec![content]))
    }
}

/// Turns the search's progress callbacks into MCP progress notifications when the client asked
/// for them (sent a progress token). The task ends once the callback is dropped.
fn progress_forwarder(
    context: &RequestContext<RoleServer>,
) -> Option<(ProgressFn, tokio::task::JoinHandle<()>)> {
    let token = context.meta.get_progress_token()?;
    let peer = context.peer.clone();
    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel::<Progress>();
    let forwarding = tokio::spawn(async move {
        while let Some(progress) = receiver.recv().await {
            let note =
                ProgressNotificationParam::new(token.clone(), progress.files_searched as f64)
                    .with_message(format!(
                        "{} files searched, {} matches",
                        progress.files_searched, progress.matches
                    ));
            if peer.notify_progress(note).await.is_err() {
                break;
            }
        }
    });
    let callback: ProgressFn = Arc::new(move |progress: Progress| {
        let _ = sender.send(progress);
    });
    Some((callback, forwarding))
}
