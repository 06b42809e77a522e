//! `directory_tree`: a JSON tree of a directory.
//!
//! Output is **compact JSON** (no whitespace): about a third fewer tokens than 2-space
//! indentation for the same tree, and models read it just as well. Example:
//!
//! ```text
//! {"name":"ws","type":"directory","path":".","children":[{"name":"node_modules","type":"directory","excluded":true},{"name":"src","type":"directory","children":[{"name":"deep","type":"directory","truncated":true},{"name":"lib.rs","type":"file"}]},{"name":"empty","type":"directory","children":[]},{"name":"link","type":"symlink"}]}
//! ```
//!
//! * Children are sorted by name. `type` is `directory`, `file`, `symlink` (never followed, so
//!   loops are harmless) or `other` (FIFOs, sockets, devices).
//! * A directory below `max_depth` that has entries is marked `"truncated":true` (an empty one
//!   has `"children":[]`), so a cut directory is never mistaken for an empty one.
//! * Excluded directories (by default `.git`, `node_modules`, `target`, `.venv`, `__pycache__`,
//!   `.pytest_cache`, `dist`, `build`; a given list replaces these) are shown with
//!   `"excluded":true` and not entered.
//! * The walk is breadth-first and stops at `max_entries` (default 2,000): the upper levels stay
//!   complete, unlisted directories are marked truncated, and [`Tree::cut`] says why (the binary
//!   words it as the root's `note`).
//! * An unreadable directory gets `"error":"…"`; the root also carries its displayed `path`.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

use fs_mcp_sandbox::{DirHandle, EntryKind, Sandbox, escape_os, escape_path};
use serde::Serialize;

use crate::error::SearchError;
use crate::error::describe_io;
use crate::walk;

/// Directories not entered unless the caller gives its own list.
pub const DEFAULT_EXCLUDES: &[&str] = &[
    ".git",
    "node_modules",
    "target",
    ".venv",
    "__pycache__",
    ".pytest_cache",
    "dist",
    "build",
];

/// Settings of a `directory_tree` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeOptions {
    /// Levels below the root that are listed (the root's children are level 1).
    pub max_depth: usize,
    /// `None`: [`DEFAULT_EXCLUDES`]. `Some(list)`: exactly these names (`[]` excludes nothing).
    pub exclude_dirs: Option<Vec<String>>,
    /// Entries listed at most.
    pub max_entries: usize,
}

impl TreeOptions {
    /// [`TreeOptions::max_depth`] when the client gives none.
    pub const DEFAULT_MAX_DEPTH: usize = 4;
    /// [`TreeOptions::max_entries`] when the client gives none.
    pub const DEFAULT_MAX_ENTRIES: usize = 2_000;
    /// Most names [`TreeOptions::exclude_dirs`] takes (each entry is compared with them all).
    pub const MAX_EXCLUDE_DIRS: usize = 100;
}

impl Default for TreeOptions {
    fn default() -> Self {
        TreeOptions {
            max_depth: Self::DEFAULT_MAX_DEPTH,
            exclude_dirs: None,
            max_entries: Self::DEFAULT_MAX_ENTRIES,
        }
    }
}

/// One entry of the tree, as data: the binary writes it as compact JSON, and a client gets it
/// as structured content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TreeNode {
    /// The entry's name, escaped.
    pub name: String,
    /// `directory`, `file`, `symlink` or `other`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The root's displayed path (the root only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// A listed directory's entries, by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub children: Option<Vec<TreeNode>>,
    /// A directory not (fully) listed: below max_depth or past the entry limit.
    #[serde(skip_serializing_if = "is_false")]
    pub truncated: bool,
    /// A directory not expanded by name (`exclude_dirs`).
    #[serde(skip_serializing_if = "is_false")]
    pub excluded: bool,
    /// Why a directory could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A tree and what cut it short.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tree {
    /// The root.
    pub root: TreeNode,
    /// Why directories are marked truncated, if any are.
    pub cut: Option<TreeCut>,
}

/// Why a tree's directories are marked truncated; the caller says how to see more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TreeCut {
    /// [`TreeOptions::max_entries`] (this many) were listed: the walk stopped.
    EntryLimit {
        /// The limit.
        max_entries: usize,
    },
    /// Directories at [`TreeOptions::max_depth`] (this depth) have entries.
    BelowDepth {
        /// The depth.
        max_depth: usize,
    },
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// Arena node while building breadth-first.
struct Slot {
    name: String,
    kind: &'static str,
    children: Option<Vec<usize>>,
    truncated: bool,
    excluded: bool,
    error: Option<String>,
}

