//! The generated parts of docs/tools.md (each tool's parameter table) and README.md (the tool
//! table) match the router: a changed parameter, description, default or tier fails here until
//! `cargo xtask docs` is run.

fn check(file: &str, regenerate: fn(&str) -> Result<String, String>) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let current = std::fs::read_to_string(&path).unwrap();
    let generated = regenerate(&current).unwrap_or_else(|e| panic!("{file}: {e}"));
    if generated != current {
        let (line, (want, have)) = generated
            .lines()
            .zip(current.lines())
            .enumerate()
            .find(|(_, (a, b))| a != b)
            .unwrap_or((0, ("(a line more or less)", "")));
        panic!(
            "{file} differs from the router at line {}:\n  generated:  {want}\n  checked in: {have}\nRun `cargo xtask docs` and commit the result.",
            line + 1
        );
    }
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
