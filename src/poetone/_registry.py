"""Inspect's entry point (``[project.entry-points.inspect_ai] poetone``): importing this module
registers poetone's tasks, scorers and the ``poetone/reference`` model provider."""

from poetone.inspect_tasks import *  # noqa: F403
from poetone.inspect_tasks.bazi import bazi, bazi_verified  # noqa: F401
from poetone.inspect_tasks.reference_model import ReferenceModel  # noqa: F401
