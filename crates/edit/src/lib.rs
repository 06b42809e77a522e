//! Human-reviewed edits for fs-mcp-rs: the `propose_and_review` / `commit_review` workflow, and
//! the atomic, style-preserving writes the `--all` tier tools share.
//!
//! This crate knows nothing of MCP and names no tool. The MCP layer converts its tool arguments
//! into a [`ProposeRequest`], calls [`ReviewManager::propose_and_review`] (passing the request's
//! cancellation as a future) or [`ReviewManager::commit_review`], and words the result for the
//! model: a [`ReviewOutcome`] (the verdict and its data, with [`Note`]s) or an [`EditError`]
//! (what failed as a [`Failure`] with its values, its [`ErrorKind`], the [`NextStep`], recovery
//! [`Hints`] with their [`Diagnosis`], the diff of a conflict). All of it is data: no sentence
//! for the model is written here.
//!
//! # The workflow
//!
//! 1. The agent proposes an edit (a single `match_text` → `new_string`, a batch of `edits`, or
//!    the sentinels `""` for a new file, `OVERWRITE_FILE` and `APPEND_TO_FILE`). Every
//!    validation of the original server applies (blank `match_text` on a non-empty file, the
//!    2,000-character limit and its bypass, …), with the same recovery hints (see [`hints`]),
//!    as data.
//!    An item of `edits` may name its own `path`: one proposal then changes several files (one
//!    diff, one verdict, a commit that writes all of them or none: see `changeset.rs`).
//! 2. [`ReviewManager::stage`] writes the proposal to a private session directory as
//!    `current_<name>` (before) and `future_<name>` (after) and returns it open; the caller picks
//!    where the human sees it: the client's own form ([`ReviewManager::decide`] with the
//!    [`Verdict`]), the review command ([`ReviewManager::await_editor`], default
//!    `code --diff {current} {future}`, started without a shell), or a review page
//!    ([`ReviewManager::pending`] now, [`ReviewManager::submit_verdict`] from the page,
//!    collected by a later call with `session_path` and no edit).
//! 3. Verdicts mean the same everywhere: approve → `COMMITTED`; reject (declined, dismissed) →
//!    nothing written, `REJECTED` with the human's comment; an edited version (a save of
//!    `future_<name>` with changes, or the page's edited text) → `REVIEW` with a unified diff of
//!    the human's changes, and the session continues from the human's version. Saves are
//!    detected with `notify` on the session directory.
//! 4. The wait ends early on cancellation (`CANCELLED`) or after the review timeout (`TIMEOUT`);
//!    the user's file is then untouched and the session stays open.
//!
//! # Nothing lost
//!
//! * Only what the human approved is written, atomically (temp file created in the target's
//!   directory handle, fsync, rename in that handle), keeping the file's permissions, line
//!   endings, BOM and final newline (or its absence) — see [`atomic`] and [`text_style`]. The
//!   model always sees LF text without a BOM.
//! * The commit locates the file again through the sandbox when it happens (a path that now
//!   leads outside or to another file is refused, nothing written), and compares it with the
//!   proposal's base under the directory's lock, in the same critical section as the rename
//!   (compare-and-swap, across server processes too). A reviewed proposal whose file changed is
//!   refused (`conflict`, with the diff of what changed) and both versions stay; an
//!   auto-approved one is applied again on the new content when its `match_text` still matches
//!   exactly, else it is a `conflict`.
//! * `session_path` is only ever looked up among this server's live sessions.
//!
//! # Fixes relative to the original (fs-mcp 1.23.2)
//!
//! Trailing newlines are no longer stripped and CRLF is no longer converted; hints are computed
//! against the sandbox-resolved file, not the process's CWD; duplicate matches get their own
//! hint; `session_path` is validated; no shell runs the editor; the wait has a timeout and
//! honours cancellation; `OVERWRITE_FILE` and `expected_replacements` work when continuing a
//! session; near-miss recovery (typographic characters, a unique ≥99% block) from v1.32.1 is
//! adopted and reported in the message.
//!
//! # Use from the MCP layer
//!
//! ```no_run
//! use std::sync::Arc;
//! use std::time::Duration;
//! use fs_mcp_edit::{
//!     ProposeRequest, ReviewConfig, ReviewManager, ReviewOwner, parse_command_template,
//! };
//!
//! # async fn demo(sandbox: fs_mcp_sandbox::Sandbox) -> Result<(), Box<dyn std::error::Error>> {
//! let manager = Arc::new(ReviewManager::new(ReviewConfig {
//!     review_command: Some(parse_command_template("code --diff {current} {future}")?),
//!     review_timeout: Duration::from_secs(600),
//!     ..ReviewConfig::default()
//! })?);
//! // `cancel` completes when the client cancels the request, e.g. `token.cancelled()` of a
//! // `tokio_util::sync::CancellationToken`; `std::future::pending()` never cancels.
//! let request = ProposeRequest::single("src/main.rs", "fn old()", "fn new()");
//! // The calling client: only it can continue or collect the review it starts.
//! let owner = ReviewOwner::client(1, &sandbox);
//! match manager.propose_and_review(&sandbox, request, &owner, std::future::pending()).await {
//!     Ok(outcome) => println!("{:?}", outcome.user_action()), // a normal tool result
//!     Err(error) => eprintln!("{error}"),                     // an error tool result (isError)
//! }
//! let text = manager
//!     .commit_review(&sandbox, "/tmp/fs-mcp-rs-reviews-…/s-…", "src/main.rs", &owner)
//!     .await;
//! # let _ = text;
//! # Ok(())
//! # }
//! ```

