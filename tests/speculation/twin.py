"""Speculation's secrets, as a perturbation for the contract suite (``tests/contract/twins.py``
finds this file by its path): ``twin(state, seat, rnd)`` is the same game with everything
``seat`` (``None``: a spectator) may not know changed; ``shuffle_hidden`` does it to one board."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from contract.twins import other_rng
from speculation.board import Board
from speculation.engine import SEATS, Phase


def shuffle_hidden(board: Any, rnd: random.Random) -> Any:
    """The same board with its hidden cards (unfound and set aside) dealt differently."""
    places = [(i, p) for i, face in enumerate(board.found) for p, f in enumerate(face) if not f]
    hidden = [board.cards[i][p] for i, p in places] + list(board.set_aside)
    rnd.shuffle(hidden)
    cards = [list(face) for face in board.cards]
    for (i, p), card in zip(places, hidden, strict=False):
        cards[i][p] = card
    return Board(tuple(tuple(c) for c in cards), board.found, tuple(hidden[len(places):]))


def twin(state: Any, seat: int | None, rnd: random.Random) -> Any:
    """The boards ``seat`` does not own with their hidden cards (unfound and set aside) dealt
    differently, sealed clothing reports changed, and the RNG."""
    if state.phase is Phase.OVER:
        return state
    boards = tuple(b if s == seat else shuffle_hidden(b, rnd) for s, b in enumerate(state.boards))
    items = list(state.items)
    if state.phase is Phase.CLOTHING:
        items = [c if s == seat or c is None else rnd.randrange(31) for s, c in enumerate(items)]
    assert tuple(SEATS) == (0, 1)
    return replace(state, boards=boards, items=tuple(items), rng=other_rng(rnd))
