"""A minimal MCP client for the tests: one `filekeeper-mcp` process, spoken to with
newline-delimited JSON-RPC 2.0 over its stdin and stdout, and no SDK."""

from __future__ import annotations

import json
import queue
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

Doc = dict[str, Any]
PROTOCOL_VERSION = "2025-06-18"
# No single answer may take longer than this (seconds); a hang is a failure, not a wait.
TIMEOUT = 60.0


class McpServer:
    """One `filekeeper-mcp` process, spoken to over its stdin and stdout."""

    def __init__(self, argv: list[str], stderr: Path, env: dict[str, str] | None = None) -> None:
        self._stderr_path = stderr
        self._stderr = stderr.open("wb")
        self._process = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, env=env
        )
        self._lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self._last_id = 0

    def _read(self) -> None:
        stdout = self._process.stdout
        assert stdout is not None
        for line in stdout:
            self._lines.put(line)
        self._lines.put(b"")

    def _send(self, message: Doc) -> None:
        stdin = self._process.stdin
        assert stdin is not None
        stdin.write(json.dumps(message).encode() + b"\n")
        stdin.flush()

    def _stderr_text(self) -> str:
        self._stderr.flush()
        return self._stderr_path.read_text(errors="replace")

    def request(self, method: str, params: Doc, timeout: float = TIMEOUT) -> Doc:
        """Sends a request; its response, skipping anything else the server sends first."""
        self._last_id += 1
        self._send({"jsonrpc": "2.0", "id": self._last_id, "method": method, "params": params})
        while True:
            try:
                line = self._lines.get(timeout=timeout)
            except queue.Empty:
                pytest.fail(f"no answer to {method} in {timeout}s; stderr: {self._stderr_text()}")
            if not line:
                pytest.fail(
                    f"the server closed stdout before answering {method}; "
                    f"stderr: {self._stderr_text()}"
                )
            message: Doc = json.loads(line)
            assert message.get("jsonrpc") == "2.0", message
            if message.get("id") == self._last_id and "method" not in message:
                return message

    def notify(self, method: str) -> None:
        self._send({"jsonrpc": "2.0", "method": method})

    def initialize(self, timeout: float = TIMEOUT) -> Doc:
        response = self.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "filekeeper-python-tests", "version": "0"},
            },
            timeout,
        )
        assert "result" in response, response
        self.notify("notifications/initialized")
        result: Doc = response["result"]
        return result

    def tool_names(self) -> list[str]:
        response = self.request("tools/list", {})
        assert "result" in response, response
        return [str(tool["name"]) for tool in response["result"]["tools"]]

    def call(self, tool: str, arguments: Doc) -> Doc:
        """A tool's structured content, checked against isError and the text content."""
        response = self.request("tools/call", {"name": tool, "arguments": arguments})
        assert "result" in response, response
        result: Doc = response["result"]
        document: Doc = result["structuredContent"]
        assert isinstance(document.get("ok"), bool), document
        assert result.get("isError", False) == (not document["ok"]), result
        texts = [item["text"] for item in result["content"] if item.get("type") == "text"]
        assert len(texts) == 1, result
        assert texts[0], result
        if not document["ok"]:
            error = document["error"]
            assert texts[0].startswith(f"error {error['code']}: {error['message']}\n"), result
        return document

    def close(self) -> None:
        stdin = self._process.stdin
        assert stdin is not None
        stdin.close()
        try:
            status = self._process.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait(timeout=TIMEOUT)
            raise
        finally:
            if self._process.stdout is not None:
                self._process.stdout.close()
            self._stderr.close()
        assert status == 0, f"filekeeper-mcp exited {status}: {self._stderr_path.read_text()}"
