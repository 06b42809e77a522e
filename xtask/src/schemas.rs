//! `cargo xtask schemas`: prints each tool's raw schema and the transformed one side by side.

use anyhow::bail;
use fs_mcp_rs::Tier;

pub fn run(args: &[String]) -> anyhow::Result<()> {
    let mut only: Option<&str> = None;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--tool" => only = rest.next().map(String::as_str),
            other => bail!("unknown argument {other}; usage: cargo xtask schemas [--tool NAME]"),
        }
    }
    let reports = fs_mcp_rs::server::schema_reports(Tier::All);
    let mut shown = 0;
    for report in reports.iter().filter(|r| only.is_none_or(|n| n == r.name)) {
        shown += 1;
        println!("=== {} ===", report.name);
        println!("--- raw input schema (schemars)");
        println!("{}", serde_json::to_string_pretty(&report.raw_input)?);
        println!("--- transformed input schema (what clients list)");
        println!(
            "{}",
            serde_json::to_string_pretty(&report.transformed_input)?
        );
        if let (Some(raw), Some(out)) = (&report.raw_output, &report.transformed_output) {
            println!("--- raw output schema");
            println!("{}", serde_json::to_string_pretty(raw)?);
            println!("--- transformed output schema");
            println!("{}", serde_json::to_string_pretty(out)?);
        }
        println!(
            "--- changes ({})",
            report.input_changes.len() + report.output_changes.len()
        );
        for change in report.input_changes.iter().chain(&report.output_changes) {
            println!(
                "  {} {} {}",
                change.rule,
                pointer_or_root(&change.path),
                change.message
            );
        }
        println!();
    }
    if shown == 0 {
        let names: Vec<&str> = reports.iter().map(|r| r.name.as_str()).collect();
        bail!(
            "no tool named {:?}; tools: {}",
            only.unwrap_or(""),
            names.join(", ")
        );
    }
    Ok(())
}

fn pointer_or_root(path: &str) -> &str {
    if path.is_empty() { "(root)" } else { path }
}
