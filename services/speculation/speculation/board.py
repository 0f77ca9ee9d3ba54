"""A player's board: the black face cards in a row, the black value cards dealt beneath them.

Layout (the text's "personal board"), left to right, with how many value cards each face card
covers::

    J  J  Q  Q  K  K  Joker
    1  1  2  2  3  3  4        (16 of the 20 black value cards; the other 4 are set aside unseen)

The 20 black value cards are the Ace (1) to 10 of clubs and spades, so every value is on a board
at most twice. The face cards are grouped into *tiers* attacked in order (jacks, queens, kings,
then the joker). The black face cards are the clubs and spades jacks, queens and kings and the
joker ``JK1``; the red ones (hearts and diamonds, ``JK2``) make the owner's record of the
opponent's board (see :mod:`speculation.record`).

A :class:`Board` is an immutable value: ``reveal`` returns a new board. It is stored by the
shared codec (:mod:`ludoteca.core.codec`) as ``{"cards", "found", "set_aside"}``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from ludoteca.core.cards import FrenchCard, FrenchSuit, Joker
from ludoteca.core.rng import Rng

VALUES: tuple[int, ...] = tuple(range(1, 11))
"""Card values: Ace = 1 up to 10."""
COPIES = 2
"""Copies of each value among a player's black value cards (clubs and spades)."""


class Tier(StrEnum):
    """A group of face cards attacked together; tiers fall in this order."""

    JACKS = "jacks"
    QUEENS = "queens"
    KINGS = "kings"
    JOKER = "joker"

    @property
    def next(self) -> Tier | None:
        order = list(Tier)
        i = order.index(self)
        return order[i + 1] if i + 1 < len(order) else None


@dataclass(frozen=True)
class Face:
    """One face card of the board: its card code, its tier and how many value cards it covers."""

    card: str
    tier: Tier
    size: int


def _face_cards(suits: tuple[FrenchSuit, FrenchSuit], joker: Joker) -> tuple[Face, ...]:
    faces = [Face(FrenchCard(rank, suit).code, tier, size)
             for rank, tier, size in ((11, Tier.JACKS, 1), (12, Tier.QUEENS, 2), (13, Tier.KINGS, 3))
             for suit in suits]
    faces.append(Face(joker.code, Tier.JOKER, 4))
    return tuple(faces)


BLACK = (FrenchSuit.CLUBS, FrenchSuit.SPADES)
RED = (FrenchSuit.HEARTS, FrenchSuit.DIAMONDS)
FACES: tuple[Face, ...] = _face_cards(BLACK, Joker(1))
"""The board's face cards, left to right: JC JS QC QS KC KS JK1."""
RECORD_FACES: tuple[Face, ...] = _face_cards(RED, Joker(2))
"""The record's red face cards, in the same order: JH JD QH QD KH KD JK2."""
_FACE_TIERS: tuple[Tier, ...] = tuple(f.tier for f in FACES)
_JOKER = Tier.JOKER
assert list(dict.fromkeys(_FACE_TIERS)) == list(Tier), "the faces are in the tiers' order"

_TIER_SLOTS: Mapping[Tier, tuple[tuple[int, int], ...]] = {
    t: tuple((i, p) for i, f in enumerate(FACES) if f.tier is t for p in range(f.size)) for t in Tier}
"""Each tier's slots (face index, position), in board order: listed once."""

TIER_SIZE: Mapping[Tier, int] = {t: sum(f.size for f in FACES if f.tier is t) for t in Tier}
"""Value cards per tier: jacks 2, queens 4, kings 6, joker 4."""
DEALT = sum(TIER_SIZE.values())
SET_ASIDE = len(VALUES) * COPIES - DEALT

VALUE_CARDS: tuple[str, ...] = tuple(FrenchCard(v, s).code for s in BLACK for v in VALUES)
"""A player's 20 black value cards, in a fixed order (the deal shuffles a copy)."""
RED_VALUE_CARDS: tuple[str, ...] = tuple(FrenchCard(v, s).code for v in VALUES for s in RED)
"""The red value cards: the "hand" a player records found values with."""
_VALUE_OF: dict[str, int] = {c: FrenchCard.parse(c).rank for c in VALUE_CARDS + RED_VALUE_CARDS}


