"""Rate limits by bucket for a service that is not a game (the players service): flask-limiter
over the sessions' Redis, one fixed one-minute window per bucket, the bucket chosen per request
by the service (who the caller is: a client address, a verified player).

The games' limiter (:mod:`ludoteca.adapters.hosting.ratelimit`) keeps its own installation (its
seat buckets are counted by the games' scripts); this one reuses its parts: the resolved
:class:`~ludoteca.adapters.hosting.ratelimit.Limits`, the :class:`~ludoteca.adapters.hosting.ratelimit.Bucket`,
the limiter that lets a read through when Redis refuses the counter's write
(:class:`~ludoteca.adapters.hosting.ratelimit.ReadTolerantLimiter`) and the 429 problem with
``Retry-After``.
"""

from __future__ import annotations

from collections.abc import Callable

import redis
from flask import Flask, g
from flask_limiter import Limiter
from ludoteca.adapters.hosting.ratelimit import BUCKET, Bucket, bucket_limiter
from ludoteca.config import Settings


def install_buckets(app: Flask, client: redis.Redis, name: str, settings: Settings,
                    classify: Callable[[], Bucket | None]) -> Limiter | None:
    """Count every request of ``app`` in the bucket ``classify`` picks for it (None, or a bucket
    of 0 a minute: not counted); over its limit a request is a 429 problem and runs nothing.
    Keys ``<name>:ratelimit:LIMITER/<bucket>/...``. None when the limits are off
    (``LUDOTECA_RATE_LIMIT=0``)."""
    if settings.rate_limit_per_minute <= 0:
        return None

    @app.before_request
    def _classify() -> None:
        bucket = classify()
        setattr(g, BUCKET, bucket if bucket is not None and bucket.per_minute > 0 else None)

    return bucket_limiter(app, client, name, settings)
