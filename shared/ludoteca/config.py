"""Configuration from the environment, with defaults; ``create_app`` takes an override dict."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any


@dataclass(frozen=True)
class Settings:
    redis_url: str = "redis://127.0.0.1:6379/0"
    redis_timeout_seconds: float = 1.0
    """Every Redis call's socket and connect timeout (LUDOTECA_REDIS_TIMEOUT): fail fast, 503."""
    game_ttl_seconds: int = 7 * 24 * 3600
    idempotency_ttl_seconds: int = 24 * 3600
    max_long_poll_seconds: float = 30.0
    enqueue_bots: bool = True
    # Rate limits, requests a minute (see ludoteca.hosting.ratelimit); 0 turns every limit off.
    # Unset (None) ones derive from rate_limit_per_minute: reads 2x, new seats /20, failures /60.
    rate_limit_per_minute: int = 600  # seat writes per seat; anonymous writes per address
    rate_limit_reads_per_minute: int | None = None  # per seat, or per address without a token
    rate_limit_create_per_minute: int | None = None  # POST /games and joins, per address
    rate_limit_failures_per_minute: int | None = None  # bad or unknown tokens, per address
    trusted_proxies: int = 0  # X-Forwarded-For hops to trust for the client address (0: ignore it)
    lobby_page_size: int = 20
    max_body_bytes: int = 64 * 1024
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_env(cls, **overrides: Any) -> Settings:
        env = os.environ
        base = cls(
            redis_url=env.get("REDIS_URL", cls.redis_url),
            redis_timeout_seconds=float(env.get("LUDOTECA_REDIS_TIMEOUT", cls.redis_timeout_seconds)),
            game_ttl_seconds=int(env.get("LUDOTECA_GAME_TTL", cls.game_ttl_seconds)),
            idempotency_ttl_seconds=int(env.get("LUDOTECA_IDEMPOTENCY_TTL", cls.idempotency_ttl_seconds)),
            max_long_poll_seconds=float(env.get("LUDOTECA_MAX_WAIT", cls.max_long_poll_seconds)),
            enqueue_bots=env.get("LUDOTECA_ENQUEUE_BOTS", "1") != "0",
            rate_limit_per_minute=int(env.get("LUDOTECA_RATE_LIMIT", cls.rate_limit_per_minute)),
            rate_limit_reads_per_minute=_optional_int(env.get("LUDOTECA_RATE_LIMIT_READS")),
            rate_limit_create_per_minute=_optional_int(env.get("LUDOTECA_RATE_LIMIT_CREATE")),
            rate_limit_failures_per_minute=_optional_int(env.get("LUDOTECA_RATE_LIMIT_FAILURES")),
            trusted_proxies=int(env.get("LUDOTECA_TRUSTED_PROXIES", cls.trusted_proxies)),
            max_body_bytes=int(env.get("LUDOTECA_MAX_BODY", cls.max_body_bytes)),
        )
        return replace(base, **overrides)


def _optional_int(raw: str | None) -> int | None:
    return None if raw is None or raw.strip() == "" else int(raw)
