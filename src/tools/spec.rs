//! A tool's facts in one place (ripgrep's `Flag` in spirit): its name, description, effect
//! (annotations), tier, result budget and declared parameters. The router, the tier filter, the `_meta` result budget
//! and the generated docs (`cargo xtask docs`) all read them from here; the parameters are the
//! handler's `Parameters<…>` type in the same file.

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRoute;
use rmcp::handler::server::tool::CallToolHandler;
use rmcp::model::{JsonObject, Tool, ToolAnnotations};

use crate::context::{FsServer, ReadLimits, Tier};
use crate::params::Param;

/// What one tool is, apart from its handler.
pub struct ToolSpec {
    /// The tool's name, as listed and called.
    pub name: &'static str,
    /// What the model reads in `tools/list`: short; details belong in docs/tools.md.
    pub description: Cow<'static, str>,
    /// What a call does to the files.
    pub effect: Effect,
    /// Which tier lists it.
    pub tier: ToolTier,
    /// How long its results may get, said to clients.
    pub result_budget: ResultBudget,
    /// The schema of the tool's `structuredContent`, for tools whose results are data.
    pub output_schema: Option<Arc<JsonObject>>,
    /// Its parameters with a default or a bound, as declared in `src/params.rs`: the docs'
    /// "In detail" lines read them, and a test checks each against the listed schema.
    pub params: &'static [Param],
}

/// What a call does to the files (the MCP annotations; `--read-only` lists only `ReadOnly`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// It reads only.
    ReadOnly,
    /// It writes.
    Writes {
        /// It may replace or remove what was there (not only add).
        destructive: bool,
        /// Calling it again with the same arguments changes nothing more.
        idempotent: bool,
    },
}

/// Which tier lists the tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolTier {
    /// Listed by default.
    Core,
    /// Listed only with `--all`, for the reason given.
    AllOnly {
        /// Why it is not in the default list.
        why: &'static str,
    },
}

/// How long a result may get, said to clients that read a budget (`_meta` [`RESULT_SIZE_KEY`]).
///
/// [`RESULT_SIZE_KEY`]: RESULT_SIZE_KEY
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultBudget {
    /// Results stay small: nothing is said.
    Small,
    /// Up to the reply cap (`--max-reply-bytes`).
    ReplyCap,
    /// Up to the tool's own cap in bytes, or the reply cap if that is larger.
    OwnCap(usize),
}

/// An output schema written as JSON (compact: every listed token is paid on each model request;
/// the Python SDK test in tests/structured_content.rs checks real results against it).
pub fn output_schema(schema: serde_json::Value) -> Option<Arc<JsonObject>> {
    match schema {
        serde_json::Value::Object(map) => Some(Arc::new(map)),
        _ => None,
    }
}

/// Why the read-only `list_directory` is `--all` only.
pub const LEAN_DEFAULT_SURFACE: &str = "read-only, but list_directory_with_sizes answers the same and more: kept out of the default list to keep it lean (every listed token is paid on each model request)";
/// Why the direct writers are `--all` only.
pub const WRITES_WITHOUT_REVIEW: &str =
    "writes or moves files without a human's review (propose_and_review is the reviewed way)";

impl ToolSpec {
    /// A read-only core tool with a small result and no output schema: set the fields that
    /// differ with `..ToolSpec::new(name, description)`.
    pub fn new(name: &'static str, description: impl Into<Cow<'static, str>>) -> ToolSpec {
        ToolSpec {
            name,
            description: description.into(),
            effect: Effect::ReadOnly,
            tier: ToolTier::Core,
            result_budget: ResultBudget::Small,
            output_schema: None,
            params: &[],
        }
    }

    /// Whether a server of `tier` lists this tool.
    pub fn listed_in(&self, tier: Tier) -> bool {
        tier == Tier::All || self.tier == ToolTier::Core
    }

    /// The MCP annotations of [`Self::effect`].
    pub fn annotations(&self) -> ToolAnnotations {
        match self.effect {
            Effect::ReadOnly => {
                ToolAnnotations::from_raw(None, Some(true), None, None, Some(false))
            }
            Effect::Writes {
                destructive,
                idempotent,
            } => ToolAnnotations::from_raw(
                None,
                Some(false),
                Some(destructive),
                Some(idempotent),
                Some(false),
            ),
        }
    }

    /// The budget said to clients: the reply cap, or the tool's own larger cap, at most
    /// [`RESULT_SIZE_CEILING`](RESULT_SIZE_CEILING). `None` for tools whose results
    /// stay small, and where the budget is no more than a client assumes anyway.
    pub fn result_budget(&self, read_limits: ReadLimits) -> Option<usize> {
        let own_cap = match self.result_budget {
            ResultBudget::Small => return None,
            ResultBudget::ReplyCap => 0,
            ResultBudget::OwnCap(bytes) => bytes,
        };
        let budget = read_limits
            .max_reply_bytes
            .max(own_cap)
            .min(RESULT_SIZE_CEILING);
        (budget > CLIENT_DEFAULT_RESULT_CHARS).then_some(budget)
    }

    /// The route of this tool: `attr` is what `#[tool]` generated for the handler (its input
    /// schema, from the handler's `Parameters<…>`); everything else comes from the spec.
    pub fn route<C, A>(self, attr: Tool, handler: C) -> ToolRoute<FsServer>
    where
        C: CallToolHandler<FsServer, A> + Send + Sync + Clone + 'static,
    {
        let mut tool = attr;
        tool.annotations = Some(self.annotations());
        tool.name = self.name.into();
        tool.description = Some(self.description);
        tool.output_schema = self.output_schema;
        ToolRoute::new(tool, handler)
    }
}

/// The `_meta` key where Claude Code reads how long (in characters) a tool's result may be before
/// it saves the result to a file and shows the model a 2 KB preview instead.
pub const RESULT_SIZE_KEY: &str = "anthropic/maxResultSizeChars";
/// What Claude Code keeps inline when a tool says nothing: saying it again would change nothing
/// and cost tokens on every request.
pub const CLIENT_DEFAULT_RESULT_CHARS: usize = 50_000;
/// The most Claude Code honours for [`RESULT_SIZE_KEY`].
pub const RESULT_SIZE_CEILING: usize = 500_000;
/// The tool's `_meta` with its result budget, if it has one.
pub fn result_budget_meta(
    spec: &ToolSpec,
    read_limits: ReadLimits,
) -> Option<rmcp::model::MetaObject> {
    let budget = spec.result_budget(read_limits)?;
    let mut meta = rmcp::model::JsonObject::new();
    meta.insert(RESULT_SIZE_KEY.into(), budget.into());
    Some(rmcp::model::MetaObject(meta))
}
