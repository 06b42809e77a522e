//! Search and navigation for fs-mcp-rs, as plain Rust functions returning the text (or data) a
//! tool answers with. The crate knows nothing of MCP; every client-supplied path goes through
//! [`Sandbox::resolve`](fs_mcp_sandbox::Sandbox::resolve) and every path shown goes through
//! [`Sandbox::display`](fs_mcp_sandbox::Sandbox::display), so the model can pass it back as is.
//!
//! | Function | Tool | Answer |
//! |---|---|---|
//! | [`grep_content`] / [`grep::search`] | `grep_content` | match blocks with context and section-end hints |
//! | [`search_files`] | `search_files` | sorted paths matching a glob |
//! | [`directory_tree`] | `directory_tree` | compact JSON tree |
//! | [`list_directory`], [`list_directory_with_sizes`] | listings | `[DIR] name` / `[FILE] name` lines |
//! | [`get_file_info`] | `get_file_info` | size, mtime, lines, tokens, chunking advice, JSON/CSV preview |
//! | [`create_directory`] | `create_directory` | `mkdir -p` |
//! | [`read_media`] | `read_media_file` | bytes + MIME type for image/audio content |
//!
//! Errors are [`SearchError`]s whose `Display` is the message for the model; answers that are
//! not errors (e.g. `No matches found.`) are `Ok` text.
//!
//! Directory walks (grep, search_files) use ripgrep's `ignore` crate: `.gitignore`/`.ignore` are
//! honoured even outside a git repository, hidden entries and VCS directories are skipped unless
//! asked for, and symlinks are never followed (see [`walk`]).

mod error;
pub mod find;
mod format;
pub mod grep;
pub mod hints;
pub mod info;
pub mod listing;
pub mod media;
pub mod mkdir;
pub mod tree;
pub mod walk;

pub use error::SearchError;
pub use find::{FindOptions, search_files};
pub use format::format_size;
pub use grep::{
    FileMatches, GrepControl, GrepLine, GrepOptions, GrepOutcome, Progress, ProgressFn, StopReason,
    grep_content,
};
pub use hints::SectionEnd;
pub use info::{InfoOptions, get_file_info};
pub use listing::{list_directory, list_directory_with_sizes};
pub use media::{MediaFile, MediaKind, read_media};
pub use mkdir::create_directory;
pub use tree::{TreeOptions, directory_tree};
pub use walk::WalkOptions;

#[cfg(test)]
pub(crate) mod testutil;
