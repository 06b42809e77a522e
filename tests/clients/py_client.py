#!/usr/bin/env python3
"""Drives fs-mcp-rs with the official MCP Python SDK, as a real client does.

usage: py_client.py (--stdio CMD... | --http URL) [--roots URI...] [--call TOOL JSON]... [--notify-roots-changed URI...]

Prints one JSON object: {"server": serverInfo, "tools": [...], "calls": [{tool, is_error, text}]}.
Standard SDK API only; the Rust test in tests/real_clients.rs checks the output.
"""
import argparse
import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--http")
    parser.add_argument("--roots", nargs="*")
    parser.add_argument("--call", nargs=2, action="append", default=[], metavar=("TOOL", "JSON"))
    parser.add_argument("--then-roots", nargs="*",
                        help="after the calls, change the roots, notify, and repeat the calls")
    parser.add_argument("--stdio", nargs=argparse.REMAINDER)
    return parser.parse_args()


async def run_session(read, write, args):
    roots = {"current": args.roots}

    async def list_roots(_context):
        return types.ListRootsResult(roots=[types.Root(uri=u) for u in roots["current"]])

    callback = list_roots if args.roots is not None else None
    async with ClientSession(read, write, list_roots_callback=callback) as session:
        init = await session.initialize()
        listed = await session.list_tools()
        report = {
            "server": init.server_info.model_dump(by_alias=True, exclude_none=True),
            "tools": [t.model_dump(by_alias=True, exclude_none=True) for t in listed.tools],
            "calls": [],
        }

        async def do_calls():
            for tool, arguments in args.call:
                result = await session.call_tool(tool, json.loads(arguments))
                text = "".join(c.text for c in result.content if getattr(c, "type", "") == "text")
                report["calls"].append({"tool": tool, "is_error": bool(result.is_error), "text": text})

        await do_calls()
        if args.then_roots is not None:
            roots["current"] = args.then_roots
            await session.send_roots_list_changed()
            for _ in range(100):
                result = await session.call_tool("list_allowed_directories", {})
                text = "".join(c.text for c in result.content if getattr(c, "type", "") == "text")
                if text.splitlines() != report["calls"][0]["text"].splitlines():
                    break
                await asyncio.sleep(0.02)
            await do_calls()
        return report


async def main():
    args = parse_args()
    if args.http:
        async with streamable_http_client(args.http) as streams:
            report = await run_session(streams[0], streams[1], args)
    else:
        command, *rest = args.stdio
        params = StdioServerParameters(command=command, args=rest)
        async with stdio_client(params) as (read, write):
            report = await run_session(read, write, args)
    json.dump(report, sys.stdout)


if __name__ == "__main__":
    asyncio.run(main())
