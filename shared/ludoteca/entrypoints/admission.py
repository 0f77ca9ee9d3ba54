"""What one client may hold of a game service's worker process, and what the process does past
its capacity: answer at once (503 or 429 with ``Retry-After``), never leave a connection waiting.

Applied by :class:`ludoteca.entrypoints.gunicorn_workers.GeventWorker`, before the Flask app (the
one place that sees every connection, requests that never finish their headers or body included).
All counts are per worker process (gunicorn runs ``GUNICORN_WORKERS``, 2 by default: a service
holds twice the figures below); nothing here talks to Redis.

Capacity (:class:`Limits`, logged by each worker at start):

* ``connections``: the connections a worker serves at once, ``GUNICORN_WORKER_CONNECTIONS``
  (1,000) or less when the open-files limit cannot hold them: each connection may cost three file
  descriptors (its socket, and one idle connection in each of the two Redis pools: moves and
  blocking reads), and :data:`FD_RESERVE` more are kept for the listener, logs, metrics files and
  the refusals; under a limit of 1024 that is 298 a worker (``(1024 - 128) // 3``), never EMFILE.
  Its last tenth is kept for addresses holding fewer than 4 connections (and the proxies): a
  crowd of addresses filling a worker is refused there, a player with a move still gets in.
  A connection past it is accepted and answered ``503`` (``Retry-After: 1``) at once, in one of
  ``SHED_SLOTS`` (64) more slots of the pool kept for refusing (a refusal's lingering close, at
  most a second, happens outside the pool); only when those are all busy too does the worker stop
  accepting, and new connections wait in the listen backlog. The worker accepts up to 64
  connections a turn of its loop, so a burst waits in the worker (where a move passes it), not
  in the kernel's first-in-first-out queue.
* ``per_address`` (``LUDOTECA_MAX_CONNECTIONS_PER_ADDRESS``, 64): connections from one peer
  address (an IPv6 peer by its /64, :func:`ludoteca.adapters.peers.address_key`); the next gets
  ``429`` (``Retry-After: 5``). A browser opens at most 6 connections to a host, so 64 leaves room
  for about ten players behind one NAT; one address holds at most 6 % of a worker. A peer in
  ``LUDOTECA_PROXY_ADDRESSES`` (the front door) is exempt: it carries everybody's requests.
* Holds, the requests that wait (``GET .../events`` with ``wait`` > 0, ``GET .../stream``):
  at most ``holds`` (``LUDOTECA_MAX_HOLDS``, default three quarters of ``connections``: the last
  quarter is kept for moves, views and ``/readyz``) -> ``503`` (``Retry-After: 5``); per client
  (the peer address, or the ``X-Forwarded-For`` client when the peer is a proxy:
  :func:`ludoteca.adapters.peers.client_of`) at most ``holds_per_client``
  (``LUDOTECA_MAX_HOLDS_PER_ADDRESS``, 32) and per seat (the bearer token, kept as a hash) at
  most ``holds_per_seat`` (``LUDOTECA_MAX_HOLDS_PER_SEAT``, 8) -> ``429`` (``Retry-After: 10``).
  A hold is released when its response is done (a stream's last byte included; a client that
  went away is noticed at the stream's next heartbeat, a long-poll's at the end of its wait).
  Streams start 8 at a time a worker (:class:`HoldStarts`), waiting their turn at most 5 s (503).
* Request bodies (``LUDOTECA_MAX_BODY``, 64 KiB; ``LUDOTECA_BODY_TIMEOUT``, 10 s): read whole by
  the worker before the app is called (chunked ones too); larger -> ``413`` at once, not all
  there by the deadline -> ``408``, the connection closed either way. The headers of every
  request, the first included, must arrive within gunicorn's ``keepalive`` (15 s) or the
  connection is closed.

Degrading: one address (2,100 slow bodies or streams) gets its 64 connections and 32 holds per
worker and 429 for the rest; moves of other clients and ``/readyz`` keep their quarter of the
connections. Many addresses together get 503 past the holds' share and past ``connections``.
What this does not bound: 100+ addresses each sending headers or bodies slowly can fill
``connections`` for up to 15 s at a time (then they are cut), the front door's read timeouts are
the remedy there (:mod:`ludoteca.entrypoints.frontdoor`).

Metrics (prometheus-client, multiprocess ``livesum`` gauges): ``ludoteca_open_connections``,
``ludoteca_open_holds{kind=stream|long_poll}``, and ``ludoteca_refused_requests_total{reason}``
(``capacity``, ``address``, ``holds``, ``client_holds``, ``seat_holds``, ``hold_starts``,
``body_timeout``, ``body_too_large``). Figures measured under attack: ``docs/scaling.md``
(``pytest -s -m hostile tests/integration/test_hostile_load.py``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, unquote

from gevent.local import local
from gevent.lock import BoundedSemaphore
from ludoteca.adapters.peers import Network, address_key, client_of, is_proxy, proxy_networks
from ludoteca.config import Settings, body_timeout_seconds, max_body_bytes
from prometheus_client import Counter, Gauge

FD_RESERVE = 128
"""Descriptors kept out of the connections' share: listener, pipes, logs, metrics files, the
refusal slots (:data:`SHED_SLOTS`)."""
FDS_PER_CONNECTION = 3
SHED_SLOTS = 64
HOLD_SHARE = 0.75
RESERVE_SHARE = 0.1
LIGHT_CLIENT = 4
"""The last tenth of a worker's connections goes only to addresses holding fewer than 4 (and to
the proxies): a crowd of addresses that fills the rest is refused, a client with a move to make is not."""
RETRY_CAPACITY = 1
RETRY_ADDRESS = 5
RETRY_HOLDS = 5
RETRY_CLIENT_HOLDS = 10
HOLD_STARTS = 8
"""Event streams a worker starts at once (:class:`HoldStarts`)."""
HOLD_START_WAIT = 5.0
HOLD_START_QUEUE = 64
"""Streams a worker lets wait for a start slot by default; past them a stream is refused at once.
The worker passes its holds' share (750): every stream it may hold may wait its turn (all of a
worker's streams reconnecting after a restart start within the wait on a quiet core)."""

