//! `list_directory` and `list_directory_with_sizes`: a directory's entries as data
//! ([`Listing`]); the binary writes both listings' text.
//!
//! Directories come first, each group sorted by name. Hidden entries are listed. A symlink is
//! classified by its target (a broken one counts as a file) but never read through.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;

use fs_mcp_sandbox::{DirHandle, EntryKind, EntryMeta, FinalLink, Sandbox, escape_os, escape_path};
use serde::Serialize;

use crate::error::SearchError;
use crate::walk;

/// Entries listed at most; the rest are counted in a note.
pub const MAX_LIST_ENTRIES: usize = 2_000;

struct Entry {
    name: OsString,
    is_dir: bool,
    size: u64,
}

/// The entries of a directory, read through its handle: directories first, then by name. Only
/// the first [`MAX_LIST_ENTRIES`] are classified (a symlink by its target, when that is inside)
/// and shown; the total counts all.
fn read_entries(sandbox: &Sandbox, path: &str) -> Result<(Vec<Entry>, usize, String), SearchError> {
    let (resolved, meta) = walk::resolve_existing(sandbox, path)?;
    let shown = sandbox.display(&resolved);
    if meta.kind != EntryKind::Dir {
        return Err(SearchError::NotADirectory { path: shown });
    }
    let dir = sandbox.open_dir(path)?;
    let listed = dir.entries().map_err(|e| SearchError::io(&shown, &e))?;
    let total = listed.len();
    let mut entries: Vec<Entry> = listed
        .into_iter()
        .map(|e| Entry {
            is_dir: e.kind == EntryKind::Dir
                || (e.kind == EntryKind::Symlink && link_is_dir(sandbox, &dir, &e.name)),
            name: e.name,
            size: 0,
        })
        .collect();
    entries.sort_by(|a, b| {
        b.is_dir
            .cmp(&a.is_dir)
            .then_with(|| a.name.as_bytes().cmp(b.name.as_bytes()))
    });
    entries.truncate(MAX_LIST_ENTRIES);
    for entry in &mut entries {
        if !entry.is_dir {
            entry.size = size_of(sandbox, &dir, &entry.name);
        }
    }
    Ok((entries, total, shown))
}

/// Where a symlink in `dir` leads, judged by the sandbox: `None` when it leads outside, is broken
/// or loops (such a link is listed as a file of size 0, never looked through).
fn link_target(sandbox: &Sandbox, dir: &DirHandle, name: &OsStr) -> Option<EntryMeta> {
    let path = dir.path().join(name);
    let located = sandbox
        .locate(&escape_path(&path), FinalLink::Follow)
        .ok()?;
    located.meta
}

fn link_is_dir(sandbox: &Sandbox, dir: &DirHandle, name: &OsStr) -> bool {
    link_target(sandbox, dir, name).is_some_and(|m| m.kind == EntryKind::Dir)
}

/// A file's size by handle (`fstatat`, no follow); a symlink's is its target's, when inside.
fn size_of(sandbox: &Sandbox, dir: &DirHandle, name: &OsStr) -> u64 {
    match dir.stat(name) {
        Ok(meta) if meta.kind == EntryKind::Symlink => {
            link_target(sandbox, dir, name).map_or(0, |m| m.len)
        }
        Ok(meta) if meta.kind == EntryKind::File => meta.len,
        _ => 0,
    }
}

/// A directory's entries as data: what both listings render (the caller words them), and what
/// a client gets as structured content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Listing {
    /// The directory, as displayed.
    #[serde(skip)]
    pub path: String,
    /// The first [`MAX_LIST_ENTRIES`] entries: directories first, each group by name.
    pub entries: Vec<ListedEntry>,
    /// Entries in the directory, listed or not (more than `entries` when the listing was cut).
    pub total: usize,
}

/// One entry of a [`Listing`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ListedEntry {
    /// The name, escaped as in every output.
    pub name: String,
    /// `"dir"` or `"file"` (a symlink counts as what it leads to; a broken one as a file).
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// A file's size in bytes (its target's for a symlink inside; 0 when unknown).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
}

impl ListedEntry {
    /// A directory, or a symlink to one.
    pub fn is_dir(&self) -> bool {
        self.kind == "dir"
    }
}

/// The entries of the directory at `path`, directories first, at most [`MAX_LIST_ENTRIES`].
pub fn list_entries(sandbox: &Sandbox, path: &str) -> Result<Listing, SearchError> {
    let (entries, total, shown) = read_entries(sandbox, path)?;
    Ok(Listing {
        path: shown,
        entries: entries
            .into_iter()
            .map(|e| ListedEntry {
                name: escape_os(&e.name).into_owned(),
                kind: if e.is_dir { "dir" } else { "file" },
                size: (!e.is_dir).then_some(e.size),
            })
            .collect(),
        total,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use fs_mcp_sandbox::testing::Fixture;

    fn fixture() -> Fixture {
        let fx = Fixture::new();
        fx.write("b.txt", vec![b'x'; 1843]);
        fx.write("a.txt", "hello");
        fx.write(".env", "");
        fx.mkdir("zdir");
        fx.mkdir("adir");
        fx
    }

    fn kinds(listing: &Listing) -> Vec<(&str, &str, Option<u64>)> {
        listing
            .entries
            .iter()
            .map(|e| (e.name.as_str(), e.kind, e.size))
            .collect()
    }

    #[test]
    fn dirs_first_sorted_with_sizes() {
        let fx = fixture();
        let listing = list_entries(&fx.sandbox, ".").unwrap();
        assert_eq!(
            kinds(&listing),
            [
                ("adir", "dir", None),
                ("zdir", "dir", None),
                (".env", "file", Some(0)),
                ("a.txt", "file", Some(5)),
                ("b.txt", "file", Some(1843)),
            ]
        );
        assert_eq!((listing.total, listing.path.as_str()), (5, "."));
        let empty = list_entries(&fx.sandbox, "adir").unwrap();
        assert_eq!(
            (empty.entries.len(), empty.total, empty.path.as_str()),
            (0, 0, "adir")
        );
    }

    #[test]
    fn errors_for_files_missing_and_outside() {
        let fx = fixture();
        assert_eq!(
            list_entries(&fx.sandbox, "a.txt").unwrap_err().to_string(),
            "a.txt: not a directory"
        );
        assert_eq!(
            list_entries(&fx.sandbox, "nope").unwrap_err().to_string(),
            "nope: not found"
        );
        let err = list_entries(&fx.sandbox, "../outside")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("../outside: outside the roots"), "{err}");
    }

    #[test]
    fn huge_directories_are_capped_and_counted() {
        let fx = Fixture::new();
        for i in 0..=MAX_LIST_ENTRIES {
            std::fs::write(fx.root.join(format!("f{i:05}")), "").unwrap();
        }
        let listing = list_entries(&fx.sandbox, ".").unwrap();
        assert_eq!(
            (listing.entries.len(), listing.total),
            (MAX_LIST_ENTRIES, MAX_LIST_ENTRIES + 1)
        );
    }

    #[test]
    fn symlinks_classified_by_target() {
        let fx = fixture();
        fx.symlink(fx.root.join("adir"), "link-dir");
        fx.symlink(fx.root.join("missing"), "broken");
        let listing = list_entries(&fx.sandbox, ".").unwrap();
        let kinds = kinds(&listing);
        assert!(
            kinds.contains(&("link-dir", "dir", None))
                && kinds.contains(&("broken", "file", Some(0))),
            "{kinds:?}"
        );
    }
}
