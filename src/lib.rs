//! fs-mcp-rs: the MCP wiring. Tool logic lives in the `fs-mcp-*` crates; this crate turns it into
//! MCP tools, serves them over stdio or streamable HTTP, and owns the CLI.

// The sandbox works on Unix directory handles (openat, flock, renameat2) and the query worker on
// Unix process limits: say so at build time rather than fail obscurely.
#[cfg(not(unix))]
compile_error!("fs-mcp-rs is Unix-only (Linux, macOS, the BSDs); on Windows, run it inside WSL.");

pub mod app;
pub mod cli;
pub mod client_log;
pub mod context;
pub mod docs;
pub mod flags;
pub mod http;
pub mod index;
pub mod lenient;
pub mod memory;
pub mod params;
pub mod protocol;
pub mod proxy;
pub mod render;
pub mod review_page;
pub mod roots;
pub mod schema_cli;
pub mod schemas;
pub mod server;
pub mod setup;
pub mod signal;
pub mod start;
pub mod stdio;
pub mod tools;
pub mod ui;

pub use context::{FsServer, ReadLimits, ServerOptions, Tier};
