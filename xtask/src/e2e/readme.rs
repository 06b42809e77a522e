//! The client configuration snippets of README.md, which the harness runs as written.
//!
//! A snippet is the first fenced code block after a `<!-- e2e: NAME -->` marker. The harness
//! only fills in the placeholders a user fills in: the project directory (`/path/to/project`) and,
//! over HTTP, the address the server listens on (`127.0.0.1:8124`).

use std::collections::BTreeMap;

use anyhow::{Context, bail};
use serde_json::Value;

/// The placeholder users replace with their project.
pub const PROJECT_PLACEHOLDER: &str = "/path/to/project";
/// The default HTTP address, which the snippets use.
pub const DEFAULT_ADDR: &str = "127.0.0.1:8124";

/// Every snippet the harness needs, by marker name.
pub const REQUIRED: &[&str] = &[
    "opencode-stdio",
    "opencode-http",
    "claude-stdio",
    "claude-http",
    "gemini-stdio",
    "gemini-http",
];

pub fn readme_text() -> anyhow::Result<String> {
    let path = crate::util::workspace_root().join("README.md");
    std::fs::read_to_string(&path).with_context(|| format!("read {}", path.display()))
}

/// The marked snippets of a README: name → code block text.
pub fn snippets(readme: &str) -> anyhow::Result<BTreeMap<String, String>> {
    let mut found = BTreeMap::new();
    let mut lines = readme.lines();
    while let Some(line) = lines.next() {
        let Some(name) = line
            .trim()
            .strip_prefix("<!-- e2e:")
            .and_then(|rest| rest.strip_suffix("-->"))
            .map(str::trim)
        else {
            continue;
        };
        let fence = lines
            .by_ref()
            .map(str::trim_start)
            .find(|l| l.starts_with("```"))
            .with_context(|| format!("README: no code block after the `{name}` marker"))?;
        let fence = fence.chars().take_while(|&c| c == '`').collect::<String>();
        let body: Vec<&str> = lines
            .by_ref()
            .take_while(|l| l.trim_start() != fence)
            .collect();
        if found
            .insert(name.to_string(), body.join("\n") + "\n")
            .is_some()
        {
            bail!("README: the `{name}` marker appears twice");
        }
    }
    for name in REQUIRED {
        if !found.contains_key(*name) {
            bail!("README: the `<!-- e2e: {name} -->` snippet is missing");
        }
    }
    Ok(found)
}

/// A snippet with the user's placeholders filled in.
pub fn fill(snippet: &str, project: &str, addr: &str) -> String {
    snippet
        .replace(PROJECT_PLACEHOLDER, project)
        .replace(DEFAULT_ADDR, addr)
}

/// A JSON snippet (comments are not allowed in the README's JSON).
pub fn json(snippet: &str) -> anyhow::Result<Value> {
    serde_json::from_str(snippet).with_context(|| format!("README snippet is not JSON:\n{snippet}"))
}

/// Adds server flags to every stdio server entry that starts `fs-mcp-rs`: an OpenCode
/// `"command": ["fs-mcp-rs", …]` or a `"command": "fs-mcp-rs", "args": […]` pair.
/// Returns how many entries it changed.
pub fn add_server_flags(config: &mut Value, flags: &[&str]) -> usize {
    let mut changed = 0;
    match config {
        Value::Object(map) => {
            let starts_server = |v: Option<&Value>| {
                v.and_then(Value::as_str)
                    .is_some_and(|c| c.ends_with("fs-mcp-rs"))
            };
            if let Some(Value::Array(command)) = map.get_mut("command")
                && starts_server(command.first())
            {
                for (i, flag) in flags.iter().enumerate() {
                    command.insert(1 + i, Value::from(*flag));
                }
                return 1;
            }
            if starts_server(map.get("command")) {
                let args = map
                    .entry("args")
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(args) = args {
                    for (i, flag) in flags.iter().enumerate() {
                        args.insert(i, Value::from(*flag));
                    }
                    return 1;
                }
            }
            for value in map.values_mut() {
                changed += add_server_flags(value, flags);
            }
        }
        Value::Array(items) => {
            for value in items {
                changed += add_server_flags(value, flags);
            }
        }
        _ => {}
    }
    changed
}

