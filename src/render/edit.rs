//! What the model reads from the edit tools (propose_and_review, commit_review, write_file,
//! append_text, move_file, create_directory): the verdict reply `propose_and_review` documents
//! (built here only), their other results, and their errors in the one error format, with next
//! steps naming only listed tools. `fs_mcp_edit` gives the facts and the next steps as data.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use fs_mcp_edit::{
    APPEND_TO_FILE, AccessThen, Approval, BadSessionPath, CommitRefusal, CrashCompleted, Decision,
    Diagnosis, Diff, DiffCut, DiffVersion, DiffWords, EditError, EndedWhy, Failure, Hints,
    LaunchOutcome, Limit, MATCH_TEXT_MAX_LENGTH, MAX_FILE_BYTES, MAX_OPEN_REVIEW_BYTES,
    MAX_OPEN_REVIEWS, MAX_REVIEW_BYTES_PER_CLIENT, MAX_REVIEWS_PER_CLIENT, NearMiss, NextStep,
    NotCompleted, Note, Recovery, RecoveryStep, ReviewCommitted, ReviewOutcome, Searched,
    TokenPurpose, Undecided, VersionDiff, WriteAction, WriteRefusal, Written,
};
use fs_mcp_text::{NotText, describe_io};
use rmcp::model::{CallToolResult, ContentBlock};
use serde::Serialize;

use super::ListedTools;
use crate::params::{EDITS, EXPECTED_REPLACEMENTS};

/// The JSON object `propose_and_review` returns (keys in this order, absent ones omitted).
#[derive(Debug, Serialize)]
struct VerdictReply<'a> {
    /// The session to continue (REVIEW, PENDING, TIMEOUT, CANCELLED; COMMITTED only when the
    /// session directory could not be removed).
    #[serde(skip_serializing_if = "Option::is_none")]
    session_path: Option<&'a str>,
    user_action: &'static str,
    /// What happened and what to do next.
    message: String,
    /// The human's comment (REJECTED, or COMMITTED when they added one).
    #[serde(skip_serializing_if = "Option::is_none")]
    user_comment: Option<&'a str>,
    /// REVIEW: unified diff from the proposal to the human's version.
    #[serde(skip_serializing_if = "Option::is_none")]
    user_feedback_diff: Option<String>,
    /// Auto-approve: what was written; PENDING: the proposal.
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<String>,
}

/// Around a verdict: what the binary knows and the crate does not.
#[derive(Debug, Clone, Default)]
pub struct ReplyContext {
    /// The server is shutting down (a cancelled review's files go with the process).
    pub shutting_down: bool,
    /// Why the client's review form did not serve (the page was offered instead).
    pub form_failed: Option<FormFailure>,
    /// A PENDING proposal is shown in the review view inside the client (MCP Apps), not on
    /// the review page.
    pub in_app: bool,
}

/// Why the client's review form did not serve, so the review page was offered instead.
#[derive(Debug, Clone)]
pub enum FormFailure {
    /// The client failed the request, with this error.
    Error(String),
    /// The client closed the form without approval this soon after it was sent: too soon for
    /// anyone to have read it (a headless client), so no one rejected anything.
    ClosedUnseen(Duration),
}

/// `propose_and_review`'s answer: the verdict as the JSON object its description documents
/// (pretty, two-space indent).
pub fn verdict_reply(
    outcome: &ReviewOutcome,
    listed: &ListedTools,
    context: &ReplyContext,
) -> CallToolResult {
    let reply = verdict(outcome, listed, context);
    let text = serde_json::to_string_pretty(&reply).unwrap_or_else(|_| reply.message.clone());
    CallToolResult::success(vec![ContentBlock::text(text)])
}

/// The quoted names of `files`: `'a.txt', 'b.txt'`.
fn quoted(files: &[String]) -> String {
    files
        .iter()
        .map(|f| format!("'{f}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// "10 min", "30 s", "1500 ms".
fn humanize(d: Duration) -> String {
    let ms = d.as_millis();
    if ms >= 60_000 && ms.is_multiple_of(60_000) {
        format!("{} min", ms / 60_000)
    } else if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{ms} ms")
    }
}

fn verdict<'a>(
    outcome: &'a ReviewOutcome,
    listed: &ListedTools,
    context: &ReplyContext,
) -> VerdictReply<'a> {
    let propose = propose(listed);
    let mut reply = VerdictReply {
        session_path: outcome.session_path(),
        user_action: outcome.user_action().as_str(),
        message: String::new(),
        user_comment: None,
        user_feedback_diff: None,
        diff: None,
    };
    reply.message = match &outcome.decision {
        Decision::Committed(c) => {
            let files = quoted(&c.files);
            reply.user_comment = c.comment.as_deref();
            reply.diff = c.diff.as_ref().map(diff_text);
            let mut message = match (&c.cleanup_failed, c.approval) {
                (Some((_, e)), _) => format!(
                    "Successfully committed changes to {files}, but failed to clean up session dir: {e}"
                ),
                (None, Approval::Reviewed) => {
                    format!("Changes committed to {files}. No further action needed.")
                }
                (None, Approval::Auto) => format!("Committed {files} (auto-approve)."),
                (None, Approval::BeforeThisCall) => format!(
                    "The user approved your previous proposal (saved it unchanged) after the last call ended, so it is now committed to {files}. Your new edit was NOT applied: re-read the file and {propose} again without session_path if it is still needed."
                ),
            };
            if c.comment.is_some() {
                message.push_str(" The user added a comment (user_comment).");
            }
            message
        }
        Decision::Rejected { files, comment } => {
            reply.user_comment = comment.as_deref();
            let next = if comment.is_some() {
                format!(
                    "user_comment says why: {propose} again without session_path, with an edit revised accordingly."
                )
            } else {
                "Ask the user what they want instead before proposing again.".to_string()
            };
            format!(
                "The user rejected the proposal: {} not changed and the review session ended. {next}",
                quoted(files)
            )
        }
        Decision::Feedback {
            session_path,
            diff,
            before_this_call,
            ..
        } => {
            reply.user_feedback_diff = Some(version_diff(diff));
            let lead = if *before_this_call {
                "The user edited the proposal after the last call ended; the diff shows their changes. Your new edit was NOT applied. Propose it again against the user's version."
            } else {
                "User provided feedback. A diff is included. Propose a new edit against the updated content."
            };
            format!(
                "{lead} To continue, {propose} with session_path='{session_path}' and a match_text taken from the user's version."
            )
        }
        Decision::Pending {
            session_path,
            path,
            diff,
            link,
        } => {
            reply.diff = Some(diff_text(diff));
            if context.in_app {
                return VerdictReply {
                    message: format!(
                        "Not written yet: the user reviews it in the view shown with this result. Now {propose}(path='{path}', session_path='{session_path}') with no edit to collect the verdict: that call waits until the user approves, rejects or edits it there, so the user types nothing."
                    ),
                    ..reply
                };
            }
            let collect = format!(
                "Give the user this link to review it in the browser: {link} . Then {propose}(path='{path}', session_path='{session_path}') with no edit to collect the verdict (it waits for it)."
            );
            match &context.form_failed {
                Some(FormFailure::ClosedUnseen(after)) => format!(
                    "Not written, and not rejected either: the client closed the review form {} after the server sent it, too fast for anyone to have read it, so no one has seen this proposal (headless clients such as `claude -p` do this). {collect} If no one is there to review (an unattended run), tell the user that such runs need the server started with --auto-approve.",
                    humanize(*after)
                ),
                Some(FormFailure::Error(e)) => format!(
                    "The client could not show its review form ({e}). Not written yet. {collect}"
                ),
                None => format!("Not written yet. {collect}"),
            }
        }
        Decision::Undecided {
            path,
            why: Undecided::Cancelled,
            ..
        } if context.shutting_down => {
            // The session's files go with the process: nothing to resume.
            reply.session_path = None;
            return VerdictReply {
                message: format!(
                    "The server is shutting down, so the review was cancelled: '{path}' was not changed and the review files are removed. Propose the edit again once the server runs again."
                ),
                ..reply
            };
        }
        Decision::Undecided {
            session_path,
            path,
            why,
            editor_file,
        } => {
            let lead = match why {
                Undecided::TimedOut(d) => format!("No review decision within {}.", humanize(*d)),
                Undecided::Cancelled => "The review was cancelled.".to_string(),
                Undecided::Untouched => {
                    "The proposal file was touched but not changed;".to_string()
                }
            };
            match (why, editor_file) {
                (Undecided::Untouched, _) => format!(
                    "{lead} '{path}' was not changed. {} with session_path='{session_path}' and no edit to wait for the verdict.",
                    capitalized(propose.to_string())
                ),
                (_, Some(file)) => format!(
                    "{lead} '{path}' was not changed. The review session stays open: the user can still review the diff and save {} (unchanged to approve, edited to give feedback). To continue, {propose} with session_path='{session_path}' and no edit to wait for the verdict again.",
                    file.display()
                ),
                (_, None) => format!(
                    "{lead} '{path}' was not changed. The review session stays open: to continue, {propose} with session_path='{session_path}' and no edit to ask for the verdict again."
                ),
            }
        }
    };
    for note in &outcome.notes {
        reply.message.push(' ');
        reply.message.push_str(&note_text(note));
    }
    reply
}

/// A note of a verdict in words.
fn note_text(note: &Note) -> String {
    match note {
        Note::CreatedDirs(dirs) => {
            format!("Created missing parent directories: {}.", dirs.join(", "))
        }
        Note::Reapplied { path } => format!(
            "Note: '{path}' changed on disk while this edit was being committed (another edit landed first); your edit was applied again on top of the new content (its match_text still matched exactly), so both changes are kept. 'diff' shows what your edit changed."
        ),
        Note::NewEditNotApplied => {
            "Your new edit was NOT applied: the user decided on your previous proposal first."
                .to_string()
        }
        Note::MixedLineEndings { path, line_ending } => format!(
            "Note: '{path}' had mixed line endings; it is written with {line_ending} line endings throughout."
        ),
        Note::EditorNotOpened {
            launch,
            current,
            future,
        } => format!(
            "Note: {}; the user has to {}",
            launch_text(launch),
            manual_instructions(current, future)
        ),
        Note::NearMiss(near_miss) => near_miss_text(near_miss),
        Note::CrashCompleted(done) => crash_completed_text(done),
    }
}

/// What became of the review command, in words.
fn launch_text(launch: &LaunchOutcome) -> String {
    match launch {
        LaunchOutcome::Launched { program } => format!("launched '{program}'"),
        LaunchOutcome::NotFound { program } => {
            format!("the review editor '{program}' is not installed (not found on PATH)")
        }
        LaunchOutcome::Failed { program, error } => {
            format!("the review editor '{program}' could not be started: {error}")
        }
        LaunchOutcome::Disabled => "no review command is configured".to_string(),
    }
}

