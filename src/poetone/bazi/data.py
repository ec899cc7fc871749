"""Loading the BaZi2500 items (or any item file of the same shape) into one canonical record.

BaZi2500 (Li & Huang, arXiv 2610.05682) is CC BY-NC and not shipped: the user passes a local
JSON / JSONL / Parquet / CSV file, a folder of them, or a hub dataset id (``datasets.load_dataset``).
Releases differ in field names, so each canonical field is looked up under the aliases of
``FIELD_ALIASES`` (case, spaces, ``-`` and ``_`` ignored); the first alias present wins. The
canonical record::

    {"id": str, "task": "theory" | "case", "category": str, "question": str, "context": str,
     "options": [four str], "answer": "A" | "B" | "C" | "D", "source": str, "hash": str,
     "extra": {other fields}}

- options: a list of four, a mapping ``{"A": …, "D": …}``, one string ``"A. … B. … C. … D. …"``,
  or four columns (``A``–``D``, ``option_a``–``option_d``, ``optionA``–``optionD``, ``choice_a``…);
  a leading label that repeats the option's own letter with a separator or brackets ("A. 海中金",
  "(A)海中金") is dropped; a bare letter is text ("Apple", "A股").
- answer: a letter (``"B"``, ``"(B)"``, ``"B."``, full-width ``"Ｂ"``), an index 0–3 (an integer, or
  text such as a CSV's ``"1"``), or the exact text of one option; text that is both an index and
  another option's text is refused as ambiguous.
- files: UTF-8 with or without a BOM; JSONL is split on ``\n`` alone (U+2028 and the like inside a
  string are not line breaks), and a last line cut off before its newline is skipped with a warning.
- task: ``theory``/``case`` (also ``Theory``, ``理论``, ``案例``); when a record has none, the file
  name, the JSON key holding the list, or the hub split name decides (``theory.jsonl``).
- ``category_zh``, ``rule``, ``params`` (poetone's verified items) are kept; any other field goes
  to ``extra``, which the logs keep.

A missing or malformed source or record raises ``BaziDataError`` naming the file and the row.
Ids must be unique within a family; ids repeated across the two families become ``theory/…``,
``case/…``; a record without an id gets ``{file stem}-{row}``.
"""

from __future__ import annotations

import csv
import hashlib
import json
import re
import unicodedata
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from poetone.bazi.parse import LETTERS

FILE_SUFFIXES: tuple[str, ...] = (".jsonl", ".json", ".parquet", ".csv")

#: canonical field → accepted names, in order of preference.
FIELD_ALIASES: dict[str, tuple[str, ...]] = {
    "id": ("id", "qid", "question_id", "item_id", "uid", "_id", "idx", "index", "编号"),
    "question": ("question", "prompt", "stem", "query", "problem", "题目", "问题"),
    "context": ("context", "chart", "case", "case_text", "background", "scenario", "passage", "bazi", "命盘", "背景"),
    "options": ("options", "choices", "candidates", "option_list", "选项"),
    "answer": ("answer", "label", "key", "correct", "gold", "answer_key", "correct_answer", "target", "答案"),
    "task": ("task", "split", "family", "subset", "group", "题型"),
    "category": ("category", "type", "subcategory", "sub_category", "subtype", "topic", "类别"),
}
#: column quadruples that hold the four options one by one.
OPTION_COLUMNS: tuple[tuple[str, str, str, str], ...] = (
    ("A", "B", "C", "D"),
    ("option_a", "option_b", "option_c", "option_d"),
    ("optiona", "optionb", "optionc", "optiond"),
    ("choice_a", "choice_b", "choice_c", "choice_d"),
    ("option_1", "option_2", "option_3", "option_4"),
)
#: JSON keys that may hold the list of records in a ``.json`` file.
LIST_KEYS: tuple[str, ...] = ("data", "items", "questions", "records", "examples", "rows")
#: fields of poetone's own item files (``poetone bazi items``) kept as they are.
PASSTHROUGH: tuple[str, ...] = ("category_zh", "rule", "params")
TASK_VALUES: dict[str, str] = {
    "theory": "theory", "theoretical": "theory", "theory questions": "theory", "理论": "theory", "理论题": "theory",
    "case": "case", "cases": "case", "case study": "case", "case questions": "case", "案例": "case", "案例题": "case",
}  # fmt: skip