def value_of(card: str) -> int:
    """The value (1..10) of a value card code such as ``"AS"`` or ``"10C"``."""
    return _VALUE_OF[card]


Slot = tuple[int, int]
"""A place on the board: (face index, position beneath that face)."""


@dataclass(frozen=True)
class Board:
    """The value cards beneath each face card (``cards[face][position]``), which of them have
    been found by the opponent, and the cards set aside."""

    cards: tuple[tuple[str, ...], ...]
    found: tuple[tuple[bool, ...], ...]
    set_aside: tuple[str, ...]

    @classmethod
    def deal(cls, rng: Rng) -> Board:
        """Shuffle the 20 black value cards and deal them face by face, left to right."""
        deck = rng.shuffled(VALUE_CARDS)
        cards: list[tuple[str, ...]] = []
        for face in FACES:
            cards.append(tuple(deck[:face.size]))
            deck = deck[face.size:]
        return cls(tuple(cards), tuple((False,) * f.size for f in FACES), tuple(deck))

    @classmethod
    def from_values(cls, values: Sequence[int]) -> Board:
        """A board with these 16 values left to right (the clubs card of a value first, then the
        spades one); the four value cards left are set aside. For tests and analysis."""
        if len(values) != DEALT or any(v not in VALUES for v in values):
            raise ValueError(f"a board holds {DEALT} values from 1 to 10")
        pool = list(VALUE_CARDS)
        cards = []
        for v in values:
            card = next((c for c in pool if value_of(c) == v), None)
            if card is None:
                raise ValueError(f"value {v} appears more than {COPIES} times")
            pool.remove(card)
            cards.append(card)
        rows, i = [], 0
        for face in FACES:
            rows.append(tuple(cards[i:i + face.size]))
            i += face.size
        return cls(tuple(rows), tuple((False,) * f.size for f in FACES), tuple(pool))

    # -- reading ------------------------------------------------------------------------------
    def slots(self, tier: Tier) -> Iterator[Slot]:
        """The slots of ``tier``, in board order."""
        return iter(_TIER_SLOTS[tier])

    def card_at(self, slot: Slot) -> str:
        return self.cards[slot[0]][slot[1]]

    def is_found(self, slot: Slot) -> bool:
        return self.found[slot[0]][slot[1]]

    def tier_values(self, tier: Tier) -> list[int]:
        return [value_of(self.card_at(s)) for s in self.slots(tier)]

    def unfound_slots(self, tier: Tier, value: int) -> list[Slot]:
        """The slots of ``tier`` holding ``value`` that are not found yet (board order)."""
        cards, found = self.cards, self.found
        return [(i, p) for i, p in _TIER_SLOTS[tier] if not found[i][p] and _VALUE_OF[cards[i][p]] == value]

    def is_down(self, face: int) -> bool:
        """A face card is down once every value beneath it has been found."""
        return all(self.found[face])

    def is_cleared(self, tier: Tier) -> bool:
        found = self.found
        return all(found[i][p] for i, p in _TIER_SLOTS[tier])

    @property
    def target(self) -> Tier:
        """The tier an attacker must guess now: the lowest one not yet cleared (the faces are in
        the tiers' order: the first face not down)."""
        for tier, found in zip(_FACE_TIERS, self.found, strict=True):
            if not all(found):
                return tier
        return _JOKER

    @property
    def all_cards(self) -> list[str]:
        return [c for face in self.cards for c in face] + list(self.set_aside)

    # -- changing ----------------------------------------------------------------------------
    def reveal(self, slots: Sequence[Slot]) -> Board:
        """A copy with ``slots`` found."""
        chosen = set(slots)
        found = tuple(tuple(f or (i, p) in chosen for p, f in enumerate(face))
                      for i, face in enumerate(self.found))
        return Board(self.cards, found, self.set_aside)
