"""Configuration from the environment, with defaults; ``create_app`` takes an override dict.

``redis_url`` (``REDIS_URL``) holds the game sessions. ``broker_url`` (``BROKER_URL``) is the
Celery broker, kept apart from the sessions: by default the same server's database 1
(``redis://h:p/0`` -> ``redis://h:p/1``; database 2 when the sessions already use 1). In
production point it at a plain Redis of its own (the broker's transport has no Cluster support:
with ``REDIS_URL=redis+cluster://...`` (:mod:`ludoteca.adapters.cluster`) ``BROKER_URL`` is required).
Sharing one server, both live under its ``maxmemory-policy noeviction`` (``deploy/redis.conf``):
a full server refuses writes rather than evicting either's data; a broker server of its own
should use ``noeviction`` too (an evicted task is a stalled game until the sweeper notices).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit


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
    trusted_proxies: int = 0  # X-Forwarded-For hops to trust for the client address (0: ignore it)
    max_body_bytes: int = 64 * 1024
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
            trusted_proxies=int(env.get("LUDOTECA_TRUSTED_PROXIES", cls.trusted_proxies)),
            max_body_bytes=int(env.get("LUDOTECA_MAX_BODY", cls.max_body_bytes)),
            leaderboard_players=int(env.get("LUDOTECA_LEADERBOARD_PLAYERS", cls.leaderboard_players)),
            redis_max_connections=int(env.get("LUDOTECA_REDIS_MAX_CONNECTIONS", cls.redis_max_connections)),
            cors_origins=parse_origins(env.get("LUDOTECA_CORS_ORIGINS", "")),
            min_turn_seconds=int(env.get("LUDOTECA_MIN_TURN_SECONDS", cls.min_turn_seconds)),
            hot_routes=env.get("LUDOTECA_HOT_ROUTES", "1").strip().lower() not in ("0", "false", "no", "off"),
        )
        if "redis_url" in overrides and "broker_url" not in overrides and not env.get("BROKER_URL"):
            overrides["broker_url"] = ""  # derive it from the overriding sessions URL
        return replace(base, **overrides)


def parse_origins(raw: str) -> tuple[str, ...]:
    """``LUDOTECA_CORS_ORIGINS`` as a tuple (empty: CORS off); an origin loses a trailing slash."""
    return tuple(dict.fromkeys(o.strip().rstrip("/") for o in raw.split(",") if o.strip()))


def _optional_int(raw: str | None) -> int | None:
    return None if raw is None or raw.strip() == "" else int(raw)
