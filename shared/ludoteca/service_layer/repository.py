"""The repository of live games: the interface the service layer talks to, its value types,
and an in-memory implementation with the Redis store's semantics (for fast service tests).

A write is one :class:`UnitOfWork`: everything one version of a game changes (the document,
the events and each viewer's numbering of them, the action log's entry, the idempotency record,
what the version makes due (:class:`DueWork`) and the seat's write quota), applied atomically
by :meth:`GameRepository.commit` (a compare-and-set on the version it starts from) or
:meth:`GameRepository.create` (a new game, version 1), or not at all.

:class:`~ludoteca.adapters.store.GameStore` is the real adapter (Redis, one Lua script per write);
:class:`MemoryStore` keeps everything in dicts under one lock and gives the same answers:
compare-and-set on the version, one idempotency record per (seat, key) checked before the
version, the events with their sequence numbers (the global ones, and each viewer's own,
:mod:`ludoteca.service_layer.numbering`), the action log, what each version makes due,
and the seat-write quota counted inside the commit. It has no TTLs (nothing outlives a test).
"""

from __future__ import annotations

import copy
import enum
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol

from ludoteca.service_layer.events import EventRecord
from ludoteca.service_layer.notices import Notice
from ludoteca.service_layer.numbering import Shown, numbered
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


class DueKind(enum.StrEnum):
    """What a version of a game leaves the platform to do; the values are the stored tags."""

    NOTHING = ""
    BOT = "bot"
    """A bot seat's turn (a ``bot_turn`` task at the version)."""
    TURN = "turn"
    """A human's timed turn, due at its deadline (:mod:`ludoteca.service_layer.timers`)."""
    RESULT = "result"
    """Recording the finished game's result."""

    @property
    def per_version(self) -> bool:
        """Stored with the version it is due at (``bot:<version>``, ``turn:<version>``)."""
        return self is DueKind.BOT or self is DueKind.TURN


@dataclass(frozen=True, slots=True)
class DueWork:
    """What a commit makes due: its ``kind`` and, for a timed turn, when (``at_ms``, its
    deadline in ms; ``None``: as it is committed, by the store's clock)."""

    kind: DueKind = DueKind.NOTHING
    at_ms: int | None = None

    def __bool__(self) -> bool:
        return self.kind is not DueKind.NOTHING

    def ready(self, clock: Callable[[], float]) -> bool:
        """To dispatch as the commit lands: a bot turn or the result, or a timed turn whose
        deadline has passed already by ``clock`` (epoch seconds; else the sweeper dispatches it
        then)."""
        if self.kind is DueKind.TURN:
            return self.at_ms is not None and self.at_ms <= clock() * 1000
        return bool(self)


NOTHING_DUE = DueWork()


@dataclass(frozen=True)
class Due:
    """What a game is waiting on from the platform, as the store has it: ``kind`` (:class:`DueKind`:
    a bot turn or a timed turn at ``version``, or recording the result); ``since_ms``: server
    time it fell due (a timed turn: its deadline, when it falls due)."""

    kind: DueKind
    version: int
    since_ms: int

    @classmethod
    def from_tag(cls, tag: str, version: int, since_ms: int) -> Due:
        """From the stored tag (``bot:<version>``, ``turn:<version>``, ``result``)."""
        kind, _, at = tag.partition(":")
        return cls(DueKind(kind), int(at or version), since_ms)


@dataclass(frozen=True, slots=True)
class IdempotencyEntry:
    """The record an ``Idempotency-Key`` keeps of a move: the seat's key, the request body's
    fingerprint and the response (``record``: ``hash``, ``body``, ``version``)."""

    seat: int
    key: str
    record: Mapping[str, Any]


