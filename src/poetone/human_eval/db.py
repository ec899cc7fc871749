"""The study file: one SQLite database holding the pairs, the annotators' sequences and answers.

Several annotators answer at once through a threaded server, so the file runs in WAL mode (readers
never block the writer), every connection waits on a lock (``busy_timeout``) instead of failing,
and every answer is its own ``BEGIN IMMEDIATE`` transaction committed with ``synchronous=FULL``
before the page moves on: a crash or a closed laptop loses nothing that was submitted. Primary
keys on (annotator, pair) make a double submit a no-op (the first answer stands: a stage-1 answer
must not change after the reveal showed the truth).

A database is one study: the pair set and the seed are fixed by the first ``serve``; serving it
again with other logs or options is refused rather than mixing two studies in one file.
"""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from poetone.human_eval.pairs import SIDES, Pair, assign

SCHEMA_VERSION = "1"
MAX_NAME = 40
RATINGS = ("faithfulness", "artistry", "overall")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS pairs (
    id TEXT PRIMARY KEY, model TEXT NOT NULL, source TEXT NOT NULL, prompt_id TEXT NOT NULL,
    strategy TEXT NOT NULL, cipai TEXT NOT NULL, theme TEXT NOT NULL, theme_label TEXT NOT NULL,
    epoch INTEGER NOT NULL, conformity REAL NOT NULL, generated TEXT NOT NULL,
    canonical_id TEXT NOT NULL, canonical TEXT NOT NULL, poet TEXT NOT NULL, title TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS annotators (name TEXT PRIMARY KEY, created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS assignments (
    annotator TEXT NOT NULL REFERENCES annotators(name), position INTEGER NOT NULL,
    pair_id TEXT NOT NULL REFERENCES pairs(id), human_side TEXT NOT NULL CHECK (human_side IN ('left', 'right')),
    PRIMARY KEY (annotator, position), UNIQUE (annotator, pair_id)
);
CREATE TABLE IF NOT EXISTS stage1 (
    annotator TEXT NOT NULL, pair_id TEXT NOT NULL,
    chosen_side TEXT NOT NULL CHECK (chosen_side IN ('left', 'right')),
    human_side TEXT NOT NULL CHECK (human_side IN ('left', 'right')),
    correct INTEGER NOT NULL CHECK (correct IN (0, 1)),
    confidence INTEGER NOT NULL CHECK (confidence BETWEEN 1 AND 5),
    answered_at TEXT NOT NULL,
    PRIMARY KEY (annotator, pair_id),
    FOREIGN KEY (annotator, pair_id) REFERENCES assignments(annotator, pair_id)
);
CREATE TABLE IF NOT EXISTS stage2 (
    annotator TEXT NOT NULL, pair_id TEXT NOT NULL,
    faithfulness INTEGER NOT NULL CHECK (faithfulness BETWEEN 1 AND 5),
    artistry INTEGER NOT NULL CHECK (artistry BETWEEN 1 AND 5),
    overall INTEGER NOT NULL CHECK (overall BETWEEN 1 AND 5),
    answered_at TEXT NOT NULL,
    PRIMARY KEY (annotator, pair_id),
    FOREIGN KEY (annotator, pair_id) REFERENCES stage1(annotator, pair_id)
);
"""

#: The columns of an exported answer, in order.
ANSWER_FIELDS = (
    "annotator", "position", "pair_id", "model", "strategy", "cipai", "theme", "prompt_id", "epoch",
    "conformity", "human_side", "chosen_side", "identified_human", "confidence", "stage1_at",
    "faithfulness", "artistry", "overall", "stage2_at",
)  # fmt: skip


class StudyError(ValueError):
    """A study database, annotator or answer that cannot be used; the message names it."""


@dataclass(frozen=True, slots=True)
class Step:
    """One pair of an annotator's sequence and what has been answered for it."""

    position: int  # 0-based
    pair_id: str
    human_side: str
    chosen_side: str | None
    confidence: int | None
    ratings: tuple[int, int, int] | None

    @property
    def done(self) -> bool:
        return self.ratings is not None

    @property
    def correct(self) -> bool | None:
        return None if self.chosen_side is None else self.chosen_side == self.human_side


def clean_annotator(name: str) -> str:
    """The annotator's name or token as stored: NFC, trimmed, inner spaces collapsed."""
    if not isinstance(name, str):
        raise StudyError(f"annotator name must be text, got {type(name).__name__}")
    cleaned = " ".join(unicodedata.normalize("NFC", name).split())
    if not cleaned:
        raise StudyError("annotator name is empty")
    if len(cleaned) > MAX_NAME:
        raise StudyError(f"annotator name {cleaned[:MAX_NAME]!r}… is longer than {MAX_NAME} characters")
    if any(unicodedata.category(ch).startswith("C") for ch in cleaned):
        raise StudyError(f"annotator name {cleaned!r} contains control characters")
    return cleaned


def _score(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 5:
        raise StudyError(f"{name} must be an integer from 1 to 5, got {value!r}")
    return value


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def fingerprint(pair_ids: Sequence[str]) -> str:
    return hashlib.sha256("\n".join(sorted(pair_ids)).encode()).hexdigest()


class Database:
    """A study database at ``path``; ``create=False`` refuses a missing file (export, stats)."""

    def __init__(self, path: str | Path, *, create: bool = True, timeout: float = 30.0) -> None:
        self.path = Path(path)
        self.timeout = timeout
        if not create and not self.path.is_file():
            raise StudyError(f"{self.path}: no such study database")
        if self.path.is_dir():
            raise StudyError(f"{self.path}: is a folder, not a database file")
        try:
            with self._connect() as conn:
                mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
                if str(mode).lower() != "wal":
                    raise StudyError(f"{self.path}: SQLite refused WAL mode (got {mode!r}); use a local file system")
                conn.executescript(_SCHEMA)
                conn.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
                version = conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            raise StudyError(f"{self.path}: not a usable study database ({exc})") from None
        if version != SCHEMA_VERSION:
            raise StudyError(f"{self.path}: study schema {version}, this poetone reads {SCHEMA_VERSION}")

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        # one connection per operation: safe from any thread of the server's pool
        conn = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False)
        try:
            conn.row_factory = sqlite3.Row
            conn.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA synchronous = FULL")
            yield conn
        finally:
            conn.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taking the write lock up front so it never fails half-way."""
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")

    def _meta(self, conn: sqlite3.Connection, key: str) -> str | None:
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    # ------------------------------------------------------------------ the study

    def setup(self, pairs: Sequence[Pair], seed: int = 0) -> None:
        """Store the pair set and seed of a new study, or check they are the ones already stored."""
        if not pairs:
            raise StudyError(f"{self.path}: no pairs to serve (no usable generated poem in the logs)")
        wanted = fingerprint([p.id for p in pairs])
        with self._write() as conn:
            stored, stored_seed = self._meta(conn, "pairset"), self._meta(conn, "seed")
            if stored is not None and stored != wanted:
                n = conn.execute("SELECT COUNT(*) FROM pairs").fetchone()[0]
                raise StudyError(
                    f"{self.path} already holds another study ({n} pairs from other logs or options); "
                    "serve it with the same logs and options, or use a new --db"
                )
            if stored_seed is not None and int(stored_seed) != seed:
                raise StudyError(f"{self.path} was set up with --seed {stored_seed}, not {seed}")
            conn.executemany(
                "INSERT OR IGNORE INTO pairs VALUES (:id, :model, :source, :prompt_id, :strategy, :cipai, :theme, "
                ":theme_label, :epoch, :conformity, :generated, :canonical_id, :canonical, :poet, :title)",
                [p.as_dict() for p in pairs],
            )
            conn.execute("INSERT OR IGNORE INTO meta VALUES ('pairset', ?)", (wanted,))
            conn.execute("INSERT OR IGNORE INTO meta VALUES ('seed', ?)", (str(seed),))
            conn.execute("INSERT OR IGNORE INTO meta VALUES ('created_at', ?)", (_now(),))

    def secret(self) -> str:
        """The key that signs session cookies: kept in the study so a restart keeps sessions."""
        with self._write() as conn:
            conn.execute("INSERT OR IGNORE INTO meta VALUES ('secret', ?)", (secrets.token_hex(32),))
            return str(self._meta(conn, "secret"))

    def seed(self) -> int:
        with self._connect() as conn:
            value = self._meta(conn, "seed")
        return int(value) if value is not None else 0

    def pairs(self) -> dict[str, Pair]:
        with self._connect() as conn:
            rows = conn.execute("SELECT * FROM pairs ORDER BY model, prompt_id, epoch").fetchall()
        return {r["id"]: Pair(**dict(r)) for r in rows}

    def pair(self, pair_id: str) -> Pair:
        with self._connect() as conn:
            row = conn.execute("SELECT * FROM pairs WHERE id = ?", (pair_id,)).fetchone()
        if row is None:
            raise StudyError(f"no pair {pair_id!r} in {self.path}")
        return Pair(**dict(row))

    # ------------------------------------------------------------------ annotators

    def start(self, annotator: str) -> str:
        """Register an annotator (or find a returning one) and draw their sequence; returns the
        stored name. Returning with the same name resumes where they stopped."""
        name = clean_annotator(annotator)
        with self._write() as conn:
            ids = [r[0] for r in conn.execute("SELECT id FROM pairs")]
            if not ids:
                raise StudyError(f"{self.path} holds no pairs yet")
            conn.execute("INSERT OR IGNORE INTO annotators VALUES (?, ?)", (name, _now()))
            if conn.execute("SELECT 1 FROM assignments WHERE annotator = ? LIMIT 1", (name,)).fetchone() is None:
                seed = int(self._meta(conn, "seed") or 0)
                conn.executemany(
                    "INSERT INTO assignments VALUES (?, ?, ?, ?)",
                    [(name, i, pid, side) for i, (pid, side) in enumerate(assign(ids, name, seed))],
                )
        return name

    def annotators(self) -> list[str]:
        with self._connect() as conn:
            return [r[0] for r in conn.execute("SELECT name FROM annotators ORDER BY name")]

    def sequence(self, annotator: str) -> list[Step]:
        """The annotator's pairs in order, with what they answered so far."""
        with self._connect() as conn:
            rows = conn.execute(
                """SELECT a.position, a.pair_id, a.human_side, s1.chosen_side, s1.confidence,
                          s2.faithfulness, s2.artistry, s2.overall
                   FROM assignments a
                   LEFT JOIN stage1 s1 ON s1.annotator = a.annotator AND s1.pair_id = a.pair_id
                   LEFT JOIN stage2 s2 ON s2.annotator = a.annotator AND s2.pair_id = a.pair_id
                   WHERE a.annotator = ? ORDER BY a.position""",
                (annotator,),
            ).fetchall()
        return [
            Step(
                position=r["position"],
                pair_id=r["pair_id"],
                human_side=r["human_side"],
                chosen_side=r["chosen_side"],
                confidence=r["confidence"],
                ratings=None if r["overall"] is None else (r["faithfulness"], r["artistry"], r["overall"]),
            )
            for r in rows
        ]

    def current(self, annotator: str) -> tuple[Step | None, int, int]:
        """(the first pair not finished or None, pairs finished, pairs in the sequence)."""
        steps = self.sequence(annotator)
        done = sum(s.done for s in steps)
        return next((s for s in steps if not s.done), None), done, len(steps)

    # ------------------------------------------------------------------ answers

    def _assignment(self, conn: sqlite3.Connection, annotator: str, pair_id: str) -> sqlite3.Row:
        row = conn.execute(
            "SELECT human_side FROM assignments WHERE annotator = ? AND pair_id = ?", (annotator, pair_id)
        ).fetchone()
        if row is None:
            raise StudyError(f"pair {pair_id!r} is not in the sequence of annotator {annotator!r}")
        return row

    def _shown(self, conn: sqlite3.Connection, annotator: str) -> sqlite3.Row | None:
        """The pair the annotator is shown: the first of their sequence without ratings."""
        return conn.execute(
            """SELECT a.position, a.pair_id FROM assignments a
               LEFT JOIN stage2 s2 ON s2.annotator = a.annotator AND s2.pair_id = a.pair_id
               WHERE a.annotator = ? AND s2.pair_id IS NULL ORDER BY a.position LIMIT 1""",
            (annotator,),
        ).fetchone()

    def save_stage1(self, annotator: str, pair_id: str, chosen_side: str, confidence: int) -> bool:
        """Which poem the annotator took for the human's, and how sure (1–5). False if this pair
        was already answered (a double submit): the first answer stands. Only the pair being
        shown can be answered: a stage-1 answer to a later pair of the sequence is refused."""
        if chosen_side not in SIDES:
            raise StudyError(f"chosen side must be one of {SIDES}, got {chosen_side!r}")
        _score("confidence", confidence)
        with self._write() as conn:
            human = self._assignment(conn, annotator, pair_id)["human_side"]
            answered = "SELECT 1 FROM stage1 WHERE annotator = ? AND pair_id = ?"
            if conn.execute(answered, (annotator, pair_id)).fetchone() is not None:
                return False
            shown = self._shown(conn, annotator)
            if shown is None or shown["pair_id"] != pair_id:
                at = "has finished" if shown is None else f"is shown pair {shown['position'] + 1}"
                raise StudyError(f"pair {pair_id!r} is not the pair being shown: annotator {annotator!r} {at}")
            cur = conn.execute(
                "INSERT INTO stage1 VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (annotator, pair_id) DO NOTHING",
                (annotator, pair_id, chosen_side, human, int(chosen_side == human), confidence, _now()),
            )
            return cur.rowcount == 1

    def save_stage2(self, annotator: str, pair_id: str, faithfulness: int, artistry: int, overall: int) -> bool:
        """The ratings (1–5) of the generated poem, after the reveal. False on a double submit."""
        for name, value in zip(RATINGS, (faithfulness, artistry, overall)):
            _score(name, value)
        with self._write() as conn:
            self._assignment(conn, annotator, pair_id)
            if conn.execute("SELECT 1 FROM stage1 WHERE annotator = ? AND pair_id = ?", (annotator, pair_id)).fetchone() is None:
                raise StudyError(f"annotator {annotator!r} rates pair {pair_id!r} before saying which poem is human")
            cur = conn.execute(
                "INSERT INTO stage2 VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (annotator, pair_id) DO NOTHING",
                (annotator, pair_id, faithfulness, artistry, overall, _now()),
            )
            return cur.rowcount == 1

    def answers(self) -> list[dict[str, Any]]:
        """Every stage-1 answer with its pair and its stage-2 ratings (None until given), in
        annotator then sequence order: the rows of the export and the input of the statistics."""
        with self._connect() as conn:
            rows = conn.execute(
                """SELECT s1.annotator, a.position, s1.pair_id, p.model, p.strategy, p.cipai, p.theme,
                          p.prompt_id, p.epoch, p.conformity, s1.human_side, s1.chosen_side,
                          s1.correct AS identified_human, s1.confidence, s1.answered_at AS stage1_at,
                          s2.faithfulness, s2.artistry, s2.overall, s2.answered_at AS stage2_at
                   FROM stage1 s1
                   JOIN assignments a ON a.annotator = s1.annotator AND a.pair_id = s1.pair_id
                   JOIN pairs p ON p.id = s1.pair_id
                   LEFT JOIN stage2 s2 ON s2.annotator = s1.annotator AND s2.pair_id = s1.pair_id
                   ORDER BY s1.annotator, a.position"""
            ).fetchall()
        return [{k: r[k] for k in ANSWER_FIELDS} for r in rows]

    def counts(self) -> dict[str, int]:
        with self._connect() as conn:
            return {
                t: conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]  # fixed table names, no input
                for t in ("pairs", "annotators", "assignments", "stage1", "stage2")
            }


#: What makes a spreadsheet read a cell as a formula (OWASP, "CSV Injection").
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """A value as a CSV cell a spreadsheet shows as text: a string starting like a formula
    (``=HYPERLINK(…)`` as an annotator's name, ``@SUM(…)`` in a poem) gets a leading ``'``.
    Numbers are left as they are (a negative number is not a formula); the JSON files keep
    every value unchanged."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value


def export(database: Database, out: str | Path) -> list[Path]:
    """Write ``answers.csv``/``answers.json`` (one row per annotator and pair answered) and
    ``pairs.csv``/``pairs.json`` (the pairs with their texts) to ``out``; returns the paths.
    CSV cells that a spreadsheet would run as formulas are neutralised (``csv_cell``)."""
    import csv
    import json
    from dataclasses import fields

    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise StudyError(f"{folder}: exists and is not a folder")
    folder.mkdir(parents=True, exist_ok=True)
    answers = database.answers()
    pairs = [p.as_dict() for p in database.pairs().values()]
    written = []
    pair_fields = [f.name for f in fields(Pair)]
    for name, rows, columns in (("answers", answers, list(ANSWER_FIELDS)), ("pairs", pairs, pair_fields)):
        with open(folder / f"{name}.csv", "w", encoding="utf-8", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=columns)
            writer.writeheader()
            writer.writerows({k: csv_cell(v) for k, v in row.items()} for row in rows)
        (folder / f"{name}.json").write_text(json.dumps(rows, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        written += [folder / f"{name}.csv", folder / f"{name}.json"]
    return written
