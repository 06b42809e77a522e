//! `search_files`: files whose name (or relative path) matches a glob.
//!
//! * A pattern without `/` (and without `**`) matches the **file name** at any depth, like the
//!   original's `rglob`: `*.rs`, `Cargo.toml`, `test_*.py`.
//! * A pattern with `/` or `**` matches the **path relative to `path`**: `src/**/*.rs`,
//!   `**/fixtures/*.json`, `docs/*.md` (only directly in `docs/`). A leading `./` or `/` anchors
//!   at `path` and is dropped.
//! * `*` and `?` never cross `/`; `**` does; `{a,b}` and `[abc]` work as in globset.
//!
//! The walk honours `.gitignore`/hidden rules like `grep_content` (see [`crate::walk`]). Only
//! files (and symlinks, shown but not followed) are listed, sorted, at most `max_results`, with a
//! note giving the total.

use std::collections::BinaryHeap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use fs_mcp_sandbox::Sandbox;
use globset::{GlobBuilder, GlobMatcher};
use ignore::WalkState;

use crate::SearchError;
use crate::format::thousands;
use crate::walk::{self, WalkOptions};

/// Settings of a `search_files` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindOptions {
    pub include_hidden: bool,
    pub include_ignored: bool,
    /// Paths listed at most; the note gives the total.
    pub max_results: usize,
}

impl FindOptions {
    pub const DEFAULT_MAX_RESULTS: usize = 200;
}

impl Default for FindOptions {
    fn default() -> Self {
        FindOptions {
            include_hidden: false,
            include_ignored: false,
            max_results: Self::DEFAULT_MAX_RESULTS,
        }
    }
}

enum Target {
    Name(GlobMatcher),
    RelativePath(GlobMatcher),
}

fn compile(pattern: &str) -> Result<Target, SearchError> {
    let trimmed = pattern.trim();
    let mut p = trimmed;
    while let Some(rest) = p.strip_prefix("./") {
        p = rest;
    }
    let p = p.trim_start_matches('/');
    if p.is_empty() {
        return Err(SearchError::InvalidPattern {
            message: format!(
                "empty glob pattern '{pattern}'. Use e.g. '*.rs' (file names at any depth) or 'src/**/*.rs' (paths under path)."
            ),
        });
    }
    let glob = GlobBuilder::new(p)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map_err(|e| SearchError::InvalidPattern {
            message: format!(
                "invalid glob '{pattern}': {}\nHint: * matches within a name, ** any number of directories, ? one character, [abc] a set, {{a,b}} alternatives; escape a literal with a backslash.",
                e.kind()
            ),
        })?;
    let matcher = glob.compile_matcher();
    Ok(if p.contains('/') || p.contains("**") {
        Target::RelativePath(matcher)
    } else {
        Target::Name(matcher)
    })
}

