"""MCP throughput: tool calls per second over stdio, filekeeper-mcp against the reference MCP
filesystem server, both driven by the official Python MCP SDK client. Used by
p0600-mcp-throughput.sh.

usage:
    mcp-throughput.py --ours BINARY --ours-root DIR [--ref-js INDEX.js --ref-root DIR]
                      [--node NODE] [--replay MCP-REPLAY [--busy-us 50]] [--files 200] [--rounds 5]
                      [--errlog LOG] [--json OUT.json]

Both roots must be empty directories: the driver writes the same FILES small text files into
each. One session per server, started once (start-up is not timed). A round is, per server,
FILES reads, then FILES writes (new content each round), then FILES single replacements (one
unique occurrence in each file), each a sequential call awaited before the next, as an agent
works. Within a round the servers take turns kind by kind, the first alternating between
rounds, so a load change on the machine hits both alike; the first round is an untimed
warm-up. Each call's result is checked (a failed call would make a fast benchmark of
nothing), and the files' final bytes must be the same in both trees.

With --replay (mcp-replay.c, built), a third server takes its turn at the reads: a stand-in
that answers every call at once with our server's own response to a read, recorded first. The
client spends on it what it spends on ours, and the server nothing, so its rate is the
ceiling this client allows a server sending our bytes. Another, the same stand-in spinning
--busy-us microseconds (default 50) before each answer, shows how much the client's time a
call grows per microsecond a server spends; from the two follow the server time a read may
take for the 2.5x target, and the server time our server's rate amounts to.

After the rounds, the client's check of a result against its tool's outputSchema, which the
SDK makes on every call, is timed apart for each server's last result of each kind: a cost of
the call that the server's schema decides and the server does not spend.

Prints calls/s (the median round of each kind) for both servers and the ratio against the
target; exits 1 when a target is missed, 2 when the workload itself fails.
Targets: reads >= 2.5x the reference server's rate; writes and edits >= 1.0x.
"""

import argparse
import asyncio
import contextlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

TARGETS = {"read": 2.5, "write": 1.0, "edit": 1.0}

WORDS = (
    "the of and to in is that for it as with was on be by this are from at or an which have "
    "not had but one were all their more when there can been has will would other into some "
    "time could than then them these only new after also first made most over such where "
    "through back years much before should well because any each just those people how too "
    "little under might very still while own same last never read write file path line data "
    "value error result state config buffer index"
).split()


def body(i, round_no):
    """About 1.5 KiB of text for file I in ROUND_NO, ending with a unique status line."""
    lines = []
    seed = i * 7919 + round_no * 104729
    for n in range(24):
        seed = (seed * 1103515245 + 12345) % 2**31
        k = 6 + seed % 8
        words = [WORDS[(seed >> s) % len(WORDS)] for s in range(k)]
        lines.append(f"{n + 1:3d}: " + " ".join(words))
    lines.append(f"status: draft {i} round {round_no}")
    return "\n".join(lines) + "\n"


def name(i):
    return f"notes/f{i:03d}.txt"


class Server:
    """One server's session and how its tools are called."""

    def __init__(self, label, params, root, path_of, tools, checked=True):
        self.label, self.params, self.root = label, params, root
        self.checked = checked  # False for the replay stand-in, whose answer is always the same
        self.path_of = path_of  # file name -> the path argument this server takes
        self.tools = tools  # kind -> (tool name, arguments builder)
        self.session = None
        self.rates = {kind: [] for kind in TARGETS}
        self.schemas = {}  # tool name -> the outputSchema tools/list advertised
        self.last = {}  # kind -> the last structuredContent of that kind

    def check(self, kind, i, result, expect=None):
        if not self.checked:
            return
        text = "".join(b.text for b in (result.content or []) if getattr(b, "type", "") == "text")
        ok = not result.is_error
        if ok and result.structured_content is not None and "ok" in result.structured_content:
            ok = result.structured_content["ok"] is True
        if ok and expect is not None:
            ok = expect in text
        if not ok:
            raise SystemExit(f"{self.label}: {kind} of {name(i)} failed: {text[:500]}")


