"""Card primitives for every game: the French 52-card deck and the 48-card Spanish deck.

Cards are small immutable value objects with a parse/format pair (``parse`` / ``code``), in the
manner of python-chess's ``Move.from_uci`` / ``Move.uci``:

- French: ``FrenchCard(rank, suit)``, rank 1 (Ace) .. 13 (King), code ``"AS"``, ``"10H"``, ``"QD"``.
- Spanish: ``SpanishCard(rank, suit)``, rank 1 (As) .. 12 (Rey), 10 = Sota, 11 = Caballo,
  code ``"1O"``, ``"7C"``, ``"12B"`` (O = Oros, C = Copas, E = Espadas, B = Bastos).
- ``Joker(index)``: code ``"JK1"``, ``"JK2"`` (jokers are alike in play; the index keeps every
  physical card distinct so that card conservation can be checked).
- ``SpecialCard(name)``: a named one-off card such as Ludor's ``Autoplim``; code is the name.

Each game decides what ranks are worth: nothing here orders cards across games.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum


class Color(str, Enum):
    RED = "red"
    BLACK = "black"


class FrenchSuit(str, Enum):
    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"

    @property
    def color(self) -> Color:
        return Color.RED if self in (FrenchSuit.DIAMONDS, FrenchSuit.HEARTS) else Color.BLACK


class SpanishSuit(str, Enum):
    OROS = "O"
    COPAS = "C"
    ESPADAS = "E"
    BASTOS = "B"

    @property
    def label(self) -> str:
        return self.name.capitalize()


FRENCH_RANK_LABELS = {1: "A", 11: "J", 12: "Q", 13: "K"}
FRENCH_LABEL_RANKS = {v: k for k, v in FRENCH_RANK_LABELS.items()}
SPANISH_RANK_NAMES = {1: "As", 10: "Sota", 11: "Caballo", 12: "Rey"}


class CardParseError(ValueError):
    """A card code that names no card of the deck."""


@dataclass(frozen=True, order=True)
class FrenchCard:
    rank: int
    suit: FrenchSuit

    def __post_init__(self) -> None:
        if not 1 <= self.rank <= 13:
            raise CardParseError(f"French rank out of range: {self.rank}")

    @property
    def color(self) -> Color:
        return self.suit.color

    @property
    def code(self) -> str:
        return FRENCH_RANK_LABELS.get(self.rank, str(self.rank)) + self.suit.value

    @classmethod
    def parse(cls, code: str) -> FrenchCard:
        text = code.strip().upper()
        if len(text) < 2:
            raise CardParseError(f"not a French card: {code!r}")
        label, suit = text[:-1], text[-1]
        try:
            s = FrenchSuit(suit)
        except ValueError:
            raise CardParseError(f"unknown French suit in {code!r}") from None
        if label in FRENCH_LABEL_RANKS:
            rank = FRENCH_LABEL_RANKS[label]
        elif label.isdigit() and 2 <= int(label) <= 10:
            rank = int(label)
        else:
            raise CardParseError(f"unknown French rank in {code!r}")
        return cls(rank, s)

    def __str__(self) -> str:
        return self.code


@dataclass(frozen=True, order=True)
class SpanishCard:
    rank: int
    suit: SpanishSuit

    def __post_init__(self) -> None:
        if not 1 <= self.rank <= 12:
            raise CardParseError(f"Spanish rank out of range: {self.rank}")

    @property
    def code(self) -> str:
        return f"{self.rank}{self.suit.value}"

    @property
    def name(self) -> str:
        return f"{SPANISH_RANK_NAMES.get(self.rank, str(self.rank))} de {self.suit.label}"

    @classmethod
    def parse(cls, code: str) -> SpanishCard:
        text = code.strip().upper()
        label, suit = text[:-1], text[-1:]
        try:
            s = SpanishSuit(suit)
        except ValueError:
            raise CardParseError(f"unknown Spanish suit in {code!r}") from None
        if not label.isdigit():
            raise CardParseError(f"unknown Spanish rank in {code!r}")
        return cls(int(label), s)

    def __str__(self) -> str:
        return self.code


@dataclass(frozen=True, order=True)
class Joker:
    index: int

    @property
    def code(self) -> str:
        return f"JK{self.index}"

    def __str__(self) -> str:
        return self.code


@dataclass(frozen=True, order=True)
class SpecialCard:
    name: str

    @property
    def code(self) -> str:
        return self.name

    def __str__(self) -> str:
        return self.code


Card = FrenchCard | SpanishCard | Joker | SpecialCard


def french_deck(jokers: int = 0, suits: Iterable[FrenchSuit] = tuple(FrenchSuit),
                ranks: Iterable[int] = range(1, 14)) -> list[Card]:
    """The French deck in a fixed order (suits, then ranks), plus ``jokers`` jokers."""
    rank_list = list(ranks)
    deck: list[Card] = [FrenchCard(r, s) for s in suits for r in rank_list]
    deck.extend(Joker(i) for i in range(1, jokers + 1))
    return deck


def spanish_deck(ranks: Iterable[int] = range(1, 13), jokers: int = 0,
                 specials: Iterable[str] = ()) -> list[Card]:
    """The Spanish deck (48 cards by default; ``ranks`` without 8 and 9 gives the 40-card deck),
    plus jokers and named special cards."""
    rank_list = list(ranks)
    deck: list[Card] = [SpanishCard(r, s) for s in SpanishSuit for r in rank_list]
    deck.extend(Joker(i) for i in range(1, jokers + 1))
    deck.extend(SpecialCard(n) for n in specials)
    return deck


def parse_spanish_deck_card(code: str, specials: Iterable[str] = ()) -> Card:
    """Parse a code from a Spanish deck with jokers and the given special cards."""
    text = code.strip()
    for name in specials:
        if text.lower() == name.lower():
            return SpecialCard(name)
    if text.upper().startswith("JK") and text[2:].isdigit():
        return Joker(int(text[2:]))
    return SpanishCard.parse(text)


def parse_french_deck_card(code: str) -> Card:
    """Parse a code from a French deck with jokers."""
    text = code.strip().upper()
    if text.startswith("JK") and text[2:].isdigit():
        return Joker(int(text[2:]))
    return FrenchCard.parse(text)
