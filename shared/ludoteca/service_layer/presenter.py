"""What a client receives of a game: the envelope, built in one place from the caller's view.

Every response that carries a game (``GET /games/{id}``, the creation and join grants, a played
move) goes through :meth:`Presenter.envelope`; the state in it is ``engine.view`` for the
caller's seat, never the stored state. A seat's legal actions (``GET /games/{id}/actions``, and
a move's ``next``: the mover's, so one request a move) go through :meth:`Presenter.actions`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from ludoteca.core.engine import GameDefinition, GameResult, may_act
from ludoteca.service_layer import timers
from ludoteca.service_layer.record import GameRecord, Status


def result_body(result: GameResult | None) -> dict[str, Any] | None:
    if result is None:
        return None
    return {"winners": list(result.winners), "scores": list(result.scores), "summary": result.summary}


def is_visible(record: Mapping[str, Any], seat: int | None) -> bool:
    audience = record.get("audience")
    return audience is None or (seat is not None and seat in audience)


class Presenter:
    """Builds the caller's envelope of one game type."""

    def __init__(self, definition: GameDefinition, clock: Callable[[], float] = time.time) -> None:
        self.game = definition.name
        self.engine = definition.engine
        self.clock = clock  # a timed game's seconds left
        self.compact = getattr(definition.engine, "compact_listing", None)  # a large listing's compact form

    @staticmethod
    def seats(record: GameRecord) -> list[dict[str, Any]]:
        return [
            {"seat": i, "kind": "human" if kind.is_human else "bot", "level": kind.level,
             "name": record.names[i] or None, "claimed": not kind.is_human or record.token_hashes[i] is not None}
            for i, kind in enumerate(record.kinds)
        ]

    def envelope(self, version: int, record: GameRecord, seat: int | None, state: Any,
                 result: GameResult | None = None, to_act: frozenset[int] | None = None) -> dict[str, Any]:
        """The envelope of ``record`` at ``version`` for ``seat`` (``None``: a spectator).
        ``state`` is the loaded engine state; ``result`` and ``to_act`` may be passed when the
        caller has them already (``result`` is then trusted only for a finished game)."""
        if record.status is Status.FINISHED:
            if result is None:
                result = self.engine.result(state)
        else:
            result = None
        active = record.status is Status.ACTIVE
        if active and to_act is None:
            to_act = self.engine.to_act(state)
        return {
            "id": record.id, "game": self.game, "version": version, "status": record.status.value,
            "seed_sha256": record.seed_sha256, "created_at": record.created_at, "you": seat,
            "seats": self.seats(record),
            "to_act": sorted(to_act) if active and to_act is not None else [],
            "may_act": sorted(may_act(self.engine, state, seat, to_act)) if active and to_act is not None else [],
            "result": result_body(result),
            "timer": timers.view(record.options, record.timer, self.clock()),
            "state": self.engine.view(state, seat),
        }

    def actions(self, version: int, status: Status, seat: int, state: Any, expand: bool = False) -> dict[str, Any]:
        """``seat``'s legal actions at ``version`` (``GET /games/{id}/actions``): empty unless
        the game is active. Where the engine has a compact form of a large listing
        (``compact_listing``: Speculation's joker guesses as one template with its domain) that
        form, unless ``expand`` (``?expand=1``: every body listed)."""
        playing = status is Status.ACTIVE
        compact = self.compact(state, seat) if playing and not expand and self.compact is not None else None
        if compact is not None:
            actions, templates = compact
        elif playing:
            actions, templates = self.engine.legal_actions(state, seat), self.engine.action_templates(state, seat)
        else:
            actions, templates = [], []
        return {"version": version, "seat": seat, "status": status.value, "actions": actions, "templates": templates}

    def next_actions(self, version: int, status: Status, seat: int, state: Any,
                     to_act: frozenset[int] | None = None) -> dict[str, Any] | None:
        """What a move's answer tells the seat that played it (``next``): its listing at the new
        ``version`` (:meth:`actions`) while it may still act (:func:`may_act`: to act, or out of
        turn), else None (a client then waits for the game's events)."""
        if status is not Status.ACTIVE:
            return None
        if seat not in may_act(self.engine, state, seat, to_act):
            return None
        return self.actions(version, status, seat, state)
