"""Bad input for every argument of every filekeeper-mcp tool, and protocol garbage.

usage: bad_input.py [--known TOOL|ARGUMENT|VALUE]... [--forbid TEXT] TEMPLATE WORKDIR OUT.jsonl

TEMPLATE is a workspace root prepared by the calling script: f.txt ("one\\ntwo\\nthree\\n"),
g.txt, an empty directory d, and a journal whose newest operation is committed. Every server
session serves a fresh copy of it, WORKDIR/root, so each bad call meets the same tree.

1. Through the official SDK (ClientSession): list_tools, then for every tool a base call that
   succeeds (its required arguments filled by name, dry_run true where the tool has it), and
   for every argument of its input schema the base call with that argument replaced by wrong
   JSON types (number for string, string for number, object, array, boolean, null), the empty
   string, 1 MiB strings (4 MiB for text bodies), NUL and control characters, 2^64, -1 and the
   like; every required argument left out; unknown extra arguments; no arguments at all. The
   next call on the same session (a workspace_info probe at the end of a session) shows whether
   the server still answers. A call that changed the tree, timed out or lost the server ends
   its session; the next call gets a fresh server on a fresh copy.
2. As raw JSON-RPC lines over the stdio pipe, for what the SDK cannot encode: every string
   argument holding a lone surrogate escape, and holding bytes that are not UTF-8; numbers out
   of range; and protocol garbage (huge lines, deep nesting, NUL bytes, a wrong or missing
   jsonrpc version, bad ids, malformed tools/call params, batches, stray responses and
   notifications, CRLF). After each, a probe request checks that the server still answers.

A call matching a --known pattern (fnmatch on "TOOL|ARGUMENT|VALUE") is a known product bug:
it still runs, with a short timeout, and its record says known: true.

Each output line is one call:
  {"surface": "sdk" | "raw", "tool", "argument", "value", "expect", "known",
   "kind": "result" | "protocol_error" | "timeout" | "died" | "raw",
   "alive": the next request on the same session was answered,
   "elapsed": seconds the call took (sdk only),
   "changed": the tree or its journal changed although the call failed (sdk only),
   "envelope": the structured content is exactly a success or a failure document,
   "is_error_matches": isError is set exactly when ok is false,
   "text_matches": the text content is a model's rendering of the structured content: a
     failure's starts with "error CODE: message" (the message's control characters escaped,
     as every line of the text escapes them), a success's is not empty,
   "code", "error_argument": error.code and error.details.argument of a failure,
   "protocol_code": the JSON-RPC error code of a protocol error,
   "host_path": the response or the server's stderr mentions TEXT (--forbid),
   "panic": the response or stderr mentions a panic or a backtrace,
   "response": the response with long strings cut, for a failure report}
Raw records also carry "request_id" (the id the server must echo, when the request has one),
"accept" (the JSON-RPC error codes, or "result", the specification allows), "replies" (every
message the server sent for the request), "answered" (how many replies carry request_id or
a null id), "missing_id" (replies with no id member) and "nonjson" (stdout lines that are
not JSON-RPC messages). The first line is {"tools": [...]} with each tool's input schema.
"""

import argparse
import asyncio
import fnmatch
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import threading
import time
import unicodedata

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import fkmcp  # noqa: E402
from mcp import MCPError  # noqa: E402

MIB = 1 << 20
CALL_TIMEOUT = 20.0   # a correct server answers every call here in well under a second
KNOWN_TIMEOUT = 3.0   # known hangs are not waited for
PANIC = re.compile(r"panicked|RUST_BACKTRACE|stack backtrace|src/[a-z_/]+\.rs:\d", re.I)
# JSON-RPC client-side codes of the SDK: not something the server said.
SDK_TIMEOUT, SDK_CLOSED = -32001, -32000

OPTS = None


# --- the fixture --------------------------------------------------------------------------

def fresh_root():
    root = os.path.join(OPTS.workdir, "root")
    if os.path.exists(root):
        shutil.rmtree(root)
    shutil.copytree(OPTS.template, root, symlinks=True)
    return root


def snapshot(root):
    """Every path under ROOT with size, mode and mtime; SQLite's -shm index aside."""
    seen = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(dirnames + filenames):
            if name.endswith("-shm"):
                continue
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            seen.append((os.path.relpath(path, root), st.st_size, st.st_mode, st.st_mtime_ns))
    return seen


