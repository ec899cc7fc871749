"""Shared fixtures: the session critic and access to ``../shared`` (reference data beside the project).

Tests that read ``../shared`` either take the ``shared`` fixture or carry the ``shared`` marker;
both skip with a clear reason when the folder is absent, as on a user's machine. Set
``POETONE_SHARED`` to point somewhere else.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

from poetone import Critic

#: ../shared beside the project (``/work/main/../shared``), or $POETONE_SHARED.
SHARED: Path = Path(os.environ.get("POETONE_SHARED") or Path(__file__).resolve().parents[1].parent / "shared")
SHARED_REASON = "needs ../shared (reference data beside the project)"


def shared_available() -> bool:
    return SHARED.is_dir()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip every test marked ``@pytest.mark.shared`` when ../shared is absent."""
    if shared_available():
        return
    skip = pytest.mark.skip(reason=SHARED_REASON)
    for item in items:
        if "shared" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def shared() -> Path:
    """The ../shared folder; skips the test when it is absent."""
    if not shared_available():
        pytest.skip(SHARED_REASON)
    return SHARED


@pytest.fixture(scope="session")
def critic() -> Critic:
    return Critic()


@pytest.fixture(scope="session")
def paper_critic() -> Critic:
    return Critic(profile="paper")


@pytest.fixture(scope="session")
def build_cipu() -> ModuleType:
    """scripts/build_cipu.py as a module: it is a script beside the package, not part of it."""
    spec = importlib.util.spec_from_file_location(
        "build_cipu", Path(__file__).resolve().parents[1] / "scripts" / "build_cipu.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["build_cipu"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module
