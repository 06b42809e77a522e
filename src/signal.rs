//! The signals that stop a server: stdio, `--http`, `ui` and `proxy` all wait for them.

/// Resolves on any signal a user, a supervisor or a dying client sends to end the server:
/// SIGTERM, SIGINT (Ctrl-C), SIGHUP (the client's terminal closed: Claude Code runs its servers
/// in the terminal's foreground process group, so its death hangs them up) and SIGQUIT. Each is a
/// clean shutdown: a waiting review is answered CANCELLED and its files are removed. (SIGPIPE is
/// ignored by the Rust runtime: a closed pipe is a write error, and the end of input ends the
/// server.) Installs the handlers at once, so call it before anything else can receive a signal.
pub fn shutdown() -> impl Future<Output = ()> + Send + 'static {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let watched = (|| {
            Ok::<_, std::io::Error>((
                signal(SignalKind::terminate())?,
                signal(SignalKind::interrupt())?,
                signal(SignalKind::hangup())?,
                signal(SignalKind::quit())?,
            ))
        })();
        async move {
            match watched {
                Ok((mut term, mut int, mut hup, mut quit)) => {
                    tokio::select! {
                        _ = term.recv() => {}
                        _ = int.recv() => {}
                        _ = hup.recv() => {}
                        _ = quit.recv() => {}
                    }
                }
                Err(e) => {
                    tracing::warn!(
                        "cannot watch for SIGTERM/SIGINT/SIGHUP ({e}); stop the server by closing its input or killing it"
                    );
                    std::future::pending::<()>().await;
                }
            }
        }
    }
    #[cfg(not(unix))]
    {
        async move {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