def known(tool, argument, value):
    key = f"{tool}|{argument}|{value}"
    return any(fnmatch.fnmatchcase(key, p) for p in OPTS.known)


# --- good values ----------------------------------------------------------------------------

PATCH = "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n-one\n+ONE\n two\n three\n"


def good(tool, name, schema, op_id):
    """The value a base call gives argument NAME of TOOL; an unknown name is an error, so a
    new argument cannot go untested."""
    special = {
        ("file_create", "path"): "new.txt",
        ("directory_create", "path"): "newdir",
        ("directory_delete", "path"): "d",
        ("directory_list", "path"): ".",
        ("file_search", "path"): ".",
        ("content_search", "path"): ".",
        ("file_insert_lines", "position"): "end",
    }
    if (tool, name) in special:
        return special[(tool, name)]
    by_name = {
        "path": "f.txt", "paths": ["f.txt"], "source": "f.txt", "destination": "new.txt",
        "content": "x\n", "old": "one", "new": "ONE", "replacement": "x\n", "patch": PATCH,
        "start": 1, "end": 1, "line": 1, "pattern": "*.txt", "query": "one",
        "operation_id": op_id, "name": "f.txt", "other": "f.txt",
    }
    if name in by_name:
        return by_name[name]
    if "enum" in schema:
        return schema["enum"][0]
    sys.exit(f"bad_input.py: no good value for {tool}.{name}; teach good() about it")


def base_arguments(tool, op_id):
    schema = tool.input_schema
    props = schema.get("properties", {})
    args = {name: good(tool.name, name, props[name], op_id) for name in schema.get("required", [])}
    if "dry_run" in props:
        args["dry_run"] = True
    return args


# --- bad values -----------------------------------------------------------------------------

# Arguments that carry text bodies also get 4 MiB (above max_patch_bytes, below max_write_bytes).
BODIES = ("content", "patch", "new", "replacement", "expected_content")


def bad_values(name, schema, required):
    """(label, value, expect) for one argument. expect is "invalid" when the call must be an
    INVALID_ARGUMENT tool error naming the argument, else "any" (a documented result)."""
    t = schema.get("type")
    wrong = {
        "string": [("number", 5), ("negative", -1), ("float", 1.5), ("true", True),
                   ("object", {"a": 1}), ("array", ["f.txt"])],
        "integer": [("string", "1"), ("text", "abc"), ("float", 1.5), ("true", True),
                    ("object", {}), ("array", [1]), ("negative", -1), ("two-to-64", 2 ** 64),
                    ("ten-to-30", 10 ** 30), ("min-i64", -(2 ** 63))],
        "boolean": [("string", "true"), ("one", 1), ("zero", 0), ("object", {}),
                    ("array", [True]), ("empty", "")],
        "array": [("string", "f.txt"), ("number", 5), ("object", {}), ("false", False),
                  ("items-number", [5]), ("items-null", [None]), ("items-array", [[]])],
    }[t]
    out = [(label, v, "invalid") for label, v in wrong]
    out.append(("null", None, "invalid" if required else "any"))
    if t == "string":
        out += [
            ("empty", "", "any"),
            ("huge", "a" * MIB, "any"),
            ("unicode", "é" * 1000 + "\U0001f600" * 1000 + "\u0301\ufeff\uffff", "any"),
            ("nul", "a\x00b", "any"),
            ("control", "\x01\x1b[2J\x7f\r", "any"),
            ("newline", "a\nb", "any"),
            ("bidi", "\u202etxt.exe", "any"),
            ("dotdot", "../x", "any"),
        ]
        if "enum" in schema:
            out.append(("enum-case", schema["enum"][0].upper(), "any"))
        if name in BODIES:
            out.append(("huge-4mib", "b" * (4 * MIB), "any"))
    elif t == "integer":
        out += [("zero", 0, "any"), ("u64-max", 2 ** 64 - 1, "any"), ("float-integral", 1.0, "any")]
    elif t == "array":
        out += [("empty", [], "any"), ("items-empty", [""], "any"), ("items-huge", ["a" * MIB], "any"),
                ("items-nul", ["a\x00b"], "any"), ("many", ["f.txt"] * 10000, "any")]
    return out


