"""The declared bound (RULES.md section 11): the round bound and the action bound end the game."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace

import pytest
from ludic import engine as ludic_engine
from ludic.bots import BOTS
from ludic.engine import MAX_ACTIONS, MAX_ROUNDS, LudicEngine
from ludic.state import LudicState
from ludoteca.core.errors import GameOverError
from ludoteca.core.rng import Rng

SEED = "b0d5" * 16


def never_guessing(engine: LudicEngine, state: LudicState, rnd: random.Random) -> tuple[int, dict]:
    """Random listed actions (a random Seeker never guesses); a library rule as Vexer."""
    seat = rnd.choice(sorted(engine.to_act(state)))
    legal = engine.legal_actions(state, seat)
    if legal:
        return seat, rnd.choice(legal)
    return seat, BOTS["random"](engine.view(state, seat), engine.action_templates(state, seat), rnd)


def play(engine: LudicEngine, state: LudicState, rnd: random.Random, limit: int) -> LudicState:
    for _ in range(limit):
        if state.phase == "over":
            return state
        state, _ = engine.apply(state, *never_guessing(engine, state, rnd))
    return state


def test_a_table_that_never_finds_rules_ends_at_the_round_bound(engine: LudicEngine,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ludic_engine, "MAX_ROUNDS", 3)
    rnd = random.Random(1)
    state = play(engine, engine.new_game(["human"] * 3, {}, Rng(SEED)), rnd, 2000)
    assert state.phase == "over" and len(state.rounds) == 3
    assert all(r["ended_by"] == "flip" and r["points"] == 0 for r in state.rounds)
    result = engine.result(state)
    assert result is not None and result.winners == (0, 1, 2)
    assert result.summary["bound"] == {"reached": "rounds", "limit": 3}
    assert "round bound" in result.summary["won_by"]


def test_a_round_limit_below_the_bound_is_the_options_not_the_bound(engine: LudicEngine) -> None:
    rnd = random.Random(2)
    state = play(engine, engine.new_game(["human"] * 3, {"round_limit": 2}, Rng(SEED)), rnd, 2000)
    result = engine.result(state)
    assert result is not None and len(state.rounds) == 2
    assert result.summary["bound"] is None and result.summary["won_by"].startswith("the round limit")
    assert MAX_ROUNDS == 100 and MAX_ACTIONS == 20_000


def test_the_action_that_reaches_the_bound_ends_the_game_and_drops_the_round(engine: LudicEngine,
                                                                           start: Callable[..., LudicState]) -> None:
    state = start("the top card is red")
    state = replace(state, scores=(3, 9, 1))
    state = replace(state, actions=engine.bound(state) - 1)
    seat = min(engine.to_act(state))
    state, events = engine.apply(state, seat, engine.legal_actions(state, seat)[0])
    assert state.phase == "over" and state.round is None and state.rounds == ()
    assert [e.type for e in events][-2:] == ["ActionBoundReached", "GameWon"]
    result = engine.result(state)
    assert result is not None and result.winners == (1,) and result.scores == (3.0, 9.0, 1.0)
    assert result.summary["bound"] == {"reached": "actions", "limit": MAX_ACTIONS}
    assert "action bound" in result.summary["won_by"]
    assert engine.view(state, 0)["rule"] is None
    with pytest.raises(GameOverError):
        engine.apply(state, seat, {"type": "draw"})
    assert engine.load(engine.dump(state)).actions == MAX_ACTIONS
