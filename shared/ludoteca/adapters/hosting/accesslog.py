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
        given = request.headers.get(HEADER)
        rid = given if given is not None and SANE_ID.fullmatch(given) else str(uuid.uuid4())
        g.ludoteca_request_id = rid
    return rid


def note_seat(seat: int | None) -> None:
    """The caller's seat, for the access log (the routes call it once they know it)."""
    g.ludoteca_seat = seat


def install_access_log(app: Flask, game: str, action_types: Any) -> None:
    """Request ids, the access log and the request metrics of ``app``, hosting ``game``."""
    actions = frozenset(action_types)

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
        route = rule.rule if rule is not None else "unmatched"
        status = resp.status_code
        _child(observe.REQUESTS, game, route, request.method, f"{status // 100}xx").observe(seconds)
        if request.endpoint == MOVE_ENDPOINT and request.method == "POST":
            _observe_move(game, actions, resp, seconds)
        if access.isEnabledFor(logging.INFO):
            view_args = request.view_args or {}
            fields = {"method": request.method, "path": request.full_path if request.query_string else request.path,
                      "status": status, "duration_ms": round(seconds * 1000, 3), "bytes": resp.content_length,
                      "request_id": rid, "game": game, "game_id": view_args.get("game_id"),
                      "seat": g.get("ludoteca_seat"), "client": request.remote_addr}
            access.info("%s %s %s %.1fms %sB rid=%s game_id=%s seat=%s client=%s", fields["method"], fields["path"],
                        status, fields["duration_ms"], "-" if fields["bytes"] is None else fields["bytes"], rid,
                        fields["game_id"] or "-", "-" if fields["seat"] is None else fields["seat"],
                        fields["client"], extra={"fields": fields})
        return resp


def _observe_move(game: str, actions: frozenset[str], resp: Response, seconds: float) -> None:
    body = g.get("ludoteca_json")
    kind = body.get("type") if isinstance(body, dict) else None
    _child(observe.MOVE_SECONDS, game, kind if isinstance(kind, str) and kind in actions else "other").observe(seconds)
    status = resp.status_code
    if status == 200:
        outcome = "replayed" if resp.headers.get("Idempotent-Replayed") == "true" else "applied"
    else:
        outcome = "refused"
    _child(observe.MOVES, game, outcome, str(status)).inc()


@lru_cache(maxsize=4096)
def _child(family: Any, *labels: str) -> Any:
    """A family's series for ``labels`` (prometheus-client's own lookup costs a lock and a few
    microseconds; the label sets here are few: routes, methods, status codes, action types)."""
    return family.labels(*labels)