/// Replaces the `fs-mcp-rs` that starts every stdio server entry (after [`add_server_flags`])
/// with a packaged command line, `words` (e.g. `npx -y --package FILE … fs-mcp-rs`), keeping
/// what followed it. Returns how many entries it changed.
pub fn replace_server_command(config: &mut Value, words: &[String]) -> usize {
    let Some((program, rest)) = words.split_first() else {
        return 0;
    };
    let starts_server = |v: Option<&Value>| {
        v.and_then(Value::as_str)
            .is_some_and(|c| c.ends_with("fs-mcp-rs"))
    };
    match config {
        Value::Object(map) => {
            if let Some(Value::Array(command)) = map.get_mut("command")
                && starts_server(command.first())
            {
                command.splice(0..1, words.iter().map(|w| Value::from(w.as_str())));
                return 1;
            }
            if starts_server(map.get("command")) {
                map.insert("command".into(), Value::from(program.as_str()));
                let args = map
                    .entry("args")
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(args) = args {
                    args.splice(0..0, rest.iter().map(|w| Value::from(w.as_str())));
                }
                return 1;
            }
            map.values_mut()
                .map(|v| replace_server_command(v, words))
                .sum()
        }
        Value::Array(items) => items
            .iter_mut()
            .map(|v| replace_server_command(v, words))
            .sum(),
        _ => 0,
    }
}

