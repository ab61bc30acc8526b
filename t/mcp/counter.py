"""Races guarded read-modify-write increments of one counter file through ONE filekeeper-mcp
session, as several agents sharing a server would.

usage: counter.py ROOT PATH TASKS ROUNDS OUT.jsonl

Starts one server serving ROOT and runs TASKS asyncio tasks at once on its session. Each task
makes ROUNDS attempts; an attempt is a file_read of PATH (its content is a decimal number), then
a file_write of the number plus one with expected_hash set to the content_hash of that read. The
server serves requests concurrently, so the tasks' reads and writes interleave and most
attempts lose the race. Every attempt is written to OUT.jsonl as one line:

    {"task": T, "round": R, "read": RESPONSE, "write": RESPONSE or null}

with RESPONSE as described in fkmcp.py; "write" is null when the read did not succeed (the
shell script counts that as a failure that is not CONTENT_CONFLICT). Exits non-zero only when
the session itself fails; tool errors are normal results.
"""

import asyncio
import json
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import fkmcp  # noqa: E402


async def attempt(s, path):
    read = await fkmcp.call(s, "file_read", {"path": path})
    doc = read.get("structured") or {}
    if doc.get("ok") is not True:
        return read, None
    value = int(doc["content"])
    write = await fkmcp.call(s, "file_write", {
        "path": path, "content": str(value + 1), "expected_hash": doc["content_hash"],
    })
    return read, write


async def main(root, path, tasks, rounds, out):
    attempts = []

    async def worker(task):
        for r in range(rounds):
            read, write = await attempt(s, path)
            attempts.append({"task": task, "round": r, "read": read, "write": write})

    async with fkmcp.session(root, actor="counter") as s:
        await asyncio.gather(*(worker(t) for t in range(tasks)))
    with open(out, "w", encoding="utf-8") as f:
        for a in attempts:
            f.write(json.dumps(a, ensure_ascii=False) + "\n")
    wins = sum(1 for a in attempts
               if a["write"] is not None and (a["write"].get("structured") or {}).get("ok") is True)
    print(f"{tasks} tasks x {rounds} rounds: {len(attempts)} attempts, {wins} succeeded")


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    root, path, tasks, rounds, out = sys.argv[1:]
    asyncio.run(main(root, path, int(tasks), int(rounds), out))
