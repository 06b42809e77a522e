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
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    // Dynamically linked glibc targets only: a static build (musl, `+crt-static`) is linked
    // `-static-pie` by rustc, which `-no-pie` would contradict.
    let dynamic_glibc = var("CARGO_CFG_TARGET_OS") == "linux"
        && var("CARGO_CFG_TARGET_ENV") == "gnu"
        && !var("CARGO_CFG_TARGET_FEATURE")
            .split(',')
            .any(|f| f == "crt-static");
    if dynamic_glibc {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
