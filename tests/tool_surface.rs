//! What `tools/list` costs and says beyond the tools themselves: its size in tokens (every
//! listed token is paid on each model request), its cache lifetime, and the result budget of the
//! tools whose results can be large. Also `get_file_info` over several paths in one call.

use crate::common;

use common::{StdioClient, Workspace};
use fs_mcp_rs::server::TOOLS_LIST_TTL_MS;
use fs_mcp_rs::tools::spec::{CLIENT_DEFAULT_RESULT_CHARS, RESULT_SIZE_CEILING, RESULT_SIZE_KEY};
use serde_json::{Value, json};

/// The most the default listing (core tier, gemini profile) may cost, in cl100k tokens. The
/// official filesystem server lists as many tools for 1,638.
const CORE_TOKEN_BUDGET: usize = 2_000;

/// The `_meta` a 2026-07-28 client sends on each request instead of `initialize`.
fn meta_2026(client: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": client, "version": "1"}
    })
}

/// The `tools/list` result as a 2025 client (after `initialize`) and a 2026-07-28 one receive it.
fn listed_results(ws: &Workspace, args: &[&str]) -> (Value, Value) {
    let mut client = ws.start(args);
    let old = client.request("tools/list", json!({}));
    let root = ws.root.to_str().expect("utf8 path");
    let mut all_args: Vec<&str> = args.to_vec();
    all_args.push(root);
    let mut client = StdioClient::spawn(&ws.base, &all_args);
    let new = client.request("tools/list", json!({"_meta": meta_2026("gemini-cli")}));
    let result = |reply: Value| {
        reply
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("tools/list failed: {reply}"))
    };
    (result(old), result(new))
}

/// cl100k tokens of a result as it goes over the wire (compact JSON).
fn tokens(result: &Value) -> usize {
    fs_mcp_worklog::count_tokens(&result.to_string())
}

#[test]
fn the_default_tools_list_costs_at_most_2000_tokens() {
    // The counter is the real cl100k_base, not its bytes ÷ 4 fallback.
    assert_eq!(fs_mcp_worklog::count_tokens("hello world"), 2);
    let ws = Workspace::new();
    let (core, core_2026) = listed_results(&ws, &[]);
    let (all, all_2026) = listed_results(&ws, &["--all"]);
    let counts = [
        ("core", tokens(&core), tokens(&core_2026)),
        ("--all", tokens(&all), tokens(&all_2026)),
    ];
    for (tier, before_2026, on_2026) in counts {
        eprintln!(
            "tools/list {tier}: {before_2026} cl100k tokens (2026-07-28 client: {on_2026}, {} tools)",
            if tier == "core" { &core } else { &all }["tools"]
                .as_array()
                .map_or(0, Vec::len)
        );
    }
    let (_, core_tokens, core_2026_tokens) = counts[0];
    assert!(
        core_tokens <= CORE_TOKEN_BUDGET && core_2026_tokens <= CORE_TOKEN_BUDGET,
        "the core tier's tools/list costs {core_tokens} tokens ({core_2026_tokens} for a 2026-07-28 client), over {CORE_TOKEN_BUDGET}: \
         move details into docs/tools.md and error messages"
    );
}

#[test]
fn tools_list_may_be_cached_for_an_hour_and_privately_under_auto() {
    let ws = Workspace::new();
    let (_, listed) = listed_results(&ws, &[]);
    assert_eq!(listed["ttlMs"], json!(TOOLS_LIST_TTL_MS), "{listed}");
    assert!(
        listed["ttlMs"].as_u64().is_some_and(|ttl| ttl > 0),
        "a real cache lifetime: {listed}"
    );
    assert_eq!(listed["cacheScope"], json!("public"), "{listed}");
    // Under `auto` the listing depends on the client: it may be kept, by that client only.
    let (_, listed) = listed_results(&ws, &["--schema-profile", "auto"]);
    assert_eq!(listed["ttlMs"], json!(TOOLS_LIST_TTL_MS), "{listed}");
    assert_eq!(listed["cacheScope"], json!("private"), "{listed}");
}

/// Each listed tool's declared result budget, by name.
fn budgets(ws: &Workspace, args: &[&str]) -> Vec<(String, Option<u64>)> {
    let mut client = ws.start(args);
    client
        .list_tools()
        .iter()
        .map(|tool| {
            (
                tool["name"].as_str().unwrap_or_default().to_string(),
                tool["_meta"][RESULT_SIZE_KEY].as_u64(),
            )
        })
        .collect()
}

fn budget_of(budgets: &[(String, Option<u64>)], name: &str) -> Option<u64> {
    budgets
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("{name} is not listed"))
        .1
}

