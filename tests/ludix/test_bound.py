"""The declared bound (RULES.md section 5): the round bound and the action bound end the game."""

from __future__ import annotations

from dataclasses import replace

import pytest
from ludix import engine as ludix_engine
from ludix.engine import CALL, MAX_ROUNDS, ROLL, LudixEngine
from ludoteca.core.errors import GameOverError
from ludoteca.core.rng import Rng

SEED = "5eed" * 16


def test_players_who_never_hold_end_when_the_round_bound_completes(engine: LudixEngine) -> None:
    state = engine.new_game(["human", "human", "human"], {}, Rng(SEED))
    state, _ = engine.apply(state, 1, {"type": CALL})
    played = 1
    while not state.over:
        state, events = engine.apply(state, state.current, {"type": ROLL})
        played += 1
        assert played <= engine.max_actions({}, 3)
    assert state.turns == (MAX_ROUNDS,) * 3 and state.totals == (0, 0, 0)
    result = engine.result(state)
    assert result is not None and result.winners == (0, 1, 2)
    assert result.summary["bound"] == {"reached": "rounds", "limit": MAX_ROUNDS}
    assert events[-1].type == "GameEnded" and events[-1].data["bound"]["reached"] == "rounds"


def test_the_round_bound_ends_after_the_whole_round(engine: LudixEngine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ludix_engine, "MAX_ROUNDS", 3)
    state = engine.new_game(["human", "human"], {}, Rng(SEED))
    state, _ = engine.apply(state, 1, {"type": CALL})
    while not state.over:
        action = {"type": "hold"} if state.throw is not None else {"type": ROLL}
        state, _ = engine.apply(state, state.current, action)
    assert state.turns == (3, 3)
    result = engine.result(state)
    assert result is not None and max(state.totals) < state.target
    best = max(state.totals)
    assert result.winners == tuple(s for s, t in enumerate(state.totals) if t == best)


def test_the_action_that_reaches_the_bound_ends_the_game_and_loses_the_turn(engine: LudixEngine) -> None:
    state = engine.new_game(["human", "human"], {}, Rng(SEED))
    state, _ = engine.apply(state, 0, {"type": CALL})
    while state.throw is None or state.turn_total == 0:
        state, _ = engine.apply(state, state.current, {"type": ROLL})
    cap = engine.max_actions({}, 2)
    state = replace(state, actions=cap - 1, totals=(40, 70))
    state, events = engine.apply(state, state.current, {"type": ROLL})
    assert state.over and state.actions == cap and state.turn_total == 0 and state.throw is None
    assert state.totals == (40, 70)
    assert [e.type for e in events][-2:] == ["ActionBoundReached", "GameEnded"]
    result = engine.result(state)
    assert result is not None and result.winners == (1,)
    assert result.summary["bound"] == {"reached": "actions", "limit": cap}
    with pytest.raises(GameOverError):
        engine.apply(state, 0, {"type": ROLL})


def test_a_normal_end_names_no_bound(engine: LudixEngine) -> None:
    state = engine.new_game(["human", "human"], {"target": 50}, Rng(SEED))
    state, _ = engine.apply(state, 0, {"type": CALL})
    while not state.over:
        action = {"type": "hold"} if state.throw is not None else {"type": ROLL}
        state, _ = engine.apply(state, state.current, action)
    result = engine.result(state)
    assert result is not None and max(state.totals) >= 50 and result.summary["bound"] is None
    assert engine.load(engine.dump(state)) == state
