"""Shared helpers for the t/ scripts that drive filekeeper-mcp with the official MCP SDK.

Each helper starts `filekeeper-mcp --root ROOT` (plus --actor / --task-id when given) as a
stdio subprocess, with FILEKEEPER_HOME taken from the caller's environment, and talks to it
through `mcp.ClientSession`. Responses are turned into plain JSON-able dicts so the shell
scripts can assert on them with jq:

    {"tool": NAME, "arguments": {...}, "is_error": bool,
     "structured": {...}, "text": "..."}                      a tool result
    {"tool": NAME, "arguments": {...}, "protocol_error": {"code": N, "message": "..."}}
                                                               a JSON-RPC error
"""

import contextlib
import json
import os
import shutil
import sys

from mcp import ClientSession, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client

# No single request may take longer than this (seconds); a hang is a failure, not a wait.
REQUEST_TIMEOUT = 30.0


def server_binary():
    """filekeeper-mcp as found on PATH (the harness puts the build directory first)."""
    found = shutil.which("filekeeper-mcp")
    if not found:
        sys.exit("fkmcp: filekeeper-mcp is not on PATH; run 'make build'")
    return found


def server_params(root, actor=None, task_id=None, extra_args=()):
    args = ["--root", root]
    if actor is not None:
        args += ["--actor", actor]
    if task_id is not None:
        args += ["--task-id", task_id]
    args += list(extra_args)
    env = {}
    for key in ("FILEKEEPER_HOME", "HOME", "TMPDIR"):
        if key in os.environ:
            env[key] = os.environ[key]
    return StdioServerParameters(command=server_binary(), args=args, env=env)


@contextlib.asynccontextmanager
async def session(root, actor=None, task_id=None, errlog=None):
    """An initialised ClientSession with a fresh server serving ROOT."""
    params = server_params(root, actor=actor, task_id=task_id)
    errlog = errlog if errlog is not None else sys.stderr
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=REQUEST_TIMEOUT) as s:
            await s.initialize()
            yield s


def text_of(result):
    return "".join(
        block.text for block in (result.content or []) if getattr(block, "type", None) == "text"
    )


async def call(s, tool, arguments=None):
    """Calls TOOL and returns the response as a plain dict (see the module docstring)."""
    record = {"tool": tool, "arguments": arguments}
    try:
        result = await s.call_tool(tool, arguments)
    except MCPError as e:
        record["protocol_error"] = {"code": e.code, "message": e.message}
        return record
    record["is_error"] = bool(result.is_error)
    record["structured"] = result.structured_content
    record["text"] = text_of(result)
    return record


def dump(path, value):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, ensure_ascii=False)
        f.write("\n")

