"""Runs tool calls through one filekeeper-mcp session, looking at the tree after each one.

usage: probe.py ROOT CHECK... < requests.jsonl > responses.jsonl

Each request line is {"tool": NAME, "arguments": {...}}. All of them go through a single server
session on ROOT, in order. After each call the command CHECK... is run (no shell; the calling
script supplies it, typically a snapshot of everything outside the workspace) and its standard
output is added to that call's response as "after", so the caller can tell which call changed
what. Each output line is the response as described in fkmcp.py plus "after". Exits non-zero
when the session itself fails or CHECK fails (a tool error is a normal response).
"""

import asyncio
import json
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import fkmcp  # noqa: E402


async def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    root, check = sys.argv[1], sys.argv[2:]
    requests = [json.loads(line) for line in sys.stdin if line.strip()]
    async with fkmcp.session(root) as s:
        for req in requests:
            response = await fkmcp.call(s, req["tool"], req.get("arguments"))
            after = subprocess.run(check, check=True, capture_output=True, text=True)
            response["after"] = after.stdout
            print(json.dumps(response, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