/// The commands of a shell snippet, each split into words as `sh` would: comments and blank
/// lines skipped, `\` line continuations joined, quotes removed, `$VAR`/`${VAR}` expanded outside
/// single quotes.
pub fn shell_commands(
    snippet: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> anyhow::Result<Vec<Vec<String>>> {
    let mut commands = Vec::new();
    let mut pending = String::new();
    for line in snippet.lines() {
        if let Some(head) = line.strip_suffix('\\') {
            pending.push_str(head);
            pending.push(' ');
            continue;
        }
        pending.push_str(line);
        let command = std::mem::take(&mut pending);
        let trimmed = command.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        commands.push(shell_words(trimmed, env)?);
    }
    Ok(commands)
}

fn shell_words(line: &str, env: &dyn Fn(&str) -> Option<String>) -> anyhow::Result<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars().peekable();
    #[derive(PartialEq)]
    enum Quote {
        None,
        Single,
        Double,
    }
    let mut quote = Quote::None;
    while let Some(c) = chars.next() {
        match (&quote, c) {
            (Quote::Single, '\'') => quote = Quote::None,
            (Quote::Single, c) => word.push(c),
            (Quote::Double, '"') => quote = Quote::None,
            (Quote::None, '\'') => {
                quote = Quote::Single;
                in_word = true;
            }
            (Quote::None, '"') => {
                quote = Quote::Double;
                in_word = true;
            }
            (Quote::None, '#') if !in_word => break,
            (Quote::None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (_, '\\') => {
                if let Some(next) = chars.next() {
                    word.push(next);
                }
                in_word = true;
            }
            (_, '$') => {
                let braced = chars.peek() == Some(&'{');
                if braced {
                    chars.next();
                }
                let mut name = String::new();
                while let Some(&n) = chars.peek() {
                    if n.is_ascii_alphanumeric() || n == '_' {
                        name.push(n);
                        chars.next();
                    } else {
                        break;
                    }
                }
                if braced && chars.next() != Some('}') {
                    bail!("unsupported ${{…}} form in `{line}`");
                }
                if name.is_empty() {
                    word.push('$');
                } else {
                    let value =
                        env(&name).with_context(|| format!("`${name}` is not set for `{line}`"))?;
                    word.push_str(&value);
                }
                in_word = true;
            }
            (_, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if quote != Quote::None {
        bail!("unclosed quote in `{line}`");
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_readme_has_every_snippet_the_harness_runs_and_they_parse() {
        let readme = readme_text().unwrap();
        let found = snippets(&readme).unwrap();
        let env = |name: &str| (name == "FS_MCP_HTTP_TOKEN").then(|| "t".to_string());
        for (name, text) in &found {
            let filled = fill(text, "/p", "127.0.0.1:1");
            if name.ends_with("-local") {
                let commands = shell_commands(&filled, &env).unwrap();
                assert_eq!(commands.len(), 1, "{name}: one command");
                assert!(
                    commands[0].iter().any(|w| w == "fs-mcp-rs"),
                    "{name}: starts fs-mcp-rs"
                );
                continue;
            }
            if name.starts_with("claude") {
                let commands = shell_commands(&filled, &env).unwrap();
                assert_eq!(commands.len(), 1, "{name}: one command");
                assert_eq!(&commands[0][..3], ["claude", "mcp", "add"], "{name}");
            } else {
                let mut config = json(&filled).unwrap();
                let flagged = add_server_flags(&mut config, &["--auto-approve"]);
                let stdio = name.ends_with("-stdio");
                assert_eq!(flagged, usize::from(stdio), "{name}: stdio entries");
            }
            if name.ends_with("-http") {
                assert!(filled.contains("127.0.0.1:1/mcp"), "{name}: server URL");
                assert!(filled.contains("FS_MCP_HTTP_TOKEN"), "{name}: token");
            }
        }
    }

    #[test]
    fn a_marker_takes_the_next_code_block() {
        let text = "intro\n<!-- e2e: x -->\nsome words\n```json\n{\"a\": 1}\n```\n```sh\nno\n```\n";
        let all = snippets(&format!(
            "{text}{}",
            REQUIRED
                .iter()
                .map(|n| format!("<!-- e2e: {n} -->\n```\n{n}\n```\n"))
                .collect::<String>()
        ))
        .unwrap();
        assert_eq!(all["x"], "{\"a\": 1}\n");
        assert_eq!(all["claude-http"], "claude-http\n");
        assert!(snippets(text).is_err(), "missing snippets are an error");
    }

    #[test]
    fn server_flags_go_right_after_the_binary() {
        let mut opencode =
            json!({"mcp": {"fs": {"type": "local", "command": ["fs-mcp-rs", "/p"]}}});
        assert_eq!(add_server_flags(&mut opencode, &["--auto-approve"]), 1);
        assert_eq!(
            opencode["mcp"]["fs"]["command"],
            json!(["fs-mcp-rs", "--auto-approve", "/p"])
        );
        let mut gemini = json!({"mcpServers": {"fs": {"command": "fs-mcp-rs", "args": ["/p"]}}});
        assert_eq!(add_server_flags(&mut gemini, &["--auto-approve"]), 1);
        assert_eq!(
            gemini["mcpServers"]["fs"]["args"],
            json!(["--auto-approve", "/p"])
        );
        let mut remote = json!({"mcpServers": {"fs": {"httpUrl": "http://x/mcp"}}});
        assert_eq!(add_server_flags(&mut remote, &["--auto-approve"]), 0);
    }

    #[test]
    fn a_packaged_command_line_replaces_the_binary() {
        let npx: Vec<String> = ["npx", "-y", "--package", "/d/a.tgz", "fs-mcp-rs"]
            .map(String::from)
            .to_vec();
        let mut opencode =
            json!({"mcp": {"fs": {"command": ["fs-mcp-rs", "--auto-approve", "/p"]}}});
        assert_eq!(replace_server_command(&mut opencode, &npx), 1);
        assert_eq!(
            opencode["mcp"]["fs"]["command"],
            json!([
                "npx",
                "-y",
                "--package",
                "/d/a.tgz",
                "fs-mcp-rs",
                "--auto-approve",
                "/p"
            ])
        );
        let mut gemini = json!({"mcpServers": {"fs": {"command": "fs-mcp-rs", "args": ["--auto-approve", "/p"]}}});
        assert_eq!(replace_server_command(&mut gemini, &npx), 1);
        assert_eq!(gemini["mcpServers"]["fs"]["command"], json!("npx"));
        assert_eq!(
            gemini["mcpServers"]["fs"]["args"],
            json!([
                "-y",
                "--package",
                "/d/a.tgz",
                "fs-mcp-rs",
                "--auto-approve",
                "/p"
            ])
        );
        let mut remote = json!({"mcpServers": {"fs": {"httpUrl": "http://x/mcp"}}});
        assert_eq!(replace_server_command(&mut remote, &npx), 0);
    }

    #[test]
    fn the_proxy_run_wraps_the_stdio_command() {
        let proxy = &["proxy", "--", "fs-mcp-rs", "--auto-approve"];
        let mut gemini = json!({"mcpServers": {"fs": {"command": "fs-mcp-rs", "args": ["/p"]}}});
        assert_eq!(add_server_flags(&mut gemini, proxy), 1);
        assert_eq!(
            gemini["mcpServers"]["fs"]["args"],
            json!(["proxy", "--", "fs-mcp-rs", "--auto-approve", "/p"])
        );
        let mut opencode = json!({"mcp": {"fs": {"command": ["fs-mcp-rs", "/p"]}}});
        assert_eq!(add_server_flags(&mut opencode, proxy), 1);
        assert_eq!(
            opencode["mcp"]["fs"]["command"],
            json!([
                "fs-mcp-rs",
                "proxy",
                "--",
                "fs-mcp-rs",
                "--auto-approve",
                "/p"
            ])
        );
    }

    #[test]
    fn shell_words_follow_sh_quoting() {
        let env = |name: &str| (name == "TOKEN").then(|| "s3 cret".to_string());
        let commands = shell_commands(
            "# comment\nclaude mcp add \\\n  --header \"Authorization: Bearer $TOKEN\" 'a $TOKEN' ${TOKEN}x\n",
            &env,
        )
        .unwrap();
        assert_eq!(
            commands,
            vec![vec![
                "claude",
                "mcp",
                "add",
                "--header",
                "Authorization: Bearer s3 cret",
                "a $TOKEN",
                "s3 cretx"
            ]]
        );
        assert!(shell_commands("echo $UNSET", &env).is_err());
        assert!(shell_commands("echo 'open", &env).is_err());
    }
}
