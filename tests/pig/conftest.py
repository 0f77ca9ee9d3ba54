"""Fixtures of Pig's pure tests: the engine, a game started in any position, and an RNG whose
next throw is the face a test needs (so each rule is checked on the exact throw it is about)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import pytest
from ludoteca.core.rng import Rng
from pig.engine import DIE, PigEngine, PigState

SEED = "0d1e" * 16

Start = Callable[..., PigState]


@pytest.fixture(scope="session")
def engine() -> PigEngine:
    return PigEngine()


def _throwing(face: int) -> Rng:
    for counter in range(1000):
        if DIE.roll(Rng(SEED, counter)) == face:
            return Rng(SEED, counter)
    raise AssertionError(f"no throw of {face} within reach")


@pytest.fixture(scope="session")
def throwing() -> Callable[[int], Rng]:
    """``throwing(face)``: an RNG whose next throw of the die is ``face``."""
    return _throwing


@pytest.fixture(scope="session")
def start(engine: PigEngine) -> Start:
    """``start(seats=2, first=0, target=100, players=None, **fields)``: a new game with ``first``
    to play, then any field replaced (``scores``, ``turn_total``, ``rng`` ...)."""

    def make(seats: int = 2, first: int = 0, target: int = 100, players: Sequence[str] | None = None,
             **fields: Any) -> PigState:
        state = engine.new_game(list(players or ["human"] * seats), {"target": target}, Rng(SEED))
        return replace(state, first_player=first, current=first, **fields)

    return make
