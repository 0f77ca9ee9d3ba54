"""The event records a game's commits write: typed, and built in one place.

An engine step returns :class:`~ludoteca.core.engine.Event` values; the platform adds its own
(:func:`game_created`, :func:`seat_claimed`, :func:`game_started`, :func:`turn_timed_out`,
:func:`seat_left`).
:func:`records` numbers them in the game's global order (``seq``, the replay's numbering) at the
version that writes them, and marks them ``by`` whoever played for the seat (``timeout``: a bot
that played a timed-out turn, :mod:`ludoteca.service_layer.timers`). A record is never changed
afterwards; :meth:`EventRecord.to_doc` is the stored (and the replay's) JSON shape:
``{"seq", "version", "type", "data", "audience"[, "by"]}``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ludoteca.core.engine import Event
from ludoteca.service_layer.timers import BY_TIMEOUT, TIMED_OUT

GAME_CREATED = "GameCreated"
SEAT_CLAIMED = "SeatClaimed"
GAME_STARTED = "GameStarted"
SEAT_LEFT = "SeatLeft"
__all__ = ["BY_TIMEOUT", "TIMED_OUT", "EventRecord", "game_created", "game_started", "records", "seat_claimed",
           "seat_left", "turn_timed_out"]


@dataclass(frozen=True, slots=True)
class EventRecord:
    """One event as a commit writes it: its number in the game (``seq``), the ``version`` that
    wrote it, what happened (``type``, ``data``), who may see it (``audience``: ``None`` for
    everyone, else the seats, sorted) and ``by`` (``None``: the seat itself)."""

    seq: int
    version: int
    type: str
    data: Mapping[str, Any]
    audience: tuple[int, ...] | None = None
    by: str | None = None

    def to_doc(self) -> dict[str, Any]:
        doc = {"seq": self.seq, "version": self.version, "type": self.type, "data": self.data,
               "audience": None if self.audience is None else list(self.audience)}
        if self.by is not None:
            doc["by"] = self.by
        return doc

    def told(self) -> dict[str, Any]:
        """As a client is told it, without a number: no audience, no global ``seq``
        (:mod:`ludoteca.service_layer.numbering` numbers it for each viewer)."""
        event = {"version": self.version, "type": self.type, "data": self.data}
        if self.by is not None:
            event["by"] = self.by
        return event


def records(first: int, version: int, events: Iterable[Event], by: str | None = None) -> list[EventRecord]:
    """``events`` as the records ``version`` writes, numbered from ``first``."""
    return [EventRecord(first + i, version, e.type, e.data, None if e.audience is None else tuple(sorted(e.audience)),
                        by) for i, e in enumerate(events)]


def game_created(seats: Sequence[str], options: Mapping[str, Any], seed_sha256: str) -> Event:
    return Event(GAME_CREATED, {"seats": list(seats), "options": options, "seed_sha256": seed_sha256})


def seat_claimed(seat: int, name: str) -> Event:
    return Event(SEAT_CLAIMED, {"seat": seat, "name": name})


def game_started() -> Event:
    return Event(GAME_STARTED, {})


def turn_timed_out(seat: int, bot: str, deadline: str | None) -> Event:
    """The public event that comes first in a move a bot played for a timed-out seat."""
    return Event(TIMED_OUT, {"seat": seat, "bot": bot, "deadline": deadline})


def seat_left(seat: int, bot: str) -> Event:
    """The public event of a seat whose player left the game: the bot ``bot`` plays it from now on."""
    return Event(SEAT_LEFT, {"seat": seat, "bot": bot})
