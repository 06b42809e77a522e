"use strict";
// The token comes with the page URL; every API call sends it back in a header.
const TOKEN = new URLSearchParams(location.search).get("token") || "";
const state = { tools: [], selected: null, sampleFile: "README.md", calls: 0 };

const $ = (id) => document.getElementById(id);
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c !== null && c !== undefined) node.append(c instanceof Node ? c : String(c));
  }
  return node;
}
const pretty = (v) => JSON.stringify(v, null, 2);

async function api(path, body) {
  const init = { headers: { "x-fs-mcp-token": TOKEN } };
  if (body !== undefined) {
    init.method = "POST";
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  let data;
  try { data = await response.json(); } catch { data = { error: await response.text() }; }
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

// ---- tabs ----
function show(view) {
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.view === view);
  for (const section of document.querySelectorAll(".view")) section.classList.toggle("hidden", section.id !== "view-" + view);
  if (view === "workspace") loadWorkspace();
  if (view === "reviews") pollReviews();
}
for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => show(tab.dataset.view));
document.addEventListener("click", (e) => {
  const button = e.target.closest("button.copy");
  if (!button) return;
  const text = $(button.dataset.copy).textContent;
  navigator.clipboard.writeText(text).then(() => { button.textContent = "Copied"; setTimeout(() => (button.textContent = "Copy"), 1200); },
    () => { button.textContent = "Select and copy"; });
});

// ---- tools ----
const ANNOTATIONS = [
  ["readOnlyHint", "read-only", "ro"], ["destructiveHint", "destructive", "destructive"],
  ["idempotentHint", "idempotent", ""], ["openWorldHint", "open world", ""],
];
function chips(annotations) {
  const a = annotations || {};
  return el("div", { class: "chips" }, ANNOTATIONS.filter(([k]) => a[k] === true).map(([, label, cls]) => el("span", { class: "chip " + cls }, label)));
}

async function loadTools() {
  const data = await api("/api/tools");
  state.tools = data.tools;
  const info = data.server && data.server.serverInfo;
  $("server-info").textContent = (info ? info.name + " " + info.version + " · " : "") + data.tier + " tier · " + data.tools.length + " tools";
  const list = $("tool-list");
  list.replaceChildren(...data.tools.map((t) =>
    el("div", { class: "tool-item", "data-name": t.name, onclick: () => selectTool(t.name) },
      el("div", { class: "name" }, t.name), chips(t.listed.annotations))));
  if (data.tools.length) selectTool(data.tools[0].name);
}

function exampleValue(schema, key) {
  if (!schema || typeof schema !== "object") return "";
  if (schema.enum && schema.enum.length) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  if (schema.anyOf) return exampleValue(schema.anyOf.find((s) => s.type !== "null") || schema.anyOf[0], key);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  switch (type) {
    case "object": return exampleObject(schema);
    case "array": return [exampleValue(schema.items, key)];
    case "integer": case "number": return schema.minimum !== undefined ? schema.minimum : 1;
    case "boolean": return false;
    default:
      if (/path|file|source|destination/i.test(key || "")) return state.sampleFile;
      if (/pattern|query|regex/i.test(key || "")) return key === "query" ? "." : "fn ";
      if (/content|text|new|old/i.test(key || "")) return "hello\n";
      return "example";
  }
}
function exampleObject(schema) {
  const out = {};
  for (const key of schema.required || []) out[key] = exampleValue((schema.properties || {})[key], key);
  return out;
}
// Hand-picked examples where a generic one would not do anything useful.
function exampleArgs(tool) {
  const f = state.sampleFile;
  const picked = {
    read_files: { files: [{ path: f }] },
    grep_content: { pattern: "TODO" },
    search_files: { pattern: "*.md" },
    list_directory_with_sizes: { path: "." },
    create_directory: { path: "new-folder" },
    query_json: { file_path: "package.json", jq_expression: "." },
    query_yaml: { file_path: "config.yaml", yq_expression: "." },
    propose_and_review: { path: "playground-note.txt", match_text: "", new_string: "Written from the fs-mcp-rs playground.\n" },
  }[tool.name];
  return picked || exampleObject(tool.listed.inputSchema || {});
}

