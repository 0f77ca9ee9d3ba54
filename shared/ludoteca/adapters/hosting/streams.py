"""Server-sent events: ``GET /games/{id}/stream``, the caller's events as they are written.

The same events as the long-poll (``GET .../events``), with the same visibility and the same
authentication: a seat's token sees the public events and its own, no token (a spectator) the
public ones only. The wire format is the HTML standard's ``text/event-stream``::

    retry: 1000                    once, first: EventSource's reconnection delay (ms)
    : ludix game 5f0c... after 7   a comment (the stream is open; headers reach the client now)

    id: 8                          one message per event: id = the event's seq (the caller's number)
    data: {"seq":8,"version":5,"type":"DiceThrown","data":{...}}

    : keep-alive                   a comment when nothing happened for a heartbeat

    event: turn                    with ?turns=true, a seat's stream: you may act at this version
    data: {"game":{"version":5,"you":1,...},"next":{"version":5,"seat":1,"actions":[...],...}}

    event: end                     the game is over and every event was sent: the server closes
    data: {"status":"finished","last_seq":42,"result":{...}}

Numbers: the caller's own (:mod:`ludoteca.service_layer.numbering`): the events a seat may see,
or the spectators', are numbered 1, 2, 3, ... without gaps, so no ``id`` tells anyone of an event
written for someone else. Each viewer reads its own Redis stream: only its events wake it.

Turns (``?turns=true``, a seat's stream only): after the events of each batch (and when the stream
opens), a ``turn`` message whenever the seat may act at the game's version (to act, or out of
turn), once a version, carrying what a move's answer carries for the seat that moved: ``game``,
the game as the seat sees it (``GET /games/{id}`` with its token), and ``next``, its listing
(``GET .../actions``), whose ``version`` is the ``If-Match`` of the move. A client that holds its
stream so needs one request a move, the move itself, where it would otherwise read the game and
list its actions each time the turn comes back to it (the answer to its own move carries both
when it acts again). The message has no ``id``: it is not an event, and resuming goes by the
events' ids as before. The stream looks at the game after every batch anyway (for ``end``); a
turn adds the seat's view and listing, once a version.

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
from collections.abc import Callable, Iterator
from typing import Any

import marshmallow as ma
import redis
from flask import Response
from ludoteca.adapters.hosting.schemas import MAX_SAFE_INTEGER, QueryInteger
from ludoteca.core import jsontext
from ludoteca.core.errors import AuthenticationError, BadRequestError, LudotecaError
from ludoteca.service_layer.presenter import result_body
from ludoteca.service_layer.record import Status
from ludoteca.service_layer.repository import Stored
from ludoteca.service_layer.service import GameService
from marshmallow import fields, validate
from redis.exceptions import RedisClusterException

log = logging.getLogger("ludoteca.streams")

MEDIA_TYPE = "text/event-stream"
RETRY_MS = 1000
LAST_EVENT_ID = re.compile(r"[0-9]{1,15}")  # below 2**53: every seq there can be
HEADERS = {"Cache-Control": "no-cache, no-transform", "X-Accel-Buffering": "no"}
WIRE = ('retry: 1000\n: ludix game 5f0c2a9e1b7d4c3a after 0\n\n'
        'id: 1\ndata: {"seq":1,"version":1,"type":"GameCreated","data":{"seats":["human","bot:steady"]}}\n\n'
        ': keep-alive\n\n'
        'event: end\ndata: {"status":"finished","last_seq":57,"result":{"winners":[1]}}\n\n')
"""A stream's bytes, as the 200's description shows them."""
EXAMPLE = {"event": "message", "id": "1",
           "data": '{"seq":1,"version":1,"type":"GameCreated","data":{"seats":["human","bot:steady"]}}'}
"""One message as :data:`MESSAGE_SCHEMA` describes it (the document's example)."""
RESPONSE_DESCRIPTION = ("The event stream, one message per event (the schema describes a message); on the "
                        "wire:\n\n```\n" + WIRE + "```")
DESCRIPTION = (
    "Server-sent events (`text/event-stream`): every event the caller may see (a seat: the public "
    "events and its own; no token: the public ones), as it is written. Each message's `id` is the "
    "event's `seq` and its `data` the event as `GET .../events` gives it: the caller's events are "
    "numbered 1, 2, 3, ... without gaps from its side (another seat's private events take no number "
    "of yours). Reconnect with "
    "`Last-Event-ID` (an EventSource sends it by itself) or `?after=` to resume with no event lost "
    "or repeated. Comments (`: keep-alive`) keep an idle stream open; when the game is over and "
    "every event was sent, an `end` event (status, `last_seq`, result) comes last and the stream "
    "closes. With `turns=true` (a seat's token), a `turn` message also comes whenever you may act, once a "
    "version, carrying what a move's answer carries: `game` (the game as you see it) and `next` (your listing), "
    "so a move needs no read first. "
    "The server closes a stream after at most {max_stream:g} s: reconnect where you were. "
    "A finished game with nothing after the cursor answers 204 (an EventSource then stops).")
MESSAGE_SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["event", "data"],
    "description": "One message of the stream, as an EventSource (or any parser of the HTML standard's "
                   "format) dispatches it; comments and the first `retry` carry no data and dispatch nothing.",
    "properties": {
        "event": {"type": "string", "enum": ["message", "turn", "end"],
                  "description": "`message` (unnamed): an event; `turn` (with `turns=true`): you may act, your "
                                "listing; `end`: the game is over and every event was sent"},
        "id": {"type": "string", "pattern": "^[0-9]{1,15}$",
               "description": "The event's `seq`, in the caller's numbering: send it back as `Last-Event-ID` "
                              "(an EventSource keeps the last one, so `end` carries it too)"},
        "data": {"type": "string",
                 "description": "JSON on one line: for `message` the event as `GET .../events` gives it "
                                "(`seq`, `version`, `type`, `data`, `by`); for `turn` `{game, next}` as a move's "
                                "answer has them (the game as `GET /games/{id}` gives it to you, your listing as "
                                "`GET .../actions` gives it); for `end` `{status, last_seq, result}`"},
        "retry": {"type": "integer", "minimum": 0, "description": "The reconnection delay (ms)"},
    },
}
"""The stream's 200 schema: the OpenAPI 3.0 document describes a ``text/event-stream`` answer by
its messages (what schemathesis validates each parsed message against, its check ST108; a schema
of the whole body as one string failed it), the JSON in ``data`` by the description."""
PLAYER_MESSAGE_SCHEMA: dict[str, Any] = {**MESSAGE_SCHEMA, "properties": {
    **MESSAGE_SCHEMA["properties"],
    "event": {"type": "string", "enum": ["message"], "description": "`message` (unnamed): a notice"},
    "id": {**MESSAGE_SCHEMA["properties"]["id"], "description": "The notice's `seq` in your stream: send it back as "
                                                                "`Last-Event-ID`"},
    "data": {"type": "string", "description": "JSON on one line: the notice as the long-poll gives it"}}}
