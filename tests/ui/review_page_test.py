"""Approves a proposal in the review page that a stdio fs-mcp-rs serves on its own (no editor,
no client form), in Debian's Chromium through Playwright, as a human given the link does.

usage: review_page_test.py URL FILE SCREENSHOT
"""

import os
import sys

from playwright.sync_api import expect, sync_playwright

CHROMIUM = os.environ.get("FS_MCP_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]


def main():
    url, file, shot = sys.argv[1:4]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page()
        page.goto(url)
        review = page.locator(".review").filter(has_text=file)
        expect(review).to_be_visible(timeout=30_000)
        expect(review.locator("pre")).to_contain_text("+version = 2")
        page.screenshot(path=shot, full_page=True)
        review.get_by_role("button", name="Approve").click()
        expect(page.get_by_text("No proposal is waiting.")).to_be_visible(timeout=30_000)
        browser.close()
    print("review page test passed")


main()
