"""Roman numerals and the four Ludix dice: which throws score, how much, and how often.

The dice are four ``L-X-X-V-I-I`` dice. A throw scores when its four symbols, all of them, can be
arranged into a *strictly valid* standard Roman numeral: the canonical form of its value (``IV``
not ``IIII``, ``XL`` not ``XXXX``, one ``V``/``L`` at most, subtractive pairs only ``IV IX XL XC
CD CM``). Validity is decided by parsing a string and checking that :func:`to_roman` of its value
gives the string back, so there is one definition of "valid" and it is the formatter's.

Facts computed here (and checked by the tests): 35 symbol multisets, 14 of them valid (the rules
text lists 13 and misses ``LXXX = 80``), bust probability exactly 23/81 (the text says "1:4"),
expected points of one throw 2508/81 = 30.96 (43.24 given no bust).

>>> numerals_of("LXVI")
(Numeral(text='LXVI', value=66), Numeral(text='LXIV', value=64), Numeral(text='XLVI', value=46), \
Numeral(text='XLIV', value=44))
>>> to_roman(49), from_roman("XLIX"), is_valid("IIII")
('XLIX', 49, False)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations_with_replacement, permutations
from typing import Any

from ludoteca.core.dice import Die, multiset_distribution

FACES: tuple[str, ...] = ("L", "X", "X", "V", "I", "I")
DIE: Die[str] = Die(FACES)
DICE: tuple[Die[str], ...] = (DIE, DIE, DIE, DIE)
SYMBOLS = "LXVI"
"""The symbols a die shows, highest value first (the canonical order of a multiset)."""

VALUES: dict[str, int] = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}
_FORMAT_TABLE: tuple[tuple[int, str], ...] = (
    (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
    (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
)  # fmt: skip


@dataclass(frozen=True, order=True)
class Numeral:
    """A valid numeral and the points it scores."""

    text: str
    value: int

    def to_json(self) -> dict[str, str | int]:
        return {"numeral": self.text, "value": self.value}


def to_roman(n: int) -> str:
    """The canonical standard Roman numeral of ``n`` (1..3999)."""
    if not 1 <= n <= 3999:
        raise ValueError(f"no standard Roman numeral for {n}")
    out = []
    for value, text in _FORMAT_TABLE:
        count, n = divmod(n, value)
        out.append(text * count)
    return "".join(out)


def from_roman(text: str) -> int:
    """The value of ``text`` read additively-subtractively (a smaller symbol before a larger one
    is subtracted). Lenient: ``IIII`` reads 4; use :func:`is_valid` for strictness."""
    if not text or any(c not in VALUES for c in text):
        raise ValueError(f"not a Roman numeral: {text!r}")
    total = 0
    for here, after in zip(text, [*text[1:], None], strict=True):
        value = VALUES[here]
        total += -value if after is not None and value < VALUES[after] else value
    return total


def is_valid(text: str) -> bool:
    """Whether ``text`` is a strictly valid numeral: the canonical form of its own value."""
    try:
        value = from_roman(text)
        return 1 <= value <= 3999 and to_roman(value) == text
    except ValueError:
        return False


def parse_throw(dice: str) -> str:
    """A throw written as four symbols in any order (``"IVXL"``) -> its canonical multiset
    (``"LXVI"``, highest symbol first). Raises ``ValueError`` for anything else."""
    if not isinstance(dice, str) or len(dice) != len(DICE) or any(c not in SYMBOLS for c in dice):
        raise ValueError(f"a throw is {len(DICE)} symbols among {', '.join(SYMBOLS)}, got {dice!r}")
    return canonical(dice)


def canonical(symbols: Iterable[str]) -> str:
    """Symbols sorted highest first: the multiset's one spelling."""
    return "".join(sorted(symbols, key=SYMBOLS.index))


@cache
def numerals_of(multiset: str) -> tuple[Numeral, ...]:
    """Every valid numeral using all the symbols of ``multiset`` (canonical), best first.
    Empty for a bust."""
    found = {"".join(p) for p in permutations(multiset) if is_valid("".join(p))}
    return tuple(sorted((Numeral(t, from_roman(t)) for t in found), key=lambda n: -n.value))


def numerals_for(dice: str) -> tuple[Numeral, ...]:
    """Every valid numeral for a throw written in any order, best first (``ValueError`` if the
    string is not a throw)."""
    return numerals_of(parse_throw(dice))


def all_multisets() -> tuple[str, ...]:
    """The 35 multisets of four symbols, canonical spelling."""
    return tuple("".join(c) for c in combinations_with_replacement(SYMBOLS, len(DICE)))


def exact(q: Fraction) -> dict[str, Any]:
    """An exact number for JSON, as a fraction string and its decimal:
    ``{"fraction": "23/81", "decimal": 0.2839...}``."""
    return {"fraction": f"{q.numerator}/{q.denominator}", "decimal": float(q)}


@dataclass(frozen=True)
class ThrowOdds:
    """One multiset of symbols: how likely it is and what it can score."""

    multiset: str
    probability: Fraction
    numerals: tuple[Numeral, ...]

    @property
    def best(self) -> Numeral | None:
        return self.numerals[0] if self.numerals else None

    @property
    def is_bust(self) -> bool:
        return not self.numerals

    def to_json(self) -> dict[str, Any]:
        return {
            "multiset": self.multiset,
            "probability": exact(self.probability),
            "numerals": [n.to_json() for n in self.numerals],
            "best": self.best.to_json() if self.best else None,
        }


@dataclass(frozen=True)
class Odds:
    """The exact distribution of one throw of the four dice."""

    throws: tuple[ThrowOdds, ...]
    """All 35 multisets: the valid ones best first, then the busts."""

    @property
    def valid(self) -> tuple[ThrowOdds, ...]:
        return tuple(t for t in self.throws if not t.is_bust)

    @property
    def busts(self) -> tuple[ThrowOdds, ...]:
        return tuple(t for t in self.throws if t.is_bust)

    @property
    def bust_probability(self) -> Fraction:
        return sum((t.probability for t in self.busts), Fraction(0))

    @property
    def expected_points(self) -> Fraction:
        """Expected points of one throw scored with its best numeral (a bust scores 0)."""
        return sum((t.probability * t.best.value for t in self.throws if t.best), Fraction(0))

    @property
    def expected_points_given_valid(self) -> Fraction:
        return self.expected_points / (1 - self.bust_probability)

    def to_json(self) -> dict[str, Any]:
        """The distribution with every probability as an exact fraction and its decimal."""
        return {
            "faces": list(FACES),
            "multisets": len(self.throws),
            "valid": [t.to_json() for t in self.valid],
            "busts": [t.to_json() for t in self.busts],
            "bust": exact(self.bust_probability),
            "expected_points": exact(self.expected_points),
            "expected_points_given_valid": exact(self.expected_points_given_valid),
        }


@cache
def odds() -> Odds:
    """The exact distribution of a throw, computed from the dice."""
    dist = {canonical(k): p for k, p in multiset_distribution(DICE).items()}
    throws = [ThrowOdds(m, dist.get(m, Fraction(0)), numerals_of(m)) for m in all_multisets()]
    throws.sort(key=lambda t: (t.is_bust, -(t.best.value if t.best else 0), t.multiset))
    return Odds(tuple(throws))