@dataclass(frozen=True)
class UnitOfWork:
    """One atomic write of a game: a new game (:meth:`GameRepository.create`, version 1) or the
    next version of one (:meth:`GameRepository.commit`, a compare-and-set on ``expected_version``).

    ``doc``: the new document; ``events``: the records it writes, in the game's order;
    ``shown``: the same events as each viewer is told them, numbered
    (:func:`ludoteca.service_layer.numbering.number`), one per event; ``viewers``: how many
    viewers the game has (the spectators and each seat: their streams' TTLs are refreshed);
    ``due``: what the new version makes due; ``log_entry``: the action log's entry (a move);
    ``idempotency``: the record its ``Idempotency-Key`` keeps; ``quota``: the seat's write quota,
    one unit of it spent first (over it, nothing is written: ``limited``); ``notices``: what the
    players bound to its seats must be told (:mod:`~ludoteca.service_layer.notices`), appended to
    the game's outbox in the same atomic step (numbered ``(version, i)``, ``i`` from 1)."""

    game_id: str
    doc: dict[str, Any]
    events: Sequence[EventRecord]
    shown: Sequence[Shown] = ()
    viewers: int = 0
    due: DueWork = NOTHING_DUE
    expected_version: int = 0
    log_entry: dict[str, Any] | None = None
    idempotency: IdempotencyEntry | None = None
    quota: Quota | None = None
    notices: Sequence[Notice] = ()

    @property
    def first_seq(self) -> int:
        """The number of its first event in the game (the document's count when it has none)."""
        return self.events[0].seq if self.events else int(self.doc.get("event_count", 0)) + 1


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


SEAT_WINS = "seat_wins:"
"""The prefix of the statistics' per-seat win counters (``seat_wins:<seat>``)."""


@dataclass(frozen=True)
class Totals:
    """The statistics over every recorded game: how many, how many wins were shared, and the
    wins of each seat (by its number, as a string: the JSON object's keys)."""

    games: int = 0
    shared_wins: int = 0
    seat_wins: Mapping[str, int] = field(default_factory=dict)

    @classmethod
    def from_counters(cls, counters: Mapping[str, int]) -> Totals:
        """From the repository's counters (:meth:`GameRepository.stats`)."""
        return cls(counters.get("games", 0), counters.get("shared_wins", 0),
                   {k[len(SEAT_WINS):]: v for k, v in counters.items() if k.startswith(SEAT_WINS)})

    def to_body(self) -> dict[str, Any]:
        return {"games": self.games, "shared_wins": self.shared_wins, "seat_wins": dict(self.seat_wins)}


class GameRepository(Protocol):
    """What the service layer needs of a store (the Redis store and the in-memory fake)."""

    def create(self, work: UnitOfWork) -> bool: ...

    def load(self, game_id: str) -> Stored: ...

    def commit(self, work: UnitOfWork) -> CommitResult: ...

    def idempotency_record(self, game_id: str, seat: int, key: str) -> dict[str, Any] | None: ...

    def spend(self, quota: Quota, idempotency: tuple[str, int, str] | None = None
              ) -> tuple[int | None, dict[str, Any] | None]: ...

    def action_log(self, game_id: str) -> list[dict[str, Any]]: ...

    def events_after(self, game_id: str, after: int, block_ms: int | None = None,
                     count: int = 500) -> list[tuple[int, dict[str, Any]]]: ...

    def viewer_events(self, game_id: str, viewer: int, after: int, block_ms: int | None = None,
                      count: int = 500) -> list[dict[str, Any]]: ...

    def lobby_add(self, game_id: str, created: float) -> None: ...

    def lobby_remove(self, game_id: str) -> None: ...

    def lobby_page(self, offset: int, limit: int) -> tuple[int, list[str]]: ...

    def record_result(self, game_id: str, entries: Sequence[tuple[str, bool, float]], shared: bool) -> bool: ...

    def clear_result_due(self, game_id: str) -> bool: ...

    def due(self, game_id: str) -> tuple[int | None, Due | None]: ...

    def leaderboard(self, limit: int) -> list[dict[str, Any]]: ...

    def stats(self) -> dict[str, int]:
        """The statistics' counters: ``games``, ``shared_wins``, ``seat_wins:<seat>``
        (:meth:`Totals.from_counters`)."""
        ...


