"""Metrics and process logs of every Ludoteca process (services, worker, sweeper).

Metrics (prometheus-client). Each family is defined once here; the services serve them at
``GET /metrics`` (:mod:`ludoteca.adapters.hosting.ops`), the worker and the sweeper on their own port
(``LUDOTECA_METRICS_PORT``; off when unset). Observing costs a few microseconds (a label lookup
and a locked add); nothing here talks to Redis.

Multiprocess mode: a gunicorn service runs several worker processes and the Celery worker forks
its pool, so each process keeps its values in files of ``PROMETHEUS_MULTIPROC_DIR`` and a scrape
sums them over the live and the dead processes (counters and histograms never go back; a gauge
counts its live processes only). prometheus-client chooses the mode when it is imported, so the
directory must be in the environment before that:

- gunicorn: ``deploy/gunicorn.conf.py`` calls :func:`prepare_multiprocess` in the master (the
  workers fork from it and inherit the variable) and marks each exiting worker dead;
- the worker and the sweeper: importing this module with ``LUDOTECA_METRICS_PORT`` set prepares
  it (the Celery main process imports it before the pool forks: the children write, the main
  process serves the sum);
- anything else (tests, tools, ``flask run``): no directory, values in the process.

Logs: :func:`configure_logging` gives every line of a process its name and pid (``ludix[4242]``,
``worker[77]``, ``sweeper[80]``), plain text, or one JSON object a line with
``LUDOTECA_LOG_FORMAT=json``.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from pathlib import Path
from typing import Any

from ludoteca.adapters.metricsdir import MULTIPROC_ENV, metrics_port, prepare_multiprocess

log = logging.getLogger("ludoteca.adapters.observe")

if metrics_port() is not None and not os.environ.get(MULTIPROC_ENV):  # before prometheus_client decides
    prepare_multiprocess(Path(sys.argv[0]).name or "python")

from prometheus_client import REGISTRY as DEFAULT_REGISTRY  # noqa: E402
from prometheus_client import (  # noqa: E402 - the mode is chosen by the environment at import
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
    start_http_server,
)

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
BOT_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)

REQUESTS = Histogram(
    "ludoteca_http_request_duration_seconds",
    "Requests served by a game service, by route template, method and status class (2xx...); "
    "long-polls included (their wait is part of the duration).",
    ["game", "route", "method", "status"], buckets=LATENCY_BUCKETS)
MOVES = Counter(
    "ludoteca_moves",
    "POST .../actions by outcome: applied, replayed (Idempotency-Key) or refused (status: 409, 412...).",
    ["game", "outcome", "status"])
MOVE_SECONDS = Histogram(
    "ludoteca_move_duration_seconds",
    "Time to serve a move (POST .../actions, every outcome), by action type.",
    ["game", "action"], buckets=LATENCY_BUCKETS)
BOT_TURN_SECONDS = Histogram(
    "ludoteca_bot_turn_delay_seconds",
    "From the commit that made a bot turn due (the game's due_at, server time) to the bot's move "
    "committed (the worker's clock).",
    ["game"], buckets=BOT_BUCKETS)
BOT_TURNS = Counter(
    "ludoteca_bot_turns",
    "Bot-turn tasks by outcome: played, interrupted (a bot acted out of turn), timed-out (a human's timed-out "
    "turn), early, stale (the game moved on: a duplicate), missing, no-bot.",
    ["game", "outcome"])
GAMES_CREATED = Counter("ludoteca_games_created", "Games created.", ["game"])
GAMES_FINISHED = Counter(
    "ludoteca_games_finished",
    "Games finished (by the move that ended them: counted by the service or the worker that "
    "committed it). Active games: created minus finished, summed over the jobs.",
    ["game"])
REDIS_ERRORS = Counter(
    "ludoteca_redis_errors",
    "Redis unavailable, hung, loading or refusing writes (the 503 store_unavailable of a service, "
    "a failed bot turn or sweep), by operation and error class.",
    ["game", "operation", "error"])
QUEUE_DEPTH = Gauge(
    "ludoteca_queue_depth",
    "Tasks waiting in a game's Celery queue (LLEN of its broker lists), read by the sweeper.",
    ["game"], multiprocess_mode="livemax")
SWEEPS = Counter("ludoteca_sweeps", "Sweeper passes by outcome (ok, failed).", ["outcome"])
SWEEP_DISPATCHED = Counter(
    "ludoteca_sweeper_dispatched",
    "Bot turns and results the sweeper dispatched again (their task was lost or late), and timed-out "
    "turns (kind timeout: the sweeper is their only dispatcher).",
    ["game", "kind"])
STORE_HEALTH = Gauge(
    "ludoteca_store_health",
    "The sessions' Redis as a service last saw it (1 ok, 0 failing), by check: reachable (it answers), "
    "accepts_writes (no OOM, MISCONF or READONLY refusal: /readyz is 503 otherwise), aof_last_write and "
    "aof_last_bgrewrite (INFO persistence's statuses). Probed by /readyz and each scrape, at most once a "
    "second (ludoteca.adapters.durability).",
    ["game", "check"], multiprocess_mode="mostrecent")
LIMITER_FAIL_OPEN = Counter(
    "ludoteca_ratelimit_fail_open",
    "Reads let through without counting them because Redis refused the rate limiter's counter write "
    "(OOM under noeviction, MISCONF after a failed append-only write): reads keep answering, writes get "
    "their 503.",
    ["game", "bucket", "refusal"])
_sweep_last: Gauge | None = None


def sweeper_heartbeat() -> Gauge:
    """``ludoteca_sweeper_last_pass_timestamp_seconds``, made on the sweeper's first pass: a
    process that runs no sweeper exports no such series (a 0 from every service would make the
    heartbeat alert fire on all of them)."""
    global _sweep_last
    if _sweep_last is None:
        _sweep_last = Gauge(
            "ludoteca_sweeper_last_pass_timestamp_seconds",
            "When the sweeper last finished a pass (a heartbeat: alert when it stops moving); exported by "
            "the sweeper only.",
            multiprocess_mode="livemax")
    return _sweep_last


MOVE_OUTCOMES = (("applied", "200"), ("replayed", "200"))
"""The move series every game service exports from its start (the refusals appear with their status)."""
BOT_OUTCOMES = ("played", "interrupted", "timed-out", "early", "stale", "missing", "no-bot")


def start_series(game: str, service: bool = True, bots: bool = False) -> None:
    """Make ``game``'s per-game series exist at 0 now, not at its first event: an expression over
    several families (active games: created minus finished) drops a game that has one of them
    only. A service makes its games' and moves' series and its store's health; the worker its bot
    turns' and finished games'."""
    GAMES_FINISHED.labels(game)
    if service:
        GAMES_CREATED.labels(game)
        for outcome, status in MOVE_OUTCOMES:
            MOVES.labels(game, outcome, status)
    if bots:
        for outcome in BOT_OUTCOMES:
            BOT_TURNS.labels(game, outcome)


def record_store_health(game: str, checks: dict[str, bool]) -> None:
    for check, ok in checks.items():
        STORE_HEALTH.labels(game, check).set(1 if ok else 0)


class GameCounters:
    """The service layer's :class:`~ludoteca.service_layer.service.Observer`: games created and
    finished, per game."""

    def game_created(self, game: str) -> None:
        GAMES_CREATED.labels(game).inc()

    def game_finished(self, game: str) -> None:
        GAMES_FINISHED.labels(game).inc()


GAMES = GameCounters()


def registry() -> CollectorRegistry:
    """What a scrape reads: every process's files in multiprocess mode, else this process's."""
    if not os.environ.get(MULTIPROC_ENV):
        return DEFAULT_REGISTRY
    collecting = CollectorRegistry()
    multiprocess.MultiProcessCollector(collecting)
    return collecting


def render() -> bytes:
    return generate_latest(registry())


def process_dead(pid: int) -> None:
    """A process of the group exited: its live gauges stop counting (gunicorn's child_exit,
    Celery's worker_process_shutdown)."""
    if os.environ.get(MULTIPROC_ENV):
        multiprocess.mark_process_dead(pid)


def serve_metrics(port: int | None = None) -> int | None:
    """Export on ``port`` (default ``LUDOTECA_METRICS_PORT``; nothing when unset), from a
    background thread of this process; ``LUDOTECA_METRICS_ADDR`` is the address (all)."""
    port = metrics_port() if port is None else port
    if port is None:
        return None
    start_http_server(port, addr=os.environ.get("LUDOTECA_METRICS_ADDR", "0.0.0.0"), registry=registry())
    log.info("metrics on port %s (%s)", port, os.environ.get(MULTIPROC_ENV) or "this process")
    return port


def count_redis_error(game: str, operation: str, err: BaseException) -> None:
    REDIS_ERRORS.labels(game, operation, type(err).__name__).inc()


# -- logs ------------------------------------------------------------------------------------
class ProcessFormatter(logging.Formatter):
    """``<time> <LEVEL> <process>[<pid>] <logger>: <message>``, or one JSON object a line with
    ``json``; a record's ``fields`` (a dict, e.g. an access log's) become members / ``k=v``."""

    def __init__(self, process: str, as_json: bool = False) -> None:
        super().__init__()
        self.process = process
        self.as_json = as_json

    def format(self, record: logging.LogRecord) -> str:
        fields: dict[str, Any] = getattr(record, "fields", None) or {}
        if self.as_json:
            out: dict[str, Any] = {
                "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
                "level": record.levelname, "process": self.process, "pid": record.process,
                "logger": record.name, "message": record.getMessage(), **fields}
            if record.exc_info:
                out["exc_info"] = self.formatException(record.exc_info)
            return json.dumps(out, default=str)
        text = (f"{self.formatTime(record)} {record.levelname} {self.process}[{record.process}] "
                f"{record.name}: {record.getMessage()}")
        if record.exc_info:
            text += "\n" + self.formatException(record.exc_info)
        return text


def configure_logging(process: str, level: str | None = None) -> None:
    """Every log line of this process on stderr, naming ``process`` and the pid (plain, or JSON
    with ``LUDOTECA_LOG_FORMAT=json``); ``LUDOTECA_LOG_LEVEL`` (INFO) for Ludoteca's loggers,
    the others at WARNING. Replaces the root logger's handlers."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(ProcessFormatter(process, os.environ.get("LUDOTECA_LOG_FORMAT", "").lower() == "json"))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    logging.getLogger("ludoteca").setLevel((level or os.environ.get("LUDOTECA_LOG_LEVEL") or "INFO").upper())
