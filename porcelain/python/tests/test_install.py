"""The packaging promises, checked against the built wheels in $FILEKEEPER_WHEELS.

- `pip install filekeeper-cli` gives the `keeper` command and the `filekeeper` package, and
  nothing else: no `filekeeper-mcp`, no other distribution.
- `uv tool install filekeeper-mcp` gives a working `filekeeper-mcp`; `uv tool install
  filekeeper-cli` a working `keeper`.
- `uvx filekeeper-mcp --root DIR`, the form an MCP host's configuration uses, starts a server
  that answers.

Everything installs offline (`--no-index --find-links`) into temporary directories; uv is told
never to download a Python.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp_client import PROTOCOL_VERSION, TIMEOUT, McpServer

Doc = dict[str, Any]

VERSION = "0.1.0"
BUILD = rf"{re.escape(VERSION)}\+([0-9a-f]{{12}}|unknown)"
INSTALL_TIMEOUT = 600.0
NOTES = "alpha\nbeta\ngamma\n"


@pytest.fixture
def wheels() -> Path:
    """The directory of built wheels: a missing one is a failure, never a skip."""
    given = os.environ.get("FILEKEEPER_WHEELS")
    if not given:
        pytest.fail("FILEKEEPER_WHEELS is not set: it must name the directory of built wheels")
    directory = Path(given)
    if not directory.is_dir():
        pytest.fail(f"FILEKEEPER_WHEELS={given} is not a directory")
    for name in ("filekeeper_cli", "filekeeper_mcp"):
        if not list(directory.glob(f"{name}-{VERSION}-*.whl")):
            pytest.fail(f"no {name}-{VERSION} wheel in {directory}")
    return directory.resolve()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A directory to serve as a transient workspace, with one file."""
    directory = tmp_path / "tree"
    directory.mkdir()
    (directory / "notes.txt").write_text(NOTES)
    return directory


def clean_env(**extra: str) -> dict[str, str]:
    """This environment without anything that would point an installer or Filekeeper at
    the test's own virtual environment, configuration or home; plus EXTRA."""
    dropped = {
        "VIRTUAL_ENV",
        "PYTHONPATH",
        "PYTHONHOME",
        "FILEKEEPER_HOME",
        "PIP_REQUIRE_VIRTUALENV",
    }
    env = {k: v for k, v in os.environ.items() if k not in dropped and not k.startswith("UV_")}
    env.update(extra)
    return env


