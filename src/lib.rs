//! fs-mcp-rs: the MCP wiring. Tool logic lives in the `fs-mcp-*` crates; this crate turns it into
//! MCP tools, serves them over stdio or streamable HTTP, and owns the CLI.

pub mod cli;
pub mod http;
pub mod lenient;
pub mod params;
pub mod proxy;
pub mod roots;
pub mod schema_cli;
pub mod schemas;
pub mod server;
pub mod tools;

pub use server::{FsServer, ServerOptions, Tier};
