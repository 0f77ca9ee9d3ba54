"""gunicorn worker classes whose own errors are RFC 9457 problem details.

gunicorn answers what it rejects before the application sees it (a malformed request line 400,
a too-long URI 414, too many or too large header fields 431, a bad chunked body 400, an
application crash 500) with a small HTML page. These workers keep gunicorn's classification
and logging (``Worker.handle_error``) and only change what it writes: an
``application/problem+json`` document like every other error of the services and the front door.

``deploy/gunicorn.conf.py`` picks one of them (``GUNICORN_WORKER_CLASS``):

* :class:`GeventWorker` (the default): one greenlet per connection, so an idle long-poll costs a
  few kilobytes and no thread; the standard library is monkey-patched in the worker process
  before the application is imported (redis-py, kombu, urllib3 and Flask then cooperate).
* :class:`ThreadWorker`: gunicorn's threaded worker (one thread per request in flight), kept
  for comparison (``make bench``) and for code that must not run under gevent.

Both also send a response's head and its first body bytes in one ``send`` (:class:`OneSendResponse`):
gunicorn writes them with two, and on loopback each system call is a measurable share of a move.

This module is imported by gunicorn's master process as well: it imports nothing of the
services (no Flask, no Redis client, no module-level lock that would be created before the
worker's monkey-patching).
"""

from __future__ import annotations

import http
import json
import socket
import time
from typing import Any

from gunicorn import util
from gunicorn.http import wsgi
from gunicorn.workers import base, ggevent, gthread

TYPE_BASE = "https://ludoteca.dev/problems/"  # the same as ludoteca.adapters.hosting.problems.TYPE_BASE
MAX_DETAIL = 300  # gunicorn's messages quote the client's input: keep the echo short


def problem_bytes(status: int, reason: str, detail: str) -> bytes:
    """The whole HTTP/1.1 response (head and body) for one of gunicorn's own errors."""
    try:
        title = http.HTTPStatus(status).phrase
    except ValueError:
        title = reason or "Error"
    if len(detail) > MAX_DETAIL:
        detail = detail[:MAX_DETAIL] + "..."
    if not detail:
        detail = ("The server could not handle the request." if status >= 500
                  else "The server could not read the request.")
    slug = title.lower().replace(" ", "-").replace("'", "")
    body = json.dumps({"type": TYPE_BASE + slug, "title": title, "status": status, "detail": detail}).encode()
    head = (f"HTTP/1.1 {status} {title}\r\nConnection: close\r\n"
            f"Content-Type: application/problem+json\r\nContent-Length: {len(body)}\r\n\r\n")
    return head.encode("latin-1") + body


LINGER_SECONDS = 1.0
LINGER_BYTES = 1 << 20


def linger(sock: Any, seconds: float = LINGER_SECONDS, limit: int = LINGER_BYTES) -> None:
    """A bounded lingering close (nginx's ``lingering_close``): half-close, then read and drop
    what the client still sends, until it closes, ``limit`` bytes or ``seconds``. gunicorn
    refuses a request it has not read to the end (a 9 KB request line stops at 4 KB); closing a
    socket with unread input sends a reset, and a reset that arrives before the client has read
    the answer destroys it (the front door then saw a broken connection and answered 502
    instead of passing the 414 on)."""
    try:
        sock.shutdown(socket.SHUT_WR)
        deadline = time.monotonic() + seconds
        got = 0
        while got < limit:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            sock.settimeout(left)
            data = sock.recv(65536)
            if not data:
                break
            got += len(data)
    except OSError:  # the client is gone or slow: gunicorn closes the socket next either way
        pass


def write_problem(sock: Any, status_int: int, reason: str, mesg: str) -> None:
    """Drop-in for ``gunicorn.util.write_error`` (same signature), writing problem+json; then
    :func:`linger`, so the answer reaches the client before the connection closes."""
    util.write_nonblock(sock, problem_bytes(int(status_int), str(reason), str(mesg or "")))
    linger(sock)


class OneSendResponse(wsgi.Response):
    """gunicorn's response, sending its head together with the first body bytes.

    gunicorn's ``write`` sends the head (``send_headers``) and then the body: two system calls
    (and, under gevent, two trips through the hub) for every answer of a few hundred bytes.
    Here the first write of a response with a known framing puts both on the wire in one
    ``sendall``; chunked, streamed (long-polls, event streams), body-less (HEAD, 204, 304) and
    file responses take gunicorn's own path unchanged, and so does every later write."""

    headers_sent: bool

    def write(self, arg: bytes) -> None:
        if (self.headers_sent or self.chunked or self._omits_body
                or not isinstance(arg, bytes) or not arg):
            super().write(arg)
            return
        if self.response_length is not None:
            arg = arg[:self.response_length]  # never more than Content-Length (as gunicorn)
        head = self.default_headers()
        head.extend(f"{k}: {v}\r\n" for k, v in self.headers)
        self.headers_sent = True
        self.sent += len(arg)
        util.write(self.sock, util.to_bytestring("".join(head) + "\r\n", "latin-1") + arg)


class ProblemErrors(base.Worker):
    """Mixin: gunicorn's own error responses become problem+json.

    ``Worker.handle_error`` classifies the exception, logs it and then calls
    ``gunicorn.util.write_error``: in a worker process of ours that function writes problem+json
    (the override installs it, then lets gunicorn do the rest).
    """

    def init_process(self) -> None:
        # ``gunicorn.http.wsgi.create`` builds each response from this module-level name: in our
        # worker processes only, it builds ours (the master and other programs keep gunicorn's)
        wsgi.Response = OneSendResponse
        super().init_process()

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        # Only our worker processes run this: gunicorn's master and other programs keep HTML.
        util.write_error = write_problem
        super().handle_error(req, client, addr, exc)


class GeventWorker(ProblemErrors, ggevent.GeventWorker):
    """gunicorn's gevent worker (its own HTTP parser), with problem+json errors."""


class ThreadWorker(ProblemErrors, gthread.ThreadWorker):
    """gunicorn's threaded worker, with problem+json errors."""


def install_body_errors(app: Any) -> None:
    """A Flask app served by these workers: a malformed chunked body (or one the client broke
    off) raises gunicorn's parser error inside the application, where the body is read; answer
    it as gunicorn answers its own parse errors, 400 problem+json, not as a crash (500)."""
    from gunicorn.http.errors import ChunkMissingTerminator, InvalidChunkExtension, InvalidChunkSize, NoMoreData
    from ludoteca.adapters.hosting.problems import problem_response

    def _bad_body(err: Exception) -> Any:
        detail = ("The request body ended before its declared length." if isinstance(err, NoMoreData)
                  else f"The request body's chunked encoding is malformed ({err}).")
        return problem_response(400, "bad-request", "Bad Request", detail[:MAX_DETAIL])

    for exc in (InvalidChunkSize, ChunkMissingTerminator, InvalidChunkExtension, NoMoreData):
        app.register_error_handler(exc, _bad_body)
