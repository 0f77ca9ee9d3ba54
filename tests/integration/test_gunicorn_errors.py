"""What gunicorn itself rejects (before any application code runs) is problem+json too.

Raw sockets against real gunicorn processes started as deploy/gunicorn.conf.py configures them:
a game service and the gateway under the default worker class, and a game service under the
threaded one (``GUNICORN_WORKER_CLASS=gthread``). A malformed request line, a too-long URI, too
many or too large header fields, a bad header name, an unknown HTTP version and an unsupported
transfer coding, a malformed chunked body each get an RFC 9457 document with the right status,
never gunicorn's HTML page.
"""

from __future__ import annotations

import contextlib
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from ludoteca.devstack import Supervisor, free_port, start_gateway, start_service

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def servers(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, int]]:
    logs = tmp_path_factory.mktemp("gunicorn-errors")
    sup = Supervisor()
    try:
        ports = {"service": free_port(), "gateway": free_port(), "service (gthread)": free_port()}
        start_service(sup, "ludix", ports["service"], redis_url, ROOT, logs / "ludix.log")
        start_gateway(sup, ports["gateway"], {"ludix": f"http://127.0.0.1:{ports['service']}"}, ROOT,
                      logs / "gateway.log")
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
    # read by the application (the service) or by the gateway as it relays the body: still 400
    "malformed chunked body": (b"POST {prefix}/games HTTP/1.1\r\n" + HOST + b"Content-Type: application/json\r\n"
                               b"Transfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n", 400),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("server", ["service", "gateway", "service (gthread)"])
def test_gunicorn_rejections_are_problems(servers: dict[str, int], server: str, case: str) -> None:
    raw, expected = CASES[case]
    raw = raw.replace(b"{prefix}", b"/ludix" if server == "gateway" else b"")
    status, headers, body = exchange(servers[server], raw)
    assert status == expected, (status, body[:300])
    assert headers["content-type"] == "application/problem+json", (headers, body[:300])
    assert int(headers["content-length"]) == len(body)
    problem = json.loads(body)
    assert problem["status"] == expected
    assert problem["type"].startswith("https://ludoteca.dev/problems/")
    assert problem["title"] and problem["detail"]
    assert b"<html" not in body.lower()


def test_a_good_request_still_works_on_the_same_servers(servers: dict[str, int]) -> None:
    for server, port in servers.items():
        path = b"/ludix/healthz" if server == "gateway" else b"/healthz"
        status, _, body = exchange(port, b"GET " + path + b" HTTP/1.1\r\n" + HOST + b"Connection: close\r\n\r\n")
        assert status == 200 and json.loads(body)["status"] == "ok", (server, status, body)
