"""Bots: always a legal action, the steady threshold is the exact optimum of expected points, the
expert reads the table the way the model says (checked by playing it through the engine against
the exact evaluation), steady sees the end of the game and blind does not (the multi-seat expert:
test_multiseat.py)."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ludix import bots
from ludix.bots import BOTS, expected_turn_points, expert_rolls, expert_table, steady_threshold, two_seat_rolls
from ludix.engine import LudixEngine, LudixState
from ludix.numerals import odds
from ludix.table_build import blind_policy, steady_policy, versus
from ludoteca.core.rng import Rng

ENGINE = LudixEngine()


@pytest.fixture(autouse=True, scope="module")
def _tables(isolated_tables: None) -> Iterator[None]:
    yield


def play(players: list[str], target: int, seed: str, first: int, check: bool = True) -> LudixState:
    """A game of bots through the engine; ``first`` calls "Alea jacta est"."""
    state = ENGINE.new_game(players, {"target": target}, Rng(seed))
    state, _ = ENGINE.apply(state, first, {"type": "alea_jacta_est"})
    rnd = random.Random(seed)
    while ENGINE.result(state) is None:
        (seat,) = ENGINE.to_act(state)
        legal = ENGINE.legal_actions(state, seat)
        action = BOTS[players[seat][4:]](ENGINE.view(state, seat), legal, rnd)
        if check:
            assert action in legal
        state, _ = ENGINE.apply(state, seat, action)
    return state


class TestLegality:
    @settings(max_examples=30, deadline=None)
    @given(
        levels=st.lists(st.sampled_from(sorted(BOTS)), min_size=2, max_size=5),
        target=st.sampled_from([50, 90]),
        seed=st.binary(min_size=16, max_size=16).map(bytes.hex),
        first=st.integers(0, 4),
    )
    def test_bots_play_legal_moves_to_the_end(self, levels: list[str], target: int, seed: str, first: int) -> None:
        play([f"bot:{lv}" for lv in levels], target, seed, first % len(levels))

    @pytest.mark.parametrize("level", sorted(BOTS))
    def test_bots_call_when_they_may(self, level: str) -> None:
        state = ENGINE.new_game(["bot:x", "bot:y"], {}, Rng("cd" * 32))
        action = BOTS[level](ENGINE.view(state, 1), ENGINE.legal_actions(state, 1), random.Random(0))
        assert action == {"type": "alea_jacta_est"}


class TestSteady:
    def test_threshold_is_110(self) -> None:
        assert steady_threshold() == 110 == math.ceil(odds().expected_points / odds().bust_probability)

    def test_110_maximizes_expected_points_exactly(self) -> None:
        best = expected_turn_points(110)
        assert best > expected_turn_points(109) and best > expected_turn_points(111)
        assert isinstance(best, Fraction) and round(float(best), 2) == 49.40

    def test_110_is_the_argmax_over_every_threshold(self) -> None:
        throws = [(float(t.probability), t.best.value) for t in odds().valid if t.best]

        def expected(threshold: int) -> float:
            value = [0.0] * (threshold + 81)
            for k in range(threshold + 80, -1, -1):
                value[k] = k if k >= threshold and k > 0 else sum(p * value[k + v] for p, v in throws)
            return value[0]

        scores = {t: expected(t) for t in range(1, 301)}
        assert max(scores, key=scores.__getitem__) == 110

    @pytest.mark.parametrize("level", ["steady", "blind"])
    @pytest.mark.parametrize("before, action", [(0, "roll"), (50, "roll"), (96, "roll"), (97, "hold"), (200, "hold")])
    def test_holds_from_110_with_the_best_numeral(self, level: str, before: int, action: str) -> None:
        state = replace(_started(2), throw="XIII", turn_total=before)  # XIII: 13
        got = BOTS[level](ENGINE.view(state, 0), ENGINE.legal_actions(state, 0), random.Random(0))
        assert got == {"type": action}


def _decide(level: str, seats: int, seat: int, totals: tuple[int, ...], before: int, first: int = 0) -> str:
    """What ``level`` does at ``seat`` (its turn) after a throw of XIII (13) on ``before``."""
    state = replace(_started(seats, first), totals=totals, current=seat, throw="XIII", turn_total=before)
    return str(BOTS[level](ENGINE.view(state, seat), ENGINE.legal_actions(state, seat), random.Random(0))["type"])


class TestSteadyEndGame:
    """``steady`` sees the end of the game; ``blind`` (the old steady) does not."""

    def test_holds_on_reaching_the_target_below_110(self) -> None:
        # 250 + 37 + 13 = 300: as the first player (the other seat still to play)
        assert _decide("steady", 2, 0, (250, 100), 37) == "hold"
        assert _decide("blind", 2, 0, (250, 100), 37) == "roll"

    def test_second_player_holds_when_banking_wins(self) -> None:
        # seat 1 closes the round: 290 + 0 + 13 = 303 >= 300 wins at once
        assert _decide("steady", 2, 1, (200, 290), 0) == "hold"
        assert _decide("blind", 2, 1, (200, 290), 0) == "roll"

    def test_below_the_target_and_110_it_rolls(self) -> None:
        assert _decide("steady", 2, 1, (200, 100), 50) == "roll"

    @pytest.mark.parametrize("before, action", [(97, "roll"), (150, "roll"), (151, "roll"), (152, "hold")])
    def test_last_turn_rolls_until_strictly_ahead_of_the_leader(self, before: int, action: str) -> None:
        # the first player banked 320; seat 1 at 156: 156 + before + 13 must beat 320 (164 ties)
        state_totals = (320, 156)
        assert _decide("steady", 2, 1, state_totals, before) == action

    def test_blind_holds_at_110_in_its_last_turn_even_behind(self) -> None:
        assert _decide("blind", 2, 1, (320, 156), 97) == "hold"

    def test_last_round_with_more_seats_beats_every_seat_that_is_done(self) -> None:
        # 4 seats, seat 0 first; seat 1 reached 330, seat 2 (now, 200) must pass 330 (and seat 3 plays after)
        assert _decide("steady", 4, 2, (100, 330, 200, 120), 110) == "roll"  # 323
        assert _decide("steady", 4, 2, (100, 330, 200, 120), 118) == "hold"  # 331

    def test_its_final_turn_is_the_optimal_one_at_a_tie_too(self) -> None:
        """The exact evaluation takes steady's last turn as the solved one (``final_win``): both roll
        at every deficit >= 0 the game can leave, the tie included (beyond, both have no chance)."""
        policy, _ = expert_table(50)
        assert policy.final_roll[: policy.cap + 1].all()

    def test_rolls_to_start_a_turn(self) -> None:
        state = _started(2)
        assert bots.steady_bot(ENGINE.view(state, 0), ENGINE.legal_actions(state, 0), random.Random(0)) == {
            "type": "roll"
        }


def _started(seats: int, first: int = 0, target: int = 300) -> LudixState:
    state = ENGINE.new_game(["human"] * seats, {"target": target}, Rng("ef" * 32))
    return ENGINE.apply(state, first, {"type": "alea_jacta_est"})[0]


def _view(**fields: Any) -> dict[str, Any]:
    seats = fields.pop("seats", 2)
    seat = fields.pop("seat", 0)
    state = replace(_started(seats, fields.pop("first", 0), fields.pop("target", 50)), **fields)
    return ENGINE.view(state, seat)


class TestExpert:
    def test_plays_the_table_in_two_seats(self) -> None:
        policy, shift = expert_table(50)
        view = _view(totals=(10, 20), seat=0, first=0)
        assert expert_rolls(view, 30) == policy.first_rolls(10 + shift, 20 + shift, 30)
        view = _view(totals=(10, 20), seat=1, first=0, current=1)
        assert expert_rolls(view, 12) == policy.second_rolls(20 + shift, 10 + shift, 12)

    @pytest.mark.parametrize(
        "own, leader, turn_total, rolls", [(10, 60, 40, True), (10, 60, 51, False), (10, 60, 50, True)]
    )
    def test_last_turn_plays_to_beat_the_leader(self, own: int, leader: int, turn_total: int, rolls: bool) -> None:
        """Two seats: the second player's last turn (nobody plays after it)."""
        view = _view(totals=(leader, own), seat=1, first=0, current=1)
        assert view["final_round"]
        assert expert_rolls(view, turn_total) is rolls

    def test_the_old_reduction_plays_the_strongest_opponent(self) -> None:
        """``two_seat_rolls`` with more seats: the expert before the multi-seat plan (the benchmark
        plays it against the new one)."""
        policy, shift = expert_table(50)
        view = _view(seats=4, totals=(5, 30, 12, 7), seat=2, first=1, current=2)
        assert two_seat_rolls(view, 20) == policy.first_rolls(12 + shift, 30 + shift, 20)
        view = _view(seats=4, totals=(5, 30, 12, 7), seat=0, first=1, current=0)  # closes the round
        assert two_seat_rolls(view, 20) == policy.second_rolls(5 + shift, 30 + shift, 20)

    @pytest.mark.parametrize("level", ["steady", "blind"])
    @pytest.mark.parametrize("expert_seat", [0, 1])
    def test_matches_the_exact_evaluation_through_the_engine(self, level: str, expert_seat: int) -> None:
        """Expert vs steady (or blind) at target 50, the expert first or second: the engine + bots
        win as often as the exact policy evaluation predicts, within 4 standard errors (the
        expert first: 37.3% against steady, 48.9% against blind, 10.7 standard errors apart)."""
        policy, _ = expert_table(50)
        threshold = steady_threshold()
        bits = steady_policy(policy, threshold) if level == "steady" else blind_policy(50, policy.cap, threshold)
        exact = versus(policy, bits)[expert_seat]
        games = 2000
        players = ["bot:expert", f"bot:{level}"] if expert_seat == 0 else [f"bot:{level}", "bot:expert"]
        score = 0.0
        for g in range(games):
            result = ENGINE.result(play(players, 50, f"{g:064x}", 0, check=False))
            assert result is not None
            if expert_seat in result.winners:
                score += 1 / len(result.winners)
        rate = score / games
        assert abs(rate - exact) < 4 * math.sqrt(exact * (1 - exact) / games), (rate, exact)
