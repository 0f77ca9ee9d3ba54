"""Ludor's state through the shared codec (:mod:`ludoteca.codec`) keeps its stored shape.

The golden corpus holds each recorded game's final state as the hand-written codec dumped it
before the shared one: each loads into the frozen state and dumps back to exactly the same data,
so games stored before the change keep loading; a state stored before the action counter
existed loads with it at 0.
"""

from __future__ import annotations

import json

from golden.corpus import read
from ludor.engine import LudorEngine, LudorState, Move, Phase, Transfer
from ludor.trick import Trick
from ludoteca.rng import Rng


def test_every_recorded_final_state_loads_and_dumps_back_unchanged(engine: LudorEngine) -> None:
    recorded = read("ludor")
    assert recorded
    for game in recorded:
        stored = json.loads(json.dumps(game["dump"]))
        state = engine.load(stored)
        assert isinstance(state, LudorState) and state.phase is Phase.OVER
        assert engine.dump(state) == stored, game["label"]
        assert engine.result(state) is not None


def test_a_state_in_play_round_trips_with_its_trick_moves_and_exchange(engine: LudorEngine) -> None:
    """The middle of a game: a trick with a top, passes and moves, and a round's exchange."""
    for game in read("ludor"):
        state = engine.new_game(list(game["players"]), dict(game["options"]), Rng(game["seed"]))
        for seat, action in game["actions"]:
            state, _ = engine.apply(state, seat, action)
            data = json.loads(json.dumps(engine.dump(state)))
            again = engine.load(data)
            assert again == state
            if state.trick is not None and state.trick.top is not None and state.moves and state.exchange:
                assert isinstance(again.trick, Trick) and isinstance(again.moves[0], Move)
                assert isinstance(again.exchange[0], Transfer) and data["trick"]["top"] == list(state.trick.top)
                return
    raise AssertionError("no recorded game reaches a trick after an exchange")


def test_a_state_stored_without_the_action_counter_loads_with_none_counted(engine: LudorEngine) -> None:
    stored = dict(read("ludor")[0]["dump"])
    del stored["actions"]
    assert engine.load(stored).actions == 0