def sdk_cases(tools, op_id):
    """Every bad call through the SDK: (tool, argument, label, arguments, expect)."""
    cases = []
    for tool in tools:
        schema = tool.input_schema
        props = schema.get("properties", {})
        required = schema.get("required", [])
        base = base_arguments(tool, op_id)
        cases.append((tool.name, "-", "base", dict(base), "ok"))
        for name, prop in props.items():
            for label, value, expect in bad_values(name, prop, name in required):
                args = dict(base)
                args[name] = value
                cases.append((tool.name, name, label, args, expect))
        for name in required:
            args = dict(base)
            del args[name]
            cases.append((tool.name, name, "missing", args, "invalid"))
        first = next(iter(props), "path")
        for label, key in [("unknown", "no_such_argument"), ("unknown-empty-key", ""),
                           ("unknown-nul-key", "pa\x00th"), ("unknown-huge-key", "k" * (256 << 10)),
                           ("unknown-upper", first.upper()), ("unknown-root", "root")]:
            args = dict(base)
            args[key] = "x"
            cases.append((tool.name, key if len(key) < 64 else "<huge key>", label, args, "unknown"))
        cases.append((tool.name, "-", "no-arguments", None, "any"))
    return cases


# --- facts about a response -----------------------------------------------------------------

def cut(value, limit=300):
    """VALUE with every long string shortened, for the record."""
    if isinstance(value, str):
        return value if len(value) <= limit else value[:limit] + f"...<{len(value)} chars>"
    if isinstance(value, list):
        return [cut(v, limit) for v in value[:20]]
    if isinstance(value, dict):
        return {cut(k, 64): cut(v, limit) for k, v in list(value.items())[:40]}
    return value


def exact_envelope(doc):
    if not isinstance(doc, dict) or not doc:
        return False
    keys = list(doc)
    if keys[0] != "ok":
        return False
    if doc["ok"] is True:
        return True
    err = doc.get("error")
    return (keys == ["ok", "error"] and doc["ok"] is False and isinstance(err, dict)
            and list(err) == ["code", "message", "retryable", "details"]
            and isinstance(err["code"], str) and isinstance(err["message"], str)
            and isinstance(err["retryable"], bool) and isinstance(err["details"], dict))



ESCAPES = {"\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r"}


def one_line(text: str) -> str:
    """TEXT as the server writes a message into one line of text: each control character
    and Unicode line or paragraph separator as a C escape, or the octal of its UTF-8 bytes
    (filekeeper::quote::line)."""
    out = []
    for c in text:
        if unicodedata.category(c) == "Cc" or c in "\u2028\u2029":
            out.append(ESCAPES.get(c) or "".join(f"\\{b:03o}" for b in c.encode()))
        else:
            out.append(c)
    return "".join(out)


def facts(response):
    """The checkable facts of one fkmcp.call() response."""
    text = json.dumps(response, ensure_ascii=False)
    f = {
        "host_path": bool(OPTS.forbid) and OPTS.forbid in text,
        "panic": bool(PANIC.search(text)),
    }
    if "protocol_error" in response:
        code = response["protocol_error"]["code"]
        f["kind"] = {SDK_TIMEOUT: "timeout", SDK_CLOSED: "died"}.get(code, "protocol_error")
        f["protocol_code"] = code
        return f
    doc = response.get("structured")
    f["kind"] = "result"
    f["envelope"] = exact_envelope(doc)
    f["is_error_matches"] = isinstance(doc, dict) and response["is_error"] == (doc.get("ok") is False)
    text = response.get("text") or ""
    if isinstance(doc, dict) and doc.get("ok") is False and isinstance(doc.get("error"), dict):
        error = doc["error"]
        message = one_line(str(error.get("message")))
        f["text_matches"] = text.startswith(f"error {error.get('code')}: {message}\n")
    else:
        f["text_matches"] = isinstance(doc, dict) and doc.get("ok") is True and text != ""
    if isinstance(doc, dict) and doc.get("ok") is False and isinstance(doc.get("error"), dict):
        f["code"] = doc["error"].get("code")
        details = doc["error"].get("details") or {}
        arg = details.get("argument") if isinstance(details, dict) else None
        f["error_argument"] = arg if not isinstance(arg, str) or len(arg) < 64 else "<huge key>"
    return f


def emit(record):
    print(json.dumps(record, ensure_ascii=False), file=OPTS.out, flush=True)


# --- the SDK sweep --------------------------------------------------------------------------

