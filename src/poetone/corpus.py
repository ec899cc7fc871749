"""The canonical corpus: 120 authentic Song ci, six per cipai, one per theme.

The texts are quoted exactly as the 全宋词 (chinese-poetry edition) prints them, so the corpus can
serve as reference poems for the critic and as few-shot or comparison material for the tasks
without inheriting the invented poems of the official PoeTone release. The data card is
docs/corpus.md; the records live in ``poetone/data/corpus.jsonl``. ``write_hf`` writes the corpus
as a Hugging Face dataset folder (data file and dataset card), ready for ``push_to_hub``.

Each ``id`` names a slot of the cipai x theme grid (``<pinyin of the cipai>-<theme key>``). Where
the 全宋词 has no poem of a cipai on a theme, the slot holds the best remaining poem of that cipai:
its ``theme`` is then the poem's own theme (never the slot's) and ``substitution`` says so.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import lru_cache
from importlib import resources
from pathlib import Path
from string import Template
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # datasets is heavy: imported only inside load()
    import datasets

#: Theme key -> Chinese label, in corpus order.
THEMES: dict[str, str] = {
    "love_longing": "爱情与离愁",
    "patriotism_heroism": "爱国与豪情",
    "nature_landscape": "山水田园",
    "history_nostalgia": "怀古",
    "sorrow_grief": "悲伤与祭奠",
    "philosophical_reflection": "哲理",
}

#: Stable ids: the cipai's reading without tones (卜算子 bǔ, 清平乐 yuè), for ``{slug}-{theme}``.
SLUGS: dict[str, str] = {
    "浣溪沙": "huanxisha", "蝶恋花": "dielianhua", "念奴娇": "niannujiao", "水调歌头": "shuidiaogetou",
    "满江红": "manjianghong", "江城子": "jiangchengzi", "声声慢": "shengshengman", "虞美人": "yumeiren",
    "一剪梅": "yijianmei", "卜算子": "busuanzi", "青玉案": "qingyuan", "西江月": "xijiangyue",
    "临江仙": "linjiangxian", "定风波": "dingfengbo", "渔家傲": "yujiaao", "钗头凤": "chaitoufeng",
    "破阵子": "pozhenzi", "菩萨蛮": "pusaman", "清平乐": "qingpingyue", "点绛唇": "dianjiangchun",
}  # fmt: skip

#: The 20 cipai of the corpus, in corpus order.
CIPAI: tuple[str, ...] = tuple(SLUGS)

#: Field name -> allowed types, in the order every record is written.
FIELDS: dict[str, tuple[type, ...]] = {
    "id": (str,),
    "cipai": (str,),
    "poet": (str,),
    "title": (str,),
    "theme": (str,),
    "theme_label": (str,),
    "theme_note": (str,),
    "text": (str,),
    "variant": (str,),
    "source": (str,),
    "substitution": (str, type(None)),
}
OPTIONAL = frozenset({"substitution"})

_ID = re.compile(r"^[a-z]+-(" + "|".join(THEMES) + r")$")
_DATA = "data/corpus.jsonl"
_CARD = "data/corpus_card.md"
#: Where ``write_hf`` puts the rows, relative to its folder (the Hub's usual ``data/`` layout).
HF_DATA_FILE = "data/train.jsonl"


class CorpusError(ValueError):
    """A corpus line that does not follow the schema; the message names the line."""


def _validate(record: Any, where: str) -> dict[str, Any]:
    if not isinstance(record, dict):
        raise CorpusError(f"{where}: a record must be a JSON object")
    unknown = sorted(set(record) - set(FIELDS))
    if unknown:
        raise CorpusError(f"{where}: unknown field(s) {unknown}; expected {list(FIELDS)}")
    out: dict[str, Any] = {}
    for name, kinds in FIELDS.items():
        if name not in record:
            if name in OPTIONAL:
                out[name] = None
                continue
            raise CorpusError(f"{where}: missing field {name!r}")
        value = record[name]
        if not isinstance(value, kinds):
            raise CorpusError(
                f"{where}: field {name!r} must be {' or '.join(k.__name__ for k in kinds)}, got {type(value).__name__}"
            )
        if isinstance(value, str) and not value.strip():
            raise CorpusError(f"{where}: field {name!r} is empty")
        out[name] = value
    rid = out["id"]
    if out["cipai"] not in CIPAI:
        raise CorpusError(f"{where} ({rid}): cipai {out['cipai']!r} is not one of the corpus's 20")
    if out["theme"] not in THEMES:
        raise CorpusError(f"{where} ({rid}): theme {out['theme']!r} is not one of {list(THEMES)}")
    if out["theme_label"] != THEMES[out["theme"]]:
        raise CorpusError(f"{where} ({rid}): theme_label {out['theme_label']!r} should be {THEMES[out['theme']]!r}")
    if not _ID.match(rid):
        raise CorpusError(f"{where}: id {rid!r} is not '<pinyin of the cipai>-<theme key>'")
    slot = rid.split("-", 1)[1]
    if out["substitution"] is None and slot != out["theme"]:
        raise CorpusError(
            f"{where} ({rid}): theme {out['theme']!r} differs from the slot {slot!r} but no substitution is recorded"
        )
    if "\n\n" in out["text"] or out["text"] != out["text"].strip():
        raise CorpusError(f"{where} ({rid}): text must be stanzas separated by single newlines, no blank lines")
    return out


def _parse(lines: Iterable[str], origin: str) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{origin} line {n}"
        try:
            raw = json.loads(line)
        except json.JSONDecodeError as exc:
            raise CorpusError(f"{where}: not valid JSON ({exc.msg} at column {exc.colno})") from None
        record = _validate(raw, where)
        if record["id"] in seen:
            raise CorpusError(f"{where}: duplicate id {record['id']!r} (first on line {seen[record['id']]})")
        seen[record["id"]] = n
        records.append(record)
    return records


def load_records() -> list[dict[str, Any]]:
    """The corpus as a list of dicts, validated, in file order (cipai order, then theme slot).

    Read through importlib.resources so it works from a wheel or a zip as well as a checkout.
    """
    text = (resources.files("poetone") / _DATA).read_text(encoding="utf-8")
    return _parse(text.splitlines(), f"poetone/{_DATA}")


@lru_cache(maxsize=1)
def records_by_id() -> dict[str, dict[str, Any]]:
    """The corpus keyed by slot id (``{slug}-{theme}``), parsed once; treat it as read-only."""
    return {r["id"]: r for r in load_records()}


def resolve_cipai(name: str) -> str:
    if name in CIPAI:
        return name
    from poetone.metadata import load_cipai

    canonical = load_cipai().resolve(name)  # aliases and traditional script; raises UnknownCipaiError
    if canonical not in CIPAI:
        raise ValueError(f"cipai {canonical!r} is not in the corpus; it has {list(CIPAI)}")
    return canonical


def resolve_theme(theme: str) -> str:
    if theme in THEMES:
        return theme
    for key, label in THEMES.items():
        if theme == label:
            return key
    raise ValueError(f"unknown theme {theme!r}; expected one of {list(THEMES)} (or their labels)")


def load(cipai: str | None = None, theme: str | None = None) -> datasets.Dataset:
    """The corpus as a ``datasets.Dataset``, optionally only one cipai and/or one theme.

    ``cipai`` may be an alias (念奴娇 as 酹江月); ``theme`` a key or its label. A theme filter
    matches a poem's own theme, so a substituted slot is found under the theme it really has.
    """
    import datasets

    records = load_records()
    if cipai is not None:
        name = resolve_cipai(cipai)
        records = [r for r in records if r["cipai"] == name]
    if theme is not None:
        key = resolve_theme(theme)
        records = [r for r in records if r["theme"] == key]
    features = datasets.Features({name: datasets.Value("string") for name in FIELDS})
    columns = {name: [r[name] for r in records] for name in FIELDS}  # from_list rejects an empty list
    return datasets.Dataset.from_dict(columns, features=features)


def write_jsonl(path: str | Path) -> Path:
    """Write the validated corpus to ``path`` (one JSON object a line, UTF-8, unescaped Chinese)."""
    out = Path(path)
    out.write_text(_jsonl(load_records()), encoding="utf-8")
    return out


def _jsonl(records: Iterable[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def write_hf(out: str | Path) -> Path:
    """Write the corpus as a Hugging Face dataset folder: ``data/train.jsonl`` and ``README.md``,
    a dataset card in the Hub's format (YAML header with licence, languages, task categories,
    ``configs`` and ``dataset_info``; fields, themes, sources, licence, verification).

    ``datasets.load_dataset(out)`` loads it back with the declared features, and
    ``load_dataset(out).push_to_hub(repo)`` (or ``huggingface-cli upload repo out``) publishes it.
    ``out`` must not exist yet, or be an empty folder, so nothing of the user's is overwritten.
    """
    import yaml

    from poetone import __version__
    from poetone.critic import Critic

    folder = Path(out)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        what = "a file" if not folder.is_dir() else "a folder that is not empty"
        raise ValueError(f"{folder} is {what}: give a new or empty folder for the dataset")
    records = load_records()
    data = _jsonl(records)
    table = load()
    features = [{"name": name, "dtype": "string"} for name in FIELDS]
    header = {
        "license": "mit",
        "language": ["zh", "lzh"],
        "pretty_name": "PoeTone canonical Songci corpus",
        "size_categories": ["n<1K"],
        "task_categories": ["text-generation", "text-classification"],
        "tags": ["poetry", "classical-chinese", "songci", "ci-poetry", "song-dynasty"],
        "configs": [{"config_name": "default", "data_files": [{"split": "train", "path": HF_DATA_FILE}]}],
        "dataset_info": {
            "features": features,
            "splits": [{"name": "train", "num_bytes": table.data.nbytes, "num_examples": len(records)}],
            "download_size": len(data.encode("utf-8")),
            "dataset_size": table.data.nbytes,
        },
    }
    critic = Critic()
    mean_score = sum(critic.score(r["cipai"], r["text"]).conformity for r in records) / len(records)
    rows = []
    for key, label in THEMES.items():
        mine = [r for r in records if r["theme"] == key]
        stand_ins = sum(r["substitution"] is not None for r in mine)
        rows.append(f"| `{key}` | {label} | {len(mine)} | {stand_ins} |")
    card = Template((resources.files("poetone") / _CARD).read_text(encoding="utf-8")).substitute(
        yaml_header=yaml.safe_dump(header, allow_unicode=True, sort_keys=False).strip(),
        n=len(records),
        version=__version__,
        cipai=", ".join(f"{name} (`{SLUGS[name]}`)" for name in CIPAI),
        themes_table="\n".join(rows),
        substitutions=sum(r["substitution"] is not None for r in records),
        anthology=sum("宋词三百首" in r["source"] for r in records),
        poets=len({r["poet"] for r in records}),
        mean_score=f"{mean_score:.3f}",
    )
    (folder / "data").mkdir(parents=True, exist_ok=True)
    (folder / HF_DATA_FILE).write_text(data, encoding="utf-8")
    (folder / "README.md").write_text(card, encoding="utf-8")
    return folder
