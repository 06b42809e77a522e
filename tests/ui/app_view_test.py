"""The review view as an MCP App (issue 34), in Debian's Chromium through Playwright: a test host
built on the official SDK's app-bridge (@modelcontextprotocol/ext-apps, loaded as published
through an import map) renders the server's ui:// resource in a sandboxed iframe under the CSP
built from its _meta.ui.csp, hands it the tool's input and result, and relays the view's
tools/call to the server. tests/ui.rs runs it. Exits non-zero on the first failed check; keeps
screenshots.

usage: app_view_test.py SERVER_BIN WORKSPACE SCREENSHOT_DIR NODE_MODULES
"""

import json
import mimetypes
import os
import subprocess
import sys
import threading

from playwright.sync_api import expect, sync_playwright

CHROMIUM = os.environ.get("FS_MCP_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
TIMEOUT_MS = 30_000
HOST = "http://mcp-host.test"
HERE = os.path.dirname(os.path.abspath(__file__))
VIEW_URI = "ui://fs-mcp-rs/review.html"
MIME = "text/html;profile=mcp-app"


def check(condition, message):
    if not condition:
        raise AssertionError(message)


class Client:
    """A stdio MCP client that declares the MCP Apps extension (2025-11-25)."""

    def __init__(self, binary, root):
        self.proc = subprocess.Popen([binary, root], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)
        self.stderr = []
        threading.Thread(target=lambda: self.stderr.extend(self.proc.stderr), daemon=True).start()
        self.next_id = 1
        self.arrived = {}
        init = self.request("initialize", {
            "protocolVersion": "2025-11-25",
            "capabilities": {"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": [MIME]}}},
            "clientInfo": {"name": "ext-apps-test-host", "version": "1"},
        })
        self.capabilities = init["result"]["capabilities"]
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message):
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def start(self, method, params):
        request_id = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        return request_id

    def wait(self, request_id):
        while request_id not in self.arrived:
            line = self.proc.stdout.readline()
            check(line, "the server closed stdout: " + "".join(self.stderr))
            message = json.loads(line)
            if "id" in message and "method" not in message:
                self.arrived[message["id"]] = message
        return self.arrived.pop(request_id)

    def request(self, method, params):
        return self.wait(self.start(method, params))

    def call(self, name, arguments):
        response = self.request("tools/call", {"name": name, "arguments": arguments})
        check("result" in response, f"tools/call {name} failed: {response}")
        return response["result"]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def answer(result):
    check("content" in result, f"not a tool result: {result}")
    return json.loads(result["content"][0]["text"])


def collected(response):
    check("result" in response, f"the collecting call failed: {response}")
    return answer(response["result"])