HOLD_PATH = re.compile(r"(?:/games/(?P<id>[^/]+)/(?P<game>stream|events)|/me/(?P<player>events))/?$")
"""A game's stream and long-poll, and a player's events (the players service's ``/me/events``: a
stream or a long-poll by its ``Accept`` header, which admission does not read: held as a stream)."""

OPEN_CONNECTIONS = Gauge(
    "ludoteca_open_connections", "Connections a game service's workers hold (admitted, refusals excluded).",
    ["game"], multiprocess_mode="livesum")
OPEN_HOLDS = Gauge(
    "ludoteca_open_holds", "Long-polls (kind long_poll) and event streams (kind stream) open.",
    ["game", "kind"], multiprocess_mode="livesum")
REFUSED = Counter(
    "ludoteca_refused_requests",
    "Connections and requests a worker refused before the app: capacity, holds, hold_starts (503), "
    "address, client_holds, seat_holds (429), body_timeout (408), body_too_large (413).",
    ["game", "reason"])


@dataclass(frozen=True)
class Refusal:
    status: int
    reason: str
    retry_after: int | None
    detail: str


@dataclass(frozen=True)
class Limits:
    connections: int
    per_address: int
    holds: int
    holds_per_client: int
    holds_per_seat: int
    max_body: int
    body_seconds: float
    hops: int
    proxies: tuple[Network, ...]
    shed: int = SHED_SLOTS

    @classmethod
    def from_env(cls, env: Mapping[str, str], nofile: int, worker_connections: int) -> Limits:
        """The limits a worker runs with, from the settings and its open-files limit ``nofile``."""
        fit = max(16, (nofile - FD_RESERVE) // FDS_PER_CONNECTION)
        connections = min(worker_connections, fit)
        holds = int(env.get("LUDOTECA_MAX_HOLDS") or max(1, int(connections * HOLD_SHARE)))
        return cls(
            connections=connections,
            per_address=int(env.get("LUDOTECA_MAX_CONNECTIONS_PER_ADDRESS") or 64),
            holds=min(holds, connections),
            holds_per_client=int(env.get("LUDOTECA_MAX_HOLDS_PER_ADDRESS") or 32),
            holds_per_seat=int(env.get("LUDOTECA_MAX_HOLDS_PER_SEAT") or 8),
            max_body=max_body_bytes(env),
            body_seconds=body_timeout_seconds(env),
            hops=int(env.get("LUDOTECA_TRUSTED_PROXIES") or Settings.trusted_proxies),
            proxies=proxy_networks(env),
        )

    def describe(self) -> str:
        return (f"{self.connections} connections (+{self.shed} to refuse), {self.per_address} per address, "
                f"{self.holds} long-polls and streams ({self.holds_per_client} per client, "
                f"{self.holds_per_seat} per seat), bodies up to {self.max_body} bytes within {self.body_seconds:g} s")


def hold_of(method: str, path: str, query: str) -> tuple[str, str] | None:
    """(``stream`` or ``long_poll``, what it is about) or None (not a request that waits), read
    as the app reads the request: ``HEAD`` runs the ``GET`` view, the route is matched on the
    percent-decoded path (``/games/ID/even%74s`` is a long-poll), and ``wait`` is its first value
    (webargs'), so no spelling of a hold goes uncounted (a hostile client's probe found each of
    the three). What it is about: the game's id, or ``me`` for a player's events (every game of
    the player), so a player's token, good for all its seats, has the per-seat bound in each game."""
    if method not in ("GET", "HEAD"):
        return None
    m = HOLD_PATH.search(unquote(path))
    if m is None:
        return None
    scope = "me" if m["player"] else str(m["id"])
    if m["game"] == "stream" or m["player"]:
        return "stream", scope
    try:
        wait = float(parse_qs(query, keep_blank_values=True).get("wait", ["0"])[0])
    except ValueError:
        return None  # the app answers 422
    return ("long_poll", scope) if wait > 0 else None


def hold_kind(method: str, path: str, query: str) -> str | None:
    """:func:`hold_of`'s kind alone."""
    held = hold_of(method, path, query)
    return None if held is None else held[0]


def seat_of(authorization: str | None, scope: str = "") -> str | None:
    """A hash of the bearer token and the hold's ``scope`` (never the token itself), None without
    one: a seat's bound, per game for a player's token."""
    if not authorization:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        return None
    return hashlib.sha256(f"{token}\0{scope}".encode("utf-8", "surrogateescape")).hexdigest()[:24]


def _inc(counts: dict[str, int], key: str) -> None:
    counts[key] = counts.get(key, 0) + 1


def _dec(counts: dict[str, int], key: str) -> None:
    n = counts.get(key, 0) - 1
    if n > 0:
        counts[key] = n
    else:
        counts.pop(key, None)


@dataclass
class Hold:
    kind: str
    client: str
    seat: str | None


@dataclass
class Admission:
    """One worker process's counts (greenlets of one thread: no lock needed)."""

    limits: Limits
    game: str = field(default_factory=lambda: os.environ.get("LUDOTECA_GAME") or "gunicorn")
    open: int = 0
    by_address: dict[str, int] = field(default_factory=dict)
    holds: int = 0
    holds_by_client: dict[str, int] = field(default_factory=dict)
    holds_by_seat: dict[str, int] = field(default_factory=dict)

    def refuse(self, refusal: Refusal) -> Refusal:
        REFUSED.labels(self.game, refusal.reason).inc()
        return refusal

    def connect(self, peer: str) -> Refusal | None:
        """Admit a new connection from ``peer`` (counted until :meth:`disconnect`), or say why not."""
        if self.open >= self.limits.connections:
            return self.refuse(Refusal(503, "capacity", RETRY_CAPACITY,
                                       "The service is at its connection capacity; try again shortly."))
        if not is_proxy(peer, self.limits.proxies):
            key = address_key(peer)
            held = self.by_address.get(key, 0)
            if held >= self.limits.per_address:
                return self.refuse(Refusal(
                    429, "address", RETRY_ADDRESS,
                    f"Too many connections from one address (at most {self.limits.per_address})."))
            if held >= LIGHT_CLIENT and self.open >= self.limits.connections * (1 - RESERVE_SHARE):
                return self.refuse(Refusal(503, "capacity", RETRY_CAPACITY,
                                           "The service is near its connection capacity; try again shortly."))
            _inc(self.by_address, key)
        self.open += 1
        OPEN_CONNECTIONS.labels(self.game).inc()
        return None

    def disconnect(self, peer: str) -> None:
        self.open -= 1
        OPEN_CONNECTIONS.labels(self.game).dec()
        if not is_proxy(peer, self.limits.proxies):
            _dec(self.by_address, address_key(peer))

    def hold(self, kind: str, peer: str, forwarded_for: str | None, authorization: str | None,
             scope: str = "") -> Hold | Refusal:
        """Admit a long-poll or a stream (released by :meth:`release`), or say why not; ``scope``:
        :func:`hold_scope`."""
        if self.holds >= self.limits.holds:
            return self.refuse(Refusal(503, "holds", RETRY_HOLDS,
                                       "The service holds as many long-polls and streams as it can; try again later."))
        client = address_key(client_of(peer, forwarded_for, self.limits.hops, self.limits.proxies))
        if self.holds_by_client.get(client, 0) >= self.limits.holds_per_client:
            return self.refuse(Refusal(429, "client_holds", RETRY_CLIENT_HOLDS,
                                       "Too many long-polls and streams open from one address "
                                       f"(at most {self.limits.holds_per_client})."))
        seat = seat_of(authorization, scope)
        if seat is not None and self.holds_by_seat.get(seat, 0) >= self.limits.holds_per_seat:
            return self.refuse(Refusal(429, "seat_holds", RETRY_CLIENT_HOLDS,
                                       "Too many long-polls and streams open for one seat "
                                       f"(at most {self.limits.holds_per_seat})."))
        self.holds += 1
        _inc(self.holds_by_client, client)
        if seat is not None:
            _inc(self.holds_by_seat, seat)
        OPEN_HOLDS.labels(self.game, kind).inc()
        return Hold(kind, client, seat)

    def release(self, hold: Hold) -> None:
        self.holds -= 1
        _dec(self.holds_by_client, hold.client)
        if hold.seat is not None:
            _dec(self.holds_by_seat, hold.seat)
        OPEN_HOLDS.labels(self.game, hold.kind).dec()


_connection = local()  # the connection's greenlet runs both the worker's loop and the app


def close_after_response() -> bool:
    """Whether the app's answer on this connection asked the worker to close it (and forget it)."""
    closing = bool(getattr(_connection, "close", False))
    _connection.close = False
    return closing


class HoldStarts:
    """WSGI middleware: at most :data:`HOLD_STARTS` event streams of a worker start at once (the
    app call and the first body chunk: the token check, the game's read); the others wait their
    turn, at most :data:`HOLD_START_WAIT` seconds, then 503 (and the connection is closed);
    past ``queue`` waiting, 503 at once. (A
    long-poll's app call is its whole wait: it cannot be told apart from its start here, so
    long-polls are bounded by the hold caps only.)

    Why: greenlets take turns at every Redis round trip, so a request competes with every
    greenlet runnable at the time. 1,500 streams opened at once made ~1,500 runnable greenlets of
    a few round trips each, and a move that arrived with them waited 16-20 s; holding their
    starts to a few at a time leaves a move a handful of competitors (waiting streams cost nothing)."""

    def __init__(self, app: Callable[..., Any], starts: int = HOLD_STARTS, wait: float = HOLD_START_WAIT,
                 queue: int = HOLD_START_QUEUE) -> None:
        self.app = app
        self.queue = queue
        self.wait = wait
        self.slots = BoundedSemaphore(starts)
        self.waiting = 0

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if hold_kind(environ.get("REQUEST_METHOD", ""), environ.get("PATH_INFO", ""),
                     environ.get("QUERY_STRING", "")) != "stream":
            return self.app(environ, start_response)  # type: ignore[no-any-return]
        if self.waiting >= self.queue and self.slots.locked():
            acquired = False
        else:
            self.waiting += 1
            try:
                acquired = self.slots.acquire(timeout=self.wait)
            finally:
                self.waiting -= 1
        if not acquired:
            _connection.close = True  # gunicorn ignores an app's Connection header: the worker closes
            REFUSED.labels(os.environ.get("LUDOTECA_GAME") or "gunicorn", "hold_starts").inc()
            body = json.dumps({"type": "https://ludoteca.dev/problems/service-unavailable",
                               "title": "Service Unavailable", "status": 503,
                               "detail": "Too many long-polls and streams are starting; try again shortly."}).encode()
            start_response("503 Service Unavailable", [("Content-Type", "application/problem+json"),
                                                       ("Retry-After", str(RETRY_HOLDS)),
                                                       ("Content-Length", str(len(body)))])
            return [body]
        try:
            result = self.app(environ, start_response)
            chunks = iter(result)
            first = next(chunks, None)
        except BaseException:
            self.slots.release()
            raise
        self.slots.release()
        return _Rest(first, chunks, result)


class _Rest:
    """A response's first chunk (already produced) and the rest, closed as the app's."""

    def __init__(self, first: bytes | None, chunks: Iterator[bytes], result: Iterable[bytes]) -> None:
        self.first, self.chunks, self.result = first, chunks, result

    def __iter__(self) -> Iterator[bytes]:
        if self.first is not None:
            yield self.first
        yield from self.chunks

    def close(self) -> None:
        close = getattr(self.result, "close", None)
        if close is not None:
            close()
