"""What a game's commit tells the players bound to its seats (issue 23, item 4): the notices of
one player's event stream (``GET /players/me/events``).

A commit that changes something a player must hear of carries its notices (a
:class:`~ludoteca.service_layer.repository.UnitOfWork`'s ``notices``): the store appends them,
in the same atomic step as the game's new version, to the game's outbox (in the game's own Redis
Cluster slot); a relay then moves them to each player's stream (in the player's slot), right
after the commit and, for any a fault left behind, from the sweeper
(:class:`ludoteca.adapters.players.PlayerEvents`). So a notice is never lost between the commit
and the player's stream, and never told twice.

The kinds, each with the game type, the game's id, the seat and the version that made it:

- ``game_started``: the game's last open seat was taken (to every bound seat);
- ``your_turn``: the seat may act now and could not before this version;
- ``turn_timed_out``: the seat's timed turn ran out and the table's bot played it;
- ``game_finished``: the game is over (``won``: whether the seat is among the winners);
- ``seat_left``: the seat's player left the game (to that player: the bot plays it now);
- ``matched``: matchmaking made the game (the ticket's id; :mod:`ludoteca.service_layer.matching`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ludoteca.core.engine import GameResult
from ludoteca.service_layer.record import GameRecord, Status

GAME_STARTED, YOUR_TURN, TURN_TIMED_OUT, GAME_FINISHED = "game_started", "your_turn", "turn_timed_out", "game_finished"
SEAT_LEFT, MATCHED = "seat_left", "matched"
KINDS = (YOUR_TURN, GAME_STARTED, GAME_FINISHED, TURN_TIMED_OUT, MATCHED, SEAT_LEFT)


@dataclass(frozen=True, slots=True)
class Notice:
    """One notice to one player: ``body`` is what its stream says (``type``, ``game``, ``id``,
    ``seat``, ``version`` and the kind's own fields)."""

    player_id: str
    body: dict[str, Any]


def notice(kind: str, player_id: str, game: str, game_id: str, seat: int, version: int,
           **extra: Any) -> Notice:
    return Notice(player_id, {"type": kind, "game": game, "id": game_id, "seat": seat, "version": version,
                              **extra})


def bound(record: GameRecord) -> list[tuple[int, str]]:
    """The seats of ``record`` bound to players and played by them (not left): (seat, player id)."""
    return [(seat, pid) for seat, pid in enumerate(record.player_ids) if pid and record.is_human(seat)]


def of_commit(game: str, before: GameRecord | None, before_to_act: frozenset[int], after: GameRecord,
              after_to_act: frozenset[int], version: int, result: GameResult | None = None,
              timed_out: int | None = None) -> list[Notice]:
    """The notices of the commit that makes ``after`` (version ``version``) of ``before``
    (``None``: the game is new). ``*_to_act``: who may act at either version (empty unless
    active); ``result``: the result when ``after`` is finished; ``timed_out``: the seat whose
    turn a bot played at its deadline."""
    seats = bound(after)
    if not seats:
        return []
    gid = after.id
    out: list[Notice] = []
    was = before.status if before is not None else None
    if after.status is not Status.WAITING and was in (None, Status.WAITING):
        out += [notice(GAME_STARTED, pid, game, gid, seat, version) for seat, pid in seats]
    late = dict(seats).get(timed_out) if timed_out is not None else None
    if late is not None and timed_out is not None:
        out.append(notice(TURN_TIMED_OUT, late, game, gid, timed_out, version))
    if after.status is Status.FINISHED and was is not Status.FINISHED:
        winners = result.winners if result is not None else ()
        out += [notice(GAME_FINISHED, pid, game, gid, seat, version, won=seat in winners) for seat, pid in seats]
    elif after.status is Status.ACTIVE:
        active_before = before_to_act if was is Status.ACTIVE else frozenset()
        out += [notice(YOUR_TURN, pid, game, gid, seat, version) for seat, pid in seats
                if seat in after_to_act and seat not in active_before]
    return out


def left(game: str, record: GameRecord, seat: int, version: int, level: str) -> list[Notice]:
    """The notice of a seat bound to a player that its player left (the bot ``level`` plays it)."""
    pid = record.player_ids[seat] if seat < len(record.player_ids) else None
    return [notice(SEAT_LEFT, pid, game, record.id, seat, version, bot=level)] if pid else []

