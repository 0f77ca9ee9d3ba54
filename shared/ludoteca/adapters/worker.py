"""The Celery worker: bot turns and result recording for every installed game.

One Celery app, Redis broker, one queue per game (``ludix``, ``ludic`` ...). Tasks take ids,
never objects. ``bot_turn(game, id, version)`` acts only if the game is still at ``version``
(so a redelivered or duplicated task does nothing), with late acks and reject-on-worker-lost:
a killed worker's turn is redelivered and done once. ``record_result`` records a finished game
exactly once (the store's script is idempotent per game). A task that is lost anyway (the
process died between the commit and the enqueue, the queue was deleted) is dispatched again by
the sweeper (:mod:`ludoteca.adapters.sweeper`) from what the commit recorded as due.

The broker is ``Settings.broker_url`` (``BROKER_URL``; by default the sessions' Redis, database
1), never the sessions' database. The app is built on first use from the environment (no
module-level app with a URL fixed at import): ``celery -A ludoteca.adapters.worker worker`` finds it as
``ludoteca.adapters.worker.app``. Publishing is bounded (connect and socket timeouts, one quick retry), so
a broker that is down or hung costs a request a few seconds at most, never a hang.

Start it with ``celery -A ludoteca.adapters.worker worker -Q <queues>``: the registered games' queues, each
a game's name (``GameDefinition.queue``), comma-separated, as ``make run`` and the generated
deployments name them.

Metrics: with ``LUDOTECA_METRICS_PORT`` the main process serves them on that port. The tasks run
in the prefork pool's children, so the worker runs prometheus-client's multiprocess mode (its
directory is prepared when :mod:`ludoteca.adapters.observe` is imported in the main process, before the
pool forks; each child's files are summed at a scrape, and a child that exits is marked dead).
Counting in the main process instead would need the children to report every task to it; the
files are what gunicorn's workers use too. The bot-turn latency reads the game's ``due_at`` once
before the turn (one HMGET, only when exporting).
"""

from __future__ import annotations

import gc
import logging
import os
import threading
import time
from functools import cache
from typing import Any

import redis
from celery import Celery
from celery.signals import after_setup_logger, after_setup_task_logger, worker_init, worker_process_shutdown
from celery.worker.worker import WorkController
from ludoteca.adapters import observe
from ludoteca.adapters.connect import redis_client
from ludoteca.adapters.fdlimit import raise_nofile
from ludoteca.adapters.metricsdir import metrics_port
from ludoteca.adapters.players import Seating
from ludoteca.adapters.store import GameStore
from ludoteca.config import Settings
from ludoteca.service_layer import registry
from ludoteca.service_layer.repository import DueKind
from ludoteca.service_layer.service import GameService

log = logging.getLogger("ludoteca.adapters.worker")

# Publishing: connect within 2 s, a reply within 5 s, one retry after 0.2 s (about 15 s at the
# very worst, when the broker accepts connections and never answers; a refused connection
# fails in milliseconds).
STOP_GRACE_SECONDS = float(os.environ.get("LUDOTECA_WORKER_STOP_GRACE", "5"))
"""How long a worker that has begun to stop may take before it exits anyway (exit code 1)."""


def _bounded(stop: Any) -> Any:
    """Wrap ``WorkController.stop`` so a worker that has decided to stop always exits.

    Celery 5.7's warm shutdown can wedge on a broker that has just died (its own comment says
    so): after "Unrecoverable error" on a lost Redis connection the worker hangs in the shutdown,
    neither consuming nor exiting, so no supervisor restarts it and due bot turns wait forever.
    Bot tasks take well under a second, so past ``STOP_GRACE_SECONDS`` the process exits; its
    unacked tasks are redelivered and the sweeper re-dispatches what is due."""

    def stop_within_grace(self: Any, *args: Any, **kwargs: Any) -> Any:
        timer = threading.Timer(STOP_GRACE_SECONDS, os._exit, args=(1,))
        timer.daemon = True
        timer.start()
        return stop(self, *args, **kwargs)

    return stop_within_grace


if not getattr(WorkController.stop, "_ludoteca_bounded", False):
    WorkController.stop = _bounded(WorkController.stop)
    WorkController.stop._ludoteca_bounded = True

PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0.2, "interval_step": 0.2, "interval_max": 0.2}



def make_celery(broker_url: str) -> Celery:
    """A Celery app on ``broker_url`` with the tasks registered."""
    app = Celery("ludoteca", broker=broker_url, set_as_current=False)
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_ignore_result=True,
        task_default_queue="ludoteca",
        broker_connection_retry_on_startup=True,
        # A broker that answers but refuses a write (OOM over maxmemory under noeviction: inside
        # MULTI even the ack's ZREM is refused; MISCONF after a failed append-only write) raises a
        # ResponseError, one of kombu's channel errors: with this, Celery's consumer reconnects
        # after one (with its own backoff) instead of calling it unrecoverable and exiting
        # (issue 20, finding 6: the worker died on its ack). The unacked task comes back after
        # the visibility timeout (a duplicate bot_turn does nothing); a task popped whose unacked
        # record could not be written is the sweeper's to dispatch again.
        broker_channel_error_retry=True,
        broker_connection_timeout=2,
        broker_transport_options={
            "visibility_timeout": int(os.environ.get("LUDOTECA_VISIBILITY_TIMEOUT", "120")),
            "socket_connect_timeout": 2,
            "socket_timeout": 5,
            "health_check_interval": 10,
        },
        task_publish_retry=True,
        task_publish_retry_policy=PUBLISH_RETRY_POLICY,
        worker_hijack_root_logger=False,
    )
    app.task(name="ludoteca.bot_turn", shared=False)(bot_turn)
    app.task(name="ludoteca.record_result", shared=False)(record_result)
    return app


