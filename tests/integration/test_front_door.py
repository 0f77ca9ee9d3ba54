"""The front door (Caddy, as ``make run`` starts it) as a proxy: what reaches the service, and what
comes back, under real gunicorn.

An upstream that echoes what it received (a small HTTP server in this process) and the real
Ludix service behind the front door: the prefix is stripped and sent as ``X-Forwarded-Prefix``
(the service's ``Location`` keeps it), ``X-Forwarded-For`` is appended to (never replaced),
chunked request bodies arrive whole, upstream connections are kept alive, slow answers, server-sent
events and long-polls are passed on as they come (not buffered), and an unreachable or unknown
service, or a body too large, is a problem+json. Caddy has no admin port, keeps its state in the
stack's directory, is started again by the supervisor when it dies and stopped with it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urljoin

import pytest
import requests
from ludoteca.config import Settings
from ludoteca.entrypoints.devstack import Supervisor, free_port, port_open, start_front_door, start_service, wait_http
from ludoteca.entrypoints.frontdoor import FRONT_DOOR, PLAYGROUND, caddyfile

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]
ROOT = Path(__file__).resolve().parents[2]
PROBLEM = "application/problem+json"


class Echo(BaseHTTPRequestHandler):
    """Answers with what it received; ``/slow`` and ``/sse`` send a first piece, then wait for
    the test to have read it (:attr:`release`) before the second: a buffering proxy deadlocks."""

    protocol_version = "HTTP/1.1"
    release = threading.Event()

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

    def _pieces(self, content_type: str, pieces: tuple[bytes, bytes], chunked: bool) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:  # the body ends when the connection does
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        for i, piece in enumerate(pieces):
            if i:
                assert self.release.wait(30), "the test never read the first piece"
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
            self.wfile.flush()
        if chunked:
            self.wfile.write(b"0\r\n\r\n")

    def _answer(self) -> None:
        body = self._body()
        if self.path.startswith("/slow"):
            return self._pieces("text/plain", (b"first", b"second"), chunked=True)
        if self.path.startswith("/sse"):
            return self._pieces("text/event-stream", (b"data: first\n\n", b"data: second\n\n"), chunked=False)
        data = json.dumps({"path": self.path, "method": self.command, "headers": dict(self.headers.items()),
                           "body": body.decode("latin-1"), "peer": list(self.client_address),
                           "chunked": "chunked" in self.headers.get("Transfer-Encoding", "")}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = _answer


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # the front door hung up on an upload it refused (413): nothing to see


@dataclass
class Door:
    url: str
    port: int
    proc_pid: int
    state: Path


@pytest.fixture(scope="module")
def door(redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Door]:
    logs = tmp_path_factory.mktemp("front-door")
    echo = QuietServer(("127.0.0.1", 0), Echo)
    thread = threading.Thread(target=echo.serve_forever, daemon=True)
    thread.start()
    sup = Supervisor()
    try:
        ludix, port = free_port(), free_port()
        start_service(sup, "ludix", ludix, redis_url, ROOT, logs / "ludix.log")
        proc = start_front_door(sup, port, {"echo": f"http://127.0.0.1:{echo.server_address[1]}",
                                            "ludix": f"127.0.0.1:{ludix}", "nowhere": f"127.0.0.1:{free_port()}"},
                                ROOT, logs / "front-door.log")
        yield Door(f"http://127.0.0.1:{port}", port, proc.pid, logs / f"{FRONT_DOOR}-{port}")
    finally:
        sup.stop()
        echo.shutdown()
        echo.server_close()


def test_the_prefix_is_stripped_and_forwarded(door: Door) -> None:
    seen = requests.get(f"{door.url}/echo/a/b?x=1&y=%2F", headers={"X-Forwarded-Prefix": "/spoofed"},
                        timeout=10).json()
    assert seen["path"] == "/a/b?x=1&y=%2F"
    assert seen["headers"]["X-Forwarded-Prefix"] == "/echo"
    assert requests.get(f"{door.url}/echo", timeout=10).json()["path"] == "/"


def test_x_forwarded_for_is_appended_to(door: Door) -> None:
    seen = requests.get(f"{door.url}/echo/", timeout=10).json()
    assert seen["headers"]["X-Forwarded-For"] == "127.0.0.1"
    seen = requests.get(f"{door.url}/echo/", headers={"X-Forwarded-For": "203.0.113.7, 198.51.100.2",
                                                      "X-Forwarded-Proto": "https",
                                                      "X-Forwarded-Host": "evil.example"},
                        timeout=10).json()
    assert seen["headers"]["X-Forwarded-For"] == "203.0.113.7, 198.51.100.2, 127.0.0.1"
    # what the request came as, whatever the client claims
    assert seen["headers"]["X-Forwarded-Proto"] == "http"
    assert seen["headers"]["X-Forwarded-Host"] == f"127.0.0.1:{door.port}"


def test_the_service_keeps_the_prefix_in_its_links(door: Door) -> None:
    r = requests.post(f"{door.url}/ludix/games", json={"seats": ["human", "human"]}, timeout=10)
    assert r.status_code == 201, r.text
    assert r.headers["Location"].startswith("/ludix/games/"), r.headers["Location"]
    docs = requests.get(f"{door.url}/ludix/docs", timeout=10)
    assert docs.status_code == 200 and "/ludix/openapi.json" in docs.text


def test_the_served_document_sends_try_it_out_through_the_prefix(door: Door) -> None:
    """What Swagger UI at /ludix/docs does: read the servers of the document it loaded (a
    relative URL resolves against the document's own), and call an operation there."""
    spec_url = f"{door.url}/ludix/openapi.json"
    spec = requests.get(spec_url, timeout=10).json()
    assert [s["url"] for s in spec["servers"]] == ["/ludix", "{base}"]
    base = urljoin(spec_url, spec["servers"][0]["url"])
    assert base == f"{door.url}/ludix"
    assert requests.get(f"{base}/stats", timeout=10).status_code == 200
    r = requests.post(f"{base}/games", json={"seats": ["human", "human"]}, timeout=10)
    assert r.status_code == 201, r.text


def test_a_cors_preflight_passes_through_the_front_door(redis_url: str, tmp_path: Path) -> None:
    """A service with ``LUDOTECA_CORS_ORIGINS`` set, behind Caddy: the browser's preflight
    (``OPTIONS`` with ``Access-Control-Request-*``) reaches it and its answer comes back whole."""
    origin = "https://app.example"
    sup = Supervisor()
    try:
        service, port = free_port(), free_port()
        start_service(sup, "ludix", service, redis_url, ROOT, tmp_path / "ludix.log",
                      env={"LUDOTECA_CORS_ORIGINS": origin})
        start_front_door(sup, port, {"ludix": f"127.0.0.1:{service}"}, ROOT, tmp_path / "front-door.log")
        base = f"http://127.0.0.1:{port}/ludix"
        r = requests.options(f"{base}/games", timeout=10, headers={
            "Origin": origin, "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type, authorization, idempotency-key"})
        assert r.status_code == 204, (r.status_code, r.text)
        assert r.headers["Access-Control-Allow-Origin"] == origin
        assert "idempotency-key" in r.headers["Access-Control-Allow-Headers"].lower()
        created = requests.post(f"{base}/games", json={"seats": ["human", "human"]}, headers={"Origin": origin},
                                timeout=10)
        assert created.status_code == 201 and created.headers["Access-Control-Allow-Origin"] == origin
        assert "Location" in created.headers["Access-Control-Expose-Headers"]
        other = requests.get(f"{base}/stats", headers={"Origin": "https://evil.example"}, timeout=10)
        assert other.status_code == 200 and "Access-Control-Allow-Origin" not in other.headers
    finally:
        sup.stop()


def test_bodies_pass_whole_chunked_or_not(door: Door) -> None:
    big = "x" * Settings.max_body_bytes  # the largest a service takes, larger than one relayed block
    for body in ("hello", big):
        seen = requests.post(f"{door.url}/echo/in", data=body, timeout=30).json()
        assert seen["body"] == body and seen["headers"]["Content-Length"] == str(len(body))

    def pieces() -> Iterator[bytes]:
        yield b'{"seats": '
        yield b'["human", "human"]}'

    seen = requests.post(f"{door.url}/echo/in", data=pieces(), timeout=30).json()  # requests sends it chunked
    # read whole by the front door before the service is called, then passed on as it came
    assert seen["chunked"] and seen["body"] == '{"seats": ["human", "human"]}'
    r = requests.post(f"{door.url}/ludix/games", data=pieces(), headers={"Content-Type": "application/json"},
                      timeout=30)
    assert r.status_code == 201, r.text
    assert r.json()["game"]["seats"][1]["kind"] == "human"


def test_upstream_connections_are_kept_alive(door: Door) -> None:
    s = requests.Session()
    peers = {tuple(s.get(f"{door.url}/echo/{i}", timeout=10).json()["peer"]) for i in range(5)}
    assert len(peers) == 1, peers  # one upstream connection, used again


@pytest.mark.parametrize(("path", "first", "second"), [("/echo/slow", b"first", b"second"),
                                                       ("/echo/sse", b"data: first", b"data: second")])
def test_a_stream_is_relayed_as_it_comes(door: Door, path: str, first: bytes, second: bytes) -> None:
    Echo.release.clear()
    with socket.create_connection(("127.0.0.1", door.port), timeout=20) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while first not in data:  # a proxy holding it back until the end times out here
            chunk = s.recv(65536)
            assert chunk, data
            data += chunk
        assert second not in data
        Echo.release.set()
        while chunk:
            chunk = s.recv(65536)
            data += chunk
    assert data.startswith(b"HTTP/1.1 200") and second in data


def test_a_long_poll_answers_with_the_event_that_ended_it(door: Door) -> None:
    s = requests.Session()
    r = s.post(f"{door.url}/ludix/games", json={"seats": ["human", "human"]}, timeout=10)
    gid = r.json()["game"]["id"]
    last = s.get(f"{door.url}/ludix/games/{gid}/events", timeout=10).json()["last_seq"]
    answer: dict[str, requests.Response] = {}

    def poll() -> None:
        answer["r"] = requests.get(f"{door.url}/ludix/games/{gid}/events", params={"after": last, "wait": 30},
                                   timeout=60)

    waiting = threading.Thread(target=poll)
    waiting.start()
    # the join wakes it whenever it arrives (if the poll is sent after the join, it finds the event)
    assert s.post(f"{door.url}/ludix/games/{gid}/players", json={}, timeout=10).status_code == 201
    waiting.join(60)
    r = answer["r"]
    assert r.status_code == 200, r.text
    assert r.json()["events"], r.json()  # the join, not a wait that ran out empty


def test_errors_of_the_front_door_are_problems(door: Door) -> None:
    cases = (("GET", "/chess/games", 404, None), ("GET", "/ludixx", 404, None),
             ("GET", "/nowhere/games", 502, "nowhere"),
             ("POST", "/echo/in", 413, None))
    for method, path, status, word in cases:
        body = b"x" * (Settings.max_body_bytes + 1) if status == 413 else None
        r = requests.request(method, f"{door.url}{path}", data=body, timeout=30)
        assert r.status_code == status, (path, r.status_code, r.text)
        assert r.headers["Content-Type"] == PROBLEM, (path, r.headers)
        problem = r.json()
        assert problem["status"] == status and problem["title"] and problem["detail"], problem
        assert problem["type"].startswith("https://ludoteca.dev/problems/"), problem
        assert word is None or word in problem["detail"], problem
        assert r.headers["Connection"] == "close", (path, r.headers)  # see test_nothing_is_smuggled_...
    # a chunked body is bounded too, as it streams (the service's own bound is lower still)
    r = requests.post(f"{door.url}/echo/in", data=(b"x" * 65536 for _ in range(32)), timeout=30)
    assert r.status_code == 413 and r.headers["Content-Type"] == PROBLEM, (r.status_code, r.text[:300])


def test_the_root_lists_the_mounted_games(door: Door) -> None:
    r = requests.get(f"{door.url}/", timeout=10)
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/json"
    assert r.json() == {"games": {"echo": "/echo/", "ludix": "/ludix/", "nowhere": "/nowhere/"}}
    health = requests.get(f"{door.url}/healthz", timeout=10)
    assert health.status_code == 200 and health.json()["status"] == "ok"


def test_a_browser_at_the_root_gets_the_playground(door: Door) -> None:
    """The same ``/``: JSON for a client (above), the playground's page for a browser."""
    accept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"  # a browser's navigation
    page = requests.get(f"{door.url}/", headers={"Accept": accept}, timeout=10)
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html"), page.headers
    assert page.text == (PLAYGROUND / "index.html").read_text()
    assert "Accept" in page.headers["Vary"]
    assert page.headers["Content-Security-Policy"].startswith("default-src 'none'; script-src 'self';")
    for name in ("playground.js", "playground.css", "favicon.svg"):
        asset = requests.get(f"{door.url}/playground/{name}", timeout=10)
        assert asset.status_code == 200 and asset.content == (PLAYGROUND / name).read_bytes(), name
    assert requests.get(f"{door.url}/", headers={"Accept": "application/json"}, timeout=10).json()["games"]
    missing = requests.get(f"{door.url}/playground/nothing.js", timeout=10)
    assert missing.status_code == 404 and missing.headers["Content-Type"] == PROBLEM


def _listening_ports(pid: int) -> set[int]:
    """The TCP ports process ``pid`` listens on (from /proc: its socket inodes in LISTEN state)."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                    ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def test_caddy_listens_on_its_port_only_and_keeps_its_state_in_the_stack(door: Door) -> None:
    assert _listening_ports(door.proc_pid) == {door.port}  # no admin endpoint, no HTTPS port
    assert (door.state / "Caddyfile").is_file() and (door.state / "data").is_dir()
    environ = dict(item.split("=", 1) for item in
                   Path(f"/proc/{door.proc_pid}/environ").read_text().split("\0") if "=" in item)
    assert environ["XDG_DATA_HOME"] == str(door.state / "data")
    assert environ["XDG_CONFIG_HOME"] == str(door.state / "config")


def test_a_dead_front_door_is_started_again_and_stopped_with_the_stack(tmp_path: Path) -> None:
    sup = Supervisor()
    port = free_port()
    try:
        proc = start_front_door(sup, port, {"nowhere": f"127.0.0.1:{free_port()}"}, ROOT, tmp_path / "door.log")
        proc.kill()
        proc.wait(10)
        assert sup.dead() == [FRONT_DOOR]
        assert sup.restart_dead([FRONT_DOOR], min_interval=0) == [FRONT_DOOR]
        assert wait_http(f"http://127.0.0.1:{port}/healthz", 30)
        again = sup.procs[FRONT_DOOR]
        assert again.pid != proc.pid
    finally:
        sup.stop()
    assert again.poll() is not None
    assert not port_open(port)


SMUGGLED_GAME = json.dumps({"seats": ["human", "human"]}).encode()


def smuggled(request_id: str) -> bytes:
    """A complete ``POST /ludix/games``, to be hidden in another request's body."""
    return (b"POST /ludix/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"X-Request-Id: %s\r\nContent-Length: %d\r\n\r\n%s" % (request_id.encode(), len(SMUGGLED_GAME),
                                                                    SMUGGLED_GAME))


