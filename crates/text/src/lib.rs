//! How text reads in every fs-mcp-rs tool's output, and which bytes count as text.
//!
//! - sizes and counts: [`format_size`] (`1.80 KB`), [`thousands`] (`1,234,567`);
//! - I/O errors in words: [`describe_io`] (`permission denied`);
//! - the characters output shows escaped, for names and file content alike:
//!   [`changes_what_a_reader_sees`];
//! - cutting long text short, at a character boundary and marked: [`truncate`];
//! - the one rule telling binary from text ([`is_binary`], [`as_text`], [`into_text`]) and the
//!   MIME type by extension or first bytes ([`mime_from_extension`], [`sniff_mime`]);
//! - what a client's regex may cost per byte, to bound its work: [`pattern_weight`],
//!   [`REGEX_WORK_PER_SEARCH`].
//!
//! A leaf crate (memchr, and regex-syntax to weigh a pattern), so that every tool crate (the sandbox, and query, which never
//! touches paths) can use it without depending on another tool crate. It knows nothing of
//! paths, files or MCP. Internal to fs-mcp-rs; its API may change in any release.

mod escape;
mod io;
mod mime;
mod regex_cost;
mod size;
mod sniff;
mod truncate;

pub use escape::changes_what_a_reader_sees;
pub use io::describe_io;
pub use mime::{mime_from_extension, sniff_mime};
pub use regex_cost::{REGEX_WORK_PER_SEARCH, pattern_weight};
pub use size::{format_size, thousands};
pub use sniff::{NotText, SNIFF_BYTES, as_text, into_text, is_binary};
pub use truncate::{Keep, Marker, truncate};
