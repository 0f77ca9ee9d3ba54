"""The front door bounds what a client can make it hold of a service (issue 20, finding 1, its side).

A real Ludix service under gunicorn behind the front door, as ``make run`` stacks them (the door
dials from its own loopback address, the service's ``LUDOTECA_PROXY_ADDRESSES``). 2,100 sockets
from one address POST a move through the door with ``Content-Length: 40`` and send one byte of it
every 3 s, while a victim on 127.0.0.1 views, moves and calls ``/ludix/readyz`` through the door
(every answer a 200 within 5 s, on a new connection each, as in test_hostile_load.py).

The door reads a body whole (``request_buffers``) before it takes a connection to the service,
within ``read_body`` (``LUDOTECA_BODY_TIMEOUT``, 10 s, from the request's first byte): the slow
ones never reach the service, and each gets a ``408`` problem with ``Connection: close`` at the
deadline. Before, the door passed each body on as it came: 2,100 connections to the service, all
from the door's address, which the service's per-address admission (64 a worker) then refused,
the victim's requests with them.
"""

from __future__ import annotations

import json
import socket
import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests
from abuse import Bystander, SocketCrowd, new_game
from ludoteca.adapters.fdlimit import raise_nofile
from ludoteca.config import Settings
from ludoteca.entrypoints.devstack import Supervisor, free_port, start_front_door, start_service

pytestmark = [pytest.mark.integration, pytest.mark.hostile, pytest.mark.timeout(300)]
ROOT = Path(__file__).resolve().parents[2]
DEADLINE = Settings.body_timeout_seconds
LIVENESS = 5.0  # seconds: only a request stuck behind the attack takes this long
ATTACKER = "127.0.0.2"


@dataclass
class Door:
    port: int
    log: Path  # the service's

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}/ludix"


@pytest.fixture(scope="module")
def door(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Door]:
    """The front door's port, with Ludix behind it at ``/ludix`` (``Service.base`` is the door's
    ``/ludix``)."""
    raise_nofile()  # this process opens 2,100 sockets
    logs = tmp_path_factory.mktemp("door-bounds")
    sup = Supervisor()
    try:
        svc, port = free_port(), free_port()
        start_service(sup, "ludix", svc, redis_url, ROOT, logs / "ludix.log")
        start_front_door(sup, port, {"ludix": f"127.0.0.1:{svc}"}, ROOT, logs / "front-door.log")
        yield Door(port, logs / "ludix.log")
    finally:
        sup.stop()


def test_a_slow_body_gets_a_408_problem_at_the_deadline(door: Door) -> None:
    gid = new_game(requests.Session(), door.base)[0]
    with socket.create_connection(("127.0.0.1", door.port), timeout=DEADLINE + 20) as s:
        t0 = time.monotonic()
        s.sendall(f"POST /ludix/games/{gid}/actions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  "Content-Length: 40\r\n\r\n{".encode())
        s.settimeout(1)
        data = b""
        while b"\r\n\r\n" not in data or not data.endswith(b"}"):
            assert time.monotonic() - t0 < DEADLINE + 15, data
            try:
                chunk = s.recv(65536)
            except TimeoutError:
                s.sendall(b" ")  # one byte a second: never idle, never done
                continue
            assert chunk, data
            data += chunk
        took = time.monotonic() - t0
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 408 "), head
    assert b"\r\nContent-Type: application/problem+json" in head and b"\r\nConnection: close" in head, head
    assert json.loads(body)["status"] == 408
    assert DEADLINE - 1 <= took <= DEADLINE + 5, took
    assert door.log.read_text().count(f"POST /games/{gid}/actions ") == 1  # new_game's: the slow one never got there


def test_slow_bodies_through_the_door_do_not_starve_other_clients(door: Door) -> None:
    """2,100 slow bodies from one address through the door, one byte every 3 s: each gets 408 by
    the deadline, none reaches the service, and the victim is answered throughout."""
    gid = new_game(requests.Session(), door.base)[0]
    head = (f"POST /ludix/games/{gid}/actions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            "Content-Length: 40\r\n\r\n").encode()
    crowd = SocketCrowd("127.0.0.1", door.port, [ATTACKER], 2100, head, drip=b"x" * 40, every=3.0)
    victim = Bystander(door.base, LIVENESS)
    crowd.start()
    try:
        deadline = time.monotonic() + DEADLINE + 10
        while time.monotonic() < deadline:  # while the crowd connects, drips and is cut off
            victim.one_round()
            time.sleep(0.1)
    finally:
        crowd.stop()
    xs = sorted(victim.times)
    print(f"\nvictim through the door: {len(xs)} answers, p50 {statistics.median(xs) * 1000:.0f} ms, "
          f"max {xs[-1] * 1000:.0f} ms, {len(victim.bad)} late or failed; crowd: {crowd.connected} connected, "
          f"answers {dict(crowd.counts())}, hung {crowd.hung()}, errors {dict(crowd.errors)}")
    assert not victim.bad, victim.bad[:10]
    assert crowd.connected == 2100, (crowd.connected, dict(crowd.errors))
    assert crowd.hung() == 0, crowd.counts()
    assert crowd.counts() == {408: 2100}, crowd.counts()
    assert door.log.read_text().count(f"POST /games/{gid}/actions ") == 1  # new_game's: none of the crowd's