def exchange(port: int, data: bytes, timeout: float = 20) -> tuple[bytes, bool]:
    """Send ``data`` on a new connection while reading what comes back (a reader thread: the
    front door may stop reading a refused body, and a reset may discard what was not read yet):
    (every byte received, whether the front door closed the connection within ``timeout``)."""
    got: list[bytes] = []
    closed = threading.Event()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        def read() -> None:
            try:
                while chunk := s.recv(65536):
                    got.append(chunk)
                closed.set()
            except ConnectionResetError:
                closed.set()
            except OSError:  # the timeout: still open
                pass

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        with contextlib.suppress(OSError):  # a reset while sending: the door stopped reading
            s.sendall(data)
        reader.join(timeout + 5)
    return b"".join(got), closed.is_set()


@pytest.mark.parametrize("framing", ["length, the rest under 256 KiB", "length, the rest over 256 KiB", "chunked"])
def test_nothing_is_smuggled_in_the_rest_of_a_refused_body(door: Door, framing: str) -> None:
    """Issue 20, finding 2: a body over the front door's limit gets 413 and the connection is
    closed, so what the client sent after the limit is never read as a request of its own (was:
    Caddy answered 413, read on, and proxied the ``POST /ludix/games`` hidden after the first
    megabyte: 413 then 201, and the game existed)."""
    rid = f"smuggled-{uuid.uuid4().hex}"
    over = b"a" * (Settings.max_body_bytes + 1)
    if framing == "chunked":  # the refused body ends, then a request follows on the connection
        request = (b"POST /ludix/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                   b"Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n" % (len(over), over)) + smuggled(rid)
    else:
        pad = b"b" * (300_000 if "over" in framing else 0)
        body = over + smuggled(rid) + pad
        request = (b"POST /ludix/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                   b"Content-Length: %d\r\n\r\n" % len(body)) + body
    data, closed = exchange(door.port, request)
    assert data.startswith(b"HTTP/1.1 413 "), data[:300]
    head, _, problem = data.partition(b"\r\n\r\n")
    assert b"\r\nConnection: close\r\n" in head and b"application/problem+json" in head, head
    assert json.loads(problem)["status"] == 413
    assert data.count(b"HTTP/1.1 ") == 1, data  # no second answer
    assert closed, "the connection stayed open after the 413"
    time.sleep(1)  # what was sent after the limit, had it been read, would be logged by now
    logs = door.state.parent
    assert rid not in (logs / "ludix.log").read_text()  # the service never saw it
    assert rid not in (logs / "front-door.log").read_text()  # nor did the front door route it


def test_a_body_within_the_limit_keeps_its_connection(door: Door) -> None:
    """The other side of the rule: a body read to its end leaves the connection open for the
    next request (the hidden request inside it is body, refused by the service as bad JSON)."""
    rid = f"inside-{uuid.uuid4().hex}"
    body = smuggled(rid)
    request = (b"POST /ludix/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
    with socket.create_connection(("127.0.0.1", door.port), timeout=20) as s:
        s.sendall(request + b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        data = b""
        while data.count(b"HTTP/1.1 ") < 2 or not data.endswith(b"}"):
            chunk = s.recv(65536)
            assert chunk, data
            data += chunk
    assert data.startswith(b"HTTP/1.1 400 ") and b"HTTP/1.1 200 OK" in data, data
    assert rid not in (door.state.parent / "ludix.log").read_text()


@pytest.mark.parametrize("path", ["/ludix/metrics", "/ludix/metrics/", "/ludix//metrics", "/ludix/./metrics",
                                  "/ludix/x/../metrics", "/ludix/%6detrics", "/LUDIX/metrics", "/ludix/metrics?x=1"])
def test_a_services_metrics_are_not_public(door: Door, path: str) -> None:
    """Issue 20, finding 8: ``/<game>/metrics`` is for Prometheus on the service's own port, not
    for the public through the front door (was: 200 and every series)."""
    with socket.create_connection(("127.0.0.1", door.port), timeout=20) as s:  # the path exactly as written
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 404 ") or head.startswith(b"HTTP/1.1 3"), head  # a redirect ends here too
    assert b"ludoteca_" not in body, body[:300]
    if head.startswith(b"HTTP/1.1 404 "):
        assert b"application/problem+json" in head and json.loads(body)["status"] == 404


def test_metrics_stay_on_the_services_port_or_public_by_setting(door: Door) -> None:
    service, = re.findall(r"handle @ludix \{.*?reverse_proxy 127\.0\.0\.1:(\d+) ",
                          (door.state / "Caddyfile").read_text(), re.DOTALL)
    direct = requests.get(f"http://127.0.0.1:{service}/metrics", timeout=10)
    assert direct.status_code == 200 and "ludoteca_" in direct.text  # where Prometheus scrapes
    routes = {"ludix": "127.0.0.1:8004"}
    assert "not path /ludix/metrics*" in caddyfile(routes, env={})
    assert "metrics" not in caddyfile(routes, env={"LUDOTECA_PUBLIC_METRICS": "1"})
