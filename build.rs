//! Links the `fs-mcp-rs` executable as a position-dependent executable on Linux.
//!
//! Why: as a PIE, the dynamic loader first applies ~32,000 relative relocations and copies
//! every page of `.data.rel.ro` they touch (~150 page faults) before `main` runs, on every
//! start: of the server, and of every `query_json`/`query_yaml` worker. That was the largest
//! single cost left between spawn and the `initialize` reply (`cargo xtask bench startup`).
//! The cost: the executable's own code and data load at a fixed address (ASLR still places
//! the stack, heap, shared libraries and thread stacks). Only the binaries get the flag; the
//! library and the tests are linked as before.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
