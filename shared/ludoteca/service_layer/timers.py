"""Turn timers: a game option of every game, ``turn_seconds``; a human seat that does not act
before its deadline has a bot play for it (the level in ``timeout_bot``, chosen at creation,
by default the game's basic level, ``GameDefinition.basic_bot``).

Declared once here for every game: the two options (:func:`options_schema` adds them to the
game's own options schema; the engine never sees them, :func:`engine_options`), the timer's state
kept in the game record (:class:`TurnClock`) and how a move moves it on (:func:`advance`).

The rules, per version of a game with a timer:

- a human seat that comes to act gets a deadline ``turn_seconds`` from the commit that made it
  act; a seat that acts (and acts again: Ludix's rolls) starts a new one;
- seats that were already waiting keep theirs when another seat acts (a simultaneous phase:
  Speculation's sealed reports, Ludor's votes), so one deadline covers every waiting seat;
- the commit records the turn as due (``due = turn:<version>``, ``due_at`` = the deadline, in
  the game's hash) after the usual write-ahead hint: the sweeper (:mod:`ludoteca.adapters.sweeper`)
  dispatches ``bot_turn`` once the deadline has passed, and the worker's bot plays the lowest
  waiting human seat with ``If-Match`` on that version: the game's compare-and-set lets exactly
  one of the timeout and a racing human move apply. The applied events carry ``by: "timeout"``
  after a public ``TurnTimedOut`` event (seat, bot level, deadline);
- a human move that started from a version older than a timeout move of its own seat is refused
  (409 ``turn-timed-out``) instead of being applied on top of the bot's: the human and the
  timeout never both play one turn. A game with a timer is read afresh for every move (never
  from a process's memory of it), so "started from" is the version the request read.
- the clock counts each seat's choices (moves with more than one legal action) and, of them, the
  timeout's: a seat bound to a player whose choices the bot made mostly is rated as a forfeit,
  placed last
  (:func:`ludoteca.service_layer.ratings.forfeit_seats`): a table's timeout bot does not earn its
  idle player a rating.

Timing: the deadline is wall-clock time of the process that committed (ISO 8601 in the view,
with the seconds left); the sweeper compares it with the Redis server's clock and passes every
``LUDOTECA_SWEEP_INTERVAL`` (1 s), so a timeout applies within about a second of its deadline
(no sooner than ``LUDOTECA_SWEEP_GRACE`` after the commit: the grace, 5 s by default, is also
the smallest ``turn_seconds``, ``MIN_SECONDS``).
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ludoteca.core.engine import GameDefinition
    from marshmallow import Schema

SECONDS = "turn_seconds"
BOT = "timeout_bot"
OPTIONS = (SECONDS, BOT)
MIN_SECONDS = 5
MAX_SECONDS = 86_400
TIMED_OUT = "TurnTimedOut"
BY_TIMEOUT = "timeout"


@dataclass(frozen=True)
class TurnClock:
    """A timed game's clock as the record keeps it: the ``deadline`` (epoch seconds; ``None``
    when no human seat is waiting) of the human ``seats`` waiting at this version, and for each
    seat the version its last timed-out move made (``timed_out``), how many moves it made that
    were choices (``moves``: forced ones, a single legal action, do not count) and how many of
    them the timeout bot played (``timeouts``): what a rating needs
    to tell a player who played from one whose table's bot did
    (:data:`ludoteca.service_layer.ratings.TIMEOUT_FORFEIT_SHARE`). A clock stored before the
    counts were kept loads with none (zeros): it counts from its next move."""

    deadline: float | None = None
    seats: tuple[int, ...] = ()
    timed_out: Mapping[int, int] = field(default_factory=dict)
    moves: Mapping[int, int] = field(default_factory=dict)
    timeouts: Mapping[int, int] = field(default_factory=dict)

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> TurnClock:
        return cls(doc.get("deadline"), tuple(doc.get("seats", ())), _seat_map(doc.get("timed_out")),
                   _seat_map(doc.get("moves")), _seat_map(doc.get("timeouts")))

    def to_doc(self) -> dict[str, Any]:
        return {"deadline": self.deadline, "seats": list(self.seats), "timed_out": _seat_doc(self.timed_out),
                "moves": _seat_doc(self.moves), "timeouts": _seat_doc(self.timeouts)}

    def is_overtaken(self, seat: int, since_version: int) -> bool:
        """A timeout played for ``seat`` after ``since_version`` (a move that started there lost)."""
        return self.timed_out.get(seat, 0) > since_version

    def is_due(self, now: float) -> bool:
        return self.deadline is not None and now >= self.deadline


def _seat_map(doc: Mapping[str, Any] | None) -> dict[int, int]:
    """A per-seat map as stored (JSON's string keys); ``None``: a document without it."""
    return {int(k): int(v) for k, v in (doc or {}).items()}


def _seat_doc(seats: Mapping[int, int]) -> dict[str, int]:
    return {str(k): v for k, v in sorted(seats.items())}


def seconds_of(options: Mapping[str, Any]) -> int | None:
    """The game's ``turn_seconds`` (``None``: no timer)."""
    value = options.get(SECONDS)
    return None if value is None else int(value)


def engine_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The options without the timer's: what the engine is given."""
    return {k: v for k, v in options.items() if k not in OPTIONS}


def advance(clock: TurnClock | None, seconds: int, actor: int | None, waiting: frozenset[int],
            now: float, timed_out_version: int | None = None, chosen: bool = True) -> TurnClock:
    """The clock after a commit by ``actor`` (``None``: a join or the creation) that leaves the
    human seats ``waiting`` to act; ``timed_out_version``: the commit is a timeout move (its
    new version). A move that was a choice (``chosen``: the seat had more than one legal action)
    counts in its seat's ``moves``, a timeout move in its ``timeouts`` too; a forced one (Ludix's
    first roll of a turn, Pig's) counts in neither, so a player cannot make the forced moves and
    leave every decision to the bot while counting as having played half."""
    clock = clock or TurnClock()
    timed_out, moves, timeouts = dict(clock.timed_out), dict(clock.moves), dict(clock.timeouts)
    if actor is not None:
        if chosen:
            moves[actor] = moves.get(actor, 0) + 1
        if timed_out_version is not None:
            timed_out[actor] = timed_out_version
            if chosen:
                timeouts[actor] = timeouts.get(actor, 0) + 1
    seats = tuple(sorted(waiting))
    kept = (bool(seats) and clock.deadline is not None and actor is not None and actor not in waiting
            and waiting <= frozenset(clock.seats))
    deadline = None if not seats else clock.deadline if kept else now + seconds
    return TurnClock(deadline, seats, timed_out, moves, timeouts)


def iso(epoch: float) -> str:
    return datetime.datetime.fromtimestamp(epoch, datetime.UTC).isoformat(timespec="milliseconds").replace(
        "+00:00", "Z")


def view(options: Mapping[str, Any], clock: TurnClock | None, now: float) -> dict[str, Any] | None:
    """The envelope's ``timer``: ``None`` for a game without one."""
    seconds = seconds_of(options)
    if seconds is None:
        return None
    deadline = clock.deadline if clock is not None else None
    return {"turn_seconds": seconds, "bot": options.get(BOT), "seats": list(clock.seats) if clock else [],
            "deadline": None if deadline is None else iso(deadline),
            "seconds_left": None if deadline is None else round(max(0.0, deadline - now), 3)}


def options_schema(d: GameDefinition, min_seconds: int = MIN_SECONDS) -> type[Schema]:
    """The game's options schema with the timer's two options (``min_seconds``: the smallest
    ``turn_seconds`` accepted; the public bound is :data:`MIN_SECONDS`, a test stack may lower it)."""
    import marshmallow as ma
    from ludoteca.service_layer.fields import named_enum
    from marshmallow import fields, validate

    basic = d.basic_bot or next(iter(d.bots))

    def check(self: Any, data: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        if data.get(SECONDS) is None:
            if data.get(BOT) is not None:
                raise ma.ValidationError(f"{BOT} needs {SECONDS}.", field_name=BOT)
            data.pop(SECONDS, None)
            data.pop(BOT, None)
        elif data.get(BOT) is None:
            data[BOT] = basic
        return data

    prefix = "".join(part.capitalize() for part in d.name.split("_"))
    return type(f"{prefix}OptionsSchema", (d.options_schema,), {
        SECONDS: fields.Integer(
            strict=True, allow_none=True, validate=validate.Range(min=min_seconds, max=MAX_SECONDS),
            metadata={"description": f"Seconds a human seat has to act ({MIN_SECONDS} to {MAX_SECONDS}); then "
                                     f"a bot plays that turn for it. Default: no timer."}),
        BOT: named_enum(
            f"{prefix}BotLevel", list(d.bots), allow_none=True,
            metadata={"description": f"The bot level that plays a timed-out turn (default: {basic}); "
                                     f"only with {SECONDS}"}),
        "_check_timer": ma.post_load(check),
    })