async def sdk_call(s, tool, arguments, timeout):
    record = {"tool": tool, "arguments": arguments}
    try:
        result = await s.call_tool(tool, arguments, read_timeout_seconds=timeout)
    except MCPError as e:
        record["protocol_error"] = {"code": e.code, "message": e.message}
        return record
    except Exception as e:  # the transport broke: the server is gone
        record["protocol_error"] = {"code": SDK_CLOSED, "message": f"{type(e).__name__}: {e}"}
        return record
    record["is_error"] = bool(result.is_error)
    record["structured"] = result.structured_content
    record["text"] = fkmcp.text_of(result)
    return record


async def list_tools():
    root = fresh_root()
    with open(os.path.join(OPTS.workdir, "server-list.err"), "w") as errlog:
        async with fkmcp.session(root, errlog=errlog) as s:
            listing = await s.list_tools()
            tools = list(listing.tools)
            while listing.next_cursor:
                from mcp.types import PaginatedRequestParams
                listing = await s.list_tools(params=PaginatedRequestParams(cursor=listing.next_cursor))
                tools += listing.tools
    return tools


async def sdk_sweep(cases):
    """Runs the cases through as few sessions as it can. A call's "alive" is whether the
    session answered the call after it (or a probe, at the end of a session)."""
    i = 0
    sessions = 0
    while i < len(cases):
        root = fresh_root()
        sessions += 1
        errpath = os.path.join(OPTS.workdir, f"server-sdk-{sessions}.err")
        pending = None
        try:
            with open(errpath, "w") as errlog:
                async with fkmcp.session(root, errlog=errlog) as s:
                    while i < len(cases):
                        tool, argument, label, arguments, expect = cases[i]
                        i += 1
                        is_known = known(tool, argument, label)
                        before = snapshot(root)
                        started = time.monotonic()
                        response = await sdk_call(s, tool, arguments,
                                                  KNOWN_TIMEOUT if is_known else CALL_TIMEOUT)
                        elapsed = round(time.monotonic() - started, 3)
                        f = facts(response)
                        if pending is not None:
                            pending["alive"] = f["kind"] != "died"
                            emit(pending)
                            pending = None
                        failed = f["kind"] != "result" or (response.get("structured") or {}).get("ok") is not True
                        changed = snapshot(root) != before
                        record = {"surface": "sdk", "tool": tool, "argument": argument, "value": label,
                                  "expect": expect, "known": is_known, **f, "alive": None,
                                  "changed": changed and failed, "elapsed": elapsed,
                                  "response": cut(response)}
                        if f["kind"] in ("timeout", "died") or changed or i == len(cases):
                            if f["kind"] != "died":
                                probe = await sdk_call(s, "workspace_info", {}, CALL_TIMEOUT)
                                record["alive"] = (probe.get("structured") or {}).get("ok") is True
                            else:
                                record["alive"] = False
                            emit(record)
                            break  # a fresh server on a fresh copy for the next call
                        pending = record
        except Exception as e:  # a session that ends badly is recorded by the calls above
            print(f"bad_input.py: session {sessions} ended: {type(e).__name__}: {e}", file=sys.stderr)
        if pending is not None:
            pending["alive"] = False
            emit(pending)
    return sessions


# --- raw JSON-RPC ---------------------------------------------------------------------------