def run(argv: list[str | Path], env: dict[str, str], timeout: float = TIMEOUT) -> str:
    """Runs ARGV to completion; its stdout. A non-zero exit fails the test with both streams."""
    done = subprocess.run(
        [str(word) for word in argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )
    assert done.returncode == 0, (
        f"{argv} exited {done.returncode}\nstdout: {done.stdout}\nstderr: {done.stderr}"
    )
    return done.stdout


def base_python() -> str | None:
    """The interpreter this test's virtual environment was made from, for uv; None to let
    uv find a python3 itself."""
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    for name in (f"python{version}", "python3"):
        candidate = Path(sys.base_prefix) / "bin" / name
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return None


def uv_env(tmp_path: Path) -> dict[str, str]:
    """uv confined to temporary directories, offline, never downloading a Python."""
    env = clean_env(
        UV_TOOL_DIR=str(tmp_path / "uv-tools"),
        UV_TOOL_BIN_DIR=str(tmp_path / "uv-bin"),
        UV_CACHE_DIR=str(tmp_path / "uv-cache"),
        UV_NO_MANAGED_PYTHON="1",
        UV_PYTHON_DOWNLOADS="never",
        UV_NO_CONFIG="1",
        UV_OFFLINE="1",
    )
    python = base_python()
    if python is not None:
        env["UV_PYTHON"] = python
    return env


def uv_command(bin_dir: Path, name: str) -> Path:
    """`uv` or `uvx` from the test's virtual environment."""
    command = bin_dir / name
    assert command.is_file(), f"no {name} beside {sys.executable}: install uv in the test venv"
    return command


def check_keeper(keeper: Path, tree: Path, env: dict[str, str]) -> None:
    """KEEPER reports its version and reads a file of a transient workspace."""
    assert keeper.is_file(), f"no {keeper}"
    assert re.match(rf"keeper {re.escape(VERSION)}\b", run([keeper, "--version"], env))
    document = json.loads(run([keeper, "--json", "--root", tree, "file", "read", "notes.txt"], env))
    assert document["ok"] is True, document
    assert document["workspace"] is None, document
    assert (document["path"], document["content"]) == ("notes.txt", NOTES), document


# ---------------------------------------------------------------------------------------------
# A minimal MCP client over the server's stdin and stdout: newline-delimited JSON-RPC 2.0.


def served_tools(argv: list[str], tmp_path: Path, env: dict[str, str]) -> list[str]:
    """The tool names the server started by ARGV lists."""
    server = McpServer(argv, tmp_path / "reference-stderr.log", env)
    try:
        server.initialize()
        return server.tool_names()
    finally:
        server.close()


def check_server(server: McpServer, reference: list[str], *, first_timeout: float) -> None:
    """SERVER answers initialize and tools/list, listing the REFERENCE tools."""
    initialized = server.initialize(first_timeout)
    assert initialized["protocolVersion"] == PROTOCOL_VERSION, initialized
    assert initialized["serverInfo"]["name"] == "filekeeper-mcp", initialized
    # The release, and the commit it was built from as semver build metadata.
    assert re.fullmatch(BUILD, initialized["serverInfo"]["version"]), initialized
    assert "tools" in initialized["capabilities"], initialized
    names = server.tool_names()
    assert names == reference
    assert {"file_read", "file_write", "undo_operation"} <= set(names)


# ---------------------------------------------------------------------------------------------
# The promises.


def test_pip_install_of_filekeeper_cli_gives_keeper_and_the_package_only(
    tmp_path: Path, wheels: Path, tree: Path
) -> None:
    venv = tmp_path / "venv"
    env = clean_env(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1", PIP_CONFIG_FILE=os.devnull)
    run([sys.executable, "-m", "venv", venv], env, INSTALL_TIMEOUT)
    bin_dir = venv / "bin"
    python = bin_dir / "python"
    run(
        [python, "-m", "pip", "install", "--no-index", "--find-links", wheels, "filekeeper-cli"],
        env,
        INSTALL_TIMEOUT,
    )

    check_keeper(bin_dir / "keeper", tree, env)
    assert not (bin_dir / "filekeeper-mcp").exists()

    home = tmp_path / "home"
    script = """
import json, sys
import filekeeper
from filekeeper import Filekeeper, FilekeeperError
app = Filekeeper(home=sys.argv[1])
app.init()
app.create_workspace("tree", sys.argv[2])
ws = app.workspace(name="tree")
read = ws.read_file("notes.txt", start_line=2, end_line=2)
written = ws.write_file("notes.txt", "v2\\n", expected_hash=read.content_hash)
try:
    ws.write_file("notes.txt", "v3\\n", expected_hash=read.content_hash)
    code = None
except FilekeeperError as error:
    code = error.code
print(json.dumps({
    "module": filekeeper.__file__,
    "version": filekeeper.__version__,
    "commit": filekeeper.__commit__,
    "read": read.to_dict(),
    "written": written.to_dict(),
    "conflict": code,
}))
"""
    answer = json.loads(run([python, "-c", script, home, tree], env))
    assert Path(answer["module"]).resolve().is_relative_to(venv.resolve()), answer
    assert answer["version"] == VERSION
    # The wheel's module and its keeper were built from one commit, and say so.
    keeper_version = json.loads(run([bin_dir / "keeper", "--json", "--version"], env))
    assert answer["commit"] == keeper_version["commit"], (answer, keeper_version)
    assert answer["read"]["content"] == "beta\n"
    assert answer["written"]["changed"] is True
    assert answer["written"]["operation_id"].startswith("op_")
    assert answer["conflict"] == "CONTENT_CONFLICT"
    assert (tree / "notes.txt").read_text() == "v2\n"

    listed = json.loads(run([python, "-m", "pip", "list", "--format", "json"], env))
    names = {re.sub(r"[-_.]+", "-", item["name"]).lower() for item in listed}
    assert "filekeeper-cli" in names
    assert names - {"filekeeper-cli", "pip", "setuptools"} == set()
    versions = {item["name"].lower(): item["version"] for item in listed}
    assert versions["filekeeper-cli"] == VERSION


def test_uv_tool_install_of_filekeeper_mcp_gives_a_server(
    tmp_path: Path, wheels: Path, tree: Path, bin_dir: Path
) -> None:
    env = uv_env(tmp_path)
    uv = uv_command(bin_dir, "uv")
    run(
        [uv, "tool", "install", "--no-index", "--find-links", wheels, "filekeeper-mcp"],
        env,
        INSTALL_TIMEOUT,
    )
    command = tmp_path / "uv-bin" / "filekeeper-mcp"
    assert command.is_file(), f"uv tool install made no {command}"
    reference = served_tools([str(bin_dir / "filekeeper-mcp"), "--root", str(tree)], tmp_path, env)

    server = McpServer([str(command), "--root", str(tree)], tmp_path / "stderr.log", env)
    try:
        check_server(server, reference, first_timeout=TIMEOUT)
    finally:
        server.close()


def test_uv_tool_install_of_filekeeper_cli_gives_keeper(
    tmp_path: Path, wheels: Path, tree: Path, bin_dir: Path
) -> None:
    env = uv_env(tmp_path)
    uv = uv_command(bin_dir, "uv")
    run(
        [uv, "tool", "install", "--no-index", "--find-links", wheels, "filekeeper-cli"],
        env,
        INSTALL_TIMEOUT,
    )
    check_keeper(tmp_path / "uv-bin" / "keeper", tree, env)
    assert not (tmp_path / "uv-bin" / "filekeeper-mcp").exists()


def test_uvx_filekeeper_mcp_serves_a_root(
    tmp_path: Path, wheels: Path, tree: Path, bin_dir: Path
) -> None:
    """The MCP host entry: `uvx filekeeper-mcp --root DIR`, here from the wheels."""
    env = uv_env(tmp_path)
    uvx = uv_command(bin_dir, "uvx")
    reference = served_tools([str(bin_dir / "filekeeper-mcp"), "--root", str(tree)], tmp_path, env)
    argv = [str(uvx), "--no-index", "--find-links", str(wheels), "filekeeper-mcp"]
    server = McpServer([*argv, "--root", str(tree)], tmp_path / "stderr.log", env)
    try:
        # The first answer waits for uvx to install the server into its cache.
        check_server(server, reference, first_timeout=INSTALL_TIMEOUT)
        document = server.call("file_read", {"path": "notes.txt", "from_line": 2, "to_line": 3})
        assert document["ok"] is True, document
        assert document["workspace"] is None, document
        assert (document["path"], document["content"]) == ("notes.txt", "beta\ngamma\n")
        assert document["start_line"] == 2, document
        assert document["end_line"] == 3, document
        missing = server.call("file_read", {"path": "missing.txt"})
        assert missing["ok"] is False, missing
        assert missing["error"]["code"] == "PATH_NOT_FOUND", missing
    finally:
        server.close()
