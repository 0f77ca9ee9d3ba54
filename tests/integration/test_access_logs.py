"""Access logs and request ids under real gunicorn, straight and through the front door (Caddy).

One id follows a request: the client's ``X-Request-Id`` when it is a sane token, else one the
front door (or, straight, the service) makes; it comes back in the response header and in every
problem document, and is in the service's access-log line (and the front door's). Each log line
names its process: the service and the pid, ``front-door``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import requests
from conftest import wait_until
from ludoteca.entrypoints.devstack import Supervisor, free_port, start_front_door, start_service

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]
ROOT = Path(__file__).resolve().parents[2]
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


@dataclass
class Stack:
    """The JSON-logging service, the plain one and the front door (before the JSON one)."""

    urls: dict[str, str]
    logs: Path

    def __getattr__(self, name: str) -> Any:  # json_service, json_log, door, door_log...
        if name.endswith("_log"):
            return self.logs / f"{name[:-4]}.log"
        return self.urls[name]


@pytest.fixture(scope="module")
def stack(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    logs = tmp_path_factory.mktemp("access")
    sup = Supervisor()
    try:
        jport, pport, dport = free_port(), free_port(), free_port()
        start_service(sup, "ludix", jport, redis_url, ROOT, logs / "json.log",
                      env={"LUDOTECA_LOG_FORMAT": "json", "GUNICORN_WORKERS": "2"})
        plain = Supervisor()  # a second "ludix": one name per process in a supervisor
        try:
            start_service(plain, "ludix", pport, redis_url, ROOT, logs / "plain.log",
                          env={"GUNICORN_WORKERS": "1"})
            start_front_door(sup, dport, {"ludix": f"127.0.0.1:{jport}"}, ROOT, logs / "door.log")
            yield Stack({"json_service": f"http://127.0.0.1:{jport}", "plain_service": f"http://127.0.0.1:{pport}",
                         "door": f"http://127.0.0.1:{dport}"}, logs)
        finally:
            plain.stop()
    finally:
        sup.stop()


def json_lines(path: Path) -> list[dict[str, Any]]:
    out = []
    for line in path.read_text().splitlines():
        if line.startswith("{"):
            try:
                out.append(json.loads(line))
            except ValueError:
                continue
    return out


def access_line(path: Path, rid: str) -> dict[str, Any]:
    """The service's access-log line of request ``rid`` (it is written as the response goes)."""
    found: list[dict[str, Any]] = []

    def look() -> bool:
        found[:] = [e for e in json_lines(path) if e.get("logger") == "ludoteca.access" and e.get("request_id") == rid]
        return bool(found)

    assert wait_until(look, timeout=10), path.read_text()[-2000:]
    assert len(found) == 1, found
    return found[0]


def test_straight_a_sane_id_is_kept_echoed_and_logged(stack: Stack) -> None:
    rid = "client-id-0001"
    r = requests.get(f"{stack.json_service}/games/deadbeef", headers={"X-Request-Id": rid}, timeout=10)
    assert r.status_code == 404 and r.headers["Content-Type"] == "application/problem+json"
    assert r.headers["X-Request-Id"] == rid and r.json()["request_id"] == rid
    line = access_line(stack.json_log, rid)
    assert line["method"] == "GET" and line["path"] == "/games/deadbeef" and line["status"] == 404
    assert line["game"] == "ludix" and line["game_id"] == "deadbeef" and line["seat"] is None
    assert line["bytes"] == len(r.content) and line["duration_ms"] >= 0
    assert line["client"] == "127.0.0.1" and line["process"] == "ludix" and isinstance(line["pid"], int)


def test_straight_an_insane_id_is_replaced(stack: Stack) -> None:
    for bad in ['a"b', "x" * 200, "two words"]:
        r = requests.get(f"{stack.json_service}/games/zz", headers={"X-Request-Id": bad}, timeout=10)
        rid = r.headers["X-Request-Id"]
        assert rid != bad and UUID.fullmatch(rid) and r.json()["request_id"] == rid
        access_line(stack.json_log, rid)
    r = requests.get(f"{stack.json_service}/healthz", timeout=10)  # none given: one is made, success too
    assert UUID.fullmatch(r.headers["X-Request-Id"]) and r.status_code == 200
    assert access_line(stack.json_log, r.headers["X-Request-Id"])["status"] == 200


