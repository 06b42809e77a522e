//! `fs-mcp-rs ui` under connection floods: the same header/idle timeouts and connection cap as
//! `--http` (connections without the page's token hold at most half of it), so idle or tokenless
//! sockets never lock the page out. Bounded floods on 127.0.0.1.

use crate::common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{UiPage, Workspace};

/// The playground under a lowered file descriptor limit.
fn start_limited(ws: &Workspace, fd_limit: u32, extra: &[&str]) -> UiPage {
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(format!("ulimit -n {fd_limit} && exec \"$0\" \"$@\""))
        .arg(common::BIN)
        .args(["ui", "--port", "0", "--review-command", "none"])
        .args(extra)
        .arg(&ws.root)
        .stderr(Stdio::null());
    UiPage::spawn(command)
}

/// One request on a fresh connection: the answer's status line, if one came within 10 s.
fn get(ui: &UiPage, path: &str, token: Option<&str>) -> Option<String> {
    let mut stream = TcpStream::connect(ui.addr()).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    let auth = token
        .map(|t| format!("x-fs-mcp-token: {t}\r\n"))
        .unwrap_or_default();
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {}\r\n{auth}Connection: close\r\n\r\n",
        ui.addr()
    );
    stream.write_all(request.as_bytes()).ok()?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).ok()?;
    let answer = String::from_utf8_lossy(&answer);
    answer.lines().next().map(str::to_string)
}

#[test]
fn a_flood_of_idle_connections_does_not_lock_the_page_out() {
    let ws = Workspace::new();
    // 256 descriptors and a long header timeout: only the cap making room lets the page in.
    let ui = start_limited(&ws, 256, &["--http-header-timeout-ms", "60000"]);
    let token = ui.token.clone();
    let mut flood = Vec::new();
    for round in 0..3 {
        for _ in 0..300 {
            if let Ok(stream) = TcpStream::connect(ui.addr()) {
                flood.push(stream);
            }
        }
        let status = get(&ui, "/api/workspace", Some(&token));
        assert_eq!(
            status.as_deref(),
            Some("HTTP/1.1 200 OK"),
            "round {round}: the page was locked out with {} idle sockets open",
            flood.len()
        );
    }
    assert!(flood.len() >= 600, "the flood held {} sockets", flood.len());
    // Tokenless requests get their 401 and do not crowd out the page either.
    for _ in 0..50 {
        assert_eq!(
            get(&ui, "/api/workspace", None).as_deref(),
            Some("HTTP/1.1 401 Unauthorized")
        );
    }
    assert_eq!(
        get(&ui, "/api/workspace", Some(&token)).as_deref(),
        Some("HTTP/1.1 200 OK")
    );
}

#[test]
fn idle_connections_to_the_page_are_closed_after_the_header_timeout() {
    let ws = Workspace::new();
    let ui = start_limited(&ws, 1024, &["--http-header-timeout-ms", "300"]);
    let mut idle = TcpStream::connect(ui.addr()).expect("connect");
    idle.set_read_timeout(Some(Duration::from_secs(5)))
        .expect("timeout");
    let started = Instant::now();
    let mut buf = [0u8; 64];
    let read = idle.read(&mut buf);
    assert!(
        matches!(read, Ok(0)) || read.is_err() && started.elapsed() < Duration::from_secs(5),
        "an idle connection stayed open: {read:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}
