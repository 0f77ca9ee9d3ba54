"""The game record: what the store keeps of one hosted game besides its version.

A typed view of the stored document (``<game>:{<id>}:game``'s ``doc`` field). The document's
JSON shape is unchanged (the same keys, ``status`` the same strings), so documents written
before this type existed load as they are, and :meth:`GameRecord.to_doc` writes what they held.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ludoteca.service_layer.timers import TurnClock


class Status(enum.StrEnum):
    """Where a game is in its life; the values are the stored and the API's strings."""

    WAITING = "waiting_for_players"
    ACTIVE = "active"
    FINISHED = "finished"


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game: its seats (``players[i]`` is ``human`` or ``bot:<level>``), their names and
    token hashes (``None``: the human seat is open), the options, the secret seed and its public
    commitment, the events written so far, the status and the engine's dumped state; a game
    with a turn timer (option ``turn_seconds``) also its clock (:class:`~ludoteca.service_layer.timers.TurnClock`,
    written only then: the documents of untimed games are unchanged)."""

    id: str
    players: tuple[str, ...]
    names: tuple[str, ...]
    token_hashes: tuple[str | None, ...]
    options: Mapping[str, Any]
    seed: str
    seed_sha256: str
    created_at: float
    event_count: int
    status: Status
    state: Mapping[str, Any]
    timer: TurnClock | None = None

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> GameRecord:
        return cls(
            id=doc["id"], players=tuple(doc["players"]), names=tuple(doc["names"]),
            token_hashes=tuple(doc["token_hashes"]), options=doc["options"], seed=doc["seed"],
            seed_sha256=doc["seed_sha256"], created_at=doc["created_at"],
            event_count=int(doc["event_count"]), status=Status(doc["status"]), state=doc["state"],
            timer=TurnClock.from_doc(doc["timer"]) if doc.get("timer") is not None else None,
        )

    def to_doc(self) -> dict[str, Any]:
        doc = {
            "id": self.id, "players": list(self.players), "names": list(self.names),
            "token_hashes": list(self.token_hashes), "options": self.options, "seed": self.seed,
            "seed_sha256": self.seed_sha256, "created_at": self.created_at,
            "event_count": self.event_count, "status": self.status.value, "state": self.state,
        }
        if self.timer is not None:
            doc["timer"] = self.timer.to_doc()
        return doc

    # -- seats ------------------------------------------------------------------------------
    def is_human(self, seat: int) -> bool:
        return self.players[seat] == "human"

    @property
    def open_seats(self) -> list[int]:
        """The human seats nobody has claimed yet, in seat order."""
        return [i for i, kind in enumerate(self.players) if kind == "human" and self.token_hashes[i] is None]

    @property
    def is_full(self) -> bool:
        """Every human seat is claimed (bots always are)."""
        return all(kind != "human" or h is not None for kind, h in zip(self.players, self.token_hashes, strict=True))

    def with_seat_claimed(self, seat: int, token_hash: str, name: str) -> GameRecord:
        hashes = list(self.token_hashes)
        hashes[seat] = token_hash
        names = list(self.names)
        names[seat] = name
        return replace(self, token_hashes=tuple(hashes), names=tuple(names))