async def run_phase(server, kind, round_no, files):
    tool, build = server.tools[kind]
    t0 = time.perf_counter()
    for i in range(files):
        result = await server.session.call_tool(tool, build(server.path_of(name(i)), i, round_no))
        server.last[kind] = result.structured_content
        # Reads return the file, which holds the previous round's edit.
        server.check(kind, i, result, f"final {i} round {round_no - 1}" if kind == "read" else None)
    return files / (time.perf_counter() - t0)


def record_responses(opts, env, directory):
    """Our server's answers to initialize, tools/list and a read of the first file, each with
    its id replaced by @ID@, as the files mcp-replay takes."""
    server = subprocess.Popen([opts.ours, "--root", opts.ours_root], env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    requests = [
        ("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "mcp-throughput", "version": "1"}}),
        ("tools/list", {}),
        ("tools/call", {"name": "file_read", "arguments": {"path": name(0)}}),
    ]
    paths = []
    for n, (method, params) in enumerate(requests, 1):
        message = {"jsonrpc": "2.0", "id": n, "method": method, "params": params}
        server.stdin.write((json.dumps(message) + "\n").encode())
        server.stdin.flush()
        line = server.stdout.readline().decode()
        open_id, count = re.subn(r'^\{"jsonrpc":"2.0","id":%d,' % n, '{"jsonrpc":"2.0","id":@ID@,', line)
        if count != 1 or '"error"' in line[:60]:
            raise SystemExit(f"recording our answer to {method} failed: {line[:300]}")
        paths.append(os.path.join(directory, f"{n}.json"))
        with open(paths[-1], "w") as f:
            f.write(open_id)
        if method == "initialize":
            server.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    server.stdin.close()
    server.wait()
    return paths


async def run(opts):
    env = {k: os.environ[k] for k in ("FILEKEEPER_HOME", "HOME", "PATH", "TMPDIR") if k in os.environ}
    servers = []

    def ours_tools():
        return {
            "read": ("file_read", lambda p, i, r: {"path": p}),
            "write": ("file_write", lambda p, i, r: {"path": p, "content": body(i, r)}),
            "edit": ("file_replace_text", lambda p, i, r: {
                "path": p, "old": f"status: draft {i} round {r}",
                "new": f"status: final {i} round {r}", "policy": "first"}),
        }

    servers.append(Server(
        "filekeeper-mcp",
        StdioServerParameters(command=opts.ours, args=["--root", opts.ours_root], env=env),
        opts.ours_root, lambda n: n, ours_tools()))
    if opts.ref_js:
        root = os.path.realpath(opts.ref_root)
        servers.append(Server(
            "reference",
            StdioServerParameters(command=opts.node, args=[opts.ref_js, root], env=env),
            root, lambda n, root=root: os.path.join(root, n), None))

    # Identical trees; "round 0" is the state the warm-up round reads.
    for s in servers:
        os.makedirs(os.path.join(s.root, "notes"), exist_ok=True)
        for i in range(opts.files):
            with open(os.path.join(s.root, name(i)), "w", encoding="utf-8") as f:
                f.write(body(i, 0).replace("status: draft", "status: final"))

    recorded = tempfile.TemporaryDirectory() if opts.replay else None
    if opts.replay:
        responses = record_responses(opts, env, recorded.name)
        for label, busy in (("replay", []), ("replay, busy", ["--busy-us", str(opts.busy_us)])):
            servers.append(Server(
                label, StdioServerParameters(command=opts.replay, args=busy + responses),
                None, lambda n: n, {"read": ("file_read", lambda p, i, r: {"path": p})},
                checked=False))

    errlog = open(opts.errlog or os.devnull, "a")
    async with contextlib.AsyncExitStack() as stack:
        for s in servers:
            read, write = await stack.enter_async_context(stdio_client(s.params, errlog=errlog))
            s.session = await stack.enter_async_context(
                ClientSession(read, write, read_timeout_seconds=60))
            info = await s.session.initialize()
            listing = await s.session.list_tools()  # the SDK caches output schemas from it
            names = {t.name for t in listing.tools}
            s.schemas = {t.name: t.output_schema for t in listing.tools}
            if s.tools is None:
                # The reference server: read_text_file in current versions, read_file before.
                read_tool = "read_text_file" if "read_text_file" in names else "read_file"
                s.tools = {
                    "read": (read_tool, lambda p, i, r: {"path": p}),
                    "write": ("write_file", lambda p, i, r: {"path": p, "content": body(i, r)}),
                    "edit": ("edit_file", lambda p, i, r: {"path": p, "edits": [{
                        "oldText": f"status: draft {i} round {r}",
                        "newText": f"status: final {i} round {r}"}]}),
                }
            missing = {tool for tool, _ in s.tools.values()} - names
            if missing:
                raise SystemExit(f"{s.label} lacks the tools {sorted(missing)}")
            s.version = f"{info.server_info.name} {info.server_info.version}"

        for round_no in range(1, opts.rounds + 2):
            # The servers take turns kind by kind (each still reads, writes, then edits), and
            # the one that goes first alternates, so both measure a kind at nearly the same
            # moment: the load of a shared machine drifts within seconds.
            order = servers if round_no % 2 else servers[::-1]
            for kind in ("read", "write", "edit"):
                for s in order:
                    if kind not in s.tools:
                        continue
                    rate = await run_phase(s, kind, round_no, opts.files)
                    if round_no > 1:  # round 1 warms caches and creates state
                        s.rates[kind].append(rate)

    # Both trees end with the same bytes: the last round's content, edited.
    last = opts.rounds + 1
    for s in servers:
        if s.root is None:
            continue
        for i in range(opts.files):
            with open(os.path.join(s.root, name(i)), encoding="utf-8") as f:
                if f.read() != body(i, last).replace("status: draft", "status: final"):
                    raise SystemExit(f"{s.label}: {name(i)} does not hold the expected content")
    measure_validation([s for s in servers if s.checked])
    return servers


def measure_validation(servers, calls=300, turns=7):
    """The client's check of each result against the tool's outputSchema, which the SDK makes
    on every call (with jsonschema, compiled once per tool, as here): microseconds a call for
    each server's last result of each kind, the servers taking turns; medians of TURNS."""
    from jsonschema.validators import validator_for
    checks = []
    for s in servers:
        s.validation_us = {}
        for kind, (tool, _) in s.tools.items():
            schema, document = s.schemas.get(tool), s.last.get(kind)
            if schema is not None and document is not None:
                checks.append((s, kind, validator_for(schema)(schema), document))
    times = {}
    for _ in range(turns):
        for s, kind, validator, document in checks:
            t0 = time.perf_counter()
            for _ in range(calls):
                if next(validator.iter_errors(document), None) is not None:
                    raise SystemExit(f"{s.label}: a {kind} result does not match its outputSchema")
            times.setdefault((s.label, kind), []).append((time.perf_counter() - t0) / calls * 1e6)
    for s, kind, _, _ in checks:
        s.validation_us[kind] = statistics.median(times[(s.label, kind)])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ours", required=True)
    parser.add_argument("--ours-root", required=True)
    parser.add_argument("--ref-js")
    parser.add_argument("--ref-root")
    parser.add_argument("--node", default="node")
    parser.add_argument("--replay", help="mcp-replay, built: measure the client's ceiling for reads")
    parser.add_argument("--busy-us", type=int, default=50,
                        help="the server time the second replay stand-in spends a read")
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--errlog", help="where the servers' stderr goes (default: nowhere)")
    parser.add_argument("--json")
    opts = parser.parse_args()
    if opts.files < 1 or opts.rounds < 1 or opts.busy_us < 1:
        parser.error("--files, --rounds and --busy-us must be at least 1")

    try:
        servers = asyncio.run(run(opts))
    except SystemExit as e:
        print(f"mcp-throughput: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # a server that died or hung: the workload failed, no figures
        print(f"mcp-throughput: the session failed: {e!r}", file=sys.stderr)
        return 2

    by_label = {s.label: s for s in servers}
    ours = by_label["filekeeper-mcp"]
    ref = by_label.get("reference")
    replay = by_label.get("replay")
    med = {s.label: {k: statistics.median(v) for k, v in s.rates.items() if v} for s in servers}
    print(f"{opts.files} files, {opts.rounds} rounds after a warm-up, medians; "
          + "; ".join(s.version for s in servers if s.checked))
    print(f"{'calls/s over stdio':<26} {'filekeeper-mcp':>15} {'reference':>12} {'ratio':>8} {'target':>8}")
    status = 0
    rows = {}
    for kind, label in (("read", "file read"), ("write", "file write"), ("edit", "single replacement")):
        a = med[ours.label][kind]
        if ref is None:
            print(f"{label:<26} {a:13.0f}/s {'-':>12}")
            continue
        b = med[ref.label][kind]
        ratio = a / b
        missed = ratio < TARGETS[kind]
        status |= missed
        rows[kind] = {"ours": a, "reference": b, "ratio": ratio, "target": TARGETS[kind]}
        print(f"{label:<26} {a:13.0f}/s {b:10.0f}/s {ratio:8.2f} {'>=' + str(TARGETS[kind]):>8}"
              + ("  MISSED" if missed else ""))
    if ref is not None and ours.validation_us:
        cells = []
        for kind in TARGETS:
            a, b = ours.validation_us.get(kind), ref.validation_us.get(kind)
            if a is not None and b is not None:
                cells.append(f"{kind} {a:.0f} us against {b:.0f} us")
                rows.setdefault(kind, {}).update(validation_us={"ours": a, "reference": b})
        print("the client's outputSchema check a call (jsonschema, as the SDK makes it): "
              + "; ".join(cells))
    if replay is not None:
        c = med["replay"]["read"]
        against = f", {c / med[ref.label]['read']:.2f}x the reference's reads" if ref else ""
        print(f"client ceiling for reads: {c:.0f}/s{against} (mcp-replay: our response, at once)")
        if "read" in rows:
            rows["read"]["ceiling"] = c
        # The client's time a call is t0 at the ceiling and grows by `slope` per microsecond
        # of server time: 1.0 if the client only waits meanwhile, more where the two compete
        # for the CPU. A straight line through the two stand-ins.
        t0 = 1e6 / c
        slope = (1e6 / med["replay, busy"]["read"] - t0) / opts.busy_us
        if slope > 0:
            ours_us = (1e6 / med[ours.label]["read"] - t0) / slope
            line = (f"server time a read amounts to: ours {ours_us:.0f} us (client's time a call "
                    f"+{slope:.2f} us per server us, from mcp-replay --busy-us {opts.busy_us})")
            if ref is not None:
                budget = (1e6 / (TARGETS["read"] * med[ref.label]["read"]) - t0) / slope
                line += f"; {TARGETS['read']}x the reference allows {budget:.0f} us"
                rows["read"]["budget_us"] = budget
            print(line)
            rows.setdefault("read", {})["server_us"] = ours_us
    if opts.json:
        with open(opts.json, "w") as f:
            json.dump({"files": opts.files, "rounds": opts.rounds, "rows": rows,
                       "rates": {s.label: {k: v for k, v in s.rates.items() if v}
                                 for s in servers}}, f, indent=1)
    return 1 if status else 0


if __name__ == "__main__":
    sys.exit(main())