"""A player's stream's messages (``GET /players/me/events`` as server-sent events): notices only."""
TURNS_DESCRIPTION = ("A seat's stream (your token): also a `turn` message whenever you may act, once a version, "
                     "carrying `game` (the game as you see it) and `next` (your listing; its `version` is the move's "
                     "`If-Match`), as a move's answer does")
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
    turns = fields.Boolean(load_default=False, metadata={"description": TURNS_DESCRIPTION})


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
                 lifetime: float, heartbeat: float, turns: bool = False) -> Response:
    """The answer to ``GET /games/{id}/stream`` for ``seat`` (``None``: a spectator), from the
    game as the request read it; ``turns``: with ``turn`` messages (a seat's only: 401 without)."""
    if turns and seat is None:
        raise AuthenticationError("Turn messages carry a seat's listing: stream with your seat's token.")
    record = stored.record
    if record.status is Status.FINISHED and after >= record.seen_by(seat):
        return Response(status=204, headers=HEADERS)
    messages = _messages(service, record.id, seat, after, lifetime, heartbeat, turns)
    return Response(messages, mimetype=MEDIA_TYPE, headers=HEADERS)


def _messages(service: GameService, game_id: str, seat: int | None, after: int,
              lifetime: float, heartbeat: float, turns: bool) -> Iterator[bytes]:
    """The stream's bytes (:func:`pump`): ``end`` once the game is over and its last event was
    read; with ``turns``, a ``turn`` message the first time the seat may act at a version, once
    the caller has that version's events. The game is read again (its status, the caller's event
    count, its state for a turn) after each batch and each idle heartbeat: a game's last move may
    hold no event this caller may see. A seat's stream closes once its player has left the seat."""
    told = -1  # the version of the last turn message
    seen = 0  # the version of the last event read since the last look (0: none)

    def read(at: int, wait: float) -> tuple[list[dict[str, Any]], int]:
        nonlocal seen
        page = service.events(game_id, seat, at, wait)
        if page["events"]:
            seen = page["events"][-1]["version"]
        return page["events"], page["last_seq"]

    def look(at: int) -> tuple[bytes, bool]:
        nonlocal told, seen
        # after a batch, the game at least as new as its events, shared by this process's streams
        # of the game (its memory: no read after its own commit); at the start and after an idle
        # heartbeat, a read (the request's may be old; a version may hold no event for this caller)
        stored = service.seen_at(game_id, seen) if seen else service.load(game_id)
        seen = 0
        record = stored.record
        if seat is not None and not record.is_human(seat):
            # its player left: the seat's token reads as a spectator's from now on, so its private
            # events and turns stop here (a reconnection streams as a spectator)
            return b"", True
        if record.status is Status.FINISHED and at >= record.seen_by(seat):
            return b"event: end\ndata: %s\n\n" % jsontext.dumps(
                {"status": record.status.value, "last_seq": at,
                 "result": result_body(service.engine.result(service.state_of(stored)))}), True
        # a turn only once the caller holds every event of its version: the game may be newer
        # than the batch just sent (another commit since), and its events come first
        if turns and seat is not None and stored.version != told and at >= record.seen_by(seat):
            state = service.state_of(stored)
            listing = service.presenter.next_actions(stored.version, record.status, seat, state)
            if listing is not None:
                told = stored.version
                return b"event: turn\ndata: %s\n\n" % jsontext.dumps(
                    {"game": service.envelope(stored, seat, state), "next": listing}), False
        return b"", False

    return pump(f"{service.d.name} game {game_id}", after, lifetime, heartbeat, read, look)


