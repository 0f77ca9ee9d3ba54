"""Reading server-sent events in tests: a parser of ``text/event-stream`` bytes (the HTML
standard's rules for the fields the services send), a stream reader over a raw socket (so a
test can cut the connection where it likes and see exactly when each byte arrives) and a crowd
of streams held open by one thread (tests/integration/test_streams.py)."""

from __future__ import annotations

import contextlib
import json
import selectors
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit


@dataclass
class Message:
    """One dispatched block: ``event`` (``message`` when unnamed), ``id`` (None: none), ``data``
    (parsed JSON when it is JSON); ``comment``: a comment-only block (a heartbeat)."""

    event: str = "message"
    id: str | None = None
    data: Any = None
    retry: int | None = None
    comment: str | None = None

    @property
    def seq(self) -> int:
        assert self.id is not None
        return int(self.id)


@dataclass
class Parser:
    """Feed bytes, take the complete blocks."""

    buf: bytes = b""
    messages: list[Message] = field(default_factory=list)

    def feed(self, chunk: bytes) -> list[Message]:
        self.buf += chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        out = []
        while b"\n\n" in self.buf:
            block, self.buf = self.buf.split(b"\n\n", 1)
            out.append(parse_block(block.decode()))
        self.messages += out
        return out


def parse_block(block: str) -> Message:
    m = Message()
    data: list[str] = []
    for line in block.split("\n"):
        if line.startswith(":"):
            m.comment = line[1:].strip()
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            data.append(value)
        elif name == "id":
            m.id = value
        elif name == "event":
            m.event = value
        elif name == "retry":
            m.retry = int(value)
    if data:
        text = "\n".join(data)
        try:
            m.data = json.loads(text)
        except ValueError:
            m.data = text
    return m


def events_of(messages: list[Message]) -> list[Message]:
    """The event messages (not comments, ``retry`` or ``end``)."""
    return [m for m in messages if m.event == "message" and m.id is not None]


class Decoder:
    """An HTTP/1.1 answer as it arrives: the status line, the headers, the body (chunked or
    not) fed to a :class:`Parser`; ``ended`` once a chunked body's last chunk came."""

    def __init__(self) -> None:
        self.raw = b""
        self.status = 0
        self.headers: dict[str, str] = {}
        self.ended = False
        self.parser = Parser()
        self._chunked = False

    def feed(self, chunk: bytes) -> None:
        self.raw += chunk
        if not self.status:
            head, sep, rest = self.raw.partition(b"\r\n\r\n")
            if not sep:
                return
            lines = head.decode("latin-1").split("\r\n")
            self.status = int(lines[0].split()[1])
            for line in lines[1:]:
                name, _, value = line.partition(":")
                self.headers[name.strip().lower()] = value.strip()
            self._chunked = self.headers.get("transfer-encoding", "").lower() == "chunked"
            self.raw = rest
        if not self._chunked:
            self.parser.feed(self.raw)
            self.raw = b""
            return
        while not self.ended:
            size_line, sep, rest = self.raw.partition(b"\r\n")
            if not sep:
                return
            size = int(size_line.split(b";")[0], 16)
            if len(rest) < size + 2:
                return
            if size == 0:
                self.ended = True
            else:
                self.parser.feed(rest[:size])
            self.raw = rest[size + 2:]

    @property
    def messages(self) -> list[Message]:
        return self.parser.messages


def request_bytes(url: str, headers: dict[str, str] | None = None) -> tuple[tuple[str, int], bytes]:
    parts = urlsplit(url)
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    head = [f"GET {path} HTTP/1.1", f"Host: {parts.netloc}", "Accept: text/event-stream"]
    head += [f"{k}: {v}" for k, v in (headers or {}).items()]
    return (parts.hostname or "127.0.0.1", parts.port or 80), ("\r\n".join(head) + "\r\n\r\n").encode()


