"""Runs a list of tool calls through filekeeper-mcp and prints one response per line.

usage: call.py [--actor NAME] [--task-id ID] ROOT < requests.jsonl > responses.jsonl

Each request line is {"tool": NAME, "arguments": {...}} and may carry "root" to name the
workspace root for that call instead of ROOT. Consecutive calls on the same root share one
server session; a new root starts a new server (the served root is fixed at start-up). Each
output line is the response as described in fkmcp.py. Exits non-zero only when the session
itself fails (a tool error is a normal response).
"""

import argparse
import asyncio
import json
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import fkmcp  # noqa: E402


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--actor")
    parser.add_argument("--task-id")
    parser.add_argument("root")
    opts = parser.parse_args()

    requests = [json.loads(line) for line in sys.stdin if line.strip()]
    groups = []
    for req in requests:
        root = req.get("root", opts.root)
        if groups and groups[-1][0] == root:
            groups[-1][1].append(req)
        else:
            groups.append((root, [req]))

    for root, reqs in groups:
        async with fkmcp.session(root, actor=opts.actor, task_id=opts.task_id) as s:
            for req in reqs:
                response = await fkmcp.call(s, req["tool"], req.get("arguments"))
                print(json.dumps(response, ensure_ascii=False), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
