"""The turn timers as the service runs them: a collaborator of
:class:`~ludoteca.service_layer.service.GameService` (the rules are :mod:`ludoteca.service_layer.timers`').

:class:`TurnTimers` moves a timed game's clock on with each commit, says when a waiting turn is
past its deadline, which bot level plays a timed-out turn, and the event that comes first in
such a move. A game without a timer passes through unchanged.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ludoteca.core.engine import Event, GameDefinition
from ludoteca.service_layer import events, timers
from ludoteca.service_layer.record import GameRecord, Status


class TurnTimers:
    """The turn clocks of one game type, read from ``clock`` (epoch seconds)."""

    def __init__(self, definition: GameDefinition, clock: Callable[[], float] = time.time) -> None:
        self.d = definition
        self.engine = definition.engine
        self.clock = clock

    @staticmethod
    def is_timed(record: GameRecord) -> bool:
        """The game has a turn timer (option ``turn_seconds``)."""
        return timers.seconds_of(record.options) is not None

    def is_choice(self, record: GameRecord, state: Any, seat: int) -> bool:
        """Whether ``seat``'s move from ``state`` is a choice the clock counts (more than one legal
        action, :func:`ludoteca.service_layer.timers.advance`): read only for a timed game (the
        legal actions cost an engine call), True otherwise."""
        return not self.is_timed(record) or len(self.engine.legal_actions(state, seat)) > 1

    def clocked(self, record: GameRecord, state: Any, actor: int | None, version: int,
                to_act: frozenset[int] | None = None, timed_out: bool = False, chosen: bool = True) -> GameRecord:
        """The record with its turn clock moved on by a commit of ``actor`` (``None``: a join or
        the creation) at ``version`` (``timed_out``: a timeout move; ``chosen``: the actor had a
        choice, :func:`ludoteca.service_layer.timers.advance`); a game without a timer: as it is."""
        seconds = timers.seconds_of(record.options)
        if seconds is None:
            return record
        waiting: frozenset[int] = frozenset()
        if record.status is Status.ACTIVE:
            seats = self.engine.to_act(state) if to_act is None else to_act
            waiting = frozenset(s for s in seats if record.is_human(s))
        clock = timers.advance(record.timer, seconds, actor, waiting, self.clock(), version if timed_out else None,
                               chosen)
        return replace(record, timer=clock)

    def before_deadline(self, record: GameRecord) -> bool:
        """A human's timed turn waits and its deadline has not passed yet."""
        clock = record.timer
        return clock is not None and bool(clock.deadline) and not clock.is_due(self.clock())

    @staticmethod
    def waiting_seat(record: GameRecord, to_act: frozenset[int]) -> int | None:
        """The human seat whose timed turn a timeout move plays (the lowest waiting one), if any."""
        clock = record.timer
        if clock is None or not clock.deadline:
            return None
        return next((s for s in clock.seats if s in to_act and record.is_human(s)), None)

    def timeout_level(self, record: GameRecord) -> str:
        """The bot level that plays a timed-out turn: the game's option, else its basic bot."""
        return str(record.options.get(timers.BOT) or self.d.basic_bot or next(iter(self.d.bots)))

    @staticmethod
    def timed_out(record: GameRecord, seat: int, level: str) -> Event:
        """The public event that comes first in a timeout move of ``seat``."""
        deadline = record.timer.deadline if record.timer is not None else None
        return events.turn_timed_out(seat, level, None if deadline is None else timers.iso(deadline))