def pump(what: str, after: int, lifetime: float, heartbeat: float,
         read: Callable[[int, float], tuple[list[dict[str, Any]], int]],
         look: Callable[[int], tuple[bytes, bool]] | None = None) -> Iterator[bytes]:
    """An event stream's bytes, for a game's stream and a player's alike: ``retry`` and a comment
    naming ``what`` first, then a message per event ``read(at, wait)`` gives (the events after
    ``at``, waiting up to ``wait`` seconds, and the new cursor), a comment per idle heartbeat;
    at the start and after each batch and heartbeat, what ``look(at)`` says (bytes to send, and
    whether the stream is over with them); until ``lifetime`` seconds have passed. A Redis
    failure (or a refusal) mid-stream closes it."""
    until = time.monotonic() + lifetime
    at = after
    yield b"retry: %d\n: %s after %d\n\n" % (RETRY_MS, what.encode(), at)
    try:
        while True:
            if look is not None:
                said, over = look(at)
                if said:
                    yield said
                if over:
                    return
            left = until - time.monotonic()
            if left <= 0:
                return
            events, at = read(at, min(heartbeat, left))
            if events:
                yield b"".join(message(e) for e in events)
            elif time.monotonic() < until:
                yield b": keep-alive\n\n"
    except (redis.RedisError, RedisClusterException, LudotecaError) as err:
        # mid-stream there is no status to give: close; the reconnection gets the usual answer
        log.warning("event stream of %s closed after seq %d: %s", what, at, err)


def player_stream(what: str, after: int, lifetime: float, heartbeat: float,
                  read: Callable[[int, float], tuple[list[dict[str, Any]], int]]) -> Response:
    """An event stream that never ends by itself (a player's: ``GET /players/me/events``)."""
    return Response(pump(what, after, lifetime, heartbeat, read), mimetype=MEDIA_TYPE, headers=HEADERS)
