//! `list_directory` and `list_directory_with_sizes`.
//!
//! ```text
//! [DIR] src
//! [DIR] tests
//! [FILE] Cargo.toml
//! [FILE] README.md
//! ```
//!
//! With sizes (the original's `{prefix} {name:<30} {size}` format, without the trailing padding
//! on directory lines), plus a total line:
//!
//! ```text
//! [DIR] src
//! [FILE] Cargo.toml                     1.80 KB
//!
//! Total: 1 file (1.80 KB), 1 directory
//! ```
//!
//! Directories come first, each group sorted by name. Hidden entries are listed. A symlink is
//! classified by its target (a broken one counts as a file) but never read through.

use std::path::Path;

use fs_mcp_sandbox::Sandbox;

use crate::SearchError;
use crate::format::{format_size, plural, thousands};
use crate::walk;

/// Entries listed at most; the rest are counted in a note.
pub const MAX_LIST_ENTRIES: usize = 2_000;

struct Entry {
    name: String,
    is_dir: bool,
    size: u64,
}

fn read_entries(sandbox: &Sandbox, path: &str) -> Result<(Vec<Entry>, String), SearchError> {
    let dir = walk::resolve_existing(sandbox, path)?;
    let shown = sandbox.display(&dir);
    if !dir.is_dir() {
        return Err(SearchError::NotADirectory { path: shown });
    }
    let read = std::fs::read_dir(&dir).map_err(|e| SearchError::io(&shown, &e))?;
    let mut entries = Vec::new();
    for entry in read {
        let Ok(entry) = entry else { continue };
        let name = entry.file_name().to_string_lossy().into_owned();
        let full = entry.path();
        let (is_dir, size) = classify(&full);
        entries.push(Entry { name, is_dir, size });
    }
    entries.sort_by(|a, b| b.is_dir.cmp(&a.is_dir).then_with(|| a.name.cmp(&b.name)));
    Ok((entries, shown))
}

/// (is a directory, size) following a symlink; a broken link is a zero-size file.
fn classify(path: &Path) -> (bool, u64) {
    match std::fs::metadata(path) {
        Ok(m) => (m.is_dir(), if m.is_dir() { 0 } else { m.len() }),
        Err(_) => (false, 0),
    }
}

fn overflow_note(total: usize) -> Option<String> {
    (total > MAX_LIST_ENTRIES).then(|| {
        format!(
            "\n\nNote: showing the first {} of {} entries. Use search_files with a pattern to find specific names.",
            thousands(MAX_LIST_ENTRIES as u64),
            thousands(total as u64)
        )
    })
}

/// `[DIR] name` / `[FILE] name` lines, directories first.
pub fn list_directory(sandbox: &Sandbox, path: &str) -> Result<String, SearchError> {
    let (entries, shown) = read_entries(sandbox, path)?;
    if entries.is_empty() {
        return Ok(format!("Directory {shown} is empty."));
    }
    let mut out = entries
        .iter()
        .take(MAX_LIST_ENTRIES)
        .map(|e| format!("{} {}", if e.is_dir { "[DIR]" } else { "[FILE]" }, e.name))
        .collect::<Vec<_>>()
        .join("\n");
    if let Some(note) = overflow_note(entries.len()) {
        out.push_str(&note);
    }
    Ok(out)
}

/// Like [`list_directory`] with file sizes and a total line.
pub fn list_directory_with_sizes(sandbox: &Sandbox, path: &str) -> Result<String, SearchError> {
    let (entries, shown) = read_entries(sandbox, path)?;
    if entries.is_empty() {
        return Ok(format!("Directory {shown} is empty."));
    }
    let mut out = String::new();
    for e in entries.iter().take(MAX_LIST_ENTRIES) {
        if e.is_dir {
            out.push_str(&format!("[DIR] {}\n", e.name));
        } else {
            out.push_str(&format!("[FILE] {:<30} {}\n", e.name, format_size(e.size)));
        }
    }
    let files = entries.iter().filter(|e| !e.is_dir).count() as u64;
    let dirs = entries.len() as u64 - files;
    let bytes: u64 = entries.iter().map(|e| e.size).sum();
    out.push_str(&format!(
        "\nTotal: {} ({}), {}",
        plural(files, "file", "files"),
        format_size(bytes),
        plural(dirs, "directory", "directories")
    ));
    if let Some(note) = overflow_note(entries.len()) {
        out.push_str(&note);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::Fixture;

    fn fixture() -> Fixture {
        let fx = Fixture::new();
        fx.write("b.txt", vec![b'x'; 1843]);
        fx.write("a.txt", "hello");
        fx.write(".env", "");
        fx.mkdir("zdir");
        fx.mkdir("adir");
        fx
    }

    #[test]
    fn plain_listing_dirs_first_sorted() {
        let fx = fixture();
        assert_eq!(
            list_directory(&fx.sandbox, ".").unwrap(),
            "[DIR] adir\n[DIR] zdir\n[FILE] .env\n[FILE] a.txt\n[FILE] b.txt"
        );
        assert_eq!(
            list_directory(&fx.sandbox, "adir").unwrap(),
            "Directory adir is empty."
        );
    }

    #[test]
    fn sized_listing_with_total() {
        let fx = fixture();
        let out = list_directory_with_sizes(&fx.sandbox, ".").unwrap();
        let expected = format!(
            "[DIR] adir\n[DIR] zdir\n[FILE] {:<30} 0.00 B\n[FILE] {:<30} 5.00 B\n[FILE] {:<30} 1.80 KB\n\nTotal: 3 files (1.80 KB), 2 directories",
            ".env", "a.txt", "b.txt"
        );
        assert_eq!(out, expected);
    }

    #[test]
    fn errors_for_files_missing_and_outside() {
        let fx = fixture();
        assert_eq!(
            list_directory(&fx.sandbox, "a.txt")
                .unwrap_err()
                .to_string(),
            "Error: a.txt is not a directory."
        );
        assert_eq!(
            list_directory_with_sizes(&fx.sandbox, "nope")
                .unwrap_err()
                .to_string(),
            "Error: nope does not exist."
        );
        let err = list_directory(&fx.sandbox, "../outside")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("Access denied"), "{err}");
    }

    #[test]
    fn huge_directories_are_capped_with_a_note() {
        let fx = Fixture::new();
        for i in 0..=MAX_LIST_ENTRIES {
            std::fs::write(fx.root.join(format!("f{i:05}")), "").unwrap();
        }
        let out = list_directory(&fx.sandbox, ".").unwrap();
        assert_eq!(
            out.lines().filter(|l| l.starts_with("[FILE] ")).count(),
            MAX_LIST_ENTRIES
        );
        assert!(
            out.ends_with("\n\nNote: showing the first 2,000 of 2,001 entries. Use search_files with a pattern to find specific names."),
            "{}",
            &out[out.len() - 200..]
        );
    }

    #[test]
    fn symlinks_classified_by_target() {
        let fx = fixture();
        fx.symlink(fx.root.join("adir"), "link-dir");
        fx.symlink(fx.root.join("missing"), "broken");
        let out = list_directory(&fx.sandbox, ".").unwrap();
        assert!(
            out.contains("[DIR] link-dir") && out.contains("[FILE] broken"),
            "{out}"
        );
    }
}
