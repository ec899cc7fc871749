"""Installing poetone makes its tasks visible to the real ``lm_eval`` and ``inspect`` commands from any
folder, for a built wheel and for an editable install alike; the lm-eval hook costs nothing at
start-up, its off switch switches it off, and it stands down for an lm-eval that reads the
``lm_eval.tasks`` entry point itself.

The end-to-end test builds in a temporary copy of the project (the checkout is left exactly as it
was) and installs into a fresh virtual environment that sees the test's own environment (lm-eval,
inspect-ai, …: nothing is downloaded) through a ``.pth`` file, behind its own site-packages: so
``poetone`` there is the package under test, whether the tests run in a plain venv or in the
system Python.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import site
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest
from openai_stub import OpenAIStub

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
PTH = "poetone-lm-eval.pth"
HOOK = "_poetone_lm_eval_hook"
SONGCI_TASKS = ("songci", "songci_zeroshot", "songci_oneshot", "songci_completion", "songci_instruction", "songci_cot")
#: Not part of the project: caches and build output that must not be copied or compared.
SCRATCH = {".git", "build", "dist", "__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache", ".venv", "logs"}


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "POETONE_LM_EVAL_TASKS")}
    env.update(HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", **extra)
    return env


def _run(cmd: list[str], cwd: Path, timeout: int = 600, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=_env(**env), capture_output=True, text=True, timeout=timeout)


def _python(code: str, cwd: Path, *flags: str, **env: str) -> subprocess.CompletedProcess[str]:
    return _run([sys.executable, *flags, "-c", textwrap.dedent(code)], cwd, **env)


def _is_scratch(path: Path) -> bool:
    return path.name in SCRATCH or path.name.endswith(".egg-info")


def _copy_project(dest: Path) -> Path:
    shutil.copytree(ROOT, dest, ignore=lambda folder, names: [n for n in names if _is_scratch(Path(folder, n))])
    return dest


def _tree_state(root: Path) -> set[str]:
    """Every file of the checkout, caches excluded (a build would add ``build/``, ``*.egg-info`` …)."""
    state: set[str] = set()
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = [
            d for d in subfolders if d not in (".git", "__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache")
        ]
        state.update(str(Path(folder, name).relative_to(root)) for name in files)
    return state


# --- the README's two set-up commands, and CI runs the second ----------------------------------

MAIN_JOB = "pip install . && inspect eval poetone/songci --model poetone/reference"
TEST_COMMAND = 'pip install "torch==2.13.0" -e ".[test]" && pytest'


def test_readme_has_two_setup_commands_and_ci_runs_the_second(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    setup_section = readme.split("\n## Set up\n", 1)[1].split("\n## ", 1)[0]
    assert re.findall(r"^```bash\n(.*?)\n```", setup_section, flags=re.M | re.S) == [MAIN_JOB, TEST_COMMAND]
    # a copy, so that a .ci/run without --print-test-command cannot install anything into this checkout
    (tmp_path / ".ci").mkdir()
    shutil.copy(ROOT / ".ci" / "run", tmp_path / ".ci" / "run")
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    printed = _run(["bash", str(tmp_path / ".ci" / "run"), "--print-test-command"], tmp_path, timeout=60)
    assert printed.returncode == 0, printed.stderr[-3000:]
    assert printed.stdout.strip() == TEST_COMMAND


# --- the start-up cost and the off switch -------------------------------------------------------


def _site_dir_with_pth(tmp_path: Path) -> Path:
    """A folder holding only poetone's .pth, to be processed as a site directory."""
    site_dir = tmp_path / "site"
    site_dir.mkdir()
    shutil.copy(SRC / PTH, site_dir / PTH)
    return site_dir


def _start_up(tmp_path: Path, **env: str) -> dict[str, list[str]]:
    """What processing poetone's .pth adds to ``sys.modules`` and ``sys.meta_path`` (site's own work excluded).

    The hook module is importable (``src`` on the path), as it is in a real install: the line must
    not import it all the same.
    """
    empty = tmp_path / "empty"
    empty.mkdir()
    code = f"""
        import json, site, sys
        site.addsitedir({str(empty)!r})  # whatever site itself needs is loaded now
        modules, finders = set(sys.modules), list(sys.meta_path)
        site.addsitedir({str(_site_dir_with_pth(tmp_path))!r})
        print(json.dumps({{"modules": sorted(set(sys.modules) - modules),
                           "finders": [type(f).__name__ for f in sys.meta_path if f not in finders]}}))
    """
    done = _python(code, tmp_path, "-S", "-B", PYTHONPATH=str(SRC), **env)
    assert done.returncode == 0, done.stderr
    assert "Error processing line" not in done.stderr, done.stderr
    return json.loads(done.stdout)


