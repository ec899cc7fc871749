"""The Cipai resource: the data model, its JSON loader and validator, and the official PoeTone format.

Data lives in ``poetone/cipai/*.json`` (one file per cipai, schema in docs/cipai-schema.md); this
module knows nothing of scoring. Validation errors name the file, the variant and the line, so a
contributor can fix a table without reading code.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

TONE_CHARS = frozenset("平仄中")
ENDINGS = ("句", "读", "韵", "叶", "换")
RHYMED_ENDINGS = frozenset("韵叶换")
_LINE_RE = re.compile(r"^([平仄中]+) (句|读|韵|叶|换)([A-Z]?)((?: 叠)?)$")
METADATA_FORMATS = ("poetone-native", "poetone")
#: The package folder of the generated cipai (scripts/build_cipu.py).
GENERATED_FOLDER = "cipai_generated"
#: Where a 词牌·题 title starts: the separators printed between the tune and the title.
_TITLE_SEPARATORS = frozenset("・·•‧ \t\n\r\f\v\u3000(（")
#: Spellings (titles, traditional script, unknown names) a registry remembers, and the longest kept.
SPELLINGS_KEPT = 4096
_LONGEST_KEPT = 64


class MetadataError(ValueError):
    """A cipai file or entry does not follow the schema."""


class UnknownCipaiError(KeyError):
    """A cipai name that no loaded cipai (or alias) has."""

    def __init__(self, name: str, suggestions: list[str]):
        self.name = name
        self.suggestions = suggestions
        hint = f"; closest: {', '.join(suggestions)}" if suggestions else ""
        shown = repr(name) if len(name) <= 40 else f"{name[:40]!r}… ({len(name)} characters)"  # a pasted poem as the name
        super().__init__(f"unknown cipai {shown}{hint}")

    def __str__(self) -> str:
        return str(self.args[0])


@dataclass(frozen=True, slots=True)
class Line:
    """One clause of a template: its tone pattern and how it ends."""

    tones: str
    end: str
    segment: str = ""
    repeat: bool = False

    @property
    def length(self) -> int:
        return len(self.tones)

    @property
    def rhymed(self) -> bool:
        return self.end in RHYMED_ENDINGS

    @property
    def rhyme_tone(self) -> str:
        """Tone class the rhyme character must have: the tone of the last position."""
        return self.tones[-1] if self.rhymed else ""

    def spec(self) -> str:
        mark = self.end + (self.segment if self.rhymed else "")
        return f"{self.tones} {mark}" + (" 叠" if self.repeat else "")


@dataclass(frozen=True, slots=True)
class Variant:
    """One form (正体 or 又一体) of a cipai."""

    cipai: str
    id: str
    stanzas: tuple[tuple[Line, ...], ...]
    label: str = ""
    source: str = ""
    example: Mapping[str, str] = field(default_factory=dict)

    @property
    def lines(self) -> tuple[Line, ...]:
        return tuple(line for stanza in self.stanzas for line in stanza)

    @property
    def lengths(self) -> tuple[int, ...]:
        return tuple(line.length for line in self.lines)

    @property
    def char_count(self) -> int:
        return sum(self.lengths)

    def stanza_of_line(self) -> tuple[int, ...]:
        return tuple(i for i, stanza in enumerate(self.stanzas) for _ in stanza)


@dataclass(frozen=True, slots=True)
class Homonym:
    """Another tune printed under this cipai's title (同名异调), e.g. 柳永's 定风波慢 as 定风波.

    Its poems are not forms of this cipai: the resource names them so that validation counts
    them apart instead of the critic learning their shape.
    """

    name: str
    source: str
    poems: tuple[Mapping[str, str], ...]  # poet and first clause, as the example of a variant


@dataclass(frozen=True, slots=True)
class Cipai:
    name: str
    variants: tuple[Variant, ...]
    aliases: tuple[str, ...] = ()
    source: str = ""
    note: str = ""
    origin: str = ""  # the file it was read from, for error messages
    homonyms: tuple[Homonym, ...] = ()

    def variant(self, variant_id: str) -> Variant:
        for v in self.variants:
            if v.id == variant_id:
                return v
        raise KeyError(f"cipai {self.name!r} has no variant {variant_id!r}; it has {[v.id for v in self.variants]}")


def parse_line(spec: str, where: str) -> Line:
    found = _line_of(spec) if isinstance(spec, str) else None
    if not isinstance(found, Line):
        raise MetadataError(
            f"{where}: "
            + (
                found
                or f"bad line {spec!r}: expected tones of 平仄中, a space, an ending "
                "(句, 读, 韵X, 叶X, 换X with X a capital letter) and optionally ' 叠'"
            )
        )
    return found


@lru_cache(maxsize=8192)
def _line_of(spec: str) -> Line | str | None:
    """The line a spec describes, what is wrong with it, or None where it is not a line at all.
    Cached: the 词谱's 38,000 lines share a few thousand specs, and a Line is immutable."""
    m = _LINE_RE.match(spec.strip())
    if not m:
        return None
    tones, end, segment, repeat = m.groups()
    if end in RHYMED_ENDINGS:
        if not segment:
            return f"rhymed line {spec!r} needs a segment letter, e.g. {end}A"
        if tones[-1] == "中":
            return f"rhymed line {spec!r} must end in 平 or 仄 (the rhyme's tone class)"
    elif segment:
        return f"line {spec!r}: only 韵, 叶 and 换 take a segment letter"
    return Line(tones=tones, end=end, segment=segment, repeat=bool(repeat))


