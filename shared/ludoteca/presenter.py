"""What a client receives of a game: the envelope, built in one place from the caller's view.

Every response that carries a game (``GET /games/{id}``, the creation and join grants, a played
move) goes through :meth:`Presenter.envelope`; the state in it is ``engine.view`` for the
caller's seat, never the stored state.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ludoteca.engine import GameDefinition, GameResult, may_act
from ludoteca.record import GameRecord, Status


def result_body(result: GameResult | None) -> dict[str, Any] | None:
    if result is None:
        return None
    return {"winners": list(result.winners), "scores": list(result.scores), "summary": result.summary}


def public_event(record: Mapping[str, Any]) -> dict[str, Any]:
    """An event record as a client sees it (without its audience)."""
    return {"seq": record["seq"], "version": record["version"], "type": record["type"], "data": record["data"]}


def is_visible(record: Mapping[str, Any], seat: int | None) -> bool:
    audience = record.get("audience")
    return audience is None or (seat is not None and seat in audience)


class Presenter:
    """Builds the caller's envelope of one game type."""

    def __init__(self, definition: GameDefinition) -> None:
        self.game = definition.name
        self.engine = definition.engine

    @staticmethod
    def seats(record: GameRecord) -> list[dict[str, Any]]:
        return [
            {"seat": i, "kind": "human" if kind == "human" else "bot",
             "level": None if kind == "human" else kind[4:], "name": record.names[i] or None,
             "claimed": kind != "human" or record.token_hashes[i] is not None}
            for i, kind in enumerate(record.players)
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
            "state": self.engine.view(state, seat),
        }
