//! The `fs-mcp-rs` binary. Everything it does is `fs_mcp_rs::start::main`, in the library (see
//! there why).

fn main() -> std::process::ExitCode {
    fs_mcp_rs::start::main()
}