@dataclass
class _Game:
    version: int
    doc: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    due: tuple[str, int] | None = None  # (stored tag, since_ms)
    seen: dict[int, list[dict[str, Any]]] = field(default_factory=dict)  # viewer -> its numbered events
    outbox: list[tuple[int, int, Notice]] = field(default_factory=list)  # (version, i, notice)

    def show(self, shown: Sequence[Shown]) -> None:
        for s in shown:
            for v, n in s.numbers:
                self.seen.setdefault(v, []).append(numbered(n, copy.deepcopy(s.event)))


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

    def _set_due(self, game: _Game, due: DueWork, version: int) -> None:
        tag = f"{due.kind.value}:{version}" if due.kind.per_version else due.kind.value
        game.due = None if not due else (tag, self._ms() if due.at_ms is None else due.at_ms)

    # -- games ------------------------------------------------------------------------------
    def create(self, work: UnitOfWork) -> bool:
        with self._lock:
            if work.game_id in self._games:
                return False
            if work.due:
                self.hints.add(work.game_id)
            game = _Game(1, copy.deepcopy(work.doc), [copy.deepcopy(e.to_doc()) for e in work.events])
            game.show(work.shown)
            game.outbox += [(1, i, n) for i, n in enumerate(work.notices, 1)]
            self._set_due(game, work.due, 1)
            self._games[work.game_id] = game
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

    def commit(self, work: UnitOfWork) -> CommitResult:
        game_id, quota, idempotency = work.game_id, work.quota, work.idempotency
        with self._lock:
            if quota is not None and not quota.spent:
                retry = self._spend(quota)
                if retry is not None:
                    return CommitResult("limited", retry_after=retry)
            game = self._games.get(game_id)
            if game is None:
                raise GameMissing(game_id)
            if idempotency is not None:
                existing = self._idem.get((game_id, idempotency.seat, idempotency.key))
                if existing is not None:
                    return CommitResult("idempotent", replay=copy.deepcopy(existing))
            if game.version != work.expected_version:
                return CommitResult("stale", version=game.version,
                                    current=Stored(game.version, copy.deepcopy(game.doc)))
            if work.due:
                self.hints.add(game_id)
            game.version += 1
            game.doc = copy.deepcopy(work.doc)
            first = work.first_seq
            for i, event in enumerate(work.events):
                game.events.append(dict(copy.deepcopy(event.to_doc()), seq=first + i))
            game.show(work.shown)
            game.outbox += [(game.version, i, n) for i, n in enumerate(work.notices, 1)]
            if work.log_entry is not None:
                game.log.append(copy.deepcopy(work.log_entry))
            if idempotency is not None:
                self._idem[(game_id, idempotency.seat, idempotency.key)] = copy.deepcopy(dict(idempotency.record))
            self._set_due(game, work.due, game.version)
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
        found = self._wait(game_id, lambda game: game.events, after, block_ms, count)
        return [(e["seq"], e) for e in found]

    def viewer_events(self, game_id: str, viewer: int, after: int, block_ms: int | None = None,
                      count: int = 500) -> list[dict[str, Any]]:
        return self._wait(game_id, lambda game: game.seen.get(viewer, []), after, block_ms, count)

    def _wait(self, game_id: str, events: Callable[[_Game], list[dict[str, Any]]], after: int, block_ms: int | None,
              count: int) -> list[dict[str, Any]]:
        """Copies of the events (``events(game)``) numbered over ``after``, waiting up to
        ``block_ms`` for the first."""
        deadline = time.monotonic() + (block_ms or 0) / 1000
        with self._lock:
            while True:
                game = self._games.get(game_id)
                found = [] if game is None else [e for e in events(game) if e["seq"] > after][:count]
                left = deadline - time.monotonic()
                if found or not block_ms or left <= 0:
                    return copy.deepcopy(found)
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
                    key = f"{SEAT_WINS}{seat}"
                    self._stats[key] = self._stats.get(key, 0) + 1
            return True

    def clear_result_due(self, game_id: str) -> bool:
        with self._lock:
            game = self._games.get(game_id)
            if game is None or game.due is None or game.due[0] != DueKind.RESULT.value:
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
            return game.version, Due.from_tag(game.due[0], game.version, game.due[1])

    def leaderboard(self, limit: int) -> list[dict[str, Any]]:
        with self._lock:
            ranked = sorted(self._players.items(), key=lambda kv: (-kv[1]["wins"], kv[0]))[:limit]
            return [{"player": name, "wins": int(r["wins"]), "played": int(r["played"]),
                     "win_rate": r["wins"] / r["played"] if r["played"] else 0.0,
                     "mean_score": r["points"] / r["played"] if r["played"] else 0.0} for name, r in ranked]

    def stats(self) -> dict[str, int]:
        with self._lock:
            return dict(self._stats)
