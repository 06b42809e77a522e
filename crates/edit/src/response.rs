//! The result of `propose_and_review`, and how its messages are put together.

use std::path::Path;

use fs_mcp_sandbox::Sandbox;
use serde::Serialize;

use crate::approval::CommitInfo;
use crate::atomic::WriteReport;

/// What the human (or the wait) decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum UserAction {
    /// The change is written to the file (approved unchanged, or auto-approved).
    Committed,
    /// The human edited the proposal; `user_feedback_diff` shows how.
    Review,
    /// Nobody decided within the review timeout; the file is unchanged, the session stays open.
    Timeout,
    /// The call was cancelled; the file is unchanged, the session stays open.
    Cancelled,
    /// The human rejected the proposal (or declined or dismissed the form): nothing written,
    /// the session ended; `user_comment` says why when they did.
    Rejected,
    /// The proposal waits in the review page; nothing written yet. Give the human the link and
    /// collect the verdict with `session_path`.
    Pending,
}

/// The JSON object `propose_and_review` returns (keys in this order, absent ones omitted):
/// `session_path`, `user_action`, `message`, `user_comment`, `user_feedback_diff`, `diff`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReviewResponse {
    /// The session to continue (REVIEW, TIMEOUT, CANCELLED; COMMITTED only when the session
    /// directory could not be removed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_path: Option<String>,
    /// What happened.
    pub user_action: UserAction,
    /// What happened and what to do next, for the model.
    pub message: String,
    /// The human's comment (REJECTED, or COMMITTED when they added one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_comment: Option<String>,
    /// REVIEW: unified diff from the proposal to the human's version.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_feedback_diff: Option<String>,
    /// Auto-approve: unified diff from the original to the committed text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
}

impl ReviewResponse {
    /// Pretty JSON (two-space indent), as the original server rendered it.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|_| self.message.clone())
    }

    /// The response as a JSON value (for structured content).
    pub fn to_json_value(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }
}

pub(crate) fn join_message(mut message: String, notes: &[String]) -> String {
    for n in notes {
        message.push(' ');
        message.push_str(n);
    }
    message
}

pub(crate) fn created_dirs_note(
    report: &WriteReport,
    sandbox_display: impl Fn(&Path) -> String,
) -> Option<String> {
    if report.created_dirs.is_empty() {
        return None;
    }
    let list = report
        .created_dirs
        .iter()
        .map(|d| sandbox_display(d))
        .collect::<Vec<_>>()
        .join(", ");
    Some(format!("Created missing parent directories: {list}."))
}

pub(crate) fn committed_response(
    lead: String,
    shown: &str,
    info: &CommitInfo,
    notes: &[String],
    sandbox: &Sandbox,
) -> ReviewResponse {
    let mut all: Vec<String> = Vec::new();
    all.extend(created_dirs_note(&info.report, |d| sandbox.display(d)));
    all.extend(notes.iter().cloned());
    match &info.cleanup_error {
        None => ReviewResponse {
            session_path: None,
            user_action: UserAction::Committed,
            message: join_message(lead, &all),
            user_comment: None,
            user_feedback_diff: None,
            diff: None,
        },
        Some(e) => ReviewResponse {
            session_path: Some(info.session_path.clone()),
            user_action: UserAction::Committed,
            message: join_message(
                format!(
                    "Successfully committed changes to '{shown}', but failed to clean up session dir: {e}"
                ),
                &all,
            ),
            user_comment: None,
            user_feedback_diff: None,
            diff: None,
        },
    }
}

pub(crate) fn review_response(
    session_path: &str,
    lead: &str,
    shown: &str,
    diff: String,
    notes: &[String],
) -> ReviewResponse {
    let message = format!(
        "{lead} To continue, call propose_and_review with session_path='{session_path}' and a match_text taken from the user's version; to accept the user's version as it is, call commit_review(session_path='{session_path}', original_path='{shown}')."
    );
    ReviewResponse {
        session_path: Some(session_path.to_string()),
        user_action: UserAction::Review,
        message: join_message(message, notes),
        user_comment: None,
        user_feedback_diff: Some(diff),
        diff: None,
    }
}