def _require(obj: Mapping[str, Any], key: str, kind: type, where: str) -> Any:
    if key not in obj:
        raise MetadataError(f"{where}: missing field {key!r}")
    if not isinstance(obj[key], kind):
        raise MetadataError(f"{where}: field {key!r} must be {kind.__name__}, got {type(obj[key]).__name__}")
    return obj[key]


def parse_cipai(data: Any, where: str = "<cipai>") -> Cipai:
    """Validate one cipai record of our schema and build the model."""
    if not isinstance(data, dict):
        raise MetadataError(f"{where}: a cipai must be a JSON object")
    name = _require(data, "name", str, where)
    origin, where = where, f"{where} ({name})"
    aliases = data.get("aliases", [])
    if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
        raise MetadataError(f"{where}: 'aliases' must be a list of strings")
    raw_variants = _require(data, "variants", list, where)
    if not raw_variants:
        raise MetadataError(f"{where}: 'variants' is empty")
    variants, seen = [], set()
    for i, rv in enumerate(raw_variants):
        vwhere = f"{where} variant #{i + 1}"
        if not isinstance(rv, dict):
            raise MetadataError(f"{vwhere}: a variant must be a JSON object")
        vid = _require(rv, "id", str, vwhere)
        vwhere = f"{where} variant {vid!r}"
        if vid in seen:
            raise MetadataError(f"{vwhere}: duplicate variant id")
        seen.add(vid)
        raw_stanzas = _require(rv, "stanzas", list, vwhere)
        if not raw_stanzas:
            raise MetadataError(f"{vwhere}: 'stanzas' is empty")
        stanzas = []
        for si, rs in enumerate(raw_stanzas):
            if not isinstance(rs, list) or not rs:
                raise MetadataError(f"{vwhere} stanza {si + 1}: must be a non-empty list of lines")
            stanzas.append(tuple(parse_line(s, f"{vwhere} stanza {si + 1} line {li + 1}") for li, s in enumerate(rs)))
        flat = [line for st in stanzas for line in st]
        if not any(line.rhymed for line in flat):
            raise MetadataError(f"{vwhere}: no rhyme position")
        for li, line in enumerate(flat):
            if line.repeat and (li == 0 or flat[li - 1].length != line.length):
                raise MetadataError(
                    f"{vwhere} line {li + 1}: 叠 repeats the previous line, which must have the same length"
                )
        example = rv.get("example", {})
        if not isinstance(example, dict):
            raise MetadataError(f"{vwhere}: 'example' must be an object with 'poet' and 'first_line'")
        variants.append(
            Variant(
                cipai=name,
                id=vid,
                stanzas=tuple(stanzas),
                label=str(rv.get("label", "")),
                source=str(rv.get("source", "")),
                example=dict(example),
            )
        )
    return Cipai(
        name=name,
        variants=tuple(variants),
        aliases=tuple(aliases),
        source=str(data.get("source", "")),
        note=str(data.get("note", "")),
        origin=origin,
        homonyms=_parse_homonyms(data.get("homonyms", []), where),
    )


def _parse_homonyms(raw: Any, where: str) -> tuple[Homonym, ...]:
    if not isinstance(raw, list):
        raise MetadataError(f"{where}: 'homonyms' must be a list of objects")
    out = []
    for i, h in enumerate(raw):
        hwhere = f"{where} homonym #{i + 1}"
        if not isinstance(h, dict):
            raise MetadataError(f"{hwhere}: must be an object with 'name', 'source' and 'poems'")
        name = _require(h, "name", str, hwhere)
        source = _require(h, "source", str, hwhere)
        poems = _require(h, "poems", list, hwhere)
        if not poems or not all(
            isinstance(p, dict) and isinstance(p.get("poet"), str) and isinstance(p.get("first_line"), str)
            for p in poems
        ):
            raise MetadataError(f"{hwhere} ({name}): 'poems' must be a non-empty list of {{'poet', 'first_line'}}")
        out.append(Homonym(name=name, source=source, poems=tuple(dict(p) for p in poems)))
    return tuple(out)


