"""The critic over a ``datasets`` column, in ``Dataset.map`` with as many workers as wanted.

    from poetone.batch import result_features, score_batch, score_dataset

    scored = score_dataset(ds, num_proc=8)                           # columns "cipai" and "text"
    scored = ds.map(score_batch, batched=True, num_proc=8,           # the same, spelt out
                    fn_kwargs={"text_column": "poem", "profile": "paper"},
                    features=result_features(ds.features))

``features=`` fixes the new columns' types: without it ``datasets`` infers them from the first
batch written, and a first batch with no error leaves ``error`` typed null, so that a later
batch's error message cannot be written. ``score_batch`` is a module-level function, so ``datasets`` pickles (and fingerprints) it by
name, and each worker process builds its own critic once (``critic_for``, cached per process)
instead of receiving one: a ``Critic`` does pickle, but as about 2 MB that ``datasets`` would
hash on every call and send with every shard. The new columns are those of
``poetone score --jsonl``, with the same numbers (rounded to 6 decimals) and the same error
messages: a bad row gets ``error`` and nulls, and the rest of the batch is still scored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from poetone.critic import Critic, CriticResult
from poetone.metadata import UnknownCipaiError

if TYPE_CHECKING:  # datasets is heavy: imported only where a Dataset is built
    import datasets

#: The result fields of ``poetone score --jsonl``. ``scored_cipai`` is the tune the text was scored
#: as, by its canonical name, and ``variant`` is one of that tune's: a 又名 resolves to its tune
#: (思佳客: 鹧鸪天), and a 同名异调 title to the tune the poem follows (欧阳修's 鹤冲天 is a 喜迁莺).
RESULT_FIELDS: tuple[str, ...] = ("conformity", "structure", "tonal", "rhyme", "valid", "variant", "scored_cipai")
#: The columns ``score_batch`` adds: the result fields, and ``error``.
RESULT_COLUMNS: tuple[str, ...] = (*RESULT_FIELDS, "error")
_NUMBERS = frozenset({"conformity", "structure", "tonal", "rhyme"})


def result_fields(result: CriticResult) -> dict[str, Any]:
    """A result as ``poetone score --jsonl`` writes it and the batch columns hold it (6 decimals)."""
    fields = result.as_dict()
    fields["scored_cipai"] = fields.pop("cipai")
    return {key: round(fields[key], 6) if key in _NUMBERS else fields[key] for key in RESULT_FIELDS}


@cache
def critic_for(profile: str = "default") -> Critic:
    """The critic of ``profile``, built once per process (each ``num_proc`` worker has its own)."""
    return Critic(profile=profile)


def check_fields(cipai: Any, text: Any, cipai_field: str = "cipai", text_field: str = "text") -> None:
    """A ``ValueError`` saying what is wrong with a row's cipai and text, where one is."""
    if cipai is None:
        raise ValueError(f"missing field {cipai_field!r}")
    if not isinstance(cipai, str) or not cipai.strip():
        raise ValueError(f"field {cipai_field!r} must be a cipai name (a non-empty string), got {cipai!r:.60}")
    if text is None:
        raise ValueError(f"missing field {text_field!r} (a string)")
    if not isinstance(text, str):
        raise ValueError(f"field {text_field!r} must be a string, got {type(text).__name__}")


def score_row(
    critic: Critic, cipai: Any, text: Any, cipai_column: str = "cipai", text_column: str = "text"
) -> dict[str, Any]:
    """One row's result columns. Never raises: what is wrong with the row goes in ``error``,
    naming the column as the dataset calls it."""
    out: dict[str, Any] = dict.fromkeys(RESULT_COLUMNS)
    try:
        check_fields(cipai, text, cipai_column, text_column)
        out.update(result_fields(critic.score(cipai, text)))
    except (ValueError, UnknownCipaiError) as exc:
        out["error"] = str(exc)
    except Exception as exc:  # the critic failed on this poem: one row lost, not the batch
        out["error"] = f"the critic failed on this row ({type(exc).__name__}: {exc})"
    return out


def score_batch(
    batch: Mapping[str, Sequence[Any]],
    cipai_column: str = "cipai",
    text_column: str = "text",
    profile: str = "default",
) -> dict[str, list[Any]]:
    """The result columns for a batch of rows (``Dataset.map(score_batch, batched=True)``)."""
    for column in (cipai_column, text_column):
        if column not in batch:
            raise KeyError(f"no column {column!r} to score; the dataset has {sorted(batch)}")
    critic = critic_for(profile)
    rows = [
        score_row(critic, c, t, cipai_column, text_column)
        for c, t in zip(batch[cipai_column], batch[text_column], strict=True)
    ]
    return {key: [r[key] for r in rows] for key in RESULT_COLUMNS}


def result_features(features: datasets.Features) -> datasets.Features:
    """``features`` with the result columns added (or retyped): the ``features=`` of the map."""
    import datasets

    types = {"conformity": "float64", "structure": "float64", "tonal": "float64", "rhyme": "float64",
             "valid": "bool", "variant": "string", "scored_cipai": "string", "error": "string"}  # fmt: skip
    return datasets.Features({**features, **{k: datasets.Value(types[k]) for k in RESULT_COLUMNS}})


def score_dataset(
    dataset: datasets.Dataset,
    cipai_column: str = "cipai",
    text_column: str = "text",
    profile: str = "default",
    num_proc: int | None = None,
    **map_kwargs: Any,
) -> datasets.Dataset:
    """``dataset`` with the result columns, scored by ``Dataset.map`` in ``num_proc`` processes."""
    for column in (cipai_column, text_column):
        if column not in dataset.column_names:
            raise KeyError(f"no column {column!r} to score; the dataset has {dataset.column_names}")
    return dataset.map(
        score_batch,
        batched=True,
        num_proc=num_proc,
        fn_kwargs={"cipai_column": cipai_column, "text_column": text_column, "profile": profile},
        features=result_features(dataset.features),
        **map_kwargs,
    )
