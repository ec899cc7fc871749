"""The Songci eval set and the scoring of one answer: the one definition both adapters share.

lm-eval (``poetone.lm_eval_tasks``) and Inspect (``poetone.inspect_tasks``) only translate these
records and results into their frameworks' shapes.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace
from typing import Any

from poetone import prompts
from poetone._chars import VERSE
from poetone.critic import Critic
from poetone.extraction import Extraction, extract_poem
from poetone.metadata import Variant
from poetone.profiles import get_profile

COPY_THRESHOLD = 0.5
_VERSE = re.compile(f"[{VERSE}]")
_CLAUSE_END = re.compile(r"[，。？！；：、,.?!;:]")
_STANZA_NAMES = ("上阕", "下阕")


@dataclass(frozen=True, slots=True)
class SongciPrompt:
    """One prompt of the eval set, with what scoring needs to know about it."""

    id: str
    strategy: str
    cipai: str
    theme: str
    theme_label: str
    system: str
    user: str
    plain: str
    reference_id: str  # the corpus poem the prompt draws on (the example, or the given 上阕)
    upper: str = ""  # completion: the 上阕 given to the model
    original_lower: str = ""  # completion: the poet's own 下阕, to detect copying
    prompt_version: str = prompts.PROMPT_VERSION
    prompt_hash: str = ""
    band: str = ""  # the long-tail track: the tune's frequency band in the 全宋词 (poetone.longtail)
    rank: int = 0  # … and its rank

    def as_record(self) -> dict[str, Any]:
        return asdict(self)


def require_scorable(strategies: Iterable[str], profile: str) -> None:
    """Refuse, before anything is generated, a run whose profile cannot score a strategy's answers:
    ``poetone-code`` reproduces the official code, which scores whole poems, and a completion
    answer is a 下阕 alone (scored against the second stanza)."""
    if "completion" in strategies and get_profile(profile).literal_poetone:
        raise ValueError(
            f"profile {profile!r} scores whole poems only, and the completion strategy's answers are a 下阕 alone: "
            "leave completion out (zero_shot, one_shot, instruction, cot) or score it with profile 'default' or 'paper'"
        )


def split_stanzas(text: str, critic: Critic, cipai: str, variant: str | None = None) -> tuple[str, str]:
    """(上阕, 下阕) of a corpus poem, punctuation kept: lines if the text has two, else by clause count."""
    lines = [ln for ln in text.strip().split("\n") if ln.strip()]
    if len(lines) == 2:
        return lines[0], lines[1]
    v = critic.registry[cipai].variant(variant) if variant else critic.registry[cipai].variants[0]
    n_upper = len(v.stanzas[0])
    flat = text.replace("\n", "")
    for count, m in enumerate(_CLAUSE_END.finditer(flat), start=1):
        if count == n_upper:
            return flat[: m.end()], flat[m.end() :]
    raise ValueError(f"cannot find the 上阕 of a {cipai} poem with {n_upper} clauses in its first stanza: {text[:20]}…")


def stanza_name(index: int, stanzas: int) -> str:
    """What a stanza is called: 上阕 and 下阕 of a 双调 form, 第一段 … of a 三段 or 四段 one, 全词 of a one-stanza form."""
    if stanzas == 1:
        return "全词"
    if stanzas == 2:
        return _STANZA_NAMES[index]
    return f"第{'一二三四五六七八九'[index] if index < 9 else index + 1}段"


def render_rules(variant: Variant) -> str:
    """The form stated as rules, for the instruction prompt."""
    out = []
    for si, stanza in enumerate(variant.stanzas):
        name = stanza_name(si, len(variant.stanzas))
        # a form whose 段 the 词谱 does not mark, and that could not be inferred, is stated whole
        unsplit = "（分段未能推定）" if len(variant.stanzas) == 1 and "分段未能推定" in variant.label else ""
        out.append(f"{name}共{len(stanza)}句，{sum(line.length for line in stanza)}字{unsplit}：")
        for li, line in enumerate(stanza, start=1):
            if line.rhymed:
                kind = "换韵" if line.end == "换" else "押韵"
                end = f"{kind}（韵{line.segment}，{line.rhyme_tone}声韵）"
            elif line.end == "读":
                end = "逗（句中停顿，不押韵）"
            else:
                end = "不押韵"
            repeat = "，叠上句" if line.repeat else ""
            out.append(f"  第{li}句：{line.length}字，平仄 {line.tones}，{end}{repeat}")
    return "\n".join(out)


def build_eval_set(
    strategies: Iterable[str] = prompts.STRATEGIES,
    cipai: str | Iterable[str] | None = None,
    theme: str | Iterable[str] | None = None,
    critic: Critic | None = None,
) -> list[SongciPrompt]:
    """20 cipai × 6 themes = 120 prompts per strategy, ids ``{strategy}-{cipai slug}-{theme}``."""
    from poetone import corpus

    critic = critic or Critic()
    records = corpus.load_records()
    themes = list(corpus.THEMES)
    # a record's slot is its id's theme: a substituted poem keeps its own theme but fills the slot
    by_cell = {(r["cipai"], r["id"].rsplit("-", 1)[1]): r for r in records}
    wanted_cipai = _as_set(cipai, critic)
    # a theme is its key or its Chinese label (哲理); corpus.resolve_theme names the valid ones
    wanted_theme = None if theme is None else {corpus.resolve_theme(t) for t in ([theme] if isinstance(theme, str) else theme)}
    digest = prompts.prompt_hash()
    out = []
    for strategy in strategies:
        if strategy not in prompts.STRATEGIES:
            raise ValueError(f"unknown strategy {strategy!r}; expected one of {prompts.STRATEGIES}")
        # the corpus's 20 cipai, then any other tune asked for by name (zero-shot prompts need no corpus poem)
        beyond = sorted(wanted_cipai - set(corpus.CIPAI)) if wanted_cipai is not None else []
        for name in (*corpus.CIPAI, *beyond):
            if wanted_cipai is not None and name not in wanted_cipai:
                continue
            if name not in corpus.SLUGS:
                if strategy not in STRATEGIES_WITHOUT_A_POEM:
                    raise ValueError(
                        f"strategy {strategy!r} needs a corpus poem of {name}, and the corpus has poems of its 20 "
                        f"cipai only ({', '.join(corpus.CIPAI[:3])}, …): use one of {STRATEGIES_WITHOUT_A_POEM} for {name}"
                    )
                out.extend(_prompt_without_poem(strategy, name, th, digest, critic) for th in themes if wanted_theme is None or th in wanted_theme)
                continue
            for ti, th in enumerate(themes):
                if wanted_theme is not None and th not in wanted_theme:
                    continue
                cell = by_cell[(name, th)]
                fields: dict[str, str] = {}
                upper = lower = ""
                reference = cell
                if strategy == "one_shot":
                    reference = by_cell[(name, themes[(ti + 1) % len(themes)])]
                    fields.update(example_poet=reference["poet"], example_text=reference["text"])
                elif strategy == "completion":
                    upper, lower = split_stanzas(cell["text"], critic, name, cell.get("variant"))
                    fields["upper"] = upper
                elif strategy == "instruction":
                    fields["rules"] = render_rules(critic.registry[name].variants[0])
                out.append(
                    make_prompt(
                        f"{strategy}-{cell['id'].rsplit('-', 1)[0]}-{th}", strategy, name, th, digest, fields,
                        reference_id=reference["id"], upper=upper, original_lower=lower,
                    )
                )
    return out


#: Strategies whose prompt names the tune and the theme only, so any cipai of the resource can be asked.
STRATEGIES_WITHOUT_A_POEM = ("zero_shot", "instruction", "cot")


def _prompt_without_poem(strategy: str, name: str, theme: str, digest: str, critic: Critic) -> SongciPrompt:
    """A prompt for a cipai the corpus has no poem of (``reference_id`` empty): its id is
    ``{strategy}-{cipai}-{theme}``; the instruction prompt states its 正体's rules."""
    fields = {"rules": render_rules(critic.registry[name].variants[0])} if strategy == "instruction" else {}
    return make_prompt(f"{strategy}-{name}-{theme}", strategy, name, theme, digest, fields, reference_id="")


