"""Who and what a request is about, read off the request alone (no store): the game id of its
path and the seat token of its ``Authorization`` header. The routes and the rate limiter both
need them, before either has loaded anything."""

from __future__ import annotations

import re

from flask import request
from ludoteca.core.errors import AuthenticationError

GAME_ID = re.compile(r"[0-9a-f]{1,64}")
"""A game id: lower-case hex (what ``GameService.create`` makes), bounded."""


def bearer_token() -> str | None:
    return parse_bearer(request.headers.get("Authorization"))


def parse_bearer(header: str | None) -> str | None:
    """The seat token of an ``Authorization`` header (None without one; 401 for another scheme)."""
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise AuthenticationError("Use 'Authorization: Bearer <seat token>'.")
    return token.strip()
