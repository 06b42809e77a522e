//! Schema profiles: the Gemini-safe schema is what every client gets; a profile may rewrite it
//! further for the clients that need more (`openai-strict`: OpenAI Structured Outputs).
//!
//! **A new profile is one file** in `profile/` defining a [`Profile`], plus its line in
//! [`PROFILES`]. Everything else reads the registry: `--schema-profile`'s values and help (server
//! and proxy), `auto`'s choice by client name, `tools/list` on the server and the proxy, the
//! profile table of docs/GEMINI_SCHEMA_COMPAT.md (written by `cargo xtask docs` from
//! [`Profile::served`] and [`Profile::arguments_back`]), and the tests that every profile serves
//! lint-clean schemas and that the table matches the registry.

mod gemini;
mod openai_strict;

use serde_json::Value;

pub use openai_strict::{MAX_DESCRIPTION_CHARS, cut, openai_strict};

/// One schema profile.
#[derive(Debug)]
pub struct Profile {
    /// The name on the command line and in documentation.
    pub name: &'static str,
    /// One line for `--help`.
    pub summary: &'static str,
    /// What a client of this profile is served, in full (markdown): the "served schema" cell of
    /// the profile table in docs/GEMINI_SCHEMA_COMPAT.md, which `cargo xtask docs` writes.
    pub served: fn() -> String,
    /// How arguments written for the served schema come back to what the server (or the
    /// upstream) expects (markdown): the table's "coming back in" cell.
    pub arguments_back: &'static str,
    /// Lowercase fragments of a client's `clientInfo.name` that make `auto` serve this profile.
    pub auto_for_clients: &'static [&'static str],
    /// Rewrites a tool's Gemini-safe input schema and its description in place; `None` serves
    /// them as they are.
    pub rewrite: Option<fn(&mut Value, Option<&mut String>)>,
}

/// Every profile, the default first.
pub const PROFILES: &[&Profile] = &[&gemini::PROFILE, &openai_strict::PROFILE];

/// Which schema a client is served (`--schema-profile` of the server and the proxy).
#[derive(Debug, Clone, Copy)]
pub enum SchemaProfile {
    /// One profile of [`PROFILES`] for every client.
    Fixed(&'static Profile),
    /// Decided per client by its name ([`Profile::auto_for_clients`]), else the default.
    Auto,
}

impl PartialEq for SchemaProfile {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for SchemaProfile {}

impl Default for SchemaProfile {
    fn default() -> Self {
        SchemaProfile::GEMINI
    }
}

impl SchemaProfile {
    /// The Gemini-safe schema for every client: the default.
    pub const GEMINI: SchemaProfile = SchemaProfile::Fixed(&gemini::PROFILE);
    /// OpenAI strict mode on top of the Gemini-safe schema.
    pub const OPENAI_STRICT: SchemaProfile = SchemaProfile::Fixed(&openai_strict::PROFILE);
    /// The name `auto` goes by.
    pub const AUTO_NAME: &'static str = "auto";

    /// The profile called `name` (a registry name or `auto`).
    pub fn by_name(name: &str) -> Option<SchemaProfile> {
        if name == Self::AUTO_NAME {
            return Some(SchemaProfile::Auto);
        }
        PROFILES
            .iter()
            .find(|p| p.name == name)
            .map(|p| SchemaProfile::Fixed(p))
    }

    /// Every name `--schema-profile` takes, with its one-line summary: the registry, then `auto`.
    pub fn choices() -> Vec<(&'static str, String)> {
        let mut out: Vec<(&'static str, String)> = PROFILES
            .iter()
            .map(|p| (p.name, p.summary.to_string()))
            .collect();
        let by_name: Vec<String> = PROFILES
            .iter()
            .filter(|p| !p.auto_for_clients.is_empty())
            .map(|p| format!("{} for {}", p.name, p.auto_for_clients.join(", ")))
            .collect();
        out.push((
            Self::AUTO_NAME,
            format!(
                "decided per client session by its name: {}; else {}",
                by_name.join("; "),
                PROFILES[0].name
            ),
        ));
        out
    }

    /// The name on the command line and in documentation.
    pub fn name(self) -> &'static str {
        match self {
            SchemaProfile::Fixed(p) => p.name,
            SchemaProfile::Auto => Self::AUTO_NAME,
        }
    }

    /// The profile in force for a client that called itself `client_name` (never `Auto`).
    pub fn resolve(self, client_name: Option<&str>) -> SchemaProfile {
        match self {
            SchemaProfile::Auto => {
                let name = client_name.unwrap_or_default().to_ascii_lowercase();
                PROFILES
                    .iter()
                    .find(|p| p.auto_for_clients.iter().any(|f| name.contains(f)))
                    .map_or(SchemaProfile::default(), |p| SchemaProfile::Fixed(p))
            }
            fixed => fixed,
        }
    }

    /// Whether a client of this (resolved) profile is served the Gemini-safe schema as it is.
    pub fn serves_as_transformed(self) -> bool {
        match self {
            SchemaProfile::Fixed(p) => p.rewrite.is_none(),
            SchemaProfile::Auto => false,
        }
    }
}

/// A tool as a client of a resolved `profile` sees it: `input` (a Gemini-safe input schema, the
/// transform's output) and `description` rewritten in place. `Auto` must be resolved first; it
/// changes nothing here.
pub fn apply_to_tool(profile: SchemaProfile, input: &mut Value, description: Option<&mut String>) {
    if let SchemaProfile::Fixed(Profile {
        rewrite: Some(rewrite),
        ..
    }) = profile
    {
        rewrite(input, description);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn apply_to_tool_changes_nothing_for_gemini() {
        let served = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        let mut input = served.clone();
        let mut description = "d".repeat(2000);
        apply_to_tool(SchemaProfile::GEMINI, &mut input, Some(&mut description));
        assert_eq!(input, served);
        assert_eq!(description.len(), 2000);
        apply_to_tool(
            SchemaProfile::OPENAI_STRICT,
            &mut input,
            Some(&mut description),
        );
        assert_eq!(input["required"], json!(["a"]));
        assert_eq!(description.chars().count(), MAX_DESCRIPTION_CHARS);
    }

    #[test]
    fn auto_picks_by_client_name() {
        let auto = SchemaProfile::Auto;
        let strict = SchemaProfile::OPENAI_STRICT;
        assert_eq!(auto.resolve(Some("codex-mcp-client")), strict);
        assert_eq!(auto.resolve(Some("OpenAI Agents")), strict);
        assert_eq!(auto.resolve(Some("gemini-cli")), SchemaProfile::GEMINI);
        assert_eq!(auto.resolve(None), SchemaProfile::GEMINI);
        assert_eq!(
            SchemaProfile::GEMINI.resolve(Some("codex")),
            SchemaProfile::GEMINI
        );
    }

    #[test]
    fn every_name_is_found_again_and_unique() {
        let choices = SchemaProfile::choices();
        for (name, summary) in &choices {
            assert_eq!(
                SchemaProfile::by_name(name).map(SchemaProfile::name),
                Some(*name)
            );
            assert!(!summary.is_empty());
        }
        let mut names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), PROFILES.len() + 1);
        assert_eq!(SchemaProfile::by_name("nope"), None);
        assert!(
            choices[2].1.contains("openai-strict for codex, openai"),
            "{choices:?}"
        );
    }
}