def make_prompt(
    prompt_id: str,
    strategy: str,
    cipai: str,
    theme: str,
    digest: str,
    fields: dict[str, str] | None = None,
    template: str | None = None,
    **extra: Any,
) -> SongciPrompt:
    """One prompt: the strategy's template (or ``template``'s) filled with the cipai, the theme's
    label and ``fields``; ``extra`` sets the record's other fields (reference_id, upper, band, …)."""
    from poetone import corpus

    label = corpus.THEMES[theme]
    user = prompts.user_message(template or strategy, cipai=cipai, theme_label=label, **(fields or {}))
    return SongciPrompt(
        id=prompt_id,
        strategy=strategy,
        cipai=cipai,
        theme=theme,
        theme_label=label,
        system=prompts.SYSTEM,
        user=user,
        plain=prompts.plain_prompt(prompts.SYSTEM, user),
        prompt_hash=digest,
        **extra,
    )


def _as_set(cipai: str | Iterable[str] | None, critic: Critic) -> set[str] | None:
    if cipai is None:
        return None
    names = [cipai] if isinstance(cipai, str) else list(cipai)
    return {critic.registry.resolve(n) for n in names}


def _verse_chars(text: str) -> str:
    return "".join(_VERSE.findall(text))


def strip_given_upper(poem: str, upper: str) -> str:
    """Drop the given 上阕 when the answer repeats it before its own 下阕."""
    want = _verse_chars(upper)
    if not want or _verse_chars(poem)[: len(want)] != want:
        return poem
    seen = 0
    for i, ch in enumerate(poem):
        if _VERSE.match(ch):
            seen += 1
            if seen == len(want):
                return poem[i + 1 :].lstrip("，。？！；：、,.?!;: \n")
    return poem