function findings(items, emptyText) {
  if (!items || !items.length) return el("p", { class: "ok" }, emptyText);
  return el("ul", { class: "findings" }, items.map((i) =>
    el("li", {}, i.severity ? el("span", { class: "sev-" + i.severity }, i.severity + " ") : null,
      el("span", { class: "rule" }, i.rule), " ", el("code", {}, i.path || "/"), " ", i.message)));
}

function selectTool(name) {
  const tool = state.tools.find((t) => t.name === name);
  if (!tool) return;
  state.selected = tool;
  for (const item of document.querySelectorAll(".tool-item")) item.classList.toggle("active", item.dataset.name === name);
  const t = tool.listed;
  const args = el("textarea", { id: "args", spellcheck: "false", rows: "5" });
  args.value = pretty(exampleArgs(tool));
  const detail = el("div", {},
    el("h2", {}, el("code", {}, t.name), t.title ? el("span", { class: "dim" }, " " + t.title) : null),
    chips(t.annotations),
    el("h3", {}, "Description"), el("div", { class: "description", id: "description" }, t.description || ""),
    el("h3", {}, "Arguments ", el("span", { class: "dim" }, "(raw JSON, as the served schema names them)")),
    args,
    el("div", { class: "actions" },
      el("button", { class: "primary", id: "run", onclick: runTool }, "Run"),
      el("button", { onclick: () => (args.value = pretty(exampleArgs(tool))) }, "Example"),
      el("span", { id: "run-status", class: "dim" })),
    el("div", { class: "row" },
      el("div", { class: "col" }, el("h3", {}, "Result"), el("div", { id: "human", class: "human" }, el("span", { class: "dim" }, "Run the tool to see its result."))),
      el("div", { class: "col" }, el("h3", {}, "Protocol ", el("span", { class: "dim" }, "(tools/call result)"), el("button", { class: "copy", "data-copy": "protocol" }, "Copy")),
        el("pre", { id: "protocol", class: "code" }, ""))),
    el("div", { class: "row" },
      el("div", { class: "col" }, el("h3", {}, "Raw schema ", el("span", { class: "dim" }, "(schemars, as written)"), el("button", { class: "copy", "data-copy": "raw-schema" }, "Copy")),
        el("pre", { id: "raw-schema", class: "code" }, pretty(tool.raw_input))),
      el("div", { class: "col" }, el("h3", {}, "Served schema ", el("span", { class: "dim" }, "(tools/list, Gemini-safe)"), el("button", { class: "copy", "data-copy": "served-schema" }, "Copy")),
        el("pre", { id: "served-schema", class: "code" }, pretty(t.inputSchema)))),
    el("div", { class: "row" },
      el("div", { class: "col", id: "changes" }, el("h3", {}, "What the transform changed"), findings(tool.changes, "Nothing.")),
      el("div", { class: "col", id: "lint" }, el("h3", {}, "Lint of the raw schema"), findings(tool.raw_issues, "No issue."),
        el("h3", {}, "Lint of the served schema"), findings(tool.served_issues, "No issue: Gemini accepts it."))),
    t.outputSchema ? el("details", {}, el("summary", {}, "Output schema (served)"), el("pre", { class: "code" }, pretty(t.outputSchema))) : null,
  );
  $("tool-detail").replaceChildren(detail);
}

