"""Ludor's state through the shared codec (:mod:`ludoteca.core.codec`) keeps its stored shape.

Every recorded final state loads and dumps back unchanged (tests/shared/test_codec_games.py, for
every game); here: a state in play round-trips, and a state stored before the action counter
existed loads with it at 0.
"""

from __future__ import annotations

import json

from golden.corpus import read
from ludor.engine import LudorEngine, Move, Transfer
from ludor.trick import Trick
from ludoteca.core.rng import Rng


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
