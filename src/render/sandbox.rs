//! A path the sandbox refused ([`AccessError`]), as the model reads it: the crate's facts, then
//! a next step naming only listed tools.

use fs_mcp_sandbox::{AccessError, EntryKind, escape_os, escape_path, escape_paths};

use rmcp::model::CallToolResult;

use super::{ListedTools, error_text, failure};

/// The next step after a path that does not exist, for every tool: the listed tools that find
/// names, or how a relative path resolves.
pub fn check_the_name(listed: &ListedTools) -> String {
    match listed.any_of_or(
        &["search_files", "list_directory_with_sizes"],
        "directory_tree",
    ) {
        Some(tools) => format!("Check the name with {tools}"),
        None => {
            "Check the name; a relative path resolves against the first allowed directory".into()
        }
    }
}

/// What the sandbox refused, as the model reads it (one sentence, without a next step). Names
/// are escaped (`escape_os`, `escape_path`): a name with a newline or invalid UTF-8 cannot forge
/// a line of the reply.
pub fn what_failed(error: &AccessError) -> String {
    match error {
        AccessError::Outside {
            requested,
            resolved,
            roots,
        } => {
            let list = escape_paths(roots);
            format!(
                "Access denied: '{}' resolves to '{}', which is outside the allowed directories ({list})",
                escape_os(requested.as_ref()),
                escape_path(resolved)
            )
        }
        AccessError::Unresolvable { requested, reason } => format!(
            "Cannot resolve path '{}': {reason}",
            escape_os(requested.as_ref())
        ),
        AccessError::NotFound { requested, .. } => {
            format!("'{}' does not exist", escape_os(requested.as_ref()))
        }
        AccessError::NotRegular {
            requested,
            kind: EntryKind::Dir,
            ..
        } => format!(
            "'{}' is a directory, not a file",
            escape_os(requested.as_ref())
        ),
        AccessError::NotRegular {
            requested, kind, ..
        } => format!(
            "'{}' is {}; only regular files are read or written",
            escape_os(requested.as_ref()),
            kind.described()
        ),
        AccessError::Changed { requested } => format!(
            "'{}' kept changing while it was being opened (renamed or replaced)",
            escape_os(requested.as_ref())
        ),
        AccessError::ReadOnly { requested } => format!(
            "'{}' cannot be written: this server runs read-only (--read-only)",
            escape_os(requested.as_ref())
        ),
        AccessError::Io { requested, error } => {
            format!("Cannot access '{}': {error}", escape_os(requested.as_ref()))
        }
    }
}

/// The next step after `error`, if there is one to give.
pub fn next_step(error: &AccessError, listed: &ListedTools) -> Option<String> {
    match error {
        AccessError::NotFound { .. } => Some(check_the_name(listed)),
        AccessError::NotRegular {
            kind: EntryKind::Dir,
            ..
        } => Some(
            match listed.any_of_or(
                &["list_directory_with_sizes", "directory_tree"],
                "list_directory",
            ) {
                Some(tools) => format!("List it with {tools}, then use a file in it"),
                None => "Give the path of a file in it".to_string(),
            },
        ),
        AccessError::Outside { roots, .. } => Some(match roots.first() {
            Some(first) => format!(
                "Use a path inside them; a relative path such as 'src/main.rs' resolves against {}",
                escape_path(first)
            ),
            None => "Use a path inside them".to_string(),
        }),
        AccessError::Changed { .. } => Some("Try again".to_string()),
        AccessError::NotRegular { .. }
        | AccessError::Unresolvable { .. }
        | AccessError::ReadOnly { .. }
        | AccessError::Io { .. } => None,
    }
}

/// `Error: <what the sandbox says>. <next step>.`
pub fn access_error(error: &AccessError, listed: &ListedTools) -> String {
    error_text(what_failed(error), next_step(error, listed).as_deref())
}

