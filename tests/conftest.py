"""Shared fixtures: a real Redis (``REDIS_URL``, or an embedded redis-server started here), Flask
test clients of any game over it, and a real Celery worker process for integration tests.

An in-process app (:func:`in_process_app`, ``client_factory``) dispatches nothing: a bot's turn
it makes due is recorded (:class:`Dispatches`) and played only by a test that plays it
(``service.bot_turn``). The tests whose bots the real worker plays opt in to it with
``worker_client_factory``, whose apps send bot turns to the Celery broker the session's worker
consumes; so no table another test left floods that worker.

Every process started here is stopped at the end of the session, failures included.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from ludoteca.adapters.hosting import create_app
from ludoteca.config import Settings
from ludoteca.entrypoints.devstack import (
    BEHIND_DOOR,
    Supervisor,
    embedded_redis,
    free_port,
    gunicorn_argv,
    start_front_door,
    wait_http,
)
from ludoteca.entrypoints.frontdoor import platform_services
from ludoteca.service_layer import registry
from ludoteca.service_layer.service import Dispatcher

ROOT = Path(__file__).resolve().parent.parent
# the suite creates games and posts far faster than a player: services it starts under gunicorn
# inherit a huge limit (tests of the limits set theirs explicitly), like the settings fixture
os.environ.setdefault("LUDOTECA_RATE_LIMIT", "1000000")


SHARED_STACK = ("tests/browser/", "tests/clients/")
"""The directories whose tests use the session's ``front_door``: one xdist process runs them all."""


