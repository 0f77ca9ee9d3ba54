"""Request ids, access logs and the request metrics of a game service.

Every request gets an id: the ``X-Request-Id`` it came with when that is a sane token (1 to 128
of ``A-Z a-z 0-9 . _ : + / = -``: the front door sends one on every request, a client's own or
a fresh UUID), else a new UUID. It comes back in the response's ``X-Request-Id`` and in every
problem document (``request_id``), and is in the request's access-log line: one line per request
(logger ``ludoteca.access``, INFO) with method, path, status, duration, bytes, request id, game
id and seat when known, and the client address (as ProxyFix resolved it). JSON with
``LUDOTECA_LOG_FORMAT=json`` (:func:`ludoteca.adapters.observe.configure_logging`).

The same hook observes ``ludoteca_http_request_duration_seconds`` and, for a move, the move
families (:mod:`ludoteca.adapters.observe`): no Redis call, a few microseconds.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from functools import lru_cache
from typing import Any

from flask import Flask, Response, g, has_request_context, request
from ludoteca.adapters import observe

SANE_ID = re.compile(r"[A-Za-z0-9._:+/=-]{1,128}")
HEADER = "X-Request-Id"
MOVE_ENDPOINT = "games.Actions"
access = logging.getLogger("ludoteca.access")


def request_id() -> str | None:
    """This request's id (made on first use); None outside a request."""
    if not has_request_context():
        return None
    rid: str | None = g.get("ludoteca_request_id")
    if rid is None:
        rid = g.ludoteca_request_id = choose_request_id(request.headers.get(HEADER))
    return rid


def choose_request_id(given: str | None) -> str:
    """The id of a request that came with ``X-Request-Id: given`` (or none): the given one when
    it is a sane token, else a new UUID."""
    return given if given is not None and SANE_ID.fullmatch(given) else str(uuid.uuid4())


def note_seat(seat: int | None) -> None:
    """The caller's seat, for the access log (the routes call it once they know it)."""
    g.ludoteca_seat = seat


class RequestLog:
    """The access-log line and the request metrics of one game's requests, written by the Flask
    hook of :func:`install_access_log` and by the hot routes (:mod:`ludoteca.adapters.hosting.hotroutes`)."""

    def __init__(self, game: str, action_types: Any) -> None:
        self.game = game
        self.actions = frozenset(action_types)

    def finish(self, method: str, route: str, path: str, status: int, seconds: float, nbytes: int | None,
               rid: str | None, game_id: str | None, seat: int | None, client: str | None,
               move: tuple[Any, bool] | None = None) -> None:
        """One request answered: ``route`` is its rule (``unmatched`` without one), ``move`` the
        posted body and whether the answer was a replay, for a move (``POST .../actions``)."""
        game = self.game
        _child(observe.REQUESTS, game, route, method, f"{status // 100}xx").observe(seconds)
        if move is not None:
            body, replayed = move
            kind = body.get("type") if isinstance(body, dict) else None
            _child(observe.MOVE_SECONDS, game, kind if isinstance(kind, str) and kind in self.actions
                   else "other").observe(seconds)
            outcome = ("replayed" if replayed else "applied") if status == 200 else "refused"
            _child(observe.MOVES, game, outcome, str(status)).inc()
        if access.isEnabledFor(logging.INFO):
            fields = {"method": method, "path": path, "status": status, "duration_ms": round(seconds * 1000, 3),
                      "bytes": nbytes, "request_id": rid, "game": game, "game_id": game_id, "seat": seat,
                      "client": client}
            access.info("%s %s %s %.1fms %sB rid=%s game_id=%s seat=%s client=%s", method, path, status,
                        fields["duration_ms"], "-" if nbytes is None else nbytes, rid, game_id or "-",
                        "-" if seat is None else seat, client, extra={"fields": fields})


def install_access_log(app: Flask, game: str, action_types: Any) -> RequestLog:
    """Request ids, the access log and the request metrics of ``app``, hosting ``game``."""
    log = RequestLog(game, action_types)

    @app.before_request
    def _start() -> None:
        g.ludoteca_t0 = time.perf_counter()
        request_id()

    @app.after_request
    def _finish(resp: Response) -> Response:
        t0 = g.get("ludoteca_t0")
        seconds = time.perf_counter() - t0 if t0 is not None else 0.0
        rid = request_id()
        if rid is not None:
            resp.headers[HEADER] = rid
        rule = request.url_rule
        move = None
        if request.endpoint == MOVE_ENDPOINT and request.method == "POST":
            move = (g.get("ludoteca_json"), resp.headers.get("Idempotent-Replayed") == "true")
        log.finish(request.method, rule.rule if rule is not None else "unmatched",
                   request.full_path if request.query_string else request.path, resp.status_code, seconds,
                   resp.content_length, rid, (request.view_args or {}).get("game_id"), g.get("ludoteca_seat"),
                   request.remote_addr, move)
        return resp

    return log


@lru_cache(maxsize=4096)
def _child(family: Any, *labels: str) -> Any:
    """A family's series for ``labels`` (prometheus-client's own lookup costs a lock and a few
    microseconds; the label sets here are few: routes, methods, status codes, action types)."""
    return family.labels(*labels)
