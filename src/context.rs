//! What every tool call runs with: [`FsServer`], one client session's view of the server, and the
//! process-wide state under it; the server's option types. It knows no tool and no MCP method:
//! `crate::server` wires the tools and the protocol on top of it, and the tools use it.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use clap::ValueEnum;
use fs_mcp_sandbox::Sandbox;
use gemini_compat::SchemaProfile;
use rmcp::RoleServer;
use rmcp::handler::server::tool::ToolRouter;
use rmcp::model::Tool;
use rmcp::service::RequestContext;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::client_log::SessionLog;
use crate::render::ListedTools;
use crate::review_page::ReviewPage;
use crate::roots::SessionSandbox;
use crate::schemas::ArgumentGuard;

/// Which tools a server exposes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tier {
    /// The everyday set.
    #[default]
    Core,
    /// Core plus the tools that write without review or move files.
    All,
}

/// How a server is set up: its tier, where its directories came from, how reviews run.
#[derive(Clone)]
pub struct ServerOptions {
    /// Which tools are listed (`--all`).
    pub tier: Tier,
    /// The allowed directories were given on the command line, so client roots never replace them.
    pub dirs_from_cli: bool,
    /// How review sessions run: the editor command, timeouts, the session directory.
    pub review: fs_mcp_edit::ReviewConfig,
    /// `--review-via`: where the human reviews proposals.
    pub review_via: ReviewVia,
    /// The human already looks at this server's review page (`fs-mcp-rs ui`): a proposal waits
    /// there instead of answering with a link.
    pub review_page_is_client: bool,
    /// Memory cap of one query evaluation, in bytes.
    pub query_memory_limit: u64,
    /// List only read-only tools (the sandbox refuses writes too).
    pub read_only: bool,
    /// Tools left out of the list (names checked with [`check_tool_names`]).
    pub disabled_tools: Vec<String>,
    /// Cancelled when the process shuts down: waiting reviews answer CANCELLED at once.
    pub shutdown: CancellationToken,
    /// Caps on one read_files reply and on one line of a partial read, in bytes.
    pub read_limits: ReadLimits,
    /// Which schemas `tools/list` serves (`auto` is resolved per session from the client's name).
    pub schema_profile: SchemaProfile,
    /// `--index`: keep a grep index of the allowed directories.
    pub index: bool,
}

/// Caps on what one read_files call returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadLimits {
    /// Bytes of one reply at most; the rest is left out with a note on how to read on.
    pub max_reply_bytes: usize,
    /// Bytes of one line at most; a longer line is cut with a note.
    pub max_line_bytes: usize,
}

impl Default for ReadLimits {
    fn default() -> Self {
        ReadLimits {
            max_reply_bytes: fs_mcp_read::DEFAULT_MAX_REPLY_BYTES,
            max_line_bytes: fs_mcp_read::DEFAULT_MAX_LINE_BYTES,
        }
    }
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            tier: Tier::Core,
            dirs_from_cli: false,
            review: fs_mcp_edit::ReviewConfig::default(),
            review_via: ReviewVia::Auto,
            review_page_is_client: false,
            query_memory_limit: fs_mcp_query::DEFAULT_MEMORY_LIMIT_BYTES,
            read_only: false,
            disabled_tools: Vec::new(),
            shutdown: CancellationToken::new(),
            read_limits: ReadLimits::default(),
            schema_profile: SchemaProfile::GEMINI,
            index: false,
        }
    }
}

/// `--review-via`: where the human reviews a proposal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum ReviewVia {
    /// Best first: the review view inside the client when it renders MCP Apps, else the
    /// client's own form when it declares elicitation, else the review command
    /// when its program is on PATH (or `--review-command none`: the files are opened by hand),
    /// else the review page this server serves on 127.0.0.1 (the call answers at once with its
    /// link).
    #[default]
    Auto,
    /// The client's own form (MCP elicitation); the review page when the client has none.
    Elicitation,
    /// The review command (`--review-command`); the review page when its program is missing.
    Command,
    /// The review page on 127.0.0.1 (the call answers at once with its link).
    Page,
    /// The review view inside the client (MCP Apps, `io.modelcontextprotocol/ui`); the review
    /// page when the client does not render MCP Apps.
    App,
}

/// One client session's view of the server: the process-wide state plus the session's sandbox
/// (which the client's roots may replace).
#[derive(Clone)]
pub struct FsServer {
    inner: Arc<Inner>,
    session: Arc<SessionSandbox>,
    /// The client's `logging/setLevel` subscription.
    log: Arc<SessionLog>,
    /// This client session, among every session of the process: its reviews are its own.
    client: u64,
    /// Ends this client session's open reviews when its last handle goes (the session ended).
    _client_reviews: Arc<ClientReviews>,
    /// Made for an HTTP client: on 2026-07-28 each request gets a server of its own (no
    /// session), so its reviews are reached by their handle instead of by this session.
    over_http: bool,
}