/// A path quoted for a shell-like command (single quotes).
fn shell_quote(path: &Path) -> String {
    format!("'{}'", path.to_string_lossy().replace('\'', r"'\''"))
}

/// How to open a review by hand (after "the user has to").
pub fn manual_instructions(current: &Path, future: &Path) -> String {
    let (c, f) = (shell_quote(current), shell_quote(future));
    format!(
        "open the diff by hand, e.g. `code --diff {c} {f}` (or compare the two files in any editor): the first file is the current version, the second the proposal. Saving the proposal file unchanged approves it; editing and saving it sends the changes back as feedback."
    )
}

/// A near-miss recovery: which `match_text` matched where, and how.
fn near_miss_text(near_miss: &NearMiss) -> String {
    let what = match near_miss.edit {
        None => "match_text".to_string(),
        Some(i) => format!("{}.match_text", edit_name(i)),
    };
    let line = near_miss.line;
    match near_miss.recovery {
        Recovery::Typographic => format!(
            "Note: {what} had no exact match; it matched at line {line} after normalising typographic characters (curly quotes, dashes, ellipsis, non-breaking spaces). Check the diff."
        ),
        Recovery::Fuzzy { similarity } => format!(
            "Note: {what} had no exact match; the file's text at line {line} ({similarity}% similar, the only such block) was replaced instead. Check the diff."
        ),
    }
}

/// A multi-file change completed after the crash of the process writing it.
fn crash_completed_text(done: &CrashCompleted) -> String {
    let list = |files: &[String]| {
        if files.is_empty() {
            "none".to_string()
        } else {
            quoted(files)
        }
    };
    let mut text = format!(
        "Note: an approved multi-file change was interrupted by a crash of server process {}; it is now completed: written before the crash: {}; completed now: {}.",
        done.pid,
        list(&done.written_before),
        list(&done.completed_now)
    );
    if !done.failed.is_empty() {
        let failed: Vec<String> = done
            .failed
            .iter()
            .map(|(file, why)| {
                let why = match why {
                    NotCompleted::Access(error) => super::sandbox::what_failed(error),
                    NotCompleted::OtherDirectory => {
                        "its directory is not the one the change was for".to_string()
                    }
                    NotCompleted::Io(error) => error.to_string(),
                };
                format!("'{file}' ({why})")
            })
            .collect();
        let _ = write!(
            text,
            " Could not complete (still old content): {}.",
            failed.join(", ")
        );
    }
    text
}

/// `commit_review`'s answer.
pub fn review_committed(committed: &ReviewCommitted) -> CallToolResult {
    let path = &committed.path;
    let mut text = match &committed.cleanup_failed {
        None => {
            format!("Successfully committed changes to '{path}' and cleaned up the review session.")
        }
        Some((session_path, e)) => format!(
            "Successfully committed changes to {path}, but failed to clean up session dir {session_path}: {e}"
        ),
    };
    if !committed.created_dirs.is_empty() {
        text.push(' ');
        text.push_str(&note_text(&Note::CreatedDirs(
            committed.created_dirs.clone(),
        )));
    }
    CallToolResult::success(vec![ContentBlock::text(text)])
}

/// The answer of a direct write (`write_file`, `append_text`, `move_file`, `create_directory`).
pub fn written(written: &Written) -> CallToolResult {
    let created = |dirs: &[String]| {
        if dirs.is_empty() {
            String::new()
        } else {
            format!(" (created missing parent directories: {})", dirs.join(", "))
        }
    };
    let text = match written {
        Written::Wrote { path, created_dirs } => {
            format!("Successfully wrote to {path}{}", created(created_dirs))
        }
        Written::Appended { path, created_dirs } => format!(
            "Successfully appended content to '{path}'.{}",
            created(created_dirs)
        ),
        Written::Moved {
            source,
            destination,
            created_dirs,
        } => format!("Moved {source} to {destination}{}", created(created_dirs)),
        Written::Directory {
            shown,
            created: true,
        } => format!("Successfully created directory {shown}"),
        Written::Directory {
            shown,
            created: false,
        } => format!("Directory {shown} already exists."),
    };
    CallToolResult::success(vec![ContentBlock::text(text)])
}

/// A failed edit call (`isError: true`): [`error_text`].
pub fn failure(error: &EditError, listed: &ListedTools) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(error_text(error, listed))])
}

/// The error as the model reads it: `Error: <what>. <next step>.` on the first line, then the
/// data to act on (the session that stays open, a failed `match_text`'s hints, the diff of what
/// changed on disk), one item a line.
pub fn error_text(error: &EditError, listed: &ListedTools) -> String {
    let what = match error.hints() {
        Some(hints) => format!("{} {}", what_failed(error.failure()), diagnosis(hints)),
        None => what_failed(error.failure()),
    };
    // A refused path's next step is the sandbox's (the same words every tool gives).
    let next = error
        .access_error()
        .and_then(|access| super::sandbox::next_step(access, listed))
        .or_else(|| error.next().and_then(|n| next_step(n, listed)));
    let mut text = super::error_text(what, next.as_deref());
    // A session to start over from is not offered: its path would read as the one to pass.
    if let Some(session_path) = error.session_path()
        && !error.next().is_some_and(starts_over)
    {
        let _ = write!(text, "\nsession_path: {session_path}");
    }
    if let Some(hints) = error.hints() {
        text.push('\n');
        text.push_str(&hints_text(hints, listed));
    }
    if let Some(diff) = error.diff() {
        text.push_str("\nWhat changed on disk since the proposal:\n");
        text.push_str(&version_diff(diff));
    }
    text
}

/// A diff between two versions of a file, its header naming them: `--- a/x.txt (when proposed)`.
fn version_diff(diff: &VersionDiff) -> String {
    if diff.hunks.is_empty() {
        return String::new();
    }
    format!(
        "--- a/{name} ({})\n+++ b/{name} ({})\n{}",
        version(diff.old),
        version(diff.new),
        diff_text(&diff.hunks),
        name = diff.name
    )
}

/// The words of a diff's cuts: a cut line ends in how much of it is left out, a cut diff ends in
/// a line saying how many lines are not shown and where the whole proposal is.
struct DiffCutWords;

impl DiffWords for DiffCutWords {
    fn cut(&self, cut: DiffCut) -> String {
        match cut {
            DiffCut::Line { more_characters } => format!("… [{more_characters} more characters]"),
            DiffCut::Diff { more_lines } => format!(
                "@@ diff cut: {more_lines} more lines not shown (the whole proposal is in the review files) @@"
            ),
        }
    }
}

/// A diff as text, its cuts worded.
pub fn diff_text(diff: &Diff) -> String {
    diff.worded(&DiffCutWords)
}

/// A version of a file, as a diff header names it.
fn version(version: DiffVersion) -> &'static str {
    match version {
        DiffVersion::WhenProposed => "when proposed",
        DiffVersion::OnDiskNow => "on disk now",
        DiffVersion::AgentProposal => "agent proposal",
        DiffVersion::UsersPreviousVersion => "user's previous version",
        DiffVersion::UserFeedback => "user feedback",
    }
}

/// Why a file's bytes are not text, worded to follow "Cannot edit 'x': ".
fn not_text(error: NotText) -> String {
    match error {
        NotText::Binary => "it looks like a binary file (it contains a NUL byte)".to_string(),
        NotText::InvalidUtf8 { valid_up_to } => {
            format!("it is not valid UTF-8 text (first invalid byte at offset {valid_up_to})")
        }
    }
}

/// An edit of a batch as the model wrote it: `edits[2]` is the third item of its `edits` array
/// (a bare "edit 2" reads as 1-based to a model).
fn edit_name(edit: usize) -> String {
    format!("{}[{edit}]", EDITS.name)
}

/// "edits[2]: " for the third item of `edits`, "" for the single `match_text`.
fn edit_prefix(edit: Option<usize>) -> String {
    edit.map_or_else(String::new, |i| format!("{}: ", edit_name(i)))
}