impl Slot {
    fn new(name: String, kind: &'static str) -> Slot {
        Slot {
            name,
            kind,
            children: None,
            truncated: false,
            excluded: false,
            error: None,
        }
    }
}

/// The tree of `path`, as data.
pub fn tree(sandbox: &Sandbox, path: &str, options: &TreeOptions) -> Result<Tree, SearchError> {
    let (root, meta) = walk::resolve_existing(sandbox, path)?;
    let excludes: Vec<String> = match &options.exclude_dirs {
        Some(list) => list.clone(),
        None => DEFAULT_EXCLUDES.iter().map(|s| s.to_string()).collect(),
    };
    let root_name = root.file_name().map_or_else(
        || escape_path(&root).into_owned(),
        |n| escape_os(n).into_owned(),
    );
    let mut slots = vec![Slot::new(root_name, kind_of(meta.kind))];
    // The walk goes by directory handles: each directory is opened relative to its parent's
    // handle without following a symlink, so a directory swapped for a symlink mid-walk is
    // reported as an error entry, never listed through.
    let mut queue: VecDeque<(usize, DirHandle, usize)> = VecDeque::new();
    if meta.kind == EntryKind::Dir {
        let dir = sandbox.open_dir(path)?;
        queue.push_back((0, dir, 0));
    }
    let mut listed = 0usize;
    let mut capped = false;
    let mut depth_cut = false;
    while let Some((idx, dir, depth)) = queue.pop_front() {
        if capped {
            slots[idx].truncated = true;
            continue;
        }
        let entries = match read_sorted(&dir) {
            Ok(e) => e,
            Err(e) => {
                slots[idx].error = Some(describe_io(&e));
                continue;
            }
        };
        if depth >= options.max_depth {
            if entries.is_empty() {
                slots[idx].children = Some(Vec::new());
            } else {
                slots[idx].truncated = true;
                depth_cut = true;
            }
            continue;
        }
        let mut children = Vec::with_capacity(entries.len());
        for (name, kind) in entries {
            if listed >= options.max_entries {
                capped = true;
                slots[idx].truncated = true;
                break;
            }
            listed += 1;
            let shown = escape_os(&name).into_owned();
            let child = slots.len();
            let mut slot = Slot::new(shown, kind_of(kind));
            if kind == EntryKind::Dir {
                if excludes.iter().any(|e| OsStr::new(e) == name) {
                    slot.excluded = true;
                } else {
                    match dir.open_subdir(&name) {
                        Ok(sub) => queue.push_back((child, sub, depth + 1)),
                        Err(e) => slot.error = Some(describe_io(&e)),
                    }
                }
            }
            slots.push(slot);
            children.push(child);
        }
        slots[idx].children = Some(children);
    }
    let mut tree = to_node(&mut slots, 0);
    tree.path = Some(sandbox.display(&root));
    let cut = if capped {
        Some(TreeCut::EntryLimit {
            max_entries: options.max_entries,
        })
    } else if depth_cut {
        Some(TreeCut::BelowDepth {
            max_depth: options.max_depth,
        })
    } else {
        None
    };
    Ok(Tree { root: tree, cut })
}

fn kind_of(kind: EntryKind) -> &'static str {
    match kind {
        EntryKind::Symlink => "symlink",
        EntryKind::Dir => "directory",
        EntryKind::File => "file",
        _ => "other",
    }
}

/// Entries of a directory handle as (name, type without following symlinks), sorted by name.
fn read_sorted(dir: &DirHandle) -> std::io::Result<Vec<(OsString, EntryKind)>> {
    let mut out: Vec<(OsString, EntryKind)> = dir
        .entries_unshared()?
        .into_iter()
        .map(|e| (e.name, e.kind))
        .collect();
    out.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    Ok(out)
}

