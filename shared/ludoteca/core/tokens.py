"""Seat tokens: random, shown once, stored only as a hash, compared in constant time."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence


def new_token() -> tuple[str, str]:
    """A fresh bearer token and the hash to store (the token itself is never stored)."""
    token = secrets.token_urlsafe(32)
    return token, hash_token(token)


def hash_token(token: str) -> str:
    """SHA-256 of the token: tokens carry 256 random bits, so a fast hash is enough."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def matches(token: str, stored_hash: str) -> bool:
    """Constant-time comparison of a presented token with a stored hash."""
    return hmac.compare_digest(hash_token(token), stored_hash)


def find_seat(token: str, seat_hashes: Sequence[str | None]) -> int | None:
    """The seat whose stored hash matches ``token``; every seat is compared (no early exit)."""
    found: int | None = None
    presented = hash_token(token)
    for seat, stored in enumerate(seat_hashes):
        if stored is not None and hmac.compare_digest(presented, stored):
            found = seat
    return found