def test_a_move_logs_the_game_and_the_seat(stack: Stack) -> None:
    created = requests.post(f"{stack.json_service}/games", json={"seats": ["human", "human"]}, timeout=10)
    gid, token = created.json()["game"]["id"], created.json()["token"]
    requests.post(f"{stack.json_service}/games/{gid}/players", json={}, timeout=10)
    r = requests.post(f"{stack.json_service}/games/{gid}/actions", json={"type": "alea_jacta_est"},
                      headers={"Authorization": f"Bearer {token}", "X-Request-Id": f"move-{gid}"}, timeout=10)
    assert r.status_code == 200 and r.headers["X-Request-Id"] == f"move-{gid}"
    line = access_line(stack.json_log, f"move-{gid}")
    assert (line["method"], line["status"], line["game_id"], line["seat"]) == ("POST", 200, gid, 0)
    # refused: the problem document carries the id too
    r = requests.post(f"{stack.json_service}/games/{gid}/actions", json={"type": "fly"},
                      headers={"Authorization": f"Bearer {token}", "X-Request-Id": f"fly-{gid}"}, timeout=10)
    assert r.status_code == 422 and r.json()["request_id"] == f"fly-{gid}"
    assert access_line(stack.json_log, f"fly-{gid}")["seat"] == 0


def test_through_the_front_door_one_id_follows_the_request(stack: Stack) -> None:
    r = requests.get(f"{stack.door}/ludix/games/cafe01", timeout=10)  # no id: Caddy makes one
    rid = r.headers["X-Request-Id"]
    assert r.status_code == 404 and UUID.fullmatch(rid) and r.json()["request_id"] == rid
    line = access_line(stack.json_log, rid)
    assert line["path"] == "/games/cafe01" and line["client"] == "127.0.0.1"  # the peer Caddy saw
    assert wait_until(lambda: any(e.get("request_id") == rid and e.get("process") == "front-door"
                                  for e in json_lines(stack.door_log)), timeout=10), stack.door_log.read_text()[-2000:]
    r = requests.get(f"{stack.door}/ludix/games/cafe02", headers={"X-Request-Id": "from-client-7"}, timeout=10)
    assert r.headers["X-Request-Id"] == "from-client-7" and r.json()["request_id"] == "from-client-7"
    access_line(stack.json_log, "from-client-7")
    r = requests.get(f"{stack.door}/ludix/games/cafe03", headers={"X-Request-Id": 'no"pe'}, timeout=10)
    rid = r.headers["X-Request-Id"]
    assert UUID.fullmatch(rid) and r.json()["request_id"] == rid  # Caddy replaced it; the service kept Caddy's
    assert wait_until(lambda: any(e.get("request_id") == rid for e in json_lines(stack.door_log)), timeout=10)
    access_line(stack.json_log, rid)
    # the front door's own problem (no game mounted there) carries the id in its header
    r = requests.get(f"{stack.door}/chess/games", headers={"X-Request-Id": "door-404"}, timeout=10)
    assert r.status_code == 404 and r.headers["Content-Type"] == "application/problem+json"
    assert r.headers["X-Request-Id"] == "door-404"


def test_plain_lines_name_the_process_and_carry_the_id(stack: Stack) -> None:
    r = requests.get(f"{stack.plain_service}/games/abcd", headers={"X-Request-Id": "plain-1"}, timeout=10)
    assert r.status_code == 404 and r.json()["request_id"] == "plain-1"

    def line() -> list[str]:
        return [t for t in stack.plain_log.read_text().splitlines() if "rid=plain-1" in t]

    assert wait_until(lambda: bool(line()), timeout=10), stack.plain_log.read_text()[-2000:]
    text = line()[0]
    assert re.search(r" INFO ludix\[\d+\] ludoteca\.access: GET /games/abcd 404 [\d.]+ms \d+B rid=plain-1 "
                     r"game_id=abcd seat=- client=127\.0\.0\.1$", text), text
