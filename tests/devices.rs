//! Character devices in the workspace: `/dev/zero` would feed a reader forever and `/dev/null`
//! would swallow a write. Every tool must refuse them at once, without reading or writing them.

use crate::common;

use std::time::{Duration, Instant};

use common::{Workspace, text_of};
use serde_json::json;

/// Makes `name` a character device (major, minor); `false` when this user may not (not root).
fn mknod(ws: &Workspace, name: &str, major: u32, minor: u32) -> bool {
    rustix::fs::mknodat(
        rustix::fs::CWD,
        ws.root.join(name),
        rustix::fs::FileType::CharacterDevice,
        rustix::fs::Mode::from_raw_mode(0o666),
        rustix::fs::makedev(major, minor),
    )
    .is_ok()
}

#[test]
fn every_tool_refuses_character_devices_at_once() {
    let ws = Workspace::new();
    ws.write("plain.txt", "plain NEEDLE\n");
    if !(mknod(&ws, "zero", 1, 5) && mknod(&ws, "null", 1, 3)) {
        assert!(
            std::env::var_os("FS_MCP_REQUIRE_CLIENTS").is_none(),
            "cannot create device nodes here (needs root); CI runs as root"
        );
        eprintln!("skipped: creating device nodes needs root");
        return;
    }
    let mut c = ws.start(&["--all", "--auto-approve"]);
    let calls = [
        ("read_files", json!({"files": ["zero"]})),
        (
            "read_files",
            json!({"files": [{"path": "zero", "head": 1}]}),
        ),
        (
            "read_files",
            json!({"files": [{"path": "zero", "tail": 1}]}),
        ),
        (
            "read_files",
            json!({"files": ["zero"], "large_file_passthrough": true}),
        ),
        ("get_file_info", json!({"path": "zero"})),
        (
            "grep_content",
            json!({"pattern": "x", "search_path": "zero"}),
        ),
        ("read_media_file", json!({"path": "zero"})),
        (
            "query_json",
            json!({"file_path": "zero", "jq_expression": "."}),
        ),
        (
            "query_yaml",
            json!({"file_path": "zero", "yq_expression": "."}),
        ),
        ("analyze_gsd_work_log", json!({"file_path": "zero"})),
        ("write_file", json!({"path": "null", "content": "x"})),
        ("append_text", json!({"path": "zero", "content": "x"})),
        (
            "propose_and_review",
            json!({"path": "null", "match_text": "OVERWRITE_FILE", "new_string": "x"}),
        ),
    ];
    for (tool, arguments) in calls {
        let started = Instant::now();
        let result = c.call(tool, arguments.clone());
        let text = text_of(&result);
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{tool} {arguments} took {:?}",
            started.elapsed()
        );
        assert!(
            text.contains("character device") || text.contains("not a regular file"),
            "{tool} {arguments}: {text}"
        );
    }
    // A search over the directory skips the devices and still finds the regular file.
    let grep = c.call_text(
        "grep_content",
        json!({"pattern": "NEEDLE", "search_path": "."}),
    );
    assert!(
        grep.contains("plain.txt") && !grep.contains("zero"),
        "{grep}"
    );
    // The devices are still devices (nothing replaced them).
    for name in ["zero", "null"] {
        let meta = std::fs::symlink_metadata(ws.root.join(name)).unwrap();
        assert!(
            std::os::unix::fs::FileTypeExt::is_char_device(&meta.file_type()),
            "{name}"
        );
    }
}
