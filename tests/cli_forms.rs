//! Command lines as a newcomer types them: `--http` followed by a directory, input closed before
//! the handshake, `ui --help`.

use crate::common;

use std::process::{Command, Stdio};

use common::Workspace;

/// Runs `fs-mcp-rs ARGS` (optionally inside a private network namespace, so the default port is
/// free) until its stderr shows the HTTP URL; returns stderr up to there.
fn http_start_log(args: &[&str], private_network: bool) -> String {
    let mut command = if private_network {
        let mut c = Command::new("unshare");
        c.args(["-rn", "sh", "-c", "ip link set lo up && exec \"$0\" \"$@\""])
            .arg(common::BIN);
        c
    } else {
        Command::new(common::BIN)
    };
    let (mut child, _url, log) = common::start_announcing_url(command.args(args));
    let _ = child.kill();
    let _ = child.wait();
    log.lock().unwrap().clone()
}

/// Whether this machine lets an unprivileged process have its own loopback.
fn private_network() -> bool {
    Command::new("unshare")
        .args(["-rn", "sh", "-c", "ip link set lo up"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn a_directory_after_http_is_served_on_the_default_address() {
    let ws = Workspace::new();
    let dir = ws.root.display().to_string();
    let private = private_network();
    let log = http_start_log(&["--http", &dir], private);
    assert!(
        log.contains(&format!("allowed directories: {dir}")),
        "{log}"
    );
    if private {
        assert!(log.contains("http://127.0.0.1:8124/mcp"), "{log}");
    } else {
        // On the host network another server may hold the default port: then the address it
        // tried is named, which shows the directory was not taken for one.
        assert!(
            log.contains("http://127.0.0.1:8124/mcp")
                || log.contains("cannot listen on 127.0.0.1:8124"),
            "{log}"
        );
    }
}

#[test]
fn an_address_or_a_port_after_http_is_the_address_and_a_directory_may_follow() {
    let ws = Workspace::new();
    let dir = ws.root.display().to_string();
    for address in ["127.0.0.1:0", "0"] {
        let log = http_start_log(&["--http", address, &dir], false);
        assert!(
            log.contains(&format!("allowed directories: {dir}")),
            "{log}"
        );
        assert!(log.contains("at http://127.0.0.1:"), "{address}: {log}");
    }
    let refused = Command::new(common::BIN)
        .args(["--http", "localhost:9000", &dir])
        .output()
        .expect("run");
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("IP:PORT"), "{stderr}");
}

#[test]
fn closing_stdin_before_initialize_exits_0_quietly() {
    let ws = Workspace::new();
    let output = Command::new(common::BIN)
        .arg(&ws.root)
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .output()
        .expect("run");
    assert!(output.status.success(), "{:?}", output.status);
    assert!(output.stdout.is_empty());
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
}

#[test]
fn ui_help_lists_no_flag_ui_refuses() {
    let output = Command::new(common::BIN)
        .args(["ui", "--help"])
        .output()
        .expect("run");
    assert!(output.status.success());
    let help = String::from_utf8_lossy(&output.stdout);
    for refused in [
        "--http [",
        "--http <",
        "--http-token",
        "--http-max-sessions",
    ] {
        assert!(
            !help.contains(refused),
            "`ui --help` lists {refused}:\n{help}"
        );
    }
    assert!(help.contains("--port"), "{help}");
}
