"""Fixtures for the Python surface's tests: a home and a workspace in temporary directories,
and the commands installed beside this interpreter (the wheels' keeper and filekeeper-mcp)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from filekeeper import Filekeeper, Workspace


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    directory = tmp_path / "notes"
    directory.mkdir()
    return directory


@pytest.fixture
def app(home: Path) -> Filekeeper:
    keeper = Filekeeper(home=home)
    keeper.init()
    return keeper


@pytest.fixture
def ws(app: Filekeeper, root: Path) -> Workspace:
    app.create_workspace("notes", root)
    return app.workspace(name="notes")


@pytest.fixture
def bin_dir() -> Path:
    """Where the installed wheels put their commands: beside this interpreter."""
    return Path(sys.executable).parent
