//! `cargo xtask docs`: regenerates the parts of docs/tools.md (each tool's parameter table),
//! README.md (the tool table) and docs/GEMINI_SCHEMA_COMPAT.md (the schema profile table) that
//! come from the router and the profile registry, between their markers (`fs_mcp_rs::docs`).
//! `tests/generated_docs.rs` fails while they differ.

use std::path::Path;

use anyhow::{Context, bail};

/// Regenerates one file's generated parts from its current text.
type Regenerate = fn(&str) -> Result<String, String>;

pub fn run(args: &[String]) -> anyhow::Result<()> {
    if let Some(arg) = args.first() {
        bail!("unknown argument {arg}; usage: cargo xtask docs");
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .context("xtask is not inside the workspace")?;
    let files: [(&str, Regenerate); 3] = [
        ("docs/tools.md", fs_mcp_rs::docs::regenerate_tools_md),
        ("README.md", fs_mcp_rs::docs::regenerate_readme),
        (
            "docs/GEMINI_SCHEMA_COMPAT.md",
            fs_mcp_rs::docs::regenerate_schema_compat_md,
        ),
    ];
    for (file, regenerate) in files {
        let path = root.join(file);
        let current = std::fs::read_to_string(&path).with_context(|| format!("reading {file}"))?;
        let regenerated = regenerate(&current).map_err(|e| anyhow::anyhow!("{file}: {e}"))?;
        if regenerated == current {
            println!("{file}: up to date");
        } else {
            std::fs::write(&path, regenerated).with_context(|| format!("writing {file}"))?;
            println!("{file}: regenerated");
        }
    }
    Ok(())
}