/// A call failed because the sandbox refused its path.
pub fn access_failure(error: &AccessError, listed: &ListedTools) -> CallToolResult {
    failure(what_failed(error), next_step(error, listed).as_deref())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn not_found() -> AccessError {
        AccessError::NotFound {
            requested: "a.txt".into(),
            path: PathBuf::from("/w/a.txt"),
        }
    }

    #[test]
    fn a_missing_file_names_the_listed_finders() {
        let all = ListedTools::new(["search_files", "list_directory_with_sizes"].map(String::from));
        assert_eq!(
            access_error(&not_found(), &all),
            "Error: 'a.txt' does not exist. Check the name with search_files or list_directory_with_sizes."
        );
    }

    #[test]
    fn a_missing_file_names_no_tool_that_is_not_listed() {
        let some = ListedTools::new(["directory_tree".to_string()]);
        assert_eq!(
            access_error(&not_found(), &some),
            "Error: 'a.txt' does not exist. Check the name with directory_tree."
        );
        assert_eq!(
            access_error(&not_found(), &ListedTools::default()),
            "Error: 'a.txt' does not exist. Check the name; a relative path resolves against the first allowed directory."
        );
    }

    #[test]
    fn a_directory_is_listed_with_what_is_listed() {
        let dir = AccessError::NotRegular {
            requested: "src".into(),
            path: PathBuf::from("/w/src"),
            kind: EntryKind::Dir,
        };
        let listed = ListedTools::new(["list_directory".to_string()]);
        assert_eq!(
            access_error(&dir, &listed),
            "Error: 'src' is a directory, not a file. List it with list_directory, then use a file in it."
        );
        assert_eq!(
            access_error(&dir, &ListedTools::default()),
            "Error: 'src' is a directory, not a file. Give the path of a file in it."
        );
    }

    #[test]
    fn outside_says_where_relative_paths_resolve() {
        let outside = AccessError::Outside {
            requested: "../x".into(),
            resolved: PathBuf::from("/x"),
            roots: vec![PathBuf::from("/w")],
        };
        assert_eq!(
            access_error(&outside, &ListedTools::default()),
            "Error: Access denied: '../x' resolves to '/x', which is outside the allowed directories (/w). Use a path inside them; a relative path such as 'src/main.rs' resolves against /w."
        );
    }

    /// Each refusal's sentence (the recorded run holds only some of them), and the crate's
    /// `Display` is not what the model reads.
    #[test]
    fn every_refusal_has_its_sentence() {
        let cases = [
            (
                AccessError::Unresolvable {
                    requested: "a/../b".into(),
                    reason: "too many levels of symbolic links".into(),
                },
                "Cannot resolve path 'a/../b': too many levels of symbolic links",
            ),
            (
                AccessError::NotRegular {
                    requested: "pipe".into(),
                    path: PathBuf::from("/w/pipe"),
                    kind: EntryKind::Fifo,
                },
                "'pipe' is a named pipe (FIFO); only regular files are read or written",
            ),
            (
                AccessError::Changed {
                    requested: "a.txt".into(),
                },
                "'a.txt' kept changing while it was being opened (renamed or replaced)",
            ),
            (
                AccessError::ReadOnly {
                    requested: "a.txt".into(),
                },
                "'a.txt' cannot be written: this server runs read-only (--read-only)",
            ),
            (
                AccessError::Io {
                    requested: "a.txt".into(),
                    error: std::io::Error::from_raw_os_error(13),
                },
                "Cannot access 'a.txt': Permission denied (os error 13)",
            ),
            (
                AccessError::Outside {
                    requested: "/x".into(),
                    resolved: PathBuf::from("/x"),
                    roots: vec![PathBuf::from("/w"), PathBuf::from("/v")],
                },
                "Access denied: '/x' resolves to '/x', which is outside the allowed directories (/w, /v)",
            ),
        ];
        for (error, sentence) in cases {
            assert_eq!(what_failed(&error), sentence);
            assert_ne!(error.to_string(), sentence);
        }
    }

    /// A name with a newline or invalid UTF-8 cannot forge a line of the reply.
    #[test]
    fn names_are_escaped() {
        use std::os::unix::ffi::OsStrExt;
        let odd = std::ffi::OsStr::from_bytes(b"a\nError: b\xff");
        let outside = AccessError::Outside {
            requested: "x\ny".into(),
            resolved: PathBuf::from(odd),
            roots: vec![PathBuf::from("/w\nz")],
        };
        let text = access_error(&outside, &ListedTools::default());
        assert!(!text.contains('\n'), "{text}");
        assert!(
            text.contains(r"'x\ny' resolves to 'a\nError: b\xff'"),
            "{text}"
        );
        assert!(text.contains(r"directories (/w\nz)"), "{text}");
        let found = AccessError::NotFound {
            requested: "m\nn".into(),
            path: PathBuf::from("/w/m"),
        };
        assert!(what_failed(&found).starts_with(r"'m\nn' does not exist"));
    }
}