def copy_overlap(lower: str, original: str) -> float:
    """Share of the original 下阕's characters (as a multiset) that the answer reuses."""
    ours, theirs = Counter(_verse_chars(lower)), Counter(_verse_chars(original))
    total = sum(theirs.values())
    return sum((ours & theirs).values()) / total if total else 0.0


def read_answer(prompt: dict[str, Any], answer: str) -> tuple[Extraction, float]:
    """The one reading of a model's answer: the poem the critic scores and the judge reads.

    For completion the given 上阕 is stripped where the answer repeats it, leaving the model's
    下阕, and the second value is the share of the poet's own 下阕, or of the given 上阕, that it
    reuses (the larger; 0.0 for other strategies).
    """
    extraction = extract_poem(answer or "", prompt["cipai"])
    if prompt["strategy"] != "completion" or not extraction.valid:
        return extraction, 0.0
    lower = strip_given_upper(extraction.poem, prompt.get("upper", ""))
    if not _verse_chars(lower):
        return Extraction("", False, "the answer repeats the given 上阕 and writes no 下阕"), 0.0
    # a copy of the poet's own 下阕, or of the given 上阕 written again as the 下阕, is no new 下阕
    overlap = max(copy_overlap(lower, prompt.get("original_lower", "")), copy_overlap(lower, prompt.get("upper", "")))
    return replace(extraction, poem=lower), overlap


def score_answer(
    prompt: SongciPrompt | dict[str, Any], answer: str, critic: Critic, diagnostics: bool = True
) -> dict[str, Any]:
    """Metrics and diagnostics of one model answer. An answer with no poem is invalid and scores 0.

    ``diagnostics=False`` skips the rendering and the per-character details (most of the cost)
    where only the numbers are wanted, as in a reward.
    """
    p = prompt if isinstance(prompt, dict) else prompt.as_record()
    strategy, cipai = p["strategy"], p["cipai"]
    extraction, overlap = read_answer(p, answer)
    copied = strategy == "completion" and overlap >= COPY_THRESHOLD
    stanza = 1 if strategy == "completion" else None
    result = critic.score_extraction(cipai, extraction, stanza=stanza)  # decides validity
    valid = result.valid
    scores = {k: (getattr(result, k) if valid and not copied else 0.0) for k in ("conformity", "structure", "tonal", "rhyme")}
    poem = extraction.poem
    out: dict[str, Any] = {
        **scores,
        "invalid": 0.0 if valid else 1.0,
        "valid": valid,
        "poem": poem if extraction.valid else "",
        "variant": result.variant if valid else None,
        "scored_cipai": result.cipai,  # the tune ``variant`` is of: a 同名异调 title's is the tune the poem follows
        "reason": result.reason,
        "profile": critic.profile.name,
        "prompt_version": p.get("prompt_version", prompts.PROMPT_VERSION),
        "prompt_hash": p.get("prompt_hash", ""),
    }
    if strategy == "completion":
        out["copied"] = 1.0 if copied else 0.0
        out["copy_overlap"] = round(overlap, 4)
    if strategy == "cot":
        out["analysis"] = _analysis_of(answer or "")
    if valid and diagnostics:
        out["rendering"] = result.render()
        out["details"] = result.details()
    return out


def _analysis_of(answer: str) -> str:
    """The CoT analysis part, kept for the log (it is never scored)."""
    m = re.search(r"【分析】(.*?)(?:【作品】|$)", answer, re.S)
    return m.group(1).strip() if m else ""
