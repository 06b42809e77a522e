//! google-genai (the Python SDK Gemini users call MCP servers from) accepts every schema we serve:
//! our server's tools in every tier and profile, and `fs-mcp-rs proxy` in front of a pydantic
//! server and of a server whose raw schemas break converters. tests/clients/genai_accepts.py runs
//! the SDK's own MCP conversion on each tool.
//!
//! google-genai is installed into `target/clients/venv` by `cargo xtask clients install` (and so
//! by `cargo xtask test`). Under `FS_MCP_REQUIRE_CLIENTS=1` (CI) a missing SDK fails the test; a
//! plain `cargo test` skips it with a note.

use crate::common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{StdioClient, Workspace};
use serde_json::{Map, Value, json};

const CHECKER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/clients/genai_accepts.py"
);
const PYDANTIC_SERVER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/pydantic_server.py"
);
const TRICKY_SERVER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/tricky_server.py"
);

/// The venv's python, when google-genai is installed in it.
fn python_with_genai() -> Option<PathBuf> {
    let dir = std::env::var_os("FS_MCP_CLIENTS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/clients"));
    let python = dir.join("venv/bin/python");
    let installed = python.exists()
        && Command::new(&python)
            .args(["-c", "import google.genai, mcp"])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
    if installed {
        return Some(python);
    }
    if std::env::var("FS_MCP_REQUIRE_CLIENTS").as_deref() == Ok("1") {
        panic!(
            "google-genai or the MCP SDK is missing under {}: run `cargo xtask clients install`",
            dir.display()
        );
    }
    eprintln!("skipping: google-genai is not installed (run `cargo xtask clients install`)");
    None
}

/// One finding of the checker.
struct Verdict {
    label: String,
    tool: String,
    mcp_path: Option<String>,
    json_schema_path: Option<String>,
}

fn check(python: &Path, listings: &Map<String, Value>) -> Vec<Verdict> {
    let mut child = Command::new(python)
        .arg(CHECKER)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start genai_accepts.py");
    let input = Value::Object(listings.clone()).to_string();
    child
        .stdin
        .take()
        .expect("piped stdin")
        .write_all(input.as_bytes())
        .expect("write listings");
    let output = child.wait_with_output().expect("genai_accepts.py output");
    assert!(output.status.success(), "genai_accepts.py failed");
    let report: Value = serde_json::from_slice(&output.stdout).expect("the checker prints JSON");
    let results = report["results"].as_array().expect("results").clone();
    let expected: usize = listings
        .values()
        .map(|tools| tools.as_array().map_or(0, Vec::len))
        .sum();
    assert_eq!(results.len(), expected, "one verdict per tool");
    results
        .iter()
        .map(|r| Verdict {
            label: r["label"].as_str().unwrap_or_default().to_string(),
            tool: r["tool"].as_str().unwrap_or_default().to_string(),
            mcp_path: r["mcp_path"].as_str().map(str::to_string),
            json_schema_path: r["json_schema_path"].as_str().map(str::to_string),
        })
        .collect()
}

fn server_listing(ws: &Workspace, args: &[&str]) -> Value {
    Value::Array(ws.start(args).list_tools())
}

fn proxy_listing(cwd: &Path, python: &Path, server: &str, profile: &str) -> Value {
    let python = python.to_str().expect("utf8 path");
    let mut client = StdioClient::start(
        cwd,
        &["proxy", "--schema-profile", profile, "--", python, server],
    );
    Value::Array(client.list_tools())
}

#[test]
fn google_genai_accepts_every_served_schema() {
    let Some(python) = python_with_genai() else {
        return;
    };
    let ws = Workspace::new();
    let mut listings = Map::new();
    for profile in ["gemini", "openai-strict"] {
        for (tier, extra) in [("core", None), ("all", Some("--all"))] {
            let mut args = vec!["--schema-profile", profile];
            args.extend(extra);
            listings.insert(
                format!("server {tier} {profile}"),
                server_listing(&ws, &args),
            );
        }
        for (name, server) in [("pydantic", PYDANTIC_SERVER), ("tricky", TRICKY_SERVER)] {
            listings.insert(
                format!("proxy {name} {profile}"),
                proxy_listing(&ws.base, &python, server, profile),
            );
        }
    }
    // The checker must be able to say no: a boolean additionalProperties crashes the SDK's MCP
    // conversion (what the transform removes).
    listings.insert(
        "control".into(),
        json!([{"name": "raw", "description": "d", "inputSchema":
            {"type": "object", "properties": {"m": {"type": "object", "additionalProperties": true}}}}]),
    );

    let verdicts = check(&python, &listings);
    let mut refused = Vec::new();
    for v in &verdicts {
        if v.label == "control" {
            assert!(
                v.mcp_path.is_some(),
                "the control schema should be refused by google-genai's MCP conversion"
            );
            continue;
        }
        if let Some(e) = &v.json_schema_path {
            refused.push(format!(
                "{} / {}: parameters_json_schema: {e}",
                v.label, v.tool
            ));
        }
        // openai-strict's `additionalProperties: false` is what OpenAI demands and what this
        // conversion cannot read: `auto` never serves it to a Gemini client (see
        // docs/GEMINI_SCHEMA_COMPAT.md); the pass-through path above must still accept it.
        if !v.label.ends_with("openai-strict")
            && let Some(e) = &v.mcp_path
        {
            refused.push(format!("{} / {}: MCP conversion: {e}", v.label, v.tool));
        }
    }
    assert!(
        refused.is_empty(),
        "google-genai refused served schemas:\n{}",
        refused.join("\n")
    );
    // Every listing had tools (an empty one would pass vacuously).
    for (label, tools) in &listings {
        assert!(
            tools.as_array().is_some_and(|t| !t.is_empty()),
            "{label}: no tools listed"
        );
    }
}
