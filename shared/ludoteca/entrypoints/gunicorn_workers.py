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
import io
import json
import os
import resource
import socket
import time
from typing import Any

import gevent
from gunicorn import util
from gunicorn.http import wsgi
from gunicorn.http.body import ChunkedReader, LengthReader
from gunicorn.workers import base, ggevent, gthread
from ludoteca.entrypoints.admission import (
    Admission,
    HoldStarts,
    Limits,
    Refusal,
    close_after_response,
    hold_of,
)

TYPE_BASE = "https://ludoteca.dev/problems/"  # the same as ludoteca.adapters.hosting.problems.TYPE_BASE
MAX_DETAIL = 300  # gunicorn's messages quote the client's input: keep the echo short


def problem_bytes(status: int, reason: str, detail: str, retry_after: int | None = None) -> bytes:
    """The whole HTTP/1.1 response (head and body) for one of gunicorn's own errors or of the
    worker's refusals (with ``Retry-After`` when given)."""
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
    retry = f"Retry-After: {retry_after}\r\n" if retry_after is not None else ""
    head = (f"HTTP/1.1 {status} {title}\r\nConnection: close\r\n{retry}"
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


def refuse(sock: Any, refusal: Refusal, seconds: float) -> bool:
    """Answer a refused connection or request at once (problem+json, ``Retry-After``), then a
    lingering close of at most ``seconds`` (0: none): the connection goes, the client still
    reads why. False: the client is gone."""
    try:
        sock.settimeout(REFUSAL_SECONDS)
        sock.sendall(problem_bytes(refusal.status, "", refusal.detail, refusal.retry_after))
        if seconds > 0:
            linger(sock, seconds)
        else:
            sock.shutdown(socket.SHUT_WR)
    except OSError:
        return False
    return True


REFUSAL_SECONDS = 1.0
LINGERING = 256
"""Refused connections a worker lets linger at once (each a file descriptor, for at most
REFUSAL_SECONDS, outside the connection pool); past them a refusal closes at once."""
CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"


ACCEPT_BATCH = 64


class BatchAcceptServer(ggevent.StreamServer):
    """gevent's server accepting up to :data:`ACCEPT_BATCH` connections a turn of the loop
    (gunicorn sets ``max_accept = 1`` with several workers, to share connections between them).

    One at a time, a burst of connections (1,000 streams opened at once) waits in the kernel's
    listen queue, first in first out, and a move that arrives behind it waited for the whole burst
    to be accepted and parsed: 20 s under load. Accepted at once, the burst waits in the worker
    (the streams for their turn to start, :class:`~ludoteca.entrypoints.admission.HoldStarts`)
    and the move is served in its turn; the admission keeps any one worker within its capacity."""

    @property
    def max_accept(self) -> int:
        return ACCEPT_BATCH

    @max_accept.setter
    def max_accept(self, value: int) -> None:
        pass


def header(req: Any, name: str) -> str | None:
    """A request header's value (repeated ones joined with commas, as RFC 9110 allows), None if absent."""
    values = [v for k, v in req.headers if k == name]
    return ",".join(values) if values else None


class GeventWorker(ProblemErrors, ggevent.GeventWorker):
    """gunicorn's gevent worker (its own HTTP parser), with problem+json errors, and the bounds of
    :mod:`ludoteca.entrypoints.admission`: per-address connections, refusals past capacity
    answered at once, request bodies read whole under a deadline before the app, long-polls and
    streams admitted per client, per seat and in total.

    gevent's ``StreamServer`` stops accepting when its pool is full: new connections then wait
    in the kernel's backlog, unanswered, as long as the pool stays full (what made 2,100 slow
    connections take a service offline). The pool here is ``connections + SHED_SLOTS``: the
    worker admits ``connections`` and answers the ones past them at once (503), so the pool
    only fills when refusals themselves pile up (each lasts at most a second)."""

    admission: Admission
    wsgi: Any
    lingering = 0

    def init_process(self) -> None:
        nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        if nofile == resource.RLIM_INFINITY:
            nofile = 1 << 20
        limits = Limits.from_env(os.environ, nofile, self.cfg.worker_connections)
        self.admission = Admission(limits)
        self.worker_connections = limits.connections + limits.shed
        ggevent.StreamServer = BatchAcceptServer  # what ggevent.GeventWorker.run builds, in this process only
        if limits.connections < self.cfg.worker_connections:
            self.log.warning("open files: a soft limit of %s holds %s connections of the %s configured "
                             "(GUNICORN_WORKER_CONNECTIONS): raise the hard limit (LimitNOFILE=, ulimit -Hn)",
                             nofile, limits.connections, self.cfg.worker_connections)
        self.log.info("worker limits (open files %s): %s", nofile, limits.describe())
        super().init_process()

    def load_wsgi(self) -> None:
        super().load_wsgi()
        self.wsgi = HoldStarts(self.wsgi, queue=self.admission.limits.holds)

    def handle(self, listener: Any, client: Any, addr: Any) -> None:
        peer = addr[0] if isinstance(addr, tuple) and addr else ""
        refusal = self.admission.connect(peer)
        if refusal is not None:
            # answered here, lingering (its request unread) in a greenlet outside the pool: a
            # refusal keeps no slot a client under the caps may need
            if refuse(client, refusal, 0) and self.lingering < LINGERING:
                self.lingering += 1
                gevent.spawn(self._linger_close, client)
            else:
                util.close(client)
            return
        try:
            super().handle(listener, client, addr)
        finally:
            self.admission.disconnect(peer)

    def _linger_close(self, client: Any) -> None:
        try:
            linger(client, REFUSAL_SECONDS)
        finally:
            self.lingering -= 1
            util.close(client)

    def handle_request(self, listener_name: Any, req: Any, sock: Any, addr: Any) -> bool:
        refusal = self.read_body(req, sock)
        if refusal is None:
            held = hold_of(req.method, req.path, req.query)
            if held is None:
                return bool(super().handle_request(listener_name, req, sock, addr))
            kind, scope = held
            peer = addr[0] if isinstance(addr, tuple) and addr else ""
            hold = self.admission.hold(kind, peer, header(req, "X-FORWARDED-FOR"), header(req, "AUTHORIZATION"),
                                       scope)
            if not isinstance(hold, Refusal):
                try:
                    served = bool(super().handle_request(listener_name, req, sock, addr))
                finally:
                    self.admission.release(hold)
                if close_after_response():  # refused by HoldStarts: the client is told to come back later
                    raise StopIteration
                return served
            refusal = hold
        # a request refused whole (a long-poll, a stream) leaves nothing unread: close at once;
        # one refused for its body (408, 413) lingers, so the client reads the answer
        refuse(sock, refusal, REFUSAL_SECONDS if refusal.status in (408, 413) else 0)
        raise StopIteration  # gunicorn's connection loop: close the connection

    def read_body(self, req: Any, sock: Any) -> Refusal | None:
        """Read the request's whole body (Content-Length or chunked) into memory within the
        body deadline, so the app never waits on a slow client; a refusal when it is too large
        (413, before reading it) or late (408)."""
        limits = self.admission.limits
        reader = getattr(req.body, "reader", None)
        if isinstance(reader, LengthReader):
            if reader.length == 0:
                return None
            if reader.length > limits.max_body:
                return self.admission.refuse(Refusal(
                    413, "body_too_large", None, f"The request body is larger than {limits.max_body} bytes."))
        elif not isinstance(reader, ChunkedReader):
            return None
        if req._expected_100_continue:  # gunicorn would send it when the app starts: the body comes first here
            util.write(sock, CONTINUE)
            req._expected_100_continue = False
        parts: list[bytes] = []
        got = 0
        timer = gevent.Timeout(limits.body_seconds)
        timer.start()
        try:
            while True:
                chunk = req.body.read(65536)
                if not chunk:
                    break
                got += len(chunk)
                if got > limits.max_body:
                    return self.admission.refuse(Refusal(
                        413, "body_too_large", None, f"The request body is larger than {limits.max_body} bytes."))
                parts.append(chunk)
        except gevent.Timeout as exc:
            if exc is not timer:
                raise
            return self.admission.refuse(Refusal(
                408, "body_timeout", None,
                f"The request body did not arrive within {limits.body_seconds:g} seconds."))
        finally:
            timer.close()
        req.body = io.BytesIO(b"".join(parts))
        return None


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