function renderHuman(result) {
  const box = $("human");
  box.classList.toggle("error", !!result.isError);
  const parts = [];
  for (const block of result.content || []) {
    if (block.type === "text") {
      let text = block.text;
      try { const v = JSON.parse(text); if (v && typeof v === "object") text = pretty(v); } catch { /* plain text */ }
      parts.push(el("pre", { class: "code" }, text));
    } else if (block.type === "image") {
      parts.push(el("img", { src: "data:" + block.mimeType + ";base64," + block.data, alt: "image result" }));
    } else if (block.type === "audio") {
      parts.push(el("audio", { controls: "", src: "data:" + block.mimeType + ";base64," + block.data }));
    } else if (block.type === "resource" && block.resource) {
      parts.push(el("pre", { class: "code" }, block.resource.text || "(binary resource " + (block.resource.mimeType || "") + ")"));
    } else {
      parts.push(el("pre", { class: "code" }, pretty(block)));
    }
  }
  if (!parts.length && result.structuredContent) parts.push(el("pre", { class: "code" }, pretty(result.structuredContent)));
  box.replaceChildren(...(parts.length ? parts : [el("span", { class: "dim" }, "(empty result)")]));
}

async function runTool() {
  const tool = state.selected;
  let args;
  try { args = JSON.parse($("args").value || "{}"); } catch (e) {
    $("run-status").textContent = "The arguments are not JSON: " + e.message;
    return;
  }
  $("run-status").textContent = "Running…";
  $("run").disabled = true;
  state.calls++;
  pollReviews();
  try {
    const data = await api("/api/call", { name: tool.name, arguments: args });
    if (state.selected !== tool) return;
    if (data.error) {
      $("protocol").textContent = pretty({ error: data.error });
      $("human").replaceChildren(el("pre", { class: "code" }, data.error.message || pretty(data.error)));
      $("human").classList.add("error");
    } else {
      $("protocol").textContent = pretty(data.result);
      renderHuman(data.result);
    }
    $("run-status").textContent = "Done.";
  } catch (e) {
    $("run-status").textContent = "Failed: " + e.message;
  } finally {
    state.calls--;
    if (state.selected === tool) $("run").disabled = false;
  }
}

// ---- reviews ----
let reviewTimer = null;
function diffView(text) {
  return el("pre", { class: "code diff" }, text.split("\n").map((line) => {
    const cls = line.startsWith("+++") || line.startsWith("---") ? "" : line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : line.startsWith("@@") ? "hunk" : "";
    return el("span", { class: cls }, line + "\n");
  }));
}
async function pollReviews() {
  clearTimeout(reviewTimer);
  try {
    const data = await api("/api/reviews");
    renderReviews(data.reviews);
  } catch { /* shown next time */ }
  const reviewsVisible = !$("view-reviews").classList.contains("hidden");
  if (state.calls > 0 || reviewsVisible) reviewTimer = setTimeout(pollReviews, 1000);
}
function renderReviews(reviews) {
  const count = $("review-count");
  count.textContent = reviews.length;
  count.classList.toggle("hidden", !reviews.length);
  const banner = $("banner");
  banner.classList.toggle("hidden", !reviews.length);
  banner.textContent = reviews.length ? reviews.length + " proposal(s) waiting for your review: open the Reviews tab." : "";
  banner.onclick = () => show("reviews");
  const list = $("review-list");
  // A review is the same while its session and its diff are: a continued proposal (same
  // session, new diff) is shown anew, anything else keeps the edits in progress.
  const keyOf = (r) => r.session_path + "\n" + r.diff;
  const open = new Set([...list.querySelectorAll(".review")].map((r) => r.dataset.key));
  const now = new Set(reviews.map(keyOf));
  if (open.size === now.size && [...now].every((s) => open.has(s))) return; // keep edits in progress
  if (!reviews.length) { list.replaceChildren(el("p", { class: "dim" }, "No proposal is waiting.")); return; }
  list.replaceChildren(...reviews.map((r) => {
    const editor = el("textarea", { class: "proposal", rows: "10", spellcheck: "false" });
    const status = el("span", { class: "dim" });
    // One review's whole diff and proposed text, fetched when asked for.
    const one = () => api("/api/reviews/one?session_path=" + encodeURIComponent(r.session_path));
    let diff = diffView(r.diff);
    const whole = r.diff_cut > 0 ? [el("button", { onclick: async (event) => {
      try { const d = await one(); const full = diffView(d.diff); diff.replaceWith(full); diff = full; event.target.remove(); }
      catch (e) { status.textContent = "Failed: " + e.message; }
    } }, "Show the whole diff (" + r.diff_cut + " more bytes)")] : [];
    const details = el("details", {}, el("summary", {}, "Edit the proposal"), editor,
      el("div", { class: "actions" }, el("button", { class: "send-edit", onclick: () => decide(editor.value) }, "Send edited version")));
    // The proposed text arrives when the editor is opened; what the human typed meanwhile stays.
    editor.addEventListener("input", () => (editor.dataset.loaded = "1"));
    details.addEventListener("toggle", async () => {
      if (!details.open || editor.dataset.loaded) return;
      try { const d = await one(); if (!editor.dataset.loaded) { editor.value = d.proposed || ""; editor.dataset.loaded = "1"; } }
      catch (e) { status.textContent = "Failed: " + e.message; }
    });
    const decide = async (content) => {
      try {
        await api("/api/reviews/decide", content === undefined ? { session_path: r.session_path } : { session_path: r.session_path, content });
        status.textContent = content === undefined ? "Approved: the agent's call returns and the file is written." : "Sent your version as feedback.";
        setTimeout(pollReviews, 300);
      } catch (e) { status.textContent = "Failed: " + e.message; }
    };
    const item = el("div", { class: "review", "data-session": r.session_path },
      el("h3", {}, el("code", {}, r.path)),
      diff, ...whole,
      details,
      el("div", { class: "actions" }, el("button", { class: "primary approve", onclick: () => decide(undefined) }, "Approve"),
        el("button", { class: "as-app", onclick: (e) => { e.target.disabled = true; showAsApp(r, e.target.parentNode); } }, "Show as an MCP App"), status));
    item.dataset.key = keyOf(r);
    return item;
  }));
}

