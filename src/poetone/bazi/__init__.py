"""BaZi (八字) multiple choice: the framework-free core of the BaZi tasks.

After the BaZi2500 benchmark (Li & Huang, arXiv 2610.05682): Chinese four-option questions in
two families, Theory and Case, answered zero-shot with one letter. This package holds what both
adapters (``poetone.lm_eval_tasks.bazi``, ``poetone.inspect_tasks.bazi``) share:

- ``data``: the loader of a released item file, tolerant of field-name variants;
- ``prompt``: the zero-shot prompt; ``parse``: the answer letter, or invalid;
- ``tables`` and ``rules``: 五行, 纳音, 十二长生, 十神, branch relations, 旬空, the four pillars;
- ``verified``: the rule-verified item set, correct by construction;
- ``report``: per-category accuracy, Theory−Case gap, McNemar with Holm, from the logs;
- ``cli``: ``poetone bazi items`` and ``poetone bazi report``.

Only chart construction needs lunar-python (for the moments of the solar terms).
"""

from poetone.bazi.data import BaziDataError, load_items, read_items
from poetone.bazi.parse import parse_answer, score_reply
from poetone.bazi.prompt import format_prompt

__all__ = ["BaziDataError", "format_prompt", "load_items", "parse_answer", "read_items", "score_reply"]
