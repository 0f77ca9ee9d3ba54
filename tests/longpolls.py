"""A crowd of idle long-polls (``GET .../events?after=N&wait=S``) held open by one thread.

Each long-poll is a raw keep-alive socket; one selector thread sends the requests and reads the
answers, so hundreds of them cost the client almost nothing (used by tests/integration/
test_starvation.py and tests/bench/bench_api.py). With ``reissue`` a long-poll that returns is
sent again (after its ``last_seq``), so the crowd stays open until :meth:`stop`.
"""

from __future__ import annotations

import json
import selectors
import socket
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit


@dataclass
class _Poll:
    host: str
    port: int
    path: str  # e.g. /ludix/games/<id>/events
    after: int
    sock: socket.socket | None = None
    buf: bytes = b""
    sent_at: float = 0.0
    open: bool = False


@dataclass
class CrowdReport:
    opened: int = 0
    statuses: dict[int, int] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    durations: list[float] = field(default_factory=list)

    @property
    def returned(self) -> int:
        return sum(self.statuses.values())


class LongPollCrowd:
    def __init__(self, urls: list[tuple[str, int]], wait: float = 30.0, reissue: bool = False) -> None:
        """``urls``: (events URL without query, the ``after`` to start from), one per long-poll."""
        self.wait = wait
        self.reissue = reissue
        self.polls = []
        for url, after in urls:
            parts = urlsplit(url)
            self.polls.append(_Poll(parts.hostname or "127.0.0.1", parts.port or 80, parts.path, after))
        self.report = CrowdReport()
        self.sel = selectors.DefaultSelector()
        self.lock = threading.Lock()
        self.stopping = False
        self.abort = False
        self.thread = threading.Thread(target=self._run, name="long-polls", daemon=True)

    # -- control --------------------------------------------------------------------------------
    def start(self, timeout: float = 60.0) -> None:
        """Connect and send every long-poll; returns once all were sent."""
        for p in self.polls:
            p.sock = socket.create_connection((p.host, p.port), timeout=10)
            p.sock.setblocking(False)
            self.sel.register(p.sock, selectors.EVENT_READ, p)
            self._send(p)
        self.report.opened = len(self.polls)
        self.thread.start()

    def open_count(self) -> int:
        with self.lock:
            return sum(1 for p in self.polls if p.open)

    def stop(self, timeout: float = 90.0) -> CrowdReport:
        """Stop reissuing and wait (up to ``timeout``) for every open long-poll to return."""
        self.stopping = True
        deadline = time.monotonic() + timeout
        while self.open_count() and time.monotonic() < deadline:
            time.sleep(0.1)
        left = self.open_count()
        if left:
            self.report.errors.append(f"{left} long-polls still open after {timeout:.0f} s")
        self.abort = True
        self.thread.join(5)
        for p in self.polls:
            if p.sock is not None:
                self.sel.unregister(p.sock)
                p.sock.close()
                p.sock = None
        self.sel.close()
        return self.report

    # -- the selector loop -----------------------------------------------------------------------
    def _send(self, p: _Poll) -> None:
        assert p.sock is not None
        req = (f"GET {p.path}?after={p.after}&wait={self.wait:g} HTTP/1.1\r\nHost: {p.host}:{p.port}\r\n"
               f"Accept: application/json\r\n\r\n").encode()
        p.sock.setblocking(True)
        p.sock.sendall(req)
        p.sock.setblocking(False)
        p.sent_at = time.monotonic()
        with self.lock:
            p.open = True

    def _run(self) -> None:
        while True:
            if self.abort or (self.stopping and not self.open_count()):
                return
            for key, _ in self.sel.select(timeout=0.2):
                p: _Poll = key.data
                try:
                    chunk = p.sock.recv(65536) if p.sock is not None else b""
                except BlockingIOError:
                    continue
                except OSError as err:
                    chunk = b""
                    self.report.errors.append(f"{p.path}: {err}")
                if not chunk:
                    self._closed(p)
                    continue
                p.buf += chunk
                self._parse(p)

    def _closed(self, p: _Poll) -> None:
        if p.open:
            self.report.errors.append(f"{p.path}: connection closed before an answer")
        with self.lock:
            p.open = False
        if p.sock is not None:
            self.sel.unregister(p.sock)
            p.sock.close()
            p.sock = None

    def _parse(self, p: _Poll) -> None:
        head, sep, rest = p.buf.partition(b"\r\n\r\n")
        if not sep:
            return
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        length = 0
        for line in lines[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        if len(rest) < length:
            return
        body, p.buf = rest[:length], rest[length:]
        self.report.statuses[status] = self.report.statuses.get(status, 0) + 1
        self.report.durations.append(time.monotonic() - p.sent_at)
        with self.lock:
            p.open = False
        if status == 200:
            try:
                p.after = int(json.loads(body)["last_seq"])
            except (ValueError, KeyError) as err:
                self.report.errors.append(f"{p.path}: bad body {body[:100]!r} ({err})")
        else:
            self.report.errors.append(f"{p.path}: {status} {body[:200]!r}")
        if self.reissue and not self.stopping and p.sock is not None:
            self._send(p)