// ---- the review view as an MCP Apps host shows it ----
// The same ui:// resource a client that renders MCP Apps gets, in a sandboxed frame under the
// CSP built from its _meta.ui.csp, spoken to over the extension's postMessage JSON-RPC. Its
// verdict goes to this page's own decide API (the page is the client here).
function splitDiff(diff) {
  const files = [];
  const lines = diff.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].startsWith("--- ") && (lines[i + 1] || "").startsWith("+++ ")) files.push([]);
    if (files.length) files[files.length - 1].push(lines[i]);
  }
  return files.map((f) => f.join("\n") + "\n");
}
function cspOf(csp) {
  const list = (key, none) => ((csp && csp[key]) || []).join(" ") || none;
  return ["default-src 'none'", "script-src 'unsafe-inline'", "style-src 'unsafe-inline'", "img-src data:",
    "connect-src " + list("connectDomains", "'none'"), "frame-src " + list("frameDomains", "'none'"),
    "base-uri " + list("baseUriDomains", "'none'"), "form-action 'none'"].join("; ");
}
async function showAsApp(review, after) {
  const read = await api("/api/app-view");
  const content = read.contents[0];
  // The list holds a cut diff and no proposed text: the view shows the review whole.
  const detail = await api("/api/reviews/one?session_path=" + encodeURIComponent(review.session_path));
  const frame = el("iframe", { class: "app-view", sandbox: "allow-scripts", title: "review view (MCP App)" });
  after.after(frame);
  const diffs = splitDiff(detail.diff);
  const files = (review.files && review.files.length ? review.files : [review.path]).map((path, i) => ({ path, diff: diffs[i] || "" }));
  const send = (message) => frame.contentWindow.postMessage(Object.assign({ jsonrpc: "2.0" }, message), "*");
  window.addEventListener("message", async (event) => {
    if (event.source !== frame.contentWindow) return;
    const m = event.data || {};
    if (m.method === "ui/initialize") {
      send({ id: m.id, result: { protocolVersion: "2026-01-26", hostInfo: { name: "fs-mcp-rs playground", version: "1" },
        hostCapabilities: { serverTools: {} }, hostContext: { theme: "light", displayMode: "inline" } } });
    } else if (m.method === "ui/notifications/initialized") {
      send({ method: "ui/notifications/tool-input", params: { arguments: { path: review.path } } });
      send({ method: "ui/notifications/tool-result", params: { content: [{ type: "text", text: "PENDING" }],
        _meta: { "fs-mcp-rs/review": { review: review.session_path, path: review.path, files,
          proposed: files.length === 1 ? detail.proposed : null } } } });
    } else if (m.method === "ui/notifications/size-changed" && m.params && m.params.height) {
      frame.style.height = Math.min(m.params.height + 4, 900) + "px";
    } else if (m.method === "tools/call" && m.params && m.params.name === "submit_review_verdict") {
      const a = m.params.arguments || {};
      const body = { session_path: review.session_path, reject: a.action === "reject", comment: a.comment };
      if (a.action === "edit") body.content = a.content;
      try {
        await api("/api/reviews/decide", body);
        send({ id: m.id, result: { content: [{ type: "text", text: "Verdict received." }] } });
        setTimeout(pollReviews, 300);
      } catch (e) {
        send({ id: m.id, result: { isError: true, content: [{ type: "text", text: e.message }] } });
      }
    } else if (m.id !== undefined && m.method) {
      send({ id: m.id, error: { code: -32601, message: "Method not found" } });
    }
  });
  frame.srcdoc = content.text.replace(/<head>/i, '<head><meta http-equiv="Content-Security-Policy" content="' + cspOf(content._meta && content._meta.ui && content._meta.ui.csp) + '">');
}

