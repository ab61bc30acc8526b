"""Drives filekeeper-mcp with the official MCP SDK, the way an agent host would.

usage:
    client_session.py tools OUT.json
        list_tools through a session on the current directory; writes the tools as a JSON
        array of {name, description, inputSchema, annotations} (protocol spelling).
    client_session.py agent ROOT PATCH OUTDIR
        a realistic agent session on ROOT with --actor agent-7 --task-id T-42: read, a guarded
        edit, a stale-hash conflict, a refused and then an accepted sensitive write, a two-file
        patch (the unified diff in PATCH), history, undo of the patch, an append and undo_last,
        then undo_last of the sensitive write without and with the override. Every
        response is written to OUTDIR/NN-step.json for the shell script to assert on.
    client_session.py concurrent ROOT PATH N OUT.json
        N guarded increments of the counter file PATH, started at once through one session
        (asyncio.gather); writes the N responses as a JSON array.
    client_session.py concurrent-create ROOT N OUT.json
        N creates of distinct files new-NN.txt, started at once through one session.

Each command prints what it did and exits non-zero when the session could not be carried
out (a tool error the scenario expects is a normal result).
"""

import asyncio
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import fkmcp  # noqa: E402

ACTOR = "agent-7"
TASK_ID = "T-42"


async def cmd_tools(out):
    async with fkmcp.session(os.getcwd()) as s:
        listing = await s.list_tools()
        # Follow pagination, should the server ever page its tools.
        tools = list(listing.tools)
        while listing.next_cursor:
            from mcp.types import PaginatedRequestParams

            listing = await s.list_tools(params=PaginatedRequestParams(cursor=listing.next_cursor))
            tools += listing.tools
    docs = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
    fkmcp.dump(out, docs)
    print(f"{len(docs)} tools: {' '.join(d['name'] for d in docs)}")


async def cmd_agent(root, patch_file, outdir):
    with open(patch_file, encoding="utf-8") as f:
        patch = f.read()
    os.makedirs(outdir, exist_ok=True)
    steps = 0

    async def step(name, tool, arguments):
        nonlocal steps
        steps += 1
        response = await fkmcp.call(s, tool, arguments)
        fkmcp.dump(os.path.join(outdir, f"{steps:02d}-{name}.json"), response)
        doc = response.get("structured") or {}
        print(f"{steps:02d} {name}: {tool} -> "
              + (f"protocol error {response['protocol_error']}" if "protocol_error" in response
                 else ("ok" if doc.get("ok") else f"error {doc.get('error', {}).get('code')}")))
        return response

    def need(response, what):
        """The scenario cannot continue without this response's success."""
        doc = response.get("structured") or {}
        if doc.get("ok") is not True:
            sys.exit(f"agent session stopped: {what} failed: {json.dumps(response)}")
        return doc

    async with fkmcp.session(root, actor=ACTOR, task_id=TASK_ID) as s:
        await s.list_tools()
        read = need(await step("read", "file_read", {"path": "notes.md"}), "the first read")
        first_hash = read["content_hash"]

        need(await step("edit", "file_replace_text", {
            "path": "notes.md", "old": "- beta", "new": "- gamma", "policy": "first",
            "expected_hash": first_hash,
        }), "the guarded edit")

        # The agent retries an edit against the hash it read before its own edit: stale.
        await step("stale", "file_replace_text", {
            "path": "notes.md", "old": "- alpha", "new": "- ALPHA", "policy": "first",
            "expected_hash": first_hash,
        })

        await step("secret-refused", "file_write", {
            "path": ".env", "content": "TOKEN=abc\n",
        })
        need(await step("secret-accepted", "file_write", {
            "path": ".env", "content": "TOKEN=abc\n", "i_accept_secret_write_risk": True,
        }), "the accepted sensitive write")

        applied = need(await step("patch", "file_apply_patch", {"patch": patch}), "the patch")

        await step("history", "history_list", {})
        await step("history-filtered", "history_list", {"actor": ACTOR, "task_id": TASK_ID})
        await step("history-other-task", "history_list", {"task_id": "T-other"})

        need(await step("undo-patch", "undo_operation",
                        {"operation_id": applied["operation_id"]}), "undo of the patch")
        await step("read-app", "file_read", {"path": "src/app.py"})
        await step("read-util", "file_read", {"path": "src/util.py"})

        # A further edit, which undo_last (the newest operation) takes back.
        need(await step("append", "file_insert_lines", {
            "path": "notes.md", "position": "end", "content": "- delta\n",
        }), "the append")
        await step("undo-last", "undo_last", {})

        # The newest undoable operation is now the accepted sensitive write: undoing it
        # writes .env again, so it needs the same deliberate override.
        await step("undo-last-secret-refused", "undo_last", {})
        await step("undo-last-secret-accepted", "undo_last", {"i_accept_secret_write_risk": True})
        await step("history-after", "history_list", {})
    print(f"agent session: {steps} steps recorded in {outdir}")


async def cmd_concurrent(root, path, n, out):
    async def increment(s):
        read = await fkmcp.call(s, "file_read", {"path": path})
        doc = read.get("structured") or {}
        if doc.get("ok") is not True:
            return read
        value = int(doc["content"].strip())
        return await fkmcp.call(s, "file_write", {
            "path": path, "content": f"{value + 1}\n", "expected_hash": doc["content_hash"],
        })

    async with fkmcp.session(root, actor=ACTOR) as s:
        responses = await asyncio.gather(*(increment(s) for _ in range(n)))
    fkmcp.dump(out, list(responses))
    wins = sum(1 for r in responses if (r.get("structured") or {}).get("ok") is True)
    print(f"{n} concurrent increments: {wins} succeeded")


async def cmd_concurrent_create(root, n, out):
    async with fkmcp.session(root, actor=ACTOR) as s:
        responses = await asyncio.gather(*(
            fkmcp.call(s, "file_create", {"path": f"new-{i:02d}.txt", "content": f"file {i}\n"})
            for i in range(n)
        ))
    fkmcp.dump(out, list(responses))
    wins = sum(1 for r in responses if (r.get("structured") or {}).get("ok") is True)
    print(f"{n} concurrent creates: {wins} succeeded")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "tools" and len(args) == 1:
        asyncio.run(cmd_tools(*args))
    elif cmd == "agent" and len(args) == 3:
        asyncio.run(cmd_agent(*args))
    elif cmd == "concurrent-create" and len(args) == 3:
        asyncio.run(cmd_concurrent_create(args[0], int(args[1]), args[2]))
    elif cmd == "concurrent" and len(args) == 4:
        asyncio.run(cmd_concurrent(args[0], args[1], int(args[2]), args[3]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
