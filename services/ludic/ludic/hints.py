"""Hints: a set that proves a guess wrong, found exactly from the two truth tables.

The text's order: a contradicting set already visible in a column is pointed to; otherwise the
Vexer builds one from the hintbook's cards (they leave the hintbook); if none can be built, it is
written on a paper slip. After a *pass* in the last phase there is no guess to contradict: the
hint is then any set, from the hintbook when possible, else on a slip.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from ludic.state import HintSource, Round
from ludic.universe import ALL, COLUMNS, codes_for_set, members, set_index, type_index


@dataclass(frozen=True)
class HintOption:
    source: HintSource
    top: str
    bottom: str
    obeys: bool
    column: str | None = None

    def as_json(self) -> dict[str, object]:
        return {"source": self.source.value, "top": self.top, "bottom": self.bottom}


def hint_options(round_: Round, guess_obey: int | None) -> list[HintOption]:
    """Every hint the Vexer may give now, all of the first kind available (never empty: a guess
    that no set contradicts is equivalent to the rule, and was accepted)."""
    rule = round_.obey_mask
    wrong = ALL if guess_obey is None else rule ^ guess_obey
    if guess_obey is not None:
        visible = [HintOption(HintSource.COLUMN, placed.top, placed.bottom, bool(rule >> placed.index & 1), column)
                   for column in COLUMNS for placed in round_.face_up(column) if wrong >> placed.index & 1]
        if visible:
            return visible
    return list(_unseen_options(round_.hintbook, rule, wrong))


@functools.lru_cache(maxsize=64)
def _unseen_options(hintbook: tuple[str, ...], rule: int, wrong: int) -> tuple[HintOption, ...]:
    """The hints built from the hintbook, else written on a slip (a game asks for the same ones
    several times while its Vexer chooses: cached, only a speed-up)."""
    types = [(code, type_index(code)) for code in hintbook]
    book = tuple(HintOption(HintSource.HINTBOOK, top, bottom, bool(rule >> s & 1))
                 for top, t in types for bottom, b in types
                 if top != bottom and wrong >> (s := set_index(t, b)) & 1)
    if book:
        return book
    return tuple(HintOption(HintSource.SLIP, *codes_for_set(s), obeys=bool(rule >> s & 1)) for s in members(wrong))