/// The next client session's number (see [`FsServer::review_owner`]).
fn next_client() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// A client session's hold on its reviews, shared by every handle of its server. rmcp drops the
/// session's server however the session ends (an HTTP DELETE, the idle expiry, an eviction to
/// make room, stdin closed), once its last call is answered: then nobody can collect or commit
/// its reviews any more, so they end with it (cancelled, files removed, gone from the review
/// page) rather than wait for an approval that could never be written.
struct ClientReviews {
    client: u64,
    reviews: Arc<fs_mcp_edit::ReviewManager>,
}

impl ClientReviews {
    fn new(client: u64, reviews: &Arc<fs_mcp_edit::ReviewManager>) -> Arc<ClientReviews> {
        Arc::new(ClientReviews {
            client,
            reviews: Arc::clone(reviews),
        })
    }
}

impl Drop for ClientReviews {
    fn drop(&mut self) {
        let ended = self.reviews.end_client(self.client);
        if ended > 0 {
            tracing::info!("a client session ended: its {ended} open review(s) were cancelled");
        }
    }
}

/// State shared by every session of the process.
struct Inner {
    /// The sandbox a new session starts with.
    base_sandbox: Arc<Sandbox>,
    /// The tools as served, built on first need ([`FsServer::tools`]): the `initialize` reply
    /// does not wait for every schema to be generated and transformed.
    tools: OnceLock<ServedTools>,
    /// What builds [`Self::tools`].
    build_tools: BuildTools,
    /// The options the server was started with (the tools are built from them).
    options: ServerOptions,
    /// Review sessions of every client, in one private directory this process owns.
    reviews: Arc<fs_mcp_edit::ReviewManager>,
    /// The tools as a client of each profile that rewrites them sees them, by profile name,
    /// built on its first `tools/list`.
    profile_tools: std::sync::Mutex<HashMap<&'static str, Vec<Tool>>>,
    /// `propose_and_review` calls in progress, so a shutdown can wait for their answers.
    reviews_in_progress: TaskTracker,
    /// The review page, started on the first proposal that needs it.
    review_page: tokio::sync::OnceCell<ReviewPage>,
    /// `--index`: the grep index.
    search_index: Option<Arc<crate::index::SearchIndex>>,
}

/// The tool router of a server, every schema transformed, and what calls are checked against.
pub struct ServedTools {
    /// The routes of the tools listed.
    pub router: ToolRouter<FsServer>,
    /// Each tool's raw and served input schemas: the guards every call passes.
    pub argument_guard: ArgumentGuard,
    /// The tools this server lists: next steps in messages name only these.
    pub listed_tools: ListedTools,
}

/// Builds the tools a server of these options serves (the MCP handler's router builder).
pub type BuildTools = fn(&ServerOptions) -> ServedTools;

impl FsServer {
    /// The server and its review session directory. `build_tools` builds the tools on first
    /// need ([`FsServer::tools`]); the MCP handler (`crate::server`) passes its router builder,
    /// as this state knows no tool.
    pub fn with_tools(
        sandbox: Sandbox,
        options: ServerOptions,
        build_tools: BuildTools,
    ) -> std::io::Result<FsServer> {
        let reviews = Arc::new(fs_mcp_edit::ReviewManager::new(options.review.clone())?);
        // The review files are the server's own, even when the temp dir is inside an allowed
        // directory (or a client's root): no tool reads, lists or writes them.
        fs_mcp_sandbox::never_serve(reviews.sessions_dir());
        let base_sandbox = Arc::new(sandbox.with_read_only(options.read_only));
        let client = next_client();
        let client_reviews = ClientReviews::new(client, &reviews);
        Ok(FsServer {
            session: Arc::new(SessionSandbox::new(
                Arc::clone(&base_sandbox),
                options.dirs_from_cli,
            )),
            inner: Arc::new(Inner {
                base_sandbox,
                tools: OnceLock::new(),
                build_tools,
                reviews,
                profile_tools: Default::default(),
                reviews_in_progress: TaskTracker::new(),
                review_page: tokio::sync::OnceCell::new(),
                search_index: options.index.then(Arc::default),
                options,
            }),
            log: SessionLog::register(),
            client,
            _client_reviews: client_reviews,
            over_http: false,
        })
    }

    /// A server for a new client session (HTTP): shared tools, a sandbox of its own.
    pub fn new_session(&self) -> FsServer {
        let client = next_client();
        FsServer {
            inner: Arc::clone(&self.inner),
            session: Arc::new(SessionSandbox::new(
                Arc::clone(&self.inner.base_sandbox),
                self.inner.options.dirs_from_cli,
            )),
            log: SessionLog::register(),
            client,
            _client_reviews: ClientReviews::new(client, &self.inner.reviews),
            over_http: true,
        }
    }

