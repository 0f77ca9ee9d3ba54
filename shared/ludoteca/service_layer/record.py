"""The game record: what the store keeps of one hosted game besides its version.

A typed view of the stored document (``<game>:{<id>}:game``'s ``doc`` field). The document's
JSON shape is unchanged (the same keys, ``status`` the same strings), so documents written
before this type existed load as they are, and :meth:`GameRecord.to_doc` writes what they held.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ludoteca.service_layer.numbering import viewer
from ludoteca.service_layer.seats import SeatKind
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
    commitment, the events written so far (``event_count``: all of them, the replay's numbering;
    ``viewer_counts``: those each viewer may see, the spectators' first, then each seat's,
    :mod:`~ludoteca.service_layer.numbering`), the status and the engine's dumped state; a game
    with a turn timer (option ``turn_seconds``) also its clock (:class:`~ludoteca.service_layer.timers.TurnClock`,
    written only then: the documents of untimed games are unchanged).

    A document written before viewers had their own numbers has no ``viewer_counts`` (and is
    written back so): its counts are zeros, and its viewers' numbering starts with its next event
    (their streams begin there; its earlier events stay in the replay)."""

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
    viewer_counts: tuple[int, ...] = ()
    player_ids: tuple[str | None, ...] = ()
    """Each seat's player (issue 23: a seat bound to a player by creating or joining with a
    player's token; None: no player's). Empty, and not written, while no seat is bound: the
    documents of games without players are unchanged."""
    kinds: tuple[SeatKind, ...] = field(init=False, repr=False, compare=False)
    """``players`` parsed (:mod:`ludoteca.service_layer.seats`), once a record."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "kinds", tuple(SeatKind.parse(p) for p in self.players))

    @classmethod
    def from_doc(cls, doc: Mapping[str, Any]) -> GameRecord:
        return cls(
            id=doc["id"], players=tuple(doc["players"]), names=tuple(doc["names"]),
            token_hashes=tuple(doc["token_hashes"]), options=doc["options"], seed=doc["seed"],
            seed_sha256=doc["seed_sha256"], created_at=doc["created_at"],
            event_count=int(doc["event_count"]), status=Status(doc["status"]), state=doc["state"],
            timer=TurnClock.from_doc(doc["timer"]) if doc.get("timer") is not None else None,
            viewer_counts=tuple(doc.get("viewer_counts", ())),
            player_ids=tuple(doc.get("player_ids", ())),
        )

    def to_doc(self) -> dict[str, Any]:
        doc = {
            "id": self.id, "players": list(self.players), "names": list(self.names),
            "token_hashes": list(self.token_hashes), "options": self.options, "seed": self.seed,
            "seed_sha256": self.seed_sha256, "created_at": self.created_at,
            "event_count": self.event_count, "status": self.status.value, "state": self.state,
        }
        if self.viewer_counts:
            doc["viewer_counts"] = list(self.viewer_counts)
        if self.timer is not None:
            doc["timer"] = self.timer.to_doc()
        if self.player_ids:
            doc["player_ids"] = list(self.player_ids)
        return doc

    @property
    def counts(self) -> tuple[int, ...]:
        """Each viewer's count of events (zeros for a document that has none)."""
        return self.viewer_counts or (0,) * (len(self.players) + 1)

    def seen_by(self, seat: int | None) -> int:
        """How many events ``seat`` (``None``: a spectator) may see so far: its last number."""
        return self.counts[viewer(seat)]

    # -- seats ------------------------------------------------------------------------------
    def is_human(self, seat: int) -> bool:
        return self.kinds[seat].is_human

    def level(self, seat: int) -> str | None:
        """The bot level at ``seat`` (``None``: a human seat)."""
        return self.kinds[seat].level

    @property
    def open_seats(self) -> list[int]:
        """The human seats nobody has claimed yet, in seat order."""
        return [i for i, kind in enumerate(self.kinds) if kind.is_human and self.token_hashes[i] is None]

    @property
    def is_full(self) -> bool:
        """Every human seat is claimed (bots always are)."""
        return all(not kind.is_human or h is not None for kind, h in zip(self.kinds, self.token_hashes, strict=True))

    def with_seat_left(self, seat: int, level: str) -> GameRecord:
        """The seat played by the bot ``level`` from now on. Its token's hash and its player stay:
        the token is known and refused (409: the seat was left, ``GameService.seat_of``), and the
        player's games show the game as left."""
        players = list(self.players)
        players[seat] = SeatKind(level).text
        return replace(self, players=tuple(players))

    def left(self, seat: int) -> bool:
        """Whether the seat was a player's who left it (bound to a player, played by a bot)."""
        return seat < len(self.player_ids) and self.player_ids[seat] is not None and not self.is_human(seat)

    def with_seat_claimed(self, seat: int, token_hash: str, name: str) -> GameRecord:
        hashes = list(self.token_hashes)
        hashes[seat] = token_hash
        names = list(self.names)
        names[seat] = name
        return replace(self, token_hashes=tuple(hashes), names=tuple(names))
