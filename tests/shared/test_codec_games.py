"""The games stored through the shared codec (:mod:`ludoteca.core.codec`) keep their stored shape.

The golden corpus holds each recorded game's final state as the game's hand-written codec dumped
it before the shared one (Ludix's options flattened in, Speculation's guesses with their
``answer``): each loads, and dumps back to exactly the same data, so games stored before the
change keep loading. A state that lacks a field added later (it has a default) loads with it.
"""

from __future__ import annotations

import json

import pytest
from golden.corpus import path_of, read
from ludoteca.service_layer import registry

GAMES = [game for game in registry.names() if path_of(game).exists()]  # every game with a recorded corpus


@pytest.mark.parametrize("game", GAMES)
def test_a_stored_state_loads_and_dumps_back_unchanged(game: str) -> None:
    engine = registry.game(game).engine
    for recorded in read(game):
        stored = json.loads(json.dumps(recorded["dump"]))
        state = engine.load(stored)
        assert engine.dump(state) == stored, f"{game} {recorded['label']}"
        assert engine.result(state) is not None


def test_a_ludix_state_stored_without_a_later_field_takes_its_default() -> None:
    engine = registry.game("ludix").engine
    stored = dict(read("ludix")[0]["dump"])
    del stored["actions"]
    assert engine.load(stored).actions == 0
