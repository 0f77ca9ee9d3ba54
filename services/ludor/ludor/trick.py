"""The flow of one trick ("baza"): whose turn it is, passes, PLIM blocks, and who wins it.

Shared by the engine and by the bots' simulator, so both follow exactly the same rules. The
functions take ``sizes``: the number of cards each seat holds *after* the move (a seat with none
has finished the round and takes no further part).

- The trick's *contenders* are the seats with cards that have neither passed nor been blocked,
  other than the author of the last play. The turn goes clockwise to the next contender; when
  there is none, the trick closes and the last play wins it.
- A PLIM (a play matching the one under it) blocks the next contender for the rest of the trick.
- The 2 de Oros wins the trick at once.
- The Autoplim clears the table: the cards are swept, passes and blocks are lifted and the
  Autoplim lies alone; only the 2 de Oros beats it, so when that has already been played the
  trick closes at once. Its PLIM, when it bites, *bars* a seat: he keeps his turn but may only
  pass (a private fact; a block would skip him in public).

A :class:`Trick` is a frozen value: each function returns the trick after the move.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from ludoteca.core import codec

from ludor.combos import AUTOPLIM_COMBO, TWO_OF_OROS_PLAY, Combo, is_plim

codec.register(Combo, list, lambda data: Combo(*data))
"""A combination is stored as ``[kind, power, size]`` (a trick's ``top``)."""


class ClosedBy(StrEnum):
    """How a trick closed."""

    PASSES = "passes"
    TWO_OF_OROS = "two_of_oros"
    AUTOPLIM = "autoplim"
    ROUND_OVER = "round_over"


@dataclass(frozen=True)
class Trick:
    leader: int
    turn: int
    top: Combo | None = None
    last: int | None = None
    passed: frozenset[int] = frozenset()
    blocked: frozenset[int] = frozenset()
    winner: int | None = None
    closed_by: ClosedBy | None = None
    barred: int | None = None
    """The seat the Autoplim's PLIM bars from answering it (he may only pass): private to him."""

    @property
    def closed(self) -> bool:
        return self.closed_by is not None


def next_contender(trick: Trick, after: int, sizes: Sequence[int]) -> int | None:
    """The first contender clockwise after seat ``after``, or None."""
    n = len(sizes)
    for i in range(1, n + 1):
        s = (after + i) % n
        if s != trick.last and sizes[s] and s not in trick.passed and s not in trick.blocked:
            return s
    return None


def next_with_cards(seat: int, sizes: Sequence[int], include_self: bool = False) -> int | None:
    """The first seat clockwise after ``seat`` (or ``seat`` itself) that still holds cards."""
    n = len(sizes)
    for i in range(0 if include_self else 1, n):
        s = (seat + i) % n
        if sizes[s]:
            return s
    return None


def close(trick: Trick, winner: int | None, how: ClosedBy) -> Trick:
    return replace(trick, winner=winner, closed_by=how)


def _advance(trick: Trick, after: int, sizes: Sequence[int]) -> Trick:
    nxt = next_contender(trick, after, sizes)
    if nxt is None:
        assert trick.last is not None
        return close(trick, trick.last, ClosedBy.PASSES)
    return replace(trick, turn=nxt)


def play(trick: Trick, seat: int, combo: Combo, sizes: Sequence[int]) -> tuple[Trick, int | None]:
    """``seat`` plays ``combo`` in turn; returns the trick and the seat its PLIM blocked, if any."""
    plim = is_plim(trick.top, combo)
    trick = replace(trick, top=combo, last=seat)
    if combo.kind == TWO_OF_OROS_PLAY:
        return close(trick, seat, ClosedBy.TWO_OF_OROS), None
    blocked = next_contender(trick, seat, sizes) if plim else None
    if blocked is not None:
        trick = replace(trick, blocked=trick.blocked | {blocked})
    return _advance(trick, seat, sizes), blocked


def pass_turn(trick: Trick, seat: int, sizes: Sequence[int]) -> Trick:
    """``seat`` passes: it is out of this trick."""
    return _advance(replace(trick, passed=trick.passed | {seat}), seat, sizes)


def plim_target(trick: Trick, seat: int, sizes: Sequence[int]) -> int | None:
    """The "next player" of the Autoplim's PLIM clause: the seat whose turn it was when the
    Autoplim came out of turn; when played in turn, the next seat with cards after its player."""
    if seat != trick.turn:
        return trick.turn
    return next_with_cards(seat, sizes)


def autoplim(trick: Trick, seat: int, sizes: Sequence[int], barred: int | None,
             two_of_oros_played: bool) -> Trick:
    """``seat`` puts down the Autoplim (in turn or not): the table is cleared, ``barred`` (the
    victim of a PLIM declaration that bit, if any) may only pass when his turn comes (he keeps
    it: skipping him would tell the table), and the trick goes on only if the 2 de Oros may
    still come."""
    trick = replace(trick, passed=frozenset(), blocked=frozenset(), barred=barred, top=AUTOPLIM_COMBO, last=seat)
    if two_of_oros_played:
        return close(trick, seat, ClosedBy.AUTOPLIM)
    return _advance(trick, seat, sizes)
