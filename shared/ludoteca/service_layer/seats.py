"""Seat kinds: what ``POST /games``'s ``seats`` say, parsed once.

A seat is ``human`` or ``bot:<level>`` (a level of the game's ``GameDefinition.bots``). The
stored record and the API keep those strings; everything else asks the parsed
:class:`SeatKind` (:attr:`~ludoteca.service_layer.record.GameRecord.kinds`) for the bot level.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

HUMAN = "human"
BOT_PREFIX = "bot:"


@dataclass(frozen=True, slots=True)
class SeatKind:
    """One seat's kind: a human (``level`` ``None``) or a bot of ``level``."""

    level: str | None = None

    @property
    def is_human(self) -> bool:
        return self.level is None

    @property
    def text(self) -> str:
        """As the API and the record say it: ``human`` or ``bot:<level>``."""
        return HUMAN if self.level is None else BOT_PREFIX + self.level

    @classmethod
    def parse(cls, text: str) -> SeatKind:
        """``human`` or ``bot:<level>``; ``ValueError`` for anything else."""
        if text == HUMAN:
            return cls()
        if text.startswith(BOT_PREFIX):
            return cls(text[len(BOT_PREFIX):])
        raise ValueError(f"unknown seat kind {text!r}")


def bot(level: str) -> str:
    """The seat kind ``bot:<level>`` as the API says it."""
    return BOT_PREFIX + level


def parse_known(text: str, levels: Collection[str]) -> SeatKind | None:
    """``text`` parsed when it names a human or one of the bot ``levels``, else ``None``."""
    try:
        kind = SeatKind.parse(text)
    except ValueError:
        return None
    return kind if kind.level is None or kind.level in levels else None
