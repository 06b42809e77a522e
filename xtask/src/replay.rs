//! `cargo xtask replay record|check`: the recorded run of #33. A fixed script of a few hundred
//! MCP calls over a fixture workspace ([`script`]), answered by a server binary over stdio and
//! normalized; `record` writes the answers, `check` compares a binary's with a recording.
//! `tests/replay.rs` runs the same script against the current binary and compares it with
//! `tests/golden/replay.jsonl`.

pub mod script;

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, bail};

const USAGE: &str = "usage: cargo xtask replay record [--binary PATH] [--out FILE]
       cargo xtask replay check [--binary PATH] [--against FILE]
  PATH defaults to target/debug/fs-mcp-rs, FILE to tests/golden/replay.jsonl.";

pub fn run(args: &[String]) -> anyhow::Result<()> {
    let Some((command, rest)) = args.split_first() else {
        bail!("{USAGE}");
    };
    let root = crate::util::workspace_root();
    let mut binary = root.join("target/debug/fs-mcp-rs");
    let mut file = root.join("tests/golden/replay.jsonl");
    let mut rest = rest.iter();
    while let Some(flag) = rest.next() {
        let value = rest
            .next()
            .with_context(|| format!("{flag} needs a value\n{USAGE}"))?;
        match (command.as_str(), flag.as_str()) {
            (_, "--binary") => binary = PathBuf::from(value),
            ("record", "--out") | ("check", "--against") => file = PathBuf::from(value),
            _ => bail!("unknown option {flag}\n{USAGE}"),
        }
    }
    let started = Instant::now();
    let records = script::run(&binary).map_err(anyhow::Error::msg)?;
    let took = started.elapsed();
    match command.as_str() {
        "record" => {
            std::fs::write(&file, script::to_jsonl(&records))
                .with_context(|| format!("cannot write {}", file.display()))?;
            eprintln!(
                "replay: {} calls of {} recorded in {} ({took:.1?})",
                records.len(),
                binary.display(),
                file.display()
            );
            Ok(())
        }
        "check" => {
            let text = std::fs::read_to_string(&file)
                .with_context(|| format!("cannot read {}", file.display()))?;
            let recorded = script::parse_jsonl(&text).map_err(anyhow::Error::msg)?;
            let diffs = script::compare(&recorded, &records, usize::MAX);
            for diff in &diffs {
                println!("{diff}");
            }
            if diffs.is_empty() {
                eprintln!(
                    "replay: all {} answers of {} match {} ({took:.1?})",
                    records.len(),
                    binary.display(),
                    file.display()
                );
                Ok(())
            } else {
                bail!(
                    "{} of {} answers differ from {}",
                    diffs.len(),
                    records.len(),
                    file.display()
                )
            }
        }
        _ => bail!("{USAGE}"),
    }
}
