"""Human evaluation: the poetic Turing test of the PoeTone paper, as a small web app.

Annotators see a generated poem beside the canonical poem of the same cipai and theme, say which
is by a human and how sure they are, and after the reveal rate the generated poem. The pieces:

- ``pairs``: the pairs (top poems per model by conformity, or all) and each annotator's order;
- ``db``: the SQLite study file (WAL; every answer committed at once);
- ``app``: the Starlette app (Jinja2 templates, Chinese UI, CSRF-protected forms);
- ``stats``: identification rates, mean ratings, Krippendorff's alpha;
- ``cli``: ``poetone human-eval serve | export | stats``.

``pairs``, ``db`` and ``stats`` need only the core install; ``app`` and ``serve`` need the
``poetone[human-eval]`` extra (Starlette, Jinja2, uvicorn).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

#: Default number of pairs per model (the best poems by conformity).
DEFAULT_TOP = 20

# Imported on first use, so that ``poetone``'s parser can register ``human-eval`` without loading
# the critic, the logs reader and numpy on every command.
_LAZY = {
    "Database": "db",
    "StudyError": "db",
    "Pair": "pairs",
    "PairSelection": "pairs",
    "assign": "pairs",
    "build_pairs": "pairs",
    "pairs_from_logs": "pairs",
    "krippendorff_alpha": "stats",
    "study_stats": "stats",
}

__all__ = ["DEFAULT_TOP", *_LAZY]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(f"poetone.human_eval.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'poetone.human_eval' has no attribute {name!r}")