#: An option's own label: a bracketed letter ("(A)", "【A】") or a letter with a separator ("A.", "A、",
#: "A)", "A："); a bare letter is the option's text ("Apple", "A股"), and so is "A.I.".
_LABEL = re.compile(
    r"^\s*(?:[(\[（【]\s*([A-Da-d])\s*[)\]）】]|([A-Da-d])\s*(?:[)\]）】]|[.．。、:：](?![A-Za-z]\.)))\s*[.．。、:：]?\s*"
)
_INLINE_OPTIONS = re.compile(r"(?:^|\s)[(（]?([A-D])[)）]?\s*[.．、:：]\s*")
_KEY_LETTER = re.compile(r"^[(\[（【]?\s*([A-Da-d])\s*[)\]）】]?\s*[.．。、:：]?$")
_INDEX = re.compile(r"^\d+(?:\.0+)?$")  # "1", and "1.0" as pandas writes an integer column with gaps


class BaziDataError(ValueError):
    """An item source or record that cannot be used, with the file and row named."""


def missing_source(task: str, how: str) -> str:
    """The error for a task run without its data: what is missing and how to pass it."""
    return (
        f"{task} needs the BaZi2500 items, which are not shipped with poetone (CC BY-NC): pass them with {how} "
        "(a JSON, JSONL, Parquet or CSV file, a folder of them, or a hub dataset id); "
        "the rule-verified set (bazi_verified) needs no data"
    )


def _norm(name: str) -> str:
    return re.sub(r"[\s_\-]+", "_", str(name).strip().lower())


def _field(record: Mapping[str, Any], canonical: str) -> tuple[str | None, Any]:
    keys = {_norm(k): k for k in record}
    for alias in FIELD_ALIASES[canonical]:
        key = keys.get(_norm(alias))
        if key is not None and record[key] not in (None, ""):
            return key, record[key]
    return None, None


def task_from_name(name: str) -> str | None:
    """``theory``/``case`` from a file name, JSON key or split name, when it says so."""
    low = name.lower()
    found = {v for k, v in TASK_VALUES.items() if k in low}
    return found.pop() if len(found) == 1 else None


def _task(value: Any) -> str | None:
    text = unicodedata.normalize("NFKC", str(value)).strip().lower()
    return TASK_VALUES.get(text) or TASK_VALUES.get(text.replace("_", " "))


def _strip_label(text: str, letter: str) -> str:
    m = _LABEL.match(text)
    if m and (m.group(1) or m.group(2)).upper() == letter and m.end() < len(text):
        return text[m.end() :].strip()
    return text.strip()