/// `count` and `noun`, the noun in the plural unless the count is one: "1 line", "2 lines".
fn counted(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

/// "1 time", "2 times".
fn times(count: usize) -> String {
    counted(count, "time")
}

/// The session's text a continuing edit is searched in: the last proposal, or the user's changes
/// to it (the session does not say whether the user changed it).
const SESSION_VERSION: &str =
    "the session's current version (your last proposal, with any changes the user saved)";

/// Whole MiB, rounded down.
fn mib(bytes: u64) -> u64 {
    bytes / (1024 * 1024)
}

/// A limit in whole MiB, or in bytes when it is not a whole number of MiB.
fn size_limit(limit: u64) -> String {
    if limit.is_multiple_of(1024 * 1024) {
        format!("{} MiB", mib(limit))
    } else {
        format!("{limit} bytes")
    }
}

/// "3 MiB are held", "1 MiB is held" (rounded up, as the proposal's need).
fn mib_held(bytes: usize) -> String {
    match bytes.div_ceil(1024 * 1024) {
        1 => "1 MiB is".to_string(),
        n => format!("{n} MiB are"),
    }
}

/// The size of `bytes`, over `limit`, worded so the number shown exceeds the limit shown in
/// whole MiB: whole MiB when they do, else tenths of a MiB (rounded down), else bytes.
fn size_over(bytes: u64, limit: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if mib(bytes) > mib(limit) {
        return format!("{} MiB", mib(bytes));
    }
    let tenths = bytes.saturating_mul(10) / MIB;
    if tenths > mib(limit) * 10 {
        return format!("{}.{} MiB", tenths / 10, tenths % 10);
    }
    format!("{bytes} bytes")
}

/// What failed, in words (the first part of the error's first line).
pub fn what_failed(failure: &Failure) -> String {
    let max_mib = mib(MAX_FILE_BYTES);
    match failure {
        Failure::Access { error, then } => {
            let error = super::sandbox::what_failed(error);
            match then {
                AccessThen::AsIs => error,
                AccessThen::NothingWritten => format!("{error} Nothing was written."),
                AccessThen::SessionStaysOpen => {
                    format!("{error} Nothing was written; the session stays open.")
                }
            }
        }
        Failure::NoEdit => "No edit given.".to_string(),
        Failure::EditsAndMatchText { edits } => format!(
            "Both {} ({edits} {}) and match_text/new_string were given, so it is unclear which change is meant. Put that change into {} as one more item, or leave {} out.",
            EDITS.name,
            if *edits == 1 { "edit" } else { "edits" },
            EDITS.name,
            EDITS.name
        ),
        Failure::EmptyEdits => format!(
            "{} is empty and neither match_text nor new_string was given: there is no change to propose. Give {} at least one {{match_text, new_string}}.",
            EDITS.name, EDITS.name
        ),
        Failure::BlankMatchText { edit } => format!(
            "{}match_text is empty but the file has content",
            edit_prefix(*edit)
        ),
        Failure::AppendToMissingFile { edit } => format!(
            "{}File must exist for {APPEND_TO_FILE}.",
            edit_prefix(*edit)
        ),
        Failure::MatchTextTooLong { edit } => format!(
            "{}match_text is too long (over {MATCH_TEXT_MAX_LENGTH} characters)",
            edit_prefix(*edit)
        ),
        Failure::OverwriteInBatch => {
            "Edit with empty match_text (full rewrite) cannot be combined with other edits."
                .to_string()
        }
        Failure::MatchCount {
            edit: None,
            in_session: false,
            found: 0,
            ..
        } => "Edit preparation failed: No match found for 'match_text'.".to_string(),
        Failure::MatchCount {
            edit: None,
            in_session: false,
            found,
            expected,
        } => format!(
            "Edit preparation failed: Expected {} but found {found}.",
            counted(*expected, "occurrence")
        ),
        Failure::MatchCount {
            edit: None,
            in_session: true,
            found,
            expected,
        } => format!(
            "Contextual patch failed. The provided 'match_text' was found {} in {SESSION_VERSION}, but expected exactly {expected}.",
            times(*found)
        ),
        Failure::MatchCount {
            edit: Some(i),
            in_session: false,
            found: 0,
            ..
        } => format!("{}: No match found for 'match_text'.", edit_name(*i)),
        Failure::MatchCount {
            edit: Some(i),
            in_session: false,
            found,
            expected,
        } => format!(
            "{}: Expected {} but found {found}. Provide more context in match_text to ensure uniqueness.",
            edit_name(*i),
            counted(*expected, "occurrence")
        ),
        Failure::MatchCount {
            edit: Some(i),
            in_session: true,
            found,
            expected,
        } => format!(
            "{}: match_text found {} in {SESSION_VERSION}, expected {expected}.",
            edit_name(*i),
            times(*found)
        ),
        Failure::NoChanges => "Edit preparation failed: No changes to apply.".to_string(),
        Failure::FileNotFound { path } => {
            format!("Edit preparation failed: File not found: {path}")
        }
        Failure::IsDirectory { path } => format!("'{path}' is a directory, not a file."),
        Failure::NotRegularFile { path, kind } => format!(
            "'{path}' is {}, not a regular file; only regular files are edited.",
            kind.described()
        ),
        Failure::FileTooLarge { path, bytes } => format!(
            "'{path}' is too large to review ({}; the limit is {max_mib} MiB).",
            size_over(*bytes, MAX_FILE_BYTES)
        ),
        Failure::FileNotText { path, error } => {
            format!("Cannot edit '{path}': {}.", not_text(*error))
        }
        Failure::ReadFile { path, error } => format!("Cannot read '{path}': {error}"),
        Failure::ProposalTooLarge { path, bytes } => format!(
            "The proposed content for '{path}' is too large ({}; the limit is {max_mib} MiB).",
            size_over(*bytes as u64, MAX_FILE_BYTES)
        ),
        Failure::ProposalWouldGrow { path } => format!(
            "The proposed content for '{path}' would be larger than the {} MiB a review takes; nothing was proposed. Propose a smaller change.",
            MAX_FILE_BYTES >> 20
        ),
        Failure::SameFileTwice { path, other } => format!(
            "'{path}' and '{other}' name the same file: give all its edits the same path."
        ),
        Failure::MultiFileContinued => {
            "A proposal whose edits name several files cannot continue a session".to_string()
        }
        Failure::MultiFileSessionEdited { session_path } => format!(
            "Session {session_path} reviews a multi-file proposal, which cannot be changed with new edits"
        ),
        Failure::OtherFileSession {
            session_path,
            reviews,
            path,
        } => format!("Session {session_path} reviews '{reviews}', not '{path}'"),
        Failure::Limit(limit) => {
            let what = match limit {
                Limit::ClientReviews => format!(
                    "Too many open reviews of this client: at most {MAX_REVIEWS_PER_CLIENT} review sessions a client (one a file) are open at once."
                ),
                Limit::ServerReviews => format!(
                    "Too many open reviews: this server holds at most {MAX_OPEN_REVIEWS} review sessions at once, of all its clients."
                ),
                Limit::ClientBytes { needed, held } => format!(
                    "This client's open reviews would hold more than {} MiB: this proposal needs {} MiB and {} held.",
                    MAX_REVIEW_BYTES_PER_CLIENT >> 20,
                    needed.div_ceil(1 << 20),
                    mib_held(*held)
                ),
                Limit::ServerBytes { needed, held } => format!(
                    "The open reviews would hold more than {} MiB: this proposal needs {} MiB and {} held.",
                    MAX_OPEN_REVIEW_BYTES >> 20,
                    needed.div_ceil(1 << 20),
                    mib_held(*held)
                ),
            };
            format!("{what} Nothing was proposed.")
        }
        Failure::ReadSessionFile { file, error } => {
            format!("Cannot read {}: {error}", file.display())
        }
        Failure::WriteSessionFile { file, error } => {
            format!("Cannot write {}: {error}", file.display())
        }
        Failure::SessionFileNotText { file, error } => {
            format!("Cannot use {}: {}.", file.display(), not_text(*error))
        }
        Failure::RecordUserVersion { file, error } => format!(
            "Cannot record the user's version in {}: {error}",
            file.display()
        ),
        Failure::ReviewedNotText {
            file,
            error,
            stays_open,
        } => format!(
            "The reviewed file {} cannot be used: {}{}",
            file.display(),
            not_text(*error),
            if *stays_open {
                "; the session stays open"
            } else {
                ""
            }
        ),
        Failure::CreateSession { error } => format!("Cannot create a review session: {error}"),
        Failure::WriteReviewFiles { error } => format!("Cannot write the review files: {error}"),
        Failure::Random {
            purpose: TokenPurpose::FormState,
            error,
        } => format!("Cannot draw a random state for the form: {error}"),
        Failure::Random {
            purpose: TokenPurpose::ViewToken,
            error,
        } => format!("Cannot draw a random token for the view: {error}"),
        Failure::Watch { file, error } => format!(
            "Cannot watch {} for the review: {error}. The session stays open",
            file.display()
        ),
        Failure::WatchFailed { file, path, error } => format!(
            "Watching {} for the review failed: {error}. '{path}' was not changed; the session stays open",
            file.display()
        ),
        Failure::Internal { error } => {
            format!("Internal error: the file operation did not finish ({error}).")
        }
        Failure::SessionEnded => "The review session has ended.".to_string(),
        Failure::SessionEndedUnexpectedly => "The review session ended unexpectedly.".to_string(),
        Failure::SessionClosed { session_path, why } => format!(
            "The review session {session_path} has ended: {}. Nothing was written.",
            ended_why(why)
        ),
        Failure::BadSessionPath { session_path, why } => {
            let why = match why {
                BadSessionPath::NotAbsolute => "It is not an absolute path.",
                BadSessionPath::ParentDir => "It must not contain '..'.",
                BadSessionPath::NotOpen => "It is not an open review session of this client.",
            };
            format!(
                "Invalid session path: {session_path}. {why} A session ends when its changes are committed or rejected."
            )
        }
        Failure::SessionGone { session_path } => {
            format!("Invalid session path: {session_path}. The session has ended.")
        }
        Failure::SessionBusy { session_path } => format!(
            "Session {session_path} is in use by another call (it is waiting for the user's review)"
        ),
        Failure::UnknownFormState => "The answer to the review form names no open review of this client (it ended, or the state was not the one this server sent). Nothing was written.".to_string(),
        Failure::UnknownVerdictToken => "This verdict names no open review of this client (the review ended, its verdict was already given, or the token is not one this server gave). Nothing was written.".to_string(),
        Failure::MultiFileEditedInView => "A multi-file proposal is approved or rejected as a whole, not edited in the view. Nothing was written.".to_string(),
        Failure::MultiFileEdited => "An edited version cannot be sent for a multi-file proposal: approve or reject it (with a comment saying what to change).".to_string(),
        Failure::MultiFileCommitted { session_path } => format!(
            "Session {session_path} is a multi-file proposal: it is committed only as a whole, when the user approves it. Nothing was written."
        ),
        Failure::NotSessionFile {
            original_path,
            session_path,
            file,
        } => format!(
            "original_path '{original_path}' is not the file of session {session_path} (that is '{file}'). Nothing was written."
        ),
        Failure::ApprovedFileMissing { file } => {
            format!("Approved file not found in session: {}", file.display())
        }
        Failure::NotReviewed {
            session_path,
            file,
            original_path,
        } => format!(
            "The proposal in session {session_path} has not been reviewed: the user has not saved {} since it was proposed, so nothing is approved and '{original_path}' was not changed",
            file.display()
        ),
        Failure::Conflict { path, kept } => format!(
            "Conflict: '{path}' changed on disk after this proposal was made (edited, created, moved or deleted by someone else), so nothing was written: the file on disk is as they left it, and the reviewed version is kept in {}.",
            kept.display()
        ),
        Failure::AutoConflict { path } => format!(
            "Conflict: '{path}' changed on disk while this edit was being committed (another edit landed first), and the edit does not apply cleanly to the new content (a match_text no longer occurs exactly as expected, the file was deleted, or the edit replaces the whole file); nothing was written"
        ),
        Failure::MultiFileConflict { path } => format!(
            "Conflict: '{path}' changed on disk after this multi-file proposal was made, so no file of the change was written."
        ),
        Failure::CommitRefused { path, why, kept } => {
            let kept = kept.as_ref().map_or_else(String::new, |file| {
                format!(
                    " The reviewed version is kept in {} and the session stays open.",
                    file.display()
                )
            });
            match why {
                CommitRefusal::Access(error) => format!(
                    "Cannot commit to '{path}' now: {} Nothing was written.{kept}",
                    super::sandbox::what_failed(error)
                ),
                CommitRefusal::Moved { now, target } => format!(
                    "Conflict: '{path}' now leads to '{now}', not to '{target}' where this edit was proposed (a directory on the way was moved, renamed or replaced), so nothing was written.{kept}"
                ),
                CommitRefusal::NotRegular(kind) => format!(
                    "Cannot commit to '{path}': it is now {}, not a regular file. Nothing was written.{kept}",
                    kind.described()
                ),
                CommitRefusal::TooLarge(bytes) => format!(
                    "Cannot commit to '{path}': it is now too large to edit ({}; the limit is {max_mib} MiB). Nothing was written.{kept}",
                    size_over(*bytes, MAX_FILE_BYTES)
                ),
                CommitRefusal::KeptChanging => format!(
                    "Cannot commit to '{path}': it kept changing (renamed or replaced) while it was being written, so nothing was written.{kept}"
                ),
                CommitRefusal::Io(error) => format!(
                    "Failed to write final content to {path}: {error}. The file was not changed.{kept}"
                ),
            }
        }
        Failure::FilesKeptChanging => "The files kept changing (renamed or replaced) while the change was being committed, so nothing was written.".to_string(),
        Failure::CommitChange { error } => {
            format!("Cannot commit the change: {error}. Nothing was written.")
        }
        Failure::PartlyCommitted {
            written,
            failed,
            error,
        } => format!(
            "The change was committed only in part: {} written; writing '{failed}' failed: {error}. Every file holds either its old or its new content",
            if written.is_empty() {
                "no file".to_string()
            } else {
                quoted(written)
            }
        ),
        Failure::WriteRefused { action, path, why } => {
            let verb = match action {
                WriteAction::Write => "write to",
                WriteAction::Append => "append to",
            };
            match why {
                WriteRefusal::IsDirectory => {
                    format!("Cannot {verb} '{path}': it is a directory.")
                }
                WriteRefusal::NotRegular(kind) => format!(
                    "Cannot {verb} '{path}': it is {}; only regular files are written. Nothing was read or written.",
                    kind.described()
                ),
                WriteRefusal::KeptChanging => format!(
                    "Cannot {verb} '{path}': it kept changing (renamed or replaced) while it was being written; nothing was written"
                ),
                WriteRefusal::TooLarge { bytes, limit } => format!(
                    "Cannot {verb} '{path}': it is too large ({}; the limit is {}). Nothing was written.",
                    size_over(*bytes, *limit),
                    size_limit(*limit)
                ),
                WriteRefusal::Io(error) => format!("Failed to {verb} '{path}': {error}"),
            }
        }
        Failure::HardLinked { path, links } => format!(
            "Cannot append to '{path}': it has {links} hard links (other names for the same file, possibly outside the allowed directories), and an append in place would change them all; nothing was written"
        ),
        Failure::AppendToNonText { path } => {
            format!("Cannot append text to '{path}': it is not a UTF-8 text file.")
        }
        Failure::MoveRoot { source } => {
            format!("Cannot move {source}: it is an allowed directory itself.")
        }
        Failure::SourceMissing { source } => format!("Source {source} does not exist."),
        Failure::DestinationExists { destination } => {
            format!("Destination {destination} already exists")
        }
        Failure::MoveIntoItself {
            source,
            destination,
        } => format!("Cannot move {source} into itself ({destination})."),
        Failure::CreateDestination { error } => {
            format!("Cannot create the destination directory: {error}")
        }
        Failure::CrossDevice {
            source,
            destination,
        } => format!(
            "Cannot move {source} to {destination}: they are on different filesystems (a rename cannot cross them)."
        ),
        Failure::SourceVanished {
            source,
            destination,
        } => format!(
            "Failed to move {source} to {destination}: it was moved or removed meanwhile; nothing was moved."
        ),
        Failure::MoveFailed {
            source,
            destination,
            error,
        } => format!("Failed to move {source} to {destination}: {error}"),
        Failure::NotADirectory { shown } => format!(
            "{shown} already exists and is not a directory, so no directory can be created there."
        ),
        Failure::CreateDirectory { shown, error } => format!(
            "{shown}: cannot create directory: {}.",
            describe_io(error)
        ),
        Failure::NoReviewChannel { error } => format!(
            "Cannot start the review page on 127.0.0.1 ({error}), and no other review channel is available: nothing was written"
        ),
    }
}

/// Why a review ended without its client's call, in words.
fn ended_why(why: &EndedWhy) -> String {
    match why {
        EndedWhy::ClientGone => "the MCP session of the client that proposed it ended (closed, expired or replaced), so its approval could never be collected".to_string(),
        EndedWhy::OutsideRoots { file } => format!(
            "this client's allowed directories (its roots) changed and '{file}' is no longer inside them"
        ),
    }
}

/// A proposal refused because the server is shutting down.
pub fn shutting_down() -> CallToolResult {
    super::failure(
        "The server is shutting down; no new review is started",
        Some("Call propose_and_review again once it runs again"),
    )
}

/// `tool` when it is listed, else `otherwise`.
fn tool_or<'a>(listed: &ListedTools, tool: &'a str, otherwise: &'a str) -> &'a str {
    if listed.has(tool) { tool } else { otherwise }
}

/// "call propose_and_review" or, when it is not listed, a description of the same act.
fn propose(listed: &ListedTools) -> &'static str {
    if listed.has("propose_and_review") {
        "call propose_and_review"
    } else {
        "propose the edit"
    }
}

