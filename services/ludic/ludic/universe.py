"""The universe of 2-card Ludic: 24 card types, 576 sets, the two piles and the Aces.

A *card type* is what a rule can see of a card: its rank (2..13, Aces are out of the game) and its
color. Suits are invisible to rules (the text: "there is no reference to suit, only color").
Type index ``t = color * 12 + (rank - 2)`` with color 0 = black, 1 = red, so black types are 0..11
and red types 12..23.

A *set* is an ordered pair (top, bottom) of card types; set index ``s = top * 24 + bottom``, so
there are exactly 576 sets (24 of them "twins": the same type twice, buildable only from both
piles or on a paper slip). Every rule is therefore a 576-entry truth table, kept as a Python int
used as a bitset (bit ``s`` set = set ``s`` obeys).

Physical cards are French cards of the shared deck (``"QH"``, ``"4S"``). The 48 cards without Aces
are split into two piles of one black and one red suit each: clubs + diamonds is *the deck*,
spades + hearts is *the hintbook*, so each pile holds exactly one card of each of the 24 types.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from ludoteca.core.cards import CardParseError, Color, FrenchCard, FrenchSuit

RANKS = tuple(range(2, 14))
"""Ranks in play: 2..10, J=11, Q=12, K=13 (a card's value is its rank)."""
TYPES = 24
SETS = TYPES * TYPES
ALL = (1 << SETS) - 1
"""The bitset of every set."""

RANK_WORDS = {11: "jack", 12: "queen", 13: "king"}

DECK_SUITS = (FrenchSuit.CLUBS, FrenchSuit.DIAMONDS)
HINTBOOK_SUITS = (FrenchSuit.SPADES, FrenchSuit.HEARTS)
OBEY_ACE = "AS"
"""The black Ace heading the 'obey' column (the Ace of clubs lies under it, out of play)."""
BREAK_ACE = "AH"
"""The red Ace heading the 'break' column (the Ace of diamonds lies under it, out of play)."""


OBEY = "obey"
BREAK = "break"
COLUMNS = (OBEY, BREAK)


def column_of(obeys: bool) -> str:
    """The column a set belongs in: 'obey' or 'break'."""
    return OBEY if obeys else BREAK


@dataclass(frozen=True, order=True)
class CardType:
    """What a rule can see of a card: rank and color."""

    rank: int
    red: bool

    @property
    def index(self) -> int:
        return (12 if self.red else 0) + self.rank - 2

    @classmethod
    def from_index(cls, t: int) -> CardType:
        return cls(t % 12 + 2, t >= 12)

    @property
    def color(self) -> Color:
        return Color.RED if self.red else Color.BLACK

    def describe(self) -> str:
        """``"red 7"``, ``"black king"``: the words the rule language uses."""
        return f"{self.color.value} {RANK_WORDS.get(self.rank, str(self.rank))}"


def card_type(code: str) -> CardType:
    """The type of a physical card code (``"QH"`` -> red 12). Raises CardParseError for Aces,
    jokers or anything that is no card of the game."""
    card = FrenchCard.parse(code)
    if card.rank == 1:
        raise CardParseError(f"Aces are not played in Ludic: {code!r}")
    return CardType(card.rank, card.color is Color.RED)


@functools.lru_cache(maxsize=128)
def type_index(code: str) -> int:
    return card_type(code).index


def pile(suits: Iterable[FrenchSuit]) -> list[str]:
    """The codes of one pile in a fixed order: one card of each type per black+red suit pair."""
    return [FrenchCard(rank, suit).code for suit in suits for rank in RANKS]


def deck_pile() -> list[str]:
    return pile(DECK_SUITS)


def hintbook_pile() -> list[str]:
    return pile(HINTBOOK_SUITS)


def all_cards() -> list[str]:
    """The 48 cards of the game (no Aces), deck pile first."""
    return deck_pile() + hintbook_pile()


def set_index(top: int, bottom: int) -> int:
    return top * TYPES + bottom


def set_of_codes(top: str, bottom: str) -> int:
    return set_index(type_index(top), type_index(bottom))


def split_set(s: int) -> tuple[int, int]:
    """(top type, bottom type) of set index ``s``."""
    return divmod(s, TYPES)


def describe_set(s: int) -> str:
    top, bottom = split_set(s)
    return f"{CardType.from_index(top).describe()} over {CardType.from_index(bottom).describe()}"


def codes_for_set(s: int, pile_suits: Sequence[FrenchSuit] = HINTBOOK_SUITS) -> tuple[str, str]:
    """Physical codes naming set ``s`` (for a paper slip): the top card from ``pile_suits``; a twin's
    bottom card from the other pile, so that no card is used twice in one hint."""
    top, bottom = (CardType.from_index(t) for t in split_set(s))
    suit_of = {False: pile_suits[0], True: pile_suits[1]}
    other = DECK_SUITS if tuple(pile_suits) == HINTBOOK_SUITS else HINTBOOK_SUITS
    top_code = FrenchCard(top.rank, suit_of[top.red]).code
    bottom_suits = other if top == bottom else pile_suits
    bottom_code = FrenchCard(bottom.rank, bottom_suits[1 if bottom.red else 0]).code
    return top_code, bottom_code


def bits(indices: Iterable[int]) -> int:
    out = 0
    for i in indices:
        out |= 1 << i
    return out


def members(mask: int) -> list[int]:
    """The set indices in a bitset, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_from_array(array: npt.NDArray[np.bool_]) -> int:
    """A 576-entry boolean array as a bitset int (bit ``s`` = ``array[s]``)."""
    return int.from_bytes(np.packbits(array, bitorder="little").tobytes(), "little")


# Per-set arrays for vectorised evaluation: position 0 = top, 1 = bottom.
_S = np.arange(SETS)
TYPE_AT = (_S // TYPES, _S % TYPES)
VALUE_AT = tuple(t % 12 + 2 for t in TYPE_AT)
RED_AT = tuple(t >= 12 for t in TYPE_AT)
EQUAL_RANKS = VALUE_AT[0] == VALUE_AT[1]
TWINS = bits(set_index(t, t) for t in range(TYPES))