def _options(record: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """The four options and the keys they came from; raises ValueError with what was found."""
    key, value = _field(record, "options")
    if key is not None:
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                parts = _INLINE_OPTIONS.split(value)
                # split gives [before, "A", text, "B", text, …]: keep it only when the letters are A B C D in order
                if parts[1::2] == list(LETTERS):
                    value = [p.strip() for p in parts[2::2]]
                else:
                    raise ValueError(f"field {key!r} is a string that is not 'A. … B. … C. … D. …'") from None
        if isinstance(value, Mapping):
            upper = {str(k).strip().upper(): v for k, v in value.items()}
            if set(upper) != set(LETTERS):
                raise ValueError(f"field {key!r} maps {sorted(upper)}, expected the letters A, B, C, D")
            value = [upper[letter] for letter in LETTERS]
        if not isinstance(value, (list, tuple)) and hasattr(value, "tolist"):
            value = value.tolist()
        if not isinstance(value, (list, tuple)):
            raise ValueError(f"field {key!r} is a {type(value).__name__}, expected a list of four options")
        if len(value) != 4:
            raise ValueError(f"field {key!r} has {len(value)} options, expected 4")
        used = [key]
    else:
        keys = {_norm(k): k for k in record}
        for columns in OPTION_COLUMNS:
            found = [keys.get(_norm(c)) for c in columns]
            if all(found):
                value, used = [record[k] for k in found], [k for k in found if k]
                break
        else:
            names = ", ".join(FIELD_ALIASES["options"])
            raise ValueError(f"no options: expected one of the fields {names}, or columns A–D / option_a–option_d")
    options = []
    for letter, option in zip(LETTERS, value):
        if option is None or (isinstance(option, str) and not option.strip()):
            raise ValueError(f"option {letter} is empty")
        options.append(_strip_label(str(option), letter))
    if len(set(options)) != 4:
        raise ValueError(f"the four options are not distinct: {options}")
    return options, used


def _answer(value: Any, options: list[str]) -> str:
    if isinstance(value, bool):
        raise ValueError(f"answer {value!r} is not a letter A–D, an index 0–3 or an option's text")
    if isinstance(value, int) or (hasattr(value, "item") and isinstance(value.item(), int)):
        index = int(value)
        if 0 <= index < 4:
            return LETTERS[index]
        raise ValueError(f"answer index {index} is out of range 0–3")
    text = unicodedata.normalize("NFKC", str(value)).strip()
    if m := _KEY_LETTER.match(text):
        return m.group(1).upper()
    matches = [letter for letter, option in zip(LETTERS, options) if option == text]
    if _INDEX.match(text):  # an index written as text: every CSV cell, some JSON files
        index = int(float(text))
        if not 0 <= index < 4:
            raise ValueError(f"answer index {text!r} is out of range 0–3")
        if matches and matches != [LETTERS[index]]:
            raise ValueError(
                f"answer {value!r} is ambiguous: index {index} is option {LETTERS[index]}, "
                f"but it is also the text of option {', '.join(matches)}"
            )
        return LETTERS[index]
    if len(matches) == 1:
        return matches[0]
    raise ValueError(f"answer {value!r} is not a letter A–D, an index 0–3 or the text of one option")


def normalise_record(
    record: Mapping[str, Any], *, default_task: str | None = None, default_id: str = ""
) -> dict[str, Any]:
    """One raw record in the canonical shape; ValueError says what is missing or malformed."""
    if not isinstance(record, Mapping):
        raise ValueError(f"a record must be an object, got {type(record).__name__}")
    used: list[str | None] = []
    key, question = _field(record, "question")
    if key is None or not str(question).strip():
        raise ValueError(f"no question: expected one of the fields {', '.join(FIELD_ALIASES['question'])}")
    used.append(key)
    context_key, context = _field(record, "context")
    used.append(context_key)
    options, option_keys = _options(record)
    used += option_keys
    answer_key, answer = _field(record, "answer")
    if answer_key is None:
        raise ValueError(f"no answer key: expected one of the fields {', '.join(FIELD_ALIASES['answer'])}")
    used.append(answer_key)
    task_key, task_value = _field(record, "task")
    task = _task(task_value) if task_key else default_task
    if task_key and task is None:
        raise ValueError(f"{task_key}={task_value!r} is neither theory nor case")
    if task is None:
        raise ValueError(
            f"no family: expected one of the fields {', '.join(FIELD_ALIASES['task'])} (theory|case), "
            "or a file/split name that contains theory or case"
        )
    used.append(task_key)
    category_key, category = _field(record, "category")
    if category_key is None:
        raise ValueError(f"no category: expected one of the fields {', '.join(FIELD_ALIASES['category'])}")
    used.append(category_key)
    id_key, item_id = _field(record, "id")
    used.append(id_key)
    aliases = {_norm(a) for names_ in FIELD_ALIASES.values() for a in names_}
    extra = {
        str(k): _jsonable(v)
        for k, v in record.items()
        if k not in used and k not in PASSTHROUGH and k != "hash" and not (_norm(k) in aliases and v in (None, ""))
    }
    return {
        **{k: _jsonable(record[k]) for k in PASSTHROUGH if k in record},
        "id": str(item_id) if id_key else default_id,
        "task": task,
        "category": str(category).strip(),
        "question": str(question).strip(),
        "context": str(context).strip() if context_key else "",
        "options": options,
        "answer": _answer(answer, options),
        "extra": extra,
    }


def _jsonable(value: Any) -> Any:
    if hasattr(value, "tolist"):
        value = value.tolist()
    try:
        json.dumps(value, ensure_ascii=False)
        return value
    except (TypeError, ValueError):
        return str(value)


# ---------------------------------------------------------------------------- sources


def _read_file(path: Path) -> list[tuple[int, dict[str, Any], str | None]]:
    """(row number, raw record, family implied by where the record sat) of one file."""
    implied = task_from_name(path.stem)
    suffix = path.suffix.lower()
    try:
        if suffix == ".jsonl":
            return _jsonl_rows(path, implied)
        if suffix == ".json":
            try:
                data = json.loads(path.read_text(encoding="utf-8-sig"))
            except ValueError as exc:
                raise BaziDataError(f"{path}: malformed JSON ({exc})") from None
            return _json_rows(path, data, implied)
        if suffix == ".parquet":
            import pyarrow.parquet as pq

            return [(n, r, implied) for n, r in enumerate(pq.read_table(path).to_pylist(), start=1)]
        if suffix == ".csv":
            with path.open(encoding="utf-8-sig", newline="") as f:  # Excel's BOM is not part of the first name
                return [(n, dict(r), implied) for n, r in enumerate(csv.DictReader(f), start=2)]
    except (OSError, UnicodeDecodeError) as exc:
        raise BaziDataError(f"{path}: cannot be read ({exc})") from None
    except BaziDataError:
        raise
    except Exception as exc:  # e.g. a torn Parquet file: name it
        raise BaziDataError(f"{path}: cannot be read as {suffix[1:]} ({type(exc).__name__}: {exc})") from None
    raise BaziDataError(f"{path}: unsupported file type {suffix!r}; expected one of {', '.join(FILE_SUFFIXES)}")


def _jsonl_rows(path: Path, implied: str | None) -> list[tuple[int, dict[str, Any], str | None]]:
    """The records of a JSONL file, split on "\\n" alone: ``str.splitlines()`` also breaks at U+2028,
    U+2029, U+0085 and \\x1c–\\x1e, which JSON writers leave raw inside strings. A last line cut off
    before its newline (a writer stopped mid-record) is skipped with a warning; any other malformed
    line is an error naming it."""
    text = path.read_bytes().decode("utf-8-sig")
    lines = text.split("\n")
    rows = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            rows.append((number, json.loads(line, strict=False), implied))
        except ValueError as exc:
            if number == len(lines):  # no newline after it: torn
                warnings.warn(f"{path}: line {number} is cut off (malformed JSON, no newline): skipped", stacklevel=4)
                continue
            raise BaziDataError(f"{path}: line {number}: malformed JSON ({exc})") from None
    return rows


def _json_rows(path: Path, data: Any, implied: str | None) -> list[tuple[int, dict[str, Any], str | None]]:
    if isinstance(data, list):
        return [(n, r, implied) for n, r in enumerate(data, start=1)]
    if isinstance(data, dict):
        for key in LIST_KEYS:
            if isinstance(data.get(key), list):
                return [(n, r, implied) for n, r in enumerate(data[key], start=1)]
        lists = {k: v for k, v in data.items() if isinstance(v, list)}
        if lists and all(task_from_name(k) for k in lists):  # {"theory": [...], "case": [...]}
            rows, number = [], 0
            for key, records in lists.items():
                for r in records:
                    number += 1
                    rows.append((number, r, task_from_name(key)))
            return rows
    raise BaziDataError(
        f"{path}: expected a list of records, an object with one of {', '.join(LIST_KEYS)}, "
        'or an object {"theory": [...], "case": [...]}'
    )


def _hub_rows(source: str, hub_split: str | None) -> list[tuple[int, dict[str, Any], str | None, str]]:
    try:
        import datasets

        loaded = datasets.load_dataset(source, split=hub_split) if hub_split else datasets.load_dataset(source)
    except Exception as exc:
        raise BaziDataError(
            f"{source}: no such file or folder, and it could not be loaded as a hub dataset "
            f"({type(exc).__name__}: {str(exc)[:300]})"
        ) from None
    splits = {hub_split: loaded} if hub_split else dict(loaded)
    rows = []
    for name, split in splits.items():
        implied = task_from_name(str(name))
        rows += [(n, dict(r), implied, f"{source}[{name}]") for n, r in enumerate(split, start=1)]
    return rows


def read_items(source: str | Path, hub_split: str | None = None) -> list[dict[str, Any]]:
    """Every item of a file, a folder of files or a hub dataset, canonical and checked."""
    if source is None or str(source).strip() == "":
        raise BaziDataError("no item source given: pass a JSON/JSONL/Parquet/CSV file, a folder or a hub dataset id")
    path = Path(str(source)).expanduser()
    rows: list[tuple[int, Any, str | None, str]] = []
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() in FILE_SUFFIXES)
        if not files:
            raise BaziDataError(f"{path}: the folder holds no {', '.join(FILE_SUFFIXES)} file")
        for f in files:
            rows += [(n, r, t, str(f)) for n, r, t in _read_file(f)]
    elif path.is_file():
        rows = [(n, r, t, str(path)) for n, r, t in _read_file(path)]
    elif path.suffix.lower() not in FILE_SUFFIXES and re.fullmatch(r"[\w.\-]+(/[\w.\-]+)?", str(source)):
        rows = _hub_rows(str(source), hub_split)  # "owner/name": a hub dataset id
    else:
        raise BaziDataError(f"{source}: no such file or folder")
    if not rows:
        raise BaziDataError(f"{source}: no records")
    items: list[dict[str, Any]] = []
    for number, record, implied, origin in rows:
        stem = Path(origin).stem if "[" not in origin else origin.rsplit("[", 1)[-1].rstrip("]")
        try:
            item = normalise_record(record, default_task=implied, default_id=f"{stem}-{number}")
        except ValueError as exc:
            ident = _field(record, "id")[1] if isinstance(record, Mapping) else None
            where = f"row {number}" + (f" (id {ident})" if ident not in (None, "") else "")
            raise BaziDataError(f"{origin}: {where}: {exc}") from None
        item["source"] = f"{origin}#{number}"
        item["hash"] = item_hash(item)
        items.append(item)
    return _unique_ids(items)


