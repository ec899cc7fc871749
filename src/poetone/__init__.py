"""poetone: Songci (宋词) evaluation for lm-evaluation-harness and Inspect.

The core (critic, prosody, cipai resource) knows nothing of either framework; the adapters live
in ``poetone.lm_eval_tasks`` and ``poetone.inspect_tasks``.
"""

from poetone.critic import Critic, CriticResult
from poetone.metadata import Cipai, CipaiRegistry, MetadataError, UnknownCipaiError, Variant, load_cipai

__version__ = "0.1.0"

__all__ = [
    "Cipai",
    "CipaiRegistry",
    "Critic",
    "CriticResult",
    "MetadataError",
    "UnknownCipaiError",
    "Variant",
    "__version__",
    "load_cipai",
]
