"""The sweeper: no bot turn or result that falls due is ever lost.

A commit that makes a bot turn (or the recording of a result) due records it in the game's hash
(``due``, ``due_at``) in the same atomic step, and is preceded by a hint in ``<game>:{due}`` (see
:mod:`ludoteca.adapters.store`). The task dispatched after the commit is the fast path; it can be lost (the
process dies between the commit and the enqueue, the broker is down, the queue is deleted, a
redelivered task finds the game moved on). About every second the sweeper takes, for each game
type, the hints older than a grace (``LUDOTECA_SWEEP_GRACE`` seconds, default 5), reads what the
game has due and:

- a bot turn due at the version it reads: dispatches ``bot_turn(game, id, version)`` again;
- a finished game whose result is not recorded yet: dispatches ``record_result(game, id)``;
- a human's timed turn (:mod:`ludoteca.service_layer.timers`) at the version it reads: nothing before its
  deadline (the hint moves to it), then ``bot_turn(game, id, version)``, whose bot plays it: this
  is the timer's only path (no task waits for a deadline in the broker);
- then moves the hint forward with exponential backoff (the next look comes after as long again
  as the turn has been due, between the grace and a minute);
- nothing due, or the game gone: removes the hint (only if nobody wrote a newer one meanwhile).

It also relays the players' notices a fault left in a game's outbox (issue 23, item 4): a commit
that writes notices for the players bound to its seats hints ``<game>:{outbox}`` first; the
service relays them right after the commit (:class:`ludoteca.adapters.players.PlayerEvents`), and
the sweeper relays, once the grace has passed, whatever a process killed in between left: a
relay tells each notice once however often it runs. Then it removes the hint (if nobody wrote a
newer one meanwhile).

A duplicate dispatch is harmless: ``bot_turn`` acts only if the game is still at that version and
``record_result`` records once. Several sweepers may run; a short Redis lock per game type makes
them take turns. Start one with ``python -m ludoteca.adapters.sweeper`` (the ``sweeper`` line of
``deploy/Procfile``, so ``make run`` starts it too).

With ``LUDOTECA_METRICS_PORT`` it exports its metrics there (:mod:`ludoteca.adapters.observe`): what it
re-dispatched, its passes and a heartbeat, and the depth of every game's queue in the broker.
"""

from __future__ import annotations

import argparse
import logging
import os
import secrets
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import FrameType

import redis
from kombu.exceptions import OperationalError
from ludoteca.adapters import observe
from ludoteca.adapters.connect import redis_client
from ludoteca.adapters.fdlimit import raise_nofile
from ludoteca.adapters.players import PlayerEvents
from ludoteca.adapters.store import GameStore
from ludoteca.config import Settings
from ludoteca.service_layer import registry
from ludoteca.service_layer.repository import DueKind
from ludoteca.service_layer.service import Dispatcher

log = logging.getLogger("ludoteca.adapters.sweeper")

MAX_BACKOFF_MS = 60_000
GRACE_SECONDS = 5.0
"""The grace's default: how long after a commit what it made due may still come by itself."""


def grace_seconds(env: Mapping[str, str] = os.environ) -> float:
    """The sweeper's grace (``LUDOTECA_SWEEP_GRACE``; :data:`GRACE_SECONDS`): the players service
    settles a player's intents after the same."""
    return float(env.get("LUDOTECA_SWEEP_GRACE", GRACE_SECONDS))


UNREACHABLE = (redis.ConnectionError, redis.TimeoutError, OperationalError, ConnectionError, TimeoutError)
"""Redis or the broker failing: a pass ends there (the next one, a second later, tries again);
any other error is one game's (or one game type's): logged, its hint deferred, the rest swept."""
PRIORITY_SEP = "\x06\x16"  # kombu's Redis transport: queue "<name><sep><priority>" for priorities 3, 6, 9


def queue_keys(queue: str) -> list[str]:
    """The broker lists holding a queue's waiting tasks."""
    return [queue, *(f"{queue}{PRIORITY_SEP}{p}" for p in (3, 6, 9))]


