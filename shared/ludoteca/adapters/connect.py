"""Connections to Redis: the one way every process (services, worker, sweeper, tools) builds a
client, so every call has the same timeouts and retry policy."""

from __future__ import annotations

from typing import cast

import redis
from ludoteca.adapters.cluster import cluster_client, is_cluster_url
from ludoteca.config import Settings
from redis.backoff import NoBackoff
from redis.retry import Retry


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
    redis-py's default of 100 would fail the 101st with MaxConnectionsError.

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
    return redis.Redis.from_url(url, socket_timeout=timeout, socket_connect_timeout=timeout,
                                retry=Retry(NoBackoff(), 0), health_check_interval=30,
                                max_connections=max_connections)


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
