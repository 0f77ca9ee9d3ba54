"""The store's persistence health: is the append-only file being written, does Redis take writes?

Redis keeps answering reads when it cannot take a write: over ``maxmemory`` under
``noeviction`` it refuses writes with ``OOM``; when its last write to the append-only file
failed (a full disk) it refuses writes, and ``PING``, with ``MISCONF``; a replica refuses
them with ``READONLY``. A service in front of such a Redis can still serve every read, but no
move: ``/readyz`` says 503 then (:mod:`ludoteca.adapters.hosting.ops`), so a load balancer sends
its traffic elsewhere, and the metrics show which check failed.

:class:`PersistenceProbe` asks in one round trip (a pipeline of ``INFO persistence`` and a
``SET`` of a short-lived key of the game's own, ``<game>:readyz``): ``aof_last_write_status``,
``aof_last_bgrewrite_status`` and whether the ``SET`` was taken (a real write says it exactly;
``INFO memory`` only approximates the OOM rule). It caches its answer a second, so probes every
few seconds, and a scrape, cost one round trip a second at most per process.

:func:`refuses_writes` tells such a refusal from an outage: the rate limiter fails open for a
read whose counter Redis refused (:mod:`ludoteca.adapters.hosting.ratelimit`).
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass
from typing import Any

import redis
from redis.cluster import RedisCluster

REFUSALS = ("OOM", "MISCONF", "READONLY")
"""The error replies of a Redis that answers but takes no write."""

_REFUSAL = re.compile(r"(?:^|[\s-])(" + "|".join(REFUSALS) + r")\b")
CACHE_SECONDS = 1.0
PROBE_KEY_MS = 10_000


def refuses_writes(err: BaseException) -> str | None:
    """The refusal (``OOM``, ``MISCONF``, ``READONLY``) when ``err`` is Redis refusing a write
    while it answers; None for anything else (an outage, a programming error)."""
    if not isinstance(err, redis.ResponseError):
        return None
    if isinstance(err, redis.exceptions.OutOfMemoryError):
        return "OOM"
    if isinstance(err, redis.exceptions.ReadOnlyError):
        return "READONLY"
    # a script's error wraps the command's: "Error running script ... @user_script:3: -OOM command ..."
    found = _REFUSAL.search(str(err))
    return found.group(1) if found else None


@dataclass(frozen=True)
class Health:
    """What one probe found; ``error`` set: Redis did not answer (the other fields are unknown)."""

    reachable: bool
    aof_enabled: bool = False
    aof_last_write_ok: bool = True
    aof_last_bgrewrite_ok: bool = True
    refusal: str | None = None  # OOM, MISCONF, READONLY: Redis refuses writes
    error: str | None = None

    @property
    def accepts_writes(self) -> bool:
        return self.reachable and self.refusal is None

    @property
    def ready(self) -> bool:
        """Ready to take traffic: Redis answers and takes writes."""
        return self.accepts_writes

    def checks(self) -> dict[str, bool]:
        """The metric's ``check`` label values (``ludoteca_store_health``)."""
        return {"reachable": self.reachable, "accepts_writes": self.accepts_writes,
                "aof_last_write": self.aof_last_write_ok, "aof_last_bgrewrite": self.aof_last_bgrewrite_ok}

    def describe(self) -> str:
        if not self.reachable:
            return f"Redis is not answering ({self.error})"
        if self.refusal is not None:
            return f"Redis refuses writes ({self.refusal}: {self.error})"
        return "Redis answers and takes writes"


class PersistenceProbe:
    """Asks ``client`` how its persistence is, at most once per :data:`CACHE_SECONDS` (see the
    module docstring); ``key`` is the probe's short-lived key (one slot on a cluster)."""

    def __init__(self, client: redis.Redis, key: str, cache_seconds: float = CACHE_SECONDS) -> None:
        self.client = client
        self.key = key
        self.cache_seconds = cache_seconds
        self._last: tuple[float, Health] | None = None
        self._lock = threading.Lock()

    def check(self) -> Health:
        last = self._last
        now = time.monotonic()
        if last is not None and now - last[0] < self.cache_seconds:
            return last[1]
        with self._lock:  # one probe at a time; the others take its answer
            last = self._last
            if last is not None and time.monotonic() - last[0] < self.cache_seconds:
                return last[1]
            health = self._probe()
            self._last = (time.monotonic(), health)
            return health

    def _probe(self) -> Health:
        try:
            info, written = self._ask()
        except (redis.RedisError, redis.exceptions.RedisClusterException) as err:
            refusal = refuses_writes(err)
            if refusal is None:
                return Health(reachable=False, error=f"{type(err).__name__}: {err}")
            return Health(reachable=True, refusal=refusal, aof_last_write_ok=refusal != "MISCONF",
                          error=f"{type(err).__name__}: {err}")
        refusal = refuses_writes(written) if isinstance(written, BaseException) else None
        if isinstance(written, BaseException) and refusal is None:
            return Health(reachable=False, error=f"{type(written).__name__}: {written}")
        return Health(reachable=True, aof_enabled=str(info.get("aof_enabled", 0)) == "1",
                      aof_last_write_ok=info.get("aof_last_write_status", "ok") == "ok",
                      aof_last_bgrewrite_ok=info.get("aof_last_bgrewrite_status", "ok") == "ok",
                      refusal=refusal, error=None if refusal is None else str(written))

    def _ask(self) -> tuple[dict[str, Any], Any]:
        """(``INFO persistence``, the ``SET``'s reply or its error)."""
        client: Any = self.client
        if isinstance(client, RedisCluster):  # the node holding the probe's key
            node = client.get_node_from_key(self.key)  # type: ignore[no-untyped-call]
            info = client.info("persistence", target_nodes=node)
            try:
                written: Any = client.set(self.key, "1", px=PROBE_KEY_MS)
            except redis.ResponseError as err:
                written = err
            return info, written
        pipe = client.pipeline(transaction=False)
        pipe.info("persistence")
        pipe.set(self.key, "1", px=PROBE_KEY_MS)
        info, written = pipe.execute(raise_on_error=False)
        if isinstance(info, BaseException):
            raise info
        return info, written
