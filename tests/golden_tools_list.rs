//! The `tools/list` answer of the real binary, byte for byte, against golden files: any change to
//! a tool's name, description, schema or annotations fails here until it is made on purpose.
//!
//! To accept a deliberate change, regenerate the files and review the diff before committing:
//!
//! ```text
//! UPDATE_GOLDEN=1 cargo test --test integration golden_tools_list::
//! git diff tests/golden/
//! ```

use crate::common;

use common::Workspace;
use serde_json::Value;

/// Stands for the workspace's temporary path, which differs on every run.
const ROOT_PLACEHOLDER: &str = "<WORKSPACE>";

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
    let what = if args.is_empty() {
        "tools/list (core tier)".to_string()
    } else {
        format!("tools/list ({})", args.join(" "))
    };
    common::assert_golden(name, &actual, &what, "golden_tools_list");
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
