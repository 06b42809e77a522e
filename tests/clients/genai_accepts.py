#!/usr/bin/env python3
"""Feeds MCP tool listings to google-genai the way its own MCP support does, and reports what it
refuses.

usage: genai_accepts.py < listings.json

Input: {"LABEL": [tool, ...], ...}, each tool as `tools/list` returned it.
Output: one JSON object {"version": google-genai's version, "results": [{"label", "tool",
"mcp_path", "json_schema_path"}]} where each path is null when accepted, else the error.

- mcp_path: `google.genai._mcp_utils.mcp_to_gemini_tool`, what `generate_content(tools=[session])`
  runs on every MCP tool (filter to the supported keys, `types.JSONSchema`, then
  `types.Schema.from_json_schema`), with the tool parsed by the MCP SDK's `types.Tool` first.
- json_schema_path: `types.FunctionDeclaration(parameters_json_schema=...)`, the SDK's path for
  schemas it passes through unconverted.
The Rust test in tests/google_genai.rs decides what must pass.
"""
import json
import sys

import mcp.types
from google import genai
from google.genai import _mcp_utils, types


def error_of(run):
    try:
        run()
        return None
    except Exception as e:  # Any refusal, whatever the SDK raises, is the finding.
        return f"{type(e).__name__}: {e}"[:400]


def mcp_path(tool):
    parsed = mcp.types.Tool.model_validate(tool)
    converted = _mcp_utils.mcp_to_gemini_tool(parsed)
    # The request body is built from this: it must serialize too.
    converted.model_dump(mode="json", exclude_none=True)


def json_schema_path(tool):
    declaration = types.FunctionDeclaration(
        name=tool["name"],
        description=tool.get("description"),
        parameters_json_schema=tool["inputSchema"],
    )
    types.Tool(function_declarations=[declaration]).model_dump(mode="json", exclude_none=True)


def main():
    listings = json.load(sys.stdin)
    results = []
    for label, tools in listings.items():
        for tool in tools:
            results.append({
                "label": label,
                "tool": tool.get("name"),
                "mcp_path": error_of(lambda: mcp_path(tool)),
                "json_schema_path": error_of(lambda: json_schema_path(tool)),
            })
    json.dump({"version": genai.__version__, "results": results}, sys.stdout)


if __name__ == "__main__":
    main()
