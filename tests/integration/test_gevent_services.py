"""Every game service under the default gunicorn worker (gevent, monkey-patched) does what it does
under threads: it starts (numpy, numba, lark imports), serves its routes over redis-py, and
publishes bot turns and results to the real Celery worker through kombu, many at once.

The in-process paths (the Flask test client, the Celery worker) are not patched and are covered
by the rest of the suite.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from conftest import wait_until
from ludoteca.adapters.worker import service_for
from ludoteca.entrypoints.devstack import Supervisor, free_port, start_front_door, start_service
from ludoteca.service_layer import registry

pytestmark = [pytest.mark.integration, pytest.mark.timeout(400)]
ROOT = Path(__file__).resolve().parents[2]
TABLES = 8


@pytest.fixture(scope="module")
def front_door(redis_url: str, worker: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    logs = tmp_path_factory.mktemp("gevent-services")
    sup = Supervisor()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LUDOTECA_RATE_LIMIT", "0")
        mp.setenv("GUNICORN_WORKER_CLASS", "gevent")
        try:
            routes = {}
            for game in registry.names():
                port = free_port()
                start_service(sup, game, port, redis_url, ROOT, logs / f"{game}.log")
                routes[game] = f"http://127.0.0.1:{port}"
            door = free_port()
            start_front_door(sup, door, routes, ROOT, logs / "front-door.log")
            yield f"http://127.0.0.1:{door}"
        finally:
            sup.stop()


@pytest.mark.parametrize("game", registry.names())
def test_each_service_serves_its_routes(front_door: str, game: str) -> None:
    s = requests.Session()
    base = f"{front_door}/{game}"
    assert s.get(f"{base}/readyz", timeout=30).status_code == 200
    assert s.get(f"{base}/openapi.json", timeout=30).json()["info"]["title"].startswith("Ludoteca")
    seats = ["human"] * registry.game(game).engine.min_seats
    r = s.post(f"{base}/games", json={"seats": seats}, timeout=30)
    assert r.status_code == 201, r.text
    gid, token = r.json()["game"]["id"], r.json()["token"]
    for _ in seats[1:]:
        assert s.post(f"{base}/games/{gid}/players", json={}, timeout=30).status_code == 201
    view = s.get(f"{base}/games/{gid}", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert view.status_code == 200 and view.json()["status"] == "active", view.text
    acts = s.get(f"{base}/games/{gid}/actions", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert acts.status_code == 200 and "actions" in acts.json()
    events = s.get(f"{base}/games/{gid}/events", params={"after": 0, "wait": 0.2}, timeout=30)
    assert events.status_code == 200 and events.json()["events"]


def test_bot_tables_created_at_once_are_played_to_the_end(front_door: str) -> None:
    """8 Ludix tables of bots created concurrently: each creation publishes a bot turn from its own
    greenlet of the same gevent worker; the worker plays every table to its end and records it."""

    def create(_: int) -> str:
        r = requests.post(f"{front_door}/ludix/games", json={"seats": ["bot:steady", "bot:expert"],
                                                          "options": {"target": 50}}, timeout=60)
        assert r.status_code == 201, r.text
        return str(r.json()["game"]["id"])

    with concurrent.futures.ThreadPoolExecutor(TABLES) as pool:
        gids = list(pool.map(create, range(TABLES)))
    s = requests.Session()

    def finished() -> bool:
        return all(s.get(f"{front_door}/ludix/games/{gid}", timeout=30).json()["status"] == "finished" for gid in gids)

    assert wait_until(finished, timeout=240, interval=0.5)
    service = service_for("ludix")
    assert wait_until(lambda: all(service.store.is_recorded(gid) for gid in gids), timeout=60)
