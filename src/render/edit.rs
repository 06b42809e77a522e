//! What the model reads from the edit tools (propose_and_review, commit_review, write_file,
//! append_text, move_file, create_directory): the verdict reply `propose_and_review` documents
//! (built here only), their other results, and their errors in the one error format, with next
//! steps naming only listed tools. `fs_mcp_edit` gives the facts and the next steps as data.

use std::fmt::Write as _;
use std::time::Duration;

use fs_mcp_edit::{
    Approval, CrashCompleted, Decision, Diagnosis, EditError, Hints, MATCH_TEXT_MAX_LENGTH,
    NearMiss, NextStep, Note, Recovery, RecoveryStep, ReviewCommitted, ReviewOutcome, Searched,
    Undecided, Written,
};
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
    user_feedback_diff: Option<&'a str>,
    /// Auto-approve: what was written; PENDING: the proposal.
    #[serde(skip_serializing_if = "Option::is_none")]
    diff: Option<&'a str>,
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
            reply.diff = c.diff.as_deref();
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
            reply.user_feedback_diff = Some(diff);
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
            reply.diff = Some(diff);
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
            instructions,
        } => format!("Note: {launch}; the user has to {instructions}"),
        Note::NearMiss(near_miss) => near_miss_text(near_miss),
        Note::CrashCompleted(done) => crash_completed_text(done),
    }
}

/// A near-miss recovery: which `match_text` matched where, and how.
fn near_miss_text(near_miss: &NearMiss) -> String {
    let what = match near_miss.edit {
        None => "match_text".to_string(),
        Some(i) => format!("edit {i}'s match_text"),
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
            .map(|(file, why)| format!("'{file}' ({why})"))
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
        Some(hints) => format!("{} {}", error.message(), diagnosis(hints)),
        None => error.message().to_string(),
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
        text.push_str(diff);
    }
    text
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
            "Finish the open ones (collect each verdict: {propose} with its path and session_path), or wait until they close after {idle_minutes} minutes unused"
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
        let _ = writeln!(text, "Occurrences start at lines {}.", lines.join(", "));
    }
    if let Some(outline) = &hints.outline {
        let _ = writeln!(text, "Outline of the file ({} lines):", hints.line_count);
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
        Searched::FileEdit(i) => format!(" (edit {i})"),
        Searched::SessionEdit(i) => format!(" (session edit {i})"),
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
            "Found {count} similar block(s). Best: {similarity}% at lines {line_start}-{line_end}.{searched}"
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
            format!(
                "match_text occurs {found} times (starting at lines {listed}{more}), expected {expected}.{searched} Add neighbouring lines to match_text so that it matches exactly the text you mean{alternative}."
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
                diff: "-a\n+b\n".into(),
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
                diff: "-a\n+b\n".into(),
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
                "Found 3 similar block(s). Best: 70% at lines 1-2. (session edit 2)",
            ),
            (
                Searched::FileEdit(0),
                Diagnosis::NothingSimilar {
                    with_keywords: true,
                },
                "No similar text found in 12-line file. (edit 0)",
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
                "match_text occurs 25 times (starting at lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, …), expected 1. (edit 1) Add neighbouring lines to match_text so that it matches exactly the text you mean.",
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
            "Note: edit 1's match_text had no exact match; the file's text at line 7 (99% similar, the only such block) was replaced instead. Check the diff."
        );
        let crash = Note::CrashCompleted(CrashCompleted {
            pid: 42,
            written_before: Vec::new(),
            completed_now: vec!["a.txt".into(), "sub/b.txt".into()],
            failed: vec![("c.txt".into(), "gone".into())],
        });
        assert_eq!(
            note_text(&crash),
            "Note: an approved multi-file change was interrupted by a crash of server process 42; it is now completed: written before the crash: none; completed now: 'a.txt', 'sub/b.txt'. Could not complete (still old content): 'c.txt' (gone)."
        );
    }
}
