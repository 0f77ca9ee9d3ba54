"""The one exception family of Ludoteca and its HTTP status table.

The core raises these; the hosting layer renders every one of them (and every other error,
request validation included) as RFC 9457 ``application/problem+json``. Each class carries the
status it maps to, a stable ``type`` slug and a short human title; ``detail`` is the message and
``extra`` holds machine-readable members (for example the legal actions on a 409).
"""

from __future__ import annotations

from typing import Any, ClassVar


class LudotecaError(Exception):
    """Base of every error the project raises on purpose."""

    status: ClassVar[int] = 400
    slug: ClassVar[str] = "bad-request"
    title: ClassVar[str] = "Bad request"
    retry_after: ClassVar[int | None] = None
    """Seconds for a ``Retry-After`` header (the renderer adds it when set)."""

    def __init__(self, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        self.extra: dict[str, Any] = extra


class BadRequestError(LudotecaError):
    """Malformed input (unparsable JSON, a bad query string)."""


class FieldValidationError(LudotecaError):
    """Well-formed input whose fields are wrong; ``extra['errors']`` maps field to messages."""

    status = 422
    slug = "validation-error"
    title = "Validation error"


class AuthenticationError(LudotecaError):
    """No seat token, or a token that matches no seat of this game."""

    status = 401
    slug = "unauthorized"
    title = "Missing or invalid seat token"


class NotFoundError(LudotecaError):
    status = 404
    slug = "not-found"
    title = "Not found"


class ConflictError(LudotecaError):
    """The request is valid but the game's state does not allow it now."""

    status = 409
    slug = "conflict"
    title = "Conflict with the game's state"


class NotYourTurnError(ConflictError):
    slug = "not-your-turn"
    title = "Not your turn"


class IllegalActionError(ConflictError):
    """The action is well-formed but the rules do not allow it here."""

    slug = "illegal-action"
    title = "Illegal action"


class GameOverError(ConflictError):
    slug = "game-over"
    title = "The game is over"


class GameNotStartedError(ConflictError):
    slug = "game-not-started"
    title = "The game has not started"


class TurnTimedOutError(ConflictError):
    """The seat's turn timed out while this move was on its way: a bot played it
    (:mod:`ludoteca.service_layer.timers`); the move is not applied on top."""

    slug = "turn-timed-out"
    title = "Your turn timed out"


class SeatTakenError(ConflictError):
    slug = "no-open-seat"
    title = "No open seat"


class StaleVersionError(LudotecaError):
    """``If-Match`` named a version that is no longer current."""

    status = 412
    slug = "stale-version"
    title = "Precondition failed: the game has moved on"


class IdempotencyConflictError(LudotecaError):
    """The same ``Idempotency-Key`` was used with another body."""

    status = 422
    slug = "idempotency-key-reused"
    title = "Idempotency-Key reused with a different request"


class UnavailableError(LudotecaError):
    status = 503
    slug = "unavailable"
    title = "Service unavailable"
    retry_after = 1


class StoreUnavailableError(UnavailableError):
    """Redis, the game store, is down, hung, still loading its data or refusing writes."""

    slug = "store-unavailable"
    title = "The game store is unavailable"


class RateLimitedError(LudotecaError):
    """Over a rate limit; ``retry_after`` (whole seconds) is sent as the ``Retry-After`` header."""

    status = 429
    slug = "rate-limited"
    title = "Too many requests"

    def __init__(self, detail: str, retry_after: int, **extra: Any) -> None:
        super().__init__(detail, **extra)
        self.retry_after = max(1, int(retry_after))  # type: ignore[misc]  # per error, not per class
