"""Fixtures of Ludix's pure tests: an engine, states started by the call, an RNG positioned so
that the next throw is the one a test needs, and an isolated cache for policy tables."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any

import pytest
from ludix import bots, policy
from ludix.engine import LudixEngine, LudixState
from ludix.numerals import DICE, canonical
from ludoteca.core.dice import roll_all
from ludoteca.core.rng import Rng

SEED = "5eed" * 16

Start = Callable[..., LudixState]
RngWhere = Callable[[Callable[[str], bool]], Rng]


@pytest.fixture(scope="session")
def engine() -> LudixEngine:
    return LudixEngine()


def _rng_where(predicate: Callable[[str], bool], seed: str = SEED) -> Rng:
    """An RNG whose next throw (as a canonical multiset) satisfies ``predicate``."""
    for counter in range(0, 400_000, 4):
        probe = Rng(seed, counter)
        if predicate(canonical(roll_all(DICE, probe))):
            return Rng(seed, counter)
    raise AssertionError("no such throw within reach")


@pytest.fixture(scope="session")
def rng_where() -> RngWhere:
    return _rng_where


@pytest.fixture(scope="session")
def throwing() -> Callable[[str], Rng]:
    """``throwing("LXXI")``: an RNG whose next throw is that multiset."""
    return lambda multiset: _rng_where(lambda m: m == canonical(multiset))


@pytest.fixture(scope="session")
def start(engine: LudixEngine) -> Start:
    """``start(n, first=0, target=300, players=None, **fields)``: a game after the call."""

    def make(
        seats: int = 2, first: int = 0, target: int = 300, players: Sequence[str] | None = None, **fields: Any
    ) -> LudixState:
        state = engine.new_game(list(players or ["human"] * seats), {"target": target}, Rng(SEED))
        state, _ = engine.apply(state, first, {"type": "alea_jacta_est"})
        return replace(state, **fields)

    return make


@pytest.fixture(scope="module")
def isolated_tables(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Policy tables in a fresh cache dir (small targets are solved there, in about a second)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LUDOTECA_CACHE", str(tmp_path_factory.mktemp("ludix-cache")))
        policy.table.cache_clear()
        bots.expert_table.cache_clear()
        bots.turn_plan.cache_clear()
        yield
    policy.table.cache_clear()
    bots.expert_table.cache_clear()
    bots.turn_plan.cache_clear()
