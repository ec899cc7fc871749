"""poetone.reward's one check, a column's length against the number of completions, on both sides.

A column with one entry too few or too many is an error naming the column and both counts; the
exact count is accepted (the 晏殊《浣溪沙》 of test_expectations_reward.py scores 1.0, worked by hand there).
"""

from __future__ import annotations

import pytest

from poetone.reward import conformity_reward

POEM = "一曲新词酒一杯，去年天气旧亭台。夕阳西下几时回？无可奈何花落去，似曾相识燕归来。小园香径独徘徊。"


@pytest.mark.parametrize("n", [1, 2, 3])
def test_a_column_of_exactly_n_entries_is_accepted(n: int) -> None:
    got = conformity_reward(
        completions=[POEM] * n,
        cipai=["浣溪沙"] * n,
        strategy=["zero_shot"] * n,
        upper=[""] * n,
        original_lower=[""] * n,
    )
    assert got == [1.0] * n


@pytest.mark.parametrize("column", ["cipai", "strategy", "upper", "original_lower"])
@pytest.mark.parametrize("delta", [-1, +1])
def test_one_entry_too_few_or_too_many_is_an_error(column: str, delta: int) -> None:
    n = 2
    columns = {"cipai": ["浣溪沙"] * n, "strategy": ["zero_shot"] * n, "upper": [""] * n, "original_lower": [""] * n}
    columns[column] = columns[column][:1] * (n + delta)
    with pytest.raises(ValueError, match=rf"^column '{column}' has {n + delta} entries for {n} completions$"):
        conformity_reward(completions=[POEM] * n, **columns)


def test_a_column_may_be_any_iterable_of_the_right_length() -> None:
    assert conformity_reward(completions=(POEM, POEM), cipai=("浣溪沙" for _ in range(2))) == [1.0, 1.0]


@pytest.mark.parametrize("n", [0, 1, 2])
def test_a_missing_cipai_column_is_an_error_at_any_batch_size(n: int) -> None:
    with pytest.raises(
        ValueError, match=r"^conformity_reward needs a 'cipai' column in the dataset \(one per completion\)$"
    ):
        conformity_reward(completions=[POEM] * n)
