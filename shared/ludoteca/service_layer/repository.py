"""The repository of live games: the interface the service layer talks to, its value types,
and an in-memory implementation with the Redis store's semantics (for fast service tests).

:class:`~ludoteca.adapters.store.GameStore` is the real adapter (Redis, one Lua script per write);
:class:`MemoryStore` keeps everything in dicts under one lock and gives the same answers:
compare-and-set on the version, one idempotency record per (seat, key) checked before the
version, the events with their sequence numbers, the action log, what each version makes due,
and the seat-write quota counted inside the commit. It has no TTLs (nothing outlives a test).
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol

from ludoteca.service_layer.record import GameRecord


class GameMissing(LookupError):
    """No live game with that id (never existed, or expired)."""


@dataclass(frozen=True)
class Stored:
    """One game as read: its version and its stored document (``record``: the typed view)."""

    version: int
    doc: dict[str, Any]
    cached: bool = field(default=False, compare=False)
    """Read from this process's memory of the game (:class:`~ludoteca.service_layer.service.RecentGames`), not
    from the store just now: the game may have moved on since (a commit's compare-and-set finds
    out)."""

    @cached_property
    def record(self) -> GameRecord:
        return GameRecord.from_doc(self.doc)

    @cached_property
    def derived(self) -> dict[str, Any]:
        """What has been worked out from this read's document, kept with it (the service keeps
        the decoded engine state here: ``GameService.state_of``)."""
        return {}


@dataclass(frozen=True)
class Due:
    """What a game is waiting on from the platform: ``kind`` is ``bot`` (a bot turn at
    ``version``), ``turn`` (a human's timed turn at ``version``, :mod:`ludoteca.service_layer.timers`) or
    ``result`` (recording the result); ``since_ms``: server time it fell due (a timed turn: its
    deadline, when it falls due)."""

    kind: str
    version: int
    since_ms: int


@dataclass(frozen=True)
class CommitResult:
    """``status`` is ``ok`` (``version`` is the new one), ``stale`` (``version`` is the current
    one, ``current`` the game as it is now), ``idempotent`` (``replay`` holds the record stored earlier for that key) or
    ``limited`` (over the write quota: ``retry_after`` seconds until its window ends)."""

    status: str
    version: int = 0
    replay: dict[str, Any] | None = None
    retry_after: int = 0
    current: Stored | None = None


@dataclass
class Quota:
    """A fixed-window counter a request spends one unit of: at most ``limit`` per ``window``
    seconds under ``key`` (the rate limiter's seat buckets, :mod:`ludoteca.adapters.hosting.ratelimit`).
    A move's commit spends its seat-write quota in its own atomic step; a read spends its
    seat-read quota before it is answered (:meth:`GameRepository.spend`). ``spent`` says it was,
    so a request that fails afterwards is not counted twice. ``what`` names the limit in a 429's
    detail."""

    key: str
    limit: int
    window: int
    what: str
    spent: bool = field(default=False)


def retry_seconds(pttl_ms: int) -> int:
    """``Retry-After`` for a window with ``pttl_ms`` left: whole seconds, rounded, plus one."""
    return max(1, round(max(pttl_ms, 0) / 1000) + 1)


class GameRepository(Protocol):
    """What the service layer needs of a store (the Redis store and the in-memory fake)."""

    def create(self, game_id: str, doc: dict[str, Any], events: Sequence[dict[str, Any]], due: str = "",
               due_at: int | None = None) -> bool: ...

    def load(self, game_id: str) -> Stored: ...

    def commit(self, game_id: str, expected_version: int, doc: dict[str, Any], events: Sequence[dict[str, Any]],
               first_seq: int, log_entry: dict[str, Any] | None = None,
               idempotency: tuple[int, str, dict[str, Any]] | None = None, due: str = "",
               quota: Quota | None = None, due_at: int | None = None) -> CommitResult: ...

    def idempotency_record(self, game_id: str, seat: int, key: str) -> dict[str, Any] | None: ...

    def spend(self, quota: Quota, idempotency: tuple[str, int, str] | None = None
              ) -> tuple[int | None, dict[str, Any] | None]: ...

    def action_log(self, game_id: str) -> list[dict[str, Any]]: ...

    def events_after(self, game_id: str, after: int, block_ms: int | None = None,
                     count: int = 500) -> list[tuple[int, dict[str, Any]]]: ...

    def lobby_add(self, game_id: str, created: float) -> None: ...

    def lobby_remove(self, game_id: str) -> None: ...

    def lobby_page(self, offset: int, limit: int) -> tuple[int, list[str]]: ...

    def record_result(self, game_id: str, entries: Sequence[tuple[str, bool, float]], shared: bool) -> bool: ...

    def clear_result_due(self, game_id: str) -> bool: ...

    def due(self, game_id: str) -> tuple[int | None, Due | None]: ...

    def leaderboard(self, limit: int) -> list[dict[str, Any]]: ...

    def stats(self) -> dict[str, int]: ...


@dataclass
class _Game:
    version: int
    doc: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    due: tuple[str, int] | None = None  # (tag, since_ms)


class MemoryStore:
    """An in-memory :class:`GameRepository` with the Redis store's semantics (no TTLs)."""

    def __init__(self, game: str = "memory", clock: Any = time.time) -> None:
        self.game = game
        self.clock = clock
        self._lock = threading.Condition()
        self._games: dict[str, _Game] = {}
        self._idem: dict[tuple[str, int, str], dict[str, Any]] = {}
        self._counters: dict[str, tuple[int, float]] = {}  # key -> (count, window end)
        self._lobby: dict[str, float] = {}
        self._recorded: set[str] = set()
        self._players: dict[str, dict[str, float]] = {}
        self._stats: dict[str, int] = {}
        self.hints: set[str] = set()

    def _ms(self) -> int:
        return int(self.clock() * 1000)

    def _set_due(self, game: _Game, due: str, version: int, due_at: int | None = None) -> None:
        tag = f"{due}:{version}" if due in ("bot", "turn") else due
        game.due = None if not due else (tag, self._ms() if due_at is None else due_at)

    # -- games ------------------------------------------------------------------------------
    def create(self, game_id: str, doc: dict[str, Any], events: Sequence[dict[str, Any]], due: str = "",
               due_at: int | None = None) -> bool:
        with self._lock:
            if game_id in self._games:
                return False
            if due:
                self.hints.add(game_id)
            game = _Game(1, copy.deepcopy(doc), [copy.deepcopy(e) for e in events])
            self._set_due(game, due, 1, due_at)
            self._games[game_id] = game
            self._lock.notify_all()
            return True

    def load(self, game_id: str) -> Stored:
        with self._lock:
            game = self._games.get(game_id)
            if game is None:
                raise GameMissing(game_id)
            return Stored(game.version, copy.deepcopy(game.doc))

    def _spend(self, quota: Quota) -> int | None:
        now = self.clock()
        count, end = self._counters.get(quota.key, (0, now + quota.window))
        if end <= now:
            count, end = 0, now + quota.window
        self._counters[quota.key] = (count + 1, end)
        quota.spent = True
        return retry_seconds(int((end - now) * 1000)) if count + 1 > quota.limit else None

    def commit(self, game_id: str, expected_version: int, doc: dict[str, Any], events: Sequence[dict[str, Any]],
               first_seq: int, log_entry: dict[str, Any] | None = None,
               idempotency: tuple[int, str, dict[str, Any]] | None = None, due: str = "",
               quota: Quota | None = None, due_at: int | None = None) -> CommitResult:
        with self._lock:
            if quota is not None and not quota.spent:
                retry = self._spend(quota)
                if retry is not None:
                    return CommitResult("limited", retry_after=retry)
            game = self._games.get(game_id)
            if game is None:
                raise GameMissing(game_id)
            if idempotency is not None:
                existing = self._idem.get((game_id, idempotency[0], idempotency[1]))
                if existing is not None:
                    return CommitResult("idempotent", replay=copy.deepcopy(existing))
            if game.version != expected_version:
                return CommitResult("stale", version=game.version,
                                    current=Stored(game.version, copy.deepcopy(game.doc)))
            if due:
                self.hints.add(game_id)
            game.version += 1
            game.doc = copy.deepcopy(doc)
            for i, event in enumerate(events):
                game.events.append(dict(copy.deepcopy(event), seq=first_seq + i))
            if log_entry is not None:
                game.log.append(copy.deepcopy(log_entry))
            if idempotency is not None:
                self._idem[(game_id, idempotency[0], idempotency[1])] = copy.deepcopy(idempotency[2])
            self._set_due(game, due, game.version, due_at)
            self._lock.notify_all()
            return CommitResult("ok", version=game.version)

    def idempotency_record(self, game_id: str, seat: int, key: str) -> dict[str, Any] | None:
        with self._lock:
            found = self._idem.get((game_id, seat, key))
            return None if found is None else copy.deepcopy(found)

    def spend(self, quota: Quota, idempotency: tuple[str, int, str] | None = None
              ) -> tuple[int | None, dict[str, Any] | None]:
        with self._lock:
            retry = None if quota.spent else self._spend(quota)
            record = None if idempotency is None else self._idem.get(idempotency)
            return retry, copy.deepcopy(record)

    def action_log(self, game_id: str) -> list[dict[str, Any]]:
        with self._lock:
            game = self._games.get(game_id)
            return [] if game is None else copy.deepcopy(game.log)

    def events_after(self, game_id: str, after: int, block_ms: int | None = None,
                     count: int = 500) -> list[tuple[int, dict[str, Any]]]:
        deadline = time.monotonic() + (block_ms or 0) / 1000
        with self._lock:
            while True:
                game = self._games.get(game_id)
                found = [] if game is None else [e for e in game.events if e["seq"] > after][:count]
                left = deadline - time.monotonic()
                if found or not block_ms or left <= 0:
                    return [(e["seq"], copy.deepcopy(e)) for e in found]
                self._lock.wait(left)

    # -- lobby ------------------------------------------------------------------------------
    def lobby_add(self, game_id: str, created: float) -> None:
        with self._lock:
            self._lobby[game_id] = created

    def lobby_remove(self, game_id: str) -> None:
        with self._lock:
            self._lobby.pop(game_id, None)

    def lobby_page(self, offset: int, limit: int) -> tuple[int, list[str]]:
        with self._lock:
            ids = sorted(self._lobby, key=lambda g: (self._lobby[g], g))
            return len(ids), ids[offset:offset + limit]

    # -- results and liveness ---------------------------------------------------------------
    def record_result(self, game_id: str, entries: Sequence[tuple[str, bool, float]], shared: bool) -> bool:
        with self._lock:
            if game_id in self._recorded:
                return False
            self._recorded.add(game_id)
            self._stats["games"] = self._stats.get("games", 0) + 1
            if shared:
                self._stats["shared_wins"] = self._stats.get("shared_wins", 0) + 1
            for seat, (name, won, score) in enumerate(entries):
                row = self._players.setdefault(name, {"wins": 0, "played": 0, "points": 0.0})
                row["wins"] += 1 if won else 0
                row["played"] += 1
                row["points"] += float(score)
                if won:
                    key = f"seat_wins:{seat}"
                    self._stats[key] = self._stats.get(key, 0) + 1
            return True

    def clear_result_due(self, game_id: str) -> bool:
        with self._lock:
            game = self._games.get(game_id)
            if game is None or game.due is None or game.due[0] != "result":
                return False
            game.due = None
            return True

    def due(self, game_id: str) -> tuple[int | None, Due | None]:
        with self._lock:
            game = self._games.get(game_id)
            if game is None:
                return None, None
            if game.due is None:
                return game.version, None
            kind, _, at = game.due[0].partition(":")
            return game.version, Due(kind, int(at or game.version), game.due[1])

    def leaderboard(self, limit: int) -> list[dict[str, Any]]:
        with self._lock:
            ranked = sorted(self._players.items(), key=lambda kv: (-kv[1]["wins"], kv[0]))[:limit]
            return [{"player": name, "wins": int(r["wins"]), "played": int(r["played"]),
                     "win_rate": r["wins"] / r["played"] if r["played"] else 0.0,
                     "mean_score": r["points"] / r["played"] if r["played"] else 0.0} for name, r in ranked]

    def stats(self) -> dict[str, int]:
        with self._lock:
            return dict(self._stats)
