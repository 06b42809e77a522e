//! Search and navigation for fs-mcp-rs, as plain Rust functions returning the text a tool
//! answers with. The crate knows nothing of MCP; every client-supplied path goes through
//! [`Sandbox::resolve`](fs_mcp_sandbox::Sandbox::resolve) and every path shown goes through
//! [`Sandbox::display`](fs_mcp_sandbox::Sandbox::display), so the model can pass it back as is.
//!
//! | Function | Tool | Answer |
//! |---|---|---|
//! | [`grep_content`] | `grep_content` | match blocks with context and section-end hints |
//! | [`search_files`] | `search_files` | sorted paths matching a glob |
//! | [`directory_tree`] | `directory_tree` | compact JSON tree |
//! | [`list_directory`], [`list_directory_with_sizes`] | listings | `[DIR] name` / `[FILE] name` lines |
//! | [`get_file_info`] | `get_file_info` | size, mtime, lines, tokens, chunking advice, JSON/CSV preview |
//!
//! Errors are [`SearchError`]s whose `Display` is the message for the model; answers that are
//! not errors (e.g. `No matches found.`) are `Ok` text. (`create_directory` is a write and lives
//! in `fs-mcp-edit`; `read_media_file` is a read and lives in `fs-mcp-read`.)
//!
//! Directory walks (grep, search_files) use ripgrep's `ignore` crate for the walk and its glob
//! matcher, fed with ignore files this crate reads by handle (the crate opens none itself):
//! `.gitignore`/`.ignore` are honoured even outside a git repository, hidden entries and VCS
//! directories are skipped unless asked for, and symlinks are never followed.
//!
//! The modules are private; what the server and its tests use is re-exported below, and nothing
//! else is public.

mod error;
mod find;
mod format;
mod grep;
mod hints;
mod info;
mod listing;
mod matched;
mod rules;
mod tree;
mod walk;

pub use error::SearchError;
pub use find::{
    FindOptions, FoundFiles, IndexedListing, ListingSource, find_files, find_files_with,
    search_files,
};
pub use grep::{
    CandidatePlan, GrepControl, GrepNote, GrepOptions, GrepWords, MAX_SEARCHED_LINE_BYTES,
    Progress, ProgressFn, Stopped, grep_content,
};
pub use info::{
    FileInfo, InfoBatch, InfoItem, InfoOptions, MAX_INFO_PATHS, NextTools, file_info,
    get_file_info, get_files_info,
};
pub use listing::{ListedEntry, Listing, list_directory, list_directory_with_sizes, list_entries};
pub use tree::{TreeNode, TreeOptions, directory_tree, tree};
pub use walk::{
    EntryClass, WalkObserver, WalkRules, default_threads, is_ignore_file, walk_default,
};

#[cfg(test)]
pub(crate) mod testutil;