    /// This client session's roots changed to `sandbox`: its reviews whose files are no longer
    /// inside end now, saying why (see [`fs_mcp_edit::ReviewManager::roots_changed`]).
    pub async fn reviews_follow_roots(&self, sandbox: &Sandbox) {
        self.inner.reviews.roots_changed(self.client, sandbox).await;
    }

    /// Who this call's reviews belong to: this client session on its allowed directories, or,
    /// for a stateless client (2026-07-28 over HTTP, a server per request), whoever holds the
    /// review's handle on the same allowed directories.
    pub fn review_owner(&self, context: &RequestContext<RoleServer>) -> fs_mcp_edit::ReviewOwner {
        let stateless = self.over_http
            && context
                .protocol_version()
                .is_some_and(|v| v >= rmcp::model::ProtocolVersion::V_2026_07_28);
        let sandbox = self.sandbox();
        if stateless {
            fs_mcp_edit::ReviewOwner::stateless(&sandbox)
        } else {
            fs_mcp_edit::ReviewOwner::client(self.client, &sandbox)
        }
    }

    /// The sandbox in force for this call.
    pub fn sandbox(&self) -> Arc<Sandbox> {
        self.session.get()
    }

    /// The grep index (`--index`).
    pub fn search_index(&self) -> Option<Arc<crate::index::SearchIndex>> {
        self.inner.search_index.clone()
    }

    /// The tools this server lists (for next steps in messages).
    pub fn listed_tools(&self) -> &ListedTools {
        &self.tools().listed_tools
    }

    /// Builds the tools now if no call has yet (stdio does it right after the `initialize`
    /// reply, while the client reads it).
    pub fn prepare_tools(&self) {
        self.tools();
    }

    /// The tools as served, built on first need.
    pub fn tools(&self) -> &ServedTools {
        self.inner
            .tools
            .get_or_init(|| (self.inner.build_tools)(&self.inner.options))
    }

    /// `--schema-profile`, resolved per session in `tools/list`.
    pub fn schema_profile(&self) -> SchemaProfile {
        self.inner.options.schema_profile
    }

    /// The tools as a client of each profile that rewrites them sees them, by profile name.
    pub fn profile_tools(&self) -> &std::sync::Mutex<HashMap<&'static str, Vec<Tool>>> {
        &self.inner.profile_tools
    }

    /// Where the client's roots, when they change, replace this session's sandbox.
    pub fn session_sandbox(&self) -> &SessionSandbox {
        &self.session
    }

    /// The client's `logging/setLevel` subscription.
    pub fn session_log(&self) -> &SessionLog {
        &self.log
    }

    /// The review sessions (shared by every client session).
    pub fn reviews(&self) -> Arc<fs_mcp_edit::ReviewManager> {
        Arc::clone(&self.inner.reviews)
    }

    /// `--review-via`, and whether the human already looks at the review page (`ui`).
    pub fn review_via(&self) -> (ReviewVia, bool) {
        (
            self.inner.options.review_via,
            self.inner.options.review_page_is_client,
        )
    }

    /// The review page's link for the reviews of `scope` (the link's token shows and decides
    /// those alone), starting the page on 127.0.0.1 on first use.
    pub async fn review_page_url(
        &self,
        scope: &fs_mcp_edit::ReviewScope,
    ) -> std::io::Result<String> {
        let reviews = self.reviews();
        let page = self
            .inner
            .review_page
            .get_or_try_init(|| ReviewPage::start(reviews))
            .await?;
        page.url_for(scope)
    }

    /// Cancelled when the process shuts down.
    pub fn shutdown_token(&self) -> &CancellationToken {
        &self.inner.options.shutdown
    }

    /// Reviews in progress: hold a token of it for as long as a review waits.
    pub fn reviews_in_progress(&self) -> &TaskTracker {
        &self.inner.reviews_in_progress
    }

    /// Answers waiting reviews with CANCELLED, waits (at most `limit`) for those answers, and
    /// removes every review file. The first step of a shutdown.
    pub async fn end_reviews(&self, limit: std::time::Duration) {
        self.inner.options.shutdown.cancel();
        let tracker = &self.inner.reviews_in_progress;
        tracker.close();
        let _ = tokio::time::timeout(limit, tracker.wait()).await;
        let dir = self.inner.reviews.sessions_dir();
        if let Err(e) = std::fs::remove_dir_all(dir)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!(
                "could not remove the review files in {}: {e}",
                dir.display()
            );
        }
    }

    /// Memory cap of one query evaluation, in bytes.
    pub fn query_memory_limit(&self) -> u64 {
        self.inner.options.query_memory_limit
    }

    /// Caps on one read_files reply.
    pub fn read_limits(&self) -> ReadLimits {
        self.inner.options.read_limits
    }
}
