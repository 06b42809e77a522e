//! A file in the workspace that is a hard link to a file outside: every writer leaves the outside
//! name's content as it was. `write_file`, `propose_and_review` and `commit_review` replace the
//! name atomically (a new inode); `append_text`, which writes in place, refuses a file with
//! other names and says why and what to do instead.

use crate::common;

use common::{Workspace, text_of};

use std::fs;

use serde_json::{Value, json};

const EDITOR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/fake_editor.py");
const OUTSIDE_CONTENT: &str = "outside content\n";

fn response(result: &Value) -> Value {
    serde_json::from_str(&text_of(result)).unwrap_or_else(|e| panic!("not JSON ({e}): {result}"))
}

#[test]
fn no_writer_changes_the_outside_name_of_a_hard_linked_file() {
    let ws = Workspace::new();
    let outside = ws.base.join("outside.txt");
    fs::write(&outside, OUTSIDE_CONTENT).unwrap();
    for name in ["w.txt", "a.txt", "p.txt", "c.txt"] {
        fs::hard_link(&outside, ws.root.join(name)).unwrap();
    }
    let outside_unchanged = || {
        assert_eq!(fs::read_to_string(&outside).unwrap(), OUTSIDE_CONTENT);
    };

    let mut c = ws.start(&["--all", "--auto-approve", "--review-command", "none"]);
    let result = c.call("write_file", json!({"path": "w.txt", "content": "new\n"}));
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(fs::read_to_string(ws.root.join("w.txt")).unwrap(), "new\n");
    outside_unchanged();

    let result = c.call("append_text", json!({"path": "a.txt", "content": "more\n"}));
    let text = text_of(&result);
    assert_eq!(result["isError"], true, "{text}");
    assert!(
        text.contains("hard links") && text.contains("write_file"),
        "{text}"
    );
    assert_eq!(
        fs::read_to_string(ws.root.join("a.txt")).unwrap(),
        OUTSIDE_CONTENT
    );
    outside_unchanged();
    // A file with one name is appended to in place as before.
    ws.write("single.txt", "one\n");
    let result = c.call(
        "append_text",
        json!({"path": "single.txt", "content": "two\n"}),
    );
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(
        fs::read_to_string(ws.root.join("single.txt")).unwrap(),
        "one\ntwo\n"
    );

    let result = c.call(
        "propose_and_review",
        json!({"path": "p.txt", "match_text": "outside content", "new_string": "proposed"}),
    );
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(
        fs::read_to_string(ws.root.join("p.txt")).unwrap(),
        "proposed\n"
    );
    outside_unchanged();
    c.finish();

    // commit_review: a human's edit comes back for review, then is committed.
    let mut c = ws.start(&[
        "--review-command",
        &format!("python3 {EDITOR} edit {{current}} {{future}}"),
    ]);
    let result = c.call(
        "propose_and_review",
        json!({"path": "c.txt", "match_text": "outside content", "new_string": "reviewed"}),
    );
    let r = response(&result);
    assert_eq!(r["user_action"], "REVIEW", "{r}");
    let session = r["session_path"].as_str().unwrap().to_string();
    let out = c.call_text(
        "commit_review",
        json!({"session_path": session, "original_path": "c.txt"}),
    );
    assert!(out.to_lowercase().contains("commit"), "{out}");
    assert!(
        fs::read_to_string(ws.root.join("c.txt"))
            .unwrap()
            .starts_with("reviewed\n"),
        "{out}"
    );
    outside_unchanged();
    c.finish();
}
