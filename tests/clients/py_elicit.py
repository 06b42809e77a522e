#!/usr/bin/env python3
"""Proposes an edit to fs-mcp-rs with the official MCP Python SDK as a client whose human answers
the server's review form (elicitation) in a given way.

usage: py_elicit.py MODE ARGUMENTS_JSON (--stdio CMD... | --http URL)
MODE: accept (approve), reject (uncheck approve, comment "too risky"), decline, cancel, never
(the callback never answers), headless-cancel (cancel at once, as `claude -p` does). The human
modes answer after HUMAN_DELAY: the server takes a form closed faster than a person can react
for a headless client's.

Prints one JSON object: {"elicitations": [{message, schema}], "call": {is_error, text}}.
"""
import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

HUMAN_DELAY = 0.5


async def run_session(read, write, mode, arguments):
    seen = []

    async def answer(_context, params):
        seen.append({
            "message": params.message,
            "schema": params.requested_schema if isinstance(params.requested_schema, dict)
            else params.requested_schema.model_dump(by_alias=True, exclude_none=True),
        })
        if mode == "headless-cancel":
            return types.ElicitResult(action="cancel")
        if mode != "never":
            await asyncio.sleep(HUMAN_DELAY)
        if mode == "accept":
            return types.ElicitResult(action="accept", content={"approve": True})
        if mode == "reject":
            return types.ElicitResult(action="accept", content={"approve": False, "comment": "too risky"})
        if mode == "decline":
            return types.ElicitResult(action="decline")
        if mode == "cancel":
            return types.ElicitResult(action="cancel")
        await asyncio.sleep(3600)

    async with ClientSession(read, write, elicitation_callback=answer) as session:
        await session.initialize()
        result = await session.call_tool("propose_and_review", arguments)
        text = "".join(c.text for c in result.content if getattr(c, "type", "") == "text")
        return {"elicitations": seen, "call": {"is_error": bool(result.is_error), "text": text}}


async def main():
    mode, arguments, transport, *rest = sys.argv[1:]
    arguments = json.loads(arguments)
    if transport == "--http":
        async with streamable_http_client(rest[0]) as (read, write, *_):
            report = await run_session(read, write, mode, arguments)
    else:
        params = StdioServerParameters(command=rest[0], args=rest[1:])
        async with stdio_client(params) as (read, write):
            report = await run_session(read, write, mode, arguments)
    print(json.dumps(report))


asyncio.run(main())
