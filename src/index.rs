//! `--index`: one index ([`fs_mcp_index::Index`]) of the allowed directories in force, used by
//! `grep_content` (the files that may match) and `search_files` (the walk's listing). The
//! index belongs to a set of directories: when a call's sandbox has others (the client's roots
//! changed, or an HTTP session has other roots), the old index is dropped and a new one is
//! built in the background, the calls meanwhile scanning.

use std::sync::{Arc, Mutex};

use fs_mcp_index::{Index, IndexConfig};
use fs_mcp_sandbox::Sandbox;
use std::path::Path;

use fs_mcp_search::{CandidatePlan, GrepOptions, IndexedListing, ListingSource};

/// The index of the directories last searched.
#[derive(Default)]
pub struct SearchIndex {
    current: Mutex<Option<Arc<Index>>>,
}

impl SearchIndex {
    /// What the index says for a `grep_content` call in `sandbox` (see [`Index::plan`]). The
    /// index of `sandbox`'s directories is built in the background once this call's search is
    /// over (when the answer is dropped), so the first search runs alone and never waits.
    pub fn plan(&self, sandbox: &Sandbox, options: &GrepOptions) -> Option<IndexedSearch> {
        let index = self.index_of(sandbox)?;
        let plan = index.plan(
            &options.search_path,
            &options.pattern,
            options.case_insensitive,
            options.include_hidden,
            options.include_ignored,
        );
        Some(IndexedSearch { plan, index })
    }

    /// What the index lists for a `search_files` call in `sandbox` (see [`Index::listing`]);
    /// like [`SearchIndex::plan`], the index is built once this call's search is over.
    pub fn listing_source(&self, sandbox: &Sandbox) -> Option<IndexedListingSource> {
        let index = self.index_of(sandbox)?;
        Some(IndexedListingSource { index })
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

/// The index's answer for one search; starts the index's build, if not built yet, when dropped
/// (after the search).
pub struct IndexedSearch {
    plan: Option<CandidatePlan>,
    index: Arc<Index>,
}

impl IndexedSearch {
    /// The files to open, or `None`: the search scans.
    pub fn candidates(&self) -> Option<&CandidatePlan> {
        self.plan.as_ref()
    }
}

impl Drop for IndexedSearch {
    fn drop(&mut self) {
        self.index.start();
    }
}

/// The index as the source of a `search_files` listing; starts the index's build, if not built
/// yet, when dropped (after the search).
pub struct IndexedListingSource {
    index: Arc<Index>,
}

impl ListingSource for IndexedListingSource {
    fn listing(&self, root: &Path, wanted: &dyn Fn(&Path) -> bool) -> Option<IndexedListing> {
        self.index.listing(root, wanted)
    }
}

impl Drop for IndexedListingSource {
    fn drop(&mut self) {
        self.index.start();
    }
}
