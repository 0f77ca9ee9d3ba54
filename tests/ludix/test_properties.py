"""Ludix's own properties (the generic ones, never stuck, bounded, codec, replay, views and twins,
are the contract suite's, tests/contract): a game ends on a completed round with someone at the
target and the highest totals winning, the totals are the sum of the banks the events report,
nothing is secret and every seat sees the spectator's view, and any input at all gives a
Ludoteca error or is a legal move."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from ludix.engine import LudixEngine, LudixState
from ludoteca.core.engine import Event
from ludoteca.core.errors import LudotecaError
from ludoteca.core.rng import Rng

ENGINE = LudixEngine()
MAX_ACTIONS = 20_000

seeds = st.binary(min_size=32, max_size=32).map(bytes.hex)
tables = st.lists(st.sampled_from(["human", "bot:random", "bot:steady"]), min_size=2, max_size=8)
targets = st.sampled_from([50, 120, 300])


def play(seed: str, players: list[str], target: int, chooser: int) -> tuple[LudixState, list[Event]]:
    """A whole game, each action drawn from the legal ones by a seeded chooser that holds a third
    of the time it may."""
    pick = random.Random(chooser)
    state = ENGINE.new_game(players, {"target": target}, Rng(seed))
    events: list[Event] = []
    for _ in range(MAX_ACTIONS):
        if ENGINE.result(state) is not None:
            return state, events
        seat = pick.choice(sorted(ENGINE.to_act(state)))
        legal = ENGINE.legal_actions(state, seat)
        holds = [a for a in legal if a["type"] == "hold"]
        action = pick.choice(holds) if holds and pick.random() < 1 / 3 else pick.choice(legal)
        state, new = ENGINE.apply(state, seat, action)
        events.extend(new)
    raise AssertionError("no end within the bound")


@settings(max_examples=25, deadline=None)
@given(seed=seeds, players=tables, target=targets, chooser=st.integers(0, 2**32))
def test_the_end_and_the_totals(seed: str, players: list[str], target: int, chooser: int) -> None:
    state, events = play(seed, players, target, chooser)
    n = len(players)
    # the end: a completed round, someone at the target, the highest totals win
    result = ENGINE.result(state)
    assert result is not None and state.over
    assert len(set(state.turns)) == 1 and max(state.totals) >= target
    assert result.winners == tuple(s for s in range(n) if state.totals[s] == max(state.totals))
    assert [e.type for e in events].count("GameEnded") == 1 and events[-1].type == "GameEnded"
    # totals are the sum of the banks, each bank the sum of the chosen numerals since the turn began
    banked = [0] * n
    turn = 0
    for event in events:
        data = event.data
        if event.type == "NumeralChosen":
            turn += data["value"]
            assert data["turn_total"] == turn
        elif event.type == "PointsBanked":
            assert data["points"] == turn
            banked[data["seat"]] += turn
            assert data["total"] == banked[data["seat"]]
        elif event.type == "Busted":
            assert data["lost"] == turn and data["dice"]
        elif event.type == "DiceThrown":
            assert data["turn_total"] == turn
        if event.type in ("PointsBanked", "Busted"):
            turn = 0
        assert event.audience is None  # nothing in Ludix is secret
    assert tuple(banked) == state.totals
    assert [e.type for e in events].count("TurnStarted") == sum(state.turns)
    for seat in range(n):
        assert {**ENGINE.view(state, seat), "seat": None} == ENGINE.view(state, None)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=6) | st.sampled_from(["roll", "hold", "LXXI"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)
bodies = st.dictionaries(st.sampled_from(["type", "numeral", "x"]), json_values, max_size=3) | json_values


@settings(max_examples=150, deadline=None)
@given(
    body=bodies,
    seat=st.one_of(st.integers(-2, 9), st.none(), st.text(max_size=2), st.lists(st.integers(), max_size=1)),
    throw=st.sampled_from([None, "LXXI"]),
)
def test_any_input_gives_a_ludoteca_error_or_a_legal_move(body: Any, seat: Any, throw: str | None) -> None:
    state = ENGINE.new_game(["human", "human"], {}, Rng("ab" * 32))
    state, _ = ENGINE.apply(state, 0, {"type": "alea_jacta_est"})
    state = replace(state, throw=throw)
    before = json.dumps(ENGINE.dump(state))
    try:
        ENGINE.apply(state, seat, body)
    except LudotecaError:
        pass
    else:
        assert body in ENGINE.legal_actions(state, seat)
    assert json.dumps(ENGINE.dump(state)) == before