fn to_node(slots: &mut [Slot], idx: usize) -> TreeNode {
    let children = slots[idx].children.take();
    let children = children.map(|c| c.into_iter().map(|i| to_node(slots, i)).collect());
    let slot = &mut slots[idx];
    TreeNode {
        name: std::mem::take(&mut slot.name),
        kind: slot.kind,
        path: None,
        children,
        truncated: slot.truncated,
        excluded: slot.excluded,
        error: slot.error.take(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fs_mcp_sandbox::testing::Fixture;
    use serde_json::{Value, json};

    /// The tree as JSON, and what cut it.
    fn tree_cut(fx: &Fixture, path: &str, options: &TreeOptions) -> (Value, Option<TreeCut>) {
        let tree = super::tree(&fx.sandbox, path, options).unwrap();
        (serde_json::to_value(&tree.root).unwrap(), tree.cut)
    }

    fn tree(fx: &Fixture, path: &str, options: &TreeOptions) -> Value {
        tree_cut(fx, path, options).0
    }

    #[test]
    fn defaults_sort_exclude_and_mark_depth() {
        let fx = Fixture::new();
        fx.write("src/lib.rs", "x");
        fx.write("src/a/b/c/d/e.rs", "x");
        fx.write("node_modules/pkg/index.js", "x");
        fx.write(".git/HEAD", "x");
        fx.write("README.md", "x");
        fx.mkdir("empty");
        let (t, cut) = tree_cut(&fx, ".", &TreeOptions::default());
        assert_eq!(cut, Some(TreeCut::BelowDepth { max_depth: 4 }));
        assert_eq!(t["name"], "ws");
        assert_eq!(t["path"], ".");
        let names: Vec<&str> = t["children"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, [".git", "README.md", "empty", "node_modules", "src"]);
        assert_eq!(
            t["children"][0],
            json!({"name": ".git", "type": "directory", "excluded": true})
        );
        assert_eq!(
            t["children"][2],
            json!({"name": "empty", "type": "directory", "children": []})
        );
        // src(1)/a(2)/b(3)/c(4) is listed; c's content (d, level 5) is below max_depth=4.
        let c = &t["children"][4]["children"][0]["children"][0]["children"][0];
        assert_eq!(
            c,
            &json!({"name": "c", "type": "directory", "truncated": true})
        );
    }

    #[test]
    fn custom_excludes_replace_defaults_and_depth_zero() {
        let fx = Fixture::new();
        fx.write("node_modules/x.js", "x");
        fx.write("skip/y", "x");
        let opts = TreeOptions {
            exclude_dirs: Some(vec!["skip".into()]),
            ..TreeOptions::default()
        };
        let t = tree(&fx, ".", &opts);
        assert_eq!(t["children"][0]["children"][0]["name"], "x.js");
        assert_eq!(t["children"][1]["excluded"], true);
        let t = tree(
            &fx,
            ".",
            &TreeOptions {
                max_depth: 0,
                ..TreeOptions::default()
            },
        );
        assert_eq!(t["truncated"], true);
        assert!(t.get("children").is_none());
    }

    #[test]
    fn entry_cap_adds_note() {
        let fx = Fixture::new();
        for i in 0..30 {
            fx.write(&format!("d{i:02}/f.txt"), "x");
        }
        let opts = TreeOptions {
            max_entries: 10,
            ..TreeOptions::default()
        };
        let (t, cut) = tree_cut(&fx, ".", &opts);
        assert_eq!(cut, Some(TreeCut::EntryLimit { max_entries: 10 }));
        assert_eq!(t["children"].as_array().unwrap().len(), 10);
        assert_eq!(t["truncated"], true);
        assert_eq!(t["children"][0]["truncated"], true);
    }

    #[test]
    fn symlink_loops_are_entries_and_missing_paths_fail() {
        let fx = Fixture::new();
        fx.mkdir("d");
        fx.symlink(fx.root.clone(), "d/loop");
        fx.symlink(&fx.outside, "out");
        let t = tree(
            &fx,
            ".",
            &TreeOptions {
                max_depth: 10,
                ..TreeOptions::default()
            },
        );
        assert_eq!(
            t["children"][0]["children"][0],
            json!({"name": "loop", "type": "symlink"})
        );
        assert_eq!(t["children"][1], json!({"name": "out", "type": "symlink"}));
        let err = super::tree(&fx.sandbox, "nope", &TreeOptions::default()).unwrap_err();
        assert_eq!(err.to_string(), "nope: not found");
        assert!(super::tree(&fx.sandbox, "../outside", &TreeOptions::default()).is_err());
    }

    #[test]
    fn file_root_is_a_single_node() {
        let fx = Fixture::new();
        fx.write("sub/a.txt", "x");
        let (t, cut) = tree_cut(&fx, "sub/a.txt", &TreeOptions::default());
        assert_eq!(cut, None);
        assert_eq!(
            t,
            json!({"name": "a.txt", "type": "file", "path": "sub/a.txt"})
        );
    }
}