_apps: dict[str, Celery] = {}
_apps_lock = threading.Lock()


def app_for(broker_url: str) -> Celery:
    """One app per broker URL in a process (its connection pool is shared)."""
    with _apps_lock:
        if broker_url not in _apps:
            _apps[broker_url] = make_celery(broker_url)
        return _apps[broker_url]


def worker_app() -> Celery:
    """The app of this process's environment (``BROKER_URL``, or ``REDIS_URL``'s database 1)."""
    return app_for(Settings.from_env().broker_url)


def __getattr__(name: str) -> Any:  # ``celery -A ludoteca.adapters.worker`` looks up ``app``
    if name in ("app", "celery_app"):
        return worker_app()
    raise AttributeError(name)


class CeleryDispatcher:
    """Sends follow-up work to the game's queue."""

    def __init__(self, app: Celery, bot_delay: float = 0.0) -> None:
        self.app = app
        self.bot_delay = bot_delay

    @classmethod
    @cache
    def for_url(cls, broker_url: str) -> CeleryDispatcher:
        return cls(app_for(broker_url), float(os.environ.get("LUDOTECA_BOT_DELAY", "0")))

    def bot_turn(self, game: str, game_id: str, version: int) -> None:
        self.app.send_task("ludoteca.bot_turn", args=[game, game_id, version], queue=game,
                           countdown=self.bot_delay or None)

    def record_result(self, game: str, game_id: str) -> None:
        self.app.send_task("ludoteca.record_result", args=[game, game_id], queue=game)


@cache
def service_for(game: str) -> GameService:

    settings = Settings.from_env()
    store = GameStore(redis_client(settings.redis_url), game, settings.game_ttl_seconds,
                      settings.idempotency_ttl_seconds, settings.leaderboard_players)
    return GameService(registry.game(game), store, CeleryDispatcher.for_url(settings.broker_url),
                       observer=observe.GAMES, players=Seating.for_client(store.r, None, settings.game_ttl_seconds))


def bot_turn(game: str, game_id: str, version: int) -> str:
    service = service_for(game)
    try:
        # when the turn fell due (the game hash's due_at): one small read, only when exporting
        due = service.store.due(game_id)[1] if _exporting else None
        outcome = service.bot_turn(game_id, version)
    except redis.RedisError as err:
        observe.count_redis_error(game, "bot_turn", err)
        raise
    observe.BOT_TURNS.labels(game, outcome).inc()
    if outcome == "played" and due is not None and due.kind is DueKind.BOT and due.version == version:
        observe.BOT_TURN_SECONDS.labels(game).observe(max(0.0, time.time() - due.since_ms / 1000))
    log.info("bot_turn %s %s v%s: %s", game, game_id, version, outcome)
    return outcome


def record_result(game: str, game_id: str) -> bool:
    return service_for(game).record_result(game_id)


def _preload_games(**_: Any) -> None:
    """Import every game in the worker's main process and warm its bots up
    (``GameDefinition.warm_up``), before the pool forks: a child, and one that replaces a killed
    one, starts warm instead of importing the games (or compiling a bot's code) again. It says
    what open-files limit the worker runs with, raised to the hard limit first (its children
    inherit it)."""
    log.info("open files: %s", raise_nofile())
    for name in registry.names():
        observe.start_series(name, service=False, bots=True)  # exported at 0 from the start
        try:
            definition = registry.game(name)
            if definition.warm_up is not None:
                start = time.perf_counter()
                definition.warm_up()
                log.info("%s's bots warmed up in %.2f s", name, time.perf_counter() - start)
        except Exception:  # a game being written must not stop the others' bots
            log.warning("could not load game %s", name, exc_info=True)
    gc.freeze()  # the games and their bots' tables, before the pool forks: no full collection walks them again


worker_init.connect(_preload_games, weak=False)

_exporting = metrics_port() is not None


def _export_metrics(**_: Any) -> None:
    """In the worker's main process: serve the metrics its pool's processes write
    (multiprocess mode, prepared when :mod:`ludoteca.adapters.observe` was imported). A port
    already taken costs the metrics, not the worker: logged."""
    try:
        observe.serve_metrics()
    except OSError as err:
        log.warning("cannot serve the metrics on port %s: %s", metrics_port(), err)


def _pool_process_exited(pid: int | None = None, **_: Any) -> None:
    observe.process_dead(pid or os.getpid())


def _process_log_format(logger: logging.Logger | None = None, **_: Any) -> None:
    """Celery's log handlers name the process: ``worker[<pid>]`` (the pool's pid in a task)."""
    for handler in (logger.handlers if logger is not None else []):
        handler.setFormatter(observe.ProcessFormatter(
            "worker", os.environ.get("LUDOTECA_LOG_FORMAT", "").lower() == "json"))


worker_init.connect(_export_metrics, weak=False)
worker_process_shutdown.connect(_pool_process_exited, weak=False)
after_setup_logger.connect(_process_log_format, weak=False)
after_setup_task_logger.connect(_process_log_format, weak=False)


def queues() -> str:
    """The comma-separated queue list for ``celery worker -Q``."""
    return ",".join(registry.names())


def main(argv: list[str] | None = None) -> Any:  # pragma: no cover - process entry
    worker_app().worker_main(argv or ["worker", "-Q", queues(), "--loglevel=INFO"])