#![warn(missing_docs)]

mod approval;
pub mod atomic;
mod changeset;
mod commit;
mod committed;
mod diff;
mod editor;
mod error;
mod fuzzy;
pub mod hints;
mod manager;
mod mkdir;
pub mod near_miss;
mod outcome;
mod prepare;
mod proposal;
mod request;
mod session;
pub mod text_style;
pub mod tier_tools;
mod validate;
mod watch;

pub use diff::{
    Diff, DiffCut, DiffVersion, DiffWords, MAX_DIFF_LINE_CHARS, VersionDiff, unified_diff,
};
pub use editor::{
    DEFAULT_REVIEW_COMMAND, LaunchOutcome, WaitingHook, WaitingInfo, default_review_command,
    expand_template, parse_command_template,
};
pub use error::{
    AccessThen, BadSessionPath, CommitRefusal, EditError, EndedWhy, ErrorKind, Failure, Limit,
    NextStep, TokenPurpose, WriteAction, WriteRefusal,
};
pub use hints::{Diagnosis, Hints, RecoveryStep, Searched};
pub use manager::{
    FileDiff, MAX_LISTED_DIFF_BYTES, MAX_LISTED_DIFF_BYTES_EACH, MAX_LISTED_REVIEWS, OpenReview,
    ProposalView, ReviewConfig, ReviewDetail, ReviewList, ReviewListing, ReviewManager, Staged,
};
pub use mkdir::create_directory;
pub use near_miss::{NearMiss, Recovery};
pub use outcome::{
    Approval, Committed, CrashCompleted, Decision, NotCompleted, Note, ReviewCommitted,
    ReviewOutcome, Undecided, UserAction, Written,
};
pub use request::{
    APPEND_TO_FILE, DEFAULT_EXPECTED_REPLACEMENTS, EditSpec, MATCH_TEXT_MAX_LENGTH, OVERWRITE_FILE,
    ProposeRequest,
};
pub use session::{
    Handed, MAX_FILE_BYTES, MAX_OPEN_REVIEW_BYTES, MAX_OPEN_REVIEWS, MAX_REVIEW_BYTES_PER_CLIENT,
    MAX_REVIEWS_PER_CLIENT, ReviewOwner, ReviewScope, Verdict,
};
pub use tier_tools::{append_text, move_file, write_file};