def main():
    binary, workspace, shots, node_modules = sys.argv[1:5]
    os.makedirs(shots, exist_ok=True)
    with open(os.path.join(workspace, "src", "lib.rs"), "w") as f:
        f.write("// The answer.\npub fn answer() -> u32 {\n    let base = \"forty\";\n"
                + "".join(f"    // line {i}\n" for i in range(60)) + "    42\n}\n")
    for name in ("a.txt", "b.txt", "c.txt"):
        with open(os.path.join(workspace, name), "w") as f:
            f.write("old\n")
    client = Client(binary, workspace)
    check("resources" in client.capabilities, f"no resources capability: {client.capabilities}")

    tools = client.request("tools/list", {})["result"]["tools"]
    propose = next(t for t in tools if t["name"] == "propose_and_review")
    verdict_tool = next(t for t in tools if t["name"] == "submit_review_verdict")
    read = client.request("resources/read", {"uri": VIEW_URI})["result"]["contents"][0]
    check(read["mimeType"] == MIME, read["mimeType"])

    def serve(route):
        path = route.request.url[len(HOST):].split("?")[0]
        if path == "/host.html":
            return route.fulfill(path=os.path.join(HERE, "app_host.html"), content_type="text/html")
        if path.startswith("/npm/"):
            file = os.path.normpath(os.path.join(node_modules, path[len("/npm/"):]))
            if file.startswith(os.path.normpath(node_modules) + os.sep) and os.path.isfile(file):
                return route.fulfill(path=file, content_type="text/javascript")
        return route.fulfill(status=404, body="not found")

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1200, "height": 1000})
        page.set_default_timeout(TIMEOUT_MS)
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        outside = []
        page.route(f"{HOST}/**", serve)
        page.route(lambda url: not url.startswith(HOST), lambda route: (outside.append(route.request.url), route.abort()))
        calls = []

        def relay(params_json):
            params = json.loads(params_json)
            calls.append(params)
            return json.dumps(client.call(params["name"], params.get("arguments") or {}))

        page.expose_function("mcpCallTool", relay)
        page.goto(f"{HOST}/host.html")
        page.wait_for_function("window.hostReady === true")

        # The host reads the tool's view with the SDK's own helpers.
        check(page.evaluate("(t) => host.uriOf(t)", propose) == VIEW_URI, f"{propose.get('_meta')}")
        check(page.evaluate("(t) => host.appOnly(t)", verdict_tool), f"{verdict_tool.get('_meta')}")
        check(not page.evaluate("(t) => host.appOnly(t)", propose), "propose_and_review is app-only")

        view = page.frame_locator("#view")

        def review(arguments, name):
            result = client.call("propose_and_review", arguments)
            reply = answer(result)
            check(reply["user_action"] == "PENDING", f"{reply}")
            policy = page.evaluate("([html, csp]) => host.render(html, csp)",
                                   [read["text"], read.get("_meta", {}).get("ui", {}).get("csp")])
            check("connect-src 'none'" in policy and "default-src 'none'" in policy, policy)
            page.evaluate("(a) => host.input(a)", arguments)
            page.evaluate("(r) => host.result(r)", result)
            expect(view.locator("#approve")).to_be_enabled()
            page.screenshot(path=os.path.join(shots, name), full_page=True)
            return reply

        def collect(reply, path):
            return client.start("tools/call", {"name": "propose_and_review",
                                               "arguments": {"path": path, "session_path": reply["session_path"]}})

        # 1. One file: the diff is legible in both layouts; Approve commits it.
        reply = review({"path": "src/lib.rs", "match_text": "    42\n", "new_string": "    41 + 1\n"},
                       "app-view-unified.png")
        expect(view.locator("#title")).to_contain_text("src/lib.rs")
        expect(view.locator("tr.add td.c")).to_contain_text("41 + 1")
        expect(view.locator("tr.del td.c")).to_contain_text("42")
        expect(view.locator("td.c .com").first).to_contain_text("// line")
        # The CSP is in force inside the frame: the view cannot reach anything.
        frame = next(f for f in page.frames if f != page.main_frame)
        blocked = frame.evaluate("""() => fetch('http://127.0.0.1:9/').then(() => 'fetched', (e) => 'blocked')""")
        check(blocked == "blocked", f"a fetch from the view was not blocked: {blocked}")
        view.locator("#split").click()
        expect(view.locator("td.side.add")).to_contain_text("41 + 1")
        page.screenshot(path=os.path.join(shots, "app-view-side-by-side.png"), full_page=True)
        pending = collect(reply, "src/lib.rs")
        view.locator("#approve").click()
        expect(view.locator("#status")).to_contain_text("Approved")
        done = collected(client.wait(pending))
        check(done["user_action"] == "COMMITTED", f"{done}")
        with open(os.path.join(workspace, "src", "lib.rs")) as f:
            check("41 + 1" in f.read(), "src/lib.rs was not written")
        check(calls and calls[-1]["name"] == "submit_review_verdict", f"{calls}")
        spent = calls[-1]["arguments"]["review"]

        # 2. Reject with a comment: REJECTED with it, nothing written.
        reply = review({"path": "a.txt", "match_text": "old", "new_string": "new"}, "app-view-reject.png")
        pending = collect(reply, "a.txt")
        view.locator("#comment").fill("not this way")
        view.locator("#reject").click()
        expect(view.locator("#status")).to_contain_text("Rejected")
        done = collected(client.wait(pending))
        check(done["user_action"] == "REJECTED" and done.get("user_comment") == "not this way", f"{done}")
        with open(os.path.join(workspace, "a.txt")) as f:
            check(f.read() == "old\n", "a.txt was written")

        # 3. A three-file change, reviewed as one.
        reply = review({"path": "a.txt", "edits": [
            {"match_text": "old", "new_string": "new a"},
            {"path": "b.txt", "match_text": "old", "new_string": "new b"},
            {"path": "c.txt", "match_text": "old", "new_string": "new c"}]}, "app-view-three-files.png")
        buttons = view.locator("#files button")
        expect(buttons).to_have_count(3)
        buttons.nth(2).click()
        expect(view.locator("#stat")).to_contain_text("c.txt")
        expect(view.locator("tr.add td.c")).to_contain_text("new c")
        expect(view.locator("#edit-open")).to_be_hidden()
        page.screenshot(path=os.path.join(shots, "app-view-third-file.png"), full_page=True)
        pending = collect(reply, "a.txt")
        view.locator("#approve").click()
        expect(view.locator("#status")).to_contain_text("Approved")
        done = collected(client.wait(pending))
        check(done["user_action"] == "COMMITTED", f"{done}")
        for name in ("a", "b", "c"):
            with open(os.path.join(workspace, f"{name}.txt")) as f:
                check(f.read() == f"new {name}\n", f"{name}.txt not written")

        # A long diff scrolls inside the view rather than being cut: its last line is there.
        with open(os.path.join(workspace, "long.py"), "w") as f:
            f.write("".join(f"value_{i} = {i}\n" for i in range(300)))
        reply = review({"path": "long.py", "match_text": "OVERWRITE_FILE",
                        "new_string": "".join(f"value_{i} = {i * 2}  # doubled\n" for i in range(300))},
                       "app-view-long.png")
        scrolls = view.locator("#diff").evaluate("(d) => d.scrollHeight > d.clientHeight + 100")
        check(scrolls, "a 600-line diff does not scroll inside the view")
        last = view.locator("tr.add td.c", has_text="value_299 = 598")
        last.scroll_into_view_if_needed()
        expect(last).to_be_visible()
        pending = collect(reply, "long.py")
        view.locator("#reject").click()
        expect(view.locator("#status")).to_contain_text("Rejected")
        check(collected(client.wait(pending))["user_action"] == "REJECTED", "long.py not rejected")

        # 4. Forged verdicts: a spent token, a path, a made-up token.
        reply = review({"path": "a.txt", "match_text": "new a", "new_string": "newer"}, "app-view-forged.png")
        for forged in (spent, reply["session_path"], "0" * 32):
            refused = client.call("submit_review_verdict", {"review": forged, "action": "approve"})
            check(refused.get("isError") is True, f"{forged}: {refused}")
        with open(os.path.join(workspace, "a.txt")) as f:
            check(f.read() == "new a\n", "a forged verdict wrote a.txt")

        check(not outside, f"the page reached outside the host: {outside}")
        # The CSP's refusal of the fetch above is logged as an error: the one this test provoked.
        errors = [e for e in errors if "127.0.0.1:9/" not in e]
        check(not errors, f"page errors: {errors}")
        browser.close()
    client.close()
    print("app view test passed")


if __name__ == "__main__":
    main()
