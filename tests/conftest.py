"""Shared fixtures: a real Redis (``REDIS_URL``, or an embedded redis-server started here), Flask
test clients of any game over it, and a real Celery worker process for integration tests.

Every process started here is stopped at the end of the session, failures included.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from flask.testing import FlaskClient
from ludoteca.adapters.hosting import create_app
from ludoteca.config import Settings
from ludoteca.entrypoints.devstack import Supervisor, embedded_redis, free_port, start_front_door, start_service
from ludoteca.service_layer import registry

ROOT = Path(__file__).resolve().parent.parent
# the suite creates games and posts far faster than a player: services it starts under gunicorn
# inherit a huge limit (tests of the limits set theirs explicitly), like the settings fixture
os.environ.setdefault("LUDOTECA_RATE_LIMIT", "1000000")


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


@pytest.fixture(scope="session")
def app_factory(settings: Settings) -> Callable[[str], Any]:
    apps: dict[str, Any] = {}

    def make(game: str) -> Any:
        if game not in apps:
            app = create_app(registry.game(game), settings)
            app.config["TESTING"] = True
            apps[game] = app
        return apps[game]

    return make


@pytest.fixture(scope="session")
def client_factory(app_factory: Callable[[str], Any]) -> Callable[[str], FlaskClient]:
    """``client_factory("ludix")``: a Flask test client of that game over the real Redis."""
    return lambda game: app_factory(game).test_client()


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
    free ports and the front door before them: yields (the front door's URL, each game's own
    URL); stops them all at the end."""
    sup = Supervisor()
    try:
        services = {}
        for game in games:
            port = free_port()
            start_service(sup, game, port, redis_url, ROOT, logs / f"{game}.log", env)
            services[game] = f"http://127.0.0.1:{port}"
        door = free_port()
        start_front_door(sup, door, services, ROOT, logs / "front-door.log")
        yield f"http://127.0.0.1:{door}", services
    finally:
        sup.stop()


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


@pytest.fixture()
def idle_worker(worker: Path, settings: Settings) -> Path:
    """The session's worker with its game queues emptied first. Every in-process app of this
    xdist process dispatches to the same broker, so the bot turns of tables other test files
    created and left (schemathesis creates hundreds, some of Ludic's hard bots, which play on to
    the 100-round bound) would queue ahead of a test that waits for its own table to end; without
    their queued turn those tables stop (at most the worker's two tasks in flight go on)."""
    broker = redis.Redis.from_url(settings.broker_url)
    try:
        for queue in registry.names():
            broker.delete(queue, *broker.scan_iter(match=f"{queue}\x06\x16*"))
    finally:
        broker.close()
    return worker


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
