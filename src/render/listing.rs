//! The listings (`list_directory`, `list_directory_with_sizes`) and `directory_tree` as the model
//! reads them, from the crate's data ([`Listing`], [`Tree`]): the text, and the structured
//! content with the note saying what was cut and which parameter shows more.
//!
//! ```text
//! [DIR] src
//! [FILE] Cargo.toml                     1.80 KB
//!
//! Total: 1 file (1.80 KB), 1 directory
//! ```
//!
//! With sizes, the original's `{prefix} {name:<30} {size}` format, without the trailing padding
//! on directory lines, plus a total line.

use fs_mcp_search::{Listing, Tree, TreeCut, TreeNode};
use fs_mcp_text::{format_size, thousands};
use serde::Serialize;

use super::search::plural;
use crate::params::MAX_DEPTH;

/// A directory's entries, as structured content (`{"entries", "total", "note"}`) and as text.
#[derive(Debug, Serialize)]
pub struct Listed {
    #[serde(flatten)]
    listing: Listing,
    /// When not every entry is listed: how many are, and how to find the others.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

impl From<Listing> for Listed {
    fn from(listing: Listing) -> Listed {
        let shown = listing.entries.len();
        let note = (listing.total > shown).then(|| {
            format!(
                "Note: showing the first {} of {} entries. Search by name pattern (a glob) to find specific names.",
                thousands(shown as u64),
                thousands(listing.total as u64)
            )
        });
        Listed { listing, note }
    }
}

impl Listed {
    /// `[DIR] name` / `[FILE] name` lines, directories first.
    pub fn text(&self) -> String {
        let listing = &self.listing;
        if listing.entries.is_empty() {
            return format!("Directory {} is empty.", listing.path);
        }
        let mut out = listing
            .entries
            .iter()
            .map(|e| format!("{} {}", if e.is_dir() { "[DIR]" } else { "[FILE]" }, e.name))
            .collect::<Vec<_>>()
            .join("\n");
        self.push_note(&mut out);
        out
    }

    /// Like [`Listed::text`] with file sizes and a total line.
    pub fn text_with_sizes(&self) -> String {
        let listing = &self.listing;
        if listing.entries.is_empty() {
            return format!("Directory {} is empty.", listing.path);
        }
        let mut out = String::new();
        for e in &listing.entries {
            let name = &e.name;
            match e.size {
                Some(size) if !e.is_dir() => {
                    out.push_str(&format!("[FILE] {name:<30} {}\n", format_size(size)))
                }
                _ => out.push_str(&format!("[DIR] {name}\n")),
            }
        }
        let files = listing.entries.iter().filter(|e| !e.is_dir()).count() as u64;
        let dirs = listing.entries.len() as u64 - files;
        let bytes: u64 = listing.entries.iter().filter_map(|e| e.size).sum();
        let listed = if listing.total > listing.entries.len() {
            " (of the entries listed)"
        } else {
            ""
        };
        out.push_str(&format!(
            "\nTotal{listed}: {} ({}), {}",
            plural(files, "file", "files"),
            format_size(bytes),
            plural(dirs, "directory", "directories")
        ));
        self.push_note(&mut out);
        out
    }

    fn push_note(&self, out: &mut String) {
        if let Some(note) = &self.note {
            out.push_str("\n\n");
            out.push_str(note);
        }
    }
}

/// `directory_tree`'s answer: the root's fields, then a `note` on what was cut. Its text is the
/// same object as compact JSON.
#[derive(Debug, Serialize)]
pub struct TreeAnswer {
    #[serde(flatten)]
    root: TreeNode,
    /// What was cut and how to see more.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

impl From<Tree> for TreeAnswer {
    fn from(tree: Tree) -> TreeAnswer {
        let note = tree.cut.map(|cut| match cut {
            TreeCut::EntryLimit { max_entries } => format!(
                "Entry limit of {} reached; directories marked truncated were not (fully) listed. Use a smaller {} or a sub-directory as path.",
                thousands(max_entries as u64),
                MAX_DEPTH.name
            ),
            TreeCut::BelowDepth { max_depth } => format!(
                "Directories marked truncated have entries below {}={max_depth}; call again with one of them as path to see more.",
                MAX_DEPTH.name
            ),
        });
        TreeAnswer {
            root: tree.root,
            note,
        }
    }
}

impl TreeAnswer {
    /// The tree as compact JSON (about a third fewer tokens than indented JSON).
    pub fn text(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fs_mcp_search::ListedEntry;

    fn entry(name: &str, size: Option<u64>) -> ListedEntry {
        ListedEntry {
            name: name.into(),
            kind: if size.is_some() { "file" } else { "dir" },
            size,
        }
    }

    fn listing(entries: Vec<ListedEntry>, total: usize) -> Listed {
        Listed::from(Listing {
            path: "d".into(),
            entries,
            total,
        })
    }

    #[test]
    fn both_listings_and_their_note() {
        let entries = vec![
            entry("adir", None),
            entry(".env", Some(0)),
            entry("b.txt", Some(1843)),
        ];
        let all = listing(entries.clone(), 3);
        assert_eq!(all.text(), "[DIR] adir\n[FILE] .env\n[FILE] b.txt");
        assert_eq!(
            all.text_with_sizes(),
            format!(
                "[DIR] adir\n[FILE] {:<30} 0.00 B\n[FILE] {:<30} 1.80 KB\n\nTotal: 2 files (1.80 KB), 1 directory",
                ".env", "b.txt"
            )
        );
        let cut = listing(entries, 2_001);
        let note = "\n\nNote: showing the first 3 of 2,001 entries. Search by name pattern (a glob) to find specific names.";
        assert!(cut.text().ends_with(note), "{}", cut.text());
        assert!(
            cut.text_with_sizes().contains(&format!(
                "\nTotal (of the entries listed): 2 files (1.80 KB), 1 directory{note}"
            )),
            "{}",
            cut.text_with_sizes()
        );
        assert_eq!(
            serde_json::to_value(&cut).unwrap()["note"],
            note.trim_start()
        );
        let empty = listing(vec![], 0);
        assert_eq!(empty.text(), "Directory d is empty.");
        assert_eq!(empty.text_with_sizes(), "Directory d is empty.");
        assert_eq!(
            serde_json::to_value(&empty).unwrap(),
            serde_json::json!({"entries": [], "total": 0})
        );
    }

    #[test]
    fn a_cut_tree_says_which_parameter_shows_more() {
        let root = TreeNode {
            name: "ws".into(),
            kind: "directory",
            path: Some(".".into()),
            children: None,
            truncated: true,
            excluded: false,
            error: None,
        };
        let by_depth = TreeAnswer::from(Tree {
            root: root.clone(),
            cut: Some(TreeCut::BelowDepth { max_depth: 0 }),
        });
        assert_eq!(
            by_depth.text(),
            r#"{"name":"ws","type":"directory","path":".","truncated":true,"note":"Directories marked truncated have entries below max_depth=0; call again with one of them as path to see more."}"#
        );
        let by_count = TreeAnswer::from(Tree {
            root: root.clone(),
            cut: Some(TreeCut::EntryLimit { max_entries: 2_000 }),
        });
        assert!(by_count.text().ends_with(r#""note":"Entry limit of 2,000 reached; directories marked truncated were not (fully) listed. Use a smaller max_depth or a sub-directory as path."}"#));
        let whole = TreeAnswer::from(Tree { root, cut: None });
        assert!(!whole.text().contains("note"));
    }
}
