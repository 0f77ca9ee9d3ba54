"""Hints: a set that proves a guess wrong, found exactly from the two truth tables.

The text's order: a contradicting set already visible in a column is pointed to; otherwise the
Vexer builds one from the hintbook's cards (they leave the hintbook); if none can be built, it is
written on a paper slip. After a *pass* in the last phase there is no guess to contradict: the
hint is then any set, from the hintbook when possible, else on a slip.
"""

from __future__ import annotations

import bisect
import functools
import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import overload

from ludic.state import HintSource, Round
from ludic.universe import ALL, COLUMNS, TYPES, codes_for_set, members, set_index, type_index


@dataclass(frozen=True)
class HintOption:
    source: HintSource
    top: str
    bottom: str
    obeys: bool
    column: str | None = None

    def as_json(self) -> dict[str, object]:
        return {"source": self.source.value, "top": self.top, "bottom": self.bottom}


def hint_options(round_: Round, guess_obey: int | None) -> Sequence[HintOption]:
    """Every hint the Vexer may give now, all of the first kind available (never empty: a guess
    that no set contradicts is equivalent to the rule, and was accepted)."""
    rule = round_.obey_mask
    wrong = ALL if guess_obey is None else rule ^ guess_obey
    if guess_obey is not None:
        visible = [HintOption(HintSource.COLUMN, placed.top, placed.bottom, bool(rule >> placed.index & 1), column)
                   for column in COLUMNS for placed in round_.face_up(column) if wrong >> placed.index & 1]
        if visible:
            return visible
    return _unseen_options(round_.hintbook, rule, wrong)


@functools.lru_cache(maxsize=64)
def _unseen_options(hintbook: tuple[str, ...], rule: int, wrong: int) -> Sequence[HintOption]:
    """The hints built from the hintbook, else written on a slip (a game asks for the same ones
    several times while its Vexer chooses: cached, only a speed-up)."""
    types = [type_index(code) for code in hintbook]
    if len(set(types)) == len(types):  # always: the hintbook holds one card of each type
        book: Sequence[HintOption] = _FromHintbook(hintbook, types, rule, wrong)
    else:
        book = tuple(HintOption(HintSource.HINTBOOK, top, bottom, bool(rule >> s & 1))
                     for top, t in zip(hintbook, types, strict=True) for bottom, b in zip(hintbook, types, strict=True)
                     if top != bottom and wrong >> (s := set_index(t, b)) & 1)
    if book:
        return book
    return _OnSlips(rule, members(wrong))


class _FromHintbook(Sequence[HintOption]):
    """The hints the Vexer can build from the hintbook's cards (of distinct types), in the order
    of the cards (top card, then bottom card), each built when asked for: a hint after a pass
    may be any of hundreds, and the server picks one at random (only a Vexer choosing, option
    ``vexer_choices``, lists them all). The same items as the tuple of every pair ``top !=
    bottom`` whose set is in ``wrong``, in its order."""

    def __init__(self, hintbook: tuple[str, ...], types: list[int], rule: int, wrong: int) -> None:
        self.cards = tuple(zip(hintbook, types, strict=True))
        self.rule = rule
        book = sum(1 << t for t in types)
        row = (1 << TYPES) - 1
        self.rows = [(wrong >> (t * TYPES)) & row & book & ~(1 << t) for t in types]
        """Per top card: the types of the bottom cards that make a set in ``wrong``."""
        self.starts = list(itertools.accumulate((r.bit_count() for r in self.rows), initial=0))
        """Where each top card's hints start; the last: how many there are."""

    def __len__(self) -> int:
        return self.starts[-1]

    @overload
    def __getitem__(self, index: int) -> HintOption: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[HintOption]: ...
    def __getitem__(self, index: int | slice) -> HintOption | Sequence[HintOption]:
        if isinstance(index, slice):
            return tuple(self)[index]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError("hint option index out of range")
        at = bisect.bisect_right(self.starts, index) - 1
        top, t = self.cards[at]
        row, left = self.rows[at], index - self.starts[at]
        for bottom, b in self.cards:
            if row >> b & 1:
                if not left:
                    return self._option(top, t, bottom, b)
                left -= 1
        raise AssertionError("a row holds fewer hints than counted")  # pragma: no cover

    def __iter__(self) -> Iterator[HintOption]:
        for (top, t), row in zip(self.cards, self.rows, strict=True):
            for bottom, b in self.cards:
                if row >> b & 1:
                    yield self._option(top, t, bottom, b)

    def _option(self, top: str, t: int, bottom: str, b: int) -> HintOption:
        return HintOption(HintSource.HINTBOOK, top, bottom, bool(self.rule >> set_index(t, b) & 1))


class _OnSlips(Sequence[HintOption]):
    """The hints written on a paper slip, one per set of ``sets`` (ascending), each built when
    asked for."""

    def __init__(self, rule: int, sets: list[int]) -> None:
        self.rule = rule
        self.sets = sets

    def __len__(self) -> int:
        return len(self.sets)

    @overload
    def __getitem__(self, index: int) -> HintOption: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[HintOption]: ...
    def __getitem__(self, index: int | slice) -> HintOption | Sequence[HintOption]:
        if isinstance(index, slice):
            return tuple(self)[index]
        s = self.sets[index]
        return HintOption(HintSource.SLIP, *codes_for_set(s), obeys=bool(self.rule >> s & 1))

    def __iter__(self) -> Iterator[HintOption]:
        for s in self.sets:
            yield HintOption(HintSource.SLIP, *codes_for_set(s), obeys=bool(self.rule >> s & 1))
