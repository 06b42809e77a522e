//! The sandbox of one client session, and MCP roots.
//!
//! Directories given on the command line always win. Without them the server starts on the
//! current directory, and if the client supports roots, the client's roots replace it: fetched
//! before the first tool call of the session, and again after `notifications/roots/list_changed`.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use fs_mcp_sandbox::Sandbox;
use rmcp::RoleServer;
use rmcp::service::Peer;

/// How long a client may take to answer `roots/list`.
const ROOTS_TIMEOUT: Duration = Duration::from_secs(10);

/// One client session's sandbox: the command line's directories, or the client's MCP roots once
/// fetched (and fetched again after `notifications/roots/list_changed`).
pub struct SessionSandbox {
    current: RwLock<Arc<Sandbox>>,
    /// The directories came from the command line: roots are never asked for.
    from_cli: bool,
    /// The client's roots have not been fetched since the session started or they last changed.
    stale: AtomicBool,
    /// One roots fetch at a time.
    refreshing: tokio::sync::Mutex<()>,
}

impl SessionSandbox {
    /// Starts with `sandbox`; with `from_cli`, the client's roots are never asked for.
    pub fn new(sandbox: Arc<Sandbox>, from_cli: bool) -> SessionSandbox {
        SessionSandbox {
            current: RwLock::new(sandbox),
            from_cli,
            stale: AtomicBool::new(!from_cli),
            refreshing: tokio::sync::Mutex::new(()),
        }
    }

    /// The sandbox in force now (the last one fetched, while a refresh runs).
    pub fn get(&self) -> Arc<Sandbox> {
        match self.current.read() {
            Ok(guard) => Arc::clone(&guard),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }

    fn set(&self, sandbox: Sandbox) {
        let mut guard = match self.current.write() {
            Ok(guard) => guard,
            Err(poisoned) => poisoned.into_inner(),
        };
        *guard = Arc::new(sandbox);
    }

    /// The client said its roots changed.
    pub fn mark_stale(&self) {
        if !self.from_cli {
            self.stale.store(true, Ordering::SeqCst);
        }
    }

    /// Fetches the client's roots if they are due and the client supports them; the new
    /// sandbox when its allowed directories changed.
    #[allow(deprecated)] // Roots are deprecated by SEP-2577 but are what today's clients send.
    pub async fn refresh_from_roots(&self, peer: &Peer<RoleServer>) -> Option<Arc<Sandbox>> {
        if self.from_cli || !self.stale.load(Ordering::SeqCst) {
            return None;
        }
        let supports_roots = peer
            .peer_info()
            .is_some_and(|info| info.capabilities.roots.is_some());
        if !supports_roots {
            self.stale.store(false, Ordering::SeqCst);
            return None;
        }
        let _one_at_a_time = self.refreshing.lock().await;
        if !self.stale.swap(false, Ordering::SeqCst) {
            return None;
        }
        let listed = tokio::time::timeout(ROOTS_TIMEOUT, peer.list_roots()).await;
        let roots = match listed {
            Ok(Ok(result)) => result.roots,
            Ok(Err(e)) => {
                tracing::warn!(
                    "the client did not list its roots ({e}); keeping {}",
                    self.describe()
                );
                return None;
            }
            Err(_) => {
                tracing::warn!(
                    "the client did not list its roots within {ROOTS_TIMEOUT:?}; keeping {}",
                    self.describe()
                );
                return None;
            }
        };
        let dirs: Vec<PathBuf> = roots
            .iter()
            .filter_map(|root| {
                let path = file_uri_to_path(&root.uri);
                if path.is_none() {
                    tracing::warn!(
                        "ignoring root {} (only file:// roots are supported)",
                        root.uri
                    );
                }
                path
            })
            .collect();
        let read_only = self.get().is_read_only();
        match Sandbox::new(&dirs) {
            Ok((sandbox, skipped)) => {
                let sandbox = sandbox.with_read_only(read_only);
                for dir in skipped {
                    tracing::warn!("ignoring root {}: {}", dir.path.display(), dir.reason);
                }
                let changed = sandbox.root_paths() != self.get().root_paths();
                self.set(sandbox);
                tracing::info!(
                    "allowed directories from the client's roots: {}",
                    self.describe()
                );
                changed.then(|| self.get())
            }
            Err(e) => {
                tracing::warn!(
                    "the client's roots are unusable ({e}); keeping {}",
                    self.describe()
                );
                None
            }
        }
    }

    fn describe(&self) -> String {
        self.get()
            .roots()
            .iter()
            .map(|r| r.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// `file:///a%20b/c` → `/a b/c`; anything but a local `file://` URI → `None`.
pub fn file_uri_to_path(uri: &str) -> Option<PathBuf> {
    let url = url::Url::parse(uri).ok()?;
    if url.scheme() != "file" {
        return None;
    }
    // `to_file_path` accepts no host or `localhost` and percent-decodes to the path's bytes.
    url.to_file_path().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_decode() {
        assert_eq!(
            file_uri_to_path("file:///a%20b/c"),
            Some(PathBuf::from("/a b/c"))
        );
        assert_eq!(
            file_uri_to_path("file://localhost/x"),
            Some(PathBuf::from("/x"))
        );
        assert_eq!(
            file_uri_to_path("file:///100%"),
            Some(PathBuf::from("/100%"))
        );
        assert_eq!(file_uri_to_path("https://example.com/x"), None);
        assert_eq!(file_uri_to_path("file://host/x"), None);
    }
}