/// The step is a new proposal without session_path (the session is not to be continued).
fn starts_over(next: &NextStep) -> bool {
    matches!(
        next,
        NextStep::ReadAndProposeAgain { .. }
            | NextStep::ReadAndProposeAgainOrMerge { .. }
            | NextStep::ProposeWithoutSession
            | NextStep::SameFileOrNewSession { .. }
    )
}

/// The next step in words, one step, naming only listed tools (`None`: nothing a listed tool
/// can do).
pub fn next_step(next: &NextStep, listed: &ListedTools) -> Option<String> {
    let propose = propose(listed);
    let commit = listed.has("commit_review");
    let words = match next {
        NextStep::ReadAndProposeAgain { path } => {
            let what = path.as_ref().map_or("the files".to_string(), |p| format!("'{p}'"));
            format!("Re-read {what} and {propose} again without session_path")
        }
        NextStep::ReadAndProposeAgainOrMerge { path } => format!(
            "Re-read '{path}' and {propose} again without session_path (the reviewed version stays in the file named above, for the user to compare)"
        ),
        NextStep::TryAgain => "Try again".to_string(),
        NextStep::NextProposalCompletes => {
            format!("The next time you {propose}, the server completes the rest")
        }
        NextStep::WriteWholeFile if listed.has("write_file") => "To change only this name, write the whole new content with write_file (it replaces the name atomically, leaving the other names as they were)".to_string(),
        NextStep::WriteWholeFile if listed.has("propose_and_review") => "To change only this name, replace its whole content with propose_and_review and match_text='OVERWRITE_FILE' (the name is replaced atomically, leaving the other names as they were)".to_string(),
        NextStep::WriteWholeFile => return None,
        NextStep::CommitAfterSave { session_path, path } if commit => format!(
            "After the user has saved the file, call commit_review(session_path='{session_path}', original_path='{path}')"
        ),
        NextStep::CommitAfterSave { session_path, .. } => format!(
            "After the user has saved the file, {propose} with session_path='{session_path}' and no edit to get the verdict"
        ),
        NextStep::CollectVerdict { session_path, path } => format!(
            "To get the verdict, {propose}(path='{path}', session_path='{session_path}') with no edit"
        ),
        NextStep::AwaitReview { .. } if commit => "Ask the user to review the diff and save that file (unchanged to approve), then call commit_review again".to_string(),
        NextStep::AwaitReview { session_path } => format!(
            "{propose} with session_path='{session_path}' and no edit to wait for the review"
        ),
        NextStep::AcceptUserVersion { session_path, path } if commit => format!(
            "To accept the user's version as it is, call commit_review(session_path='{session_path}', original_path='{path}')"
        ),
        NextStep::AcceptUserVersion { .. } => return None,
        NextStep::ProposeWithoutSession => format!("{propose} without session_path"),
        NextStep::SameFileOrNewSession { path } => {
            format!("To edit '{path}', {propose} without session_path")
        }
        NextStep::UseReturnedSessionPath => {
            "Use the session_path of the latest review reply".to_string()
        }
        NextStep::ReadBeforeReplacing => {
            let read = listed
                .any_of(&["read_files", "grep_content"])
                .map_or("Read the current content first".to_string(), |tools| {
                    format!("Use {tools} first to get the current content")
                });
            format!(
                "You MUST provide the exact text you want to replace. {read}, then provide the EXACT lines you want to change in match_text. For an intentional full-file overwrite, pass match_text='OVERWRITE_FILE'"
            )
        }
        NextStep::ShortenMatchText => format!(
            "Break your change into several smaller edits with the '{}' parameter, each match_text under {MATCH_TEXT_MAX_LENGTH} characters; only to replace one large contiguous section (e.g. a large markdown block), set bypass_match_text_limit=true",
            EDITS.name
        ),
        NextStep::SaveAsUtf8 => "Ask the user to save it as UTF-8 text".to_string(),
        NextStep::WaitForOtherCall => "Wait for that call to finish, or cancel it".to_string(),
        NextStep::ConfigureReview => "Start the server with --review-command (an installed diff tool) or --auto-approve".to_string(),
        NextStep::FinishOpenReviews { idle_minutes } => format!(
            "Finish the open ones (collect each verdict: {propose} with its path and session_path), or wait until they close after {} unused",
            counted(usize::try_from(*idle_minutes).unwrap_or(usize::MAX), "minute")
        ),
    };
    Some(capitalized(words))
}

fn capitalized(text: String) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) if first.is_lowercase() => first.to_uppercase().chain(chars).collect(),
        _ => text,
    }
}

/// A failed `match_text`'s hints, one item a line: similar blocks (their previews as JSON
/// strings, so file contents cannot pass for our lines), occurrences, the outline, keywords, then
/// the numbered recovery steps.
fn hints_text(hints: &Hints, listed: &ListedTools) -> String {
    let mut text = String::new();
    if let Some(suggestions) = &hints.suggestions {
        let verify = if listed.has("read_files") {
            "; verify with read_files"
        } else {
            ""
        };
        let _ = writeln!(
            text,
            "Similar text (previews may hide whitespace differences: tabs, spaces, line endings{verify}):"
        );
        for s in suggestions {
            let preview = serde_json::to_string(&s.preview).unwrap_or_default();
            let _ = writeln!(
                text,
                "  lines {}-{} ({}% similar): {preview}",
                s.line_start, s.line_end, s.similarity
            );
        }
    }
    if let Some(occurrences) = &hints.occurrences {
        let lines: Vec<String> = occurrences.iter().map(usize::to_string).collect();
        let start = if lines.len() == 1 {
            "The occurrence starts at line"
        } else {
            "Occurrences start at lines"
        };
        let _ = writeln!(text, "{start} {}.", lines.join(", "));
    }
    if let Some(outline) = &hints.outline {
        let _ = writeln!(
            text,
            "Outline of the file ({}):",
            counted(hints.line_count, "line")
        );
        for item in outline {
            let _ = writeln!(text, "  line {}: {} {}", item.line, item.kind, item.name);
        }
    }
    if let Some(keywords) = &hints.suggested_grep_keywords
        && !keywords.is_empty()
    {
        let quoted: Vec<String> = keywords
            .iter()
            .map(|k| serde_json::to_string(k).unwrap_or_default())
            .collect();
        let _ = writeln!(text, "Keywords to search for: {}.", quoted.join(", "));
    }
    text.push_str("Recovery steps:");
    for (i, step) in hints.recovery_steps.iter().enumerate() {
        let _ = write!(text, "\n{}. {}.", i + 1, recovery_step(step, listed));
    }
    text
}

