"""Fixtures of Speculation's pure tests: an engine and a ``table`` of helpers that set up rigged
boards and games already in the guessing phase."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest
from ludoteca.core.rng import Rng
from speculation.board import FACES, Board, Tier, value_of
from speculation.engine import DecidedBy, Phase, SpeculationEngine, State

SEED = "5e" * 32
STANDARD = (5, 7, 2, 2, 3, 9, 1, 4, 6, 8, 10, 1, 3, 4, 6, 9)
"""A legal layout, left to right: JC 5 | JS 7 | QC 2 2 | QS 3 9 | KC 1 4 6 | KS 8 10 1 | joker 3 4 6 9."""
PAIRED_JOKER = (1, 3, 4, 6, 7, 8, 10, 10, 1, 3, 4, 6, 2, 2, 5, 9)
"""Another: the joker holds 2, 2, 5, 9."""


class Table:
    """Helpers over one engine."""

    STANDARD = STANDARD
    PAIRED_JOKER = PAIRED_JOKER

    @staticmethod
    def guess(value: Any) -> dict[str, Any]:
        return {"type": "guess", "value": value}

    @staticmethod
    def joker(*values: Any) -> dict[str, Any]:
        return {"type": "guess_joker", "values": list(values)}

    def __init__(self, engine: SpeculationEngine) -> None:
        self.engine = engine

    def new(self, players: Sequence[str] = ("human", "human"), options: dict[str, Any] | None = None,
            seed: str = SEED) -> State:
        return self.engine.new_game(list(players), options or {}, Rng(seed))

    def playing(self, board0: Sequence[int] = STANDARD, board1: Sequence[int] = STANDARD, guesser: int = 0,
                players: Sequence[str] = ("human", "human"), options: dict[str, Any] | None = None) -> State:
        """A game in the guessing phase; ``board0`` is seat 0's own board (seat 1 attacks it)."""
        state = self.new(players, options)
        return replace(state, boards=(Board.from_values(board0), Board.from_values(board1)),
                       phase=Phase.GUESSING, first_guesser=guesser, guesser=guesser, decided_by=DecidedBy.CLOTHING)

    def play(self, state: State, *moves: tuple[int, dict[str, Any]]) -> State:
        for seat, action in moves:
            state, _ = self.engine.apply(state, seat, action)
        return state

    def clear_tiers(self, state: State, seat: int) -> State:
        """``seat`` names every value of its opponent's jacks, queens and kings, in order."""
        board = state.boards[1 - seat]
        for i, face in enumerate(FACES):
            if face.tier is not Tier.JOKER:
                for card in board.cards[i]:
                    state = self.play(state, (seat, self.guess(value_of(card))))
        return state


@pytest.fixture(scope="session")
def engine() -> SpeculationEngine:
    return SpeculationEngine()


@pytest.fixture(scope="session")
def table(engine: SpeculationEngine) -> Table:
    return Table(engine)
