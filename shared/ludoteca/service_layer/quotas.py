"""The seats' write quotas as the service spends them: a collaborator of
:class:`~ludoteca.service_layer.service.GameService`.

A move's commit spends its unit in the same atomic step (:class:`~ludoteca.service_layer.repository.UnitOfWork`'s
``quota``); a move refused before or by its commit spends it here, in one round trip that also
reads the stored response of its ``Idempotency-Key`` (a replay wins over the checks).
"""

from __future__ import annotations

from typing import Any

from ludoteca.core.errors import RateLimitedError
from ludoteca.service_layer.repository import GameRepository, Quota


class Quotas:
    """Spends the units of refused moves in ``store``."""

    def __init__(self, store: GameRepository) -> None:
        self.store = store

    def refused(self, game_id: str, seat: int, idempotency_key: str | None,
                quota: Quota | None) -> dict[str, Any] | None:
        """Spend a refused move's unit if its commit did not (over the quota: 429) and return
        the record stored for its ``Idempotency-Key``, if any. Nothing to do: ``None``, no
        round trip."""
        if quota is None and idempotency_key is None:
            return None
        if quota is not None:
            idem = (game_id, seat, idempotency_key) if idempotency_key is not None else None
            retry, record = self.store.spend(quota, idem)
            if retry is not None:
                raise self.limited(quota, retry)
            return record
        assert idempotency_key is not None
        return self.store.idempotency_record(game_id, seat, idempotency_key)

    @staticmethod
    def limited(quota: Quota | None, retry: int) -> RateLimitedError:
        """The 429 of a request over ``quota``, ``retry`` seconds before its window ends."""
        what = f"{quota.limit} {quota.what}" if quota is not None else "the write limit"
        return RateLimitedError(f"At most {what}; try again in {retry} s.", retry_after=retry)