/// The one-sentence diagnosis of a failed `match_text`, ending with where it was searched.
fn diagnosis(hints: &Hints) -> String {
    let searched = match hints.searched {
        Searched::File => String::new(),
        Searched::Session => " (session)".to_string(),
        Searched::FileEdit(i) => format!(" ({})", edit_name(i)),
        Searched::SessionEdit(i) => format!(" (session, {})", edit_name(i)),
    };
    let lines = hints.line_count;
    match &hints.diagnosis {
        Diagnosis::VerySimilar {
            similarity,
            line_start,
            line_end,
        } => format!(
            "Found very similar text ({similarity}% character match) at lines {line_start}-{line_end}. Likely a whitespace or minor difference.{searched}"
        ),
        Diagnosis::SimilarBlocks {
            count,
            similarity,
            line_start,
            line_end,
        } => format!(
            "Found {}. Best: {similarity}% at lines {line_start}-{line_end}.{searched}",
            counted(*count, "similar block")
        ),
        Diagnosis::NothingSimilar {
            with_keywords: true,
        } => format!("No similar text found in {lines}-line file.{searched}"),
        Diagnosis::NothingSimilar {
            with_keywords: false,
        } => format!("No similar text found in {lines}-line file; its outline follows.{searched}"),
        Diagnosis::NoMatch => format!(
            "No match found in {lines}-line file. The match_text may be outdated or from a different file.{searched}"
        ),
        Diagnosis::WrongCount {
            found,
            expected,
            more,
            can_set_expected,
        } => {
            let listed = hints
                .occurrences
                .iter()
                .flatten()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ");
            let more = if *more { ", …" } else { "" };
            let alternative = if *can_set_expected {
                format!(
                    ", or set {}={found} to replace every occurrence",
                    EXPECTED_REPLACEMENTS.name
                )
            } else {
                String::new()
            };
            let starting = if *found == 1 {
                "starting at line"
            } else {
                "starting at lines"
            };
            format!(
                "match_text occurs {} ({starting} {listed}{more}), expected {expected}.{searched} Add neighbouring lines to match_text so that it matches exactly the text you mean{alternative}.",
                times(*found)
            )
        }
    }
}

