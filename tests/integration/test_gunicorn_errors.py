"""What gunicorn itself rejects (before any application code runs) is problem+json too.

Raw sockets against real gunicorn processes started as deploy/gunicorn.conf.py configures them:
a game service under the default worker class, and one under the threaded one
(``GUNICORN_WORKER_CLASS=gthread``). A malformed request line, a too-long URI, too many or too
large header fields, a bad header name, an unknown HTTP version and an unsupported transfer
coding, a malformed chunked body each get an RFC 9457 document with the right status, never
gunicorn's HTML page.

The same requests through the front door (Caddy): what Go's HTTP parser accepts reaches the
service (its 414 and 431 problems come back as they are) or is a problem of the front door's
own (a malformed chunked body: 502, the body could not be passed on); what Go's parser refuses
before any handler runs (the request line, the HTTP version, a header line, the transfer coding)
gets Go's short plain-text 400/501/505, and no service ever sees it (a limit of the proxy,
written in ``ludoteca.entrypoints.frontdoor``).
"""

from __future__ import annotations

import contextlib
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from ludoteca.entrypoints.devstack import Supervisor, free_port, start_front_door, start_service

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def servers(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, int]]:
    logs = tmp_path_factory.mktemp("gunicorn-errors")
    sup = Supervisor()
    try:
        ports = {"service": free_port(), "front door": free_port(), "service (gthread)": free_port()}
        start_service(sup, "ludix", ports["service"], redis_url, ROOT, logs / "ludix.log")
        sup.procs["ludix (gevent)"] = sup.procs.pop("ludix")  # the gthread one below is "ludix" too
        start_front_door(sup, ports["front door"], {"ludix": f"127.0.0.1:{ports['service']}"}, ROOT,
                         logs / "front-door.log")
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("GUNICORN_WORKER_CLASS", "gthread")
            start_service(sup, "ludix", ports["service (gthread)"], redis_url, ROOT, logs / "ludix-gthread.log")
        yield ports
    finally:
        sup.stop()


def exchange(port: int, raw: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send raw bytes, read until the server closes: (status, headers, body)."""
    with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            s.sendall(raw)  # the server may answer and close before it has read everything
        data = b""
        while True:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers, body


HOST = b"Host: 127.0.0.1\r\n"
CASES = {
    "malformed request line": (b"GARBAGE\r\n\r\n", 400),
    "request line without a version": (b"GET /healthz\r\n\r\n", 400),
    "unknown HTTP version": (b"GET /healthz HTTP/9.9\r\n" + HOST + b"\r\n", 400),
    "too long URI": (b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\n" + HOST + b"\r\n", 414),
    "too many header fields": (b"GET /healthz HTTP/1.1\r\n" + HOST
                               + b"".join(b"X-H%d: v\r\n" % i for i in range(150)) + b"\r\n", 431),
    "too large header field": (b"GET /healthz HTTP/1.1\r\n" + HOST + b"X-Big: " + b"v" * 9000 + b"\r\n\r\n", 431),
    "invalid header name": (b"GET /healthz HTTP/1.1\r\n" + HOST + b"Bad Header: v\r\n\r\n", 400),
    "unknown transfer coding": (b"POST /games HTTP/1.1\r\n" + HOST + b"Transfer-Encoding: gzip\r\n\r\n", 400),
    # read by the application as it reads the body: still 400
    "malformed chunked body": (b"POST {prefix}/games HTTP/1.1\r\n" + HOST + b"Content-Type: application/json\r\n"
                               b"Transfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n", 400),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("server", ["service", "service (gthread)"])
def test_gunicorn_rejections_are_problems(servers: dict[str, int], server: str, case: str) -> None:
    raw, expected = CASES[case]
    status, headers, body = exchange(servers[server], raw.replace(b"{prefix}", b""))
    assert status == expected, (status, body[:300])
    assert_problem(status, headers, body)


def assert_problem(status: int, headers: dict[str, str], body: bytes) -> None:
    assert headers["content-type"] == "application/problem+json", (headers, body[:300])
    assert int(headers["content-length"]) == len(body)
    problem = json.loads(body)
    assert problem["status"] == status
    assert problem["type"].startswith("https://ludoteca.dev/problems/")
    assert problem["title"] and problem["detail"]
    assert b"<html" not in body.lower()


PARSED_BY_CADDY = {"too long URI": 414, "too many header fields": 431, "too large header field": 431,
                   "malformed chunked body": 502}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_same_requests_through_the_front_door(servers: dict[str, int], case: str) -> None:
    raw, _ = CASES[case]
    # under the prefix, and asking to close (the front door keeps a client's connection open
    # after an error of the service's)
    raw = (raw.replace(b"{prefix}", b"").replace(b" /", b" /ludix/", 1)
           .replace(b"HTTP/1.1\r\n", b"HTTP/1.1\r\nConnection: close\r\n", 1))
    status, headers, body = exchange(servers["front door"], raw)
    if case in PARSED_BY_CADDY:
        assert status == PARSED_BY_CADDY[case], (status, body[:300])
        assert_problem(status, headers, body)
    else:  # refused by Go's HTTP parser (plain text): never passed on, never a success
        assert status in (400, 501, 505), (status, body[:300])


@pytest.mark.parametrize("server", ["service", "service (gthread)"])
def test_a_refused_request_s_answer_survives_the_unread_rest_of_it(servers: dict[str, int], server: str) -> None:
    """gunicorn stops reading a 9 KB request line at 4 KB; a client that reads its answer only
    after the service is done with the connection still gets the 414 (the worker half-closes
    and drains the rest, gunicorn_workers.linger: closing with unread input would send a reset
    that destroys the answer; through the front door that was a 502 under load)."""
    raw = b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\n" + HOST + b"X-Pad: " + b"p" * 60_000 + b"\r\n\r\n"
    with socket.create_connection(("127.0.0.1", servers[server]), timeout=20) as s:
        s.sendall(raw)
        time.sleep(0.5)  # the service has answered and closed (or half-closed) by now
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    assert data.startswith(b"HTTP/1.1 414 "), data[:200]


def test_a_good_request_still_works_on_the_same_servers(servers: dict[str, int]) -> None:
    for server, port in servers.items():
        path = b"/ludix/healthz" if server == "front door" else b"/healthz"
        status, _, body = exchange(port, b"GET " + path + b" HTTP/1.1\r\n" + HOST + b"Connection: close\r\n\r\n")
        assert status == 200 and json.loads(body)["status"] == "ok", (server, status, body)
