"""The hot routes: a move, ``POST /games/{id}/actions``, and a seat's reads, ``GET /games/{id}``
and ``GET /games/{id}/actions``, served without Flask's request machinery.

Moves and the reads between them are most of a game service's traffic, and under Flask most of
their CPU went to the machinery around the route rather than to the work: the request context and
its proxies (~70 lookups a move), the before/after hooks of the access log, CORS, the rate limiter
and the body bounds, and flask-limiter's own check. :class:`HotRoutes` is a WSGI layer in front
of the Flask app (inside ``ProxyFix``, so it sees the client address, scheme and prefix as Flask
would) that answers those requests itself with the same route methods Flask's views call
(:class:`~ludoteca.adapters.hosting.routes.GameRoutes`: one implementation of each route), and
the same parts around them, called directly:

- the seat: :meth:`~ludoteca.adapters.hosting.routes.GameRoutes.mover` for a move (the
  game this process remembers, else one read), :meth:`~ludoteca.adapters.hosting.routes.GameRoutes.caller`
  (a fresh read) for a read; the token parsed by
  :func:`~ludoteca.adapters.hosting.identity.parse_bearer`;
- the body: at most ``Settings.max_body_bytes`` (``Content-Length`` only), parsed by
  :func:`~ludoteca.adapters.hosting.bodies.parse_body` within the JSON bounds;
- ``If-Match`` and ``Idempotency-Key``: :func:`~ludoteca.adapters.hosting.routes.move_conditions`;
- the seat's quota: for a move, spent by the commit (:func:`~ludoteca.adapters.hosting.ratelimit.seat_quota`,
  and for a refusal :func:`~ludoteca.adapters.hosting.ratelimit.spend_refused`); for a read,
  :func:`~ludoteca.adapters.hosting.ratelimit.spend_read`, the same bucket Flask's path counts in;
- the move: :meth:`~ludoteca.adapters.hosting.routes.GameRoutes.play_action`; its refusals (409, 412,
  422, 429, 503 ...) become problems through the one error table
  (:func:`~ludoteca.adapters.hosting.problems.render_error`);
- the read: :meth:`~ludoteca.adapters.hosting.routes.GameRoutes.get_game` (with its 304 for
  ``If-None-Match``) and :meth:`~ludoteca.adapters.hosting.routes.GameRoutes.list_actions`;
- the answer's other headers: CORS
  (:class:`~ludoteca.adapters.hosting.cors.CorsPolicy`), ``X-Request-Id``; the access-log line
  and the metrics: :class:`~ludoteca.adapters.hosting.accesslog.RequestLog`.

Everything else goes to the Flask app unchanged: other routes and methods (``HEAD`` included), a
query string, a request without ``Authorization`` (a spectator's read, counted per client
address by flask-limiter) or, for a move, without ``Content-Length`` (chunked), a body over the
bound, and every request refused before its work is tried (a bad token or game id, a malformed
body or header): those are rare, and Flask's path answers them (and counts them in the rate
limiter's buckets) exactly as it always did. The hot routes read only, before they hand a
request on: the body read goes with the request (or the error reading it raised, again).

So an answer is the same whichever path gave it, byte for byte but for the ``Date`` and the
request id a request without one gets (``tests/api/test_hot_routes.py`` plays the same requests
through both and compares status, headers, bodies, the stored data, the log lines and the metrics).
``Settings.hot_routes`` (``LUDOTECA_HOT_ROUTES=0``) turns them off: every request through Flask.
"""

from __future__ import annotations

import io
import re
import time
from collections.abc import Callable, Iterable
from typing import Any

from ludoteca.adapters.hosting.accesslog import HEADER, RequestLog, choose_request_id
from ludoteca.adapters.hosting.bodies import parse_body
from ludoteca.adapters.hosting.cors import CorsPolicy
from ludoteca.adapters.hosting.identity import GAME_ID, parse_bearer
from ludoteca.adapters.hosting.ops import STORE_FAILED
from ludoteca.adapters.hosting.problems import At, render_error
from ludoteca.adapters.hosting.ratelimit import seat_quota, spend_read, spend_refused
from ludoteca.adapters.hosting.routes import GameRoutes, move_conditions
from ludoteca.adapters.store import store_unavailable
from ludoteca.core.errors import LudotecaError

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]
MOVE_PATH = re.compile(rf"/games/({GAME_ID.pattern})/actions")
READ_PATH = re.compile(rf"/games/({GAME_ID.pattern})(/actions)?")
Answer = tuple[str, list[tuple[str, str]], bytes]


class _Replayed:
    """A request's input after the hot route failed reading it: the same error, again."""

    def __init__(self, err: Exception) -> None:
        self.err = err

    def read(self, *_size: int) -> bytes:
        raise self.err

    readline = read


class _Incomplete(Exception):
    """A body shorter than its ``Content-Length``."""


def _length(raw: str | None) -> int | None:
    return int(raw) if raw and raw.isascii() and raw.isdigit() else None


