//! Every path a client gives goes through one sandbox check; these try to get around it.

use crate::common;

use std::os::unix::fs::symlink;

use common::Workspace;
use serde_json::json;

fn assert_denied(body: &str, path: &str) {
    let body = &common::untag(body);
    let denied = format!("[TAG] File: {path}\n[TAG] Error: Access denied");
    let unresolvable = format!("[TAG] File: {path}\n[TAG] Error: Cannot resolve path");
    assert!(
        body.starts_with(&denied) || body.starts_with(&unresolvable),
        "{path} must be refused, got:\n{body}"
    );
}

#[test]
fn escapes_are_refused_and_nothing_is_read() {
    let ws = Workspace::new();
    ws.write("inside.txt", "inside\n");
    std::fs::create_dir_all(ws.base.join("wsx")).unwrap();
    std::fs::write(ws.base.join("wsx/secret.txt"), "SIBLING-SECRET\n").unwrap();
    std::fs::create_dir_all(ws.base.join("outside")).unwrap();
    std::fs::write(ws.base.join("outside/secret.txt"), "OUTSIDE-SECRET\n").unwrap();
    symlink(ws.base.join("outside/secret.txt"), ws.root.join("filelink")).unwrap();
    symlink(ws.base.join("outside"), ws.root.join("dirlink")).unwrap();

    let mut client = ws.start(&[]);
    let sibling = ws.base.join("wsx/secret.txt").display().to_string();
    let absolute = ws.base.join("outside/secret.txt").display().to_string();
    let cases = [
        sibling.as_str(),        // sibling whose name shares the prefix
        "../wsx/secret.txt",     // the same through ..
        "../outside/secret.txt", // .. escape
        "sub/../../outside/secret.txt",
        absolute.as_str(), // absolute path outside
        "/etc/passwd",
        "filelink",             // symlinked file pointing outside
        "dirlink/secret.txt",   // through a symlinked directory pointing outside
        "dirlink/new-file.txt", // a file that does not exist yet, under that directory
        "dirlink/newdir/new-file.txt",
    ];
    for path in cases {
        let out = client.call_text("read_files", json!({"files": [{"path": path}]}));
        assert_denied(&out, path);
        assert!(!out.contains("SECRET"), "{out}");
    }
    let out = client.call_text("read_files", json!({"files": ["inside.txt"]}));
    assert_eq!(common::untag(&out), "[TAG] File: inside.txt\ninside\n");
    // Nothing was created through the links.
    assert!(!ws.base.join("outside/new-file.txt").exists());
    assert!(!ws.base.join("outside/newdir").exists());
}

#[test]
fn the_error_names_the_path_the_allowed_directories_and_suggests_a_relative_path() {
    let ws = Workspace::new();
    let mut client = ws.start(&[]);
    let out = client.call_text("read_files", json!({"files": ["/etc/hostname"]}));
    assert!(out.contains("/etc/hostname"), "{out}");
    assert!(out.contains(&ws.root.display().to_string()), "{out}");
    assert!(out.contains("relative path"), "{out}");
}

#[test]
fn symlinks_inside_the_workspace_work() {
    let ws = Workspace::new();
    ws.write("real/data.txt", "data\n");
    symlink(ws.root.join("real"), ws.root.join("alias")).unwrap();
    let mut client = ws.start(&[]);
    let out = client.call_text("read_files", json!({"files": ["alias/data.txt"]}));
    assert_eq!(common::untag(&out), "[TAG] File: alias/data.txt\ndata\n");
}

#[test]
fn relative_paths_resolve_against_the_first_allowed_directory_not_the_cwd() {
    let ws = Workspace::new();
    ws.write("where.txt", "in ws\n");
    std::fs::write(ws.base.join("where.txt"), "in cwd\n").unwrap();
    // The client starts the server with the cwd set to base (outside ws).
    let mut client = ws.start(&[]);
    let out = client.call_text("read_files", json!({"files": ["where.txt"]}));
    assert_eq!(common::untag(&out), "[TAG] File: where.txt\nin ws\n");
}
