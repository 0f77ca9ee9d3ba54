"""The expert's dynamic programme, checked on small targets against an independent computation
(plain value iteration over every state, numpy), against itself (the cap does not bind; a game
to T is a shifted game to T + 20) and by exact policy evaluation. The full table for 300 is
not needed here (see test_policy_table.py)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from ludix.numerals import odds
from ludix.table import Policy, has_table, table_path
from ludix.table_build import evaluate, highest_rolling_total, solve, table

TARGET = 40
EXTRA = 100


def value_iteration(target: int, cap: int, tol: float = 1e-14) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Win chances of the first and second player at every state by plain value iteration
    (Gauss-Seidel in the turn total, vectorized over the scores), written from the rules alone.

    Returns ``WA[i, j, k]``, ``WB[j, i, k]`` and the margins roll - hold of each."""
    throws = [(float(t.probability), [n.value for n in t.numerals]) for t in odds().valid]
    pb = float(odds().bust_probability)
    size = cap + 2 * 80 + 2
    final = np.zeros(size)  # second player's last turn by deficit
    for d in range(size):
        roll = sum(p * max(1.0 if d - v < 0 else final[d - v] for v in vs) for p, vs in throws)
        final[d] = max(roll, 0.5 if d == 0 else 0.0)
    mover = np.arange(target)[:, None] + np.zeros((1, target), dtype=int)
    other = mover.T
    wa = np.zeros((target, target, cap + 81))
    wb = np.zeros((target, target, target + 80))
    ma, mb = np.zeros_like(wa), np.zeros_like(wb)
    for _ in range(1000):
        old = wa[:, :, 0].copy(), wb[:, :, 0].copy()
        vb0 = wb[:, :, 0].copy()
        for k in range(cap + 80, -1, -1):
            a = mover + k
            hold = np.where(
                a < target, 1 - vb0[other, np.minimum(a, target - 1)], 1 - final[np.clip(a - other, 0, size - 1)]
            )
            roll = pb * (1 - vb0.T) + sum(
                p * np.max([wa[:, :, min(k + v, cap + 80)] for v in vs], axis=0) for p, vs in throws
            )
            ma[:, :, k] = roll - hold
            wa[:, :, k] = roll if k == 0 else np.where((a <= cap) & (roll > hold), roll, hold)
        va0 = wa[:, :, 0].copy()
        for k in range(target + 79, -1, -1):
            b = mover + k
            hold = np.where(b < target, 1 - va0[other, np.minimum(b, target - 1)], 1.0)
            roll = pb * (1 - va0.T) + sum(
                p * np.max([wb[:, :, min(k + v, target + 79)] for v in vs], axis=0) for p, vs in throws
            )
            mb[:, :, k] = roll - hold
            wb[:, :, k] = roll if k == 0 else np.where((b < target) & (roll > hold), roll, hold)
        if max(np.abs(wa[:, :, 0] - old[0]).max(), np.abs(wb[:, :, 0] - old[1]).max()) < tol:
            return wa, wb, ma, mb
    raise AssertionError("value iteration did not converge")


@pytest.fixture(scope="module")
def small() -> Policy:
    return solve(TARGET, EXTRA)


class TestAgainstValueIteration:
    def test_values_and_decisions_agree(self, small: Policy) -> None:
        wa, wb, ma, mb = value_iteration(TARGET, TARGET + EXTRA)
        assert np.abs(wa[:, :, 0] - small.win_first).max() < 1e-11
        assert np.abs(wb[:, :, 0] - small.win_second).max() < 1e-11
        first, second = small.unpacked()
        cap = TARGET + EXTRA
        clear_a = np.abs(ma[:, :, 1 : cap + 1]) > 1e-9
        decide_a = (np.arange(TARGET)[:, None, None] + np.arange(1, cap + 1)[None, None, :]) <= cap
        assert np.array_equal((ma[:, :, 1 : cap + 1] > 0)[clear_a & decide_a], first[:, :, 1:][clear_a & decide_a])
        clear_b = np.abs(mb[:, :, 1:TARGET]) > 1e-9
        decide_b = (np.arange(TARGET)[:, None, None] + np.arange(1, TARGET)[None, None, :]) < TARGET
        assert np.array_equal((mb[:, :, 1:TARGET] > 0)[clear_b & decide_b], second[:, :, 1:][clear_b & decide_b])


class TestModel:
    def test_the_cap_does_not_bind(self) -> None:
        low, high = solve(50, 200), solve(50, 300)
        assert np.abs(low.win_first - high.win_first).max() < 1e-13
        assert np.abs(low.win_second - high.win_second).max() < 1e-13
        assert highest_rolling_total(low) == highest_rolling_total(high) < low.cap - 80

    def test_a_game_to_t_is_the_game_to_t_plus_20_shifted(self, small: Policy) -> None:
        big = solve(TARGET + 20, EXTRA)
        assert np.abs(big.win_first[20:, 20:] - small.win_first).max() < 1e-13
        assert np.abs(big.win_second[20:, 20:] - small.win_second).max() < 1e-13
        small_first, small_second = small.unpacked()
        big_first, big_second = big.unpacked()
        assert np.array_equal(big_first[20:, 20:, : small.cap + 1], small_first)
        assert np.array_equal(big_second[20:, 20:, :TARGET], small_second)

    def test_the_best_numeral_is_never_worse(self, small: Policy) -> None:
        assert small.exceptions == 0

    def test_final_turn(self, small: Policy) -> None:
        valid = float(1 - odds().bust_probability)
        assert float(Fraction(58, 81)) == valid
        assert np.allclose(small.final_win[:8], valid)  # any valid throw beats a deficit below 8
        assert small.final_roll[0]  # at a tie, 58/81 > 1/2: roll
        assert np.all(np.diff(small.final_win) <= 1e-15)  # the further behind, the worse
        assert small.final_rolls(5) and not small.final_rolls(-1)

    def test_the_second_player_holds_on_reaching_the_target(self, small: Policy) -> None:
        assert not small.second_rolls(30, 35, 10) and not small.second_rolls(0, 0, TARGET)

    def test_evaluating_the_expert_against_itself_gives_its_values(self, small: Policy) -> None:
        first, second = small.unpacked()
        values = evaluate(TARGET, small.cap, first, second, small.final_win)
        assert np.abs(values - small.win_first).max() < 1e-12


class TestCache:
    def test_written_once_then_read(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("LUDOTECA_CACHE", str(tmp_path))
        table.cache_clear()
        try:
            built = table(TARGET)
            assert table_path(TARGET).exists() and table(TARGET) is built
            read = Policy.read(table_path(TARGET))
            assert (
                np.array_equal(read.roll_first, built.roll_first)
                and read.final_roll.tolist() == built.final_roll.tolist()
            )
            assert np.abs(read.win_first - built.win_first).max() < 1e-7  # float32 on disk
        finally:
            table.cache_clear()

    def test_an_unwritable_cache_still_gives_a_table(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        blocker = tmp_path / "file"
        blocker.write_text("not a directory")
        monkeypatch.setenv("LUDOTECA_CACHE", str(blocker / "cache"))
        table.cache_clear()
        try:
            assert table(TARGET).target == TARGET and not has_table(TARGET)
        finally:
            table.cache_clear()