class RawStream:
    """``GET <url>`` as an event stream on a raw socket of its own (blocking reads)."""

    def __init__(self, url: str, headers: dict[str, str] | None = None, timeout: float = 10.0) -> None:
        address, request = request_bytes(url, headers)
        self.sock = socket.create_connection(address, timeout=timeout)
        self.sock.sendall(request)
        self.http = Decoder()
        self.closed = False
        while not self.http.status:
            self._recv()

    @property
    def status(self) -> int:
        return self.http.status

    @property
    def headers(self) -> dict[str, str]:
        return self.http.headers

    def _recv(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            self.closed = True
            if not self.http.status:
                raise ConnectionError("closed before the status line")
            return
        self.http.feed(chunk)
        self.closed = self.closed or self.http.ended

    def read_until(self, done: Any, timeout: float) -> list[Message]:
        """Read until ``done(messages so far)`` or the stream ends; ``TimeoutError`` past
        ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while not done(self.http.messages) and not self.closed:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"not done after {timeout} s; got {len(self.http.messages)} messages")
            self.sock.settimeout(left)
            try:
                self._recv()
            except TimeoutError:
                raise TimeoutError(f"nothing more within {timeout} s; got {len(self.http.messages)} messages") \
                    from None
        return self.http.messages

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()


@dataclass
class _Member:
    url: str
    headers: dict[str, str]
    sock: socket.socket | None = None
    http: Decoder = field(default_factory=Decoder)
    seen: list[Message] = field(default_factory=list)
    """Every message of every connection, in order."""
    connections: int = 0

    @property
    def last_id(self) -> str | None:
        ids = [m.id for m in self.seen if m.id is not None]
        return ids[-1] if ids else None


class StreamCrowd:
    """Many event streams held open by one selector thread; a stream the server ends (its
    lifetime) is opened again with ``Last-Event-ID``, as an EventSource would."""

    def __init__(self, urls: list[str], headers: dict[str, str] | None = None) -> None:
        self.members = [_Member(u, dict(headers or {})) for u in urls]
        self.sel = selectors.DefaultSelector()
        self.lock = threading.Lock()
        self.errors: list[str] = []
        self.statuses: dict[int, int] = {}
        self.stopping = False
        self.thread = threading.Thread(target=self._run, name="event-streams", daemon=True)

    def start(self) -> None:
        for m in self.members:
            self._open(m)
        self.thread.start()

    def _open(self, m: _Member) -> None:
        headers = dict(m.headers)
        if m.last_id is not None:
            headers["Last-Event-ID"] = m.last_id
        address, request = request_bytes(m.url, headers)
        m.sock = socket.create_connection(address, timeout=10)
        m.sock.sendall(request)
        m.sock.setblocking(False)
        m.http = Decoder()
        m.connections += 1
        self.sel.register(m.sock, selectors.EVENT_READ, m)

    def _close(self, m: _Member) -> None:
        if m.sock is not None:
            self.sel.unregister(m.sock)
            m.sock.close()
            m.sock = None

    def open_count(self) -> int:
        """Streams answered 200 and not ended."""
        with self.lock:
            return sum(1 for m in self.members if m.sock is not None and m.http.status == 200 and not m.http.ended)

    def _run(self) -> None:
        while not self.stopping:
            for key, _ in self.sel.select(timeout=0.2):
                m: _Member = key.data
                try:
                    chunk = m.sock.recv(65536) if m.sock is not None else b""
                except BlockingIOError:
                    continue
                except OSError as err:
                    self.errors.append(f"{m.url}: {err}")
                    chunk = b""
                with self.lock:
                    before = len(m.http.messages)
                    if chunk:
                        m.http.feed(chunk)
                    m.seen += m.http.messages[before:]
                    if not chunk or m.http.ended:
                        self.statuses[m.http.status] = self.statuses.get(m.http.status, 0) + 1
                        if m.http.status != 200:
                            self.errors.append(f"{m.url}: {m.http.status} {m.http.raw[:200]!r}")
                        self._close(m)
                        if m.http.status == 200 and not self.stopping:
                            self._open(m)  # the server closed it (its lifetime): go on where it was

    def stop(self) -> None:
        self.stopping = True
        self.thread.join(5)
        for m in self.members:
            self._close(m)
        self.sel.close()
