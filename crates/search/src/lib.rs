//! Search and navigation for fs-mcp-rs, as plain Rust functions returning data. The crate knows
//! nothing of MCP and writes no sentence for the model: the binary words the answers, and names
//! the tools and parameters they point to (`src/render/`). Every client-supplied path goes
//! through [`Sandbox::resolve`](fs_mcp_sandbox::Sandbox::resolve) and every path shown goes
//! through [`Sandbox::display`](fs_mcp_sandbox::Sandbox::display), so the model can pass it back
//! as is.
//!
//! | Function | Tool | Answer |
//! |---|---|---|
//! | [`grep_content`] | `grep_content` | match blocks with context and section-end hints; its notes as data ([`GrepNote`]), worded by the caller's [`GrepWords`] |
//! | [`find_files`] | `search_files` | sorted paths matching a glob, and what was left out ([`FoundFiles`]) |
//! | [`tree`] | `directory_tree` | the tree ([`TreeNode`]) and what cut it ([`TreeCut`]) |
//! | [`list_entries`] | listings | a directory's entries ([`Listing`]) |
//! | [`file_info`], [`get_files_info`] | `get_file_info` | [`FileInfo`]: size, mtime, lines, tokens, a chunk plan, JSON/CSV preview |
//!
//! Errors are [`SearchError`]s whose `Display` says what went wrong (the binary adds the next
//! step). (`create_directory` is a write and lives in `fs-mcp-edit`; `read_media_file` is a read
//! and lives in `fs-mcp-read`.)
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
mod limits;
mod listing;
mod matched;
mod rules;
mod tree;
mod walk;

pub use error::SearchError;
pub use find::{
    FindOptions, FoundFiles, IndexedListing, LeftOut, ListingSource, find_files, find_files_with,
};
pub use grep::{
    CandidatePlan, GrepControl, GrepNote, GrepOptions, GrepWords, MAX_SEARCHED_LINE_BYTES,
    Progress, ProgressFn, Stopped, grep_content,
};
pub use info::{
    ChunkPlan, DataFormat, Details, DirEntries, FileInfo, FirstValue, InfoBatch, InfoItem,
    InfoOptions, JsonKeys, JsonPreview, JsonType, LIST_COLUMNS, LIST_KEYS, MAX_INFO_PATHS,
    NotDescribed, Preview, Reading, SAMPLE_BYTES, TextAnalysis, TextEnds, file_info,
    get_files_info,
};
pub use listing::{ListedEntry, Listing, list_entries};
pub use rules::UNSAFE_RULES_KINDS;
pub use tree::{Tree, TreeCut, TreeNode, TreeOptions, tree};
pub use walk::{
    EntryClass, Include, WalkObserver, WalkRules, WalkSkip, default_threads, is_ignore_file,
    walk_default,
};