@dataclass
class SweepCount:
    """What one pass did (summed over the game types)."""

    bot_turns: int = 0
    results: int = 0
    timeouts: int = 0
    deferred: int = 0
    removed: int = 0
    skipped_locked: int = 0
    relayed: int = 0
    """Notices a pass relayed to players' streams (left over by a fault)."""
    failed: int = 0
    """Hints (or whole game types) that raised: logged, deferred, and the pass went on."""

    def add(self, other: SweepCount) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


class Sweeper:
    """Re-dispatches what the commits recorded as due and nobody played."""

    def __init__(self, client: redis.Redis, games: Sequence[str], dispatcher: Dispatcher,
                 grace_seconds: float = GRACE_SECONDS, ttl_seconds: int = Settings.game_ttl_seconds,
                 batch: int = 500, broker: redis.Redis | None = None,
                 relay: Callable[[str, str], int] | None = None) -> None:
        self.stores = {g: GameStore(client, g, ttl_seconds, ttl_seconds) for g in games}
        self.relay = relay
        """Relays a game's outbox to its players' streams (``PlayerEvents.relay``; None: not done here)."""
        self.broker = broker  # given: each pass exports the queues' depth (ludoteca_queue_depth)
        self.dispatcher = dispatcher
        self.grace_ms = max(1, int(grace_seconds * 1000))
        self.batch = batch
        self.token = secrets.token_hex(8)

    def sweep(self) -> SweepCount:
        """One pass over every game type."""
        total = SweepCount()
        for game, store in self.stores.items():
            lock_ms = max(5000, 3 * self.grace_ms)
            if not store.try_lock("lock", self.token, lock_ms):
                total.skipped_locked += 1
                continue
            try:
                total.add(self._sweep_game(game, store))
                if self.relay is not None:
                    total.relayed += self._relay_game(game, store, self.relay)
            except UNREACHABLE:
                raise  # Redis itself: the pass fails, as every other one would now
            except Exception:  # one game type's fault never stops the others' sweeping
                log.exception("sweeping %s failed; the other game types go on", game)
                total.failed += 1
            finally:
                store.unlock("lock", self.token)
        return total

    def _sweep_game(self, game: str, store: GameStore) -> SweepCount:
        count = SweepCount()
        now = store.server_ms()
        for game_id, score in store.hints_before(now - self.grace_ms, self.batch):
            try:
                self._sweep_hint(game, store, game_id, score, now, count)
            except UNREACHABLE:
                raise
            except Exception:  # this game's hint only: logged, tried again after the longest backoff
                log.exception("sweeping %s %s failed; deferred", game, game_id)
                count.failed += 1
                store.defer_hint(game_id, score, now + MAX_BACKOFF_MS - self.grace_ms)
        return count

    def _sweep_hint(self, game: str, store: GameStore, game_id: str, score: int, now: int,
                    count: SweepCount) -> None:
        """One hinted game: re-dispatch what is due, defer or drop its hint (counted in ``count``)."""
        version, due = store.due(game_id)
        if version is None or due is None:
            count.removed += store.drop_hint(game_id, score)
            return
        if due.kind is DueKind.TURN and due.version == version:
            if now < due.since_ms:  # look again at the deadline
                count.deferred += store.defer_hint(game_id, score, due.since_ms - self.grace_ms)
                return
            self.dispatcher.bot_turn(game, game_id, version)
            count.timeouts += 1
            observe.SWEEP_DISPATCHED.labels(game, "timeout").inc()
        elif now - due.since_ms < self.grace_ms:  # fell due again since the hint was written
            count.deferred += store.defer_hint(game_id, score, due.since_ms)
            return
        elif due.kind is DueKind.BOT and due.version == version:
            self.dispatcher.bot_turn(game, game_id, version)
            count.bot_turns += 1
            observe.SWEEP_DISPATCHED.labels(game, "bot").inc()
        elif due.kind is DueKind.RESULT:
            self.dispatcher.record_result(game, game_id)
            count.results += 1
            observe.SWEEP_DISPATCHED.labels(game, "result").inc()
        else:  # pragma: no cover - a commit always rewrites ``due`` with the version
            count.removed += store.drop_hint(game_id, score)
            return
        log.info("re-dispatched %s of %s %s v%s (due for %.1f s)", due.kind, game, game_id, version,
                 (now - due.since_ms) / 1000)
        delay = min(MAX_BACKOFF_MS, max(self.grace_ms, now - due.since_ms))
        store.defer_hint(game_id, score, now + delay - self.grace_ms)

    def _relay_game(self, game: str, store: GameStore, relay: Callable[[str, str], int]) -> int:
        """Relay the outboxes hinted longer ago than the grace; drop each hint once its outbox
        was emptied (unless a newer commit hinted again)."""
        relayed = 0
        index = store.outbox_hints_key
        now = store.server_ms()
        for game_id, score in store.hints_before(now - self.grace_ms, self.batch, index):
            try:
                added = relay(game, game_id)
            except UNREACHABLE:
                raise
            except Exception:  # this outbox only: tried again after the longest backoff
                log.exception("relaying the outbox of %s %s failed; deferred", game, game_id)
                store.defer_hint(game_id, score, now + MAX_BACKOFF_MS - self.grace_ms, index)
                continue
            if added:
                log.info("relayed %d notice(s) left in the outbox of %s %s", added, game, game_id)
            relayed += added
            store.drop_hint(game_id, score, index)
        return relayed

    def run(self, stop: threading.Event, interval: float = 1.0) -> None:
        """Sweep every ``interval`` seconds until ``stop`` is set; Redis or broker errors are
        logged and the next pass tries again."""
        observe.sweeper_heartbeat()  # exported from now on (0 until a pass succeeds: the alert fires)
        while not stop.is_set():
            try:
                count = self.sweep()
                if self.broker is not None:
                    self.export_queue_depth()
                if count.bot_turns or count.results or count.timeouts or count.relayed:
                    log.info("sweep: %s", count)
                observe.SWEEPS.labels("ok").inc()
                observe.sweeper_heartbeat().set(time.time())
            except Exception as err:  # keep sweeping whatever one pass met
                observe.SWEEPS.labels("failed").inc()
                if isinstance(err, redis.RedisError):
                    observe.count_redis_error("", "sweep", err)
                log.warning("sweep failed; retrying", exc_info=True)
            stop.wait(interval)

    def export_queue_depth(self) -> None:
        """``ludoteca_queue_depth``: the length of each game's queue in the broker (Celery's Redis
        transport keeps a queue as a list named after it, one more list per priority step; our
        tasks carry none), in one round trip."""
        assert self.broker is not None
        pipe = self.broker.pipeline(transaction=False)
        for game in self.stores:
            for key in queue_keys(game):
                pipe.llen(key)
        lengths = iter(pipe.execute())
        for game in self.stores:
            observe.QUEUE_DEPTH.labels(game).set(sum(next(lengths) for _ in queue_keys(game)))


