"""Drives every tool of filekeeper-mcp through the error paths a caller can provoke and prints
each failure's words.

usage: surface_words.py ROOT > failures.jsonl

Standard library only: raw JSON-RPC over the server's stdio. The tools and their arguments
come from tools/list, so a new tool or argument is walked without touching this script. Each
tool gets a base call (required arguments filled from BASE), then one call per argument per
candidate value of CANDIDATES (one argument changed at a time), then the calls of EXTRA that
need two arguments changed together. Every tool that takes dry_run is called with it true, so
the tree stays the same from call to call and each refusal meets the same fixture.

ROOT must hold: f.txt (three lines), d/ (holding e.txt), g.txt, and l.txt (Latin-1). Each output line is one
failure: {"tool", "arguments", "code", "message", "recovery"}. The first line is
{"tools": [...]}, the tools/list answer.
"""

import json
import subprocess
import sys

BASE = {
    "path": "f.txt", "paths": ["f.txt"], "content": "x\n", "source": "f.txt",
    "destination": "new.txt", "pattern": "*.txt", "query": "one", "old": "one", "new": "ONE",
    "policy": "first", "start": 1, "end": 1, "replacement": "x", "position": "end",
    "name": "g.txt", "other": "g.txt",
    "operation_id": "op_0000000000000000",
    "patch": "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-one\n+ONE\n",
}

# Values that provoke a refusal somewhere: a file, a directory, a missing parent, a trailing
# slash, an escape, a credential-shaped name, ranges past the end, bounds of 0 and above the
# ceiling, and the like. Each is tried for an argument only where the schema's type fits.
CANDIDATES = {
    "string": ["f.txt", "g.txt", "l.txt", "d", "d/", "missing.txt", "missing/x.txt", "../out", ".env",
               "", "before", "after", "end", "nope", "sha256:" + "0" * 64, "[", "op_0000000000000000"],
    "integer": [0, 1, 3, 99, 10 ** 12],
    "boolean": [True, False],
    "array": [["f.txt", "d", "missing.txt"], []],
}

EXTRA = [
    ("file_read", {"path": "f.txt", "from_line": 3, "to_line": 2}),
    ("file_insert_lines", {"path": "f.txt", "position": "end", "line": 1, "content": "x"}),
    ("file_insert_lines", {"path": "f.txt", "position": "before", "content": "x"}),
    ("file_copy", {"source": "f.txt", "destination": "g.txt"}),
    ("file_move", {"source": "f.txt", "destination": "g.txt"}),
    ("file_move", {"source": "d", "destination": "d2"}),
    ("directory_create", {"path": "missing/x"}),
    ("directory_create", {"path": "d"}),
    ("directory_delete", {"path": "d"}),
    ("file_delete", {"path": "d"}),
    ("file_create", {"path": "f.txt", "content": "x"}),
    ("file_apply_patch", {"patch": "--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-zzz\n+ONE\n"}),
    ("file_apply_patch", {"patch": "not a patch\n"}),
    ("file_replace_text", {"path": "f.txt", "old": "o", "new": "0", "policy": "first"}),
]

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {},
    "clientInfo": {"name": "surface_words", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def session(root, messages):
    """Sends the handshake and MESSAGES to one server on ROOT; returns the replies by id."""
    lines = "".join(json.dumps(m) + "\n" for m in [INIT, INITIALIZED] + messages)
    out = subprocess.run(["filekeeper-mcp", "--root", root], input=lines.encode(),
                         capture_output=True, timeout=600, check=True).stdout
    replies = {}
    for line in out.decode().splitlines():
        reply = json.loads(line)
        replies[reply.get("id")] = reply
    return replies


def calls(tools):
    for tool in tools:
        props = tool["inputSchema"].get("properties", {})
        required = tool["inputSchema"].get("required", [])
        base = {name: BASE[name] for name in required}
        if "dry_run" in props:
            base["dry_run"] = True
        yield tool["name"], base
        for name, schema in props.items():
            if name == "dry_run":
                continue
            for value in CANDIDATES.get(schema.get("type"), []):
                yield tool["name"], {**base, name: value}
    for name, arguments in EXTRA:
        props = next(t for t in tools if t["name"] == name)["inputSchema"]["properties"]
        if "dry_run" in props:
            arguments = {**arguments, "dry_run": True}
        yield name, arguments


def main():
    root = sys.argv[1]
    tools = session(root, [{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}])[1]["result"]["tools"]
    print(json.dumps({"tools": tools}))
    planned = list(calls(tools))
    requests = [{"jsonrpc": "2.0", "id": 100 + i, "method": "tools/call",
                 "params": {"name": name, "arguments": arguments}}
                for i, (name, arguments) in enumerate(planned)]
    replies = session(root, requests)
    for i, (name, arguments) in enumerate(planned):
        document = replies[100 + i]["result"]["structuredContent"]
        if document.get("ok"):
            continue
        error = document["error"]
        print(json.dumps({"tool": name, "arguments": arguments, "code": error["code"],
                          "message": error["message"],
                          "recovery": error["details"].get("recovery")}))


main()