#[test]
fn large_result_tools_say_a_budget_that_follows_max_reply_bytes() {
    let ws = Workspace::new();
    let default = budgets(&ws, &[]);
    // The default reply cap is what Claude Code keeps inline anyway: nothing to say for it.
    assert_eq!(
        fs_mcp_read::DEFAULT_MAX_REPLY_BYTES,
        CLIENT_DEFAULT_RESULT_CHARS
    );
    for same in ["read_files", "grep_content", "directory_tree"] {
        assert_eq!(budget_of(&default, same), None, "{same}");
    }
    // A query's own output cap is larger.
    let query = budget_of(&default, "query_json").expect("query_json has a budget");
    assert!(
        query > fs_mcp_query::Limits::default().max_output_bytes as u64,
        "{query}"
    );
    assert_eq!(budget_of(&default, "query_yaml"), Some(query));

    let raised = budgets(&ws, &["--max-reply-bytes", "200000"]);
    for large in [
        "read_files",
        "grep_content",
        "directory_tree",
        "list_directory_with_sizes",
        "analyze_gsd_work_log",
        "query_json",
        "query_yaml",
    ] {
        assert_eq!(budget_of(&raised, large), Some(200_000), "{large}");
    }
    for small in [
        "get_file_info",
        "search_files",
        "list_allowed_directories",
        "propose_and_review",
    ] {
        assert_eq!(budget_of(&raised, small), None, "{small}");
    }
    let beyond = budgets(&ws, &["--max-reply-bytes", "900000", "--all"]);
    assert_eq!(
        budget_of(&beyond, "read_files"),
        Some(RESULT_SIZE_CEILING as u64)
    );
    assert_eq!(
        budget_of(&beyond, "list_directory"),
        Some(RESULT_SIZE_CEILING as u64)
    );

    // What read_files returns stays within what it declares.
    ws.write("big.txt", "0123456789 abcdefghij\n".repeat(20_000));
    let mut client = ws.start(&["--max-reply-bytes", "60000"]);
    let declared = client
        .list_tools()
        .iter()
        .find(|t| t["name"] == "read_files")
        .and_then(|t| t["_meta"][RESULT_SIZE_KEY].as_u64())
        .expect("read_files declares its budget");
    assert_eq!(declared, 60_000);
    let text = client.call_text(
        "read_files",
        json!({"files": [{"path": "big.txt", "head": 20000}]}),
    );
    assert!(
        text.chars().count() as u64 <= declared && text.contains("Note"),
        "{} characters: {}",
        text.chars().count(),
        &text[text.len().saturating_sub(400)..]
    );
}

/// The `Path:` blocks of a get_file_info answer, in order.
fn blocks(text: &str) -> Vec<String> {
    text.split("\n\nPath: ")
        .map(|b| b.trim_start_matches("Path: ").to_string())
        .collect()
}

#[test]
fn get_file_info_answers_several_paths_each_on_its_own() {
    let ws = Workspace::new();
    ws.write("a.txt", "one\n");
    ws.write("data/b.json", r#"{"k": 1}"#);
    std::fs::write(ws.base.join("secret.txt"), "SECRET\n").expect("write outside");
    let mut client = ws.start(&[]);

    let reply = client.call(
        "get_file_info",
        json!({"paths": ["a.txt", "missing.txt", "../secret.txt", "data/b.json"]}),
    );
    assert_ne!(reply["isError"], json!(true), "{reply}");
    let text = common::text_of(&reply);
    let found = blocks(&text);
    assert_eq!(found.len(), 4, "{text}");
    assert!(found[0].starts_with("a.txt\n") && found[0].contains("Lines: 1"));
    assert!(
        found[1].starts_with("missing.txt\n") && found[1].contains("does not exist"),
        "{}",
        found[1]
    );
    assert!(
        found[2].starts_with("../secret.txt\n") && found[2].contains("Access denied"),
        "{}",
        found[2]
    );
    assert!(!text.contains("SECRET"));
    assert!(found[3].contains("Top-level keys (1): k"), "{}", found[3]);

    // `path` alone answers as before; with `paths` it comes first.
    let one = client.call("get_file_info", json!({"path": "a.txt"}));
    assert_ne!(one["isError"], json!(true), "{one}");
    assert!(common::text_of(&one).starts_with("Path: a.txt\n"));
    let both = common::text_of(&client.call(
        "get_file_info",
        json!({"path": "data/b.json", "paths": "[\"a.txt\"]"}),
    ));
    let found = blocks(&both);
    assert!(
        found.len() == 2 && found[0].starts_with("data/b.json") && found[1].starts_with("a.txt"),
        "{both}"
    );

    // A lone failure, every failure, or no path at all is the call's error.
    let denied = client.call("get_file_info", json!({"path": "../secret.txt"}));
    assert_eq!(denied["isError"], json!(true), "{denied}");
    let none_found = client.call("get_file_info", json!({"paths": ["x.txt", "y.txt"]}));
    assert_eq!(none_found["isError"], json!(true), "{none_found}");
    let empty = client.call("get_file_info", json!({}));
    assert_eq!(empty["isError"], json!(true), "{empty}");
    assert!(
        common::text_of(&empty).contains("\"paths\""),
        "the error shows a call that works: {empty}"
    );
}

#[test]
fn get_file_info_caps_a_batch_with_a_note_on_the_rest() {
    let ws = Workspace::new();
    let cap = fs_mcp_search::MAX_INFO_PATHS;
    let paths: Vec<String> = (0..cap + 5).map(|i| format!("f{i:02}.txt")).collect();
    for p in &paths {
        ws.write(p, "x\n");
    }
    let mut client = ws.start(&[]);
    let listed = client.list_tools();
    let info = listed
        .iter()
        .find(|t| t["name"] == "get_file_info")
        .expect("get_file_info is listed");
    let described = info["inputSchema"]["properties"]["paths"]["description"]
        .as_str()
        .unwrap_or_default();
    assert!(
        described.contains(&format!("at most {cap}")),
        "the listed cap is the real one: {described}"
    );
    let text = client.call_text("get_file_info", json!({"paths": paths}));
    assert_eq!(text.matches("\nLines: 1").count(), cap, "{text}");
    assert!(
        text.ends_with(&format!(
            "Note: 5 more paths not described ({cap} per call): call again with the rest, from \"f{cap:02}.txt\" on."
        )),
        "{text}"
    );
}