/// Lists the files under `path` matching `pattern`, sorted, as displayed paths.
pub fn search_files(
    sandbox: &Sandbox,
    path: &str,
    pattern: &str,
    options: &FindOptions,
) -> Result<String, SearchError> {
    let target = compile(pattern)?;
    let (root, meta) = walk::resolve_existing(sandbox, path)?;
    if meta.kind != fs_mcp_sandbox::EntryKind::Dir {
        return Err(SearchError::NotADirectory {
            path: sandbox.display(&root),
        });
    }
    let walk_options = WalkOptions {
        include_hidden: options.include_hidden,
        include_ignored: options.include_ignored,
    };
    let (builder, stats) =
        walk::walker(sandbox, &root, walk_options, walk::default_threads(), true);
    let cap = options.max_results.max(1);
    // The `cap` smallest displayed paths seen so far (a max-heap, so the largest is dropped).
    let best: Mutex<BinaryHeap<String>> = Mutex::new(BinaryHeap::with_capacity(cap + 1));
    let total = AtomicU64::new(0);
    builder.build_parallel().run(|| {
        let mut names = walk::NameCheck::new(sandbox);
        let (best, total, target, root) = (&best, &total, &target, &root);
        Box::new(move |entry| {
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if entry.depth() == 0 || entry.file_type().is_none_or(|t| t.is_dir()) {
                return WalkState::Continue;
            }
            let hit = match &target {
                Target::Name(m) => m.is_match(entry.file_name()),
                Target::RelativePath(m) => entry
                    .path()
                    .strip_prefix(root)
                    .is_ok_and(|rel| m.is_match(rel)),
            };
            // The walker lists directories by path; a name is shown only if the directory reached
            // by handles (no symlink anywhere) holds it, so a swap cannot leak outside names.
            if hit && names.exists(entry.path()) {
                total.fetch_add(1, Ordering::Relaxed);
                let shown = sandbox.display(entry.path());
                let mut heap = best.lock().unwrap_or_else(|e| e.into_inner());
                if heap.len() < cap {
                    heap.push(shown);
                } else if heap.peek().is_some_and(|top| shown < *top) {
                    heap.pop();
                    heap.push(shown);
                }
            }
            WalkState::Continue
        })
    });
    let paths = best
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_sorted_vec();
    let total = total.load(Ordering::Relaxed);
    if paths.is_empty() {
        let mut out = String::from("No matches found.");
        if let Some(skipped) = stats.describe(walk_options) {
            out.push_str(&format!("\nNot searched: {skipped}."));
        }
        return Ok(out);
    }
    let mut out = paths.join("\n");
    if total > paths.len() as u64 {
        out.push_str(&format!(
            "\n\nNote: showing the first {} of {} matching files (sorted by path). Narrow with a sub-directory as path or a more specific pattern.",
            thousands(paths.len() as u64),
            thousands(total),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::Fixture;

    fn find(fx: &Fixture, path: &str, pattern: &str) -> String {
        search_files(&fx.sandbox, path, pattern, &FindOptions::default()).unwrap()
    }

    fn fixture() -> Fixture {
        let fx = Fixture::new();
        fx.write("main.rs", "");
        fx.write("src/lib.rs", "");
        fx.write("src/deep/mod.rs", "");
        fx.write("docs/a.md", "");
        fx.write("docs/sub/b.md", "");
        fx.write(".hidden/x.rs", "");
        fx.write("gen/out.rs", "");
        fx.write(".gitignore", "gen/\n");
        fx
    }

    #[test]
    fn name_patterns_match_at_any_depth_sorted() {
        let fx = fixture();
        assert_eq!(
            find(&fx, ".", "*.rs"),
            "main.rs\nsrc/deep/mod.rs\nsrc/lib.rs"
        );
        assert_eq!(find(&fx, "src", "*.rs"), "src/deep/mod.rs\nsrc/lib.rs");
        assert_eq!(find(&fx, ".", "lib.rs"), "src/lib.rs");
    }

    #[test]
    fn path_patterns_match_relative_paths() {
        let fx = fixture();
        assert_eq!(find(&fx, ".", "docs/*.md"), "docs/a.md");
        assert_eq!(find(&fx, ".", "docs/**/*.md"), "docs/a.md\ndocs/sub/b.md");
        assert_eq!(find(&fx, ".", "**/mod.rs"), "src/deep/mod.rs");
        assert_eq!(find(&fx, ".", "./src/*.rs"), "src/lib.rs");
        assert_eq!(find(&fx, "src", "deep/*.rs"), "src/deep/mod.rs");
    }

    #[test]
    fn ignored_and_hidden_need_options() {
        let fx = fixture();
        let all = FindOptions {
            include_hidden: true,
            include_ignored: true,
            ..FindOptions::default()
        };
        let out = search_files(&fx.sandbox, ".", "*.rs", &all).unwrap();
        assert!(
            out.contains(".hidden/x.rs") && out.contains("gen/out.rs"),
            "{out}"
        );
        let out = find(&fx, ".", "out.rs");
        assert!(out.starts_with("No matches found."), "{out}");
        assert!(out.contains("include_ignored=true"), "{out}");
    }

    #[test]
    fn cap_note_and_errors() {
        let fx = Fixture::new();
        for i in 0..12 {
            fx.write(&format!("f{i:02}.txt"), "");
        }
        let opts = FindOptions {
            max_results: 5,
            ..FindOptions::default()
        };
        let out = search_files(&fx.sandbox, ".", "*.txt", &opts).unwrap();
        assert!(out.starts_with("f00.txt\nf01.txt\nf02.txt\nf03.txt\nf04.txt\n\nNote: showing the first 5 of 12 matching files"), "{out}");
        let err = search_files(&fx.sandbox, ".", "[a", &opts)
            .unwrap_err()
            .to_string();
        assert!(err.contains("invalid glob '[a'"), "{err}");
        assert!(search_files(&fx.sandbox, "missing", "*", &opts).is_err());
        assert!(
            search_files(&fx.sandbox, "f00.txt", "*", &opts)
                .unwrap_err()
                .to_string()
                .contains("not a directory")
        );
        assert!(search_files(&fx.sandbox, "..", "*", &opts).is_err());
    }

    #[test]
    fn symlinks_are_listed_not_followed() {
        let fx = Fixture::new();
        crate::testutil::write_at(&fx.outside, "secret.rs", "");
        fx.symlink(&fx.outside, "out");
        fx.symlink(fx.root.clone(), "loop");
        fx.write("a.rs", "");
        assert_eq!(find(&fx, ".", "*.rs"), "a.rs");
        assert_eq!(find(&fx, ".", "out"), "out");
    }
}
