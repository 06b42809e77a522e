//! The integration tests, one binary (as ripgrep's tests/tests.rs): each module drives the real
//! `fs-mcp-rs` binary as a client does. One binary links rmcp, axum and reqwest once instead of
//! once per file, which cuts the debug build's disk and link time.
//!
//! Run one module with `cargo test --test integration read_files::`.

// Test code: a panic is how a test reports failure, and clippy's allow-unwrap-in-tests
// does not reach helpers outside #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

mod app_review;
mod build_profiles;
mod cli_forms;
mod confinement_edit;
mod confinement_read;
mod confinement_search;
mod conformance;
mod devices;
mod edit_errors;
mod edit_tools;
mod ergonomics;
mod error_format;
mod generated_docs;
mod golden_tools_list;
mod google_genai;
mod grep_index;
mod hard_links;
mod hostile_schemas;
mod http;
mod ignore_files_by_handle;
mod index_attack;
mod module_circles;
mod no_words;
mod protocol;
mod proxy;
mod proxy_depth;
mod proxy_hostile;
mod query_tools;
mod read_files;
mod readme_commands;
mod real_clients;
mod replay;
mod review_changesets;
mod review_channels;
mod review_replies;
mod roots;
mod sandbox;
mod schema_cli;
mod schema_profiles;
mod schema_profiles_http;
mod search_files_left_out;
mod search_tools;
mod shutdown;
mod stdio_server;
mod structured_content;
mod tool_selection;
mod tool_surface;
mod ui;
mod ui_limits;
mod ui_workspace_listing;
mod worklog;
mod worklog_bounds;
