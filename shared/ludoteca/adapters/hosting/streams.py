"""Server-sent events: ``GET /games/{id}/stream``, the caller's events as they are written.

The same events as the long-poll (``GET .../events``), with the same visibility and the same
authentication: a seat's token sees the public events and its own, no token (a spectator) the
public ones only. The wire format is the HTML standard's ``text/event-stream``::

    retry: 1000                    once, first: EventSource's reconnection delay (ms)
    : ludix game 5f0c... after 7   a comment (the stream is open; headers reach the client now)

    id: 8                          one message per event: id = the event's seq
    data: {"seq":8,"version":5,"type":"DiceThrown","data":{...}}

    : keep-alive                   a comment when nothing happened for a heartbeat

    event: end                     the game is over and every event was sent: the server closes
    data: {"status":"finished","last_seq":42,"result":{...}}

Resuming: a client that reconnects sends the last id it received as ``Last-Event-ID`` (an
EventSource does so by itself) or, where it cannot set a header, as the ``after`` query
parameter (the header wins when both are given); the stream then continues with the events
after that seq, each exactly once. A finished game with nothing left after the cursor answers
``204 No Content``, which tells an EventSource to stop reconnecting.

Bounded: a stream stays open at most ``Settings.max_stream_seconds`` (``LUDOTECA_MAX_STREAM``,
300 s), then the server closes it and the client reconnects where it was, so servers can be
recycled and no connection lives forever; a Redis failure mid-stream closes it too (the
reconnection gets the usual 503 until Redis is back). An idle stream gets a comment every
``Settings.stream_heartbeat_seconds`` (``LUDOTECA_STREAM_HEARTBEAT``, 15 s), under the idle
timeouts of the proxies on the way; a client that went away is noticed at the next write.

Cost: a stream waits exactly as a long-poll does (:meth:`~ludoteca.service_layer.service.GameService.events`:
``XREAD BLOCK`` in slices shorter than the Redis timeout); under the gevent worker that is one
greenlet per stream, a few kilobytes and no thread (``tests/integration/test_streams.py``
measures moves with 200 streams open). Under the threaded worker each open stream holds a thread.
The front door flushes answers as they come (``flush_interval -1``, :mod:`ludoteca.entrypoints.frontdoor`),
and the answer says ``Cache-Control: no-cache, no-transform`` and ``X-Accel-Buffering: no`` to
any other proxy on the way.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterator
from typing import Any

import marshmallow as ma
import redis
from flask import Response
from ludoteca.adapters.hosting.schemas import MAX_SAFE_INTEGER, QueryInteger
from ludoteca.core import jsontext
from ludoteca.core.errors import BadRequestError, LudotecaError
from ludoteca.service_layer.presenter import result_body
from ludoteca.service_layer.record import Status
from ludoteca.service_layer.repository import Stored
from ludoteca.service_layer.service import GameService
from marshmallow import validate
from redis.exceptions import RedisClusterException

log = logging.getLogger("ludoteca.streams")

MEDIA_TYPE = "text/event-stream"
RETRY_MS = 1000
LAST_EVENT_ID = re.compile(r"[0-9]{1,15}")  # below 2**53: every seq there can be
HEADERS = {"Cache-Control": "no-cache, no-transform", "X-Accel-Buffering": "no"}
EXAMPLE = ('retry: 1000\n: ludix game 5f0c2a9e1b7d4c3a after 0\n\n'
           'id: 1\ndata: {"seq":1,"version":1,"type":"GameCreated","data":{"seats":["human","bot:steady"]}}\n\n'
           ': keep-alive\n\n'
           'event: end\ndata: {"status":"finished","last_seq":57,"result":{"winners":[1]}}\n\n')
DESCRIPTION = (
    "Server-sent events (`text/event-stream`): every event the caller may see (a seat: the public "
    "events and its own; no token: the public ones), as it is written. Each message's `id` is the "
    "event's `seq` and its `data` the event as `GET .../events` gives it. Reconnect with "
    "`Last-Event-ID` (an EventSource sends it by itself) or `?after=` to resume with no event lost "
    "or repeated. Comments (`: keep-alive`) keep an idle stream open; when the game is over and "
    "every event was sent, an `end` event (status, `last_seq`, result) comes last and the stream "
    "closes. The server closes a stream after at most {max_stream:g} s: reconnect where you were. "
    "A finished game with nothing after the cursor answers 204 (an EventSource then stops).")
LAST_EVENT_ID_PARAMETER = {
    "name": "Last-Event-ID", "in": "header", "required": False,
    "schema": {"type": "string", "pattern": "^[0-9]{1,15}$"},
    "description": "The `id` of the last message received: the stream resumes after it (wins over `after`)"}


class StreamQuerySchema(ma.Schema):
    class Meta:
        unknown = ma.RAISE

    after = QueryInteger(load_default=0, validate=validate.Range(min=0, max=MAX_SAFE_INTEGER),
                         metadata={"description": "Start after this seq (0: from the first event); "
                                                  "`Last-Event-ID` wins when given"})


def cursor(after: int, last_event_id: str | None) -> int:
    """Where a stream starts: after ``Last-Event-ID`` when the header is given, else ``after``."""
    if last_event_id is None:
        return after
    if not LAST_EVENT_ID.fullmatch(last_event_id):
        raise BadRequestError("Last-Event-ID must be the id of a message of this stream (an event's seq).")
    return int(last_event_id)


def message(event: dict[str, Any]) -> bytes:
    """One event as a message (compact JSON has no line break: one ``data`` line)."""
    return b"id: %d\ndata: %s\n\n" % (event["seq"], jsontext.dumps(event))


def event_stream(service: GameService, stored: Stored, seat: int | None, after: int,
                 lifetime: float, heartbeat: float) -> Response:
    """The answer to ``GET /games/{id}/stream`` for ``seat`` (``None``: a spectator), from the
    game as the request read it."""
    record = stored.record
    if record.status is Status.FINISHED and after >= record.event_count:
        return Response(status=204, headers=HEADERS)
    messages = _messages(service, record.id, seat, after, lifetime, heartbeat)
    return Response(messages, mimetype=MEDIA_TYPE, headers=HEADERS)


def _messages(service: GameService, game_id: str, seat: int | None, after: int,
              lifetime: float, heartbeat: float) -> Iterator[bytes]:
    """The stream's bytes: a message per visible event, a comment per idle heartbeat, ``end``
    once the game is over and its last event was read; until ``lifetime`` seconds have passed.
    The game is read again only when the cursor moved (its status and event count)."""
    until = time.monotonic() + lifetime
    at = after
    yield b"retry: %d\n: %s game %s after %d\n\n" % (RETRY_MS, service.d.name.encode(), game_id.encode(), at)
    moved = True  # the game as the request read it may have finished since: look once
    try:
        while True:
            if moved:
                stored = service.load(game_id)
                record = stored.record
                if record.status is Status.FINISHED and at >= record.event_count:
                    yield b"event: end\ndata: %s\n\n" % jsontext.dumps(
                        {"status": record.status.value, "last_seq": at,
                         "result": result_body(service.engine.result(service.engine.load(record.state)))})
                    return
            left = until - time.monotonic()
            if left <= 0:
                return
            page = service.events(game_id, seat, at, min(heartbeat, left))
            moved = page["last_seq"] != at
            at = page["last_seq"]
            if page["events"]:
                yield b"".join(message(e) for e in page["events"])
            elif time.monotonic() < until:
                yield b": keep-alive\n\n"
    except (redis.RedisError, RedisClusterException, LudotecaError) as err:
        # mid-stream there is no status to give: close; the reconnection gets the usual answer
        log.warning("event stream of %s %s closed after seq %d: %s", service.d.name, game_id, at, err)
