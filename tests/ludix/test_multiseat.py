"""The expert with 3 to 8 seats (:mod:`ludix.multiseat`) on constructed states: the end of the game
exact for every seat still to play (checked against an independent exact computation in
fractions and an independent sweep), the seats that are done beaten; below the target the
two-seat chances against each opponent combined, which with two seats is the exact table."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from functools import cache

import numpy as np
import pytest
from ludix import multiseat
from ludix.bots import expert_rolls, expert_table, two_seat_rolls
from ludix.numerals import odds
from ludix.table import Policy, table_path

TARGET = 50
"""Small enough for the isolated cache to solve its two-seat table in about a second."""


@pytest.fixture(autouse=True, scope="module")
def _tables(isolated_tables: None) -> Iterator[None]:
    yield


def view(totals: tuple[int, ...], seat: int, first: int = 0, target: int = TARGET) -> dict[str, object]:
    return {"seat": seat, "totals": totals, "target": target, "first_player": first,
            "final_round": max(totals) >= target}  # fmt: skip


@cache
def passes(d: int) -> Fraction:
    """Exactly: the chance that a turn that rolls on gathers more than ``d`` points (best numerals)."""
    if d < 0:
        return Fraction(1)
    return sum((t.probability * passes(d - t.best.value) for t in odds().valid if t.best), Fraction(0))


def plan_of(totals: tuple[int, ...], seat: int, first: int = 0) -> np.ndarray:
    policy, shift = expert_table(TARGET)
    return multiseat.plan(policy, shift, TARGET, totals, seat, first, max(totals) >= TARGET)


class TestEndOfTheGame:
    def test_holding_values_are_exact_for_the_seats_still_to_play(self) -> None:
        """4 seats, seat 0 first and done at 65; seat 1 holds at ``a``; seats 2 (40) and 3 (20) play
        their last turn each rolling until strictly ahead: ``a`` below 65 loses, 65 shares with
        seat 0 if both fail, above wins if both fail."""
        totals = (65, 10, 40, 20)
        got = multiseat.end_values(totals, done=[0], later=[2, 3], low=64, count=800)
        fail = [(1 - passes(a - 40)) * (1 - passes(a - 20)) for a in range(64, 864)]
        want = [Fraction(0), fail[1] / 2, *fail[2:]]
        assert got.tolist() == pytest.approx([float(w) for w in want], abs=1e-12)

    def test_the_last_seat_holds_as_soon_as_it_is_strictly_ahead(self) -> None:
        plan = plan_of((70, 30, 10), seat=2)  # seat 2 closes the last round: it must pass 70
        assert plan[1 : 70 - 10 + 1].all()  # behind, and at the tie (58/81 > 1/2)
        assert not plan[70 - 10 + 1 :].any()

    def test_a_seat_still_to_play_makes_it_roll_past_the_leader(self) -> None:
        """Seat 1 at 10 must pass seat 0's 60; seat 2 (45) plays after it: at 61 seat 2 needs 17
        points (likely), so rolling on pays; the old reduction (the leader alone) holds."""
        totals = (60, 10, 45)
        assert expert_rolls(view(totals, 1), 51) is True
        assert two_seat_rolls(view(totals, 1), 51) is False

    def test_the_plan_is_the_exact_sweep_of_the_last_round(self) -> None:
        """An independent sweep (hold: the exact value above, from fractions; a bust loses, as
        the last round started behind; a throw counts its best numeral) gives the same bits."""
        totals, seat, later = (62, 10, 45, 30), 1, (45, 30)
        plan = plan_of(totals, seat)
        top = len(plan) - 1 + 80
        own = totals[seat]
        value: dict[int, float] = {}
        rolls: dict[int, bool] = {}
        for k in range(top, 0, -1):
            a = own + k
            hold = 0.0 if a < 62 else (0.5 if a == 62 else 1.0)
            for t in later:
                hold *= float(1 - passes(a - t))
            if k > len(plan) - 1:
                value[k] = hold
                continue
            roll = sum(float(th.probability) * value[k + th.best.value] for th in odds().valid if th.best)
            rolls[k] = roll > hold
            value[k] = max(roll, hold)
        assert [rolls[k] for k in range(1, len(plan))] == plan[1:].tolist()

    def test_the_seat_closing_the_round_holds_when_banking_wins(self) -> None:
        assert expert_rolls(view((40, 45, 30), 2), 21) is False  # 30 + 21 = 51 beats everyone


FULL = table_path(300)
"""The full table as ``make policy`` builds it (read before the module's cache is isolated)."""


@pytest.mark.skipif(not FULL.exists(), reason=f"no table at {FULL}: run `python -m ludix.policy build`")
def test_banking_the_target_with_two_seats_still_to_play_is_not_the_end() -> None:
    """Game to 300, 3 seats: the first player at 220 throws 80 more: two seats at 200 still get a
    last turn each (each passes 300 with chance ``q(100)``), so it rolls on; the old reduction (the
    table against one opponent with one last turn) holds there."""
    policy = Policy.read(FULL)
    assert bool(multiseat.plan(policy, 0, 300, (220, 200, 200), 0, 0, False)[80]) is True
    assert policy.first_rolls(220, 200, 80) is False


@pytest.mark.skipif(not FULL.exists(), reason=f"no table at {FULL}: run `python -m ludix.policy build`")
@pytest.mark.parametrize("seats", [3, 4, 8])
def test_at_the_start_more_seats_take_more_risk(seats: int) -> None:
    """Game to 300, every seat at 0: the two-seat table holds from 124 on (first player); with
    more opponents to beat the plan rolls on further (it needs more variance): from 151 with 3
    seats, 163 with 4, and with 8 it rolls on to the target."""
    policy = Policy.read(FULL)
    first_hold = next(k for k in range(1, 300) if not policy.first_rolls(0, 0, k))
    bits = multiseat.plan(policy, 0, 300, (0,) * seats, 0, 0, False)
    assert first_hold == 124
    assert next(k for k in range(1, 301) if not bits[k]) == {3: 151, 4: 163, 8: 300}[seats]


class TestPlan:
    def test_two_seats_read_the_exact_table(self) -> None:
        policy, shift = expert_table(TARGET)
        assert expert_rolls(view((10, 20), 0), 30) == policy.first_rolls(10 + shift, 20 + shift, 30)

    def test_with_two_seats_the_plan_is_the_exact_table(self) -> None:
        """The plan's construction (hold valued by the chance at the start of the opponent's turn,
        from the target on by the last turn rolling until strictly ahead) applied to two seats
        gives the solved table's bits at every state and turn total (the expert reads the table
        there; this checks the construction the larger tables rely on)."""
        policy, shift = expert_table(TARGET)
        differ = 0
        for a in range(TARGET):
            for b in range(TARGET):
                for seat in (0, 1):
                    totals = (a, b)
                    bits = plan_of(totals, seat)
                    own, other = totals[seat] + shift, totals[1 - seat] + shift
                    for k in range(1, TARGET - totals[seat] + 40):
                        want = (policy.first_rolls(own, other, k) if seat == 0
                                else totals[seat] + k < TARGET and policy.second_rolls(own, other, k))  # fmt: skip
                        differ += want != (k < len(bits) and bool(bits[k]))
        assert differ == 0

    @pytest.mark.parametrize("seats", [2, 3, 4, 5, 8])
    def test_even_chances_give_parity(self, seats: int) -> None:
        even = np.full((seats - 1, 3), 0.5)
        assert multiseat.combine(even) == pytest.approx(np.full(3, 1 / seats), rel=1e-9)

    def test_with_one_opponent_the_chance_is_the_two_seat_one(self) -> None:
        w = np.array([[0.1, 0.37, 0.5, 0.93]])
        assert multiseat.combine(w) == pytest.approx(w[0], rel=1e-12)

    @pytest.mark.parametrize("seats", [3, 4, 8])
    def test_the_strongest_opponent_weighs_most(self, seats: int) -> None:
        """Lowering the chance against the strongest opponent costs more than the same against a
        weaker one; and the value rises with every chance."""
        base = np.linspace(0.3, 0.7, seats - 1)[:, None]
        value = multiseat.combine(base)[0]
        lower_strongest, lower_weakest = base.copy(), base.copy()
        lower_strongest[0] -= 0.05
        lower_weakest[-1] -= 0.05
        assert multiseat.combine(lower_strongest)[0] < multiseat.combine(lower_weakest)[0] < value

    def test_below_the_target_the_plan_is_the_exact_sweep_of_its_values(self) -> None:
        """An independent sweep over the turn total, holding valued by ``going_on`` below the
        target and ``end_values`` from it on, a bust by ``going_on`` at the turn's start."""
        policy, shift = expert_table(TARGET)
        totals, seat, done, later = (20, 5, 35, 12), 1, [0], [2, 3]
        plan = plan_of(totals, seat)
        own, top = totals[seat], len(plan) - 1 + 80
        below = multiseat.going_on(policy, shift, totals, done, later, own + np.arange(TARGET - own))
        above = multiseat.end_values(totals, done, later, TARGET, top + own - TARGET + 1)
        value: dict[int, float] = {}
        rolls: dict[int, bool] = {}
        for k in range(top, 0, -1):
            hold = float(below[k]) if own + k < TARGET else float(above[own + k - TARGET])
            if k > len(plan) - 1:
                value[k] = hold
                continue
            roll = 23 / 81 * float(below[0])
            roll += sum(float(th.probability) * value[k + th.best.value] for th in odds().valid if th.best)
            rolls[k] = roll > hold
            value[k] = max(roll, hold)
        assert [rolls[k] for k in range(1, len(plan))] == plan[1:].tolist()

    def test_every_decision_with_more_seats_is_the_plan(self) -> None:
        rng = np.random.default_rng(8)
        for seats in (3, 4, 8):
            totals = tuple(int(x) for x in rng.integers(0, TARGET, size=seats))
            seat = int(rng.integers(seats))
            bits = plan_of(totals, seat)
            assert [expert_rolls(view(totals, seat), k) for k in range(1, len(bits) + 5)] == [
                *bits[1:].tolist(), False, False, False, False, False]

    @pytest.mark.parametrize("seats", [3, 4, 8])
    def test_the_sweep_never_rolls_near_its_top(self, seats: int) -> None:
        """Holding is forced above the sweep's top: the plan must stop rolling well below it (on
        states of a game: every seat below the target, or, in the last round, some seat that has
        played this round at or above it)."""
        rng = np.random.default_rng(seats)
        for _ in range(60):
            totals = [int(x) for x in rng.integers(0, TARGET, size=seats)]
            seat, first = int(rng.integers(seats)), int(rng.integers(seats))
            done = [s for s in range(seats) if (s - first) % seats < (seat - first) % seats]
            if done and rng.random() < 0.5:
                totals[int(rng.choice(done))] = int(rng.integers(TARGET, TARGET + 60))
            plan = plan_of(tuple(totals), seat, first)
            assert not plan[len(plan) - 80 :].any(), (totals, seat, first)
