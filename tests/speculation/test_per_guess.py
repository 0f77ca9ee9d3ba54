"""The guesses' entries built once a process (``speculation.engine.PerGuess``): the views and the
stored documents are the ones built afresh, byte for byte, at every step of the recorded games, and
a guess never gets another's entry, however often the cache starts again."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import orjson
import pytest
from golden.corpus import read
from ludoteca.core import codec
from ludoteca.core.rng import Rng
from ludoteca.service_layer import registry
from speculation.engine import PerGuess, SpeculationEngine, State, _guess_view

ENGINE = SpeculationEngine()


def states_of(recorded: dict[str, Any]) -> list[State]:
    """Every state of a recorded game, each action applied to the state loaded back from its dump
    (as the service plays)."""
    options = dict(registry.game("speculation").options_schema().load(recorded["options"]))
    state = ENGINE.new_game(list(recorded["players"]), options, Rng(recorded["seed"]))
    out = [state]
    for seat, action in recorded["actions"]:
        state, _ = ENGINE.apply(ENGINE.load(ENGINE.dump(state)), seat, action)
        out.append(state)
    return out


@pytest.mark.parametrize("index", range(len(read("speculation"))))
def test_views_and_documents_are_the_ones_built_afresh(index: int) -> None:
    recorded = read("speculation")[index]
    states = states_of(recorded)
    assert len(states[-1].history) > 0
    for state in states:
        assert orjson.dumps(ENGINE.dump(state)) == orjson.dumps(codec.dump(state))
        fresh = [_guess_view(g) for g in state.history]
        for seat in (0, 1, None):
            assert ENGINE.view(state, seat)["history"] == fresh


def test_a_guess_never_gets_another_guesss_entry() -> None:
    """Guesses made and dropped one after the other (the next one often at the freed one's
    address, so at the same id), through a cache that keeps everything and through one that
    starts again every two entries: every entry is its own guess's."""
    recorded = max(read("speculation"), key=lambda r: len(r["actions"]))
    history = states_of(recorded)[-1].history
    assert len({_guess_view(g)["values"][0] for g in history}) > 1
    rnd = random.Random(0)
    for per in (PerGuess(_guess_view), PerGuess(_guess_view, kept=2)):
        for _ in range(300):
            guess = rnd.choice(history)
            assert per((replace(guess),)) == [_guess_view(guess)]  # an equal guess, a new object
        picked = tuple(rnd.sample(history, 5))
        assert per(picked + picked) == [_guess_view(g) for g in picked + picked]
