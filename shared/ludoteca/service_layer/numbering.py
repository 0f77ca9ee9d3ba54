"""Event numbers as each viewer sees them: gapless, so a private event tells nobody else anything.

A game's events have a global order (``seq``, the replay's numbering) and an audience (``None``:
everyone; else the seats told). A *viewer* is the spectators (every caller without a token) or
one seat; the events a viewer may see are numbered 1, 2, 3, ... from that viewer's side, and
that number is the event's ``seq`` for it: in ``GET .../events`` (``after``, ``last_seq``), in
the stream (the messages' ``id``, ``Last-Event-ID``, the ``end`` event's ``last_seq``) and in a
move's answer. Numbered globally, a spectator saw a gap wherever a private event was written
(Ludor's ``PlayerBarred``, told only to the barred seat, told everyone else that the Autoplim's
PLIM bit: issue 20); numbered by viewer, what two games that differ only in a private event show
a viewer who may not see it is the same, numbers included (``tests/contract/test_http_no_leak.py``).

Viewers are indexed: :data:`SPECTATORS` (0), then seat ``s`` as ``1 + s``. The game's record
keeps each viewer's count (:attr:`~ludoteca.service_layer.record.GameRecord.viewer_counts`), so a
commit, a compare-and-set on the version, numbers its events consistently; the store writes each
event into the stream of every viewer that may see it (:mod:`ludoteca.adapters.store`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ludoteca.service_layer.events import EventRecord

SPECTATORS = 0
"""The viewer index of every caller without a seat."""


def viewer(seat: int | None) -> int:
    """The viewer index of ``seat`` (``None``: a spectator)."""
    return SPECTATORS if seat is None else seat + 1


def viewer_name(index: int) -> str:
    """The last part of the viewer's stream key: ``spectators``, or the seat's number."""
    return "spectators" if index == SPECTATORS else str(index - 1)


def numbered(seq: int, event: Mapping[str, Any]) -> dict[str, Any]:
    """A told event (:meth:`~ludoteca.service_layer.events.EventRecord.told`) with its viewer's
    number (``seq`` first, as the API documents it)."""
    return {"seq": seq, **event}


@dataclass(frozen=True, slots=True)
class Shown:
    """One event as its viewers get it: ``event`` (as told) and, for each viewer that may
    see it, its number there: ``(viewer index, number)``."""

    event: dict[str, Any]
    """The event as told (:meth:`~ludoteca.service_layer.events.EventRecord.told`)."""
    numbers: tuple[tuple[int, int], ...]

    def number_for(self, index: int) -> int | None:
        for v, n in self.numbers:
            if v == index:
                return n
        return None


def number(records: Iterable[EventRecord], counts: Sequence[int]) -> tuple[list[Shown], tuple[int, ...]]:
    """Number ``records`` (in their order) for every viewer, after ``counts`` (each viewer's
    events so far). Returns the shown events and the counts after them."""
    now = list(counts)
    everyone = range(len(now))
    out = []
    for record in records:
        audience = record.audience
        viewers: Iterable[int] = everyone if audience is None else sorted(viewer(s) for s in audience)
        numbers = []
        for v in viewers:
            now[v] += 1
            numbers.append((v, now[v]))
        out.append(Shown(record.told(), tuple(numbers)))
    return out, tuple(now)


def for_viewer(shown: Iterable[Shown], index: int) -> list[dict[str, Any]]:
    """The events of ``shown`` viewer ``index`` may see, each with its number there."""
    out = []
    for s in shown:
        n = s.number_for(index)
        if n is not None:
            out.append(numbered(n, s.event))
    return out
