//! The crate's modules depend on each other one way only: no module circle.
//!
//! Reads `src/**/*.rs` (a file in `src/m/` belongs to module `m`), takes
//! every `crate::…` path outside comments (tests included) as an arrow from that module to the named one, and fails on a
//! circle, naming it. The root declares every module, so a path through it
//! (`crate::Limits`) is an arrow back up and makes a circle too.

// Test code: a panic is how a test reports failure, and clippy's allow-unwrap-in-tests
// does not reach helpers outside #[test] functions.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Module name → the modules it uses (`lib` for the crate root).
fn arrows() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    // (module, file): `src/run/properties.rs` belongs to `run`
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    let mut dirs = vec![(None::<String>, src.clone())];
    while let Some((owner, dir)) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("source dir") {
            let path = entry.expect("dir entry").path();
            let stem = path
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let module = owner.clone().unwrap_or_else(|| stem.clone());
            if path.is_dir() {
                dirs.push((Some(module), path));
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push((module, path));
            }
        }
    }
    files.sort();
    let modules: BTreeSet<String> = files.iter().map(|(m, _)| m.clone()).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (name, path) in &files {
        let text = std::fs::read_to_string(path).expect("source file");
        let uses: &mut BTreeSet<String> = graph.entry(name.clone()).or_default();
        for line in text.lines() {
            let code = line.split("//").next().unwrap_or("");
            for (i, _) in code.match_indices("crate::") {
                let rest = &code[i + "crate::".len()..];
                let names: Vec<&str> = match rest.strip_prefix('{') {
                    // `crate::{a, b::C}`
                    Some(group) => group
                        .split('}')
                        .next()
                        .unwrap_or("")
                        .split(',')
                        .map(|n| n.trim().split("::").next().unwrap_or(""))
                        .collect(),
                    None => vec![
                        rest.split(|c: char| !c.is_alphanumeric() && c != '_')
                            .next()
                            .unwrap_or(""),
                    ],
                };
                for n in names.into_iter().filter(|n| !n.is_empty()) {
                    let target = if modules.contains(n) { n } else { "lib" };
                    if target != name.as_str() {
                        uses.insert(target.to_string());
                    }
                }
            }
        }
    }
    // the root declares every module (and so may use any of them)
    let root = modules.iter().filter(|m| *m != "lib").cloned().collect();
    graph.insert("lib".to_string(), root);
    graph
}

/// A circle through `graph`, if there is one.
fn circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|n| n == node) {
            let mut found = stack[at..].to_vec();
            found.push(node.to_string());
            return Some(found);
        }
        if done.contains(node) {
            return None;
        }
        stack.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, graph, stack, done) {
                return Some(found);
            }
        }
        stack.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}

#[test]
fn no_module_circle() {
    let graph = arrows();
    for (module, uses) in &graph {
        let list: Vec<&str> = uses.iter().map(String::as_str).collect();
        println!("{module} -> {}", list.join(", "));
    }
    assert!(graph.len() > 10, "found the modules: {graph:?}");
    assert!(
        graph["plan"].contains("demand"),
        "arrows are found: {graph:?}"
    );
    if let Some(found) = circle(&graph) {
        panic!("module circle: {}", found.join(" -> "));
    }
}

#[test]
fn the_circle_finder_finds_circles() {
    let mut graph = BTreeMap::new();
    let edge = |from: &str, to: &[&str]| {
        (
            from.to_string(),
            to.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>(),
        )
    };
    graph.extend([edge("a", &["b"]), edge("b", &["c"]), edge("c", &[])]);
    assert_eq!(circle(&graph), None);
    graph.extend([edge("c", &["a"])]);
    assert_eq!(
        circle(&graph),
        Some(["a", "b", "c", "a"].map(String::from).to_vec())
    );
}
