"""Fixtures of Ludor's pure tests: an engine and tables set up with chosen hands."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import pytest
from ludor.engine import LudorEngine, LudorState, Title
from ludor.hierarchy import sorted_cards
from ludor.trick import Trick
from ludoteca.core.engine import JSON, Event
from ludoteca.core.rng import Rng

SEED = "1d0f" * 16

Table = Callable[..., LudorState]


@pytest.fixture(scope="session")
def engine() -> LudorEngine:
    return LudorEngine()


@pytest.fixture(scope="session")
def table(engine: LudorEngine) -> Table:
    """``table(hands, leader=0, options=None, players=None, titles=None)``: a game in its play
    phase with exactly these hands (codes), ``leader`` to open the first trick."""

    def make(hands: Sequence[Sequence[str]], leader: int = 0, options: Mapping[str, Any] | None = None,
             players: Sequence[str] | None = None, titles: Sequence[str | None] | None = None) -> LudorState:
        n = len(hands)
        state = engine.new_game(list(players or ["human"] * n), dict(options or {}), Rng(SEED))
        state = replace(state, hands=tuple(tuple(sorted_cards(h)) for h in hands), trick=Trick(leader, leader))
        if titles is not None:
            state = replace(state, titles=tuple(None if t is None else Title(t) for t in titles))
        return state

    return make


Run = Callable[..., tuple[LudorState, list[Event]]]


def body_of(move: JSON | str) -> JSON:
    """``"pass"``, ``"autoplim"``, ``"autoplim plim"``, ``"7O 7C"`` (a play) or a body as is."""
    if not isinstance(move, str):
        return move
    if move == "pass":
        return {"type": "pass"}
    if move.startswith("autoplim"):
        return {"type": "play_autoplim", "declare_plim": move == "autoplim plim"}
    return {"type": "play", "cards": move.split()}


@pytest.fixture(scope="session")
def run(engine: LudorEngine) -> Run:
    """``run(state, (seat, move), ...)``: apply the moves in order (see :func:`body_of`); returns
    the last state and all the events."""

    def apply_all(state: LudorState, *moves: tuple[int, JSON | str]) -> tuple[LudorState, list[Event]]:
        events: list[Event] = []
        for seat, move in moves:
            state, new = engine.apply(state, seat, body_of(move))
            events.extend(new)
        return state, events

    return apply_all
