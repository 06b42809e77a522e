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
use serde::de::{self, Deserializer};
use serde_json::Value;

use crate::lenient;
use crate::params::lean_schema;
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
#[schemars(transform = lean_schema)]
pub struct GrepContentParams {
    /// Rust regex, e.g. "fn main|TODO".
    pub pattern: String,
    #[serde(default = "dot")]
    pub search_path: String,
    #[serde(default, deserialize_with = "lenient::bool_or_default")]
    pub case_insensitive: bool,
    /// Default 2, at most 20.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub context_lines: Option<i64>,
    /// Section-start regexes (default: built-in per language; [] none). L{m} is then the last line of the block before the next one: end_line = m reads the block.
    #[serde(default)]
    pub section_patterns: Option<Vec<String>>,
    /// Default 100, at most 1000.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub max_matches: Option<i64>,
    #[serde(default, deserialize_with = "lenient::bool_or_default")]
    pub include_ignored: bool,
    #[serde(default, deserialize_with = "lenient::bool_or_default")]
    pub include_hidden: bool,
    /// Seconds. Default 30, at most 300.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub timeout: Option<i64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = lean_schema)]
pub struct SearchFilesParams {
    #[serde(default = "dot")]
    pub path: String,
    pub pattern: String,
    #[serde(default, deserialize_with = "lenient::bool_or_default")]
    pub include_hidden: bool,
    #[serde(default, deserialize_with = "lenient::bool_or_default")]
    pub include_ignored: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[schemars(transform = lean_schema)]
pub struct DirectoryTreeParams {
    #[serde(default = "dot")]
    pub path: String,
    /// Default 4.
    #[serde(default, deserialize_with = "lenient::opt_i64")]
    pub max_depth: Option<i64>,
    /// Names not to expand (default .git, node_modules, target…; [] none).
    #[serde(default)]
    pub exclude_dirs: Option<Vec<String>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct PathParams {
    pub path: String,
}

// `get_file_info`'s files: `path`, `paths`, or both (`path` first).
#[derive(Debug, Deserialize, JsonSchema)]
pub struct FileInfoParams {
    #[serde(default)]
    pub path: Option<String>,
    /// Several files, at most 20.
    #[serde(default, deserialize_with = "path_list")]
    pub paths: Option<Vec<String>>,
}

/// `paths` as a list, a lone string, or a JSON string holding the list (see [`lenient::list_of`]).
fn path_list<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(v) => lenient::list_of(v).map(Some).map_err(de::Error::custom),
    }
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
        description = "Regex search of file contents (ripgrep; skips .gitignored, hidden and binary files). For a match at line n with 'section end hint: L{m}', read_files start_line n, end_line m reads its block.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn grep_content(
        &self,
        Parameters(p): Parameters<GrepContentParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let (sandbox, index) = (self.sandbox(), self.search_index());
        let mut options = GrepOptions::new(p.pattern);
        options.search_path = p.search_path;
        options.case_insensitive = p.case_insensitive;
        options.context_lines = bounded(
            p.context_lines,
            GrepOptions::DEFAULT_CONTEXT_LINES as i64,
            0,
            MAX_CONTEXT_LINES,
        ) as usize;
        options.section_patterns = p.section_patterns;
        options.max_matches = bounded(
            p.max_matches,
            GrepOptions::DEFAULT_MAX_MATCHES as i64,
            1,
            MAX_MATCHES_LIMIT,
        ) as usize;
        options.include_ignored = p.include_ignored;
        options.include_hidden = p.include_hidden;
        options.timeout = Duration::from_secs(bounded(
            p.timeout,
            GrepOptions::DEFAULT_TIMEOUT.as_secs() as i64,
            1,
            MAX_TIMEOUT_SECS,
        ) as u64);

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
            let plan = index.and_then(|index| index.plan(&sandbox, &options));
            let control = GrepControl {
                cancel: Some(&cancel),
                progress,
                candidates: plan.as_ref().and_then(|p| p.candidates()),
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
        description = "Find files by glob: \"*.rs\" at any depth; with \"/\" it matches the path relative to `path` (\"src/**/test_*.py\"). Results are relative to the first allowed directory. Skips .gitignored and hidden files (counted at the end).",
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
        description = "Directory tree as compact JSON {name, type, children}; VCS and build directories \"excluded\", max_depth cuts \"truncated\".",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn directory_tree(
        &self,
        Parameters(p): Parameters<DirectoryTreeParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let sandbox = self.sandbox();
        let options = TreeOptions {
            max_depth: bounded(p.max_depth, TreeOptions::DEFAULT_MAX_DEPTH as i64, 0, 64) as usize,
            exclude_dirs: p.exclude_dirs,
            ..TreeOptions::default()
        };
        let body =
            blocking(move || fs_mcp_search::directory_tree(&sandbox, &p.path, &options)).await?;
        Ok(answer(body))
    }

    #[tool(
        description = "A directory's entries as '[DIR] name' and '[FILE] name' lines, directories first.",
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
        description = "A directory's entries with sizes and totals, directories first.",
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
        description = "Size, mtime, lines, tokens and chunked-read advice per file; JSON keys, CSV columns.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn get_file_info(
        &self,
        Parameters(p): Parameters<FileInfoParams>,
    ) -> Result<CallToolResult, ErrorData> {
        let paths: Vec<String> = p
            .path
            .into_iter()
            .chain(p.paths.unwrap_or_default())
            .collect();
        let sandbox = self.sandbox();
        match <[String; 1]>::try_from(paths) {
            // One file: its answer, or its error as the call's.
            Ok([path]) => {
                let body = blocking(move || {
                    fs_mcp_search::get_file_info(&sandbox, &path, &InfoOptions::default())
                })
                .await?;
                Ok(answer(body))
            }
            Err(paths) if paths.is_empty() => Ok(failure(
                "Error: no file given. Call get_file_info with {\"path\": \"src/main.rs\"} or {\"paths\": [\"a.md\", \"b.md\"]}.",
            )),
            Err(paths) => {
                let batch = blocking(move || {
                    fs_mcp_search::get_files_info(&sandbox, &paths, &InfoOptions::default())
                })
                .await?;
                Ok(if batch.all_failed {
                    failure(batch.text)
                } else {
                    text(batch.text)
                })
            }
        }
    }

    #[tool(
        description = "Create a directory with any missing parents (mkdir -p).",
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
        description = "An image or audio file as image/audio content, at most 10 MB.",
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
