"""Drives the `fs-mcp-rs ui` page in Debian's Chromium through Playwright (tests/ui.rs starts the
server and passes its URL). Exits non-zero with a message on the first failed check; saves a
screenshot of each view.

usage: browser_test.py URL WORKSPACE SCREENSHOT_DIR TOOL,TOOL,...
"""

import json
import os
import struct
import sys
import zlib

from playwright.sync_api import expect, sync_playwright

CHROMIUM = os.environ.get("FS_MCP_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
TIMEOUT_MS = 30_000


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def tiny_png(width=8, height=8):
    """A red square, built by hand so the test needs no imaging library."""
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))
    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows))
            + chunk(b"IEND", b""))


def main():
    url, workspace, shots, tools = sys.argv[1:5]
    expected_tools = sorted(t for t in tools.split(",") if t)
    os.makedirs(shots, exist_ok=True)
    shot = lambda page, name: page.screenshot(path=os.path.join(shots, name), full_page=True)

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.set_default_timeout(TIMEOUT_MS)
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url)

        # Every tool of the tier is listed.
        items = page.locator(".tool-item")
        expect(items).to_have_count(len(expected_tools))
        shown = sorted(items.evaluate_all("els => els.map(e => e.dataset.name)"))
        check(shown == expected_tools, f"tool list {shown} != {expected_tools}")

        # read_files: the raw schemars schema (with $ref/$defs) beside the served one (inlined).
        page.click('.tool-item[data-name="read_files"]')
        expect(page.locator("#tool-detail h2")).to_contain_text("read_files")
        raw = json.loads(page.locator("#raw-schema").text_content())
        served = json.loads(page.locator("#served-schema").text_content())
        raw_text, served_text = json.dumps(raw), json.dumps(served)
        check('"$ref"' in raw_text and "$defs" in raw_text, "raw read_files schema has no $ref/$defs")
        check('"$ref"' not in served_text, "served read_files schema still has a $ref")
        check(page.locator("#changes li").count() > 0, "no transform change listed for read_files")
        shot(page, "tools.png")

        # Arguments + Run return the file's text, and the protocol view is the tools/call result.
        page.fill("#args", json.dumps({"files": [{"path": "hello.txt"}]}))
        page.click("#run")
        expect(page.locator("#human")).to_contain_text("hello from the browser test")
        protocol = json.loads(page.locator("#protocol").text_content())
        check("content" in protocol, f"protocol view is not a tools/call result: {protocol}")
        check(not protocol.get("isError"), f"read_files failed: {protocol}")
        shot(page, "tools-run.png")

        # Media results are shown as the image itself.
        with open(os.path.join(workspace, "red.png"), "wb") as f:
            f.write(tiny_png())
        page.click('.tool-item[data-name="read_media_file"]')
        page.fill("#args", json.dumps({"path": "red.png"}))
        page.click("#run")
        image = page.locator("#human img")
        expect(image).to_be_visible()
        width = image.evaluate("img => img.naturalWidth")
        check(width == 8, f"the image did not decode (naturalWidth {width})")
        shot(page, "tools-media.png")

        # Schema lab: an integer enum and a $ref.
        page.click("#tab-lab")
        schema = {
            "type": "object",
            "properties": {
                "level": {"type": "integer", "enum": [1, 2, 3]},
                "item": {"$ref": "#/$defs/Item"},
            },
            "$defs": {"Item": {"type": "object", "properties": {"name": {"type": "string"}}}},
        }
        page.fill("#lab-input", json.dumps(schema, indent=2))
        page.click("#lab-run")
        expect(page.locator("#lab-output")).to_contain_text('"level"')
        output = json.loads(page.locator("#lab-output").text_content())
        check("$ref" not in json.dumps(output), f"lab output still has a $ref: {output}")
        check("$defs" not in output, f"lab output still has $defs: {output}")
        level = output["properties"]["level"]
        check(level.get("type") == "string" and level.get("enum") == ["1", "2", "3"],
              f"integer enum not made a string enum: {level}")
        check(output["properties"]["item"]["properties"]["name"]["type"] == "string",
              f"$ref not inlined: {output}")
        check(page.locator(".lab-report li").count() >= 2, "lab lists no changes")
        shot(page, "lab.png")

        # Workspace: the allowed directory and a description to paste.
        page.click("#tab-workspace")
        expect(page.locator("#ws-dirs")).to_contain_text(os.path.realpath(workspace))
        expect(page.locator("#ws-description")).to_contain_text("hello.txt")
        shot(page, "workspace.png")

        # propose_and_review from the page: the diff shows up, Approve writes the file.
        page.click("#tab-tools")
        page.click('.tool-item[data-name="propose_and_review"]')
        page.fill("#args", json.dumps({
            "path": "hello.txt",
            "match_text": "hello from the browser test",
            "new_string": "approved in the browser",
        }))
        page.click("#run")
        expect(page.locator("#banner")).to_be_visible()
        page.click("#tab-reviews")
        review = page.locator(".review")
        expect(review).to_have_count(1)
        expect(review.locator(".diff")).to_contain_text("+approved in the browser")
        shot(page, "reviews.png")
        review.locator("button.approve").click()
        page.click("#tab-tools")
        expect(page.locator("#run-status")).to_have_text("Done.")
        result = json.loads(page.locator("#protocol").text_content())
        check(not result.get("isError"), f"propose_and_review failed: {result}")
        check("COMMITTED" in json.dumps(result), f"approval did not commit: {result}")
        on_disk = open(os.path.join(workspace, "hello.txt")).read()
        check("approved in the browser" in on_disk, f"file not written after approval: {on_disk!r}")
        shot(page, "tools-review-done.png")

        # Editing the proposal in the page sends it back to the agent as feedback, unwritten.
        page.fill("#args", json.dumps({
            "path": "hello.txt",
            "match_text": "approved in the browser",
            "new_string": "second proposal",
        }))
        page.click("#run")
        page.click("#tab-reviews")
        review = page.locator(".review")
        expect(review).to_have_count(1)
        review.locator("summary").click()
        review.locator("textarea.proposal").fill("the human's own version\n")
        review.locator("button.send-edit").click()
        page.click("#tab-tools")
        expect(page.locator("#run-status")).to_have_text("Done.")
        result = json.loads(page.locator("#protocol").text_content())
        text = json.dumps(result)
        check("REVIEW" in text and "the human's own version" in text,
              f"edited proposal not returned as feedback: {result}")
        on_disk = open(os.path.join(workspace, "hello.txt")).read()
        check("approved in the browser" in on_disk, f"feedback must not write the file: {on_disk!r}")

        # The same proposal shown as an MCP Apps host shows it: the ui:// view in a sandboxed
        # frame; Reject with a comment there answers REJECTED with it.
        page.fill("#args", json.dumps({
            "path": "hello.txt",
            "match_text": "approved in the browser",
            "new_string": "third proposal",
        }))
        page.click("#run")
        page.click("#tab-reviews")
        # (The REVIEW above keeps its session open for the agent: it is listed too.)
        review = page.locator(".review", has_text="+third proposal")
        # The page polls every second; under a loaded machine the proposal may take a while.
        expect(review).to_have_count(1, timeout=20000)
        review.locator("button.as-app").click()
        view = page.frame_locator("iframe.app-view")
        expect(view.locator("tr.add td.c")).to_contain_text("third proposal")
        shot(page, "reviews-as-app.png")
        view.locator("#comment").fill("not in the playground")
        view.locator("#reject").click()
        expect(view.locator("#status")).to_contain_text("Rejected")
        page.click("#tab-tools")
        expect(page.locator("#run-status")).to_have_text("Done.")
        result = json.loads(page.locator("#protocol").text_content())
        text = json.dumps(result)
        check("REJECTED" in text and "not in the playground" in text, f"the view's reject: {result}")
        on_disk = open(os.path.join(workspace, "hello.txt")).read()
        check("approved in the browser" in on_disk, f"a rejection wrote the file: {on_disk!r}")

        check(not errors, f"the page threw: {errors}")
        browser.close()
    print("browser test passed")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # one clear line for the Rust test's failure message
        print(f"browser test FAILED: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)
