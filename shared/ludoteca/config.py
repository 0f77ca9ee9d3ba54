"""Configuration from the environment, with defaults; ``create_app`` takes an override dict."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any


@dataclass(frozen=True)
class Settings:
    redis_url: str = "redis://127.0.0.1:6379/0"
    game_ttl_seconds: int = 7 * 24 * 3600
    idempotency_ttl_seconds: int = 24 * 3600
    max_long_poll_seconds: float = 30.0
    enqueue_bots: bool = True
    rate_limit_per_minute: int = 600
    lobby_page_size: int = 20
    redis_max_connections: int = 2000  # per process: above gunicorn's worker_connections (1000)
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_env(cls, **overrides: Any) -> Settings:
        env = os.environ
        base = cls(
            redis_url=env.get("REDIS_URL", cls.redis_url),
            game_ttl_seconds=int(env.get("LUDOTECA_GAME_TTL", cls.game_ttl_seconds)),
            idempotency_ttl_seconds=int(env.get("LUDOTECA_IDEMPOTENCY_TTL", cls.idempotency_ttl_seconds)),
            max_long_poll_seconds=float(env.get("LUDOTECA_MAX_WAIT", cls.max_long_poll_seconds)),
            enqueue_bots=env.get("LUDOTECA_ENQUEUE_BOTS", "1") != "0",
            rate_limit_per_minute=int(env.get("LUDOTECA_RATE_LIMIT", cls.rate_limit_per_minute)),
            redis_max_connections=int(env.get("LUDOTECA_REDIS_MAX_CONNECTIONS", cls.redis_max_connections)),
        )
        return replace(base, **overrides)
