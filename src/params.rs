//! What tool parameters share: the lean schema transform, the no-argument and one-path
//! parameters, and the declaration of every parameter with a default or a bound ([`IntParam`],
//! [`ListParam`]; ripgrep's `Flag` in spirit): its name, default, bounds and short and long
//! description written once. The listed schema (`#[schemars(description = ...)]`), the
//! handler's clamp, the sentences in `src/render` that name it and the "In detail" lines of
//! docs/tools.md (`cargo xtask docs`) all read them from here. The rest of a tool's parameters
//! (and where each declaration is used) is in its file (src/tools/). The crates keep their own
//! defaults as data; the declarations read them.

use fs_mcp_search::{GrepOptions, TreeOptions};
use fs_mcp_text::thousands;
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::{self, Deserializer};
use serde_json::Value;

use crate::lenient;

/// Drops from a parameter schema what tells a model nothing, since every listed token is paid on
/// each model request: the `"format": "int64"` schemars writes on every integer ("integer" says
/// enough, and the lenient deserializers take any integer or a string holding one), and a
/// `default` of `false` or `""` (what leaving an optional flag or text out means anyway; the
/// Gemini-safe transform would otherwise spell each one out as "Default: false.").
pub fn lean_schema(schema: &mut schemars::Schema) {
    fn is_type(map: &serde_json::Map<String, Value>, wanted: &str) -> bool {
        match map.get("type") {
            Some(Value::String(t)) => t == wanted,
            Some(Value::Array(types)) => types.iter().any(|t| t == wanted),
            _ => false,
        }
    }
    fn walk(value: &mut Value) {
        match value {
            Value::Object(map) => {
                if is_type(map, "integer") {
                    map.remove("format");
                }
                if matches!(map.get("default"), Some(Value::Bool(false)))
                    || map.get("default").and_then(Value::as_str) == Some("")
                {
                    map.remove("default");
                }
                map.values_mut().for_each(walk);
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    if let Some(map) = schema.as_object_mut() {
        map.values_mut().for_each(walk);
    }
}

/// For tools that take no arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub(crate) struct NoParams {}

/// For tools that take one path.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct PathParams {
    pub path: String,
}

/// The default of a path parameter: the first allowed directory.
pub fn dot() -> String {
    ".".to_string()
}

/// An integer parameter: `default` when absent, kept within `min..=max` (a value out of range
/// is clamped, not refused: the call still answers).
#[derive(Debug, Clone, Copy)]
pub struct IntParam {
    /// The name, as listed and sent (the field's name in the tool's parameters).
    pub name: &'static str,
    /// The value when the call leaves it out.
    pub default: i64,
    /// The least value a call runs with.
    pub min: i64,
    /// The most a call runs with; `None`: as much as the type holds (no range in the docs).
    pub max: Option<i64>,
    /// Said first in the listed description, e.g. "Seconds".
    pub lead: Option<&'static str>,
    /// Whether the listed description says the maximum (left out where no real call comes near
    /// it: every listed token is paid on each model request).
    pub lists_max: bool,
    /// What docs/tools.md says it is; the range follows.
    pub doc: &'static str,
}

impl IntParam {
    /// The listed description: `[Lead. ]Default D[, at most M].`
    pub fn description(&self) -> String {
        let lead = self.lead.map(|u| format!("{u}. ")).unwrap_or_default();
        let max = match self.max {
            Some(max) if self.lists_max => format!(", at most {max}"),
            _ => String::new(),
        };
        format!("{lead}Default {}{max}.", self.default)
    }

    /// The value a call runs with.
    pub fn clamp(&self, value: Option<i64>) -> i64 {
        value
            .unwrap_or(self.default)
            .clamp(self.min, self.max.unwrap_or(i64::MAX))
    }

    /// [`Self::clamp`] as a count.
    pub fn clamp_usize(&self, value: Option<i64>) -> usize {
        usize::try_from(self.clamp(value)).unwrap_or(0)
    }

    /// Its line under "In detail" in docs/tools.md, after the name.
    pub fn detail(&self) -> String {
        match self.max {
            Some(max) => format!("{} ({}–{max}).", self.doc, self.min),
            None => format!("{}.", self.doc),
        }
    }
}

/// A list parameter refused whole, before any item is read, past `max` items (so a call's cost
/// stays bounded by what it can answer). Its texts say the bound as `{max}`.
#[derive(Debug, Clone, Copy)]
pub struct ListParam {
    /// The name, as listed and sent (the field's name in the tool's parameters).
    pub name: &'static str,
    /// The most items a call may send.
    pub max: usize,
    /// The listed description.
    pub listed: &'static str,
    /// What docs/tools.md says it is.
    pub doc: &'static str,
}

impl ListParam {
    /// The listed description, with its bound.
    pub fn description(&self) -> String {
        self.with_max(self.listed)
    }

    /// Its line under "In detail" in docs/tools.md, after the name.
    pub fn detail(&self) -> String {
        self.with_max(self.doc)
    }

    fn with_max(&self, text: &str) -> String {
        text.replace("{max}", &thousands(self.max as u64))
    }

    /// The optional list, leniently (see [`lenient::opt_list_at_most`]).
    pub fn deserialize_opt<'de, D: Deserializer<'de>, T: de::DeserializeOwned>(
        &self,
        deserializer: D,
    ) -> Result<Option<Vec<T>>, D::Error> {
        lenient::opt_list_at_most(deserializer, self.max, self.name)
    }
}

/// One declared parameter, as a tool's spec lists it (for the docs and the test that ties each
/// declaration to its tool's schema).
#[derive(Debug, Clone, Copy)]
pub enum Param {
    /// An integer with a default and bounds.
    Int(&'static IntParam),
    /// A list refused past a number of items.
    List(&'static ListParam),
}

impl Param {
    /// The name, as listed and sent.
    pub fn name(&self) -> &'static str {
        match self {
            Param::Int(p) => p.name,
            Param::List(p) => p.name,
        }
    }

    /// The description the tool's schema lists for it.
    pub fn description(&self) -> String {
        match self {
            Param::Int(p) => p.description(),
            Param::List(p) => p.description(),
        }
    }

    /// Its line under "In detail" in docs/tools.md, after the name.
    pub fn detail(&self) -> String {
        match self {
            Param::Int(p) => p.detail(),
            Param::List(p) => p.detail(),
        }
    }
}

// `grep_content`.

/// `context_lines`.
pub const CONTEXT_LINES: IntParam = IntParam {
    name: "context_lines",
    default: GrepOptions::DEFAULT_CONTEXT_LINES as i64,
    min: 0,
    max: Some(20),
    lead: None,
    lists_max: true,
    doc: "Lines shown before and after each match",
};

/// `max_matches`, bounded so one call cannot hold the server for long.
pub const MAX_MATCHES: IntParam = IntParam {
    name: "max_matches",
    default: GrepOptions::DEFAULT_MAX_MATCHES as i64,
    min: 1,
    max: Some(1000),
    lead: None,
    lists_max: true,
    doc: "Global cap on matching lines shown",
};

/// `grep_content`'s `timeout`, in seconds.
pub const GREP_TIMEOUT: IntParam = IntParam {
    name: "timeout",
    default: GrepOptions::DEFAULT_TIMEOUT.as_secs() as i64,
    min: 1,
    max: Some(300),
    lead: Some("Seconds"),
    lists_max: true,
    doc: "Seconds before the search stops with partial results",
};

/// `section_patterns`; the listed text leaves the bound to the refusal: no real call comes near it.
pub const SECTION_PATTERNS: ListParam = ListParam {
    name: "section_patterns",
    max: GrepOptions::MAX_SECTION_PATTERNS,
    listed: "Section-start regexes (default per language; [] none): L{m} is the last line of the block, for end_line.",
    doc: "Regexes of lines that start a section (at most {max}; a longer list is refused); `[]` turns hints off. With custom patterns the hint `L{m}` is the last line of the block: the line before the next line after the match that matches one of them (blank lines just before it not counted), or `EOF`; so `read_files` with `end_line` = m reads the block.",
};

// `directory_tree`.

/// `max_depth`.
pub const MAX_DEPTH: IntParam = IntParam {
    name: "max_depth",
    default: TreeOptions::DEFAULT_MAX_DEPTH as i64,
    min: 0,
    max: Some(64),
    lead: None,
    lists_max: false,
    doc: "Levels below `path`",
};

/// `exclude_dirs`; the listed text leaves the bound to the refusal: no real call comes near it.
pub const EXCLUDE_DIRS: ListParam = ListParam {
    name: "exclude_dirs",
    max: TreeOptions::MAX_EXCLUDE_DIRS,
    listed: "Names not to expand (default .git, node_modules, target…; [] none).",
    doc: "Directory names not expanded; `[]` expands everything. At most {max} names; a longer list is refused.",
};

// `read_files`.

/// `files`: a reply shows far fewer blocks than its bound anyway.
pub const FILES: ListParam = ListParam {
    name: "files",
    max: fs_mcp_read::MAX_REQUESTS,
    listed: r#"E.g. [{"path": "a.md", "head": 40}]. At most {max}."#,
    doc: "The files to read, in order; at most {max} a call. A longer list is refused whole before any file is read (the error says how many it had and the cap): a reply shows far fewer blocks anyway, so send the rest in further calls.",
};

// `query_json` and `query_yaml`.

/// The queries' `timeout`, in seconds.
pub const QUERY_TIMEOUT: IntParam = IntParam {
    name: "timeout",
    default: fs_mcp_query::DEFAULT_TIMEOUT_SECS as i64,
    min: 1,
    max: Some(600),
    lead: Some("Seconds"),
    lists_max: true,
    doc: "Seconds before the query is stopped",
};

// `propose_and_review`.

/// `expected_replacements`.
pub const EXPECTED_REPLACEMENTS: IntParam = IntParam {
    name: "expected_replacements",
    default: fs_mcp_edit::DEFAULT_EXPECTED_REPLACEMENTS as i64,
    min: 0,
    max: None,
    lead: Some("How often match_text must occur"),
    lists_max: false,
    doc: "How many times `match_text` must occur",
};

/// `edits`: more than a human reviews in one diff.
pub const EDITS: ListParam = ListParam {
    name: "edits",
    max: 100,
    listed: "Instead of match_text/new_string, in order; all written or none. At most {max}.",
    doc: "A batch, applied in order, instead of `match_text`/`new_string`; an item with its own `path` changes that file (a multi-file proposal). At most {max} edits; a longer list is refused before any is read.",
};

#[cfg(test)]
mod tests {
    use super::*;

    const COUNT: IntParam = IntParam {
        name: "count",
        default: 5,
        min: 1,
        max: Some(10),
        lead: Some("Lines"),
        lists_max: true,
        doc: "How many",
    };

    #[test]
    fn an_integer_is_its_default_when_absent_and_clamped_into_its_bounds() {
        assert_eq!(COUNT.clamp(None), 5);
        assert_eq!(COUNT.clamp(Some(0)), 1);
        assert_eq!(COUNT.clamp(Some(7)), 7);
        assert_eq!(COUNT.clamp(Some(11)), 10);
        assert_eq!(COUNT.clamp_usize(Some(-3)), 1);
        let unbounded = IntParam { max: None, ..COUNT };
        assert_eq!(unbounded.clamp(Some(i64::MAX)), i64::MAX);
    }

    #[test]
    fn the_texts_say_the_declared_numbers() {
        assert_eq!(COUNT.description(), "Lines. Default 5, at most 10.");
        assert_eq!(COUNT.detail(), "How many (1–10).");
        let quiet = IntParam {
            lead: None,
            lists_max: false,
            max: None,
            ..COUNT
        };
        assert_eq!(quiet.description(), "Default 5.");
        assert_eq!(quiet.detail(), "How many.");
        let list = ListParam {
            name: "items",
            max: 1_000,
            listed: "At most {max}.",
            doc: "Items; at most {max} a call.",
        };
        assert_eq!(list.description(), "At most 1,000.");
        assert_eq!(list.detail(), "Items; at most 1,000 a call.");
    }
}
