"""The declared bound (RULES.md section 8): the round bound and the action bound end the game."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from ludor import engine as ludor_engine
from ludor.engine import MAX_ACTIONS, MAX_ROUNDS, OVER, PLAY, VOTE, LudorEngine, LudorState
from ludoteca.core.errors import GameOverError
from ludoteca.core.rng import Rng

SEED = "1d0e" * 16


def play_on_forever(engine: LudorEngine, state: LudorState, rnd: random.Random) -> tuple[LudorState, int]:
    """Random plays; every vote says play on."""
    played = 0
    while state.phase != OVER:
        seat = rnd.choice(sorted(engine.to_act(state)))
        if state.phase == VOTE:
            action: dict = {"type": "vote", "end": False}
        else:
            action = rnd.choice(engine.legal_actions(state, seat))
        state, _ = engine.apply(state, seat, action)
        played += 1
        assert played <= engine.bound(state)
    return state, played


def test_a_table_that_always_votes_to_play_on_ends_at_the_round_bound(engine: LudorEngine,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ludor_engine, "MAX_ROUNDS", 3)
    state, _ = play_on_forever(engine, engine.new_game(["human"] * 4, {}, Rng(SEED)), random.Random(1))
    assert state.round == 3 and len(state.rounds) == 3
    result = engine.result(state)
    assert result is not None and result.summary["bound"] == {"reached": "rounds", "limit": 3}
    top = max(state.points)
    assert result.winners == tuple(s for s, p in enumerate(state.points) if p == top)


@pytest.mark.slow
def test_the_real_round_bound_ends_an_endless_table(engine: LudorEngine) -> None:
    state, played = play_on_forever(engine, engine.new_game(["human"] * 3, {}, Rng(SEED)), random.Random(2))
    assert len(state.rounds) == MAX_ROUNDS == 100 and played < MAX_ACTIONS
    result = engine.result(state)
    assert result is not None and result.summary["bound"] == {"reached": "rounds", "limit": 100}


def test_a_round_limit_is_the_options_not_the_bound(engine: LudorEngine) -> None:
    state, _ = play_on_forever(engine, engine.new_game(["human"] * 3, {"round_limit": 2}, Rng(SEED)),
                               random.Random(3))
    result = engine.result(state)
    assert result is not None and len(state.rounds) == 2 and result.summary["bound"] is None


def test_the_action_that_reaches_the_bound_ends_the_game_and_drops_the_round(engine: LudorEngine) -> None:
    state = engine.new_game(["human"] * 4, {}, Rng(SEED))
    assert state.phase == PLAY
    state = replace(state, actions=engine.max_actions({}, 4) - 1, points=(0, 5, 2, 5))
    seat = min(engine.to_act(state))
    state, events = engine.apply(state, seat, engine.legal_actions(state, seat)[0])
    assert state.phase == OVER and state.trick is None and state.actions == MAX_ACTIONS
    assert [e.type for e in events][-2:] == ["ActionBoundReached", "GameEnded"]
    result = engine.result(state)
    assert result is not None and result.winners == (1, 3) and state.rounds == ()
    assert result.summary["bound"] == {"reached": "actions", "limit": MAX_ACTIONS}
    for s in range(4):
        assert engine.legal_actions(state, s) == []
        with pytest.raises(GameOverError):
            engine.apply(state, s, {"type": "pass"})
    assert engine.dump(engine.load(engine.dump(state))) == engine.dump(state)
