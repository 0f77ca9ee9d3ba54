"""The real processes: a game service under gunicorn behind the front door (Caddy), over the real Redis."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from ludoteca.entrypoints.devstack import Supervisor, free_port, start_front_door, start_service

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def front_door(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    sup = Supervisor()
    logs = tmp_path_factory.mktemp("stack")
    try:
        ludix_port, dead_port, door_port = free_port(), free_port(), free_port()
        start_service(sup, "ludix", ludix_port, redis_url, ROOT, logs / "ludix.log")
        start_front_door(sup, door_port, {"ludix": f"http://127.0.0.1:{ludix_port}",
                                          "nowhere": f"http://127.0.0.1:{dead_port}"}, ROOT, logs / "front-door.log")
        yield f"http://127.0.0.1:{door_port}"
    finally:
        sup.stop()


def test_a_game_through_the_front_door(front_door: str) -> None:
    s = requests.Session()
    r = s.post(f"{front_door}/ludix/games", json={"seats": ["human", "human"]}, timeout=10)
    assert r.status_code == 201
    assert r.headers["Location"].startswith("/ludix/games/"), r.headers["Location"]
    gid, token = r.json()["game"]["id"], r.json()["token"]
    joined = s.post(f"{front_door}/ludix/games/{gid}/players", json={}, timeout=10)
    assert joined.status_code == 201
    auth = {"Authorization": f"Bearer {token}"}
    r = s.post(f"{front_door}/ludix/games/{gid}/actions", json={"type": "alea_jacta_est"}, headers=auth, timeout=10)
    assert r.status_code == 200 and r.json()["game"]["to_act"] == [0]
    r = s.post(f"{front_door}/ludix/games/{gid}/actions", json={"type": "fly"}, headers=auth, timeout=10)
    assert r.status_code == 422 and r.headers["Content-Type"] == "application/problem+json"
    r = s.get(f"{front_door}/ludix/games/{gid}", headers={**auth, "If-None-Match": r.headers.get("ETag", "x")},
              timeout=10)
    assert r.status_code in (200, 304)


def test_docs_and_spec_through_the_front_door(front_door: str) -> None:
    docs = requests.get(f"{front_door}/ludix/docs", timeout=10)
    assert docs.status_code == 200 and "/ludix/openapi.json" in docs.text and "/ludix/docs/static/" in docs.text
    assert requests.get(f"{front_door}/ludix/openapi.json", timeout=10).json()["info"]["title"] == "Ludoteca Ludix"
    assert requests.get(f"{front_door}/ludix/numerals", params={"dice": "LXVI"}, timeout=10).status_code == 200


def test_front_door_errors_are_problems(front_door: str) -> None:
    r = requests.get(f"{front_door}/chess/games", timeout=10)
    assert r.status_code == 404 and r.headers["Content-Type"] == "application/problem+json"
    r = requests.get(f"{front_door}/nowhere/games", timeout=10)
    assert r.status_code == 502 and r.json()["status"] == 502
    assert requests.get(f"{front_door}/", timeout=10).json()["games"]["ludix"] == "/ludix/"
