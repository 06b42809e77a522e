//! The two release builds stay what Cargo.toml says they are: a from-source build (`release`)
//! compiles the glue at a lower opt-level, and the packaged binaries (`dist`) set every one of
//! those crates back to opt-level 3, so nothing users download is built below full optimisation.

use std::collections::BTreeMap;

/// `[profile.<profile>.package.<name>]` tables of Cargo.toml and the opt-level each sets.
fn package_opt_levels(manifest: &str, profile: &str) -> BTreeMap<String, String> {
    let prefix = format!("[profile.{profile}.package.");
    let mut levels = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            current = line
                .strip_prefix(&prefix)
                .and_then(|rest| rest.strip_suffix(']'))
                .map(|name| name.trim_matches('"').to_string());
        } else if let (Some(name), Some(value)) = (&current, line.strip_prefix("opt-level")) {
            let value = value.trim_start().trim_start_matches('=').trim();
            levels.insert(name.clone(), value.trim_matches('"').to_string());
        }
    }
    levels
}

fn manifest() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")).expect("Cargo.toml")
}

#[test]
fn the_packaged_binaries_set_every_lowered_crate_back_to_full_optimisation() {
    let manifest = manifest();
    let lowered = package_opt_levels(&manifest, "release");
    assert!(
        lowered.contains_key("fs-mcp-rs"),
        "the release profile's overrides were not found: {lowered:?}"
    );
    let dist = package_opt_levels(&manifest, "dist");
    let missing: Vec<&String> = lowered
        .keys()
        .filter(|name| dist.get(*name).map(String::as_str) != Some("3"))
        .collect();
    assert!(
        missing.is_empty(),
        "[profile.dist.package.<name>] opt-level = 3 is missing for {missing:?}: the packaged \
         binaries would inherit the from-source build's lower opt-level"
    );
}

#[test]
fn the_check_above_reads_overrides_as_cargo_does() {
    let sample = "[profile.release.package.a]\nopt-level = 1\n[profile.release.package.\"b\"]\n\
                  opt-level = \"s\"\n[profile.dist.package.a]\nopt-level = 3\n[dependencies]\n\
                  opt-level = 2\n";
    let release = package_opt_levels(sample, "release");
    assert_eq!(release.get("a").map(String::as_str), Some("1"));
    assert_eq!(release.get("b").map(String::as_str), Some("s"));
    assert_eq!(release.len(), 2);
    let dist = package_opt_levels(sample, "dist");
    assert_eq!(dist.len(), 1, "{dist:?}");
}
