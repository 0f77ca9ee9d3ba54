"""Connections to Redis: the one way every process (services, worker, sweeper, tools) builds a
client, so every call has the same timeouts and retry policy."""

from __future__ import annotations

import logging
import os
import threading
import time
import weakref
from queue import Empty
from typing import Any, cast

import redis
from ludoteca.adapters.cluster import cluster_client, is_cluster_url
from ludoteca.config import Settings
from redis.backoff import NoBackoff
from redis.retry import Retry

log = logging.getLogger("ludoteca.adapters.connect")


def redis_client(url: str, timeout: float | None = None, max_connections: int | None = None) -> redis.Redis:
    """The one way to build a Redis client: every call fails within about ``timeout`` seconds
    (default ``Settings.redis_timeout_seconds``, env ``LUDOTECA_REDIS_TIMEOUT``, 1 s).

    No retries inside the client (redis-py's default is ten, with backoff: a hung Redis would
    hold a request for ten-odd seconds). A failed call becomes a 503 with ``Retry-After`` and the
    client retries; that is also the only safe retry for a move, since a commit whose reply was
    lost may have landed (the client's ``Idempotency-Key`` makes its retry exact, a blind retry
    here could not). A connection that died with a Redis restart is noticed when the pool hands
    it out (redis-py reconnects then), so recovery needs no retry and no service restart.
    Long-polls block in slices shorter than the timeout (``GameStore.events_after``), or on
    a client of their own (:func:`blocking_client`).

    ``max_connections`` (default ``Settings.redis_max_connections``): under the gevent worker
    every request in flight, a long-poll included, may hold a connection of the pool at once;
    redis-py's default of 100 would fail the 101st with MaxConnectionsError. The pool
    (:class:`IdleClosingPool`) never opens more; past it a checkout waits up to ``timeout`` for
    a connection to come back (then a 503), and connections idle ``LUDOTECA_REDIS_IDLE_SECONDS``
    (15) are closed, so a burst of streams leaves no Redis clients behind.

    A ``redis+cluster://host:port[,host:port...]`` URL gives a Redis Cluster client with the same
    timeouts and no retries (:mod:`ludoteca.adapters.cluster`; ``max_connections`` per node). It has the
    commands the store uses, so it is typed as the plain client here."""
    settings = Settings.from_env()
    if timeout is None:
        timeout = settings.redis_timeout_seconds
    if max_connections is None:
        max_connections = settings.redis_max_connections
    if is_cluster_url(url):
        return cast(redis.Redis, cluster_client(url, timeout, max_connections))
    pool = IdleClosingPool.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout,
                                    retry=Retry(NoBackoff(), 0), health_check_interval=30,
                                    max_connections=max_connections, timeout=timeout,
                                    idle_seconds=idle_seconds())
    return redis.Redis(connection_pool=pool)


IDLE_ENV = "LUDOTECA_REDIS_IDLE_SECONDS"
IDLE_DEFAULT = 15.0


def idle_seconds() -> float:
    """How long a pooled connection may sit unused before it is closed (``LUDOTECA_REDIS_IDLE_SECONDS``,
    default 15; 0 keeps them)."""
    return float(os.environ.get(IDLE_ENV, "").strip() or IDLE_DEFAULT)


class IdleClosingPool(redis.BlockingConnectionPool):
    """redis-py's blocking pool, bounded and shrinking.

    Bounded: at most ``max_connections`` (a checkout past it waits up to ``timeout``, the
    client's timeout, for one to come back, then fails: a 503, not a connection more; the plain
    pool failed the request at once). Shrinking: redis-py never closes a pooled connection, so a
    burst of long-polls or streams left its connections open for the process's life (issue 20,
    finding 7: 1,000 streams left 2,000 idle Redis clients, 2,100 left 4,031, against Redis's
    ``maxclients`` of 10,000 shared by every process). A connection unused for ``idle_seconds``
    is closed by this process's reaper (a daemon thread, a greenlet under gevent, every
    ``idle_seconds / 2`` s at most 5): its socket closes, its slot stays and reconnects on
    the next checkout (redis-py connects a pooled connection lazily)."""

    def __init__(self, *args: Any, idle_seconds: float = IDLE_DEFAULT, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[no-untyped-call]
        self.idle_seconds = idle_seconds
        if idle_seconds > 0:
            _reaper.watch(self)

    def release(self, connection: Any) -> None:
        connection.ludoteca_idle_since = time.monotonic()
        super().release(connection)  # type: ignore[no-untyped-call]

    def close_idle(self, now: float | None = None) -> int:
        """Disconnect the pooled connections idle longer than ``idle_seconds``; how many."""
        now = time.monotonic() if now is None else now
        taken: list[Any] = []
        try:
            while True:
                taken.append(self.pool.get_nowait())
        except Empty:
            pass
        closed = 0
        for conn in taken:
            if conn is not None and getattr(conn, "_sock", None) is not None \
                    and now - getattr(conn, "ludoteca_idle_since", now) > self.idle_seconds:
                conn.disconnect()
                closed += 1
        for conn in reversed(taken):  # back in the same LIFO order: the busiest stay on top
            self.pool.put_nowait(conn)
        return closed


class _Reaper:
    """One thread a process closing the idle connections of every :class:`IdleClosingPool`."""

    def __init__(self) -> None:
        self.pools: weakref.WeakSet[IdleClosingPool] = weakref.WeakSet()
        self.lock = threading.Lock()
        self.pid: int | None = None

    def watch(self, pool: IdleClosingPool) -> None:
        with self.lock:
            self.pools.add(pool)
            if self.pid != os.getpid():  # first pool, or a forked child: a thread of its own
                self.pid = os.getpid()
                threading.Thread(target=self.run, name="redis-idle-reaper", daemon=True).start()

    def run(self) -> None:
        me = os.getpid()
        while self.pid == me:
            pools = list(self.pools)
            interval = min([5.0, *(p.idle_seconds / 2 for p in pools)])
            time.sleep(max(0.2, interval))
            for pool in pools:
                try:
                    closed = pool.close_idle()
                except Exception:  # never let the reaper die
                    log.warning("closing idle Redis connections failed", exc_info=True)
                    continue
                if closed:
                    log.debug("closed %d idle Redis connections", closed)


_reaper = _Reaper()


def blocking_client(url: str, block_seconds: float, timeout: float | None = None,
                    max_connections: int | None = None) -> redis.Redis:
    """A client for long blocking reads only (``XREAD BLOCK`` of at most ``block_seconds``, by
    ``GameStore.events_after``): the settings of :func:`redis_client`, its socket timeout
    ``block_seconds`` longer, so a read blocked that long is answered and a hung Redis is still
    noticed within the usual timeout after the block. A pool of its own: parked long-polls and
    event streams never take the connections the moves use."""
    settings = Settings.from_env()
    base = settings.redis_timeout_seconds if timeout is None else timeout
    return redis_client(url, base + block_seconds, max_connections)