def test_pth_imports_nothing_at_start_up_and_only_adds_the_trigger(tmp_path: Path) -> None:
    assert _start_up(tmp_path) == {"modules": [], "finders": ["PoetoneLmEvalTrigger"]}


def test_off_switch_adds_nothing_at_all(tmp_path: Path) -> None:
    assert _start_up(tmp_path, POETONE_LM_EVAL_TASKS="0") == {"modules": [], "finders": []}


# --- the hook against a simulated lm-eval ------------------------------------------------------

_FAKE_INDEX = """
class TaskIndex:
    @staticmethod
    def build(paths):
        return [str(p) for p in paths]
"""

_FAKE_TASKS_OLD = """
from pathlib import Path
from lm_eval.tasks._index import TaskIndex

def plugin_paths():
    return []

def index():
    return TaskIndex.build([Path(__file__).parent, *plugin_paths()])
"""

#: An lm-eval that reads task plugins from the entry-point group of upstream PR #4015.
_FAKE_TASKS_NEW = _FAKE_TASKS_OLD.replace(
    "def plugin_paths():\n    return []",
    """def plugin_paths():
    import importlib.metadata
    return [Path(ep.load().__file__).parent for ep in importlib.metadata.entry_points(group="lm_eval.tasks")]""",
)


def _declared_lm_eval_tasks_entry_point() -> dict[str, str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return project["entry-points"].get("lm_eval.tasks", {})


def _fake_lm_eval(tmp_path: Path, tasks_init: str) -> Path:
    """A minimal lm-eval package, and poetone's metadata with its declared entry points."""
    root = tmp_path / "fake"
    (root / "lm_eval" / "tasks").mkdir(parents=True)
    (root / "lm_eval" / "__init__.py").write_text("", encoding="utf-8")
    (root / "lm_eval" / "tasks" / "__init__.py").write_text(tasks_init, encoding="utf-8")
    (root / "lm_eval" / "tasks" / "_index.py").write_text(_FAKE_INDEX, encoding="utf-8")
    dist_info = root / "poetone-0.1.0.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text("Metadata-Version: 2.1\nName: poetone\nVersion: 0.1.0\n", encoding="utf-8")
    lines = [f"{name} = {value}" for name, value in _declared_lm_eval_tasks_entry_point().items()]
    (dist_info / "entry_points.txt").write_text("[lm_eval.tasks]\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return root


def _index_through_hook(tmp_path: Path, tasks_init: str, **env: str) -> dict[str, object]:
    fake = _fake_lm_eval(tmp_path, tasks_init)
    code = f"""
        import json, site, sys
        site.addsitedir({str(_site_dir_with_pth(tmp_path))!r})  # as at start-up
        import lm_eval.tasks
        from lm_eval.tasks._index import TaskIndex
        print(json.dumps({{"paths": lm_eval.tasks.index(), "patched": getattr(TaskIndex.build, "_poetone", False)}}))
    """
    done = _python(code, tmp_path, "-B", PYTHONPATH=os.pathsep.join([str(fake), str(SRC)]), **env)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    result["paths"] = [str(Path(p).resolve()) for p in result["paths"]]
    result["lm_eval"] = str((fake / "lm_eval" / "tasks").resolve())
    return result


OURS = str((SRC / "poetone" / "lm_eval_tasks").resolve())


def test_pyproject_declares_the_lm_eval_tasks_entry_point() -> None:
    assert _declared_lm_eval_tasks_entry_point() == {"poetone": "poetone.lm_eval_tasks"}
    assert (SRC / "poetone" / "lm_eval_tasks" / "songci" / "songci_oneshot.yaml").is_file()


def test_hook_indexes_poetone_right_after_lm_eval_that_reads_no_entry_point(tmp_path: Path) -> None:
    result = _index_through_hook(tmp_path, _FAKE_TASKS_OLD)
    assert result["patched"] is True
    assert result["paths"] == [result["lm_eval"], OURS]


def test_hook_stands_down_for_lm_eval_that_reads_the_entry_point(tmp_path: Path) -> None:
    result = _index_through_hook(tmp_path, _FAKE_TASKS_NEW)
    assert result["patched"] is False  # lm-eval's own code is left alone
    assert result["paths"] == [result["lm_eval"], OURS]  # poetone's folder once, from the entry point


def test_off_switch_leaves_lm_eval_alone(tmp_path: Path) -> None:
    result = _index_through_hook(tmp_path, _FAKE_TASKS_OLD, POETONE_LM_EVAL_TASKS="0")
    assert result["patched"] is False
    assert result["paths"] == [result["lm_eval"]]


# --- end to end: a wheel and an editable install in a fresh venv --------------------------------


def _fresh_venv(tmp_path: Path) -> tuple[str, Path]:
    """A plain venv whose own site-packages comes first, then this environment's (read-only use)."""
    venv = tmp_path / "venv"
    made = _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp_path)
    assert made.returncode == 0, made.stderr
    py = str(venv / "bin" / "python")
    purelib = Path(
        _run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp_path).stdout.strip()
    )
    outer = [*site.getsitepackages(), site.getusersitepackages()]
    (purelib / "zz-outer-environment.pth").write_text("\n".join(p for p in outer if Path(p).is_dir()) + "\n")
    return py, purelib


