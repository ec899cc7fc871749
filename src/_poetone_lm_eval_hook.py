"""Make poetone's lm-eval tasks visible to lm-evaluation-harness without ``--include_path``.

lm-eval 0.4.13 indexes only its own task folder and ``--include_path``: it reads no entry point for
task plugins. poetone declares the ``lm_eval.tasks`` entry point that upstream pull request #4015
proposes (``poetone = "poetone.lm_eval_tasks"``, the package whose folder holds the task YAMLs), and
until the installed lm-eval reads it, this hook does the same job.

Why it costs nothing at start-up: ``poetone-lm-eval.pth`` runs one line in every interpreter of the
environment, and that line imports nothing (``os`` and ``sys`` are loaded before any ``.pth``). It
reads the off switch (``POETONE_LM_EVAL_TASKS=0``: then nothing else happens) and puts a
``PoetoneLmEvalTrigger`` on ``sys.meta_path``: a finder, defined in the line itself (a plain class:
``importlib.abc`` would pull in ``typing``, ``pathlib`` …), that answers "not mine" to every import
until lm-eval's task index (``lm_eval.tasks._index``) is imported. Only then, with lm-eval already
loading, is this module imported, and :func:`take_over` wraps ``TaskIndex.build`` so that poetone's
task folder is indexed right after lm-eval's own (a user's ``--include_path`` still comes later and
can override).

It stands down when the installed lm-eval reads the ``lm_eval.tasks`` entry-point group itself, so
the tasks are never indexed twice. ``pip uninstall poetone`` removes both files and leaves lm-eval
untouched.
"""

import os
import sys

#: The module whose import wakes the hook: lm-eval's task index (also named in the .pth line).
TARGET = "lm_eval.tasks._index"
#: The entry-point group of upstream lm-eval PR #4015 (declared in pyproject.toml).
ENTRY_POINT_GROUP = "lm_eval.tasks"


def take_over(trigger: object, fullname: str) -> object:
    """Called by the .pth line's trigger when lm-eval's task index is imported: find the module's
    real spec and patch the module once it has run, or stand down (``None``: the import goes on)."""
    import importlib.util

    if trigger in sys.meta_path:
        sys.meta_path.remove(trigger)  # once is enough, and find_spec below must not come back here
    if fullname != TARGET or lm_eval_reads_entry_point():
        return None
    spec = importlib.util.find_spec(fullname)
    loader = getattr(spec, "loader", None)
    if spec is None or not hasattr(loader, "exec_module"):
        return spec
    run = loader.exec_module

    def exec_module(module: object) -> None:
        run(module)
        _patch(module)

    loader.exec_module = exec_module
    return spec


def lm_eval_reads_entry_point() -> bool:
    """Whether the installed lm-eval reads the ``lm_eval.tasks`` entry-point group.

    Read from lm-eval's source (its package code, not its hundreds of task folders): a file that
    calls ``entry_points`` and names the group. Run only when lm-eval is being imported.
    """
    import re

    package = sys.modules.get("lm_eval")
    where = getattr(package, "__file__", None)
    if not where:
        return False
    names_group = re.compile(r"""["']""" + re.escape(ENTRY_POINT_GROUP) + r"""["']""")
    root = os.path.dirname(where)
    tasks = os.path.join(root, "tasks")
    for folder, subfolders, files in os.walk(root):
        if folder == tasks:
            subfolders.clear()  # lm-eval's own task folders: data, not the indexing code
        for name in files:
            if not name.endswith(".py"):
                continue
            try:
                with open(os.path.join(folder, name), encoding="utf-8") as source:
                    text = source.read()
            except (OSError, UnicodeDecodeError):
                continue
            if "entry_points" in text and names_group.search(text):
                return True
    return False


def tasks_dir() -> str | None:
    """poetone's lm-eval task folder, found without importing poetone."""
    import importlib.util

    spec = importlib.util.find_spec("poetone")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = os.path.join(next(iter(spec.submodule_search_locations)), "lm_eval_tasks")
    return folder if os.path.isdir(folder) else None


def _patch(module: object) -> None:
    """Wrap ``TaskIndex.build`` to index poetone's folder right after lm-eval's own."""
    from pathlib import Path

    index = getattr(module, "TaskIndex", None)
    if index is None or getattr(index.build, "_poetone", False):
        return
    original = index.build
    lm_eval_tasks = Path(module.__file__).resolve().parent

    def build(paths: object, *args: object, **kwargs: object) -> object:
        paths = list(paths)
        ours = tasks_dir()
        resolved = [Path(p).resolve() for p in paths]
        if ours is not None and lm_eval_tasks in resolved and Path(ours).resolve() not in resolved:
            paths.insert(resolved.index(lm_eval_tasks) + 1, Path(ours))
        return original(paths, *args, **kwargs)

    build._poetone = True
    index.build = staticmethod(build)
