//! The `ui` page's workspace excerpt (`/api/workspace`) lists directories through the sandbox's
//! handles: a directory swapped for a symlink to outside while it is listed never shows outside
//! names, and names with a newline or invalid UTF-8 cannot forge lines of the excerpt.

use crate::common;

use common::{UiPage, Workspace, swapper};

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::Value;

/// The page's workspace excerpt.
async fn description(ui: &UiPage, http: &reqwest::Client) -> String {
    let reply: Value = http
        .get(format!("{}/api/workspace", ui.base))
        .header("x-fs-mcp-token", &ui.token)
        .send()
        .await
        .expect("request")
        .json()
        .await
        .expect("json");
    reply["description"]
        .as_str()
        .expect("description")
        .to_string()
}

const OUTSIDE_NAME: &str = "OUTSIDE_ONLY_NAME.txt";

/// Listings asked for during the swap loop (the old `std::fs::read_dir` walk showed outside
/// names in some of them).
const REQUESTS: usize = 1_000;

#[tokio::test]
async fn a_directory_swapped_for_a_symlink_to_outside_never_shows_outside_names() {
    let ws = Workspace::new();
    let outside = ws.base.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join(OUTSIDE_NAME), "x").unwrap();
    ws.write("sub/inside.txt", "x");
    symlink(&outside, ws.root.join("sublink")).unwrap();
    // Directories listed before `sub`: they widen the window between the listing of the root
    // and that of `sub`, where the swap has to fall.
    for i in 0..12 {
        for f in 0..3 {
            ws.write(&format!("d{i:02}/f{f}.txt"), "x");
        }
    }
    let ui = UiPage::start(&ws.root, &[]);
    let http = reqwest::Client::new();
    let first = description(&ui, &http).await;
    assert!(first.contains("sub/\n  inside.txt"), "{first}");
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = swapper(
        ws.root.join("sub"),
        ws.root.join("sublink"),
        Arc::clone(&stop),
        usize::MAX,
    );
    let mut listed_inside = 0;
    for _ in 0..REQUESTS {
        let description = description(&ui, &http).await;
        assert!(
            !description.contains(OUTSIDE_NAME),
            "outside names listed: {description}"
        );
        listed_inside += usize::from(description.contains("/\n  inside.txt"));
    }
    stop.store(true, Ordering::Relaxed);
    assert!(swaps.finish() > 0);
    assert!(listed_inside > 0, "the real directory was never listed");
}

#[tokio::test]
async fn names_with_newlines_or_invalid_utf8_cannot_forge_lines() {
    let ws = Workspace::new();
    std::fs::create_dir(ws.root.join("a\nFORGED_DIR")).unwrap();
    std::fs::write(ws.root.join("b\nFORGED_FILE"), "x").unwrap();
    std::fs::write(ws.root.join(OsStr::from_bytes(b"c\xff.txt")), "x").unwrap();
    let ui = UiPage::start(&ws.root, &[]);
    let http = reqwest::Client::new();
    let description = description(&ui, &http).await;
    assert!(
        !description
            .lines()
            .any(|l| l.trim_start().starts_with("FORGED")),
        "{description}"
    );
    assert!(description.contains("b\\nFORGED_FILE"), "{description}");
    assert!(description.contains("c\\xff.txt"), "{description}");
}
