"""Configuration from the environment, with defaults; ``create_app`` takes an override dict.

``redis_url`` (``REDIS_URL``) holds the game sessions. ``broker_url`` (``BROKER_URL``) is the
Celery broker, kept apart from the sessions: by default the same server's database 1
(``redis://h:p/0`` -> ``redis://h:p/1``; database 2 when the sessions already use 1). In
production point it at a plain Redis of its own (the broker's transport has no Cluster support:
with ``REDIS_URL=redis+cluster://...`` (:mod:`ludoteca.adapters.cluster`) ``BROKER_URL`` is required).
Sharing one server, both live under its ``maxmemory-policy noeviction`` (``deploy/redis.conf``):
a full server refuses writes rather than evicting either's data; a broker server of its own
should use ``noeviction`` too (an evicted task is a stalled game until the sweeper notices).

``X-Forwarded-For`` names the client only on a connection from a proxy of
``LUDOTECA_PROXY_ADDRESSES`` (:func:`ludoteca.adapters.peers.proxy_networks`; empty: none, the
header is ignored), which then adds ``LUDOTECA_TRUSTED_PROXIES`` hops: a client that reaches a
service's port directly cannot choose the address its rate limits count for.

Load-test mode (off by default): ``LUDOTECA_LOAD_TEST_ADDRESSES`` names client addresses or
networks (``127.0.0.1``, ``10.42.0.0/16``) whose requests the per-address rate limits do not
count (new games and joins, anonymous reads and writes, bad tokens, a game's own routes): a load
generator whose thousands of simulated players share one address then meets only the limits a
player meets, the per-seat ones (:mod:`ludoteca.adapters.hosting.ratelimit`). The address is the
one the limits key on (behind the front door, the ``X-Forwarded-For`` client). Empty: every
address is counted.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ludoteca.adapters.peers import PROXY_ADDRESSES, Network, proxy_networks


def default_broker_url(redis_url: str) -> str:
    """The sessions' URL with another database: 1, or 2 when the sessions use database 1. A
    Redis Cluster (``redis+cluster://``) has no other database and cannot hold the broker:
    ``ValueError``, set ``BROKER_URL`` to a plain Redis."""
    parts = urlsplit(redis_url)
    if parts.scheme.lower().endswith("+cluster"):
        raise ValueError(f"REDIS_URL names a Redis Cluster ({redis_url}); the Celery broker cannot live there "
                         "(kombu's Redis transport does not support Cluster): set BROKER_URL to a plain Redis")
    if parts.scheme == "unix":
        query = dict(parse_qsl(parts.query))
        query["db"] = "2" if query.get("db", "0") == "1" else "1"
        return f"unix://{parts.netloc}{parts.path}?{urlencode(query)}"
    db = parts.path.strip("/") or "0"
    return urlunsplit(parts._replace(path="/2" if db == "1" else "/1"))


@dataclass(frozen=True)
class Settings:
    redis_url: str = "redis://127.0.0.1:6379/0"
    redis_timeout_seconds: float = 1.0
    """Every Redis call's socket and connect timeout (LUDOTECA_REDIS_TIMEOUT): fail fast, 503."""
    broker_url: str = ""  # empty: derived from redis_url (see the module docstring)
    game_ttl_seconds: int = 7 * 24 * 3600
    idempotency_ttl_seconds: int = 24 * 3600
    max_long_poll_seconds: float = 30.0
    max_stream_seconds: float = 300.0
    """The longest an event stream stays open (LUDOTECA_MAX_STREAM): then the server closes it and
    the client reconnects with ``Last-Event-ID`` (nothing lost), so servers can be recycled."""
    stream_heartbeat_seconds: float = 15.0
    """A comment line on an idle event stream this often (LUDOTECA_STREAM_HEARTBEAT), under the
    idle timeouts of proxies between the client and the front door."""
    # Rate limits, requests a minute (see ludoteca.adapters.hosting.ratelimit); 0 turns every limit off.
    # Unset (None) ones derive from rate_limit_per_minute: reads 2x, new seats /20, failures /60.
    rate_limit_per_minute: int = 600  # seat writes per seat; anonymous writes per address
    rate_limit_reads_per_minute: int | None = None  # per seat, or per address without a token
    rate_limit_create_per_minute: int | None = None  # POST /games and joins, per address
    rate_limit_failures_per_minute: int | None = None  # bad or unknown tokens, per address
    load_test_networks: tuple[Network, ...] = ()
    """Load-test mode (LUDOTECA_LOAD_TEST_ADDRESSES): client addresses exempt from the per-address
    rate limits (see the module docstring); empty, the default: none."""
    trusted_proxies: int = 0  # X-Forwarded-For hops to trust for the client address (0: ignore it)
    proxy_networks: tuple[Network, ...] = ()
    """The peers whose ``X-Forwarded-For`` is read (LUDOTECA_PROXY_ADDRESSES): the front door, an
    Ingress; from any other peer the header is ignored, whatever ``trusted_proxies`` says."""
    max_body_bytes: int = 64 * 1024
    """The largest request body (LUDOTECA_MAX_BODY), at the services and at the front door alike."""
    body_timeout_seconds: float = 10.0
    """How long a request's body may take to arrive (LUDOTECA_BODY_TIMEOUT), at the services
    (their gunicorn worker) and at the front door (its ``read_body`` timeout) alike."""
    leaderboard_players: int = 10_000  # the names a leaderboard keeps (the fewest wins go first)
    redis_max_connections: int = 2000  # per process: above gunicorn's worker_connections (1000)
    cors_origins: tuple[str, ...] = ()  # browser origins allowed (ludoteca.adapters.hosting.cors); empty: no CORS
    hot_routes: bool = True
    """Serve the common move outside Flask's request machinery (LUDOTECA_HOT_ROUTES=0: off;
    ``ludoteca.adapters.hosting.hotroutes``): the answers are the same either way."""
    min_turn_seconds: int = 5
    """The smallest ``turn_seconds`` a game accepts (LUDOTECA_MIN_TURN_SECONDS): the documented
    bound, ``ludoteca.service_layer.timers.MIN_SECONDS``; a test stack lowers it to keep its timers short."""

    def __post_init__(self) -> None:
        if not self.broker_url:
            object.__setattr__(self, "broker_url", default_broker_url(self.redis_url))

    @classmethod
    def from_env(cls, **overrides: Any) -> Settings:
        env = os.environ
        base = cls(
            redis_url=env.get("REDIS_URL", cls.redis_url),
            redis_timeout_seconds=float(env.get("LUDOTECA_REDIS_TIMEOUT", cls.redis_timeout_seconds)),
            broker_url=env.get("BROKER_URL", ""),
            game_ttl_seconds=int(env.get("LUDOTECA_GAME_TTL", cls.game_ttl_seconds)),
            idempotency_ttl_seconds=int(env.get("LUDOTECA_IDEMPOTENCY_TTL", cls.idempotency_ttl_seconds)),
            max_long_poll_seconds=float(env.get("LUDOTECA_MAX_WAIT", cls.max_long_poll_seconds)),
            max_stream_seconds=float(env.get("LUDOTECA_MAX_STREAM", cls.max_stream_seconds)),
            stream_heartbeat_seconds=float(env.get("LUDOTECA_STREAM_HEARTBEAT", cls.stream_heartbeat_seconds)),
            rate_limit_per_minute=int(env.get("LUDOTECA_RATE_LIMIT", cls.rate_limit_per_minute)),
            rate_limit_reads_per_minute=_optional_int(env.get("LUDOTECA_RATE_LIMIT_READS")),
            rate_limit_create_per_minute=_optional_int(env.get("LUDOTECA_RATE_LIMIT_CREATE")),
            rate_limit_failures_per_minute=_optional_int(env.get("LUDOTECA_RATE_LIMIT_FAILURES")),
            load_test_networks=load_test_networks(env),
            trusted_proxies=int(env.get("LUDOTECA_TRUSTED_PROXIES", cls.trusted_proxies)),
            proxy_networks=proxy_networks(env),
            max_body_bytes=max_body_bytes(env),
            body_timeout_seconds=body_timeout_seconds(env),
            leaderboard_players=int(env.get("LUDOTECA_LEADERBOARD_PLAYERS", cls.leaderboard_players)),
            redis_max_connections=int(env.get("LUDOTECA_REDIS_MAX_CONNECTIONS", cls.redis_max_connections)),
            cors_origins=parse_origins(env.get("LUDOTECA_CORS_ORIGINS", "")),
            min_turn_seconds=int(env.get("LUDOTECA_MIN_TURN_SECONDS", cls.min_turn_seconds)),
            hot_routes=env.get("LUDOTECA_HOT_ROUTES", "1").strip().lower() not in ("0", "false", "no", "off"),
        )
        if "redis_url" in overrides and "broker_url" not in overrides and not env.get("BROKER_URL"):
            overrides["broker_url"] = ""  # derive it from the overriding sessions URL
        return replace(base, **overrides)


LOAD_TEST_ADDRESSES = "LUDOTECA_LOAD_TEST_ADDRESSES"


def load_test_networks(env: Mapping[str, str]) -> tuple[Network, ...]:
    """The networks of ``LUDOTECA_LOAD_TEST_ADDRESSES`` (empty: load-test mode off); a malformed
    entry raises ``ValueError`` naming it."""
    try:
        return proxy_networks({PROXY_ADDRESSES: env.get(LOAD_TEST_ADDRESSES, "")})
    except ValueError as exc:
        raise ValueError(str(exc).replace(PROXY_ADDRESSES, LOAD_TEST_ADDRESSES, 1)) from None


def max_body_bytes(env: Mapping[str, str]) -> int:
    """``LUDOTECA_MAX_BODY`` (unset or empty: :attr:`Settings.max_body_bytes`)."""
    return int(env.get("LUDOTECA_MAX_BODY") or Settings.max_body_bytes)


def body_timeout_seconds(env: Mapping[str, str]) -> float:
    """``LUDOTECA_BODY_TIMEOUT`` (unset or empty: :attr:`Settings.body_timeout_seconds`)."""
    return float(env.get("LUDOTECA_BODY_TIMEOUT") or Settings.body_timeout_seconds)


def parse_origins(raw: str) -> tuple[str, ...]:
    """``LUDOTECA_CORS_ORIGINS`` as a tuple (empty: CORS off); an origin loses a trailing slash."""
    return tuple(dict.fromkeys(o.strip().rstrip("/") for o in raw.split(",") if o.strip()))


def _optional_int(raw: str | None) -> int | None:
    return None if raw is None or raw.strip() == "" else int(raw)
