//! The result of `propose_and_review`.

use serde::Serialize;

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
}

/// The JSON object `propose_and_review` returns (keys in this order, absent ones omitted):
/// `session_path`, `user_action`, `message`, `user_feedback_diff`, `diff`.
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
