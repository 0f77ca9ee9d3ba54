"""A player's record of the opponent's board: the red face cards with red value cards beneath.

In the text, when a guess is right the guesser "puts a red 5 from their hand beneath one of the
red jacks on their own board". The record is therefore a mirror of what has been found on the
opponent's board, kept with the guesser's own red cards (hearts and diamonds, Ace to 10: two of
each value, exactly enough since a board holds each value at most twice). The red cards not
placed yet are the guesser's "hand".

The record is built from public facts only (the found cards), so every seat may see both records.
For a value found twice the heart goes down first, then the diamond (board order).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ludoteca.core.cards import FrenchCard

from speculation.board import RED, RED_VALUE_CARDS, VALUE_CARDS, Board, value_of


@dataclass(frozen=True)
class Record:
    """``cards[face][position]``: the red card placed there, ``None`` while nothing is found."""

    cards: tuple[tuple[str | None, ...], ...]
    hand: tuple[str, ...]


_RED_OF: dict[str, tuple[str, ...]] = {card: tuple(FrenchCard(value_of(card), s).code for s in RED)
                                       for card in VALUE_CARDS}
"""The red cards of a black value card's value, in the order they go down (heart, diamond)."""


@lru_cache(maxsize=512)
def record_of(opponent: Board) -> Record:
    """The record a player keeps of ``opponent`` (the board they attack). Kept per board (an
    immutable value, hashed by its cards; a record is made of tuples): every view shows both
    records, and a board changes only when a guess finds one of its cards (working the record
    out was a sixth of a view). At most 512: the boards of the games in play, a few versions each."""
    used: set[str] = set()
    cards: list[tuple[str | None, ...]] = []
    for faces_found, faces_cards in zip(opponent.found, opponent.cards, strict=True):
        row: list[str | None] = []
        for found, card in zip(faces_found, faces_cards, strict=True):
            red = None
            if found:
                red = next(c for c in _RED_OF[card] if c not in used)
                used.add(red)
            row.append(red)
        cards.append(tuple(row))
    return Record(tuple(cards), tuple(c for c in RED_VALUE_CARDS if c not in used))

