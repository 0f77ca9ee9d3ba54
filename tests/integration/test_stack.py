"""The real processes: a game service under gunicorn behind the gateway, over the real Redis."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from ludoteca.devstack import Supervisor, free_port, start_gateway, start_service

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def gateway(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    sup = Supervisor()
    logs = tmp_path_factory.mktemp("stack")
    try:
        ludix_port, dead_port, gw_port = free_port(), free_port(), free_port()
        start_service(sup, "ludix", ludix_port, redis_url, ROOT, logs / "ludix.log")
        start_gateway(sup, gw_port, {"ludix": f"http://127.0.0.1:{ludix_port}",
                                     "nowhere": f"http://127.0.0.1:{dead_port}"}, ROOT, logs / "gateway.log")
        yield f"http://127.0.0.1:{gw_port}"
    finally:
        sup.stop()


def test_a_game_through_the_gateway(gateway: str) -> None:
    s = requests.Session()
    r = s.post(f"{gateway}/ludix/games", json={"seats": ["human", "human"]}, timeout=10)
    assert r.status_code == 201
    assert r.headers["Location"].startswith("/ludix/games/") or "/ludix/games/" in r.headers["Location"]
    gid, token = r.json()["game"]["id"], r.json()["token"]
    joined = s.post(f"{gateway}/ludix/games/{gid}/players", json={}, timeout=10)
    assert joined.status_code == 201
    auth = {"Authorization": f"Bearer {token}"}
    r = s.post(f"{gateway}/ludix/games/{gid}/actions", json={"type": "alea_jacta_est"}, headers=auth, timeout=10)
    assert r.status_code == 200 and r.json()["game"]["to_act"] == [0]
    r = s.post(f"{gateway}/ludix/games/{gid}/actions", json={"type": "fly"}, headers=auth, timeout=10)
    assert r.status_code == 422 and r.headers["Content-Type"] == "application/problem+json"
    r = s.get(f"{gateway}/ludix/games/{gid}", headers={**auth, "If-None-Match": r.headers.get("ETag", "x")},
              timeout=10)
    assert r.status_code in (200, 304)


def test_docs_and_spec_through_the_gateway(gateway: str) -> None:
    docs = requests.get(f"{gateway}/ludix/docs", timeout=10)
    assert docs.status_code == 200 and "/ludix/openapi.json" in docs.text and "/ludix/docs/static/" in docs.text
    assert requests.get(f"{gateway}/ludix/openapi.json", timeout=10).json()["info"]["title"] == "Ludoteca Ludix"
    assert requests.get(f"{gateway}/ludix/numerals", params={"dice": "LXVI"}, timeout=10).status_code == 200


def test_gateway_errors_are_problems(gateway: str) -> None:
    r = requests.get(f"{gateway}/chess/games", timeout=10)
    assert r.status_code == 404 and r.headers["Content-Type"] == "application/problem+json"
    r = requests.get(f"{gateway}/nowhere/games", timeout=10)
    assert r.status_code == 502 and r.json()["status"] == 502
    assert requests.get(f"{gateway}/", timeout=10).json()["games"]["ludix"] == "/ludix/"