def pytest_configure(config: pytest.Config) -> None:
    """SIGTERM (a CI's ``timeout``, which signals the run's whole process group, or a developer's
    ``kill``) ends a run, or an xdist worker, as Ctrl-C does: pytest then tears its fixtures down,
    and they stop every process they started. Left to its default, SIGTERM killed pytest at once
    and left the stacks it had started (gunicorn, redis-server, Caddy: each in a session of its
    own) running under init. Checked for a plain run; under xdist the controller may end the
    workers before their teardown is over, and what is left is for ``.ci/run``'s trap (it stops
    every process of the checkout's virtualenv)."""
    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt(f"signal {signum}")

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, interrupt)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under ``--dist loadfile`` (the suite's, pyproject.toml): a test file per process at a time,
    as xdist schedules it, but the files of :data:`SHARED_STACK` as one unit, so the stack they
    share starts once."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SharedStackScheduling(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return next((d for d in SHARED_STACK if path.startswith(d)), path)

    return SharedStackScheduling(config, log)


INTEGRATION_RERUNS = 1
"""A test marked ``integration`` (real processes: Redis, the worker, services, a browser) that
fails is run once more (pytest-rerunfailures) before it fails the suite; a unit test never is.
Such a test depends on a shared 2-core machine's timing more than on the code: each flake found
so far was a race in the test itself (and was fixed); the summary lists every rerun (``R``), so
none goes unseen. ``--reruns 0`` (or ``-p no:rerunfailures``) turns it off."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.pluginmanager.hasplugin("rerunfailures") and config.getoption("reruns") is None:
        for item in items:
            if item.get_closest_marker("integration") and not item.get_closest_marker("flaky"):
                item.add_marker(pytest.mark.flaky(reruns=INTEGRATION_RERUNS, reruns_delay=2))


@pytest.fixture(scope="session")
def supervisor() -> Iterator[Supervisor]:
    sup = Supervisor()
    try:
        yield sup
    finally:
        sup.stop()


@pytest.fixture(scope="session")
def redis_url(supervisor: Supervisor, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    url = os.environ.get("REDIS_URL")
    if url:
        yield url
        return
    with embedded_redis(supervisor, tmp_path_factory.mktemp("redis")) as url:
        os.environ["REDIS_URL"] = url  # for anything importing the worker module later
        yield url


@pytest.fixture(scope="session")
def redis_client(redis_url: str) -> redis.Redis:
    return redis.Redis.from_url(redis_url)


@pytest.fixture(scope="session")
def settings(redis_url: str) -> Settings:
    # the suite posts far more than a player would: the limit has a test of its own
    return Settings.from_env(redis_url=redis_url, rate_limit_per_minute=1_000_000)


class Dispatches:
    """The dispatcher of an in-process app: records what each commit made due, runs nothing."""

    def __init__(self) -> None:
        self.bot_turns: list[tuple[str, str, int]] = []
        self.results: list[tuple[str, str]] = []

    def bot_turn(self, game: str, game_id: str, version: int) -> None:
        self.bot_turns.append((game, game_id, version))

    def record_result(self, game: str, game_id: str) -> None:
        self.results.append((game, game_id))


def in_process_app(game: str, settings: Settings, dispatcher: Dispatcher | None = None) -> Flask:
    """The app of ``game`` over ``settings`` for Flask's test client; ``dispatcher``: where its
    follow-up work goes (by default a :class:`Dispatches` of its own: nowhere)."""
    app = create_app(registry.game(game), settings, dispatcher=dispatcher or Dispatches())
    app.config["TESTING"] = True
    return app


def app_factory_of(settings: Settings, dispatcher: Callable[[], Dispatcher]) -> Callable[[str], Flask]:
    apps: dict[str, Flask] = {}

    def make(game: str) -> Flask:
        if game not in apps:
            apps[game] = in_process_app(game, settings, dispatcher())
        return apps[game]

    return make


@pytest.fixture(scope="session")
def app_factory(settings: Settings) -> Callable[[str], Flask]:
    """``app_factory("ludix")``: that game's in-process app (one per session), dispatching nothing."""
    return app_factory_of(settings, Dispatches)


@pytest.fixture(scope="session")
def client_factory(app_factory: Callable[[str], Flask]) -> Callable[[str], FlaskClient]:
    """``client_factory("ludix")``: a Flask test client of that game over the real Redis; no bot
    moves unless the test plays its turn."""
    return lambda game: app_factory(game).test_client()


@pytest.fixture(scope="session")
def worker_client_factory(settings: Settings, worker: Path) -> Callable[[str], FlaskClient]:
    """As ``client_factory``, but the apps send their bot turns and results to the session's real
    Celery worker (started for it), as a service under gunicorn does."""
    from ludoteca.adapters.worker import CeleryDispatcher  # imported by the tests that use it only

    make = app_factory_of(settings, lambda: CeleryDispatcher.for_url(settings.broker_url))
    return lambda game: make(game).test_client()


def start_worker(supervisor: Supervisor, name: str, env: dict[str, str], log: Path,
                 extra: tuple[str, ...] = ("--without-gossip", "--without-mingle", "--without-heartbeat"),
                 ) -> subprocess.Popen[bytes]:
    """A real Celery worker process consuming every game's queue, as the Procfile runs it; returns
    once it is ready. ``env`` names the sessions (``REDIS_URL``) and the broker (``BROKER_URL``,
    by default the sessions' database 1)."""
    argv = [sys.executable, "-m", "celery", "-A", "ludoteca.adapters.worker", "worker",
            "-Q", ",".join(registry.names()), "--concurrency", "2", "--loglevel", "INFO",
            *extra, "-n", f"{name}-{os.getpid()}@%h"]
    offset = log.stat().st_size if log.exists() else 0
    proc = supervisor.start(name, argv, env={"LUDOTECA_VISIBILITY_TIMEOUT": "10", **env}, cwd=ROOT, log=log)
    deadline = time.monotonic() + 120
    while "ready." not in (log.read_text()[offset:] if log.exists() else ""):
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError("the Celery worker did not start:\n" + (log.read_text()[-3000:] if log.exists() else ""))
        time.sleep(0.1)
    return proc


@contextlib.contextmanager
def served_games(games: tuple[str, ...], redis_url: str, logs: Path,
                 env: dict[str, str] | None = None) -> Iterator[tuple[str, dict[str, str]]]:
    """The services of ``games`` under gunicorn (as the Procfile runs them, with ``env`` more) on
    free ports, started at once and then awaited, and the front door before them: yields (the
    front door's URL, each game's own URL); stops them all at the end."""
    sup = Supervisor()
    try:
        ports = {game: free_port() for game in games}
        for game, port in ports.items():
            sup.start(game, gunicorn_argv("ludoteca.entrypoints.wsgi:make_app()", port, ROOT),
                      env={"LUDOTECA_GAME": game, "REDIS_URL": redis_url, **BEHIND_DOOR, **(env or {})}, cwd=ROOT,
                      log=logs / f"{game}.log")
        for game, port in ports.items():
            if not wait_http(f"http://127.0.0.1:{port}/readyz", 120):
                raise RuntimeError(f"{game} did not become ready:\n" + (logs / f"{game}.log").read_text()[-2000:])
        services = {game: f"http://127.0.0.1:{port}" for game, port in ports.items()}
        door = free_port()
        start_front_door(sup, door, services, ROOT, logs / "front-door.log")
        yield f"http://127.0.0.1:{door}", services
    finally:
        sup.stop()


@dataclasses.dataclass(frozen=True)
class FrontDoor:
    """The session's stack: every game under gunicorn behind the front door (Caddy)."""

    url: str  # http://127.0.0.1:<port>
    logs: Path  # <game>.log, front-door.log


@pytest.fixture(scope="session")
def front_door(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[FrontDoor]:
    """Every installed game and the platform's services (players) under gunicorn behind the front
    door, as ``make run`` mounts them, over the session's Redis; the games'
    bot turns go to the session's broker (a test whose bots must move asks for ``worker`` too).
    Shared by tests/browser and tests/clients (one xdist process runs both: ``SHARED_STACK``);
    each test plays tables of its own, and none of them reads what only it wrote (no totals)."""
    logs = tmp_path_factory.mktemp("stack")
    with served_games((*registry.names(), *platform_services()), redis_url, logs) as (url, _):
        yield FrontDoor(url, logs)


def start_sweeper(supervisor: Supervisor, env: dict[str, str], log: Path, grace: float,
                  interval: float = 0.5) -> subprocess.Popen[bytes]:
    """The sweeper process (``python -m ludoteca.adapters.sweeper``) with a short grace."""
    argv = [sys.executable, "-m", "ludoteca.adapters.sweeper", "--interval", str(interval), "--grace", str(grace)]
    return supervisor.start("sweeper", argv, env=env, cwd=ROOT, log=log)


@pytest.fixture(scope="session")
def worker(supervisor: Supervisor, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A real Celery worker consuming every game's queue (broker: the session Redis's database
    1, apart from the sessions). Yields its log file."""
    log = tmp_path_factory.mktemp("worker") / "worker.log"
    start_worker(supervisor, "worker", {"REDIS_URL": redis_url}, log)
    yield log


def wait_until(predicate: Callable[[], bool], timeout: float = 60.0, interval: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()


@pytest.fixture()
def wait() -> Callable[..., bool]:
    return wait_until


def run(cmd: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, capture_output=True, text=True, check=False, **kwargs)