def parse_poetone_metadata(entries: Any, where: str = "<poetone metadata>") -> list[Cipai]:
    """Read the official PoeTone ``cipai_metadata.json`` layout into our model.

    That format has no rhyme segments: all rhyme positions form one segment, whose tone class is
    taken from the pattern's last position or, where that is 中, from ``rhyme_type``.
    """
    if not isinstance(entries, list):
        raise MetadataError(f"{where}: expected a list of variant entries")
    by_name: dict[str, list[Variant]] = {}
    for i, e in enumerate(entries):
        ewhere = f"{where} entry #{i + 1}"
        if not isinstance(e, dict):
            raise MetadataError(f"{ewhere}: must be an object")
        name = _require(e, "Cipai", str, ewhere)
        vid = str(e.get("variant", len(by_name.get(name, []))))  # unnamed: its index within the cipai
        ewhere = f"{ewhere} ({name} variant {vid})"
        rtype = str(e.get("rhyme_type", ""))
        stanzas = []
        for key in sorted(k for k in e if re.fullmatch(r"stanza\d+", k)):
            st = _require(e, key, dict, ewhere)
            patterns = _require(st, "lines", list, f"{ewhere} {key}")
            positions = set(st.get("rhyme_positions", []))
            lines = []
            for li, pat in enumerate(patterns):
                tones = re.sub(r"[^平仄中]", "", str(pat))
                if not tones:
                    raise MetadataError(f"{ewhere} {key} line {li + 1}: no tone characters in {pat!r}")
                if li + 1 in positions:
                    last = tones[-1]
                    if last == "中":
                        last = "平" if rtype.startswith("平") else "仄"
                    lines.append(Line(tones=tones[:-1] + last, end="韵", segment="A"))
                else:
                    lines.append(Line(tones=tones, end="句"))
            stanzas.append(tuple(lines))
        if not stanzas:
            raise MetadataError(f"{ewhere}: no stanza1/stanza2 fields")
        by_name.setdefault(name, []).append(
            Variant(cipai=name, id=vid, stanzas=tuple(stanzas), source="PoeTone cipai_metadata.json")
        )
    return [
        Cipai(name=n, variants=tuple(vs), source="PoeTone cipai_metadata.json", origin=where)
        for n, vs in by_name.items()
    ]


def _builtin_files() -> Iterator[tuple[str, str]]:
    folder = resources.files("poetone") / "cipai"
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if entry.name.endswith(".json"):
            yield f"cipai/{entry.name}", entry.read_text(encoding="utf-8")


class GeneratedCipai:
    """The generated resource (``poetone/cipai_generated``, scripts/build_cipu.py): every tune of the
    钦定词谱 beyond the hand-curated ones. Only its small index (names and aliases) is read up
    front; a tune's file is read and validated the first time the tune is used, so 800 tunes cost
    nothing until one is scored."""

    def __init__(self, folder: Any = None):
        self.folder = folder if folder is not None else resources.files("poetone") / GENERATED_FOLDER
        index_file = self.folder / "_index.json"
        data = (
            _read_json(index_file.read_text(encoding="utf-8"), f"{GENERATED_FOLDER}/_index.json")
            if index_file.is_file()
            else {}
        )
        self.names: dict[str, str] = dict(data.get("names", {}))
        self.order: tuple[str, ...] = tuple(data.get("order", sorted(set(self.names.values()))))
        self.tunes: dict[str, dict[str, Any]] = dict(data.get("tunes", {}))
        #: 同名异调 titles: title -> the tunes the 全宋词 prints under it, the one it resolves to first
        self.homonyms: dict[str, list[str]] = dict(data.get("homonyms", {}))

    def load(self, name: str) -> Cipai:
        where = f"{GENERATED_FOLDER}/{name}.json"
        cipai = parse_cipai(_read_json((self.folder / f"{name}.json").read_text(encoding="utf-8"), where), where)
        if cipai.name != name:
            raise MetadataError(f"{where}: holds {cipai.name!r}, the index says {name!r}")
        return cipai


@cache
def _generated() -> GeneratedCipai:
    return GeneratedCipai()