def _unique_ids(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: dict[tuple[str, str], str] = {}
    families: dict[str, set[str]] = {}
    for item in items:
        key = (item["task"], item["id"])
        if key in seen:
            raise BaziDataError(
                f"{item['source']}: id {item['id']!r} repeats the id of {seen[key]} in the {item['task']} family"
            )
        seen[key] = item["source"]
        families.setdefault(item["id"], set()).add(item["task"])
    for item in items:
        if len(families[item["id"]]) > 1:
            item["id"] = f"{item['task']}/{item['id']}"
    return items


def item_hash(item: Mapping[str, Any]) -> str:
    """A fingerprint of what the model was asked and the key: pairs answers of two models to the
    same item even when files or ids differ, and keeps apart two items that only share an id."""
    content = [item.get("context", ""), item["question"], list(item["options"]), item["answer"]]
    return hashlib.sha256(json.dumps(content, ensure_ascii=False).encode()).hexdigest()[:12]


def names(value: Any) -> list[str] | None:
    """``"a,b"`` or ``["a", "b"]`` (``-T``/``--metadata`` values) as a list; None for empty."""
    if value is None or value == "":
        return None
    items = value.split(",") if isinstance(value, str) else [str(v) for v in value]
    return [v.strip() for v in items if v.strip()] or None


def select(items: Iterable[dict[str, Any]], split: str | None = None, category: Any = None) -> list[dict[str, Any]]:
    """The items of one family and/or some categories (matched without case, also on ``category_zh``).

    A category no item has is an error (a typo, most likely); so is a family left with no item."""
    items = list(items)
    family = None
    if split not in (None, "", "all"):
        family = _task(split)
        if family is None:
            raise BaziDataError(f"split must be theory or case, got {split!r}")
    wanted = names(category)
    if wanted:
        keys = {w.casefold() for w in wanted}
        available = sorted({i["category"] for i in items})
        items = [
            i for i in items if i["category"].casefold() in keys or str(i.get("category_zh", "")).casefold() in keys
        ]
        if not items:
            raise BaziDataError(f"no items in category {', '.join(wanted)}; the categories are: {', '.join(available)}")
    if family is not None:
        other = sorted({i["category"] for i in items if i["task"] != family})
        items = [i for i in items if i["task"] == family]
        if not items:
            hint = f" (category {', '.join(other)} is in the other family)" if wanted and other else ""
            raise BaziDataError(f"no {family} items for category={category!r}{hint}")
    return items


def load_items(
    source: str | Path, split: str | None = None, category: Any = None, hub_split: str | None = None
) -> list[dict[str, Any]]:
    """Read a source and keep one family and/or some categories."""
    return select(read_items(source, hub_split=hub_split), split, category)


def write_jsonl(items: Iterable[Mapping[str, Any]], path: str | Path) -> int:
    count = 0
    with Path(path).open("w", encoding="utf-8") as f:
        for item in items:
            f.write(json.dumps(item, ensure_ascii=False) + "\n")
            count += 1
    return count
