//! Arrows one way: no module of any crate of the workspace depends, through any chain of
//! imports, on itself.
//!
//! Each crate's `src/` is read as text (comments and string literals left out, tests included).
//! Every path that starts with `crate::`, `self::` or `super::` (in a `use` or in code, `{…}`
//! groups expanded) is an arrow from the file it is written in to the file of the deepest module
//! it names. A crate's root (`lib.rs`, or `main.rs` for a binary) declares every module, so a
//! path through it (`crate::FsServer`, a re-export) is an arrow back up and makes a circle too.
//! Two pictures must have no circle: the files, and the top-level modules (each folder of
//! `src/` taken as one).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module's path inside its crate: `[]` for the root, `["tools", "spec"]` for `tools::spec`.
type ModulePath = Vec<String>;

/// The crates of the workspace: (its name as shown, its root file).
fn crates() -> Vec<(String, PathBuf)> {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut roots = vec![
        ("fs-mcp-rs".to_string(), workspace.join("src/lib.rs")),
        ("xtask".to_string(), workspace.join("xtask/src/main.rs")),
    ];
    let mut members: Vec<PathBuf> = std::fs::read_dir(workspace.join("crates"))
        .expect("crates/")
        .map(|entry| entry.expect("crates/ entry").path())
        .collect();
    members.sort();
    for member in members {
        let name = member
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let lib = member.join("src/lib.rs");
        let main = member.join("src/main.rs");
        roots.push((name, if lib.exists() { lib } else { main }));
    }
    roots
}

/// Every module file under the root's folder, by module path. `a.rs` and `a/mod.rs` are module
/// `a`; a folder `a/` beside `a.rs` holds `a`'s submodules.
fn module_files(root: &Path) -> BTreeMap<ModulePath, PathBuf> {
    let src = root.parent().expect("root has a folder");
    let mut files = BTreeMap::new();
    files.insert(Vec::new(), root.to_path_buf());
    let mut dirs = vec![(Vec::<String>::new(), src.to_path_buf())];
    while let Some((module, dir)) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("source folder") {
            let path = entry.expect("folder entry").path();
            let stem = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            if path.is_dir() {
                let mut sub = module.clone();
                sub.push(stem);
                dirs.push((sub, path));
            } else if path.extension().is_some_and(|e| e == "rs") && path != root {
                // a second root of the same folder (a `main.rs` beside `lib.rs`) is another crate
                if module.is_empty() && (stem == "main" || stem == "lib") {
                    continue;
                }
                let mut name = module.clone();
                if stem != "mod" {
                    name.push(stem);
                }
                files.insert(name, path);
            }
        }
    }
    files
}

