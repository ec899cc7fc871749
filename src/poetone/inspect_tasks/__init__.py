"""The Inspect adapter: tasks, scorers and the reference model provider.

Registered through the ``inspect_ai`` entry point (``poetone._registry``), so after
``pip install poetone`` the tasks are ``poetone/zero_shot`` … ``poetone/cot``, ``poetone/songci``,
``poetone/longtail`` and ``poetone/judge_calibration``, and the model ``poetone/reference``. Everything Songci-specific
comes from the framework-free core (``poetone.songci``, ``poetone.judge``); this package only
translates it into Inspect's shapes.
"""

from poetone.inspect_tasks.calibration import judge_calibration
from poetone.inspect_tasks.judge import songci_judge
from poetone.inspect_tasks.scorers import conformity
from poetone.inspect_tasks.tasks import completion, cot, instruction, longtail, one_shot, songci, zero_shot

__all__ = [
    "completion",
    "conformity",
    "cot",
    "instruction",
    "judge_calibration",
    "longtail",
    "one_shot",
    "songci",
    "songci_judge",
    "zero_shot",
]
