"""The full two-player table for the target 300, as `make` builds it before the tests
(`python -m ludix.policy build`). Skipped when the cache file is absent: the solver itself is
tested on small targets in test_policy.py."""

from __future__ import annotations

import pytest
from ludix.table import Policy, has_table, table_path
from ludix.table_build import highest_rolling_total, table

pytestmark = pytest.mark.skipif(
    not has_table(300), reason=f"no table at {table_path(300)}: run `python -m ludix.policy build`"
)


@pytest.fixture(scope="module")
def full() -> Policy:
    return table(300)


def test_shape(full: Policy) -> None:
    assert full.target == 300 and full.cap == 500 and full.exceptions == 0
    assert full.roll_first.shape == (300, 300, (501 + 7) // 8) and full.roll_second.shape == (300, 300, 300 // 8 + 1)


def test_first_seat_value(full: Policy) -> None:
    assert 0.4506 < float(full.win_first[0, 0]) < 0.4508  # the second seat's edge: it knows the bar


def test_cap_does_not_bind(full: Policy) -> None:
    assert highest_rolling_total(full) <= full.cap - 80


def test_known_decisions(full: Policy) -> None:
    assert full.first_rolls(0, 0, 20) and not full.first_rolls(0, 0, 300)
    assert not full.second_rolls(250, 100, 50)  # reaching 300 as the second player wins
    assert full.second_rolls(0, 299, 100)  # 299 behind: keep going
