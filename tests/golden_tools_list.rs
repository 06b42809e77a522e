//! The `tools/list` answer of the real binary, byte for byte, against golden files: any change to
//! a tool's name, description, schema or annotations fails here until it is made on purpose.
//!
//! To accept a deliberate change, regenerate the files and review the diff before committing:
//!
//! ```text
//! UPDATE_GOLDEN=1 cargo test --test golden_tools_list
//! git diff tests/golden/
//! ```

mod common;

use std::path::{Path, PathBuf};

use common::Workspace;
use serde_json::Value;

/// Stands for the workspace's temporary path, which differs on every run.
const ROOT_PLACEHOLDER: &str = "<WORKSPACE>";

fn golden_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

/// The tools as the server lists them (in its order), pretty-printed, with the run's paths replaced.
fn listed(ws: &Workspace, args: &[&str]) -> String {
    let mut client = ws.start(args);
    let tools = Value::Array(client.list_tools());
    let text = serde_json::to_string_pretty(&tools).expect("JSON values always serialize");
    let root = ws.root.to_str().expect("utf8 path");
    let base = ws.base.to_str().expect("utf8 path");
    format!(
        "{}\n",
        text.replace(root, ROOT_PLACEHOLDER)
            .replace(base, ROOT_PLACEHOLDER)
    )
}

fn check(name: &str, args: &[&str]) {
    let ws = Workspace::new();
    let actual = listed(&ws, args);
    let path = golden_path(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().expect("golden dir")).expect("mkdir tests/golden");
        std::fs::write(&path, &actual).expect("write golden file");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {}: {e}\nGenerate it with: UPDATE_GOLDEN=1 cargo test --test golden_tools_list",
            path.display()
        )
    });
    if actual != expected {
        let first_difference = actual
            .lines()
            .zip(expected.lines())
            .enumerate()
            .find(|(_, (a, e))| a != e)
            .map(|(i, (a, e))| format!("line {}:\n  golden: {e}\n  actual: {a}", i + 1))
            .unwrap_or_else(|| "one output is a prefix of the other".to_string());
        panic!(
            "tools/list ({}) differs from {}; first difference at {first_difference}\n\
             If the change is deliberate: UPDATE_GOLDEN=1 cargo test --test golden_tools_list, then review git diff tests/golden/",
            if args.is_empty() {
                "core tier".to_string()
            } else {
                args.join(" ")
            },
            path.display()
        );
    }
}

#[test]
fn core_tier_tools_list_matches_golden() {
    check("tools_list_core.json", &[]);
}

#[test]
fn all_tier_tools_list_matches_golden() {
    check("tools_list_all.json", &["--all"]);
}

#[test]
fn openai_strict_tools_list_matches_golden() {
    check(
        "tools_list_all_openai_strict.json",
        &["--all", "--schema-profile", "openai-strict"],
    );
}