def _read_json(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise MetadataError(f"{where}: not valid JSON ({exc})") from None


def load_cipai(
    metadata: str | Path | None = None, metadata_format: str | None = None, *, generated: bool = True
) -> CipaiRegistry:
    """Load the bundled resource, or a file or folder of our schema, or an official PoeTone file.

    The bundled resource is the hand-curated cipai and, with ``generated``, every other tune of
    the 钦定词谱 (read on first use; see :class:`CipaiRegistry`).
    """
    fmt = metadata_format or "poetone-native"
    if fmt not in METADATA_FORMATS:
        raise ValueError(f"unknown metadata_format {metadata_format!r}; expected one of {METADATA_FORMATS}")
    if metadata is None:
        if fmt != "poetone-native":
            raise ValueError("metadata_format='poetone' needs a metadata file path")
        curated = (parse_cipai(_read_json(text, where), where) for where, text in _builtin_files())
        return CipaiRegistry(curated, _generated() if generated else None)
    path = Path(metadata)
    if not path.exists():
        raise FileNotFoundError(f"metadata {str(path)!r} does not exist")
    if fmt == "poetone":
        return CipaiRegistry(parse_poetone_metadata(_read_json(path.read_text(encoding="utf-8"), str(path)), str(path)))
    # a folder's files starting with _ are not cipai (the generated resource's _index.json)
    files = sorted(f for f in path.glob("*.json") if not f.name.startswith("_")) if path.is_dir() else [path]
    if not files:
        raise MetadataError(f"{path}: no cipai file (*.json) in the folder")
    cipai = []
    for f in files:
        data = _read_json(f.read_text(encoding="utf-8"), str(f))
        records = data if isinstance(data, list) else [data]
        cipai.extend(
            parse_cipai(r, f"{f}" + (f"[{i}]" if isinstance(data, list) else "")) for i, r in enumerate(records)
        )
    return CipaiRegistry(cipai)


class CipaiRegistry(Mapping[str, Cipai]):
    """Cipai by canonical name, resolvable by alias too.

    Iterating (and ``len``) gives the cipai the registry was built from: for the bundled resource
    the hand-curated ones, the benchmark's 20. The generated tunes of ``generated`` resolve, load
    and score like them, but are read only when first used; :meth:`all_names` lists every known
    cipai. A curated name or alias always wins over a generated one.
    """

    def __init__(self, cipai: Iterable[Cipai], generated: GeneratedCipai | None = None):
        self._by_name: dict[str, Cipai] = {}
        self._lookup: dict[str, str] = {}
        self._spellings: dict[str, str | tuple[str, ...]] = {}  # titles, other scripts, misses: bounded
        for c in cipai:
            if c.name in self._by_name:
                raise MetadataError(f"cipai {c.name!r} is defined twice ({self._by_name[c.name].origin}, {c.origin})")
            self._by_name[c.name] = c
        for c in self._by_name.values():
            for key in (c.name, *c.aliases):
                owner = self._lookup.setdefault(_normalise_name(key), c.name)
                if owner != c.name:
                    raise MetadataError(
                        f"{c.origin}: alias {key!r} of {c.name!r} is already a name or alias of {owner!r}"
                        f" ({self._by_name[owner].origin})"
                    )
        self._generated = generated
        self._loaded: dict[str, Cipai] = {}
        self._generated_names: tuple[str, ...] = ()
        self._title_tunes: dict[str, tuple[str, ...]] = {}
        self._titled: dict[str, tuple[str, ...]] = {}  # tunes_titled's answers, bounded like _spellings
        if generated is not None:
            names = [n for n in generated.order if n not in self._by_name]
            self._generated_names = tuple(names)
            known = set(names)
            for key, name in generated.names.items():
                if name in known:
                    self._lookup.setdefault(_normalise_name(key), name)  # a curated key is never taken
            for title, tunes in generated.homonyms.items():
                key = _normalise_name(title)
                if key in self._lookup and self._lookup[key] not in self._by_name:
                    first = self._lookup[key]
                    self._title_tunes[key] = (first, *(t for t in tunes if t in known and t != first))
        self._name_lengths = sorted({len(k) for k in self._lookup})

    def __getitem__(self, name: str) -> Cipai:
        canonical = self.resolve(name)
        found = self._by_name.get(canonical) or self._loaded.get(canonical)
        if found is None:
            assert self._generated is not None
            found = self._loaded[canonical] = self._generated.load(canonical)
        return found

    def __contains__(self, name: object) -> bool:
        try:
            self.resolve(str(name))
        except UnknownCipaiError:
            return False
        return True

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_name)

    def __len__(self) -> int:
        return len(self._by_name)

    def all_names(self) -> tuple[str, ...]:
        """Every cipai known: the curated ones first, then the generated tunes in 词谱 order."""
        return (*self._by_name, *self._generated_names)

    def tunes_titled(self, name: str) -> tuple[str, ...]:
        """The tunes a title may name (同名异调: 浪淘沙 is printed for 浪淘沙, 浪淘沙令 and 浪淘沙慢),
        the one it resolves to first; one name for most titles."""
        if not self._title_tunes:
            return (self.resolve(name),)
        found = self._titled.get(name)
        if found is not None:
            return found
        canonical = self.resolve(name)
        key = _normalise_name(name)
        found = self._tunes_of(key, canonical)
        if found is None and (simplified := _to_simplified(key)) != key:
            found = self._tunes_of(simplified, canonical)  # mixed scripts (鹤沖天), as ``resolve`` reads them
        found = found or (canonical,)
        if len(name) <= _LONGEST_KEPT:
            if len(self._titled) >= SPELLINGS_KEPT:
                self._titled.clear()
            self._titled[name] = found
        return found

    def _tunes_of(self, key: str, canonical: str) -> tuple[str, ...] | None:
        """The tunes of a title spelt ``key``, or of the 词牌 before its separator (a 词牌·题 title)."""
        found = self._title_tunes.get(key)
        if found is None and (head := self._head_key(key)) is not None and self._lookup[head] == canonical:
            return self._title_tunes.get(head)
        return found

    def is_curated(self, name: str) -> bool:
        """Whether ``name`` resolves to a hand-curated cipai (not a generated one)."""
        return self.resolve(name) in self._by_name

    def resolve(self, name: str) -> str:
        """Canonical name of ``name`` (a name, an alias, or a 词牌·题 title, in either script).

        The name is tried first, then the tune before its title (a slice and a lookup), and only
        then the simplified script (OpenCC, built once): so a titled name costs little more than
        a bare one. What was worked out is remembered in a table of at most ``SPELLINGS_KEPT``
        spellings of at most 64 characters, so a stream of distinct titles (every answer of a
        model titling its poem) cannot grow it.
        """
        key = _normalise_name(name)
        found = self._lookup.get(key) or self._spellings.get(key)
        if found is None:
            found = self._head(key) or self._find(key)
            if len(key) <= _LONGEST_KEPT:  # a pasted poem as the name is not worth keeping
                if len(self._spellings) >= SPELLINGS_KEPT:
                    self._spellings.clear()  # start over: cheap, and safe if threads share the registry
                self._spellings[key] = found
        if isinstance(found, tuple):
            raise UnknownCipaiError(name, list(found))
        return found

    def _head(self, key: str) -> str | None:
        """The cipai a 词牌·题 spelling starts with."""
        head = self._head_key(key)
        return None if head is None else self._lookup[head]

    def _head_key(self, key: str) -> str | None:
        """The longest known name a 词牌·题 spelling starts with, followed by a separator
        (三台（大曲）・春 is 三台（大曲）, not 三台 with the title （大曲）・春). Only the lengths names
        have are tried (a slice and a lookup each, cheaper than a regex)."""
        for n in reversed(self._name_lengths):
            if n < len(key) and key[n] in _TITLE_SEPARATORS and key[:n] in self._lookup:
                return key[:n]
        return None

    def _find(self, key: str) -> str | tuple[str, ...]:
        """The canonical name of a spelling in traditional script, or the closest names (a tuple)."""
        simplified = _to_simplified(key)
        if simplified != key:
            found = self._lookup.get(simplified) or self._head(simplified)
            if found is not None:
                return found
        close = difflib.get_close_matches(key, list(self._lookup), n=6, cutoff=0.3)
        names = list(dict.fromkeys(self._lookup[k] for k in close))
        names.sort(key=lambda n: n not in self._by_name)  # the curated (most used) tunes first
        return tuple(names[:3])


@cache
def _t2s() -> Callable[[str], str] | None:
    """OpenCC's traditional-to-simplified converter, built once (building it costs milliseconds)
    and only when a name misses, so scoring never pays for it."""
    try:
        import opencc
    except ImportError:  # pragma: no cover - a core dependency
        return None
    return opencc.OpenCC("t2s").convert


_SURROGATE = re.compile("[\ud800-\udfff]")


def _to_simplified(name: str) -> str:
    """Traditional-script titles (點絳脣, 鵲踏枝) resolve like their simplified form."""
    convert = _t2s()
    if convert is None or (not name.isprintable() and _SURROGATE.search(name)):
        return name  # OpenCC encodes to UTF-8: a lone surrogate (a broken decoding) cannot be converted
    return convert(name)


def _normalise_name(name: str) -> str:
    return str(name).strip().strip("《》〈〉")