class HotRoutes:
    """WSGI: the common move answered here, everything else by ``fallback`` (the Flask app)."""

    def __init__(self, fallback: WSGIApp, routes: GameRoutes, rules: tuple[str, str], log: RequestLog,
                 cors: CorsPolicy | None, max_body_bytes: int, writes_per_minute: int,
                 reads_per_minute: int) -> None:
        self.fallback = fallback
        self.routes = routes
        self.store = routes.service.store
        self.game = routes.service.d.name
        self.view_rule, self.move_rule = rules  # GET /games/{id}; GET and POST /games/{id}/actions
        self.operation = f"POST {self.move_rule}"
        self.log = log
        self.cors = cors
        self.max_body = max_body_bytes
        self.writes = writes_per_minute  # the seat-write limit (0: no quota)
        self.reads = reads_per_minute  # the seat-read limit (0: no quota)

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        answer: Answer | None = None
        if not environ.get("QUERY_STRING"):
            method = environ.get("REQUEST_METHOD")
            if method == "POST":
                match = MOVE_PATH.fullmatch(environ.get("PATH_INFO", ""))
                if match is not None:
                    answer = self.move(environ, match.group(1))
            elif method == "GET":
                match = READ_PATH.fullmatch(environ.get("PATH_INFO", ""))
                if match is not None:
                    answer = self.read(environ, match.group(1), match.group(2) is not None)
        if answer is not None:
            status, headers, body = answer
            start_response(status, headers)
            return [body]
        return self.fallback(environ, start_response)

    def read(self, environ: dict[str, Any], game_id: str, listing: bool) -> Answer | None:
        """A seat's view (``GET /games/{id}``) or legal actions (``GET .../actions``), or None:
        the Flask app answers it (a spectator's read, a bad token: nothing was counted)."""
        t0 = time.perf_counter()
        header = environ.get("HTTP_AUTHORIZATION")
        if header is None:  # a spectator: counted per client address, by flask-limiter
            return None
        try:
            token = parse_bearer(header)
            if token is None:  # pragma: no cover - a header was given
                return None
            stored, seat = self.routes.caller(game_id, token)
        except Exception as err:  # 401, 404, the store down: Flask's path answers (and counts) it
            if store_unavailable(err) is not None:
                environ[STORE_FAILED] = err  # answered without asking the store again
            return None
        if seat is None:  # a seat its player left reads as a spectator's: Flask's path answers it
            return None
        rid = choose_request_id(environ.get("HTTP_X_REQUEST_ID"))
        path = environ["PATH_INFO"]
        rule = self.move_rule if listing else self.view_rule
        try:
            try:
                if self.reads > 0:
                    spend_read(self.store, seat_quota(self.game, game_id, seat, self.reads, write=False))
            except Exception:
                seat = None  # refused before the route: Flask's path has not noted the seat yet
                raise
            answer = self.routes.list_actions(stored, seat) if listing else \
                self.routes.get_game(stored, seat, environ.get("HTTP_IF_NONE_MATCH"))
        except Exception as err:  # as Flask's error handlers do: the one error table
            answer = render_error(err, at=At(path, rid, self.game, f"GET {rule}"))
        if self.cors is not None:  # the after-request hooks, in Flask's order
            self.cors.mark(answer, environ.get("HTTP_ORIGIN"))
        answer.headers[HEADER] = rid
        self.log.finish("GET", rule, path, answer.status_code, time.perf_counter() - t0,
                        answer.content_length, rid, game_id, seat, environ.get("REMOTE_ADDR"))
        body, status, headers = answer.get_wsgi_response(environ)  # as werkzeug serves it (a 304 has no body)
        return status, headers, b"".join(body)

    def move(self, environ: dict[str, Any], game_id: str) -> Answer | None:
        """The answer to a move, or None: the Flask app answers it (nothing was changed)."""
        t0 = time.perf_counter()
        length = _length(environ.get("CONTENT_LENGTH"))
        header = environ.get("HTTP_AUTHORIZATION")
        if header is None or length is None or not 0 < length <= self.max_body or "HTTP_TRANSFER_ENCODING" in environ:
            return None
        try:
            stored, seat = self.routes.mover(game_id, parse_bearer(header))
        except Exception as err:  # 401, 404, the store down: Flask's path answers (and counts) it
            if store_unavailable(err) is not None:
                environ[STORE_FAILED] = err  # answered without asking the store again
            return None
        try:
            data = environ["wsgi.input"].read(length)
        except Exception as err:  # a broken body: Flask's path meets the same error
            environ["wsgi.input"] = _Replayed(err)
            return None
        try:
            if len(data) < length:  # the client went away: Flask's path says so
                raise _Incomplete
            body = parse_body(data)
            if_match, key = move_conditions(environ.get("HTTP_IF_MATCH"), environ.get("HTTP_IDEMPOTENCY_KEY"))
        except (_Incomplete, LudotecaError):
            environ["wsgi.input"] = io.BytesIO(data)
            return None

        rid = choose_request_id(environ.get("HTTP_X_REQUEST_ID"))
        path = environ["PATH_INFO"]
        at = At(path, rid, self.game, self.operation)
        quota = seat_quota(self.game, game_id, seat, self.writes) if self.writes > 0 else None
        replayed = False
        try:
            answer = self.routes.play_action(game_id, stored, seat, body, if_match, key, quota)
            replayed = "Idempotent-Replayed" in answer.headers
        except Exception as err:  # as Flask's error handlers do: the one error table
            answer = render_error(err, at)
        code, status, out = answer.status_code, answer.status, answer.get_data()
        headers = answer.headers.to_wsgi_list()
        refused = spend_refused(self.store, quota, code, at)
        if refused is not None:
            code, status, out, replayed = refused.status_code, refused.status, refused.get_data(), False
            headers = refused.headers.to_wsgi_list()
        if self.cors is not None:
            headers += self.cors.marks(environ.get("HTTP_ORIGIN"))
        headers.append((HEADER, rid))
        self.log.finish("POST", self.move_rule, path, code, time.perf_counter() - t0, len(out), rid, game_id, seat,
                        environ.get("REMOTE_ADDR"), (body, replayed))
        return status, headers, out
