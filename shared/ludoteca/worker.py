"""The Celery worker: bot turns and result recording for every installed game.

One Celery app, Redis broker, one queue per game (``ludix``, ``ludic`` ...). Tasks take ids,
never objects. ``bot_turn(game, id, version)`` acts only if the game is still at ``version``
(so a redelivered or duplicated task does nothing), with late acks and reject-on-worker-lost:
a killed worker's turn is redelivered and done once. ``record_result`` records a finished game
exactly once (the store's script is idempotent per game).

Start it with ``celery -A ludoteca.worker worker -Q ludix,ludic,speculation,ludor``.
"""

from __future__ import annotations

import logging
import os
from functools import cache
from typing import Any

from celery import Celery
from ludoteca import registry
from ludoteca.config import Settings
from ludoteca.service import GameService
from ludoteca.store import GameStore

log = logging.getLogger("ludoteca.worker")


def make_celery(redis_url: str) -> Celery:
    app = Celery("ludoteca", broker=redis_url)
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_ignore_result=True,
        task_default_queue="ludoteca",
        broker_connection_retry_on_startup=True,
        broker_transport_options={
            "visibility_timeout": int(os.environ.get("LUDOTECA_VISIBILITY_TIMEOUT", "120")),
        },
        worker_hijack_root_logger=False,
    )
    return app


celery_app = make_celery(Settings.from_env().redis_url)


class CeleryDispatcher:
    """Sends follow-up work to the game's queue."""

    def __init__(self, app: Celery, bot_delay: float = 0.0) -> None:
        self.app = app
        self.bot_delay = bot_delay

    @classmethod
    @cache
    def for_url(cls, redis_url: str) -> CeleryDispatcher:
        app = celery_app if redis_url == celery_app.conf.broker_url else make_celery(redis_url)
        return cls(app, float(os.environ.get("LUDOTECA_BOT_DELAY", "0")))

    def bot_turn(self, game: str, game_id: str, version: int) -> None:
        self.app.send_task("ludoteca.bot_turn", args=[game, game_id, version], queue=game,
                           countdown=self.bot_delay or None)

    def record_result(self, game: str, game_id: str) -> None:
        self.app.send_task("ludoteca.record_result", args=[game, game_id], queue=game)


@cache
def service_for(game: str) -> GameService:
    from ludoteca.hosting import redis_client

    settings = Settings.from_env()
    store = GameStore(redis_client(settings.redis_url), game, settings.game_ttl_seconds,
                      settings.idempotency_ttl_seconds)
    return GameService(registry.game(game), store, CeleryDispatcher.for_url(settings.redis_url))


@celery_app.task(name="ludoteca.bot_turn")
def bot_turn(game: str, game_id: str, version: int) -> str:
    outcome = service_for(game).bot_turn(game_id, version)
    log.info("bot_turn %s %s v%s: %s", game, game_id, version, outcome)
    return outcome


@celery_app.task(name="ludoteca.record_result")
def record_result(game: str, game_id: str) -> bool:
    return service_for(game).record_result(game_id)


def queues() -> str:
    """The comma-separated queue list for ``celery worker -Q``."""
    return ",".join(registry.names())


def main(argv: list[str] | None = None) -> Any:  # pragma: no cover - process entry
    celery_app.worker_main(argv or ["worker", "-Q", queues(), "--loglevel=INFO"])
