"""Per-caller write limits: a fixed one-minute window counted in Redis.

Every POST counts against its caller: the seat token (hashed) when there is one, else the
client address. Over the limit the answer is a 429 problem with ``Retry-After``; nothing is
changed. ``LUDOTECA_RATE_LIMIT=0`` turns it off (load tests from one address).
"""

from __future__ import annotations

import time

import redis
from flask import Flask, Response, request
from ludoteca.hosting.problems import problem_response
from ludoteca.tokens import hash_token


def install_rate_limit(app: Flask, client: redis.Redis, game: str, per_minute: int) -> None:
    if per_minute <= 0:
        return

    @app.before_request
    def _limit() -> Response | None:
        if request.method != "POST" or not request.path.startswith("/games"):
            return None
        header = request.headers.get("Authorization", "")
        caller = "t:" + hash_token(header)[:32] if header else "a:" + (request.remote_addr or "?")
        window = int(time.time() // 60)
        key = f"{game}:{{ratelimit}}:{caller}:{window}"
        pipe = client.pipeline(transaction=False)
        pipe.incr(key)
        pipe.expire(key, 120)
        count = int(pipe.execute()[0])
        if count > per_minute:
            retry = str(60 - int(time.time()) % 60)
            return problem_response(429, "rate-limited", "Too many requests",
                                    f"At most {per_minute} writes a minute per caller; try again later.",
                                    headers={"Retry-After": retry})
        return None