// ---- schema lab ----
const SAMPLE_SCHEMA = {
  type: "object",
  properties: {
    mode: { type: "integer", enum: [0, 1, 2], description: "How hard to try." },
    target: { $ref: "#/$defs/Target" },
  },
  required: ["target"],
  additionalProperties: false,
  $defs: { Target: { type: "object", properties: { path: { type: "string" }, depth: { type: ["integer", "null"], minimum: 0 } }, required: ["path"] } },
};
$("lab-sample").addEventListener("click", () => ($("lab-input").value = pretty(SAMPLE_SCHEMA)));
$("lab-input").value = pretty(SAMPLE_SCHEMA);
$("lab-run").addEventListener("click", async () => {
  let input;
  try { input = JSON.parse($("lab-input").value); } catch (e) {
    $("lab-output").textContent = "The input is not JSON: " + e.message;
    return;
  }
  try {
    const data = await api("/api/transform", { input });
    $("lab-output").textContent = pretty(data.output);
    $("lab-reports").replaceChildren(...data.reports.map((r) => el("div", { class: "row lab-report" },
      el("div", { class: "col" }, el("h3", {}, el("code", {}, r.label), " — what the transform changed"), findings(r.changes, "Nothing.")),
      el("div", { class: "col" }, el("h3", {}, "Lint of the input"), findings(r.issues, "No issue."),
        el("h3", {}, "Lint of the output"), findings(r.issues_after, "No issue: Gemini accepts it.")))));
  } catch (e) {
    $("lab-output").textContent = "Failed: " + e.message;
  }
});

// ---- workspace ----
async function loadWorkspace() {
  const data = await api("/api/workspace");
  if (data.sample_file) state.sampleFile = data.sample_file;
  $("ws-dirs").replaceChildren(...data.dirs.map((d) => el("li", {}, el("code", {}, d))));
  $("ws-description").textContent = data.description;
  return data;
}

(async () => {
  if (!TOKEN) {
    $("tool-detail").replaceChildren(el("p", {}, "No token in this URL: open the address `fs-mcp-rs ui` printed."));
    return;
  }
  try {
    await loadWorkspace();
    await loadTools();
    pollReviews();
  } catch (e) {
    $("tool-detail").replaceChildren(el("p", { class: "sev-error" }, "Cannot reach the playground server: " + e.message));
  }
})();
