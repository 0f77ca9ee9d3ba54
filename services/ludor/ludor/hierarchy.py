"""The hierarchy of Ludor's cards: what every card is worth, the decks, best and worst cards.

Every card has a *power*, an index into the text's hierarchy, low to high::

    power  0  1  2  3  4  5  6  7     8        9    10  11  12     13        14
    card   3  4  5  6  7  8  9  Sota  Caballo  Rey  As  2   Joker  Autoplim  2 de Oros

The 2 de Oros has a power of its own (above the Autoplim), apart from the other three 2s.
The text's "10" has no card in the Spanish deck (its ranks are As, 2..9, Sota, Caballo, Rey).
Suits mean nothing in play; they only break ties when "the best" or "the worst" cards of a hand
are picked for the exchange (Oros, Copas, Espadas, Bastos, low to high), and the 3 de Oros
names the first leader.

Cards travel as their codes (``"7C"``, ``"12B"``, ``"JK1"``, ``"Autoplim"``), parsed with
:func:`ludoteca.core.cards.parse_spanish_deck_card`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ludoteca.core.cards import (
    Card,
    CardParseError,
    Joker,
    SpanishCard,
    SpanishSuit,
    SpecialCard,
    parse_spanish_deck_card,
    spanish_deck,
)

AUTOPLIM_NAME = "Autoplim"
"""The name (and code) of the special card."""

NATURAL_RANKS: tuple[int, ...] = (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 1, 2)
"""Spanish ranks from the weakest to the strongest: power ``i`` is ``NATURAL_RANKS[i]``."""

AS = 10
TWO = 11
JOKER = 12
AUTOPLIM = 13
TWO_OF_OROS = 14
POWERS = 15
"""Number of powers: hands are also handled as 15 counts, one per power."""

RANK_NAMES: tuple[str, ...] = (
    "3", "4", "5", "6", "7", "8", "9", "sota", "caballo", "rey", "as", "2",
    "joker", "autoplim", "2_de_oros",
)
"""The API name of each power."""

TWO_OF_OROS_CODE = "2O"
THREE_OF_OROS_CODE = "3O"

FULL_RANKS: tuple[int, ...] = tuple(range(1, 13))
SHORT_RANKS: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)
"""The 40-card deck: the Spanish deck without its 8s and 9s."""

_SUIT_ORDER = {suit: i for i, suit in enumerate(SpanishSuit)}


def power(card: Card) -> int:
    """The card's place in the hierarchy."""
    if isinstance(card, SpanishCard):
        if card.rank == 2 and card.suit is SpanishSuit.OROS:
            return TWO_OF_OROS
        return NATURAL_RANKS.index(card.rank)
    if isinstance(card, Joker):
        return JOKER
    if isinstance(card, SpecialCard) and card.name == AUTOPLIM_NAME:
        return AUTOPLIM
    raise CardParseError(f"not a Ludor card: {card}")


def build_deck(short: bool = False) -> list[str]:
    """The codes of the game's deck in a fixed order: the 48- (or 40-) card Spanish deck, two
    jokers and the Autoplim (51 or 43 cards)."""
    ranks = SHORT_RANKS if short else FULL_RANKS
    return [c.code for c in spanish_deck(ranks=ranks, jokers=2, specials=(AUTOPLIM_NAME,))]


def _suit_index(card: Card) -> int:
    if isinstance(card, SpanishCard):
        return _SUIT_ORDER[card.suit]
    if isinstance(card, Joker):
        return card.index
    return 0


def _build_tables() -> tuple[dict[str, int], dict[str, tuple[int, int]]]:
    powers: dict[str, int] = {}
    keys: dict[str, tuple[int, int]] = {}
    for code in build_deck():
        card = parse_spanish_deck_card(code, specials=(AUTOPLIM_NAME,))
        powers[code] = power(card)
        keys[code] = (powers[code], _suit_index(card))
    return powers, keys


POWER_OF, _SORT_KEY = _build_tables()
"""``POWER_OF[code]``: the power of every card code of the full deck (the short deck is a subset)."""


def sort_key(code: str) -> tuple[int, int]:
    """Weakest first: by power, then by suit (Oros, Copas, Espadas, Bastos; JK1 before JK2)."""
    return _SORT_KEY[code]


def sorted_cards(codes: Iterable[str]) -> list[str]:
    return sorted(codes, key=sort_key)


def best(codes: Sequence[str], k: int) -> list[str]:
    """The ``k`` strongest cards (the text's "mejores cartas"), strongest first."""
    return sorted(codes, key=sort_key, reverse=True)[:k]


def worst(codes: Sequence[str], k: int) -> list[str]:
    """The ``k`` weakest cards (the text's "peores cartas"), weakest first."""
    return sorted(codes, key=sort_key)[:k]


def counts_of(codes: Iterable[str]) -> list[int]:
    """A hand as 15 counts, one per power."""
    counts = [0] * POWERS
    for code in codes:
        counts[POWER_OF[code]] += 1
    return counts


def powers_in_deck(short: bool) -> tuple[int, ...]:
    """The natural powers present in the deck (the short deck has no 8 or 9)."""
    ranks = SHORT_RANKS if short else FULL_RANKS
    return tuple(p for p, r in enumerate(NATURAL_RANKS) if r in ranks)


def deck_counts(short: bool) -> list[int]:
    """How many cards of each power the deck holds."""
    return counts_of(build_deck(short))