/// One recovery step in words, naming only listed tools.
fn recovery_step(step: &RecoveryStep, listed: &ListedTools) -> String {
    let read = listed.has("read_files");
    let grep = listed.has("grep_content");
    let retry = tool_or(listed, "propose_and_review", "the proposal");
    match step {
        RecoveryStep::ReadLines { path, start, end } if read => {
            format!("Call read_files with path='{path}', start_line={start}, end_line={end}")
        }
        RecoveryStep::ReadLines { path, start, end } => {
            format!("Read lines {start}-{end} of '{path}'")
        }
        RecoveryStep::CompareWhitespace => "Compare that text character by character with your match_text (tabs vs spaces, trailing whitespace)".to_string(),
        RecoveryStep::VerifySection => {
            "Check that this is the code section you meant to edit".to_string()
        }
        RecoveryStep::CopyExactText => "Copy the EXACT text you read as your new match_text".to_string(),
        RecoveryStep::RetryCorrected => format!("Retry {retry} with the corrected match_text"),
        RecoveryStep::Search { pattern } if grep => {
            format!("Call grep_content with pattern='{pattern}' to locate the code")
        }
        RecoveryStep::Search { pattern } => format!("Look for '{pattern}' to locate the code"),
        RecoveryStep::NoteSearchLines => "Note the line numbers found".to_string(),
        RecoveryStep::ReadFoundLines { path } if read => {
            format!("Call read_files with path='{path}' and the line range found")
        }
        RecoveryStep::ReadFoundLines { path } => format!("Read '{path}' at the lines found"),
        RecoveryStep::ReviewOutline => {
            "Find in the outline the function or class that holds your target".to_string()
        }
        RecoveryStep::SearchKeyword if grep => {
            "Call grep_content with a distinctive keyword from your match_text".to_string()
        }
        RecoveryStep::SearchKeyword => {
            "Look for a distinctive keyword from your match_text".to_string()
        }
        RecoveryStep::VerifyPath => "Check that you are editing the right file".to_string(),
        RecoveryStep::ReadCurrent { path } if read => {
            format!("Call read_files with path='{path}' to get the current content")
        }
        RecoveryStep::ReadCurrent { path } => format!("Read the current content of '{path}'"),
        RecoveryStep::UpdateMatchText => {
            "Update match_text to the file's current text".to_string()
        }
        RecoveryStep::ExtendMatchText => "Extend match_text with lines before or after the occurrence you mean, so that it is unique".to_string(),
        RecoveryStep::RetryExtended => format!("Retry {retry} with the extended match_text"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(names: &[&str]) -> ListedTools {
        ListedTools::new(names.iter().map(|s| s.to_string()))
    }

    /// The limit and the parameter named are the declared ones, worded as before.
    #[test]
    fn shorten_match_text_names_the_edits_parameter_and_the_limit() {
        assert_eq!(
            next_step(&NextStep::ShortenMatchText, &listed(&[])).as_deref(),
            Some(
                "Break your change into several smaller edits with the 'edits' parameter, each match_text under 2000 characters; only to replace one large contiguous section (e.g. a large markdown block), set bypass_match_text_limit=true"
            )
        );
    }

    /// The reply's text as JSON, with its top-level keys in the order written.
    struct Reply {
        value: serde_json::Value,
        keys: Vec<String>,
    }

    impl std::ops::Index<&str> for Reply {
        type Output = serde_json::Value;
        fn index(&self, key: &str) -> &serde_json::Value {
            &self.value[key]
        }
    }

    fn parsed(result: &CallToolResult) -> Reply {
        let text = result.content[0].as_text().map(|t| t.text.clone()).unwrap();
        let keys = text
            .lines()
            .filter_map(|l| l.strip_prefix("  \""))
            .filter_map(|l| l.split('"').next().map(str::to_string))
            .collect();
        Reply {
            value: serde_json::from_str(&text).unwrap(),
            keys,
        }
    }

    fn reply(outcome: &ReviewOutcome, listed: &ListedTools) -> Reply {
        parsed(&verdict_reply(outcome, listed, &ReplyContext::default()))
    }

    fn keys(reply: &Reply) -> Vec<&str> {
        reply.keys.iter().map(String::as_str).collect()
    }

    #[test]
    fn a_verdict_is_the_documented_json_object() {
        let tools = listed(&["propose_and_review", "commit_review"]);
        let committed = ReviewOutcome::new(
            Decision::Committed(fs_mcp_edit::Committed {
                files: vec!["t.py".into()],
                approval: Approval::Reviewed,
                comment: None,
                diff: None,
                cleanup_failed: None,
            }),
            vec![Note::CreatedDirs(vec!["sub".into()])],
        );
        let v = reply(&committed, &tools);
        assert_eq!(keys(&v), ["user_action", "message"]);
        assert_eq!(v["user_action"], "COMMITTED");
        assert_eq!(
            v["message"],
            "Changes committed to 't.py'. No further action needed. Created missing parent directories: sub."
        );

        let timeout = ReviewOutcome::new(
            Decision::Undecided {
                session_path: "/s".into(),
                path: "t.py".into(),
                why: Undecided::TimedOut(Duration::from_millis(200)),
                editor_file: Some("/s/future_t.py".into()),
            },
            Vec::new(),
        );
        let v = reply(&timeout, &tools);
        assert_eq!(keys(&v), ["session_path", "user_action", "message"]);
        assert_eq!(v["user_action"], "TIMEOUT");
        let message = v["message"].as_str().unwrap();
        assert!(message.starts_with("No review decision within 200 ms. 't.py' was not changed."));
        assert!(message.ends_with(
            "To continue, call propose_and_review with session_path='/s' and no edit to wait for the verdict again."
        ));

        let feedback = ReviewOutcome::new(
            Decision::Feedback {
                session_path: "/s".into(),
                path: "t.py".into(),
                diff: feedback_diff(),
                before_this_call: false,
            },
            Vec::new(),
        );
        let v = reply(&feedback, &tools);
        assert_eq!(
            keys(&v),
            [
                "session_path",
                "user_action",
                "message",
                "user_feedback_diff"
            ]
        );
        assert_eq!(v["user_action"], "REVIEW");
        assert_eq!(
            v["user_feedback_diff"],
            "--- a/future_t.py (agent proposal)\n+++ b/future_t.py (user feedback)\n@@ -1 +1 @@\n-a\n+b\n"
        );
    }

    fn feedback_diff() -> VersionDiff {
        VersionDiff {
            name: "future_t.py".into(),
            old: DiffVersion::AgentProposal,
            new: DiffVersion::UserFeedback,
            hunks: "@@ -1 +1 @@\n-a\n+b\n".into(),
        }
    }

    /// A diff's cuts (data from the crate) are worded here: a cut line ends in how much was left
    /// out, a cut diff ends in a line counting the lines not shown.
    #[test]
    fn a_diffs_cuts_are_worded() {
        let long = "x".repeat(fs_mcp_edit::MAX_DIFF_LINE_CHARS + 500);
        let cut_line = diff_text(&fs_mcp_edit::unified_diff(
            &format!("{long}\n"),
            "y\n",
            "a/f",
            "b/f",
        ));
        assert_eq!(
            cut_line,
            format!(
                "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-{}… [501 more characters]\n+y\n",
                "x".repeat(fs_mcp_edit::MAX_DIFF_LINE_CHARS - 1)
            )
        );
        let old: String = (0..40_000).map(|i| format!("line {i}\n")).collect();
        let new: String = (0..40_000).map(|i| format!("LINE {i}\n")).collect();
        let cut_diff = diff_text(&fs_mcp_edit::unified_diff(&old, &new, "a/f", "b/f"));
        let last = cut_diff.lines().last().unwrap_or_default();
        let kept = cut_diff.lines().count() - 1;
        // Header, hunk header, and 80,000 changed lines in all.
        assert_eq!(
            last,
            format!(
                "@@ diff cut: {} more lines not shown (the whole proposal is in the review files) @@",
                80_003 - kept
            )
        );
        assert!(cut_diff.ends_with("@@\n"));
    }

    /// A diff's header names its two versions (the crate gives them as data); equal versions
    /// give no diff at all.
    #[test]
    fn diff_headers_name_the_versions() {
        let diff = |old, new, hunks: &str| {
            version_diff(&VersionDiff {
                name: "x.txt".into(),
                old,
                new,
                hunks: hunks.into(),
            })
        };
        assert_eq!(
            diff(
                DiffVersion::WhenProposed,
                DiffVersion::OnDiskNow,
                "@@ -1 +1 @@\n-a\n+b\n"
            ),
            "--- a/x.txt (when proposed)\n+++ b/x.txt (on disk now)\n@@ -1 +1 @@\n-a\n+b\n"
        );
        assert_eq!(
            diff(
                DiffVersion::UsersPreviousVersion,
                DiffVersion::UserFeedback,
                "@@\n"
            ),
            "--- a/x.txt (user's previous version)\n+++ b/x.txt (user feedback)\n@@\n"
        );
        assert_eq!(
            diff(DiffVersion::AgentProposal, DiffVersion::UserFeedback, ""),
            ""
        );
    }

    #[test]
    fn a_cancel_at_shutdown_leaves_no_session_to_resume() {
        let cancelled = ReviewOutcome::new(
            Decision::Undecided {
                session_path: "/s".into(),
                path: "t.py".into(),
                why: Undecided::Cancelled,
                editor_file: None,
            },
            Vec::new(),
        );
        let context = ReplyContext {
            shutting_down: true,
            form_failed: None,
            in_app: false,
        };
        let v = parsed(&verdict_reply(&cancelled, &listed(&[]), &context));
        assert_eq!(keys(&v), ["user_action", "message"]);
        assert_eq!(v["user_action"], "CANCELLED");
    }

    /// The words that join a second next step to the first.
    const ALTERNATIVES: &[&str] = &["; or ", ", or call", " or call ", "To start over", "; to "];

    fn says_one_step(text: &str) {
        for alternative in ALTERNATIVES {
            assert!(!text.contains(alternative), "two next steps in: {text}");
        }
    }

    #[test]
    fn every_next_step_is_one_step() {
        let session = || "/s".to_string();
        let steps = [
            NextStep::ReadAndProposeAgain { path: None },
            NextStep::ReadAndProposeAgainOrMerge {
                path: "t.py".into(),
            },
            NextStep::TryAgain,
            NextStep::NextProposalCompletes,
            NextStep::WriteWholeFile,
            NextStep::CommitAfterSave {
                session_path: session(),
                path: "t.py".into(),
            },
            NextStep::CollectVerdict {
                session_path: session(),
                path: "t.py".into(),
            },
            NextStep::AwaitReview {
                session_path: session(),
            },
            NextStep::AcceptUserVersion {
                session_path: session(),
                path: "t.py".into(),
            },
            NextStep::ProposeWithoutSession,
            NextStep::SameFileOrNewSession {
                path: "t.py".into(),
            },
            NextStep::UseReturnedSessionPath,
            NextStep::ReadBeforeReplacing,
            NextStep::ShortenMatchText,
            NextStep::SaveAsUtf8,
            NextStep::WaitForOtherCall,
            NextStep::ConfigureReview,
        ];
        for tools in [
            listed(&[
                "propose_and_review",
                "commit_review",
                "read_files",
                "write_file",
            ]),
            listed(&["propose_and_review"]),
        ] {
            for step in &steps {
                if let Some(words) = next_step(step, &tools) {
                    says_one_step(&words);
                }
            }
        }
    }

    #[test]
    fn every_verdict_says_one_next_step() {
        let tools = listed(&["propose_and_review", "commit_review"]);
        let undecided = |why, editor_file: Option<&str>| Decision::Undecided {
            session_path: "/s".into(),
            path: "t.py".into(),
            why,
            editor_file: editor_file.map(Into::into),
        };
        let decisions = [
            Decision::Rejected {
                files: vec!["t.py".into()],
                comment: None,
            },
            Decision::Rejected {
                files: vec!["t.py".into()],
                comment: Some("no".into()),
            },
            Decision::Feedback {
                session_path: "/s".into(),
                path: "t.py".into(),
                diff: feedback_diff(),
                before_this_call: false,
            },
            undecided(
                Undecided::TimedOut(Duration::from_secs(1)),
                Some("/s/future_t.py"),
            ),
            undecided(Undecided::TimedOut(Duration::from_secs(1)), None),
            undecided(Undecided::Cancelled, Some("/s/future_t.py")),
            undecided(Undecided::Untouched, Some("/s/future_t.py")),
        ];
        for decision in decisions {
            let v = reply(&ReviewOutcome::new(decision, Vec::new()), &tools);
            says_one_step(v["message"].as_str().unwrap());
        }
    }

    #[test]
    fn next_steps_name_only_listed_tools() {
        let step = NextStep::WriteWholeFile;
        let all = listed(&["write_file", "propose_and_review"]);
        assert!(next_step(&step, &all).unwrap().contains("write_file"));
        let core = listed(&["propose_and_review"]);
        let words = next_step(&step, &core).unwrap();
        assert!(!words.contains("write_file") && words.contains("OVERWRITE_FILE"));
        assert_eq!(next_step(&step, &listed(&[])), None);

        let read_first = next_step(&NextStep::ReadBeforeReplacing, &listed(&["grep_content"]));
        let read_first = read_first.unwrap();
        assert!(
            read_first.contains("Use grep_content first") && !read_first.contains("read_files")
        );
    }

    fn hints(searched: Searched, diagnosis: Diagnosis) -> Hints {
        Hints {
            searched,
            diagnosis,
            line_count: 12,
            suggestions: None,
            occurrences: Some((1..=20).collect()),
            outline: None,
            suggested_grep_keywords: None,
            recovery_steps: Vec::new(),
        }
    }

    /// Every diagnosis of a failed match_text in words, with where it was searched (the
    /// recorded run covers only some of them).
    #[test]
    fn every_diagnosis_in_words() {
        let cases = [
            (
                Searched::Session,
                Diagnosis::VerySimilar {
                    similarity: 95,
                    line_start: 4,
                    line_end: 5,
                },
                "Found very similar text (95% character match) at lines 4-5. Likely a whitespace or minor difference. (session)",
            ),
            (
                Searched::SessionEdit(2),
                Diagnosis::SimilarBlocks {
                    count: 3,
                    similarity: 70,
                    line_start: 1,
                    line_end: 2,
                },
                "Found 3 similar blocks. Best: 70% at lines 1-2. (session, edits[2])",
            ),
            (
                Searched::FileEdit(0),
                Diagnosis::NothingSimilar {
                    with_keywords: true,
                },
                "No similar text found in 12-line file. (edits[0])",
            ),
            (
                Searched::File,
                Diagnosis::NothingSimilar {
                    with_keywords: false,
                },
                "No similar text found in 12-line file; its outline follows.",
            ),
            (
                Searched::File,
                Diagnosis::NoMatch,
                "No match found in 12-line file. The match_text may be outdated or from a different file.",
            ),
            (
                Searched::FileEdit(1),
                Diagnosis::WrongCount {
                    found: 25,
                    expected: 1,
                    more: true,
                    can_set_expected: false,
                },
                "match_text occurs 25 times (starting at lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, …), expected 1. (edits[1]) Add neighbouring lines to match_text so that it matches exactly the text you mean.",
            ),
        ];
        for (searched, diagnosis_given, words) in cases {
            assert_eq!(diagnosis(&hints(searched, diagnosis_given)), words);
        }
    }

    /// The notes of near misses and of a multi-file change completed after a crash, in words
    /// (neither is in the recorded run).
    #[test]
    fn near_miss_and_crash_notes_in_words() {
        let typographic = Note::NearMiss(NearMiss {
            edit: None,
            line: 3,
            recovery: Recovery::Typographic,
        });
        assert_eq!(
            note_text(&typographic),
            "Note: match_text had no exact match; it matched at line 3 after normalising typographic characters (curly quotes, dashes, ellipsis, non-breaking spaces). Check the diff."
        );
        let fuzzy = Note::NearMiss(NearMiss {
            edit: Some(1),
            line: 7,
            recovery: Recovery::Fuzzy { similarity: 99 },
        });
        assert_eq!(
            note_text(&fuzzy),
            "Note: edits[1].match_text had no exact match; the file's text at line 7 (99% similar, the only such block) was replaced instead. Check the diff."
        );
        let crash = Note::CrashCompleted(CrashCompleted {
            pid: 42,
            written_before: Vec::new(),
            completed_now: vec!["a.txt".into(), "sub/b.txt".into()],
            failed: vec![
                ("c.txt".into(), NotCompleted::OtherDirectory),
                (
                    "d.txt".into(),
                    NotCompleted::Io(std::sync::Arc::new(std::io::Error::other("gone"))),
                ),
            ],
        });
        assert_eq!(
            note_text(&crash),
            "Note: an approved multi-file change was interrupted by a crash of server process 42; it is now completed: written before the crash: none; completed now: 'a.txt', 'sub/b.txt'. Could not complete (still old content): 'c.txt' (its directory is not the one the change was for), 'd.txt' (gone)."
        );
        let not_opened = |launch: LaunchOutcome| {
            note_text(&Note::EditorNotOpened {
                launch,
                current: "/s/current_a.txt".into(),
                future: "/s/it's/future_a.txt".into(),
            })
        };
        let by_hand = "open the diff by hand, e.g. `code --diff '/s/current_a.txt' '/s/it'\\''s/future_a.txt'` (or compare the two files in any editor): the first file is the current version, the second the proposal. Saving the proposal file unchanged approves it; editing and saving it sends the changes back as feedback.";
        assert_eq!(
            not_opened(LaunchOutcome::NotFound {
                program: "code".into()
            }),
            format!(
                "Note: the review editor 'code' is not installed (not found on PATH); the user has to {by_hand}"
            )
        );
        assert_eq!(
            not_opened(LaunchOutcome::Failed {
                program: "code".into(),
                error: "denied".into()
            }),
            format!(
                "Note: the review editor 'code' could not be started: denied; the user has to {by_hand}"
            )
        );
    }

    /// Every failure of the edit crate in words: the sentences the recorded run does not reach
    /// (most of them: a lost session, a conflict, a full disk) are pinned here, with the
    /// limits read from their declarations.
    #[test]
    fn every_failure_in_words() {
        use std::io;
        use std::path::PathBuf;
        use std::sync::Arc;

        use fs_mcp_sandbox::{AccessError, EntryKind};
        use fs_mcp_text::NotText;

        let boom = || Arc::new(io::Error::other("boom"));
        let file = || PathBuf::from("/s/future_a.txt");
        let access = || {
            Arc::new(AccessError::ReadOnly {
                requested: "a.txt".into(),
            })
        };
        let denied = super::super::sandbox::what_failed(&access());
        let s = || "/s".to_string();
        let a = || "a.txt".to_string();
        let commit = |why: CommitRefusal, kept: bool| Failure::CommitRefused {
            path: a(),
            why,
            kept: kept.then(file),
        };
        let write = |action: WriteAction, why: WriteRefusal| Failure::WriteRefused {
            action,
            path: a(),
            why,
        };
        let cases: Vec<(Failure, String)> = vec![
            (Failure::Access { error: access(), then: AccessThen::AsIs }, denied.clone()),
            (
                Failure::Access { error: access(), then: AccessThen::NothingWritten },
                format!("{denied} Nothing was written."),
            ),
            (
                Failure::Access { error: access(), then: AccessThen::SessionStaysOpen },
                format!("{denied} Nothing was written; the session stays open."),
            ),
            (Failure::NoEdit, "No edit given.".into()),
            (
                Failure::EditsAndMatchText { edits: 2 },
                "Both edits (2 edits) and match_text/new_string were given, so it is unclear which change is meant. Put that change into edits as one more item, or leave edits out.".into(),
            ),
            (
                Failure::EmptyEdits,
                "edits is empty and neither match_text nor new_string was given: there is no change to propose. Give edits at least one {match_text, new_string}.".into(),
            ),
            (
                Failure::BlankMatchText { edit: Some(1) },
                "edits[1]: match_text is empty but the file has content".into(),
            ),
            (
                Failure::AppendToMissingFile { edit: None },
                "File must exist for APPEND_TO_FILE.".into(),
            ),
            (
                Failure::MatchTextTooLong { edit: None },
                "match_text is too long (over 2000 characters)".into(),
            ),
            (
                Failure::OverwriteInBatch,
                "Edit with empty match_text (full rewrite) cannot be combined with other edits.".into(),
            ),
            (
                Failure::MatchCount { edit: None, in_session: false, found: 0, expected: 1 },
                "Edit preparation failed: No match found for 'match_text'.".into(),
            ),
            (
                Failure::MatchCount { edit: None, in_session: false, found: 2, expected: 1 },
                "Edit preparation failed: Expected 1 occurrence but found 2.".into(),
            ),
            (
                Failure::MatchCount { edit: None, in_session: true, found: 0, expected: 1 },
                "Contextual patch failed. The provided 'match_text' was found 0 times in the session's current version (your last proposal, with any changes the user saved), but expected exactly 1.".into(),
            ),
            (
                Failure::MatchCount { edit: Some(1), in_session: false, found: 0, expected: 1 },
                "edits[1]: No match found for 'match_text'.".into(),
            ),
            (
                Failure::MatchCount { edit: Some(0), in_session: false, found: 2, expected: 1 },
                "edits[0]: Expected 1 occurrence but found 2. Provide more context in match_text to ensure uniqueness.".into(),
            ),
            (
                Failure::MatchCount { edit: Some(0), in_session: true, found: 2, expected: 1 },
                "edits[0]: match_text found 2 times in the session's current version (your last proposal, with any changes the user saved), expected 1.".into(),
            ),
            (Failure::NoChanges, "Edit preparation failed: No changes to apply.".into()),
            (
                Failure::FileNotFound { path: a() },
                "Edit preparation failed: File not found: a.txt".into(),
            ),
            (Failure::IsDirectory { path: a() }, "'a.txt' is a directory, not a file.".into()),
            (
                Failure::NotRegularFile { path: a(), kind: EntryKind::Fifo },
                "'a.txt' is a named pipe (FIFO), not a regular file; only regular files are edited.".into(),
            ),
            (
                Failure::FileTooLarge { path: a(), bytes: 60 << 20 },
                "'a.txt' is too large to review (60 MiB; the limit is 50 MiB).".into(),
            ),
            (
                Failure::FileNotText { path: a(), error: NotText::Binary },
                "Cannot edit 'a.txt': it looks like a binary file (it contains a NUL byte).".into(),
            ),
            (Failure::ReadFile { path: a(), error: boom() }, "Cannot read 'a.txt': boom".into()),
            (
                Failure::ProposalTooLarge { path: a(), bytes: 51 << 20 },
                "The proposed content for 'a.txt' is too large (51 MiB; the limit is 50 MiB).".into(),
            ),
            (
                Failure::ProposalWouldGrow { path: a() },
                "The proposed content for 'a.txt' would be larger than the 50 MiB a review takes; nothing was proposed. Propose a smaller change.".into(),
            ),
            (
                Failure::SameFileTwice { path: a(), other: "./a.txt".into() },
                "'a.txt' and './a.txt' name the same file: give all its edits the same path.".into(),
            ),
            (
                Failure::MultiFileContinued,
                "A proposal whose edits name several files cannot continue a session".into(),
            ),
            (
                Failure::MultiFileSessionEdited { session_path: s() },
                "Session /s reviews a multi-file proposal, which cannot be changed with new edits".into(),
            ),
            (
                Failure::OtherFileSession { session_path: s(), reviews: a(), path: "b.txt".into() },
                "Session /s reviews 'a.txt', not 'b.txt'".into(),
            ),
            (
                Failure::Limit(Limit::ClientReviews),
                "Too many open reviews of this client: at most 16 review sessions a client (one a file) are open at once. Nothing was proposed.".into(),
            ),
            (
                Failure::Limit(Limit::ServerReviews),
                "Too many open reviews: this server holds at most 64 review sessions at once, of all its clients. Nothing was proposed.".into(),
            ),
            (
                Failure::Limit(Limit::ClientBytes { needed: (1 << 20) + 1, held: 0 }),
                "This client's open reviews would hold more than 128 MiB: this proposal needs 2 MiB and 0 MiB are held. Nothing was proposed.".into(),
            ),
            (
                Failure::Limit(Limit::ServerBytes { needed: 1, held: 3 << 20 }),
                "The open reviews would hold more than 384 MiB: this proposal needs 1 MiB and 3 MiB are held. Nothing was proposed.".into(),
            ),
            (
                Failure::ReadSessionFile { file: file(), error: boom() },
                "Cannot read /s/future_a.txt: boom".into(),
            ),
            (
                Failure::WriteSessionFile { file: file(), error: boom() },
                "Cannot write /s/future_a.txt: boom".into(),
            ),
            (
                Failure::SessionFileNotText { file: file(), error: NotText::Binary },
                "Cannot use /s/future_a.txt: it looks like a binary file (it contains a NUL byte).".into(),
            ),
            (
                Failure::RecordUserVersion { file: file(), error: boom() },
                "Cannot record the user's version in /s/future_a.txt: boom".into(),
            ),
            (
                Failure::ReviewedNotText {
                    file: file(),
                    error: NotText::InvalidUtf8 { valid_up_to: 3 },
                    stays_open: true,
                },
                "The reviewed file /s/future_a.txt cannot be used: it is not valid UTF-8 text (first invalid byte at offset 3); the session stays open".into(),
            ),
            (
                Failure::ReviewedNotText { file: file(), error: NotText::Binary, stays_open: false },
                "The reviewed file /s/future_a.txt cannot be used: it looks like a binary file (it contains a NUL byte)".into(),
            ),
            (Failure::CreateSession { error: boom() }, "Cannot create a review session: boom".into()),
            (Failure::WriteReviewFiles { error: boom() }, "Cannot write the review files: boom".into()),
            (
                Failure::Random { purpose: TokenPurpose::FormState, error: boom() },
                "Cannot draw a random state for the form: boom".into(),
            ),
            (
                Failure::Random { purpose: TokenPurpose::ViewToken, error: boom() },
                "Cannot draw a random token for the view: boom".into(),
            ),
            (
                Failure::Watch { file: file(), error: "boom".into() },
                "Cannot watch /s/future_a.txt for the review: boom. The session stays open".into(),
            ),
            (
                Failure::WatchFailed { file: file(), path: a(), error: "boom".into() },
                "Watching /s/future_a.txt for the review failed: boom. 'a.txt' was not changed; the session stays open".into(),
            ),
            (
                Failure::Internal { error: "task 1 panicked".into() },
                "Internal error: the file operation did not finish (task 1 panicked).".into(),
            ),
            (Failure::SessionEnded, "The review session has ended.".into()),
            (Failure::SessionEndedUnexpectedly, "The review session ended unexpectedly.".into()),
            (
                Failure::SessionClosed { session_path: s(), why: EndedWhy::ClientGone },
                "The review session /s has ended: the MCP session of the client that proposed it ended (closed, expired or replaced), so its approval could never be collected. Nothing was written.".into(),
            ),
            (
                Failure::SessionClosed { session_path: s(), why: EndedWhy::OutsideRoots { file: a() } },
                "The review session /s has ended: this client's allowed directories (its roots) changed and 'a.txt' is no longer inside them. Nothing was written.".into(),
            ),
            (
                Failure::BadSessionPath { session_path: "s".into(), why: BadSessionPath::NotAbsolute },
                "Invalid session path: s. It is not an absolute path. A session ends when its changes are committed or rejected.".into(),
            ),
            (
                Failure::BadSessionPath { session_path: "/s/..".into(), why: BadSessionPath::ParentDir },
                "Invalid session path: /s/... It must not contain '..'. A session ends when its changes are committed or rejected.".into(),
            ),
            (
                Failure::BadSessionPath { session_path: s(), why: BadSessionPath::NotOpen },
                "Invalid session path: /s. It is not an open review session of this client. A session ends when its changes are committed or rejected.".into(),
            ),
            (
                Failure::SessionGone { session_path: s() },
                "Invalid session path: /s. The session has ended.".into(),
            ),
            (
                Failure::SessionBusy { session_path: s() },
                "Session /s is in use by another call (it is waiting for the user's review)".into(),
            ),
            (
                Failure::UnknownFormState,
                "The answer to the review form names no open review of this client (it ended, or the state was not the one this server sent). Nothing was written.".into(),
            ),
            (
                Failure::UnknownVerdictToken,
                "This verdict names no open review of this client (the review ended, its verdict was already given, or the token is not one this server gave). Nothing was written.".into(),
            ),
            (
                Failure::MultiFileEditedInView,
                "A multi-file proposal is approved or rejected as a whole, not edited in the view. Nothing was written.".into(),
            ),
            (
                Failure::MultiFileEdited,
                "An edited version cannot be sent for a multi-file proposal: approve or reject it (with a comment saying what to change).".into(),
            ),
            (
                Failure::MultiFileCommitted { session_path: s() },
                "Session /s is a multi-file proposal: it is committed only as a whole, when the user approves it. Nothing was written.".into(),
            ),
            (
                Failure::NotSessionFile { original_path: "b.txt".into(), session_path: s(), file: a() },
                "original_path 'b.txt' is not the file of session /s (that is 'a.txt'). Nothing was written.".into(),
            ),
            (
                Failure::ApprovedFileMissing { file: file() },
                "Approved file not found in session: /s/future_a.txt".into(),
            ),
            (
                Failure::NotReviewed { session_path: s(), file: file(), original_path: a() },
                "The proposal in session /s has not been reviewed: the user has not saved /s/future_a.txt since it was proposed, so nothing is approved and 'a.txt' was not changed".into(),
            ),
            (
                Failure::Conflict { path: a(), kept: file() },
                "Conflict: 'a.txt' changed on disk after this proposal was made (edited, created, moved or deleted by someone else), so nothing was written: the file on disk is as they left it, and the reviewed version is kept in /s/future_a.txt.".into(),
            ),
            (
                Failure::AutoConflict { path: a() },
                "Conflict: 'a.txt' changed on disk while this edit was being committed (another edit landed first), and the edit does not apply cleanly to the new content (a match_text no longer occurs exactly as expected, the file was deleted, or the edit replaces the whole file); nothing was written".into(),
            ),
            (
                Failure::MultiFileConflict { path: a() },
                "Conflict: 'a.txt' changed on disk after this multi-file proposal was made, so no file of the change was written.".into(),
            ),
            (
                commit(CommitRefusal::Access(access()), true),
                format!("Cannot commit to 'a.txt' now: {denied} Nothing was written. The reviewed version is kept in /s/future_a.txt and the session stays open."),
            ),
            (
                commit(CommitRefusal::Moved { now: "b/a.txt".into(), target: "c/a.txt".into() }, false),
                "Conflict: 'a.txt' now leads to 'b/a.txt', not to 'c/a.txt' where this edit was proposed (a directory on the way was moved, renamed or replaced), so nothing was written.".into(),
            ),
            (
                commit(CommitRefusal::NotRegular(EntryKind::Socket), false),
                "Cannot commit to 'a.txt': it is now a socket, not a regular file. Nothing was written.".into(),
            ),
            (
                commit(CommitRefusal::TooLarge(70 << 20), false),
                "Cannot commit to 'a.txt': it is now too large to edit (70 MiB; the limit is 50 MiB). Nothing was written.".into(),
            ),
            (
                commit(CommitRefusal::KeptChanging, false),
                "Cannot commit to 'a.txt': it kept changing (renamed or replaced) while it was being written, so nothing was written.".into(),
            ),
            (
                commit(CommitRefusal::Io(boom()), true),
                "Failed to write final content to a.txt: boom. The file was not changed. The reviewed version is kept in /s/future_a.txt and the session stays open.".into(),
            ),
            (
                Failure::FilesKeptChanging,
                "The files kept changing (renamed or replaced) while the change was being committed, so nothing was written.".into(),
            ),
            (
                Failure::CommitChange { error: boom() },
                "Cannot commit the change: boom. Nothing was written.".into(),
            ),
            (
                Failure::PartlyCommitted { written: Vec::new(), failed: a(), error: boom() },
                "The change was committed only in part: no file written; writing 'a.txt' failed: boom. Every file holds either its old or its new content".into(),
            ),
            (
                Failure::PartlyCommitted { written: vec![a(), "b.txt".into()], failed: "c.txt".into(), error: boom() },
                "The change was committed only in part: 'a.txt', 'b.txt' written; writing 'c.txt' failed: boom. Every file holds either its old or its new content".into(),
            ),
            (
                write(WriteAction::Write, WriteRefusal::IsDirectory),
                "Cannot write to 'a.txt': it is a directory.".into(),
            ),
            (
                write(WriteAction::Append, WriteRefusal::NotRegular(EntryKind::Fifo)),
                "Cannot append to 'a.txt': it is a named pipe (FIFO); only regular files are written. Nothing was read or written.".into(),
            ),
            (
                write(WriteAction::Write, WriteRefusal::KeptChanging),
                "Cannot write to 'a.txt': it kept changing (renamed or replaced) while it was being written; nothing was written".into(),
            ),
            (
                write(WriteAction::Append, WriteRefusal::TooLarge { bytes: 12, limit: 10 }),
                "Cannot append to 'a.txt': it is too large (12 bytes; the limit is 10 bytes). Nothing was written.".into(),
            ),
            (
                write(WriteAction::Write, WriteRefusal::Io(boom())),
                "Failed to write to 'a.txt': boom".into(),
            ),
            (
                Failure::HardLinked { path: a(), links: 2 },
                "Cannot append to 'a.txt': it has 2 hard links (other names for the same file, possibly outside the allowed directories), and an append in place would change them all; nothing was written".into(),
            ),
            (
                Failure::AppendToNonText { path: a() },
                "Cannot append text to 'a.txt': it is not a UTF-8 text file.".into(),
            ),
            (
                Failure::MoveRoot { source: ".".into() },
                "Cannot move .: it is an allowed directory itself.".into(),
            ),
            (Failure::SourceMissing { source: a() }, "Source a.txt does not exist.".into()),
            (
                Failure::DestinationExists { destination: a() },
                "Destination a.txt already exists".into(),
            ),
            (
                Failure::MoveIntoItself { source: "d".into(), destination: "d/e".into() },
                "Cannot move d into itself (d/e).".into(),
            ),
            (
                Failure::CreateDestination { error: boom() },
                "Cannot create the destination directory: boom".into(),
            ),
            (
                Failure::CrossDevice { source: a(), destination: "/mnt/a.txt".into() },
                "Cannot move a.txt to /mnt/a.txt: they are on different filesystems (a rename cannot cross them).".into(),
            ),
            (
                Failure::SourceVanished { source: a(), destination: "b.txt".into() },
                "Failed to move a.txt to b.txt: it was moved or removed meanwhile; nothing was moved.".into(),
            ),
            (
                Failure::MoveFailed { source: a(), destination: "b.txt".into(), error: boom() },
                "Failed to move a.txt to b.txt: boom".into(),
            ),
            (
                Failure::NotADirectory { shown: a() },
                "a.txt already exists and is not a directory, so no directory can be created there.".into(),
            ),
            (
                Failure::CreateDirectory {
                    shown: "d".into(),
                    error: Arc::new(io::Error::from(io::ErrorKind::PermissionDenied)),
                },
                "d: cannot create directory: permission denied.".into(),
            ),
            (
                Failure::NoReviewChannel { error: "address in use".into() },
                "Cannot start the review page on 127.0.0.1 (address in use), and no other review channel is available: nothing was written".into(),
            ),
        ];
        for (failure, words) in cases {
            assert_eq!(what_failed(&failure), words, "{failure:?}");
        }
    }

    /// Counts agree with their nouns, edits are named as the model's `edits` array indexes them,
    /// and a size over a limit never reads as equal to (or under) it.
    #[test]
    fn counts_edit_places_and_sizes_are_worded_truly() {
        let mib = |n: u64| n << 20;
        let over = |bytes| Failure::FileTooLarge {
            path: "a.txt".into(),
            bytes,
        };
        let cases = [
            (
                Failure::MatchCount {
                    edit: None,
                    in_session: false,
                    found: 2,
                    expected: 1,
                },
                "Edit preparation failed: Expected 1 occurrence but found 2.",
            ),
            (
                Failure::MatchCount {
                    edit: None,
                    in_session: false,
                    found: 3,
                    expected: 2,
                },
                "Edit preparation failed: Expected 2 occurrences but found 3.",
            ),
            (
                Failure::MatchCount {
                    edit: None,
                    in_session: true,
                    found: 1,
                    expected: 2,
                },
                "Contextual patch failed. The provided 'match_text' was found 1 time in the session's current version (your last proposal, with any changes the user saved), but expected exactly 2.",
            ),
            (
                Failure::MatchCount {
                    edit: Some(0),
                    in_session: false,
                    found: 0,
                    expected: 1,
                },
                "edits[0]: No match found for 'match_text'.",
            ),
            (
                Failure::MatchCount {
                    edit: Some(2),
                    in_session: true,
                    found: 3,
                    expected: 1,
                },
                "edits[2]: match_text found 3 times in the session's current version (your last proposal, with any changes the user saved), expected 1.",
            ),
            (
                Failure::MatchTextTooLong { edit: Some(0) },
                "edits[0]: match_text is too long (over 2000 characters)",
            ),
            (
                over(mib(50) + 1),
                "'a.txt' is too large to review (52428801 bytes; the limit is 50 MiB).",
            ),
            (
                over(mib(50) + mib(1) / 4),
                "'a.txt' is too large to review (50.2 MiB; the limit is 50 MiB).",
            ),
            (
                over(mib(51) + 7),
                "'a.txt' is too large to review (51 MiB; the limit is 50 MiB).",
            ),
            (
                Failure::ProposalTooLarge {
                    path: "a.txt".into(),
                    bytes: (mib(50) + 10) as usize,
                },
                "The proposed content for 'a.txt' is too large (52428810 bytes; the limit is 50 MiB).",
            ),
            (
                Failure::CommitRefused {
                    path: "a.txt".into(),
                    why: CommitRefusal::TooLarge(mib(50) + mib(1) / 2),
                    kept: None,
                },
                "Cannot commit to 'a.txt': it is now too large to edit (50.5 MiB; the limit is 50 MiB). Nothing was written.",
            ),
            (
                Failure::WriteRefused {
                    action: WriteAction::Write,
                    path: "a.txt".into(),
                    why: WriteRefusal::TooLarge {
                        bytes: mib(3),
                        limit: mib(2),
                    },
                },
                "Cannot write to 'a.txt': it is too large (3 MiB; the limit is 2 MiB). Nothing was written.",
            ),
            (
                Failure::Limit(Limit::ServerBytes {
                    needed: 10,
                    held: 1,
                }),
                "The open reviews would hold more than 384 MiB: this proposal needs 1 MiB and 1 MiB is held. Nothing was proposed.",
            ),
        ];
        for (failure, words) in cases {
            assert_eq!(what_failed(&failure), words, "{failure:?}");
        }

        let one = Hints {
            line_count: 1,
            occurrences: Some(vec![3]),
            outline: Some(Vec::new()),
            ..hints(
                Searched::SessionEdit(0),
                Diagnosis::WrongCount {
                    found: 1,
                    expected: 2,
                    more: false,
                    can_set_expected: false,
                },
            )
        };
        assert_eq!(
            diagnosis(&one),
            "match_text occurs 1 time (starting at line 3), expected 2. (session, edits[0]) Add neighbouring lines to match_text so that it matches exactly the text you mean."
        );
        assert_eq!(
            hints_text(&one, &listed(&[])),
            "The occurrence starts at line 3.\nOutline of the file (1 line):\nRecovery steps:"
        );
        let block = hints(
            Searched::File,
            Diagnosis::SimilarBlocks {
                count: 1,
                similarity: 70,
                line_start: 1,
                line_end: 2,
            },
        );
        assert_eq!(
            diagnosis(&block),
            "Found 1 similar block. Best: 70% at lines 1-2."
        );
        let after = |idle_minutes| {
            next_step(&NextStep::FinishOpenReviews { idle_minutes }, &listed(&[]))
                .unwrap_or_default()
        };
        assert!(after(1).ends_with("after 1 minute unused"), "{}", after(1));
        assert!(
            after(30).ends_with("after 30 minutes unused"),
            "{}",
            after(30)
        );
    }
}
