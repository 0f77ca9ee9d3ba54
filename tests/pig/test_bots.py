"""Pig's bots against exact values computed here, independently of the engine and the bots.

The oracle: the banked points of one turn of "roll until the turn total reaches k" have an exact
distribution, found here by recursion over the turn total (each face 1/6, in exact fractions).
Then ``hold20`` played through the engine, each throw of the die forced in turn (an RNG
positioned on each face), must give exactly that distribution for k = 20; and k = 20 maximizes
the expected points of a turn (rolling at turn total t gains (20 - t)/6 on average), with the
published value of about 8.14 (Neller and Presser, "Optimal play of the dice game Pig", 2004).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from functools import cache

import pytest
from ludoteca.core.rng import Rng
from pig.bots import BOTS, HOLD_AT, hold20_bot
from pig.engine import PigEngine, PigState

Start = Callable[..., PigState]
Throwing = Callable[[int], Rng]
SIXTH = Fraction(1, 6)


@cache
def turn_distribution(hold_at: int, total: int = 0) -> dict[int, Fraction]:
    """The banked points of a turn of "roll until the turn total reaches ``hold_at``" from turn
    total ``total``: each face has chance 1/6; a 1 banks 0, a face reaching ``hold_at`` banks the
    new total, any other continues."""
    out: dict[int, Fraction] = {}
    for face in range(1, 7):
        if face == 1:
            outcomes = {0: Fraction(1)}
        elif total + face >= hold_at:
            outcomes = {total + face: Fraction(1)}
        else:
            outcomes = turn_distribution(hold_at, total + face)
        for points, p in outcomes.items():
            out[points] = out.get(points, Fraction(0)) + p * SIXTH
    return out


def expected(distribution: dict[int, Fraction]) -> Fraction:
    return sum((points * p for points, p in distribution.items()), Fraction(0))


def engine_turn_distribution(engine: PigEngine, state: PigState, throwing: Throwing) -> dict[int, Fraction]:
    """The banked points of seat 0's turn, ``hold20`` choosing, every throw forced in turn."""
    out: dict[int, Fraction] = {}

    def walk(state: PigState, p: Fraction) -> None:
        if state.current != 0:
            out[state.scores[0]] = out.get(state.scores[0], Fraction(0)) + p
            return
        action = hold20_bot(engine.view(state, 0), engine.legal_actions(state, 0), random.Random(0))
        if action == {"type": "hold"}:
            walk(engine.apply(state, 0, action)[0], p)
            return
        assert action == {"type": "roll"}
        for face in range(1, 7):
            walk(engine.apply(replace(state, rng=throwing(face)), 0, action)[0], p * SIXTH)

    walk(state, Fraction(1))
    return out


class TestHold20:
    def test_the_oracle_is_a_distribution(self) -> None:
        for k in (1, 2, 10, 20, 30):
            assert sum(turn_distribution(k).values()) == 1

    def test_hold_at_20_facts(self) -> None:
        dist = turn_distribution(20)
        assert set(dist) == {0, 20, 21, 22, 23, 24, 25}
        assert round(float(expected(dist)), 2) == 8.14
        assert round(float(dist[0]), 4) == 0.6245  # most turns lose everything to a 1
        assert dist[25] < dist[24] < dist[23] < dist[22] < dist[21] < dist[20]

    def test_20_maximizes_the_expected_points_of_a_turn(self) -> None:
        values = {k: expected(turn_distribution(k)) for k in range(1, 41)}
        best = max(values.values())
        assert {k for k, v in values.items() if v == best} == {20, 21}  # rolling at 20 gains (20 - 20)/6 = 0
        assert HOLD_AT == 20

    def test_played_through_the_engine_it_banks_exactly_the_oracles_distribution(
            self, engine: PigEngine, start: Start, throwing: Throwing) -> None:
        assert engine_turn_distribution(engine, start(), throwing) == turn_distribution(20)

    def test_near_the_target_it_holds_on_reaching_it(self, engine: PigEngine, start: Start,
                                                     throwing: Throwing) -> None:
        """At 90 of 100 the turn stops at 10 or more: the distribution of "hold at 10", plus 90."""
        dist = engine_turn_distribution(engine, start(scores=(90, 0)), throwing)
        assert dist == {(90 if points == 0 else 90 + points): p for points, p in turn_distribution(10).items()}

    @pytest.mark.parametrize("turn_total, score, target, action", [
        (0, 0, 100, "roll"), (19, 0, 100, "roll"), (20, 0, 100, "hold"), (25, 0, 100, "hold"),
        (9, 90, 100, "roll"), (10, 90, 100, "hold"), (5, 5, 10, "hold"), (4, 5, 10, "roll"),
    ])
    def test_decisions(self, turn_total: int, score: int, target: int, action: str) -> None:
        view = {"seat": 1, "scores": [50, score], "target": target, "turn_total": turn_total}
        legal = [{"type": "roll"}, {"type": "hold"}] if turn_total else [{"type": "roll"}]
        assert hold20_bot(view, legal, random.Random(0)) == {"type": action}


class TestBots:
    @pytest.mark.parametrize("level", sorted(BOTS))
    def test_every_bot_plays_legal_actions_to_the_end(self, engine: PigEngine, level: str) -> None:
        for i in range(10):
            rnd = random.Random(i)
            state = engine.new_game([f"bot:{level}", "bot:hold20", "bot:random"], {"target": 50},
                                    Rng(f"{rnd.getrandbits(256):064x}"))
            while (seat := state.current) is not None:
                legal = engine.legal_actions(state, seat)
                action = BOTS[level if seat == 0 else ("hold20", "random")[seat - 1]](
                    engine.view(state, seat), legal, rnd)
                assert action in legal
                state, _ = engine.apply(state, seat, action)

    def test_the_random_bot_takes_both_actions(self) -> None:
        legal = [{"type": "roll"}, {"type": "hold"}]
        rnd = random.Random(5)
        assert {BOTS["random"]({}, legal, rnd)["type"] for _ in range(50)} == {"roll", "hold"}