INIT = {"jsonrpc": "2.0", "id": "init", "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "bad_input", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


class RawServer:
    """filekeeper-mcp on a fresh root, spoken to in raw lines; a thread collects its stdout."""

    def __init__(self, n, handshake=True):
        self.root = fresh_root()
        self.errpath = os.path.join(OPTS.workdir, f"server-raw-{n}.err")
        params = fkmcp.server_params(self.root)
        self.proc = subprocess.Popen([params.command] + params.args, env=params.env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=open(self.errpath, "wb"))
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.pending = []
        if handshake:
            self.send(json.dumps(INIT).encode())
            self.wait_for("init", CALL_TIMEOUT)
            self.send(json.dumps(INITIALIZED).encode())

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, payload):
        try:
            self.proc.stdin.write(payload + b"\n")
            self.proc.stdin.flush()
            return True
        except (BrokenPipeError, OSError):
            return False

    def collect(self, until, timeout):
        """Reads messages until UNTIL(messages) holds, the server closes stdout, or TIMEOUT.
        Returns (messages, nonjson, eof)."""
        deadline = time.monotonic() + timeout
        msgs, nonjson = self.pending, []
        self.pending = []
        while not until(msgs):
            left = deadline - time.monotonic()
            if left <= 0:
                return msgs, nonjson, False
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                return msgs, nonjson, False
            if line is None:
                return msgs, nonjson, True
            try:
                msg = json.loads(line)
                if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
                    raise ValueError
                msgs.append(msg)
            except ValueError:
                nonjson.append(cut(line.decode("utf-8", "replace")))
        return msgs, nonjson, False

    def wait_for(self, rid, timeout):
        msgs, _, _ = self.collect(lambda m: any(x.get("id") == rid for x in m), timeout)
        return msgs

    def stderr(self):
        with open(self.errpath, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def stop(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def call_line(rid, tool, arguments):
    return {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}


def enc(obj):
    return json.dumps(obj).encode()


def raw_cases(tools, op_id):
    """(tool, argument, value, payload bytes, request id or None, accepted codes, handshake)."""
    cases = []
    rid = 1000
    for tool in tools:
        props = tool.input_schema.get("properties", {})
        base = base_arguments(tool, op_id)
        for name, prop in props.items():
            if prop.get("type") == "string":
                rid += 1
                args = dict(base)
                args[name] = "\ud800x"  # json.dumps writes it as the escape \ud800
                # Invalid params, answered with the request's id (mcp/src/line.rs).
                cases.append((tool.name, name, "lone-surrogate", enc(call_line(rid, tool.name, args)),
                              rid, [-32602], True))
                rid += 1
                args[name] = "@@BYTES@@"
                payload = enc(call_line(rid, tool.name, args)).replace(b"@@BYTES@@", b"caf\xe9\xff\xfe")
                # Not JSON at all (RFC 8259 text is UTF-8): a parse error, id null.
                cases.append((tool.name, name, "badutf8", payload, None, [-32700], True))
            elif prop.get("type") == "integer":
                for label, literal in [("out-of-range", b"1e400"), ("hex", b"0x10"), ("leading-zero", b"01"),
                                       ("plus", b"+1"), ("nan", b"NaN")]:
                    rid += 1
                    args = dict(base)
                    args[name] = "@@NUM@@"
                    payload = enc(call_line(rid, tool.name, args)).replace(b'"@@NUM@@"', literal)
                    # 1e400 is JSON, beyond a float: invalid params, with the request's id.
                    accept = [-32602] if label == "out-of-range" else [-32700]
                    cases.append((tool.name, name, label, payload, rid if label == "out-of-range" else None,
                                  accept, True))
        for label, arguments in [("arguments-array", []), ("arguments-string", "x"),
                                 ("arguments-number", 5), ("arguments-true", True)]:
            rid += 1
            cases.append((tool.name, "-", label, enc(call_line(rid, tool.name, arguments)), rid,
                          [-32602], True))

    def proto(label, payload, request_id, accept, handshake=True):
        cases.append(("-", "protocol", label, payload, request_id, accept, handshake))

    info = {"name": "file_info", "arguments": {"path": "f.txt"}}
    proto("huge-garbage-line", b"x" * (20 * MIB), None, [-32700])
    # 17 MiB of content is under max_write_bytes (20 MiB): served. 25 MiB is above: LIMIT_EXCEEDED.
    proto("request-17mib", enc(call_line(2001, "file_write", {"path": "big.txt", "content": "c" * (17 * MIB),
                                                             "dry_run": True})), 2001, ["result"])
    proto("request-25mib", enc(call_line(2027, "file_write", {"path": "big.txt", "content": "c" * (25 * MIB),
                                                             "dry_run": True})), 2027, ["result"])
    proto("deep-nesting", enc(call_line(2002, "file_info", {"path": "@@DEEP@@"})).replace(
        b'"@@DEEP@@"', b"[" * 100000 + b"]" * 100000), None, [-32700])
    proto("nul-byte", enc(call_line(2003, "file_info", {"path": "@@"})).replace(b"@@", b"a\x00b"),
          None, [-32700])
    proto("trailing-garbage", enc(call_line(2004, "file_info", {"path": "f.txt"})) + b" trailing", None, [-32700])
    proto("truncated", enc(call_line(2005, "file_info", {"path": "f.txt"}))[:-3], None, [-32700])
    proto("jsonrpc-1.0", enc({"jsonrpc": "1.0", "id": 2006, "method": "tools/list"}), 2006, [-32600])
    proto("jsonrpc-missing", enc({"id": 2007, "method": "tools/list"}), 2007, [-32600])
    proto("jsonrpc-number", enc({"jsonrpc": 2.0, "id": 2008, "method": "tools/list"}), 2008, [-32600])
    proto("method-number", enc({"jsonrpc": "2.0", "id": 2009, "method": 5}), 2009, [-32600])
    proto("method-missing", enc({"jsonrpc": "2.0", "id": 2010}), 2010, [-32600])
    proto("id-object", enc({"jsonrpc": "2.0", "id": {"a": 1}, "method": "tools/list"}), None, [-32600])
    proto("id-array", enc({"jsonrpc": "2.0", "id": [1], "method": "tools/list"}), None, [-32600])
    proto("id-huge-string", enc({"jsonrpc": "2.0", "id": "i" * MIB, "method": "tools/list"}), "i" * MIB,
          ["result"])
    proto("id-negative", enc({"jsonrpc": "2.0", "id": -7, "method": "tools/list"}), -7, ["result"])
    proto("id-empty-string", enc({"jsonrpc": "2.0", "id": "", "method": "tools/list"}), "", ["result"])
    proto("empty-batch", b"[]", None, [-32600])
    proto("not-an-object", b"42", None, [-32600])
    proto("string-message", b'"tools/list"', None, [-32600])
    proto("params-array", enc({"jsonrpc": "2.0", "id": 2011, "method": "tools/call", "params": []}), 2011,
          [-32600, -32602])
    proto("params-string", enc({"jsonrpc": "2.0", "id": 2012, "method": "tools/call", "params": "x"}), 2012,
          [-32600, -32602])
    proto("params-missing", enc({"jsonrpc": "2.0", "id": 2013, "method": "tools/call"}), 2013, [-32602])
    proto("name-missing", enc({"jsonrpc": "2.0", "id": 2014, "method": "tools/call", "params": {"arguments": {}}}),
          2014, [-32602])
    proto("name-number", enc(call_line(2015, 5, {})), 2015, [-32602])
    proto("name-huge", enc(call_line(2016, "t" * MIB, {})), 2016, [-32602])
    proto("name-nul", enc(call_line(2017, "file_info\x00", {"path": "f.txt"})), 2017, [-32602])
    proto("name-empty", enc(call_line(2018, "", {})), 2018, [-32602])
    proto("method-huge", enc({"jsonrpc": "2.0", "id": 2019, "method": "m" * MIB}), 2019, [-32601])
    proto("duplicate-argument", b'{"jsonrpc":"2.0","id":2020,"method":"tools/call","params":{"name":"file_info",'
          b'"arguments":{"path":"f.txt","path":"d"}}}', 2020, [-32602])
    proto("duplicate-in-response", b'{"jsonrpc":"2.0","id":2025,"result":{"a":1,"a":2}}', None, [])
    proto("duplicate-in-notification", b'{"jsonrpc":"2.0","method":"notifications/initialized",'
          b'"method":"notifications/initialized"}', None, [])
    proto("id-fraction", b'{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}', None, [-32600])
    proto("crlf", enc({"jsonrpc": "2.0", "id": 2021, "method": "tools/call", "params": info}) + b"\r", 2021, ["result"])
    proto("blank-lines", b"\n  \n\t", None, [])
    proto("stray-response", enc({"jsonrpc": "2.0", "id": 2022, "result": {}}), None, [])
    proto("stray-error-response", enc({"jsonrpc": "2.0", "id": 2023, "error": {"code": 1, "message": "x"}}), None, [])
    proto("unknown-notification", enc({"jsonrpc": "2.0", "method": "notifications/no_such_thing",
                                       "params": {"x": "\u0000"}}), None, [])
    proto("cancel-unknown", enc({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                 "params": {"requestId": 424242, "reason": "x" * MIB}}), None, [])
    proto("call-before-initialize", enc({"jsonrpc": "2.0", "id": 2024, "method": "tools/call", "params": info}),
          2024, [-32600, -32601, -32602, -32603, -32002, -32000, "result"], handshake=False)
    proto("initialize-twice", enc(dict(INIT, id=2025)), 2025, [-32600, -32603, "result"])
    proto("initialize-bad-version", enc({"jsonrpc": "2.0", "id": 2026, "method": "initialize",
                                         "params": {"protocolVersion": "x" * 1000, "capabilities": [],
                                                    "clientInfo": 5}}), 2026, [-32600, -32602, "result"])
    return cases


def raw_sweep(cases):
    server = None
    n = 0
    probe_id = 0
    for tool, argument, label, payload, request_id, accept, handshake in cases:
        is_known = known(tool, argument, label)
        if server is None or not handshake:
            if server is not None:
                server.stop()
            n += 1
            server = RawServer(n, handshake=handshake)
        probe_id += 1
        probe = f"probe-{probe_id}"
        server.send(payload)
        if not handshake:
            # The request went first; now the handshake, then the probe.
            server.send(enc(dict(INIT, id="late-init")))
            server.send(enc(INITIALIZED))
        sent = server.send(enc(call_line(probe, "workspace_info", {})))
        timeout = KNOWN_TIMEOUT if is_known else CALL_TIMEOUT

        def done(msgs):
            ids = [m.get("id") for m in msgs if "method" not in m]
            if probe not in ids:
                return False
            if request_id is not None and request_id not in ids and None not in ids:
                return False
            if request_id is None and accept and not any("id" not in m or m.get("id") is None for m in msgs):
                return False
            return True

        msgs, nonjson, eof = server.collect(done, timeout) if sent else ([], [], True)
        # A little more time for stray extra replies to show.
        more, more_nonjson, eof2 = server.collect(lambda m: False, 0.02) if not eof else ([], [], True)
        msgs += more
        nonjson += more_nonjson
        alive = any(m.get("id") == probe and (m.get("result") or {}).get("structuredContent", {}).get("ok")
                    for m in msgs)
        replies = [m for m in msgs if m.get("id") not in (probe, "late-init")]
        answered = [m for m in replies if "id" in m and (m["id"] == request_id or m["id"] is None)]
        text = json.dumps(replies, ensure_ascii=False) + "\n".join(nonjson)
        stderr = server.stderr()
        record = {
            "surface": "raw", "tool": tool, "argument": argument, "value": label, "known": is_known,
            "kind": "raw", "request_id": cut(request_id, 40), "accept": accept, "alive": alive,
            "answered": len(answered),
            "answer_codes": [m["error"].get("code") if "error" in m else "result" for m in answered],
            "missing_id": sum(1 for m in replies if "id" not in m and "method" not in m),
            "replies": cut(replies), "nonjson": nonjson,
            "host_path": bool(OPTS.forbid) and (OPTS.forbid in text or OPTS.forbid in stderr),
            "panic": bool(PANIC.search(text) or PANIC.search(stderr)),
        }
        # A tool result among the answers gets the same checks as through the SDK.
        for m in answered:
            if "result" in m and isinstance(m["result"], dict) and "structuredContent" in m["result"]:
                r = m["result"]
                content = r.get("content") or [{}]
                record.update({k: v for k, v in facts({
                    "is_error": bool(r.get("isError")), "structured": r.get("structuredContent"),
                    "text": content[0].get("text", "")}).items() if k not in ("host_path", "panic", "kind")})
        emit(record)
        if not alive or eof:
            server.stop()
            server = None
    if server is not None:
        server.stop()
    return n


def main():
    global OPTS
    parser = argparse.ArgumentParser()
    parser.add_argument("--known", action="append", default=[])
    parser.add_argument("--forbid", default="")
    parser.add_argument("--op-id", required=True)
    parser.add_argument("template")
    parser.add_argument("workdir")
    parser.add_argument("out")
    OPTS = parser.parse_args()
    os.makedirs(OPTS.workdir, exist_ok=True)
    with open(OPTS.out, "w", encoding="utf-8") as OPTS.out:
        tools = asyncio.run(list_tools())
        emit({"tools": [{"name": t.name, "inputSchema": t.input_schema} for t in tools]})
        cases = sdk_cases(tools, OPTS.op_id)
        started = time.monotonic()
        sessions = asyncio.run(sdk_sweep(cases))
        print(f"sdk: {len(cases)} calls, {sessions} sessions, {time.monotonic() - started:.1f}s")
        rcases = raw_cases(tools, OPTS.op_id)
        started = time.monotonic()
        servers = raw_sweep(rcases)
        print(f"raw: {len(rcases)} requests, {servers} servers, {time.monotonic() - started:.1f}s")


if __name__ == "__main__":
    main()