def _hook_state(py: str, cwd: Path) -> dict[str, object]:
    """Importing lm-eval's task index: is the hook there, patched in, and where are poetone's tasks?"""
    code = f"""
        import json, os, sys
        import lm_eval.tasks._index as index
        hook = sys.modules.get({HOOK!r})
        tasks = hook.tasks_dir() if hook else None
        print(json.dumps({{"patched": getattr(index.TaskIndex.build, "_poetone", False),
                           "tasks": os.path.realpath(tasks) if tasks else None}}))
    """
    done = _run([py, "-c", textwrap.dedent(code)], cwd)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


@pytest.mark.slow
def test_fresh_venv_wheel_and_editable_install_tasks_visible_and_clean_uninstall(tmp_path: Path) -> None:
    checkout_before = _tree_state(ROOT)
    copy = _copy_project(tmp_path / "project")
    py, site_dir = _fresh_venv(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    # a built wheel
    wheels = tmp_path / "wheels"
    built = _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels), str(copy)],
        tmp_path,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    wheel = next(wheels.glob("poetone-*.whl"))
    inst = _run([py, "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], tmp_path)
    assert inst.returncode == 0, inst.stderr[-3000:]
    assert (site_dir / PTH).read_text() == (SRC / PTH).read_text()
    where = _run([py, "-c", "import poetone; print(poetone.__file__)"], elsewhere).stdout
    assert str(site_dir) in where, where

    listed = _run([py, "-m", "lm_eval", "ls", "tasks"], elsewhere)
    assert listed.returncode == 0, listed.stderr[-3000:]
    for name in SONGCI_TASKS:
        assert f"|{name} " in listed.stdout, name

    with OpenAIStub(
        lambda messages: (
            "平林漠漠烟如织，寒山一带伤心碧。暝色入高楼，有人楼上愁。\n玉阶空伫立，宿鸟归飞急。何处是归程？长亭连短亭。"
        )
    ) as stub:
        run = _run(
            [
                py, "-m", "lm_eval", "run", "--model", "local-chat-completions",
                "--model_args", f"model=stub,base_url={stub.base_url}/chat/completions,num_concurrent=2,max_retries=1,tokenized_requests=False",
                "--apply_chat_template", "--tasks", "songci_oneshot", "--metadata", '{"cipai": "菩萨蛮"}',
                "--output_path", str(elsewhere / "out"),
            ],
            elsewhere,
        )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads(next((elsewhere / "out").rglob("results_*.json")).read_text(encoding="utf-8"))
    assert results["results"]["songci_oneshot"]["conformity,none"] == pytest.approx(1.0)

    # Inspect finds the tasks and the reference model through the inspect_ai entry point
    inspected = _run(
        [py, "-m", "inspect_ai", "eval", "poetone/completion", "--model", "poetone/reference", "--limit", "3",
         "--log-dir", str(elsewhere / "logs"), "--display", "none"],
        elsewhere,
    )  # fmt: skip
    assert inspected.returncode == 0, inspected.stderr[-3000:]
    shown = _run([py, "-m", "inspect_ai", "log", "dump", str(next((elsewhere / "logs").glob("*.eval")))], elsewhere)
    log = json.loads(shown.stdout)
    assert log["status"] == "success" and log["eval"]["task"] == "poetone/completion"
    assert log["results"]["completed_samples"] == 3
    assert log["results"]["scores"][0]["metrics"]["mean"]["value"] > 0.9

    removed = _run([py, "-m", "pip", "uninstall", "-y", "poetone"], tmp_path)
    assert removed.returncode == 0, removed.stderr[-3000:]
    assert not (site_dir / PTH).exists()
    assert not (site_dir / f"{HOOK}.py").exists()
    assert _hook_state(py, elsewhere) == {"patched": False, "tasks": None}

    # an editable install of the same project keeps the hook
    editable = _run([py, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "-e", str(copy)], tmp_path)
    assert editable.returncode == 0, editable.stderr[-3000:]
    assert (site_dir / PTH).read_text() == (SRC / PTH).read_text()
    assert _hook_state(py, elsewhere) == {
        "patched": True,
        "tasks": str((copy / "src" / "poetone" / "lm_eval_tasks").resolve()),
    }
    removed = _run([py, "-m", "pip", "uninstall", "-y", "poetone"], tmp_path)
    assert removed.returncode == 0, removed.stderr[-3000:]
    assert not (site_dir / PTH).exists()

    assert _tree_state(ROOT) == checkout_before, "the install test must leave the checkout as it was"