def main(argv: list[str] | None = None) -> int:  # pragma: no cover - process entry (tested as a process)
    parser = argparse.ArgumentParser(description="Re-dispatch due bot turns and results nobody played.")
    parser.add_argument("--games", default=os.environ.get("LUDOTECA_GAMES", ""),
                        help="comma-separated game types (default: every installed game)")
    parser.add_argument("--interval", type=float, default=float(os.environ.get("LUDOTECA_SWEEP_INTERVAL", "1")))
    parser.add_argument("--grace", type=float, default=grace_seconds())
    args = parser.parse_args(argv)
    observe.configure_logging("sweeper")
    log.info("open files: %s", raise_nofile())
    from ludoteca.adapters.worker import CeleryDispatcher

    settings = Settings.from_env()
    games = [g for g in args.games.split(",") if g] or registry.names()
    exporting = observe.serve_metrics() is not None
    client = redis_client(settings.redis_url)
    sweeper = Sweeper(client, games, CeleryDispatcher.for_url(settings.broker_url),
                      grace_seconds=args.grace, ttl_seconds=settings.game_ttl_seconds,
                      broker=redis_client(settings.broker_url) if exporting else None,
                      relay=PlayerEvents(client, settings.game_ttl_seconds).relay)
    stop = threading.Event()

    def _stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    log.info("sweeping %s every %.1f s (grace %.1f s)", ",".join(games), args.interval, args.grace)
    sweeper.run(stop, args.interval)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
