//! Reviews in the page: `propose_and_review` waits for a save of its `future_` file; the page
//! shows the diff and approves by saving that file (unchanged to approve, edited to give
//! feedback), exactly what a human does in a diff editor.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Value, json};

/// A proposal waiting for the human.
#[derive(Debug, Clone)]
struct Waiting {
    session_path: String,
    path: String,
    current: PathBuf,
    future: PathBuf,
}

/// The proposals waiting for a decision, filled by the review manager's `on_waiting` hook.
#[derive(Clone, Default)]
pub struct Pending {
    waiting: Arc<Mutex<Vec<Waiting>>>,
}

impl Pending {
    /// The hook the review manager calls when a proposal starts waiting.
    pub fn hook(&self) -> fs_mcp_edit::WaitingHook {
        let waiting = Arc::clone(&self.waiting);
        Arc::new(move |info: &fs_mcp_edit::WaitingInfo| {
            tracing::info!("review waiting in the page for {}", info.path);
            let mut list = waiting.lock().unwrap_or_else(PoisonError::into_inner);
            list.retain(|w| w.session_path != info.session_path);
            list.push(Waiting {
                session_path: info.session_path.clone(),
                path: info.path.clone(),
                current: info.current.clone(),
                future: info.future.clone(),
            });
        })
    }

    /// Open proposals with their diff (sessions whose files are gone are dropped).
    pub fn list(&self) -> Value {
        let mut list = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
        list.retain(|w| w.future.exists());
        let items: Vec<Value> = list
            .iter()
            .map(|w| {
                let current = std::fs::read_to_string(&w.current).unwrap_or_default();
                let future = std::fs::read_to_string(&w.future).unwrap_or_default();
                let diff = similar::TextDiff::from_lines(&current, &future)
                    .unified_diff()
                    .context_radius(3)
                    .header(
                        &format!("{} (current)", w.path),
                        &format!("{} (proposed)", w.path),
                    )
                    .to_string();
                json!({
                    "session_path": w.session_path,
                    "path": w.path,
                    "diff": diff,
                    "proposed": future,
                })
            })
            .collect();
        json!({ "reviews": items })
    }

    /// Saves the proposal file: unchanged (`content` None) approves it, edited content is the
    /// human's feedback. The waiting `propose_and_review` call then answers the agent.
    pub fn decide(&self, session_path: &str, content: Option<&str>) -> Result<(), String> {
        let mut list = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(index) = list.iter().position(|w| w.session_path == session_path) else {
            return Err(format!(
                "no open review with session_path {session_path:?}; reload the list of reviews"
            ));
        };
        let future = list[index].future.clone();
        let bytes = match content {
            Some(text) => text.as_bytes().to_vec(),
            None => std::fs::read(&future)
                .map_err(|e| format!("cannot read the proposal {}: {e}", future.display()))?,
        };
        std::fs::write(&future, bytes)
            .map_err(|e| format!("cannot save the proposal {}: {e}", future.display()))?;
        list.remove(index);
        Ok(())
    }
}
