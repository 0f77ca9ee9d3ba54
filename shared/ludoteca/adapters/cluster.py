"""The game store on a Redis Cluster: ``REDIS_URL=redis+cluster://host:port[,host:port...]``.

The URL scheme is the one the rate limiter's storage (the ``limits`` package) reads too:
``redis+cluster://[user:password@]host:port,host:port`` (``rediss+cluster://`` for TLS). The
locations are startup nodes: any one that answers is enough, the client learns the others and
the slots from it (``CLUSTER SLOTS``), so listing two or three survives one being down.

Nothing else changes for a cluster: every script touches the keys of one hash tag, so one slot
(the game's ``{<id>}``, the hint index ``{due}``, the boards ``{board}``); the lobby and the rate
limiter's counters are single-key commands (see :mod:`ludoteca.adapters.store`). Cluster nodes have one
database (0): the Celery broker cannot live there (kombu's Redis transport does not support
Cluster), so with a cluster URL ``BROKER_URL`` must name a plain Redis of its own
(:func:`ludoteca.config.default_broker_url` refuses to derive one).

The client fails as fast as :func:`ludoteca.adapters.connect.redis_client`'s: the same socket and connect
timeouts and no retries (``Retry(NoBackoff(), 0)``: one attempt a call; a ``MOVED`` or ``ASK``
redirection is still followed, it is an answer, not a failure). A call that failed because a node
went away marks the slot table for a refresh, done by the next call. Unlike the plain client,
this one connects when it is built (it needs the slot table): a process started while no startup
node answers exits, and its supervisor starts it again.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, urlsplit

from redis.backoff import NoBackoff
from redis.cluster import ClusterNode, RedisCluster
from redis.retry import Retry

SCHEMES = {"redis+cluster": False, "rediss+cluster": True}
"""URL schemes that name a cluster, and whether they use TLS."""


def is_cluster_url(url: str) -> bool:
    return url.partition("://")[0].lower() in SCHEMES


def startup_nodes(url: str) -> list[tuple[str, int]]:
    """The ``host:port`` locations of a cluster URL, in order."""
    netloc = urlsplit(url).netloc.rpartition("@")[2]
    nodes = []
    for loc in netloc.split(","):
        host, sep, port = loc.strip().rpartition(":")
        if not sep or not host or not port.isdigit():
            raise ValueError(f"a cluster URL names host:port locations, not {loc!r}: {url}")
        nodes.append((host.strip("[]"), int(port)))
    return nodes


def connection_options(url: str, timeout: float, max_connections: int) -> dict[str, Any]:
    """The keyword arguments of :class:`~redis.cluster.RedisCluster` for ``url``: its startup
    nodes, credentials and TLS, fail-fast timeouts, no retries. ``max_connections`` is per node."""
    parts = urlsplit(url)
    options: dict[str, Any] = {
        "startup_nodes": [ClusterNode(host, port) for host, port in startup_nodes(url)],
        "retry": Retry(NoBackoff(), 0),
        "socket_timeout": timeout, "socket_connect_timeout": timeout, "health_check_interval": 30,
        "max_connections": max_connections,
    }
    if parts.username:
        options["username"] = unquote(parts.username)
    if parts.password:
        options["password"] = unquote(parts.password)
    if SCHEMES[parts.scheme.lower()]:
        options["ssl"] = True
    return options


def cluster_client(url: str, timeout: float, max_connections: int) -> RedisCluster:
    """A cluster client for ``url`` (see the module docstring); it discovers the slots now."""
    return RedisCluster(**connection_options(url, timeout, max_connections))


def limiter_options(client: Any, url: str) -> dict[str, Any]:
    """The rate limiter's storage options over the sessions' client: its connection pool on a
    plain Redis; on a cluster (``limits`` builds a cluster client of its own from the URL) the
    same fail-fast options as ``client``'s."""
    if not isinstance(client, RedisCluster):
        return {"connection_pool": client.connection_pool}
    kwargs = client.get_connection_kwargs()
    options = connection_options(url, kwargs.get("socket_timeout") or 1.0, kwargs.get("max_connections") or 100)
    del options["startup_nodes"]  # limits reads them, and the credentials, from the URL
    options.pop("username", None)
    options.pop("password", None)
    return options