/// The code of a Rust file without its comments and the contents of its string and character
/// literals (a path in a doc comment or a message is no import).
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            '/' if next == Some('/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '/' if next == Some('*') => {
                let mut depth = 0;
                while i < chars.len() {
                    if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                        depth += 1;
                        i += 2;
                    } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
                out.push(' ');
            }
            'r' if !chars[..i]
                .last()
                .is_some_and(|p| p.is_alphanumeric() || *p == '_')
                && matches!(next, Some('"') | Some('#')) =>
            {
                // a raw string r"…" or r#"…"#
                let mut hashes = 0;
                let mut j = i + 1;
                while chars.get(j) == Some(&'#') {
                    hashes += 1;
                    j += 1;
                }
                if chars.get(j) != Some(&'"') {
                    out.push(c);
                    i += 1;
                    continue;
                }
                j += 1;
                'raw: while j < chars.len() {
                    if chars[j] == '"' && (1..=hashes).all(|k| chars.get(j + k) == Some(&'#')) {
                        j += 1 + hashes;
                        break 'raw;
                    }
                    j += 1;
                }
                out.push_str("\"\"");
                i = j;
            }
            '"' => {
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    i += if chars[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("\"\"");
            }
            '\'' => {
                // a character literal ('x', '\n', '\''), or a lifetime ('a) left as it is
                if next == Some('\\') {
                    i += 2;
                    while i < chars.len() && chars[i] != '\'' {
                        i += 1;
                    }
                    i += 1;
                    out.push_str("' '");
                } else if chars.get(i + 2) == Some(&'\'') {
                    i += 3;
                    out.push_str("' '");
                } else {
                    out.push(c);
                    i += 1;
                }
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// The paths of a `use` tree or a path expression at `at`: `a::{b, c::d}` gives `[a, b]` and
/// `[a, c, d]`.
fn path_tree(code: &[char], at: &mut usize) -> Vec<Vec<String>> {
    let skip_space = |at: &mut usize| {
        while code.get(*at).is_some_and(|c| c.is_whitespace()) {
            *at += 1;
        }
    };
    skip_space(at);
    match code.get(*at) {
        Some('{') => {
            *at += 1;
            let mut paths = Vec::new();
            loop {
                skip_space(at);
                match code.get(*at) {
                    None => break,
                    Some('}') => {
                        *at += 1;
                        break;
                    }
                    Some(',') => *at += 1,
                    Some(_) => {
                        let before = *at;
                        paths.extend(path_tree(code, at));
                        // an `as` alias, or anything not a path: go on to the next item
                        while code.get(*at).is_some_and(|c| *c != ',' && *c != '}') {
                            *at += 1;
                        }
                        if *at == before {
                            *at += 1;
                        }
                    }
                }
            }
            paths
        }
        Some(c) if c.is_alphanumeric() || *c == '_' => {
            let start = *at;
            while code
                .get(*at)
                .is_some_and(|c| c.is_alphanumeric() || *c == '_')
            {
                *at += 1;
            }
            let segment: String = code[start..*at].iter().collect();
            if code.get(*at) == Some(&':') && code.get(*at + 1) == Some(&':') {
                *at += 2;
                path_tree(code, at)
                    .into_iter()
                    .map(|mut path| {
                        path.insert(0, segment.clone());
                        path
                    })
                    .collect()
            } else {
                vec![vec![segment]]
            }
        }
        // `*` (the module itself), a turbofish, or the end of the path
        _ => vec![Vec::new()],
    }
}

/// The modules `file` (module `own`) names, resolved to the deepest module each path reaches.
fn arrows_of(
    own: &ModulePath,
    file: &Path,
    modules: &BTreeMap<ModulePath, PathBuf>,
) -> BTreeMap<ModulePath, String> {
    let text = std::fs::read_to_string(file).expect("source file");
    let code: Vec<char> = code_only(&text).chars().collect();
    let code_text: String = code.iter().collect();
    // Inside a file's `mod tests { … }`, `super` is the file itself.
    let tests_at = code_text
        .find("mod tests {")
        .map(|byte| code_text[..byte].chars().count())
        .unwrap_or(usize::MAX);
    let mut found = BTreeMap::new();
    let mut at = 0;
    while at < code.len() {
        let starts_word = at == 0 || !code[at - 1].is_alphanumeric() && code[at - 1] != '_';
        let head = ["crate::", "self::", "super::"].into_iter().find(|head| {
            starts_word
                && code[at..].iter().take(head.len()).copied().eq(head.chars())
                && !(code[..at].ends_with(&[':', ':']) && *head != "super::")
        });
        let Some(head) = head else {
            at += 1;
            continue;
        };
        let mut base: ModulePath = match head {
            "crate::" => Vec::new(),
            _ => own.clone(),
        };
        if head == "super::" && at < tests_at {
            base.pop();
        }
        let written_at = at;
        at += head.len();
        for path in path_tree(&code, &mut at) {
            let written = format!("{head}{}", path.join("::"));
            let mut module = base.clone();
            let mut segments = path.into_iter().peekable();
            // `super::super::x`
            while segments.peek().is_some_and(|s| s == "super") {
                module.pop();
                segments.next();
            }
            for segment in segments {
                let mut deeper = module.clone();
                deeper.push(segment);
                if modules.contains_key(&deeper) {
                    module = deeper;
                } else {
                    break;
                }
            }
            if &module != own {
                found.entry(module).or_insert(written);
            }
        }
        if at == written_at {
            at += 1;
        }
    }
    found
}

/// The circles of `graph`: each group of nodes that reach each other (a strongly connected
/// component of more than one node), in order.
fn circles_of<N: Ord + Clone>(graph: &BTreeMap<N, BTreeSet<N>>) -> Vec<Vec<N>> {
    let reach = |from: &N, graph: &BTreeMap<N, BTreeSet<N>>| -> BTreeSet<N> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.clone()];
        while let Some(node) = todo.pop() {
            for next in graph.get(&node).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let mut grouped = BTreeSet::new();
    let mut found = Vec::new();
    for node in graph.keys() {
        if grouped.contains(node) {
            continue;
        }
        let forward = reach(node, graph);
        if !forward.contains(node) {
            continue;
        }
        let group: Vec<N> = forward
            .into_iter()
            .filter(|other| reach(other, graph).contains(node))
            .collect();
        grouped.extend(group.iter().cloned());
        found.push(group);
    }
    found
}

/// One crate's arrows: file to file, and top-level module to top-level module.
struct Arrows {
    files: BTreeMap<PathBuf, BTreeSet<PathBuf>>,
    /// (from, to) -> the first path written that makes the arrow.
    why: BTreeMap<(PathBuf, PathBuf), String>,
    top: BTreeMap<String, BTreeSet<String>>,
}

fn arrows(root: &Path) -> Arrows {
    let modules = module_files(root);
    let top_of = |module: &ModulePath| module.first().cloned().unwrap_or_else(|| "(root)".into());
    let mut files: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    let mut top: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut why = BTreeMap::new();
    for (module, file) in &modules {
        // A `tests` module (`tests.rs` beside the root) is its parent's tests: its arrows are
        // its parent's, and its `super` (the parent) is no arrow.
        let node = match module.split_last() {
            Some((last, parent)) if last == "tests" => parent.to_vec(),
            _ => module.clone(),
        };
        let targets: BTreeMap<ModulePath, String> = arrows_of(module, file, &modules)
            .into_iter()
            .filter(|(target, _)| *target != node)
            .collect();
        let (module, file) = (&node, &modules[&node]);
        for (target, written) in &targets {
            files
                .entry(file.clone())
                .or_default()
                .insert(modules[target].clone());
            why.insert((file.clone(), modules[target].clone()), written.clone());
            if top_of(target) != top_of(module) {
                top.entry(top_of(module))
                    .or_default()
                    .insert(top_of(target));
            }
        }
        files.entry(file.clone()).or_default();
    }
    // The root declares every top-level module.
    for module in modules.keys().filter(|m| m.len() == 1 && m[0] != "tests") {
        files
            .entry(root.to_path_buf())
            .or_default()
            .insert(modules[module].clone());
        top.entry("(root)".into())
            .or_default()
            .insert(top_of(module));
    }
    Arrows { files, why, top }
}

fn shown(path: &Path) -> String {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"));
    path.strip_prefix(workspace)
        .unwrap_or(path)
        .display()
        .to_string()
}

#[test]
fn no_module_of_any_crate_depends_on_itself() {
    let mut found = Vec::new();
    let mut measured = 0;
    for (name, root) in crates() {
        let arrows = arrows(&root);
        measured += arrows.files.values().map(BTreeSet::len).sum::<usize>();
        for group in circles_of(&arrows.files) {
            let files: Vec<String> = group.iter().map(|p| shown(p)).collect();
            found.push(format!("{name}: files {}", files.join(", ")));
            for ((from, to), written) in &arrows.why {
                if group.contains(from) && group.contains(to) {
                    found.push(format!("    {} -> {}: {written}", shown(from), shown(to)));
                }
            }
        }
        for group in circles_of(&arrows.top) {
            found.push(format!("{name}: modules {}", group.join(", ")));
        }
    }
    assert!(
        measured > 300,
        "too few arrows found ({measured}): the reader is broken"
    );
    assert!(
        found.is_empty(),
        "module circles, each a group of modules that import each other (move what both sides \
         need below both, or pass it in):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_reader_finds_the_arrows_of_grouped_relative_and_nested_paths() {
    let dir = tempfile::tempdir().expect("temp dir");
    let src = dir.path();
    std::fs::create_dir_all(src.join("a")).expect("mkdir");
    std::fs::write(src.join("lib.rs"), "mod a; mod b; mod c;").expect("write");
    std::fs::write(
        src.join("a/mod.rs"),
        "use crate::{\n    b::Thing,\n    c::{self, Other as O},\n};\nmod x;",
    )
    .expect("write");
    std::fs::write(
        src.join("a/x.rs"),
        "// use crate::c;\nlet s = \"crate::c\"; super::y(); \n#[cfg(test)]\nmod tests {\n    use super::*;\n}",
    )
    .expect("write");
    std::fs::write(src.join("b.rs"), "fn f() { crate::c::g::<u8>(); }").expect("write");
    std::fs::write(
        src.join("c.rs"),
        "pub use crate::Root; fn r() -> char { '\"' }",
    )
    .expect("write");
    let arrows = arrows(&src.join("lib.rs"));
    let of = |file: &str| -> Vec<String> {
        arrows.files[&src.join(file)]
            .iter()
            .map(|p| p.strip_prefix(src).expect("inside").display().to_string())
            .collect()
    };
    assert_eq!(of("a/mod.rs"), ["b.rs", "c.rs"]);
    // the comment, the string and the test module's `super` (the file itself) are no arrows
    assert_eq!(of("a/x.rs"), ["a/mod.rs"]);
    assert_eq!(of("b.rs"), ["c.rs"]);
    assert_eq!(of("c.rs"), ["lib.rs"]);
    // c -> the root -> c: a re-export through the root is a circle
    assert_eq!(circles_of(&arrows.files).len(), 1);
    assert_eq!(circles_of(&arrows.top).len(), 1);
}

#[test]
fn the_circle_finder_finds_circles() {
    let edge = |from: &str, to: &[&str]| {
        (
            from.to_string(),
            to.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>(),
        )
    };
    let mut graph = BTreeMap::from([
        edge("a", &["b"]),
        edge("b", &["c"]),
        edge("c", &[]),
        edge("x", &["y"]),
        edge("y", &["x"]),
    ]);
    assert_eq!(circles_of(&graph), [["x", "y"].map(String::from).to_vec()]);
    graph.extend([edge("c", &["a"])]);
    assert_eq!(
        circles_of(&graph),
        [
            ["a", "b", "c"].map(String::from).to_vec(),
            ["x", "y"].map(String::from).to_vec()
        ]
    );
}
