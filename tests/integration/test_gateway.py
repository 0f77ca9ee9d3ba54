"""The gateway as a proxy: what reaches the service, and what comes back, under real gunicorn.

An upstream that echoes what it received (a small HTTP server in this process) and the real
Ludix service behind the gateway started as deploy/gunicorn.conf.py runs it: ``X-Forwarded-For``
is appended to (never replaced), chunked request bodies arrive whole, a slow answer is passed on
as it comes (not buffered), and an unreachable or unknown service is a problem+json.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import requests
from ludoteca.devstack import Supervisor, free_port, start_gateway, start_service

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]
ROOT = Path(__file__).resolve().parents[2]


class Echo(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass

    def _body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", ""):
            out = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    return out
                out += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _answer(self) -> None:
        body = self._body()
        if self.path.startswith("/slow"):
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for piece in (b"first", b"second"):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.flush()
                time.sleep(2.0)
            self.wfile.write(b"0\r\n\r\n")
            return
        data = json.dumps({"path": self.path, "method": self.command, "headers": dict(self.headers.items()),
                           "body": body.decode("latin-1"),
                           "chunked": "chunked" in self.headers.get("Transfer-Encoding", "")}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = _answer


@pytest.fixture(scope="module")
def gateway(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    logs = tmp_path_factory.mktemp("gateway")
    echo = ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    thread = threading.Thread(target=echo.serve_forever, daemon=True)
    thread.start()
    sup = Supervisor()
    try:
        ludix, gw = free_port(), free_port()
        start_service(sup, "ludix", ludix, redis_url, ROOT, logs / "ludix.log")
        start_gateway(sup, gw, {"echo": f"http://127.0.0.1:{echo.server_address[1]}",
                                "ludix": f"http://127.0.0.1:{ludix}", "nowhere": f"http://127.0.0.1:{free_port()}"},
                      ROOT, logs / "gateway.log")
        yield f"http://127.0.0.1:{gw}"
    finally:
        sup.stop()
        echo.shutdown()
        echo.server_close()


def test_x_forwarded_for_is_appended_to(gateway: str) -> None:
    seen = requests.get(f"{gateway}/echo/a/b?x=1", timeout=10).json()
    assert seen["path"] == "/a/b?x=1"
    assert seen["headers"]["X-Forwarded-For"] == "127.0.0.1"
    assert seen["headers"]["X-Forwarded-Prefix"] == "/echo"
    seen = requests.get(f"{gateway}/echo/", headers={"X-Forwarded-For": "203.0.113.7, 198.51.100.2"},
                        timeout=10).json()
    assert seen["headers"]["X-Forwarded-For"] == "203.0.113.7, 198.51.100.2, 127.0.0.1"


def test_bodies_pass_whole_chunked_or_not(gateway: str) -> None:
    big = "x" * 300_000  # larger than one relayed block
    for body in ("hello", big):
        seen = requests.post(f"{gateway}/echo/in", data=body, timeout=30).json()
        assert seen["body"] == body and not seen["chunked"]

    def pieces() -> Iterator[bytes]:
        yield b'{"seats": '
        yield b'["human", "human"]}'

    seen = requests.post(f"{gateway}/echo/in", data=pieces(), timeout=30).json()  # requests sends it chunked
    assert seen["chunked"] and seen["body"] == '{"seats": ["human", "human"]}'
    r = requests.post(f"{gateway}/ludix/games", data=pieces(), headers={"Content-Type": "application/json"},
                      timeout=30)
    assert r.status_code == 201, r.text
    assert r.json()["game"]["seats"][1]["kind"] == "human"


def test_a_slow_answer_is_relayed_as_it_comes(gateway: str) -> None:
    host, port = gateway.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=20) as s:
        t0 = time.monotonic()
        s.sendall(b"GET /echo/slow HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        while b"first" not in data:
            chunk = s.recv(65536)
            assert chunk, data
            data += chunk
        first = time.monotonic() - t0
        while chunk:
            chunk = s.recv(65536)
            data += chunk
        total = time.monotonic() - t0
    print(f"\nslow upstream through the gateway: first piece after {first:.2f} s, the whole answer after {total:.2f} s")
    assert first < 1.5 < total  # the first piece came before the upstream wrote the second
    assert data.startswith(b"HTTP/1.1 200") and b"second" in data


def test_errors_of_the_gateway_are_problems(gateway: str) -> None:
    for path, status in (("/chess/games", 404), ("/nowhere/games", 502)):
        r = requests.get(f"{gateway}{path}", timeout=10)
        assert r.status_code == status and r.headers["Content-Type"] == "application/problem+json"
        assert r.json()["status"] == status and r.json()["detail"]
