//! The generated parts of docs/tools.md (each tool's parameter table), README.md (the tool
//! table) and docs/GEMINI_SCHEMA_COMPAT.md (the schema profile table) match the router and the
//! profile registry: a changed parameter, description, default, tier or profile fails here until
//! `cargo xtask docs` is run.

use gemini_compat::{PROFILES, Profile};

fn read(file: &str) -> String {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).unwrap()
}

fn check(file: &str, regenerate: impl Fn(&str) -> Result<String, String>) {
    if let Some(drift) = drift(file, regenerate) {
        panic!("{drift}");
    }
}

/// Where `file` differs from what `regenerate` makes of it, if it does.
fn drift(file: &str, regenerate: impl Fn(&str) -> Result<String, String>) -> Option<String> {
    let current = read(file);
    let generated = regenerate(&current).unwrap_or_else(|e| panic!("{file}: {e}"));
    if generated != current {
        let (line, (want, have)) = generated
            .lines()
            .zip(current.lines())
            .enumerate()
            .find(|(_, (a, b))| a != b)
            .unwrap_or((0, ("(a line more or less)", "")));
        return Some(format!(
            "{file} differs from the router at line {}:\n  generated:  {want}\n  checked in: {have}\nRun `cargo xtask docs` and commit the result.",
            line + 1
        ));
    }
    None
}

#[test]
fn docs_tools_md_parameter_tables_match_the_router() {
    check("docs/tools.md", fs_mcp_rs::docs::regenerate_tools_md);
}

#[test]
fn the_readme_tool_table_matches_the_router() {
    check("README.md", fs_mcp_rs::docs::regenerate_readme);
}

#[test]
fn a_tool_without_its_parameter_table_is_named() {
    let docs =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/tools.md")).unwrap();
    let marker = format!("{}query_yaml -->", fs_mcp_rs::docs::PARAMETERS);
    let without = docs.replace(&marker, "");
    let error = fs_mcp_rs::docs::regenerate_tools_md(&without).unwrap_err();
    assert!(
        error.contains("no parameter table for query_yaml"),
        "{error}"
    );
}

/// A declared parameter's "In detail" line is written from its declaration (a hand-edited
/// bound comes back as declared), and one without its line is named.
#[test]
fn a_declared_parameters_detail_line_is_generated_from_its_declaration() {
    let docs =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/tools.md")).unwrap();
    let line = "- `max_matches`: Global cap on matching lines shown (1–1000).";
    assert!(docs.contains(line), "docs/tools.md lost {line:?}");
    let edited = docs.replace(line, "- `max_matches`: Global cap (1–50).");
    let regenerated = fs_mcp_rs::docs::regenerate_tools_md(&edited).unwrap();
    assert_eq!(regenerated, docs);
    let without = docs.replace(&format!("{line}\n"), "");
    let error = fs_mcp_rs::docs::regenerate_tools_md(&without).unwrap_err();
    assert!(
        error.contains("no \"In detail\" line for grep_content's `max_matches`"),
        "{error}"
    );
}

#[test]
fn the_schema_profile_table_matches_the_registry() {
    check(
        "docs/GEMINI_SCHEMA_COMPAT.md",
        fs_mcp_rs::docs::regenerate_schema_compat_md,
    );
}

/// The check above can fail: a registry whose profile says something else of what it serves,
/// of how arguments come back, or of the clients `auto` gives it, no longer matches the table.
#[test]
fn a_changed_profile_description_is_drift() {
    fn served_otherwise() -> String {
        "something else".into()
    }
    let changes: [fn(&mut Profile); 3] = [
        |p| p.served = served_otherwise,
        |p| p.arguments_back = "differently",
        |p| p.auto_for_clients = &["another-client"],
    ];
    for (i, profile) in PROFILES.iter().enumerate() {
        for change in changes {
            let mut changed = Profile { ..**profile };
            change(&mut changed);
            if changed.auto_for_clients == profile.auto_for_clients
                && (changed.served)() == (profile.served)()
                && changed.arguments_back == profile.arguments_back
            {
                continue;
            }
            let mut registry: Vec<&Profile> = PROFILES.to_vec();
            registry[i] = &changed;
            let found = drift("docs/GEMINI_SCHEMA_COMPAT.md", |current| {
                fs_mcp_rs::docs::regenerate_schema_compat_md_with(current, &registry)
            });
            assert!(
                found.is_some(),
                "a change to {} went unnoticed",
                profile.name
            );
        }
    }
}
