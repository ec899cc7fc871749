"""Make poetone's lm-eval tasks visible to lm-evaluation-harness without ``--include_path``.

lm-eval 0.4.13 has no entry point for task plugins (an upstream pull request proposes one). So a
one-line ``poetone-lm-eval.pth`` in site-packages imports this module at interpreter start-up. It
imports neither lm_eval nor poetone: it only puts a finder on ``sys.meta_path`` that waits for
``lm_eval.tasks._index`` to be imported, then wraps ``TaskIndex.build`` so that, whenever lm-eval
indexes its own task folder, poetone's folder is indexed right after it (a user's
``--include_path`` still comes later and can override). Uninstalling poetone removes both files
and leaves lm-eval untouched. Set ``POETONE_LM_EVAL_TASKS=0`` to switch it off.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

_TARGET = "lm_eval.tasks._index"


def tasks_dir() -> Path | None:
    """poetone's lm-eval task folder, found without importing poetone."""
    spec = importlib.util.find_spec("poetone")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "lm_eval_tasks"
    return folder if folder.is_dir() else None


def _patch(module: Any) -> None:
    index = getattr(module, "TaskIndex", None)
    if index is None or getattr(index.build, "_poetone", False):
        return
    original = index.build
    lm_eval_tasks = Path(module.__file__).resolve().parent

    def build(paths: Any, *args: Any, **kwargs: Any) -> Any:
        paths = list(paths)
        ours = tasks_dir()
        resolved = [Path(p).resolve() for p in paths]
        if ours is not None and lm_eval_tasks in resolved and ours.resolve() not in resolved:
            paths.insert(resolved.index(lm_eval_tasks) + 1, ours)
        return original(paths, *args, **kwargs)

    build._poetone = True  # type: ignore[attr-defined]
    index.build = staticmethod(build)


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != _TARGET:
            return None
        sys.meta_path.remove(self)  # once is enough, and find_spec below must not come back here
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run = spec.loader.exec_module

        def exec_module(module: Any) -> None:
            run(module)
            _patch(module)

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def install() -> None:
    if os.environ.get("POETONE_LM_EVAL_TASKS", "1") == "0" or _TARGET in sys.modules:
        return
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())


install()
