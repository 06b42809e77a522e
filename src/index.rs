//! `--index`: one grep index ([`fs_mcp_index::Index`]) of the allowed directories in force. The
//! index belongs to a set of directories: when a call's sandbox has others (the client's roots
//! changed, or an HTTP session has other roots), the old index is dropped and a new one is
//! built in the background, the calls meanwhile scanning.

use std::sync::{Arc, Mutex};

use fs_mcp_index::{Index, IndexConfig};
use fs_mcp_sandbox::Sandbox;
use fs_mcp_search::{CandidatePlan, GrepOptions};

/// The index of the directories last searched.
#[derive(Default)]
pub struct SearchIndex {
    current: Mutex<Option<Arc<Index>>>,
}

impl SearchIndex {
    /// The candidate plan for a `grep_content` call in `sandbox`, or `None` to scan (see
    /// [`Index::plan`]). Starts the index of `sandbox`'s directories on first use.
    pub fn plan(&self, sandbox: &Sandbox, options: &GrepOptions) -> Option<CandidatePlan> {
        let index = self.index_of(sandbox)?;
        index.plan(
            &options.search_path,
            &options.pattern,
            options.case_insensitive,
            options.include_hidden,
            options.include_ignored,
        )
    }

    fn index_of(&self, sandbox: &Sandbox) -> Option<Arc<Index>> {
        let mut current = self.current.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(index) = current
            .as_ref()
            .filter(|i| i.roots() == sandbox.root_paths())
        {
            return Some(Arc::clone(index));
        }
        if current.take().is_some() {
            tracing::info!("index: the allowed directories changed; indexing the new ones");
        }
        match Index::new(sandbox, IndexConfig::default()) {
            Ok(index) => {
                let index = Arc::new(index);
                *current = Some(Arc::clone(&index));
                Some(index)
            }
            Err(e) => {
                tracing::warn!("index: cannot create its private directory ({e}); searches scan");
                None
            }
        }
    }
}
